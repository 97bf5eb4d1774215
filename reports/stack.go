package reports

import (
	"encoding/csv"
	"fmt"
	"io"

	"github.com/edgetwin/edgetwin/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// StackData is a stacked bar figure: one panel per workload, one bar per
// chip, each bar cut into parts (where the time of a token goes). Kept
// apart from the drawing, as PlotData is.
type StackData struct {
	Title  string
	Labels []string // the bars: chip ids, the first drawn on top
	Parts  []string // the segments of every bar, in stacking order
	Panels []StackPanel
}

// StackPanel is one workload's bars.
type StackPanel struct {
	Label string // the value axis, with its unit
	// Values holds a bar's parts, [bar][part]; a nil bar has no figure
	// and says Missing[bar] instead.
	Values  [][]float64
	Missing []string
}

// TimeParts are the parts of a run's time that StackData shows, in order,
// with how to read each from a result's time breakdown.
var TimeParts = []struct {
	Name string
	Get  func(sim.Time) float64
}{
	{"compute", func(t sim.Time) float64 { return t.Compute }},
	{"memory stall", func(t sim.Time) float64 { return t.MemoryStall }},
	{"dispatch", func(t sim.Time) float64 { return t.Dispatch }},
	{"fallback to CPU", func(t sim.Time) float64 { return t.Fallback }},
	{"sampling (CPU)", func(t sim.Time) float64 { return t.Host }},
	{"SRAM bank conflicts", func(t sim.Time) float64 { return t.BankConflict }},
}

// DecodeTimeParts is where the time of one decode step goes, in ms: the
// difference between a run that prefills and decodes gen tokens (full)
// and the same run stopped after the prefill (prefillOnly), divided by
// gen. Runs are deterministic, so the prefill's share cancels exactly.
func DecodeTimeParts(full, prefillOnly *sim.Result) []float64 {
	parts := make([]float64, len(TimeParts))
	if full.Decode.Tokens == 0 {
		return parts
	}
	steps := float64(full.Decode.Tokens) / float64(max(1, full.Batch))
	for i, p := range TimeParts {
		parts[i] = max(0, p.Get(full.Time)-p.Get(prefillOnly.Time)) / steps * 1e3
	}
	return parts
}

// WriteCSV prints one row a bar: panel, chip, then each part (empty for a
// bar without a figure).
func (d StackData) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{"panel", "chip"}, d.Parts...)); err != nil {
		return err
	}
	for _, p := range d.Panels {
		for i, vals := range p.Values {
			rec := []string{p.Label, d.Labels[i]}
			for k := range d.Parts {
				cell := ""
				if vals != nil {
					cell = jsonNumber(vals[k])
				}
				rec = append(rec, cell)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Plots draws one horizontal stacked bar chart per panel, part k in the
// same colour everywhere, each bar ending with its total, and the legend
// that names the parts.
func (d StackData) Plots() ([]*plot.Plot, *plot.Legend, error) {
	n := len(d.Labels)
	names := make([]string, n)
	for i, l := range d.Labels {
		names[n-1-i] = l // the first chip on top
	}
	legend := partsLegend()
	var plots []*plot.Plot
	for pi, p := range d.Panels {
		pl := newBarPlot(p.Label)
		var below *plotter.BarChart
		for k, part := range d.Parts {
			vals := make(plotter.Values, n)
			for i, bar := range p.Values {
				if bar != nil {
					vals[n-1-i] = bar[k]
				}
			}
			bc, err := plotter.NewBarChart(vals, barSlot*0.7)
			if err != nil {
				return nil, nil, fmt.Errorf("panel %s, part %s: %w", p.Label, part, err)
			}
			bc.Horizontal = true
			bc.Color = plotutil.DarkColors[k%len(plotutil.DarkColors)]
			bc.LineStyle.Width = 0
			if below != nil {
				bc.StackOn(below)
			}
			below = bc
			pl.Add(bc)
			if pi == 0 {
				legend.Add(part, bc)
			}
		}
		var labels plotter.XYLabels
		for i, bar := range p.Values {
			label, total := p.Missing[i], 0.0
			if bar != nil {
				for _, v := range bar {
					total += v
				}
				label = barValue(total)
			}
			labels.XYs = append(labels.XYs, plotter.XY{X: total, Y: float64(n - 1 - i)})
			labels.Labels = append(labels.Labels, label)
		}
		if err := addLabels(pl, labels, vg.Points(4)); err != nil {
			return nil, nil, err
		}
		nameBars(pl, names)
		pl.X.Max *= 1.15 // room for the totals
		if pl.X.Max <= 0 {
			pl.X.Max = 1
		}
		plots = append(plots, pl)
	}
	return plots, &legend, nil
}

// Size is the stacked figure's width and height: a panel per workload,
// tall enough for its bars.
func (d StackData) Size() (w, h vg.Length) {
	panel := max(minBarPanel, barPanelExtra+barSlot*vg.Length(len(d.Labels)))
	return figureWidth, titleHeight + panel*vg.Length(len(d.Panels))
}

// Render draws the stacked bars as png, svg or pdf: the panels one above
// the other, the legend of the parts at the right.
func (d StackData) Render(format string) (io.WriterTo, error) {
	plots, legend, err := d.Plots()
	if err != nil {
		return nil, err
	}
	w, h := d.Size()
	return renderColumn(format, w, h, d.Title, plots, legend)
}

// partsLegend is the legend of a stacked figure's parts, drawn at its
// right.
func partsLegend() plot.Legend {
	legend := plot.NewLegend()
	legend.TextStyle.Font = sans(tickSize)
	legend.Top, legend.Left = true, true
	legend.ThumbnailWidth = vg.Points(20)
	legend.Padding = vg.Points(4)
	return legend
}

// renderColumn draws a w×h figure as png, svg or pdf: the title, the
// plots one above the other and the legend at their right.
func renderColumn(format string, w, h vg.Length, title string, plots []*plot.Plot, legend *plot.Legend) (io.WriterTo, error) {
	return renderTitled(format, w, h, title, func(dc draw.Canvas) {
		drawColumn(legendRight(dc, legend), plots, vg.Points(12))
	})
}
