package reports

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/numfmt"
	"github.com/edgetwin/edgetwin/workloads"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RooflinePlot is a chip's roofline with the operators of a prefill pass
// and of a decode step placed on it: x is arithmetic intensity (operations
// per byte touched), y the attainable rate in TOPS. The roofs are the
// matrix unit's peak at its compute dtype, the DRAM bandwidth at its
// sequential efficiency, and the L3 bandwidth, a second, higher roof for
// data the L3 holds.
//
// Each point is the operators of one phase that share a kind and a role
// (every layer's ffn matmuls together: gate, up, down and every expert's),
// with their FLOPs and bytes summed, so its intensity is that of the
// group as a whole. A point sits on the DRAM roof: the rate the group
// attains when its bytes stream from DRAM, capped by the peak. Operators
// that do no arithmetic (the embedding lookup) have no place on a log
// axis and are left out.
type RooflinePlot struct {
	Title string
	Chip  string // the chip's id
	Unit  string // the matrix unit
	Dtype string // its compute dtype for the operators' activations

	PeakTOPS       float64 // the unit's peak at Dtype, TOPS
	DRAMPeak       float64 // bytes/s
	DRAMEfficiency float64 // the fraction of DRAMPeak a sequential stream reaches
	L3Bandwidth    float64 // bytes/s; 0 when the unit does not allocate in the L3

	Points []RooflinePoint // prefill's groups, then decode's, each in order of first operator
}

// RooflinePoint is the operators of one phase of one kind and role.
type RooflinePoint struct {
	Phase string           // prefill or decode
	Kind  workloads.OpKind // matmul, attention, norm, ...
	Role  workloads.Role   // attn, ffn, output, ...
	Count int              // operators in the group
	FLOPs float64          // their useful operations
	Bytes float64          // their bytes touched: weights, KV read and written, activations
}

// Intensity is the group's operations per byte.
func (p RooflinePoint) Intensity() float64 { return p.FLOPs / p.Bytes }

// Label names the group in a legend: "decode matmul/ffn ×72".
func (p RooflinePoint) Label() string {
	return fmt.Sprintf("%s %s/%s ×%d", p.Phase, p.Kind, p.Role, p.Count)
}

// DRAMBandwidth is the DRAM roof's slope: the bandwidth a sequential
// stream attains, bytes/s.
func (r *RooflinePlot) DRAMBandwidth() float64 { return r.DRAMPeak * r.DRAMEfficiency }

// Attainable is the rate, in TOPS, that work of the given intensity
// attains under the DRAM roof, and which roof bounds it: "dram" or
// "compute".
func (r *RooflinePlot) Attainable(intensity float64) (tops float64, bound string) {
	mem := intensity * r.DRAMBandwidth() / 1e12
	if mem < r.PeakTOPS {
		return mem, "dram"
	}
	return r.PeakTOPS, "compute"
}

// Roofline places the operators of a prefill pass and of a decode step
// (workloads.Lower's output for each) on the roofline of chip's unit, the
// one sim.Choose picked to run the model. The compute dtype is the
// unit's for the activations of the matmuls that do most of the work.
// An empty title names the chip, the unit and its dtype.
func Roofline(chip *hw.Chip, unit string, prefill, decode []workloads.Op, title string) (*RooflinePlot, error) {
	act, ok := matmulActDtype(prefill, decode)
	if !ok {
		return nil, fmt.Errorf("roofline of %s: no matrix operator to place", chip.ID)
	}
	u, dt, err := rooflineUnit(chip, unit, act)
	if err != nil {
		return nil, err
	}
	r := &RooflinePlot{
		Title: title, Chip: chip.ID, Unit: u.Name, Dtype: string(dt),
		PeakTOPS:       float64(u.Peak[dt]) / 1e12,
		DRAMPeak:       float64(chip.Memory.DRAM.Bandwidth),
		DRAMEfficiency: float64(chip.Memory.DRAM.SeqEfficiency),
	}
	if r.DRAMEfficiency <= 0 { // a chip built in code, without the defaults
		r.DRAMEfficiency = 1
	}
	if l3 := chip.Memory.L3; l3.Size > 0 && l3.Shares(u.Name) {
		r.L3Bandwidth = float64(l3.Bandwidth)
	}
	if r.Title == "" {
		r.Title = fmt.Sprintf("Roofline of %s: %s at %s", chip.ID, u.Name, dt)
	}
	if r.PeakTOPS <= 0 || r.DRAMBandwidth() <= 0 {
		return nil, fmt.Errorf("roofline of %s: %s has no peak at %s or the DRAM no bandwidth", chip.ID, u.Name, dt)
	}
	r.Points = append(groupOps(workloads.Prefill.String(), prefill), groupOps(workloads.Decode.String(), decode)...)
	return r, nil
}

// matmulActDtype is the activation dtype of the matmuls with the most
// FLOPs over both phases (any matrix operator's when there is no matmul).
func matmulActDtype(phases ...[]workloads.Op) (dtype.Dtype, bool) {
	for _, only := range []bool{true, false} {
		flops := map[dtype.Dtype]float64{}
		for _, ops := range phases {
			for _, op := range ops {
				if op.Matrix && (!only || op.Kind == workloads.KindMatMul) {
					flops[op.ActDtype] += op.FLOPs
				}
			}
		}
		best, found := dtype.Dtype(""), false
		for _, d := range dtype.All { // a fixed order: ties go to the narrower type
			if f, ok := flops[d]; ok && (!found || f > flops[best]) {
				best, found = d, true
			}
		}
		if found {
			return best, true
		}
	}
	return "", false
}

// rooflineUnit finds the named unit and its compute dtype for activations
// act. The unit is the simulator's choice (sim.Choose): the roofline keeps
// no rule of its own for which unit runs a model.
func rooflineUnit(chip *hw.Chip, name string, act dtype.Dtype) (*hw.Unit, dtype.Dtype, error) {
	u := chip.Unit(name)
	if u == nil {
		return nil, "", fmt.Errorf("roofline of %s: no unit %q; units: %v", chip.ID, name, chip.UnitNames())
	}
	dt, ok := u.ComputeDtype(act)
	if !ok {
		return nil, "", fmt.Errorf("roofline of %s: %s has no peak at %s or above", chip.ID, name, act)
	}
	return u, dt, nil
}

// groupOps sums the operators of one phase by kind and role, in order of
// each group's first operator, leaving out those without arithmetic or
// bytes.
func groupOps(phase string, ops []workloads.Op) []RooflinePoint {
	var points []RooflinePoint
	for _, op := range ops {
		if op.FLOPs <= 0 || op.Bytes.Total() <= 0 {
			continue
		}
		i := slices.IndexFunc(points, func(p RooflinePoint) bool { return p.Kind == op.Kind && p.Role == op.Role })
		if i < 0 {
			i = len(points)
			points = append(points, RooflinePoint{Phase: phase, Kind: op.Kind, Role: op.Role})
		}
		p := &points[i]
		p.Count++
		p.FLOPs += op.FLOPs
		p.Bytes += op.Bytes.Total()
	}
	return points
}

// WriteCSV prints the plotted points, one a row: phase, kind, role, the
// count of operators, their FLOPs and bytes, the intensity (ops/byte),
// the attainable TOPS and the roof that bounds it.
func (r *RooflinePlot) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"phase", "kind", "role", "count", "flops", "bytes", "intensity", "attainable_tops", "bound"}); err != nil {
		return err
	}
	for _, p := range r.Points {
		tops, bound := r.Attainable(p.Intensity())
		rec := []string{p.Phase, string(p.Kind), string(p.Role), strconv.Itoa(p.Count),
			jsonNumber(p.FLOPs), jsonNumber(p.Bytes), jsonNumber(p.Intensity()), jsonNumber(tops), bound}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Roofline figure: as wide as the other figures, tall enough for a square
// plot beside a legend of a couple of dozen entries.
const (
	rooflineHeight      = 7 * vg.Inch
	rooflineRoofWidth   = 2.5 // points
	rooflinePrefillSize = 6   // glyph radius, points: prefill's large marks...
	rooflineDecodeSize  = 3.5 // ...decode's small ones, drawn on top, so both show where they meet
)

// Phase colours, from plotutil's dark palette: blue and orange stay apart
// for the colour-blind and in grey.
var (
	rooflinePrefillColor = plotutil.DarkColors[2]
	rooflineDecodeColor  = plotutil.DarkColors[3]
)

// Plot draws the roofline with gonum/plot, log-log: the compute roof, the
// DRAM roof (solid) and the L3 roof (dashed), then the points, one shape
// per kind and role, prefill large and decode small in their colours. It
// returns the legend that names the roofs and the points.
func (r *RooflinePlot) Plot() (*plot.Plot, *plot.Legend, error) {
	pl := plot.New()
	style(pl)
	pl.X.Label.Text = "arithmetic intensity (ops/byte)"
	pl.Y.Label.Text = "attainable (TOPS)"
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = wideLogTicks{}, wideLogTicks{}
	pl.Add(xGrid{wideLogTicks{}})

	// The x range covers every point and the ridges, with room on both
	// sides, in whole decades; y runs from the DRAM roof at the left edge
	// to above the peak.
	peak, dram, l3 := r.PeakTOPS, r.DRAMBandwidth()/1e12, r.L3Bandwidth/1e12
	xs := []float64{peak / dram}
	if l3 > 0 {
		xs = append(xs, peak/l3)
	}
	for _, p := range r.Points {
		xs = append(xs, p.Intensity())
	}
	xlo := decadeBelow(slices.Min(xs) / 1.5)
	xhi := decadeAbove(slices.Max(xs) * 1.5)
	ylo := decadeBelow(xlo * math.Min(dram, orInf(l3)))
	yhi := decadeAbove(peak * 1.5)
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = xlo, xhi, ylo, yhi

	legend := plot.NewLegend()
	legend.TextStyle.Font = sans(tickSize)
	legend.Top, legend.Left = true, true
	legend.ThumbnailWidth = vg.Points(30)
	legend.Padding = vg.Points(4)

	ridge := peak / math.Max(dram, l3)
	roofs := []struct {
		label string
		pts   plotter.XYs
		style draw.LineStyle
	}{
		{fmt.Sprintf("peak: %s %s, %s TOPS", r.Unit, r.Dtype, numfmt.Value(peak, 0)),
			plotter.XYs{{X: ridge, Y: peak}, {X: xhi, Y: peak}},
			draw.LineStyle{Color: color.Gray{Y: 0x59}, Width: vg.Points(rooflineRoofWidth + 1)}},
		{fmt.Sprintf("DRAM: %s × %s = %s", units.Approx(r.DRAMPeak, units.KindByteRate), numfmt.Value(r.DRAMEfficiency, 0),
			units.Approx(r.DRAMBandwidth(), units.KindByteRate)),
			plotter.XYs{{X: xlo, Y: xlo * dram}, {X: peak / dram, Y: peak}},
			draw.LineStyle{Color: color.Black, Width: vg.Points(rooflineRoofWidth)}},
	}
	if l3 > 0 {
		roofs = append(roofs, struct {
			label string
			pts   plotter.XYs
			style draw.LineStyle
		}{fmt.Sprintf("L3: %s", units.Approx(r.L3Bandwidth, units.KindByteRate)),
			plotter.XYs{{X: xlo, Y: xlo * l3}, {X: peak / l3, Y: peak}},
			draw.LineStyle{Color: color.Black, Width: vg.Points(rooflineRoofWidth - 1), Dashes: []vg.Length{vg.Points(6), vg.Points(4)}}})
	}
	for _, roof := range roofs {
		line, err := plotter.NewLine(roof.pts)
		if err != nil {
			return nil, nil, fmt.Errorf("roof %s: %w", roof.label, err)
		}
		line.LineStyle = roof.style
		pl.Add(line)
		legend.Add(roof.label, line)
	}

	// One shape per kind and role, the same in both phases.
	var groups []string
	for _, p := range r.Points {
		if key := string(p.Kind) + "/" + string(p.Role); !slices.Contains(groups, key) {
			groups = append(groups, key)
		}
	}
	for _, p := range r.Points {
		tops, _ := r.Attainable(p.Intensity())
		s, err := plotter.NewScatter(plotter.XYs{{X: p.Intensity(), Y: tops}})
		if err != nil {
			return nil, nil, fmt.Errorf("point %s: %w", p.Label(), err)
		}
		g := slices.Index(groups, string(p.Kind)+"/"+string(p.Role))
		s.GlyphStyle = draw.GlyphStyle{Color: rooflinePrefillColor, Radius: vg.Points(rooflinePrefillSize), Shape: markShapes[g%len(markShapes)]}
		if p.Phase != workloads.Prefill.String() {
			s.GlyphStyle.Color, s.GlyphStyle.Radius = rooflineDecodeColor, vg.Points(rooflineDecodeSize)
		}
		pl.Add(s)
		legend.Add(p.Label(), s)
	}
	return pl, &legend, nil
}

// Size is the roofline figure's width and height.
func (r *RooflinePlot) Size() (w, h vg.Length) { return figureWidth, rooflineHeight }

// Render draws the roofline as png, svg or pdf: the title on top, the
// legend at the right, beside the plot rather than over its points.
func (r *RooflinePlot) Render(format string) (io.WriterTo, error) {
	pl, legend, err := r.Plot()
	if err != nil {
		return nil, err
	}
	w, h := r.Size()
	return renderTitled(format, w, h, r.Title, func(dc draw.Canvas) {
		dc = legendRight(dc, legend)
		pl.Draw(draw.Crop(dc, vg.Points(6), -vg.Points(12), vg.Points(6), -vg.Points(6)))
	})
}

// Save writes the roofline figure to path, in the format its extension
// names, atomically.
func (r *RooflinePlot) Save(path string) error { return saveRendered(path, r.Render) }

// WriteRoofline draws the roofline of chip's unit ("" for the simulator's
// choice) with the operators of a prefill pass and a decode step into
// path (.png, .svg or .pdf), atomically. Give a title that names the chip,
// the model and the quantisation: "llama-2-7b Q4_0 on snapdragon-8-gen3".
func WriteRoofline(path string, chip *hw.Chip, unit string, prefill, decode []workloads.Op, title string) error {
	if _, err := FigureFormat(path); err != nil {
		return err
	}
	r, err := Roofline(chip, unit, prefill, decode, title)
	if err != nil {
		return err
	}
	return r.Save(path)
}

// wideLogTicks labels a log axis as logTicks does (1, 2 and 5 a decade)
// when it spans three decades or fewer, and only the powers of ten when it
// spans more, where 1-2-5 labels would run into each other.
type wideLogTicks struct{}

func (wideLogTicks) Ticks(min, max float64) []plot.Tick {
	ticks := logTicks{}.Ticks(min, max)
	if math.Log10(max/min) <= 3 {
		return ticks
	}
	for i, t := range ticks {
		if e := math.Log10(t.Value); math.Abs(e-math.Round(e)) > 1e-9 {
			ticks[i].Label = ""
		}
	}
	return ticks
}

func decadeBelow(v float64) float64 { return math.Pow(10, math.Floor(math.Log10(v))) }
func decadeAbove(v float64) float64 { return math.Pow(10, math.Ceil(math.Log10(v))) }

// orInf is v, or +Inf when v is 0 (a roof that is not there).
func orInf(v float64) float64 {
	if v <= 0 {
		return math.Inf(1)
	}
	return v
}

// markShapes tell the roofline's groups apart: filled, with a thin white
// edge so that marks that meet stay distinct.
var markShapes = []draw.GlyphDrawer{
	mark{sides: 0},                                 // circle
	mark{sides: 4, turn: math.Pi / 4},              // square
	mark{sides: 3, turn: math.Pi / 2},              // triangle, point up
	mark{sides: 4},                                 // diamond
	mark{sides: 3, turn: -math.Pi / 2},             // triangle, point down
	mark{sides: 5, turn: math.Pi / 2},              // pentagon
	mark{sides: 6},                                 // hexagon
	mark{sides: 5, inner: 0.45, turn: math.Pi / 2}, // star
	mark{sides: 4, inner: 0.4},                     // four-pointed star
	mark{sides: 6, inner: 0.5, turn: math.Pi / 2},  // six-pointed star
}

// mark is a filled glyph: a circle (sides 0), a regular polygon, or a star
// when inner (the inner radius as a fraction of the outer) is above 0.
type mark struct {
	sides int
	inner float64
	turn  float64 // the first vertex's angle, radians from the x axis
}

func (m mark) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	var p vg.Path
	r := sty.Radius
	switch {
	case m.sides == 0:
		p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Arc(pt, r, 0, 2*math.Pi)
	case m.inner > 0:
		for k := range 2 * m.sides {
			rk := r
			if k%2 == 1 {
				rk = r * vg.Length(m.inner)
			}
			vertex(&p, k == 0, pt, rk, m.turn+float64(k)*math.Pi/float64(m.sides))
		}
	default:
		for k := range m.sides {
			vertex(&p, k == 0, pt, r, m.turn+2*float64(k)*math.Pi/float64(m.sides))
		}
	}
	p.Close()
	c.Fill(p)
	c.SetLineStyle(draw.LineStyle{Color: color.White, Width: vg.Points(0.6)})
	c.Stroke(p)
}

// vertex moves (first) or draws a line to the point at radius r and angle a
// around centre.
func vertex(p *vg.Path, first bool, centre vg.Point, r vg.Length, a float64) {
	v := vg.Point{X: centre.X + r*vg.Length(math.Cos(a)), Y: centre.Y + r*vg.Length(math.Sin(a))}
	if first {
		p.Move(v)
		return
	}
	p.Line(v)
}
