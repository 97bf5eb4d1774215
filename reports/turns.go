package reports

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/edgetwin/edgetwin/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TurnData is a chat session's latency as its user sees it: one stacked
// bar per turn, cut into the stages the turn ran, over the time to first
// token per turn, the cold first turn marked apart from the warm ones.
type TurnData struct {
	Title string
	// Stages are the stages of every turn in the order they ran (a
	// stage only some turns run, like load, keeps its place).
	Stages []string
	Turns  []TurnBar
	// TTFTLog draws the time to first token on a log axis: the slowest
	// turn takes more than ten times the fastest.
	TTFTLog bool
}

// TurnBar is one turn: its seconds per stage (per TurnData.Stages, 0
// for a stage it did not run), its time to first token and to the whole
// answer.
type TurnBar struct {
	Turn            int
	Cold, Truncated bool
	Seconds         []float64
	TTFTS, TotalS   float64
}

// TurnPlotData lays out a session's turns for plotting.
func TurnPlotData(title string, turns []sim.Turn) TurnData {
	d := TurnData{Title: title}
	for _, t := range turns {
		at := 0 // where a stage new to the list goes: after the one before it in this turn
		for _, st := range t.Stages {
			if k := slices.Index(d.Stages, st.Name); k >= 0 {
				at = k + 1
				continue
			}
			d.Stages = slices.Insert(d.Stages, at, st.Name)
			at++
		}
	}
	lo, hi := math.Inf(1), 0.0
	for _, t := range turns {
		b := TurnBar{Turn: t.Turn, Cold: t.Cold, Truncated: t.Truncated, Seconds: make([]float64, len(d.Stages)), TTFTS: t.TTFTS, TotalS: t.TotalS}
		for _, st := range t.Stages {
			b.Seconds[slices.Index(d.Stages, st.Name)] += st.Seconds
		}
		d.Turns = append(d.Turns, b)
		if t.TTFTS > 0 {
			lo, hi = min(lo, t.TTFTS), max(hi, t.TTFTS)
		}
	}
	d.TTFTLog = hi > 10*lo
	return d
}

// WriteCSV prints one row a turn: the turn, whether it was cold and
// whether the context was truncated before it, the seconds of each stage,
// the time to first token and the turn's total.
func (d TurnData) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"turn", "cold", "truncated"}
	for _, s := range d.Stages {
		head = append(head, s+"_s")
	}
	if err := cw.Write(append(head, "ttft_s", "total_s")); err != nil {
		return err
	}
	for _, t := range d.Turns {
		rec := []string{strconv.Itoa(t.Turn), strconv.FormatBool(t.Cold), strconv.FormatBool(t.Truncated)}
		for _, v := range t.Seconds {
			rec = append(rec, jsonNumber(v))
		}
		if err := cw.Write(append(rec, jsonNumber(t.TTFTS), jsonNumber(t.TotalS))); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Plots draws the two panels: the stacked stages per turn (stage k in
// the same colour as the legend's), and the time to first token per
// turn, warm turns as one line, cold turns as their own marker. Both
// share the turn axis.
func (d TurnData) Plots() ([]*plot.Plot, *plot.Legend, error) {
	n := len(d.Turns)
	legend := partsLegend()

	bars := plot.New()
	style(bars)
	bars.Y.Label.Text = "turn latency (s)"
	bars.X.Tick.Marker = unlabelled{turnTicks{}}
	var below *plotter.BarChart
	for k, stage := range d.Stages {
		vals := make(plotter.Values, n)
		for i, t := range d.Turns {
			vals[i] = t.Seconds[k]
		}
		// About 300 pt of the panel's width to the bars, a gap between.
		bc, err := plotter.NewBarChart(vals, vg.Points(max(2, min(24, 300/float64(max(1, n))))))
		if err != nil {
			return nil, nil, fmt.Errorf("stage %s: %w", stage, err)
		}
		if n > 0 {
			bc.XMin = float64(d.Turns[0].Turn)
		}
		bc.Color = stageColors[k%len(stageColors)]
		bc.LineStyle.Width = 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		bars.Add(bc)
		legend.Add(stage, bc)
	}

	ttft := plot.New()
	style(ttft)
	ttft.Y.Label.Text = "time to first token (s)"
	ttft.X.Label.Text = "turn"
	ttft.X.Tick.Marker = turnTicks{}
	var warm, cold plotter.XYs
	for _, t := range d.Turns {
		if t.TTFTS <= 0 && d.TTFTLog {
			continue // no place on a log axis
		}
		xy := plotter.XY{X: float64(t.Turn), Y: t.TTFTS}
		if t.Cold {
			cold = append(cold, xy)
		} else {
			warm = append(warm, xy)
		}
	}
	if len(warm) > 0 {
		line, points, err := plotter.NewLinePoints(warm)
		if err != nil {
			return nil, nil, err
		}
		line.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(lineWidth)}
		points.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(glyphRadius), Shape: draw.CircleGlyph{}}
		ttft.Add(line, points)
		legend.Add("TTFT, warm turn", line, points)
	}
	if len(cold) > 0 {
		points, err := plotter.NewScatter(cold)
		if err != nil {
			return nil, nil, err
		}
		// In the first stage's colour: load, what makes a turn cold.
		points.GlyphStyle = draw.GlyphStyle{Color: stageColors[0], Radius: 1.5 * vg.Points(glyphRadius), Shape: draw.BoxGlyph{}}
		ttft.Add(points)
		legend.Add("TTFT, cold turn (model load)", points)
	}
	if d.TTFTLog {
		ttft.Y.Scale = plot.LogScale{}
		ttft.Y.Tick.Marker = logTicks{}
		ttft.Y.Min, ttft.Y.Max = ttft.Y.Min/1.5, ttft.Y.Max*1.5
	} else {
		ttft.Y.Min = 0
	}
	for _, pl := range []*plot.Plot{bars, ttft} {
		pl.X.Min, pl.X.Max = 0.5, float64(n)+0.5
		if n > 0 {
			pl.X.Min, pl.X.Max = float64(d.Turns[0].Turn)-0.5, float64(d.Turns[n-1].Turn)+0.5
		}
		if pl.Y.Max <= pl.Y.Min {
			pl.Y.Max = pl.Y.Min + 1
		}
	}
	bars.Y.Min = 0
	return []*plot.Plot{bars, ttft}, &legend, nil
}

// stageColors tell ten stages apart (Tableau 10): plotutil's dark
// palette has seven, and a chat turn runs ten.
var stageColors = []color.Color{
	rgb(0x4e79a7), rgb(0xf28e2b), rgb(0xe15759), rgb(0x76b7b2), rgb(0x59a14f),
	rgb(0xedc948), rgb(0xb07aa1), rgb(0xff9da7), rgb(0x9c755f), rgb(0xbab0ac),
}

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// turnTicks labels whole turns: every turn up to ten, else every fifth.
type turnTicks struct{}

func (turnTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1
	if hi-lo > 12 {
		step = 5
	}
	var ticks []plot.Tick
	for v := int(math.Ceil(lo)); float64(v) <= hi; v++ {
		t := plot.Tick{Value: float64(v)}
		if v%step == 0 || v == 1 {
			t.Label = strconv.Itoa(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// Size is the figure's width and height: two panels.
func (d TurnData) Size() (w, h vg.Length) {
	return figureWidth, titleHeight + 2*panelHeight
}

// Render draws the turns as png, svg or pdf: the stacked bars over the
// time to first token, the legend at the right.
func (d TurnData) Render(format string) (io.WriterTo, error) {
	plots, legend, err := d.Plots()
	if err != nil {
		return nil, err
	}
	w, h := d.Size()
	return renderColumn(format, w, h, d.Title, plots, legend)
}
