package sim

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/workloads"
)

// heapProbe is a SeriesSink that keeps nothing of the series: it counts
// the points and, at the first that ends at or past at, measures the heap
// the run holds then (the bytes still allocated after a collection).
type heapProbe struct {
	at             float64
	units, nodes   int
	points, heldAt int
	heap           uint64
}

func (h *heapProbe) Begin(units, nodes []string) { h.units, h.nodes = len(units), len(nodes) }

func (h *heapProbe) Add(p SeriesPoint) {
	h.points++
	if h.heldAt == 0 && p.EndS >= h.at {
		h.heldAt = h.points
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		h.heap = m.HeapAlloc
	}
}

// TestSeriesIsNotHeld: a run hands its series to its sink and keeps none
// of it, so what a sustained session holds grows by less per step than
// one point of the series takes (the steps' times and bandwidth samples,
// which its summaries still need, are all that grows): measured near the
// end of a 10-minute and of a 60-minute session.
func TestSeriesIsNotHeld(t *testing.T) {
	if testing.Short() {
		t.Skip("an hour of simulated decoding")
	}
	sc, err := workloads.LoadScenario("sustained", nil)
	if err != nil {
		t.Fatal(err)
	}
	probe := func(minutes float64) *heapProbe {
		cfg := configFor(t, opts{chip: "seed-c", model: "llama-3.2-1b", fidelity: Analytic})
		cfg.Scenario, cfg.Duration = sc, minutes*60
		h := &heapProbe{at: 0.95 * minutes * 60}
		cfg.Series = h
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		if h.heldAt == 0 {
			t.Fatalf("%.0f min: the series never reached %.0f s", minutes, h.at)
		}
		return h
	}
	short, long := probe(10), probe(60)
	perPoint := (float64(long.heap) - float64(short.heap)) / float64(long.heldAt-short.heldAt)
	// A point held in memory: its struct and its three slices' floats.
	point := float64(unsafe.Sizeof(SeriesPoint{})) + 8*float64(short.units+2*short.nodes)
	t.Logf("heap %.1f MB after %d points of 10 min, %.1f MB after %d of 60 min: %.0f bytes a point (a held point takes %.0f)",
		float64(short.heap)/1e6, short.heldAt, float64(long.heap)/1e6, long.heldAt, perPoint, point)
	if perPoint >= point {
		t.Errorf("the run holds %.0f bytes more per point of its series, as much as keeping the point (%.0f bytes): the series is held in memory", perPoint, point)
	}
}

// TestStagesAreStretchesOfTheirOwn: a single scenario's series names the
// load and each input stage, each as long as its cost (capture 20 ms,
// preprocess 5 ms, tokenize 512 tokens × 15 µs = 7.68 ms), and while the
// CPU tokenises the NPU draws what it draws idle — within 1% of its draw
// while the CPU captures (its leakage follows its temperature) — and less than a tenth of what it draws in the prefill
// that follows.
func TestStagesAreStretchesOfTheirOwn(t *testing.T) {
	sc, err := workloads.LoadScenario("single", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, opts{chip: "snapdragon-8-gen3", model: "llama-3.2-1b", quant: "W4A16", fidelity: Analytic, runtime: runtimes.MustLoad("genie")})
	cfg.Scenario = sc
	var s Series
	cfg.Series = &s
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	npu, cpu := slices.Index(s.Nodes, "npu"), slices.Index(s.Nodes, "cpu")
	at := map[string]SeriesPoint{}
	var order []string
	for _, p := range s.Points {
		if _, ok := at[p.Phase]; !ok {
			order = append(order, p.Phase)
			at[p.Phase] = p
		}
	}
	if want := []string{"load", "capture", "preprocess", "tokenize", "prefill", "decode"}; !slices.Equal(order[:len(want)], want) {
		t.Fatalf("stretches %v, want them to begin %v", order, want)
	}
	for name, want := range map[string]float64{"capture": 0.020, "preprocess": 0.005, "tokenize": 512 * 15e-6} {
		if got := at[name].Seconds; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s took %.6f s, want %.6f", name, got, want)
		}
	}
	tok, capture, prefill := at["tokenize"], at["capture"], at["prefill"]
	if math.Abs(tok.NodePowerW[npu]/capture.NodePowerW[npu]-1) > 0.01 || tok.NodePowerW[npu] > prefill.NodePowerW[npu]/10 {
		t.Errorf("NPU at %.3f W while tokenising, %.3f W while capturing, %.3f W in the prefill: want it idle in the stages", tok.NodePowerW[npu], capture.NodePowerW[npu], prefill.NodePowerW[npu])
	}
	if tok.NodePowerW[cpu] <= at["load"].NodePowerW[cpu] {
		t.Errorf("CPU at %.3f W while tokenising, %.3f W while the model loads: want more", tok.NodePowerW[cpu], at["load"].NodePowerW[cpu])
	}
}
