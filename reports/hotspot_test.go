package reports

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/thermal"
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
	golden(t, "hotspot-small.flp", Floorplan(sources, "small.ptrace", "small.config", 0.1))
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
	if err := WriteHotSpot(path, smallSeries(), phoneNetwork(t)); err != nil {
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
	if len(entries) != 3 {
		t.Errorf("%d files in the folder, want the trace, the floorplan and the configuration (no temporary left)", len(entries))
	}
	if !strings.Contains(string(flp), "# run with: hotspot -c run.config -f run.flp -p run.ptrace") {
		t.Errorf("the floorplan's command does not name the configuration written beside it:\n%s", flp)
	}
	if err := WriteHotSpot(filepath.Join(dir, "run.flp"), smallSeries(), nil); err == nil {
		t.Error("a trace named .flp was accepted; its floorplan would overwrite it")
	}
	if err := WriteHotSpot(filepath.Join(dir, "idle.ptrace"), &sim.Series{Nodes: []string{"npu"}, Points: []sim.SeriesPoint{{EndS: 1, Seconds: 1, NodePowerW: []float64{0}}}}, nil); err == nil {
		t.Error("a run without power gave a trace")
	}
}

// phoneNetwork is the passive phone package's thermal network.
func phoneNetwork(t *testing.T) *thermal.Network {
	t.Helper()
	pkg, ok := thermal.LookupPackage("phone")
	if !ok {
		t.Fatal("no phone package")
	}
	net, err := thermal.Compile(pkg.Spec)
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// TestHotSpotRoundTrip replays a constant 1 W step into the package node
// through the twin's own network and through the exported configuration's
// lumped resistance and capacitance (the closed form P·R·(1 − e^(−t/RC))):
// they agree at the time constant and at steady state, by construction.
// Before the time constant the twin rises faster and after it slower —
// the package's own small capacitance fills first, the board and skin
// last — which one pole cannot show: HotSpot's die and sink layers carry
// that part. The file carries the ambient in kelvin.
func TestHotSpotRoundTrip(t *testing.T) {
	net := phoneNetwork(t)
	cfg, err := HotSpotConfig(net, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	param := func(name string) float64 {
		for _, line := range strings.Split(string(cfg), "\n") {
			if v, ok := strings.CutPrefix(line, name+"\t"); ok {
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatal(err)
				}
				return x
			}
		}
		t.Fatalf("no %s in\n%s", name, cfg)
		return 0
	}
	r, c, ta := param("-r_convec"), param("-c_convec"), param("-ambient")
	if math.Abs(ta-(net.AmbientTemp()+273.15)) > 0.01 || param("-init_temp") != ta {
		t.Errorf("ambient %.2f K, start %.2f K: want the network's %.2f °C in kelvin for both", ta, param("-init_temp"), net.AmbientTemp())
	}
	pkg := net.Index("package")
	p := make([]float64, net.Len())
	p[pkg] = 1
	tau := r * c
	for _, f := range []float64{0.1, 0.5, 1, 2, 5, 1e6} {
		at := f * tau
		twin := net.Advance(nil, net.Ambient(), p, at)[pkg] - net.AmbientTemp()
		closed := r * (1 - math.Exp(-at/tau))
		switch {
		case (f == 1 || f == 1e6) && math.Abs(closed-twin) > 1e-6*twin:
			t.Errorf("at %g τ (%.1f s): the twin's package rises %.4f K, the lumped closed form %.4f K: want equal", f, at, twin, closed)
		case f < 1 && twin <= closed, f > 1 && f < 1e6 && twin >= closed:
			t.Errorf("at %g τ (%.1f s): the twin's package rises %.3f K, the closed form %.3f K: want the twin faster before τ and slower after", f, at, twin, closed)
		}
	}
}
