package reports

import (
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/hw/spec"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WriteValidation prints a validation as a table (one row a point, then
// the MAPE and worst case by phase) or as JSON.
func WriteValidation(w io.Writer, v *calibrate.Validation, f Format) error {
	switch f {
	case JSON:
		return WriteJSON(w, v)
	case Table:
		return validationTable(w, v)
	}
	return fmt.Errorf("calibrate validate prints table or json, not %s", f)
}

func validationTable(w io.Writer, v *calibrate.Validation) error {
	cal := v.Calibration
	if cal == "" {
		cal = "no calibration"
	}
	how := cal
	if v.Holdout != "" {
		how = "each " + v.Holdout + " predicted from a fit on the others"
	}
	fmt.Fprintf(w, "%d points · %s fidelity · %s\n\n", len(v.Points), v.Fidelity, how)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "chip\tmodel\tquant\tphase\tmeasured\tpredicted\terror\t")
	for _, p := range v.Points {
		phase := p.Phase
		if p.Depth > 0 {
			phase += fmt.Sprintf(" @ d%d", p.Depth) // llama-bench's label
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s %s\t%s\t%+.1f%%\t\n", chipName(p.SoC), modelName(p.Model), p.Quant, phase,
			num(p.Measured), p.Unit, num(p.Predicted), 100*p.Error)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, ph := range calibrate.Summaries {
		st, ok := v.Phases[ph]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "%-8s MAPE %5.1f%% over %d points; worst %+.1f%% (%s %s %s)\n", ph, 100*st.MAPE, st.Points,
			100*st.Worst.Error, chipName(st.Worst.SoC), st.Worst.Quant, st.Worst.Phase)
	}
	skips := make([][2]string, len(v.Skipped))
	for i, s := range v.Skipped {
		skips[i] = [2]string{s.Source, s.Reason}
	}
	writeSkipped(w, skips)
	return nil
}

// writeSkipped lists skipped records (source, reason) one line per
// reason, in first-seen order: a probe's twenty memory records share one.
func writeSkipped(w io.Writer, skips [][2]string) {
	var reasons []string
	sources := map[string][]string{}
	counts := map[string]int{}
	for _, s := range skips {
		src, why := s[0], s[1]
		if counts[why] == 0 {
			reasons = append(reasons, why)
		}
		counts[why]++
		if !slices.Contains(sources[why], src) {
			sources[why] = append(sources[why], src)
		}
	}
	for _, why := range reasons {
		src := sources[why]
		if len(src) > 3 {
			src = append(src[:3:3], fmt.Sprintf("… %d more", len(src)-3))
		}
		if n := counts[why]; n > 1 {
			fmt.Fprintf(w, "skipped %d records (%s): %s\n", n, strings.Join(src, ", "), why)
		} else {
			fmt.Fprintf(w, "skipped %s: %s\n", src[0], why)
		}
	}
}

// chipName shortens a chip file's path to its base name.
func chipName(soc string) string {
	if i := strings.LastIndexByte(soc, '/'); i >= 0 {
		soc = soc[i+1:]
	}
	return strings.TrimSuffix(soc, ".yaml")
}

// modelName shortens a model file's path the same way; a Hugging Face
// config.json is named by its folder, as the model's repository is.
func modelName(model string) string {
	dir, base := path.Split(model)
	if base == "config.json" && strings.Trim(dir, "/.") != "" {
		return path.Base(strings.TrimSuffix(dir, "/"))
	}
	return strings.TrimSuffix(strings.TrimSuffix(chipName(model), ".yml"), ".json")
}

// WriteFit prints a fit: each parameter with its value, uncertainty and
// the value before, then the residual of every record.
func WriteFit(w io.Writer, fit *calibrate.Fit) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "parameter\tfitted\t± 1σ\tbefore\t")
	for _, p := range fit.Params {
		if !p.Identified && !p.Limit {
			fmt.Fprintf(tw, "%s\tnot determined by these records: left out\t\t\t\n", p.Key())
			continue
		}
		se := p.Stderr
		switch {
		case p.Limit:
			se = "a limit: any value beyond fits as well"
		case p.Unresolved:
			se = "unbounded: trades off with others"
		case p.AtBound:
			se = "at its bound"
		case se == "":
			se = "?"
		}
		key := p.Key()
		if p.Pooled {
			key += " (pooled: for what the records did not fit)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", key, p.Value, se, num(p.Before))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeRuntimes(w, fit); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "record\tchip\tquant\tmeasured\tpredicted\tresidual\t")
	for _, r := range fit.Residuals {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s %s\t%s\t%+.1f%%\t\n", r.Record.Source, chipName(r.Record.SoC), r.Record.Quant,
			num(r.Measured), r.Record.Unit, num(r.Predicted), 100*r.Error)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	skips := make([][2]string, len(fit.Skipped))
	for i, s := range fit.Skipped {
		skips[i] = [2]string{s.Record.Source, s.Reason}
	}
	writeSkipped(w, skips)
	return nil
}

// writeRuntimes warns of figures one runtime's records share with
// another's and, when the records come from several runtimes, gives each
// runtime's residuals: a runtime whose records the fit leaves far off is
// pulling shared figures its own way.
func writeRuntimes(w io.Writer, fit *calibrate.Fit) error {
	for _, p := range fit.Params {
		if len(p.Runtimes) > 1 && (p.Identified || p.Limit) {
			fmt.Fprintf(w, "note: %s is one figure for the records of %d runtimes (%s); if their kernels differ, fit each runtime's records apart\n",
				p.Key(), len(p.Runtimes), strings.Join(p.Runtimes, "; "))
		}
	}
	type stats struct {
		n         int
		sum, sumA float64
	}
	by := map[string]*stats{}
	var order []string
	for _, r := range fit.Residuals {
		name := calibrate.RuntimeOf(r.Record.Backend)
		if name == "" {
			name = "(no backend given)"
		}
		st, ok := by[name]
		if !ok {
			st = &stats{}
			by[name] = st
			order = append(order, name)
		}
		st.n++
		st.sum += r.Error
		st.sumA += math.Abs(r.Error)
	}
	if len(order) < 2 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "runtime\trecords\tmean residual\tmean |residual|\t")
	for _, name := range order {
		st := by[name]
		fmt.Fprintf(tw, "%s\t%d\t%+.1f%%\t%.1f%%\t\n", name, st.n, 100*st.sum/float64(st.n), 100*st.sumA/float64(st.n))
	}
	return tw.Flush()
}

// PlotValidation draws predicted against measured on log axes, one
// marker style per phase, with the y = x line: points above it are
// over-predicted.
func PlotValidation(path string, v *calibrate.Validation) error {
	pl := plot.New()
	style(pl)
	pl.X.Label.Text = "measured"
	pl.Y.Label.Text = "predicted"
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = logTicks{}, logTicks{}
	lo, hi := math.Inf(1), math.Inf(-1)
	k := 0
	for _, ph := range []string{calibrate.PhasePrefill, calibrate.PhaseDecode, calibrate.PhaseKernel} {
		var xys plotter.XYs
		for _, p := range v.Points {
			if p.Phase == ph {
				xys = append(xys, plotter.XY{X: p.Measured, Y: p.Predicted})
				lo, hi = math.Min(lo, math.Min(p.Measured, p.Predicted)), math.Max(hi, math.Max(p.Measured, p.Predicted))
			}
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return err
		}
		sc.GlyphStyle = glyphStyle(k)
		k++
		pl.Add(sc)
		pl.Legend.Add(fmt.Sprintf("%s (MAPE %.1f%%)", ph, 100*v.MAPE[ph]), sc)
	}
	if k == 0 {
		return spec.FieldErrorf("plot", ": no points to draw")
	}
	lo, hi = lo/1.2, hi*1.2
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return err
	}
	diag.LineStyle = draw.LineStyle{Color: paretoGrey, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	pl.Add(diag)
	pl.Legend.Add("y = x", diag)
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Legend.TextStyle.Font = sans(tickSize)
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = lo, hi, lo, hi
	title := "Predicted vs measured, " + v.Fidelity + " fidelity"
	if v.Holdout != "" {
		title += ", each " + v.Holdout + " held out"
	}
	side := 7 * vg.Inch
	return saveRendered(path, func(format string) (io.WriterTo, error) {
		return renderTitled(format, side, side+titleHeight, title, func(c draw.Canvas) { pl.Draw(c) })
	})
}

// num prints a measured or predicted figure with four significant digits.
func num(v float64) string { return fmt.Sprintf("%.4g", v) }
