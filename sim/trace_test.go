package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/workloads"
)

// TestTraceOfADecode: a llama-2-7b run's trace is valid trace-event JSON
// with a track per unit, per DMA channel and for the passes, counters for
// bandwidth and clocks, and spans that nest and never overlap on a track.
func TestTraceOfADecode(t *testing.T) {
	tr := &Trace{}
	o := opts{chipSrc: minimalChip, prompt: 16, gen: 12}
	r := simulateTraced(t, o, tr)
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(tr); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []TraceEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not valid JSON: %v", err)
	}
	names := map[int]string{}
	spans := map[int][]TraceEvent{}
	counters := map[string]bool{}
	for _, ev := range doc.TraceEvents {
		switch ev.Ph {
		case "M":
			if ev.Name == "thread_name" {
				names[ev.Tid] = ev.Args["name"].(string)
			}
		case "X":
			if ev.Dur < 0 {
				t.Fatalf("negative span %+v", ev)
			}
			spans[ev.Tid] = append(spans[ev.Tid], ev)
		case "C":
			counters[ev.Name] = true
		default:
			t.Fatalf("unexpected phase %q", ev.Ph)
		}
	}
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for _, want := range []string{"npu", "cpu", "passes", "dma 0"} {
		if !have[want] {
			t.Errorf("no %q track; tracks %v", want, names)
		}
	}
	for _, want := range []string{"bandwidth use", "clock npu (GHz)"} {
		if !counters[want] {
			t.Errorf("no %q counter", want)
		}
	}
	// On every track spans either nest or follow each other, to within a
	// picosecond of rounding.
	const eps = 1e-6 // µs
	for tid, evs := range spans {
		sort.SliceStable(evs, func(i, j int) bool {
			if evs[i].Ts != evs[j].Ts {
				return evs[i].Ts < evs[j].Ts
			}
			return evs[i].Dur > evs[j].Dur
		})
		var open []TraceEvent
		for _, ev := range evs {
			for len(open) > 0 && ev.Ts >= open[len(open)-1].Ts+open[len(open)-1].Dur-eps {
				open = open[:len(open)-1]
			}
			if len(open) > 0 {
				p := open[len(open)-1]
				if ev.Ts+ev.Dur > p.Ts+p.Dur+eps {
					t.Fatalf("track %s: %q [%g, %g] overlaps %q [%g, %g] without nesting", names[tid], ev.Name, ev.Ts, ev.Ts+ev.Dur, p.Name, p.Ts, p.Ts+p.Dur)
				}
			}
			open = append(open, ev)
		}
	}
	// The passes track covers the whole run: prefill, then every decode step.
	passes := spans[tr.tracks["passes"]]
	if len(passes) != 1+12 {
		t.Errorf("%d pass spans, want 13", len(passes))
	}
	last := passes[len(passes)-1]
	if end := (last.Ts + last.Dur) / 1e6; end > r.Time.Total+1e-9 || end < r.Time.Total*0.99 {
		t.Errorf("passes end at %g s, the run took %g s", end, r.Time.Total)
	}
}

func simulateTraced(t *testing.T, o opts, tr *Trace) *Result {
	t.Helper()
	pol, _ := LoadPolicy("stream-weights")
	cfg := configFor(t, o)
	cfg.Policy, cfg.Trace = pol, tr
	r, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestStreamTraceIsTheFinishedTrace: a streamed trace emits, after its
// metadata, exactly the events of a trace held to the end and sorted,
// in the same order — through interpolated steps shifted behind the ones
// they skipped, sessions of many turns, think time and speculative turns
// — while holding no more than a few steps' events at a time.
func TestStreamTraceIsTheFinishedTrace(t *testing.T) {
	scenario := func(t *testing.T, ref string, sets ...string) *workloads.Scenario {
		var ovs []spec.Override
		for _, s := range sets {
			ov, err := spec.ParseOverride(s)
			if err != nil {
				t.Fatal(err)
			}
			ovs = append(ovs, ov)
		}
		sc, err := workloads.LoadScenario(ref, ovs)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	draft, err := workloads.LoadModel("llama-3.2-1b", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    opts
		set  func(*testing.T, *Config)
	}{
		{"one prompt, steps interpolated", opts{chipSrc: minimalChip, prompt: 32, gen: 300}, nil},
		// Rope falls back to the CPU: spans on its track inside each pass.
		{"line fidelity, fallbacks", opts{chip: "seed-c", model: "seed-moe-3b", prompt: 16, gen: 30, fidelity: Line,
			sets: []string{"units.npu.ops=[embed, norm, matmul, attention, activation, residual, router]"}}, nil},
		{"sustained session", opts{chip: "seed-a", model: "llama-3.2-1b"}, func(t *testing.T, c *Config) {
			c.Scenario, c.Duration = scenario(t, "sustained", "context_limit=600"), 20
		}},
		{"chat, speculative turns", opts{chip: "seed-c", model: "llama-3.2-3b"}, func(t *testing.T, c *Config) {
			c.Scenario = scenario(t, "chat-30", "turns=4")
			c.Draft = &Draft{Model: draft}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(tr *Trace) {
				cfg := configFor(t, tc.o)
				if tc.set != nil {
					tc.set(t, &cfg)
				}
				cfg.Trace = tr
				if _, err := Run(t.Context(), cfg); err != nil {
					t.Fatal(err)
				}
			}
			whole := &Trace{}
			run(whole)
			var emitted []TraceEvent
			most := 0
			var streamed *Trace
			streamed = StreamTrace(func(ev TraceEvent) error {
				emitted = append(emitted, ev)
				most = max(most, len(streamed.pending))
				return nil
			})
			run(streamed)
			got := append(slices.Clone(streamed.Events), emitted...)
			if len(got) != len(whole.Events) {
				t.Fatalf("streamed %d events, the whole trace has %d", len(got), len(whole.Events))
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], whole.Events[i]) {
					t.Fatalf("event %d streamed as %+v, in the whole trace %+v", i, got[i], whole.Events[i])
				}
			}
			if len(streamed.pending) != 0 || len(streamed.tail) != 0 {
				t.Errorf("%d events and %d counters never emitted", len(streamed.pending), len(streamed.tail))
			}
			// A prefill's events wait for its first decode step (a
			// third of the one-prompt run's); after it, a step's.
			if most > len(got)/3 {
				t.Errorf("held up to %d of %d events", most, len(got))
			}
		})
	}
}

// TestStretchesFollowOneAnother: a run has one clock, so its passes follow
// one another in time. Genie prefills a prompt in 128-token chunks, each a
// pass of its own inside the prefill's one stretch; each chunk's bandwidth
// sample starts where the one before ended (before the run had one clock
// they all started at 0), and each decode step starts once the token
// before it is sampled.
func TestStretchesFollowOneAnother(t *testing.T) {
	cfg := configFor(t, opts{chip: "snapdragon-8-elite", model: "llama-3.2-1b", quant: "W4A16", prompt: 300, gen: 3, fidelity: Analytic, runtime: runtimes.MustLoad("genie")})
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := r.Bandwidth
	if len(b) != 3+3 || b[2].Pass != "prefill" || b[3].Pass != "decode 0" {
		t.Fatalf("passes %v, want three 128-token prefill chunks and three decode steps", b)
	}
	for i := 1; i < len(b); i++ {
		end := b[i-1].StartS + b[i-1].Seconds
		gap := b[i].StartS - end
		sampled := b[i].Pass != "prefill" // a decode step starts after the last pass's token is sampled
		if gap < -1e-12 || !sampled && gap > 1e-12 || sampled && gap > 1e-3 {
			t.Errorf("%s starts at %.6f s, %.3g s after %s ended", b[i].Pass, b[i].StartS, gap, b[i-1].Pass)
		}
	}
}
