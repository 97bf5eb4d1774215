package sweep

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/units"
)

func f64(v float64) *float64 { return &v }

// testHeader is a sweep of 5 points over kv (ctx derived) with two
// metrics.
func testHeader() Header {
	return Header{SoC: "seed-c", Model: "seed-moe-3b", Quant: "Q4_0", Varies: []string{"kv=1MiB..5MiB:1MiB"},
		Fields:  []Field{{Name: "kv", Label: "KV cache", Kind: units.KindBytes}, {Name: "ctx", Label: "context (tokens)", Derived: true}},
		Metrics: []string{"decode.tokens_per_s", "ttft_s"}, Flags: "sha256:0", Points: 5, L3Bytes: 8 << 20}
}

// testPoints have the figures that must survive a trip through text
// exactly: shortest-form floats, tiny and huge ones, a null metric and
// an error.
func testPoints() []Point {
	return []Point{
		{Index: 0, Values: []float64{1 << 20, 21}, Metrics: []*float64{f64(0.1 + 0.2), f64(1e-300)}},
		{Index: 1, Values: []float64{2 << 20, 43}, Metrics: []*float64{f64(math.Pi), nil}},
		{Index: 2, Values: []float64{3 << 20, 64}, Metrics: []*float64{f64(1.7976931348623157e308), f64(5e-324)}},
		{Index: 3, Values: []float64{4 << 20, 85}, Metrics: []*float64{nil, nil}, Err: "does not fit: needs \"3 GB\"\n"},
		{Index: 4, Values: []float64{5 << 20, 107}, Metrics: []*float64{f64(math.Copysign(0, -1)), f64(123456789.123456789)}},
	}
}

// writeParts writes the test sweep as n shards and returns the files.
func writeParts(t *testing.T, h Header, n int) []string {
	t.Helper()
	dir := t.TempDir()
	var names []string
	for i := range n {
		var b bytes.Buffer
		sh := Shard{i, n}
		enc, err := NewEncoder(&b, h, sh)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range sh.Indices(h.Points) {
			if err := enc.Encode(testPoints()[j]); err != nil {
				t.Fatal(err)
			}
		}
		name := filepath.Join(dir, sh.String()[:1]+".jsonl")
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

// TestMergeRoundTrip: every bit of every figure comes back.
func TestMergeRoundTrip(t *testing.T) {
	h := testHeader()
	names := writeParts(t, h, 2)
	r, err := Merge(names[1], names[0])
	if err != nil {
		t.Fatal(err)
	}
	want := &Result{SoC: h.SoC, Model: h.Model, Quant: h.Quant, Fields: h.Fields, Metrics: h.Metrics, Points: testPoints(), L3Bytes: h.L3Bytes}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("merged %+v\nwant %+v", r, want)
	}
	if math.Signbit(*r.Points[4].Metrics[0]) != true {
		t.Errorf("-0 lost its sign")
	}
	// Concatenated parts (headers recurring) merge as well.
	var all []byte
	for _, n := range names {
		data, _ := os.ReadFile(n)
		all = append(all, data...)
	}
	cat := filepath.Join(t.TempDir(), "all.jsonl")
	os.WriteFile(cat, all, 0o644)
	if r, err := Merge(cat); err != nil || len(r.Points) != 5 {
		t.Errorf("concatenated parts: %v", err)
	}
}

func TestMergeErrors(t *testing.T) {
	h := testHeader()
	names := writeParts(t, h, 2)
	other := h
	other.Metrics = []string{"decode.tokens_per_s", "prefill.seconds"}
	others := writeParts(t, other, 2)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	data, _ := os.ReadFile(names[0])
	cut := write("cut.jsonl", string(data[:len(data)-10]))
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{nil, "needs the JSON Lines parts"},
		{names[:1], "2 points are missing (1, 3) of 5; shard 1/2 holds point 1"},
		{[]string{names[0], names[1], names[1]}, "is given twice"},
		{[]string{names[0], others[1]}, "parts of different sweeps: metrics decode.tokens_per_s,ttft_s vs decode.tokens_per_s,prefill.seconds"},
		{[]string{cut, names[1]}, "cut.jsonl:4: not a JSON object (a part cut short?)"},
		{[]string{write("empty.jsonl", "")}, "no sweep header"},
		{[]string{write("nohead.jsonl", `{"index":0}`)}, "a point before any sweep header"},
		{[]string{filepath.Join(dir, "absent.jsonl")}, "no such file"},
	} {
		_, err := Merge(tc.names...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !IsPointError(err) {
			t.Errorf("Merge(%v): %v; want an input error saying %q", tc.names, err, tc.want)
		}
	}
}

// A field of names goes through the stream as its names and comes back
// as the same indices; a name the header does not list is refused.
func TestMergeChoiceField(t *testing.T) {
	h := testHeader()
	h.Varies = []string{"quant=Q4_0,Q8_0", "kv=1MiB..5MiB:1MiB"}
	h.Fields = append([]Field{{Name: "quant", Label: "quant", Choices: []string{"Q4_0", "Q8_0"}}}, h.Fields...)
	var b bytes.Buffer
	enc, err := NewEncoder(&b, h, Shard{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	var want []Point
	for i, p := range testPoints() {
		p.Values = append([]float64{float64(i % 2)}, p.Values...)
		want = append(want, p)
		if err := enc.Encode(p); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(b.String(), `{"index":1,"quant":"Q8_0","kv":2097152`) {
		t.Errorf("the stream does not name the choice:\n%s", b.String())
	}
	name := filepath.Join(t.TempDir(), "q.jsonl")
	os.WriteFile(name, b.Bytes(), 0o644)
	r, err := Merge(name)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Points, want) || !reflect.DeepEqual(r.Fields, h.Fields) {
		t.Errorf("merged %+v\nwant %+v", r.Points, want)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, bytes.Replace(b.Bytes(), []byte(`"quant":"Q8_0"`), []byte(`"quant":"Q9"`), 1), 0o644)
	if _, err := Merge(bad); err == nil || !strings.Contains(err.Error(), `quant is "Q9", which the sweep does not vary over (Q4_0, Q8_0)`) {
		t.Errorf("an unknown name: %v", err)
	}
}
