package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/sim"
)

// svgSkeleton is an SVG's structure without its coordinates: one line per
// element with its attribute names (sorted), a path's count of drawing
// commands in place of its d, and the text of text elements. Runs of
// identical lines are written once with ×N, so a golden file stays
// readable. Two drawings with the same skeleton have the same elements,
// the same number of points on every line and the same words.
func svgSkeleton(t *testing.T, data []byte) string {
	t.Helper()
	var lines []string
	depth := 0
	inText := false
	for tok := range svgTokens(t, data) {
		switch e := tok.(type) {
		case xml.StartElement:
			var attrs []string
			for _, a := range e.Attr {
				name := a.Name.Local
				if name == "d" {
					n := 0
					for _, c := range a.Value {
						if strings.ContainsRune("MLCAZQHVmlcazqhv", c) {
							n++
						}
					}
					name = fmt.Sprintf("d[%d]", n)
				}
				attrs = append(attrs, name)
			}
			slices.Sort(attrs)
			lines = append(lines, strings.Repeat("  ", depth)+"<"+e.Name.Local+" "+strings.Join(attrs, " ")+">")
			depth++
			inText = e.Name.Local == "text"
		case xml.CharData:
			if s := strings.TrimSpace(string(e)); inText && s != "" {
				lines = append(lines, strings.Repeat("  ", depth)+"“"+s+"”")
			}
		case xml.EndElement:
			depth--
			inText = false
		}
	}
	var b strings.Builder
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && lines[j] == lines[i] {
			j++
		}
		b.WriteString(lines[i])
		if j-i > 1 {
			fmt.Fprintf(&b, " ×%d", j-i)
		}
		b.WriteByte('\n')
		i = j
	}
	return b.String()
}

// goldenChart keeps a chart's data (its CSV) and its SVG's skeleton in
// testdata/name.csv and testdata/name.svg.txt.
func goldenChart(t *testing.T, name string, c Chart) {
	t.Helper()
	var csv bytes.Buffer
	if err := c.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	golden(t, name+".csv", csv.Bytes())
	svg, err := renderBytes(c, "svg")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, name+".svg.txt", []byte(svgSkeleton(t, svg)))
}

// phoneSeries is a 20 s session by hand: a prefill, then decode steps of
// 0.5 s; at 10 s the governor halves the NPU clock and the steps take
// 1 s; the NPU junction warms 1 °C a second until then, the skin 0.2.
func phoneSeries() *sim.Series {
	s := &sim.Series{Units: []string{"npu", "cpu"}, Nodes: []string{"npu", "skin"}}
	s.Points = append(s.Points, sim.SeriesPoint{Phase: "prefill", EndS: 0.5, Seconds: 0.5, PowerW: 6, ClocksHz: []float64{1e9, 2e9}, TempsC: []float64{30, 25}})
	for t := 0.5; t < 20; {
		step, clock := 0.5, 1e9
		if t >= 10 {
			step, clock = 1, 0.5e9
		}
		t += step
		s.Points = append(s.Points, sim.SeriesPoint{Phase: "decode", EndS: t, Seconds: step, PowerW: 4 * clock / 1e9,
			ClocksHz: []float64{clock, 2e9}, TempsC: []float64{30 + min(t, 10), 25 + 0.2*min(t, 10)}})
	}
	return s
}

// TestSeriesPlotData: bins of 0.2 s for a 20 s run (at most 150 bins),
// so every step is a point; the rate is 0 in the prefill, 2 tokens/s
// before the throttle and 1 after; the onset is a mark.
func TestSeriesPlotData(t *testing.T) {
	onset := 10.0
	d := SeriesPlotData(phoneSeries(), 1, &onset, "phone over time")
	if len(d.Panels) != 3 || d.Panels[0].YLabel != "temperature (°C)" || !d.Panels[0].YFit || d.Panels[2].YLabel != "decode (tokens/s)" {
		t.Fatalf("panels %+v", d.Panels)
	}
	if got := seriesBin(20); got != 0.2 {
		t.Errorf("bin for 20 s: %v, want 0.2", got)
	}
	// The prefill, 19 steps of 0.5 s to 10 s, 10 of 1 s to 20 s.
	rate := d.Panels[2].Lines[0]
	if len(rate.X) != 30 || rate.Y[0] != 0 || rate.Y[1] != 2 || rate.Y[29] != 1 || rate.X[29] != 20 {
		t.Errorf("rate: %d points, %v at %v", len(rate.X), rate.Y, rate.X)
	}
	// Ten times faster: 2 s in bins of 0.1 s, two 0.05 s steps a bin
	// before the throttle (20 tokens/s over the pair), one after (10).
	fast := phoneSeries()
	for i := range fast.Points {
		fast.Points[i].EndS /= 10
		fast.Points[i].Seconds /= 10
	}
	fd := SeriesPlotData(fast, 1, nil, "")
	if r := fd.Panels[2].Lines[0]; !near(r.Y[1], 20) || !near(r.Y[len(r.Y)-1], 10) || len(r.X) != 20 || len(fd.Marks) != 0 {
		t.Errorf("fast steps: %d points, rate %v", len(r.X), r.Y)
	}
	clock := d.Panels[1].Lines[0]
	if clock.Label != "npu" || clock.Y[0] != 1 || clock.Y[len(clock.Y)-1] != 0.5 {
		t.Errorf("npu clock %+v", clock)
	}
	if len(d.Marks) != 1 || d.Marks[0].X != 10 || d.Marks[0].Label != "throttle onset 10 s" {
		t.Errorf("marks %+v", d.Marks)
	}
	goldenChart(t, "figure-series", d)
}

// TestStartPower: the first 10 s of phoneSeries are the prefill (0.5 s at
// 6 W) and 19 decode steps of 0.5 s at 4 W: (3 + 38) / 10 = 4.1 W.
func TestStartPower(t *testing.T) {
	if got := StartPower(phoneSeries(), 10); !near(got, 4.1) {
		t.Errorf("start power %v, want 4.1", got)
	}
	if got := StartPower(&sim.Series{}, 10); got != 0 {
		t.Errorf("an empty series: %v", got)
	}
}

func TestPowerCliffPlotData(t *testing.T) {
	pts := []CliffPoint{
		{StartPowerW: 3, FirstMs: f64(40), SustainedMs: f64(40), PeakC: f64(60), SkinPeakC: f64(41)},
		{StartPowerW: 5, FirstMs: f64(40), SustainedMs: f64(75), PeakC: f64(62), SkinPeakC: f64(43), Throttled: true},
		{StartPowerW: 2, FirstMs: f64(40), SustainedMs: f64(40), PeakC: f64(55), SkinPeakC: f64(38)},
		{StartPowerW: 7, FirstMs: f64(40), PeakC: f64(66), SkinPeakC: f64(44), Throttled: true}, // too short for a last minute
	}
	d := PowerCliffPlotData("cliff", pts)
	last := d.Panels[0].Lines[1]
	if !slices.Equal(last.X, []float64{2, 3, 5}) || !slices.Equal(last.Y, []float64{40, 40, 75}) {
		t.Errorf("last-minute line %+v: by power, the point without a figure left out", last)
	}
	// Sustainable between 3 W (the highest cool run) and 5 W.
	if len(d.Marks) != 1 || d.Marks[0].X != 4 || d.Marks[0].Label != "sustainable ≈ 4.0 W" {
		t.Errorf("marks %+v", d.Marks)
	}
	if d := PowerCliffPlotData("all hot", pts[1:2]); len(d.Marks) != 0 {
		t.Errorf("no run stayed cool, yet a mark: %+v", d.Marks)
	}
	goldenChart(t, "figure-power-cliff", d)
}

func stackFixture() StackData {
	d := StackData{Title: "time per step", Labels: []string{"seed-a", "seed-b"}}
	for _, p := range TimeParts {
		d.Parts = append(d.Parts, p.Name)
	}
	d.Panels = []StackPanel{
		{Label: "tiny (ms per decode step)", Values: [][]float64{{1, 5, 0.5, 0, 0.1, 0}, {2, 3, 0.5, 1, 0.1, 0}}, Missing: []string{"", ""}},
		{Label: "big (ms per decode step)", Values: [][]float64{{4, 20, 1, 0, 0.1, 0}, nil}, Missing: []string{"", "does not fit"}},
	}
	return d
}

// TestDecodeTimeParts: the decode's share is the full run's time minus
// the prefill-only run's, per step: (9−1) ms of memory stall over 4
// steps is 2 ms.
func TestDecodeTimeParts(t *testing.T) {
	full := &sim.Result{Batch: 1, Decode: sim.DecodePhase{Phase: sim.Phase{Tokens: 4}},
		Time: sim.Time{Compute: 0.006, MemoryStall: 0.009, Dispatch: 0.002, Host: 0.0004}}
	pre := &sim.Result{Batch: 1, Time: sim.Time{Compute: 0.002, MemoryStall: 0.001, Dispatch: 0.001}}
	got := DecodeTimeParts(full, pre)
	want := []float64{1, 2, 0.25, 0, 0.1, 0}
	for i := range want {
		if !near(got[i], want[i]) {
			t.Errorf("%s: %v ms, want %v", TimeParts[i].Name, got[i], want[i])
		}
	}
	full.Decode.Tokens = 0
	if got := DecodeTimeParts(full, pre); slices.ContainsFunc(got, func(v float64) bool { return v != 0 }) {
		t.Errorf("no decode, yet %v", got)
	}
}

// TestStackFigure: one bar segment a part with a figure (zeros draw
// nothing), the totals and the missing bar's reason as text.
func TestStackFigure(t *testing.T) {
	d := stackFixture()
	svg, err := renderBytes(d, "svg")
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, svg)
	for _, want := range []string{"time per step", "seed-a", "seed-b", "6.6", "6.6", "25.1", "does not fit", "memory stall", "tiny (ms per decode step)"} {
		if !slices.Contains(doc.texts, want) {
			t.Errorf("no text %q in %q", want, doc.texts)
		}
	}
	goldenChart(t, "figure-stack", d)
}

// TestReportChartsGolden keeps the figures the report draws from the
// existing writers stable too: the roofline, the comparison bars and the
// Pareto front.
func TestReportChartsGolden(t *testing.T) {
	goldenChart(t, "figure-roofline", tinyRoofline(t))
	goldenChart(t, "figure-compare", ComparePlotData(threeChips()))
	goldenChart(t, "figure-pareto", ParetoPlotData(phoneAdvice()))
	goldenChart(t, "figure-sweep", SweepPlotData(kvSweep()))
}
