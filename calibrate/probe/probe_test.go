package probe

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/hw"
)

// smallHost has a 1 MiB LLC, so the memory steps stay within a few MiB
// and the test is quick on any machine.
func smallHost() *Host {
	return &Host{OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: 2, CPU: "test CPU", MemoryBytes: 8 << 30,
		Caches: []Cache{
			{Level: 2, Type: "Unified", Bytes: 256 << 10, Ways: 8, Line: 64, SharedBy: 1},
			{Level: 3, Type: "Unified", Bytes: 1 << 20, Ways: 16, Line: 64, SharedBy: 2},
		}}
}

func TestPlan(t *testing.T) {
	all := Plan(Options{})
	if len(all) != len(StepNames()) {
		t.Fatalf("Plan lists %d steps, StepNames %d", len(all), len(StepNames()))
	}
	kinds := map[calibrate.Kind]bool{}
	for i, s := range all {
		if s.Name != StepNames()[i] {
			t.Errorf("step %d is %s, StepNames says %s", i, s.Name, StepNames()[i])
		}
		kinds[s.Kind] = true
	}
	// Every kind a probe measures (all but the llama-bench ones).
	for _, k := range []calibrate.Kind{calibrate.KindBandwidth, calibrate.KindLatency, calibrate.KindRandomRead, calibrate.KindMemcpy, calibrate.KindGEMV, calibrate.KindGEMM, calibrate.KindDecoder} {
		if !kinds[k] {
			t.Errorf("no step measures %s", k)
		}
	}
	// A selection keeps Plan's order, not the caller's.
	got := Plan(Options{Steps: []string{"decoder-s", "bandwidth"}, Quick: true})
	if want := []Step{{"bandwidth", calibrate.KindBandwidth}, {"decoder-s", calibrate.KindDecoder}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Plan(selection) = %v, want %v", got, want)
	}
}

// runProbe runs a probe and returns its records after a write and a strict
// read, so every record is valid on disk too.
func runProbe(t *testing.T, opts Options) []calibrate.Record {
	t.Helper()
	var buf bytes.Buffer
	w := calibrate.NewWriter(&buf)
	if err := Run(context.Background(), opts, w.Write); err != nil {
		t.Fatal(err)
	}
	recs, warns, err := calibrate.Read(&buf, "probe.jsonl")
	if err != nil || len(warns) > 0 {
		t.Fatalf("reading the records back: %v %v", err, warns)
	}
	return recs
}

// checkAgainstPlan: the records come step by step in Plan's order, every
// step gives at least one, each of its kind, with the common fields set.
func checkAgainstPlan(t *testing.T, opts Options, recs []calibrate.Record) {
	t.Helper()
	var order []string
	for _, r := range recs {
		step := strings.TrimPrefix(r.Source, "probe:")
		if len(order) == 0 || order[len(order)-1] != step {
			order = append(order, step)
		}
		i := slices.IndexFunc(Plan(opts), func(s Step) bool { return s.Name == step })
		if i < 0 {
			t.Fatalf("record from %q, not a planned step", r.Source)
		}
		if r.Kind != Plan(opts)[i].Kind {
			t.Errorf("%s record of kind %s, planned %s", step, r.Kind, Plan(opts)[i].Kind)
		}
		if r.SoC != "host" || r.Device != "test CPU" || r.Time == "" || r.Reps < 1 ||
			r.Conditions.ToolVersion != "edgetwin-probe "+Version || r.Conditions.OS == "" {
			t.Errorf("%s record lacks common fields: %+v", step, r)
		}
	}
	var planned []string
	for _, s := range Plan(opts) {
		planned = append(planned, s.Name)
	}
	if !slices.Equal(order, planned) {
		t.Errorf("records came from steps %v, Plan says %v", order, planned)
	}
}

func TestRunSelectedSteps(t *testing.T) {
	opts := Options{Quick: true, Host: smallHost(), Steps: []string{"bandwidth", "latency", "random_read", "memcpy", "gemm-q8_0", "decoder-s"}}
	recs := runProbe(t, opts)
	checkAgainstPlan(t, opts, recs)
	var sizes []int64
	for _, r := range recs {
		switch r.Kind {
		case calibrate.KindBandwidth:
			if r.Threads == 1 {
				sizes = append(sizes, r.Shape.Bytes)
			}
		case calibrate.KindDecoder:
			if r.Model != "probe-decoder-s" || r.Quant != DecoderQuant || r.Shape.Gen != 8 || r.Threads != 2 || r.Reps != 2 || r.ModelSize == 0 {
				t.Errorf("decoder record %+v", r)
			}
		case calibrate.KindGEMM:
			if r.Shape.M != 32 || r.Shape.N != 2048 || r.Quant != "Q8_0" || r.DType != "int8" {
				t.Errorf("gemm record %+v", r)
			}
		}
	}
	// Quick: one size an octave from 4 KiB to 2× the 1 MiB LLC.
	if want := []int64{4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20}; !slices.Equal(sizes, want) {
		t.Errorf("bandwidth sizes %v, want %v", sizes, want)
	}
}

// TestRunEveryStep runs the whole quick probe on the small host and emits
// a chip for it from the records.
func TestRunEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the three reference decoders and 64 MiB matrices")
	}
	opts := Options{Quick: true, Host: smallHost()}
	recs := runProbe(t, opts)
	checkAgainstPlan(t, opts, recs)
	chip, err := EmitSoC(*opts.Host, recs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(chip, []byte("probe:gemv-q4_0")) || !bytes.Contains(chip, []byte("probe:random_read")) {
		t.Errorf("emitted chip lacks measured figures:\n%s", chip)
	}
	loaded, err := hw.Load("host.yaml", chip, nil)
	if err != nil {
		t.Fatalf("hw.Load: %v\n%s", err, chip)
	}
	simulateOn(t, loaded)
}

func TestRunUnknownStep(t *testing.T) {
	err := Run(context.Background(), Options{Steps: []string{"bandwidth", "warp"}, Host: smallHost()}, func(calibrate.Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `"warp" is not a step`) {
		t.Errorf("err %v", err)
	}
}

func TestRunStopsOnEmitError(t *testing.T) {
	stop := errors.New("disk full")
	n := 0
	err := Run(context.Background(), Options{Quick: true, Host: smallHost(), Steps: []string{"bandwidth"}}, func(calibrate.Record) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("err %v after %d records, want disk full after 1", err, n)
	}
}

// TestRunHonoursContext cancels a probe in the middle of each long step —
// building the largest decoder, mapping and linking the latency buffer, a
// GEMV beyond the LLC — and wants Run back promptly. The steps look at
// their context every few milliseconds of work; the test allows two
// seconds because on a loaded shared machine (load average above 10 on 2
// cores while this was written) a thread can wait that long to be run.
func TestRunHonoursContext(t *testing.T) {
	for _, step := range []string{"decoder-l", "latency", "gemv-q4_0", "bandwidth"} {
		host := smallHost()
		host.Caches[1].Bytes = 256 << 20 // a large LLC: long steps
		freeMemory()                     // the last subtest's garbage, outside the timed part
		ctx, cancel := context.WithCancel(context.Background())
		cancelled := make(chan time.Time, 1)
		time.AfterFunc(300*time.Millisecond, func() { cancelled <- time.Now(); cancel() })
		err := Run(ctx, Options{Host: host, Steps: []string{step}}, func(calibrate.Record) error { return nil })
		late := time.Since(<-cancelled)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err %v, want context.Canceled", step, err)
		}
		if late > 2*time.Second {
			t.Errorf("%s: Run returned %v after the cancel", step, late)
		}
	}
}
