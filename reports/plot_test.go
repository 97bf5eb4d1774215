package reports

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/sweep"

	"github.com/edgetwin/edgetwin/hw/units"
)

// TestSweepPlotData: x is the first field in MiB on a log axis (1 to 16
// MiB is more than a decade), one panel per metric, one line per L3 size
// (ctx, derived from kv, splits nothing), and points without a figure
// left out. The golden CSV is the data the figure draws.
func TestSweepPlotData(t *testing.T) {
	d := SweepPlotData(kvSweep())
	if d.Title != "seed-moe-3b Q4_0 on seed-c" || d.XLabel != "KV cache (MiB)" || !d.XLog {
		t.Errorf("title %q, x label %q, log %v", d.Title, d.XLabel, d.XLog)
	}
	var labels []string
	for _, p := range d.Panels {
		labels = append(labels, p.YLabel)
	}
	if want := []string{"KV L3 miss rate (%)", "decode tokens/s", "peak temperature (°C)"}; !slices.Equal(labels, want) {
		t.Errorf("panels %q, want %q", labels, want)
	}
	lines := d.Panels[0].Lines
	if len(lines) != 2 || lines[0].Label != "memory.l3.size=6 MiB" || lines[1].Label != "memory.l3.size=12 MiB" {
		t.Fatalf("lines %+v", lines)
	}
	if !slices.Equal(lines[0].X, []float64{1, 4, 16}) || !slices.Equal(lines[1].X, []float64{1, 4}) {
		t.Errorf("x of the lines: %v and %v; the 12 MiB line has no 16 MiB point (it did not fit)", lines[0].X, lines[1].X)
	}
	var b bytes.Buffer
	if err := d.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "sweep-kv-l3-plot.csv", b.Bytes())
}

// svgDoc is what a test reads of an SVG: its texts and its paths.
type svgDoc struct {
	texts []string
	paths []svgPath
}

type svgPath struct{ d, style string }

// svgTokens yields the XML tokens of an SVG, failing t if it is not XML.
// A token is valid until the next is asked for.
func svgTokens(t *testing.T, data []byte) iter.Seq[xml.Token] {
	return func(yield func(xml.Token) bool) {
		dec := xml.NewDecoder(bytes.NewReader(data))
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("the SVG is not XML: %v", err)
			}
			if !yield(tok) {
				return
			}
		}
	}
}

func parseSVG(t *testing.T, data []byte) svgDoc {
	t.Helper()
	var doc svgDoc
	inText := false
	for tok := range svgTokens(t, data) {
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "text":
				inText = true
				doc.texts = append(doc.texts, "")
			case "path":
				var p svgPath
				for _, a := range e.Attr {
					switch a.Name.Local {
					case "d":
						p.d = a.Value
					case "style":
						p.style = a.Value
					}
				}
				doc.paths = append(doc.paths, p)
			}
		case xml.CharData:
			if inText {
				doc.texts[len(doc.texts)-1] += string(e)
			}
		case xml.EndElement:
			if e.Name.Local == "text" {
				inText = false
			}
		}
	}
	return doc
}

func renderSVG(t *testing.T, s *sweep.Result) []byte {
	t.Helper()
	f, err := SweepPlotData(s).Figure()
	if err != nil {
		t.Fatal(err)
	}
	wt, err := f.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSweepFigureSVG checks the figure's structure and data, not its
// pixels: the texts an architect reads, and one stroked path per line
// with a vertex per point.
func TestSweepFigureSVG(t *testing.T) {
	doc := parseSVG(t, renderSVG(t, kvSweep()))
	for _, want := range []string{
		"seed-moe-3b Q4_0 on seed-c", "KV cache (MiB)",
		"KV L3 miss rate (%)", "decode tokens/s", "peak temperature (°C)",
		"memory.l3.size=6 MiB", "memory.l3.size=12 MiB",
		"1", "2", "5", "10", // log-axis labels at 1, 2 and 5 per decade
	} {
		if !slices.Contains(doc.texts, want) {
			t.Errorf("the SVG has no text %q; texts: %q", want, doc.texts)
		}
	}
	if n := count(doc.texts, "KV cache (MiB)"); n != 1 {
		t.Errorf("the x label appears %d times; only the bottom panel has it", n)
	}

	// Data lines are the only 2 pt strokes (axes 0.5 pt, grid 0.25 pt):
	// per panel, the 6 MiB line through 3 points and the 12 MiB line
	// through 2 (its 16 MiB point did not fit) — except thermal.peak_c,
	// where the 12 MiB line lacks its 1 MiB figure too and is a lone
	// marker, no stroke; plus the 2 legend samples of 2 vertices each.
	var vertices []int
	for _, p := range doc.paths {
		if strings.Contains(p.style, "stroke-width:2;") || strings.HasSuffix(p.style, "stroke-width:2") {
			vertices = append(vertices, strings.Count(p.d, "M")+strings.Count(p.d, "L"))
		}
	}
	slices.Sort(vertices)
	if want := []int{2, 2, 2, 2, 3, 3, 3}; !slices.Equal(vertices, want) {
		t.Errorf("data line vertices %v, want %v", vertices, want)
	}
	// Markers are filled in the line colours: one per point with a figure
	// (3+2, 3+2, 3+1) and one per legend entry.
	markers := 0
	for _, p := range doc.paths {
		if strings.HasPrefix(p.style, "fill:#EE2E2F") || strings.HasPrefix(p.style, "fill:#008C48") {
			markers++
		}
	}
	if markers != 14+2 {
		t.Errorf("%d markers, want 16", markers)
	}
}

func count(xs []string, x string) int {
	n := 0
	for _, s := range xs {
		if s == x {
			n++
		}
	}
	return n
}

// TestSweepFigureOneLine: with one varied field there is one line a panel
// and no legend; x is linear when it spans less than a decade.
func TestSweepFigureOneLine(t *testing.T) {
	s := &sweep.Result{
		SoC: "seed-c", Model: "seed-moe-3b", Quant: "Q4_0",
		Fields:  []sweep.Field{{Name: "memory.dram.bandwidth", Label: "memory.dram.bandwidth", Kind: units.KindByteRate}},
		Metrics: []string{"decode.tokens_per_s"},
	}
	for i, bw := range []float64{40e9, 60e9, 80e9} {
		s.Points = append(s.Points, sweep.Point{Values: []float64{bw}, Metrics: []*float64{f64(60 + 10*float64(i))}})
	}
	d := SweepPlotData(s)
	if d.XLabel != "memory.dram.bandwidth (GB/s)" || d.XLog {
		t.Errorf("x label %q, log %v", d.XLabel, d.XLog)
	}
	if l := d.Panels[0].Lines; len(l) != 1 || l[0].Label != "" || !slices.Equal(l[0].X, []float64{40, 60, 80}) {
		t.Errorf("lines %+v", l)
	}
	doc := parseSVG(t, renderSVG(t, s))
	strokes := 0
	for _, p := range doc.paths {
		if strings.Contains(p.style, "stroke-width:2") {
			strokes++
		}
	}
	if strokes != 1 {
		t.Errorf("%d data lines, want 1 and no legend sample", strokes)
	}
	for _, want := range []string{"40", "60", "80", "memory.dram.bandwidth (GB/s)"} {
		if !slices.Contains(doc.texts, want) {
			t.Errorf("no text %q in %q", want, doc.texts)
		}
	}
}

// TestSweepFigurePNG: slide size, at least 1200 px wide.
func TestSweepFigurePNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.png")
	f, err := SweepPlotData(kvSweep()).Figure()
	if err != nil {
		t.Fatal(err)
	}
	if err := SaveFigure(path, f); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cfg, err := png.DecodeConfig(r)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width < 1200 || cfg.Height < cfg.Width/2 {
		t.Errorf("PNG is %d×%d px; want at least 1200 wide and a panel of a third of that each", cfg.Width, cfg.Height)
	}
}

// TestSaveFigureAtomic: the file appears whole or not at all, and no
// temporary file stays behind.
func TestSaveFigureAtomic(t *testing.T) {
	dir := t.TempDir()
	f, err := SweepPlotData(kvSweep()).Figure()
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{"svg", "pdf"} {
		path := filepath.Join(dir, "kv."+ext)
		if err := SaveFigure(path, f); err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
	}
	if err := SaveFigure(filepath.Join(dir, "kv.gif"), f); err == nil || !strings.Contains(err.Error(), ".png, .svg or .pdf") {
		t.Errorf("a .gif: %v", err)
	}
	if err := SaveFigure(filepath.Join(dir, "missing", "kv.svg"), f); err == nil {
		t.Error("no error writing into a missing directory")
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"kv.pdf", "kv.svg"}) {
		t.Errorf("directory holds %q, want only kv.pdf and kv.svg", names)
	}
	pdf, _ := os.ReadFile(filepath.Join(dir, "kv.pdf"))
	if !bytes.HasPrefix(pdf, []byte("%PDF")) {
		t.Error("kv.pdf is not a PDF")
	}
}

func TestLogTicks(t *testing.T) {
	var labels []string
	for _, tk := range (logTicks{}).Ticks(0.5, 32) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := []string{"0.5", "1", "2", "5", "10", "20"}; !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
}

// TestSweepMarksTheL3: a swept KV cache that crosses the chip's L3 gets a
// mark there, in the axis's unit; one that stays below it gets none.
func TestSweepMarksTheL3(t *testing.T) {
	s := kvSweep()
	s.L3Bytes = 12 << 20
	d := SweepPlotData(s)
	if len(d.Marks) != 1 || d.Marks[0].X != 12 || d.Marks[0].Label != "L3 12 MiB" {
		t.Errorf("marks %+v, want one at 12 (MiB) labelled L3 12 MiB", d.Marks)
	}
	s.L3Bytes = 64 << 20
	if d := SweepPlotData(s); len(d.Marks) != 0 {
		t.Errorf("an L3 past the swept range is marked: %+v", d.Marks)
	}
}

// TestComparedPanelsShareAScale: panels the reader compares share one y
// range. Two miss rates, one at most 40%, one at most 90%, get the same
// axis, so equal heights mean equal rates; a panel of another quantity
// (tokens/s) keeps its own.
func TestComparedPanelsShareAScale(t *testing.T) {
	d := PlotData{XLabel: "x", Panels: []Panel{
		{YLabel: "L3 miss rate (%)", Scale: "per cent", Lines: []Line{{X: []float64{1, 2}, Y: []float64{10, 40}}}},
		{YLabel: "KV L3 miss rate (%)", Scale: "per cent", Lines: []Line{{X: []float64{1, 2}, Y: []float64{50, 90}}}},
		{YLabel: "decode (tokens/s)", Lines: []Line{{X: []float64{1, 2}, Y: []float64{3, 7}}}},
	}}
	f, err := d.Figure()
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := f.Panels[0].Y, f.Panels[1].Y, f.Panels[2].Y
	if a.Min != b.Min || a.Max != b.Max || a.Max < 90 || a.Min != 0 {
		t.Errorf("miss-rate panels span %g–%g and %g–%g, want one range 0–90 or more", a.Min, a.Max, b.Min, b.Max)
	}
	if c.Max >= 90 || c.Max < 7 {
		t.Errorf("the tokens/s panel spans up to %g: it should keep its own scale (7)", c.Max)
	}
}
