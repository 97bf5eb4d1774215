package reports

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/sweep"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Figure sizes: a slide is 13.33 in wide; a 10 in figure at 150 dpi is
// 1500 px, and its 12 pt text stays readable when the slide is projected.
const (
	figureWidth = 10 * vg.Inch
	panelHeight = 3 * vg.Inch
	titleHeight = 0.4 * vg.Inch
	pngDPI      = 150
	lineWidth   = 2 // points; the axes are 0.5 pt, so the data stands out
	glyphRadius = 3 // points
)

// Text sizes, in points.
const (
	titleSize = 16
	labelSize = 14
	tickSize  = 12
)

// PlotData is what a figure shows, in the figure's units: panels stacked
// over one shared x axis, each with one line per group. It is kept apart
// from the drawing so that reports can also write it as CSV, and tests
// can check the data without looking at pixels.
type PlotData struct {
	Title  string
	XLabel string // with its unit: "KV cache (MiB)"
	XLog   bool   // the x values span more than a decade
	Panels []Panel
	// Marks are vertical lines across every panel at an x value, each
	// labelled (the throttle onset of a time series).
	Marks []Mark
	// PanelLegends gives each panel its own legend, beside it, for
	// panels whose lines differ (temperatures above, clocks below); else
	// one legend beside the panels names the lines every panel shares.
	PanelLegends bool
}

// Mark is a labelled vertical line at X, in the figure's x units.
type Mark struct {
	X     float64
	Label string
}

// Panel is one metric's plot.
type Panel struct {
	YLabel string
	Lines  []Line
	// YFit fits the y axis to the data instead of starting it at zero:
	// for temperatures, whose zero means nothing.
	YFit bool
	// Scale, when set, is shared by every panel of the figure with the
	// same Scale: one y range over all of them, for panels the reader
	// compares (one quantity per model, miss rates side by side), so a
	// taller line means a larger figure in whichever panel it is.
	Scale string
}

// Line is one series. Label is empty when the figure has a single line.
type Line struct {
	Label string
	X, Y  []float64 // points without a figure are left out
	// Scatter draws the points alone, unjoined: points that are not a
	// series (a sweep's points in objective space).
	Scatter bool
}

// SweepPlotData lays out a sweep for plotting: x is the first varied
// field, one panel per metric, one line per combination of the other
// varied fields (derived fields such as ctx do not split lines). Values
// are scaled to one readable unit per axis (MiB, GB/s).
func SweepPlotData(s *sweep.Result) PlotData {
	if len(s.Fields) == 0 {
		panic("reports: a sweep without fields")
	}
	xs := make([]float64, len(s.Points))
	for i, p := range s.Points {
		xs[i] = p.Values[0]
	}
	x := s.Fields[0]
	xUnit, xDiv := axisUnit(xs, x.Kind)
	d := PlotData{Title: s.Title(), XLabel: withUnit(x.Label, xUnit), XLog: spansDecade(xs)}
	// A swept KV cache crosses the L3 somewhere: mark where.
	if x.Name == sweep.FieldKV && s.L3Bytes > 0 && len(xs) > 0 && s.L3Bytes >= slices.Min(xs) && s.L3Bytes <= slices.Max(xs) {
		d.Marks = []Mark{{X: s.L3Bytes / xDiv, Label: "L3 " + units.Approx(s.L3Bytes, units.KindBytes)}}
	}

	// Group points by the values of the other varied fields, in the order
	// the groups first appear. Groups go by exact values; labels round.
	var groups, keys []string
	member := make([]int, len(s.Points))
	for i, p := range s.Points {
		var parts, key []string
		for k, f := range s.Fields[1:] {
			if !f.Derived {
				parts = append(parts, f.Name+"="+f.Text(p.Values[k+1]))
				key = append(key, strconv.FormatFloat(p.Values[k+1], 'g', -1, 64))
			}
		}
		g := slices.Index(keys, strings.Join(key, ","))
		if g < 0 {
			g = len(groups)
			groups = append(groups, strings.Join(parts, ", "))
			keys = append(keys, strings.Join(key, ","))
		}
		member[i] = g
	}

	for m, name := range s.Metrics {
		var ys []float64
		for _, p := range s.Points {
			if v := p.Metrics[m]; v != nil {
				ys = append(ys, *v)
			}
		}
		yUnit, yDiv := axisUnit(ys, sim.KeyKind(name))
		panel := Panel{YLabel: withUnit(sim.KeyLabel(name), yUnit), Lines: make([]Line, len(groups))}
		if sim.KeyKind(name) == units.KindFraction {
			panel.Scale = "per cent" // rates side by side: one 0–100% reading
		}
		for g, label := range groups {
			panel.Lines[g].Label = label
		}
		for i, p := range s.Points {
			if v := p.Metrics[m]; v != nil {
				l := &panel.Lines[member[i]]
				l.X = append(l.X, p.Values[0]/xDiv)
				l.Y = append(l.Y, *v/yDiv)
			}
		}
		d.Panels = append(d.Panels, panel)
	}
	return d
}

// FrontPlotData lays out a sweep's Pareto front: x is the first
// objective, y the second, every point that passes drawn unjoined and the
// front's points marked, joined in x order when there are two objectives
// (with three, the front seen along the third is no line). Objectives
// named like a result key are scaled to a readable unit as a metric is.
func FrontPlotData(s *sweep.Result) PlotData {
	if len(s.Objectives) < 2 {
		panic("reports: a front plot needs two objectives")
	}
	xo, yo := s.Objectives[0], s.Objectives[1]
	var all, front Line
	all.Label, all.Scatter = "points", true
	front.Label, front.Scatter = "Pareto front", len(s.Objectives) > 2
	onFront := s.Front()
	var xs, ys []float64
	for i, p := range s.Points {
		if !p.Pass() || p.Objectives[0] == nil || p.Objectives[1] == nil {
			continue
		}
		xs, ys = append(xs, *p.Objectives[0]), append(ys, *p.Objectives[1])
		l := &all
		if slices.Contains(onFront, i) {
			l = &front
		}
		l.X, l.Y = append(l.X, *p.Objectives[0]), append(l.Y, *p.Objectives[1])
	}
	xUnit, xDiv := axisUnit(xs, objectiveKind(s, xo))
	yUnit, yDiv := axisUnit(ys, objectiveKind(s, yo))
	for _, l := range []*Line{&all, &front} {
		for j := range l.X {
			l.X[j], l.Y[j] = l.X[j]/xDiv, l.Y[j]/yDiv
		}
	}
	order := make([]int, len(front.X))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(front.X[a], front.X[b]) })
	fx, fy := make([]float64, len(order)), make([]float64, len(order))
	for j, o := range order {
		fx[j], fy[j] = front.X[o], front.Y[o]
	}
	front.X, front.Y = fx, fy
	title := s.Title() + " — Pareto front"
	if len(s.Objectives) > 2 {
		title += " (also over " + s.Objectives[2].String() + ")"
	}
	return PlotData{
		Title:  title,
		XLabel: withUnit(xo.String(), xUnit),
		XLog:   spansDecade(xs),
		Panels: []Panel{{YLabel: withUnit(yo.String(), yUnit), Lines: []Line{all, front}, YFit: true}},
	}
}

// objectiveKind is the dimension of an objective: its field's when it is
// one (vary.memory.l3.size), else what its name suggests (ttft_s).
func objectiveKind(s *sweep.Result, o sweep.Objective) units.Kind {
	if name, ok := strings.CutPrefix(o.Text, "vary."); ok {
		for _, f := range s.Fields {
			if f.Name == name {
				return f.Kind
			}
		}
	}
	return sim.KeyKind(o.Text)
}

// axisUnit picks the unit an axis of kind k shows vals in, the one
// units.Approx picks for the largest value (GB for 9.83e9 bytes, MiB for
// 16 MiB), and its size in base units.
// Plain numbers have no unit and a size of 1.
func axisUnit(vals []float64, k units.Kind) (string, float64) {
	if k == 0 || len(vals) == 0 {
		return "", 1
	}
	var top float64
	for _, v := range vals {
		top = math.Max(top, math.Abs(v))
	}
	if top == 0 {
		return "", 1
	}
	s := units.Approx(top, k)
	sym := strings.TrimLeft(s, "+-0123456789.e ")
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		sym = s[i+1:]
	}
	size, err := units.Parse("1 "+sym, k)
	if err != nil {
		panic(fmt.Sprintf("reports: units.Approx printed %q, which does not read back: %v", s, err))
	}
	return sym, size
}

func withUnit(label, unit string) string {
	if unit == "" {
		return label
	}
	return label + " (" + unit + ")"
}

// spansDecade reports whether positive values span more than a factor of
// ten, which a log axis shows better.
func spansDecade(vals []float64) bool {
	if len(vals) == 0 {
		return false
	}
	lo, hi := slices.Min(vals), slices.Max(vals)
	return lo > 0 && hi/lo > 10
}

// WriteCSV prints the plotted data, one row a point: panel, line, x, y.
func (d PlotData) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"panel", "line", d.XLabel, "y"}); err != nil {
		return err
	}
	for _, p := range d.Panels {
		for _, l := range p.Lines {
			for i := range l.X {
				if err := cw.Write([]string{p.YLabel, l.Label, jsonNumber(l.X[i]), jsonNumber(l.Y[i])}); err != nil {
					return err
				}
			}
		}
	}
	for _, m := range d.Marks {
		if err := cw.Write([]string{"mark", m.Label, jsonNumber(m.X), ""}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Render draws the data as Figure does, in format png, svg or pdf.
func (d PlotData) Render(format string) (io.WriterTo, error) {
	f, err := d.Figure()
	if err != nil {
		return nil, err
	}
	return f.Render(format)
}

// Figure is a title over panels drawn one above the other at slide size,
// with a legend at the right when the panels have more than one line.
type Figure struct {
	Title  string
	Panels []*plot.Plot
	Legend *plot.Legend
	// PanelLegends, when set, are one legend per panel (nil for a panel
	// without one), drawn beside it.
	PanelLegends []*plot.Legend
}

// Figure draws the data with gonum/plot: the title on top, the x label
// under the last panel, the legend beside the panels (not over the data),
// and the same x range and scale in every panel so that they read as one
// chart. Line k has the same colour, dashes and marker in every panel.
func (d PlotData) Figure() (*Figure, error) {
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, p := range d.Panels {
		for _, l := range p.Lines {
			for _, x := range l.X {
				xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			}
		}
	}
	f := &Figure{Title: d.Title}
	lineOf := d.styles()
	for i, p := range d.Panels {
		pl := plot.New()
		style(pl)
		pl.Y.Label.Text = p.YLabel
		if i == len(d.Panels)-1 {
			pl.X.Label.Text = d.XLabel
		}
		if d.XLog {
			pl.X.Scale = plot.LogScale{}
			pl.X.Tick.Marker = logTicks{}
		}
		pl.Add(xGrid{pl.X.Tick.Marker})
		for _, m := range d.Marks {
			label := ""
			if i == len(d.Panels)-1 {
				label = m.Label // once, at the foot of the bottom panel
			}
			pl.Add(markLine{x: m.X, label: label})
		}
		if i < len(d.Panels)-1 {
			pl.X.Tick.Marker = unlabelled{pl.X.Tick.Marker}
		}
		ymin := 0.0 // figures here are counts, rates and times: start at zero unless one is negative
		for k, l := range p.Lines {
			if len(l.X) == 0 {
				continue
			}
			xys := make(plotter.XYs, len(l.X))
			for j := range l.X {
				xys[j] = plotter.XY{X: l.X[j], Y: l.Y[j]}
				ymin = math.Min(ymin, l.Y[j])
			}
			line, points, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, fmt.Errorf("panel %s, line %q: %w", p.YLabel, l.Label, err)
			}
			line.LineStyle, points.GlyphStyle = lineStyle(lineOf(k, l.Label)), glyphStyle(lineOf(k, l.Label))
			if l.Scatter {
				pl.Add(points)
			} else {
				pl.Add(line, points)
			}
		}
		if d.PanelLegends {
			f.PanelLegends = append(f.PanelLegends, linesLegend(p.Lines, lineOf))
		}
		if !p.YFit {
			pl.Y.Min = math.Min(pl.Y.Min, ymin)
		}
		if !math.IsInf(xmin, 0) {
			pl.X.Min, pl.X.Max = xmin, xmax
		} else { // no point has a figure: an empty panel
			pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 0, 1, 0, 1
			if d.XLog {
				pl.X.Min, pl.X.Max = 1, 10
			}
		}
		f.Panels = append(f.Panels, pl)
	}
	shareScales(d.Panels, f.Panels)
	if !d.PanelLegends && len(d.Panels) > 0 && len(d.Panels[0].Lines) > 1 {
		f.Legend = linesLegend(d.Panels[0].Lines, lineOf)
	}
	return f, nil
}

// shareScales gives the plots of panels with the same Scale one y range,
// the union of theirs.
func shareScales(panels []Panel, plots []*plot.Plot) {
	for i, p := range panels {
		if p.Scale == "" {
			continue
		}
		lo, hi := plots[i].Y.Min, plots[i].Y.Max
		for j, q := range panels {
			if q.Scale == p.Scale {
				lo, hi = math.Min(lo, plots[j].Y.Min), math.Max(hi, plots[j].Y.Max)
			}
		}
		plots[i].Y.Min, plots[i].Y.Max = lo, hi
	}
}

// styles gives each line its style's index: one per label across the
// figure, in the order the labels first appear, so that a unit or node
// named in two panels (a temperature and a clock) is drawn alike in both;
// an unnamed line goes by its place in its panel.
func (d PlotData) styles() func(k int, label string) int {
	index := map[string]int{}
	for _, p := range d.Panels {
		for _, l := range p.Lines {
			if _, ok := index[l.Label]; !ok && l.Label != "" {
				index[l.Label] = len(index)
			}
		}
	}
	return func(k int, label string) int {
		if i, ok := index[label]; ok {
			return i
		}
		return k
	}
}

// linesLegend names lines drawn with lineStyle and glyphStyle in the
// figure's style; nil when none has a label.
func linesLegend(lines []Line, style func(k int, label string) int) *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = sans(tickSize)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(30)
	l.Padding = vg.Points(4)
	named := false
	for k, line := range lines {
		if line.Label != "" && line.Scatter {
			l.Add(line.Label, &plotter.Scatter{GlyphStyle: glyphStyle(style(k, line.Label))})
			named = true
		} else if line.Label != "" {
			l.Add(line.Label, &plotter.Line{LineStyle: lineStyle(style(k, line.Label))}, &plotter.Scatter{GlyphStyle: glyphStyle(style(k, line.Label))})
			named = true
		}
	}
	if !named {
		return nil
	}
	return &l
}

// lineStyle and glyphStyle tell line k apart in colour (plotutil's dark
// palette, strong on a projector), dashes and a filled marker, so that
// the figure also reads in grey.
func lineStyle(k int) draw.LineStyle {
	return draw.LineStyle{
		Color:  plotutil.DarkColors[k%len(plotutil.DarkColors)],
		Width:  vg.Points(lineWidth),
		Dashes: plotutil.Dashes(k),
	}
}

func glyphStyle(k int) draw.GlyphStyle {
	return draw.GlyphStyle{
		Color:  plotutil.DarkColors[k%len(plotutil.DarkColors)],
		Radius: vg.Points(glyphRadius),
		Shape:  glyphShapes[k%len(glyphShapes)],
	}
}

// style sets sans-serif text in sizes legible on a slide, and horizontal
// grid lines (xGrid draws the vertical ones).
func style(pl *plot.Plot) {
	slideText(pl)
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	pl.Add(g)
}

// slideText sets the axes' labels and ticks in sans-serif at slide sizes.
func slideText(pl *plot.Plot) {
	for _, a := range []*plot.Axis{&pl.X, &pl.Y} {
		a.Label.TextStyle.Font = sans(labelSize)
		a.Tick.Label.Font = sans(tickSize)
	}
}

func sans(size float64) font.Font {
	return font.Font{Typeface: plot.DefaultFont.Typeface, Variant: "Sans", Size: font.Length(size)}
}

// xGrid draws vertical grid lines at the labelled ticks of a ticker: the
// bottom panel's, so the panels above, whose ticks have no labels, show
// the same lines.
type xGrid struct{ ticks plot.Ticker }

func (g xGrid) Plot(c draw.Canvas, pl *plot.Plot) {
	trX, _ := pl.Transforms(&c)
	for _, t := range g.ticks.Ticks(pl.X.Min, pl.X.Max) {
		if t.IsMinor() || t.Value < pl.X.Min || t.Value > pl.X.Max {
			continue
		}
		x := trX(t.Value)
		c.StrokeLine2(plotter.DefaultGridLineStyle, x, c.Min.Y, x, c.Max.Y)
	}
}

// markLine draws a dashed vertical line at x across the panel, with its
// label at the foot of the line, on its right, or on its left where the
// right has no room for it (a mark at the end of the axis).
type markLine struct {
	x     float64
	label string
}

func (m markLine) Plot(c draw.Canvas, pl *plot.Plot) {
	if m.x < pl.X.Min || m.x > pl.X.Max {
		return
	}
	trX, _ := pl.Transforms(&c)
	x := trX(m.x)
	c.StrokeLine2(draw.LineStyle{Color: color.Black, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}, x, c.Min.Y, x, c.Max.Y)
	if m.label != "" {
		st := pl.Y.Tick.Label
		st.Font = sans(tickSize)
		st.XAlign, st.YAlign = draw.XLeft, draw.YBottom
		at := x + vg.Points(4)
		if at+st.Width(m.label) > c.Max.X {
			st.XAlign, at = draw.XRight, x-vg.Points(4)
		}
		c.FillText(st, vg.Point{X: at, Y: c.Min.Y + vg.Points(4)}, m.label)
	}
}

// glyphShapes are filled, so a point reads even where lines cross.
var glyphShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}

// unlabelled keeps the tick marks of the panels above the last one, whose
// x axis the last panel labels.
type unlabelled struct{ plot.Ticker }

func (u unlabelled) Ticks(min, max float64) []plot.Tick {
	ticks := u.Ticker.Ticks(min, max)
	for i := range ticks {
		ticks[i].Label = ""
	}
	return ticks
}

// logTicks marks a log axis at 1, 2 and 5 times each power of ten, with
// labels, and at the other digits without: gonum's LogTicks labels only
// the powers, which leaves a 1..16 MiB axis with two numbers.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		for m := 1; m < 10; m++ {
			// Rounded to 12 digits so that 3×10^-1 prints as 0.3.
			v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(m)*math.Pow(10, e), 'g', 12, 64), 64)
			if v < min || v > max {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// Size is the figure's width and height.
func (f *Figure) Size() (w, h vg.Length) {
	return figureWidth, titleHeight + panelHeight*vg.Length(len(f.Panels))
}

// Render draws the figure as png, svg or pdf.
func (f *Figure) Render(format string) (io.WriterTo, error) {
	w, h := f.Size()
	return renderTitled(format, w, h, f.Title, f.drawBody)
}

// drawBody draws the legend and the panels below the title.
func (f *Figure) drawBody(dc draw.Canvas) {
	if f.Legend != nil {
		dc = legendRight(dc, f.Legend)
	}
	var legendWidth vg.Length
	for _, l := range f.PanelLegends {
		if l != nil {
			r := l.Rectangle(dc)
			legendWidth = max(legendWidth, r.Max.X-r.Min.X+vg.Points(12))
		}
	}
	right := dc.Max.X
	dc = draw.Crop(dc, 0, -legendWidth, 0, 0)
	canvases := drawColumn(dc, f.Panels, vg.Points(6))
	for i, c := range canvases {
		if i < len(f.PanelLegends) && f.PanelLegends[i] != nil {
			c.Rectangle = vg.Rectangle{Min: vg.Point{X: right - legendWidth, Y: c.Min.Y}, Max: vg.Point{X: right, Y: c.Max.Y - vg.Points(6)}}
			f.PanelLegends[i].Draw(c)
		}
	}
}

// legendRight draws legend at the right of dc, top-aligned, and returns
// the rest of dc to its left.
func legendRight(dc draw.Canvas, legend *plot.Legend) draw.Canvas {
	r := legend.Rectangle(dc)
	w := r.Max.X - r.Min.X + vg.Points(12)
	legend.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-w, 0, 0, -vg.Points(6)))
	return draw.Crop(dc, 0, -w, 0, 0)
}

// drawColumn draws plots one above the other in dc, their axes aligned,
// padY apart, and returns each plot's canvas.
func drawColumn(dc draw.Canvas, plots []*plot.Plot, padY vg.Length) []draw.Canvas {
	tiles := draw.Tiles{
		Rows: len(plots), Cols: 1,
		PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12),
		PadY: padY,
	}
	grid := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		grid[i] = []*plot.Plot{p}
	}
	aligned := plot.Align(grid, tiles, dc)
	canvases := make([]draw.Canvas, len(plots))
	for i, p := range plots {
		p.Draw(aligned[i][0])
		canvases[i] = aligned[i][0]
	}
	return canvases
}

// FigureFormat returns the format a figure file's extension asks for.
func FigureFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", ".svg", ".pdf":
		return ext[1:], nil
	}
	return "", spec.FieldErrorf("plot", "%s: the extension decides the format; use .png, .svg or .pdf", path)
}

// SaveFigure writes the figure to path, in the format its extension
// names. It writes a temporary file beside path and renames it, so a
// failure never leaves half a figure behind.
func SaveFigure(path string, f *Figure) (err error) {
	format, err := FigureFormat(path)
	if err != nil {
		return err
	}
	wt, err := f.Render(format)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// renderTitled makes a w×h canvas in format, draws title at its top as
// Figure.Render does, and hands the rest to body.
func renderTitled(format string, w, h vg.Length, title string, body func(draw.Canvas)) (io.WriterTo, error) {
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))}
	case "svg", "pdf":
		var err error
		if c, err = draw.NewFormattedCanvas(w, h, format); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("cannot draw a figure as %q: use png, svg or pdf", format)
	}
	dc := draw.New(c)
	st := plot.New().Title.TextStyle
	st.Font = sans(titleSize)
	dc.FillText(st, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(8)}, title)
	body(draw.Crop(dc, 0, 0, 0, -titleHeight))
	return c, nil
}

// saveRendered renders into the format path's extension names and writes
// the file atomically.
func saveRendered(path string, render func(format string) (io.WriterTo, error)) error {
	format, err := FigureFormat(path)
	if err != nil {
		return err
	}
	wt, err := render(format)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// addLabels writes each label just right of its point, in the tick font.
func addLabels(pl *plot.Plot, labels plotter.XYLabels, offset vg.Length) error {
	l, err := plotter.NewLabels(labels)
	if err != nil {
		return err
	}
	st := pl.Y.Tick.Label
	st.Font = sans(tickSize)
	st.XAlign, st.YAlign = draw.XLeft, draw.YCenter
	l.TextStyle = make([]text.Style, len(labels.Labels))
	for i := range l.TextStyle {
		l.TextStyle[i] = st
	}
	l.Offset = vg.Point{X: offset}
	pl.Add(l)
	return nil
}
