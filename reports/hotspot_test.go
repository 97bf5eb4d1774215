package reports

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/sim"
)

// smallSeries is a prefill of 0.25 s and four decode steps of 0.08 s, on
// four nodes of which the skin draws no power (so it is no heat source).
func smallSeries() *sim.Series {
	pt := func(phase string, end, secs float64, w ...float64) sim.SeriesPoint {
		return sim.SeriesPoint{Phase: phase, EndS: end, Seconds: secs, NodePowerW: w}
	}
	return &sim.Series{
		Units: []string{"npu", "cpu"},
		Nodes: []string{"npu", "cpu", "package", "skin"},
		Points: []sim.SeriesPoint{
			pt("prefill", 0.25, 0.25, 4, 0.4, 1.2, 0),
			pt("decode", 0.33, 0.08, 1, 0.3, 2, 0),
			pt("decode", 0.41, 0.08, 1, 0.3, 2, 0),
			pt("decode", 0.49, 0.08, 0.5, 0.3, 2, 0),
			pt("decode", 0.57, 0.08, 0.5, 0.3, 2, 0),
		},
	}
}

func TestHotSpotGolden(t *testing.T) {
	trace, sources, err := PTrace(smallSeries(), 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sources, ",") != "npu,cpu,package" {
		t.Errorf("heat sources %v, want npu, cpu, package (the skin draws nothing)", sources)
	}
	golden(t, "hotspot-small.ptrace", trace)
	golden(t, "hotspot-small.flp", Floorplan(sources, "small.ptrace", 0.1))
	// The first row is the prefill alone: 4 W in the NPU. The third spans
	// the prefill's last 0.05 s (4 W) and 0.05 s of the first step (1 W).
	lines := strings.Split(string(trace), "\n")
	if !strings.HasPrefix(lines[1], "4\t") || !strings.HasPrefix(lines[3], "2.5\t") {
		t.Errorf("rows 1 and 3 start %q and %q, want 4 and 2.5 W", lines[1], lines[3])
	}
}

// TestPTraceKeepsEnergy: resampling moves energy between rows, never loses
// or adds any, whatever the interval.
func TestPTraceKeepsEnergy(t *testing.T) {
	s := smallSeries()
	var want float64
	for _, p := range s.Points {
		for _, w := range p.NodePowerW {
			want += w * p.Seconds
		}
	}
	for _, interval := range []float64{0.01, 0.07, 0.1, 0.3, 1} {
		trace, _, err := PTrace(s, interval)
		if err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(strings.TrimSpace(string(trace)), "\n")[1:]
		var got float64
		for r, row := range rows {
			length := math.Min(interval, 0.57-float64(r)*interval)
			for _, f := range strings.Split(row, "\t") {
				w, err := strconv.ParseFloat(f, 64)
				if err != nil {
					t.Fatalf("interval %g, row %d: %v", interval, r, err)
				}
				got += w * length
			}
		}
		if wantRows := int(math.Ceil(0.57/interval - 1e-9)); len(rows) != wantRows {
			t.Errorf("interval %g: %d rows, want %d", interval, len(rows), wantRows)
		}
		if math.Abs(got-want) > 1e-5*want {
			t.Errorf("interval %g: %.6f J in the trace, %.6f J in the run", interval, got, want)
		}
	}
}

func TestWriteHotSpot(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ptrace")
	if err := WriteHotSpot(path, smallSeries()); err != nil {
		t.Fatal(err)
	}
	flp, err := os.ReadFile(filepath.Join(dir, "run.flp"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(flp), "power trace: run.ptrace") || !strings.Contains(string(flp), "package\t0.003200\t0.003200\t0.006400\t0.000000\n") {
		t.Errorf("floorplan:\n%s", flp)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the folder, want the trace and the floorplan (no temporary left)", len(entries))
	}
	if err := WriteHotSpot(filepath.Join(dir, "run.flp"), smallSeries()); err == nil {
		t.Error("a trace named .flp was accepted; its floorplan would overwrite it")
	}
	if err := WriteHotSpot(filepath.Join(dir, "idle.ptrace"), &sim.Series{Nodes: []string{"npu"}, Points: []sim.SeriesPoint{{EndS: 1, Seconds: 1, NodePowerW: []float64{0}}}}); err == nil {
		t.Error("a run without power gave a trace")
	}
}
