package sweep

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
)

const MiB = 1 << 20

func TestParseVary(t *testing.T) {
	mib := func(ns ...float64) []float64 {
		for i := range ns {
			ns[i] *= MiB
		}
		return ns
	}
	for _, tc := range []struct {
		in     string
		field  string
		kind   units.Kind
		values []float64
	}{
		{"kv=1MiB..4MiB:1MiB", "kv", units.KindBytes, mib(1, 2, 3, 4)},
		{"kv=1MiB..16MiB:x2", "kv", units.KindBytes, mib(1, 2, 4, 8, 16)},
		{"kv=1MiB..20MiB:x2", "kv", units.KindBytes, mib(1, 2, 4, 8, 16)}, // b itself only when a step lands on it
		{"kv=4MiB,512KiB,2MiB", "kv", units.KindBytes, mib(4, 0.5, 2)},    // a list keeps its order
		{"kv=1048576..2MiB:1MiB", "kv", units.KindBytes, mib(1, 2)},       // a plain number is in bytes
		{"kv=8MiB", "kv", units.KindBytes, mib(8)},
		{"ctx=128..4096:x2", "ctx", 0, []float64{128, 256, 512, 1024, 2048, 4096}},
		{"ctx=0..1024:256", "ctx", 0, []float64{0, 256, 512, 768, 1024}},
		// xN on token counts rounds, and drops the repeats rounding makes:
		// 1, 1.2, 1.44, 1.73, 2.07, 2.49, 2.99.
		{"ctx=1..3:x1.2", "ctx", 0, []float64{1, 2, 3}},
		{"memory.dram.bandwidth=40GB/s..80GB/s:10GB/s", "memory.dram.bandwidth", units.KindByteRate, []float64{40e9, 50e9, 60e9, 70e9, 80e9}},
		{"memory.l3.size=3MiB,6MiB,12MiB", "memory.l3.size", units.KindBytes, mib(3, 6, 12)},
		{"memory.l3.size = 3 MiB, 6 MiB", "memory.l3.size", units.KindBytes, mib(3, 6)},
		{"memory.l3.ways=8,12,16", "memory.l3.ways", 0, []float64{8, 12, 16}},
		{"units.npu.clock=500MHz..1GHz:250MHz", "units.npu.clock", units.KindFrequency, []float64{500e6, 750e6, 1e9}},
		{"model.kv_heads=1..8:x2", "model.kv_heads", 0, []float64{1, 2, 4, 8}},
		// Float steps drift (0.1 added up is not 0.3); values are tidied
		// and the end within 1e-9 is b.
		{"x=0.1..1:0.1", "x", 0, []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}},
		{"x=0..1:0.3", "x", 0, []float64{0, 0.3, 0.6, 0.9}},
		{"x=1..1.331:x1.1", "x", 0, []float64{1, 1.1, 1.21, 1.331}},
		{"thermal.ambient=-10C..20C:15C", "thermal.ambient", units.KindTemperature, []float64{-10, 5, 20}},
	} {
		a, err := ParseVary(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if a.Field != tc.field || a.Kind != tc.kind || !slices.Equal(a.Values, tc.values) {
			t.Errorf("%s: got %s %v %v, want %s %v %v", tc.in, a.Field, a.Kind, a.Values, tc.field, tc.kind, tc.values)
		}
	}
}

func TestParseVaryErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"kv", "is not FIELD=RANGE"},
		{"=1,2", "is not FIELD=RANGE"},
		{"kv=", "is not FIELD=RANGE"},
		{"kv=4MiB..1MiB:1MiB", "runs backwards"},
		{"x=1..4:0", "step must be above 0"},
		{"x=1..4:-1", "step must be above 0"},
		{"kv=1MiB..4MiB:0B", "a size must be positive"},
		{"kv=1MiB..4MiB:x1", "factor must be above 1"},
		{"kv=1MiB..4MiB:x0.5", "factor must be above 1"},
		{"kv=1MiB..4MiB:xfast", "factor must be a plain number"},
		{"ctx=0..4096:x2", "must start above 0"},
		{"kv=1MiB..4MiB", "needs a step"},
		{"memory.dram.bandwidth=40GB/s..80GiB:10GB/s", "mix units: bandwidth and size"},
		{"memory.l3.size=3MiB,6GB/s", "mix units: size and bandwidth"},
		{"kv=1B..1GiB:1B", "more than 10000 points"},
		{"kv=1B..1GiB:x1.0000001", "more than 10000 points"},
		{"ctx=1.5..4:1", `"1.5" is not a context length`},
		{"ctx=-1,4", `"-1" is not a context length`},
		{"kv=fast", `"fast" is not a size`},
		{"kv=1GB/s", "GB/s is a bandwidth, not a size"},
		{"memory.l3.size=big", `"big" is not a number or a quantity`},
		{"memory.dram.bandwidth=0GB/s,10GB/s", "a bandwidth must be positive"},
	} {
		_, err := ParseVary(tc.in)
		if err == nil {
			t.Errorf("%s: no error", tc.in)
			continue
		}
		msg := err.Error()
		var ie *spec.Error
		if !strings.Contains(msg, tc.want) || !errors.As(err, &ie) || ie.Field != "vary" || !strings.Contains(msg, "a..b:step") {
			t.Errorf("%s: %q should be an input error in vary, say %q and list the forms", tc.in, msg, tc.want)
		}
	}
	if _, err := ParseVaries([]string{"kv=1MiB..2MiB:1MiB", "ctx=1,2"}); err == nil || !strings.Contains(err.Error(), "vary one of them") {
		t.Errorf("kv and ctx together: %v", err)
	}
	if _, err := ParseVaries([]string{"ctx=1,2", "ctx=3"}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("ctx twice: %v", err)
	}
	if _, err := ParseVaries([]string{"ctx=1..200:1", "memory.l3.ways=1..100:1"}); err == nil || !strings.Contains(err.Error(), "more than 10000 points together") {
		t.Errorf("200 × 100 points: %v", err)
	}
}

// FuzzParseVary: no --vary text makes the range parser panic, and a range
// it accepts is finite, within the point limit and in order for a..b forms.
func FuzzParseVary(f *testing.F) {
	for _, s := range []string{"kv=1MiB..16MiB:1MiB", "ctx=128..4096:x2", "memory.dram.bandwidth=40GB/s,60GB/s", "memory.l3.size=3MiB..12MiB:3MiB", "x=1..1e300:1", "kv=0..1:x1", "ctx=1,2,3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseVary(s)
		if err != nil {
			return
		}
		if len(a.Values) == 0 || len(a.Values) > MaxPoints {
			t.Fatalf("%q: %d values", s, len(a.Values))
		}
		for i, v := range a.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%q: value %d is %v", s, i, v)
			}
			if strings.Contains(s, "..") && i > 0 && v < a.Values[i-1] {
				t.Fatalf("%q: range out of order: %v", s, a.Values)
			}
		}
	})
}

// A field of names takes a list, in its order; its values index it.
func TestParseChoiceVary(t *testing.T) {
	if a, err := ParseVary("model=../m/a.config.json,llama-3.2-1b"); err != nil || a.Choices[0] != "../m/a.config.json" {
		t.Errorf("a model file up a directory: %v %v", a.Choices, err)
	}
	a, err := ParseVary("quant= Q8_0,Q4_0 ,Q5_K_M")
	if err != nil {
		t.Fatal(err)
	}
	if a.Field != "quant" || !slices.Equal(a.Choices, []string{"Q8_0", "Q4_0", "Q5_K_M"}) || !slices.Equal(a.Values, []float64{0, 1, 2}) {
		t.Errorf("got %s %v %v", a.Field, a.Choices, a.Values)
	}
	for _, tc := range []struct{ in, want string }{
		{"quant=Q4_0..Q8_0:1", "quant takes a list of names"},
		{"model=a,,b", "an empty name"},
		{"runtime=genie,mlc,genie", "genie is given twice"},
	} {
		_, err := ParseVary(tc.in)
		var ie *spec.Error
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &ie) || ie.Field != "vary" {
			t.Errorf("%s: %v, want an input error in vary saying %q", tc.in, err, tc.want)
		}
	}
	f := Field{Name: "quant", Choices: a.Choices}
	if f.Text(1) != "Q4_0" || f.JSON(2) != `"Q5_K_M"` || f.Text(7) != "?" {
		t.Errorf("text %q, JSON %q, out of range %q", f.Text(1), f.JSON(2), f.Text(7))
	}
}
