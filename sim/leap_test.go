package sim

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/workloads"
)

// engineFor builds the engine Run would for cfg.
func engineFor(t testing.TB, cfg Config) *engine {
	t.Helper()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	unit, dt, err := pickUnit(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	e, err := newEngine(&cfg, cfg.Policy, unit, dt)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// onePass runs one tile pass of w on a fresh engine and returns its time,
// counters and the events the kernel fired.
func onePass(t *testing.T, cfg Config, w workloads.Work) (float64, counters, uint64) {
	t.Helper()
	e := engineFor(t, cfg)
	e.work = w
	e.scanBypass(w)
	ops := workloads.Lower(cfg.Model.Model, cfg.Quant, cfg.KV, w)
	secs := e.exec.run(ops, e.plan(ops))
	return secs, e.st.counters, e.sim.Fired()
}

// missLines is every L3 miss of c, in lines.
func missLines(c counters) float64 {
	var n float64
	for p := range c.missLines {
		for _, m := range c.missLines[p] {
			n += m
		}
	}
	return n
}

// TestLeap: leaping over the steady middle of long operators gives the
// pass time and counters of simulating every tile (L3 misses included:
// the skipped writes' own), to a part in 10⁹, with
// several times fewer events: dense and MoE decode, with the KV scanned
// or cached, and a prefill (whose activations hit the L3, so only some
// operators leap).
func TestLeap(t *testing.T) {
	for _, c := range []struct {
		name       string
		o          opts
		w          workloads.Work
		fewerTimes float64 // at least this many times fewer events (measured: see each row)
	}{
		{"phone decode, KV scanned", opts{chip: "snapdragon-8-gen3", unit: "gpu"}, workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: 3000, Batch: 1}, 5},                                      // 6.9×: weights and the scanned KV stream in long steady runs
		{"phone decode, batch 4", opts{chip: "snapdragon-8-gen3", unit: "gpu"}, workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: 1000, Batch: 4}, 5},                                         // 7.9×
		{"MoE decode, KV in the L3", opts{chip: "seed-c", model: "seed-moe-3b", sets: []string{"memory.l3.size=24MiB"}}, workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: 200, Batch: 1}, 1}, // 1.05×: small experts leave few tiles to skip; exactness is the point
		{"minimal chip decode", opts{chipSrc: minimalChip}, workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: 256, Batch: 1}, 1.4},                                                            // 1.53×: a small model, short operators
		{"phone prefill", opts{chip: "snapdragon-8-gen3", unit: "gpu"}, workloads.Work{Phase: workloads.Prefill, Tokens: 512, Context: 0, Batch: 1}, 1},                                                 // 1.01×: activations hit the L3, so few operators may leap
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := configFor(t, c.o)
			leapt, lc, lf := onePass(t, cfg, c.w)
			cfg.Exact.Leap = true
			every, ec, ef := onePass(t, cfg, c.w)
			t.Logf("%.6f s in %d events; every tile: %.6f s in %d events", leapt, lf, every, ef)
			if math.Abs(leapt-every) > 1e-9*every || !lc.near(ec) || math.Abs(missLines(lc)-missLines(ec)) > 1e-9*missLines(ec) {
				t.Errorf("with leaps %.12g s, %+v\nevery tile %.12g s, %+v", leapt, lc, every, ec)
			}
			if float64(lf)*c.fewerTimes > float64(ef) {
				t.Errorf("%d events with leaps, %d without: want %g times fewer", lf, ef, c.fewerTimes)
			}
		})
	}
}

// TestPrefillReplay: a sustained session whose later requests replay the
// first prefill's L3 outcome stays within 0.5% of looking every block
// up, on the figures a session reports, while its clocks move.
func TestPrefillReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("two 60-second sessions")
	}
	// Prompts of 512 tokens to a 640-token limit: three requests in the
	// minute, and a skin trip at 30 °C so they run at different clocks.
	sc := &workloads.Scenario{Name: "short", Kind: workloads.Sustained, Duration: 60, Prompt: 512, ContextLimit: 640}
	run := func(exact bool) *Result {
		cfg := configFor(t, opts{chip: "snapdragon-8-gen3", unit: "gpu", sets: []string{"governor.skin.limit=30C"}, runtime: runtimes.None})
		cfg.Scenario, cfg.Exact.PrefillReplay = sc, exact
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	replayed, exact := run(false), run(true)
	t.Logf("%d requests", len(exact.Turns))
	if len(exact.Turns) < 3 {
		t.Fatalf("%d requests: the test needs several prefills", len(exact.Turns))
	}
	for _, c := range []closeness{
		{"TTFT", replayed.TTFT, exact.TTFT, false},
		{"prefill tokens/s", *replayed.Prefill.TokensPerS, *exact.Prefill.TokensPerS, false},
		{"decode tokens/s", *replayed.Decode.TokensPerS, *exact.Decode.TokensPerS, false},
		{"energy", replayed.Energy.TotalJ, exact.Energy.TotalJ, false},
		{"DRAM bytes", replayed.Memory.DRAMBytes, exact.Memory.DRAMBytes, false},
		{"L3 miss rate", replayed.Memory.L3MissRate, exact.Memory.L3MissRate, true},
	} {
		d := math.Abs(c.got - c.want)
		t.Logf("%s: %.6g with replays, %.6g without (%.4f%%)", c.name, c.got, c.want, 100*d/math.Abs(c.want))
		if d > 0.005*math.Abs(c.want) {
			t.Errorf("%s differs by more than 0.5%%", c.name)
		}
	}
}

// TestReplayTakesRecordedHits: the second prefill of the same work takes
// the first one's L3 hits even from an emptied L3, and leaves the L3 as
// the first left it.
func TestReplayTakesRecordedHits(t *testing.T) {
	cfg := configFor(t, opts{chip: "snapdragon-8-gen3"})
	e := engineFor(t, cfg)
	w := workloads.Work{Phase: workloads.Prefill, Tokens: 64, Batch: 1}
	pass := func() float64 {
		before := e.st.l3HitBytes
		e.work = w
		e.startReplay(w)
		ops := workloads.Lower(cfg.Model.Model, cfg.Quant, cfg.KV, w)
		e.exec.run(ops, e.plan(ops))
		e.endReplay()
		return e.st.l3HitBytes - before
	}
	first := pass()
	after := e.l3c.Save()
	e.l3c.Invalidate(0)
	second := pass()
	if first <= 0 || second != first {
		t.Errorf("L3 hits: %g B recorded, %g B replayed; want equal and positive", first, second)
	}
	if got := e.l3c.Save(); !reflect.DeepEqual(got, after) {
		t.Error("the replay did not leave the L3 as the recorded pass did")
	}
}

// TestAnalyticStepReuse: decode steps interpolated at analytic fidelity
// stay within 1% of computing every step, across a KV cache that
// outgrows the L3 (where the analytic L3 estimate jumps) and on a dense
// phone decode, with fewer steps computed.
func TestAnalyticStepReuse(t *testing.T) {
	for _, o := range []opts{
		{chip: "seed-c", model: "seed-moe-3b", prompt: ctxFor(10 << 20), gen: 96, fidelity: Analytic}, // crosses the 12 MiB L3
		{chip: "snapdragon-8-gen3", prompt: 0, gen: 300, fidelity: Analytic},
	} {
		reused := simulate(t, o)
		cfg := configFor(t, o)
		cfg.Exact.StepReuse = true
		exact, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		within1Percent(t, o.chip+" analytic, with reuse and without", []closeness{
			{"decode tokens/s", *reused.Decode.TokensPerS, *exact.Decode.TokensPerS, false},
			{"p99 ms/token", *reused.Decode.MsPerToken.P99, *exact.Decode.MsPerToken.P99, false},
			{"DRAM bytes", reused.Memory.DRAMBytes, exact.Memory.DRAMBytes, false},
			{"L3 hit bytes", reused.Memory.L3Bytes, exact.Memory.L3Bytes, false},
			{"KV L3 miss rate", reused.Memory.KVL3MissRate, exact.Memory.KVL3MissRate, true},
		})
	}
}

// TestFidelityPresets: the shortcuts each fidelity may take — tile all
// five, analytic step reuse alone, line (the exact reference) none — and
// that Exact switches each off alone.
func TestFidelityPresets(t *testing.T) {
	all := []shortcut{leap, prefillReplay, scanBypass, stepReuse, spillBypass}
	names := []string{"leap", "prefill replay", "scan bypass", "step reuse", "spill bypass"}
	want := map[Fidelity][]bool{
		Tile:     {true, true, true, true, true},
		Analytic: {false, false, false, true, false},
		Line:     {false, false, false, false, false},
	}
	offs := []Shortcuts{{Leap: true}, {PrefillReplay: true}, {ScanBypass: true}, {StepReuse: true}, {SpillBypass: true}}
	for f, takes := range want {
		for i, s := range all {
			c := Config{Fidelity: f, Model: &workloads.Spec{}} // a dense model: step reuse applies
			if got := c.takes(s); got != takes[i] {
				t.Errorf("%s takes %s: %v, want %v", f, names[i], got, takes[i])
			}
			for j, off := range offs {
				c.Exact = off
				if got, w := c.takes(s), takes[i] && i != j; got != w {
					t.Errorf("%s with Exact %+v takes %s: %v, want %v", f, off, names[i], got, w)
				}
			}
		}
	}
	if o := Analytic.Options(); o.Events || o.Lines {
		t.Errorf("analytic options %+v: want the arithmetic pipe, L3 estimated", o)
	}
	if o := Line.Options(); !o.Events || !o.Lines {
		t.Errorf("line options %+v: want events, L3 by lines", o)
	}
}
