package reports

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/sim"
)

// The figures and the power trace are drawn from the series as the run
// produces it; these are the functions that drew them from the whole
// series held in memory (before issue 17), kept as the reference the
// streamed ones must equal.

// heldSeriesPlot is SeriesPlotData over the whole series.
func heldSeriesPlot(s *sim.Series, batch int, onset *float64, title string) PlotData {
	d := PlotData{Title: title, XLabel: "time (s)", PanelLegends: true}
	temps := Panel{YLabel: "temperature (°C)", YFit: true}
	for _, n := range s.Nodes {
		temps.Lines = append(temps.Lines, Line{Label: n})
	}
	clocks := Panel{YLabel: "clock (GHz)"}
	for _, u := range s.Units {
		clocks.Lines = append(clocks.Lines, Line{Label: u})
	}
	rate := Panel{YLabel: "decode (tokens/s)", Lines: []Line{{}}}
	if len(s.Points) > 0 {
		bin := seriesBin(s.Points[len(s.Points)-1].EndS)
		binOf := func(t float64) int { return int(math.Ceil(t/bin-1e-9)) - 1 } // bin b is (b·bin, (b+1)·bin]
		tokens, since := 0.0, 0.0
		for i, p := range s.Points {
			if p.Phase == "decode" {
				tokens += float64(max(1, batch))
			}
			if i+1 < len(s.Points) && binOf(s.Points[i+1].EndS) == binOf(p.EndS) {
				continue
			}
			// The last step of its bin: a point at its end.
			x := p.EndS
			for k, t := range p.TempsC {
				temps.Lines[k].X, temps.Lines[k].Y = append(temps.Lines[k].X, x), append(temps.Lines[k].Y, t)
			}
			for k, c := range p.ClocksHz {
				clocks.Lines[k].X, clocks.Lines[k].Y = append(clocks.Lines[k].X, x), append(clocks.Lines[k].Y, c/1e9)
			}
			if x > since {
				rate.Lines[0].X, rate.Lines[0].Y = append(rate.Lines[0].X, x), append(rate.Lines[0].Y, tokens/(x-since))
			}
			tokens, since = 0, x
		}
	}
	d.Panels = []Panel{temps, clocks, rate}
	if onset != nil {
		d.Marks = []Mark{{X: *onset, Label: fmt.Sprintf("throttle onset %.0f s", *onset)}}
	}
	return d
}

// heldPTrace is PTrace over the whole series.
func heldPTrace(s *sim.Series, interval float64) ([]byte, []string, error) {
	if !(interval > 0) {
		return nil, nil, fmt.Errorf("power trace interval %g s: must be positive", interval)
	}
	var sources []int
	for n := range s.Nodes {
		for _, p := range s.Points {
			if n < len(p.NodePowerW) && p.NodePowerW[n] > 0 {
				sources = append(sources, n)
				break
			}
		}
	}
	if len(sources) == 0 {
		return nil, nil, errors.New("the run has no power into any thermal node: nothing to trace")
	}
	var end float64
	for _, p := range s.Points {
		end = math.Max(end, p.EndS)
	}
	rows := int(math.Ceil(end/interval - 1e-9))
	energy := make([][]float64, rows) // J per row and source
	for i := range energy {
		energy[i] = make([]float64, len(sources))
	}
	for _, p := range s.Points {
		from := p.EndS - p.Seconds
		for r := max(0, int(from/interval)); r < rows && float64(r)*interval < p.EndS; r++ {
			overlap := math.Min(p.EndS, float64(r+1)*interval) - math.Max(from, float64(r)*interval)
			if overlap <= 0 {
				continue
			}
			for k, n := range sources {
				energy[r][k] += p.NodePowerW[n] * overlap
			}
		}
	}
	var b bytes.Buffer
	names := make([]string, len(sources))
	for k, n := range sources {
		names[k] = s.Nodes[n]
	}
	b.WriteString(strings.Join(names, "\t") + "\n")
	for r, row := range energy {
		length := math.Min(interval, end-float64(r)*interval)
		for k, e := range row {
			if k > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(strconv.FormatFloat(e/length, 'g', 6, 64))
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), names, nil
}

// longSeries is a run of about seconds: a prefill, decode steps of
// varied length at clocks and temperatures that drift, idle stretches
// between requests, and now and then a step of no time.
func longSeries(seconds float64, seed uint64) *sim.Series {
	rng := rand.New(rand.NewPCG(seed, 1))
	s := &sim.Series{Units: []string{"npu", "cpu"}, Nodes: []string{"npu", "package", "skin"}}
	clock := 0.0
	add := func(phase string, secs float64) {
		end := clock + secs
		w := []float64{rng.Float64() * 3, rng.Float64(), 0}
		if phase == "idle" {
			w[0] = 0
		}
		s.Points = append(s.Points, sim.SeriesPoint{Phase: phase, EndS: end, Seconds: secs, PowerW: w[0] + w[1],
			ClocksHz: []float64{1e9 * (0.5 + rng.Float64()), 2e9}, TempsC: []float64{30 + end/100, 28 + end/200, 25 + end/400}, NodePowerW: w})
		clock = end
	}
	for clock < seconds {
		add("prefill", 0.2+rng.Float64())
		for range 1 + rng.IntN(400) {
			switch {
			case rng.IntN(50) == 0:
				add("decode", 0)
			default:
				add("decode", 0.02+0.1*rng.Float64())
			}
		}
		if rng.IntN(2) == 0 {
			add("idle", 30*rng.Float64())
		}
	}
	return s
}

// TestStreamedFiguresAreTheHeldOnes: the time-series figure, the start
// power and the HotSpot trace, drawn point by point in bounded memory,
// are exactly what the whole series gave, for runs from seconds (bins of
// 0.1 s) to a day (bins of 10 min).
func TestStreamedFiguresAreTheHeldOnes(t *testing.T) {
	onset := 12.0
	for i, secs := range []float64{2, 14, 16, 100, 700, 3000, 86400} {
		s := longSeries(secs, uint64(i))
		for _, batch := range []int{1, 4} {
			got, want := SeriesPlotData(s, batch, &onset, "t"), heldSeriesPlot(s, batch, &onset, "t")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%.0f s, batch %d: the streamed figure differs from the held one (%d rate points, want %d)", secs, batch, len(got.Panels[2].Lines[0].X), len(want.Panels[2].Lines[0].X))
			}
		}
		if secs > 20000 {
			continue // the trace's rows of 0.1 s: enough
		}
		got, gotNames, err := PTrace(s, HotSpotInterval)
		want, wantNames, werr := heldPTrace(s, HotSpotInterval)
		if err != nil || werr != nil || !bytes.Equal(got, want) || !reflect.DeepEqual(gotNames, wantNames) {
			t.Errorf("%.0f s: the streamed power trace differs from the held one (%v, %v)", secs, err, werr)
		}
		path := filepath.Join(t.TempDir(), "run.ptrace")
		if err := WriteHotSpot(path, s, nil); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(path); !bytes.Equal(data, want) {
			t.Errorf("%.0f s: the power trace file differs from the held trace", secs)
		}
	}
}

// TestSeriesFileKeepsTheOldFile: until Commit the target is as it was;
// Abort leaves it so and nothing beside it.
func TestSeriesFileKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.csv")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := CreateSeries(path)
	if err != nil {
		t.Fatal(err)
	}
	s := longSeries(100, 9)
	s.Replay(f)
	if data, _ := os.ReadFile(path); string(data) != "old\n" {
		t.Errorf("the target changed before Commit: %q", data)
	}
	f.Abort()
	if data, _ := os.ReadFile(path); string(data) != "old\n" {
		t.Errorf("the target changed on Abort: %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left beside the target: %v", entries)
	}
	if err := WriteSeries(path, s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if lines := strings.Count(string(data), "\n"); lines != len(s.Points)+1 || !strings.HasPrefix(string(data), "phase,end_s,latency_ms,power_w,clock_npu_ghz,") {
		t.Errorf("%d lines, want a header and %d points: %.80q", lines, len(s.Points), data)
	}
}
