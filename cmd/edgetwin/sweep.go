package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/pool"
	"github.com/edgetwin/edgetwin/reports"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/spf13/cobra"
)

func newSweep() *cobra.Command {
	var (
		f       runFlags
		varies  []string
		metrics []string
		plotTo  string
	)
	cmd := &cobra.Command{
		Use:   "sweep --vary FIELD=RANGE... --metrics KEY,...",
		Short: "Simulate over ranges of a field and tabulate or plot chosen metrics",
		Long: `sweep runs simulate once per combination of the varied fields, on all cores,
and prints the chosen metrics of each run.

--vary FIELD=RANGE (repeatable; the first is the outermost loop and the
plot's x axis). RANGE is a..b:step (additive) or a..b:xN (multiplicative),
both ends included, or a list a,b,c; values take units (1MiB, 40GB/s).
FIELD is:
  kv    the KV-cache size at the start of decode: the prompt becomes
        round(kv / (KV bytes per token × batch)) tokens (at least 1),
        shown as ctx; it replaces --prompt
  ctx   the prompt (context) length, in tokens; it replaces --prompt
  PATH  any --set path: chip fields unprefixed (memory.l3.size), model
        fields as model.PATH (model.kv_heads)
At most 10000 points.

--metrics lists key paths of the simulate JSON (memory.kv_l3_miss_rate,
decode.tokens_per_s, ...). --format json prints one object per point:
the varied fields under their names, in SI base units, then the metrics.

A point the chip cannot run (the model does not fit, say) does not stop
the sweep: its metrics are null and an "error" field (a column in table
and CSV) says why, and a note on stderr counts such points. The sweep
fails (exit 2) only when no point runs.

--plot FILE.png|FILE.svg|FILE.pdf draws one panel per metric over the
first field, one line per combination of the others.`,
		Example: `  edgetwin sweep --soc seed-c --model seed-moe-3b --vary kv=1MiB..16MiB:1MiB \
      --metrics memory.kv_l3_miss_rate,memory.l3_miss_rate,decode.tokens_per_s --plot kv.png
  edgetwin sweep --vary ctx=128..4096:x2 --vary memory.l3.size=3MiB,6MiB,12MiB \
      --metrics decode.tokens_per_s --format csv
  edgetwin sweep --vary memory.dram.bandwidth=40GB/s..80GB/s:10GB/s --metrics decode.tokens_per_s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := checkOutput(f.format, plotTo)
			if err != nil {
				return err
			}
			if len(metrics) == 0 {
				return inputErrorf("--metrics is required: result key paths such as decode.tokens_per_s,memory.kv_l3_miss_rate")
			}
			if err := reports.CheckMetrics(metrics); err != nil {
				return inputErr(err)
			}
			axes, err := parseVaries(varies)
			if err != nil {
				return err
			}
			for _, a := range axes {
				if (a.field == fieldKV || a.field == fieldCtx) && f.depth > 0 {
					return inputErrorf("--vary %s sizes the context by the prompt; --depth %d would add to it: leave --depth out", a.field, f.depth)
				}
			}
			// The flags on their own must make a valid run; a bad --set
			// is reported as simulate reports it.
			base, err := f.config(f.soc)
			if err != nil {
				return err
			}
			s, err := runSweep(cmd.Context(), cmd.ErrOrStderr(), &f, axes, metrics)
			if err != nil {
				return err
			}
			s.SoC, s.Model, s.Quant = base.Chip.ID, base.Model.ID, base.Quant.String()
			var failed []int
			for i, p := range s.Points {
				if p.Err != "" {
					failed = append(failed, i)
				}
			}
			if len(failed) > 0 {
				first := s.Points[failed[0]]
				where := pointLabel(s.Fields, first.Values)
				if len(failed) == len(s.Points) {
					return inputErrorf("no point of the sweep ran; the first, %s: %s", where, first.Err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "edgetwin: %d of %d points did not run (see their error); the first, %s: %s\n",
					len(failed), len(s.Points), where, first.Err)
			}
			if err := reports.WriteSweep(cmd.OutOrStdout(), s, format); err != nil {
				return err
			}
			if plotTo == "" {
				return nil
			}
			fig, err := reports.SweepPlotData(s).Figure()
			if err != nil {
				return err
			}
			return reports.SaveFigure(plotTo, fig)
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&varies, "vary", nil, "FIELD=RANGE: a..b:step, a..b:xN or a,b,c; FIELD is kv, ctx or a --set path; repeatable, the first outermost")
	fl.StringSliceVar(&metrics, "metrics", nil, "result key paths to report, comma-separated (decode.tokens_per_s,memory.kv_l3_miss_rate)")
	fl.StringVar(&plotTo, "plot", "", "draw the metrics over the first --vary field into FILE.png, FILE.svg or FILE.pdf")
	return cmd
}

// checkOutput reads --format and checks a --plot path before anything
// runs, so a typo never costs a whole sweep.
func checkOutput(format, plot string) (reports.Format, error) {
	f, err := reports.ParseFormat(format)
	if err != nil {
		return "", inputErr(err)
	}
	if plot != "" {
		if err := checkPlotPath(plot); err != nil {
			return "", err
		}
	}
	return f, nil
}

// checkPlotPath rejects a --plot file before anything runs: an extension
// that names no format, or a directory that does not exist.
func checkPlotPath(path string) error {
	if _, err := reports.FigureFormat(path); err != nil {
		return inputErr(err)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return inputErrorf("--plot %s: no directory %s", path, dir)
	}
	return nil
}

// axis is one --vary flag: a field and the values it takes, in order, in
// SI base units.
type axis struct {
	field  string
	kind   units.Kind // 0 for plain numbers
	values []float64
}

// Pseudo-fields of --vary; everything else is a --set path.
const (
	fieldKV  = "kv"
	fieldCtx = "ctx"
)

// maxSweepPoints bounds a sweep: more points than this is a typo in a
// step more often than a plan.
const maxSweepPoints = 10000

const varyForms = "(forms: FIELD=a..b:step, FIELD=a..b:xN with N above 1, or FIELD=a,b,c; e.g. kv=1MiB..16MiB:1MiB, ctx=128..4096:x2, memory.l3.size=3MiB,6MiB,12MiB)"

// parseVaries reads every --vary flag and checks that they go together.
func parseVaries(flags []string) ([]axis, error) {
	if len(flags) == 0 {
		return nil, inputErrorf("--vary is required %s", varyForms)
	}
	var axes []axis
	seen := map[string]bool{}
	total := 1
	for _, s := range flags {
		a, err := parseVary(s)
		if err != nil {
			return nil, inputErr(err)
		}
		switch {
		case seen[a.field]:
			return nil, inputErrorf("--vary %s is given twice; give one range (a list a,b,c takes any values)", a.field)
		case a.field == fieldKV && seen[fieldCtx], a.field == fieldCtx && seen[fieldKV]:
			return nil, inputErrorf("--vary kv and --vary ctx both set the context length; vary one of them")
		}
		seen[a.field] = true
		if total *= len(a.values); total > maxSweepPoints {
			return nil, inputErrorf("--vary: the ranges give more than %d points together; use coarser steps or fewer fields", maxSweepPoints)
		}
		axes = append(axes, a)
	}
	return axes, nil
}

// parseVary reads one --vary FIELD=RANGE.
func parseVary(s string) (axis, error) {
	field, text, ok := strings.Cut(s, "=")
	field, text = strings.TrimSpace(field), strings.TrimSpace(text)
	if !ok || field == "" || text == "" {
		return axis{}, fmt.Errorf("--vary %q is not FIELD=RANGE %s", s, varyForms)
	}
	read := readQuantity
	switch field {
	case fieldKV:
		read = func(t string) (float64, units.Kind, error) {
			v, err := units.Parse(t, units.KindBytes)
			return v, units.KindBytes, err
		}
	case fieldCtx:
		read = readTokens
	}
	values, kind, err := parseRange(text, read)
	if err != nil {
		return axis{}, fmt.Errorf("--vary %s=%s: %v %s", field, text, err, varyForms)
	}
	if field == fieldCtx {
		values = wholeTokens(values)
	}
	return axis{field: field, kind: kind, values: values}, nil
}

// parseRange reads a..b:step, a..b:xN or a,b,c with read, which parses
// one value and names its kind (0 for a plain number).
func parseRange(text string, read func(string) (float64, units.Kind, error)) ([]float64, units.Kind, error) {
	from, rest, isRange := strings.Cut(text, "..")
	if !isRange {
		var values []float64
		var kinds []units.Kind
		for _, t := range strings.Split(text, ",") {
			v, k, err := read(t)
			if err != nil {
				return nil, 0, err
			}
			values, kinds = append(values, v), append(kinds, k)
		}
		if len(values) > maxSweepPoints {
			return nil, 0, fmt.Errorf("%d values; at most %d", len(values), maxSweepPoints)
		}
		kind, err := sameKind(kinds...)
		return values, kind, err
	}
	to, step, hasStep := strings.Cut(rest, ":")
	if !hasStep {
		return nil, 0, errors.New("a range needs a step")
	}
	a, ka, err := read(from)
	if err != nil {
		return nil, 0, err
	}
	b, kb, err := read(to)
	if err != nil {
		return nil, 0, err
	}
	if b < a {
		return nil, 0, errors.New("the range runs backwards: b must be at least a (a list a,b,c takes any order)")
	}
	if factor, ok := strings.CutPrefix(strings.TrimSpace(step), "x"); ok {
		n, err := strconv.ParseFloat(factor, 64)
		switch {
		case err != nil || !plainNumber.MatchString(factor):
			return nil, 0, fmt.Errorf("x%s: the factor must be a plain number", factor)
		case n <= 1:
			return nil, 0, fmt.Errorf("x%s: the factor must be above 1", factor)
		case a <= 0:
			return nil, 0, errors.New("a multiplicative range must start above 0")
		}
		kind, err := sameKind(ka, kb)
		if err != nil {
			return nil, 0, err
		}
		values, err := geometric(a, b, n)
		return values, kind, err
	}
	d, kd, err := read(step)
	if err != nil {
		return nil, 0, err
	}
	if d <= 0 {
		return nil, 0, errors.New("the step must be above 0")
	}
	kind, err := sameKind(ka, kb, kd)
	if err != nil {
		return nil, 0, err
	}
	values, err := arithmetic(a, b, d)
	return values, kind, err
}

// tolerance is how close, relative to b, the last point of a range must
// come to b to count as b: float steps drift (0.1 added ten times is not 1).
const tolerance = 1e-9

// arithmetic lists a, a+step, … up to b.
func arithmetic(a, b, step float64) ([]float64, error) {
	steps := math.Floor((b-a)/step + tolerance*math.Max(1, (b-a)/step))
	if steps+1 > maxSweepPoints {
		return nil, fmt.Errorf("more than %d points; use a larger step or xN", maxSweepPoints)
	}
	values := make([]float64, int(steps)+1)
	for i := range values {
		values[i] = tidy(a + float64(i)*step)
	}
	snap(values, b)
	return values, nil
}

// geometric lists a, a×n, a×n², … up to b.
func geometric(a, b, n float64) ([]float64, error) {
	var values []float64
	for i := 0; ; i++ {
		v := tidy(a * math.Pow(n, float64(i)))
		if v > b*(1+tolerance) {
			break
		}
		if len(values) == maxSweepPoints {
			return nil, fmt.Errorf("more than %d points; use a larger factor", maxSweepPoints)
		}
		values = append(values, v)
	}
	snap(values, b)
	return values, nil
}

// tidy rounds away float drift below the 15th significant digit, so that
// 0.1×3 is 0.3 and a --set value prints short.
func tidy(v float64) float64 {
	t, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	return t
}

// snap makes the last value b when it is b up to the tolerance.
func snap(values []float64, b float64) {
	last := &values[len(values)-1]
	if math.Abs(*last-b) <= tolerance*math.Abs(b) {
		*last = b
	}
}

// sameKind returns the kind of a range's values: the one kind among
// them, or 0 when all are plain numbers (a plain number among quantities
// is in the base unit, as everywhere).
func sameKind(kinds ...units.Kind) (units.Kind, error) {
	var k units.Kind
	for _, x := range kinds {
		switch {
		case x == 0:
		case k == 0:
			k = x
		case x != k:
			return 0, fmt.Errorf("the values mix units: %s and %s", k, x)
		}
	}
	return k, nil
}

var plainNumber = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

// readQuantity reads a value of a --set field: a plain number, or a
// quantity whose unit names its kind.
func readQuantity(t string) (float64, units.Kind, error) {
	t = strings.TrimSpace(t)
	if plainNumber.MatchString(t) {
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsInf(v, 0) {
			return 0, 0, fmt.Errorf("%q is out of range", t)
		}
		return v, 0, nil
	}
	for k := units.KindBytes; k <= units.KindFraction; k++ {
		if v, err := units.Parse(t, k); err == nil {
			return v, k, nil
		}
	}
	// The unit is known but the value is not allowed (0 GB/s): say so in
	// the words of its kind.
	sym := strings.TrimLeft(t, "+-0123456789.eE ")
	for k := units.KindBytes; k <= units.KindFraction; k++ {
		if _, err := units.Parse("1 "+sym, k); err == nil {
			_, err := units.Parse(t, k)
			return 0, 0, err
		}
	}
	return 0, 0, fmt.Errorf("%q is not a number or a quantity with a unit (such as 6MiB or 40GB/s)", t)
}

// readTokens reads a context length: a whole number of tokens, 0 or more.
func readTokens(t string) (float64, units.Kind, error) {
	t = strings.TrimSpace(t)
	n, err := strconv.Atoi(t)
	if err != nil || n < 0 {
		return 0, 0, fmt.Errorf("%q is not a context length: use a whole number of tokens such as 512", t)
	}
	return float64(n), 0, nil
}

// wholeTokens rounds a context range (xN makes fractions) and drops the
// repeats rounding makes.
func wholeTokens(values []float64) []float64 {
	var out []float64
	for _, v := range values {
		v = math.Round(v)
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

// sweepPoint is one combination of the varied values.
type sweepPoint struct {
	varied []float64 // one per axis
	sets   []string  // the flags' --set values, plus one per varied path
}

// runSweep checks every point's fields (so that a bad value stops the
// sweep before anything runs), then runs the points on all cores.
func runSweep(ctx context.Context, stderr io.Writer, f *runFlags, axes []axis, metrics []string) (*reports.Sweep, error) {
	s := &reports.Sweep{Metrics: metrics}
	for _, a := range axes {
		switch a.field {
		case fieldKV:
			s.Fields = append(s.Fields,
				reports.SweepField{Name: fieldKV, Label: "KV cache", Kind: units.KindBytes},
				reports.SweepField{Name: fieldCtx, Label: "context (tokens)", Derived: true})
		case fieldCtx:
			s.Fields = append(s.Fields, reports.SweepField{Name: fieldCtx, Label: "context (tokens)"})
		default:
			s.Fields = append(s.Fields, reports.SweepField{Name: a.field, Label: a.field, Kind: a.kind})
		}
	}

	var points []sweepPoint
	checked := map[string]bool{}
	idx := make([]int, len(axes))
	for more := true; more; more = turn(idx, axes) {
		p := sweepPoint{sets: slices.Clone(f.sets)}
		var names []string
		for k, a := range axes {
			v := a.values[idx[k]]
			p.varied = append(p.varied, v)
			if a.field != fieldKV && a.field != fieldCtx {
				set := a.field + "=" + formatValue(v, a.kind)
				p.sets = append(p.sets, set)
				names = append(names, set)
			}
		}
		points = append(points, p)
		// Points that differ only in kv or ctx load the same chip and
		// model: check each set of overrides once, and keep nothing (the
		// workers load their own copies, so no two runs share a chip).
		if key := strings.Join(p.sets, "\n"); len(names) > 0 && !checked[key] {
			checked[key] = true
			pf := *f
			pf.sets = p.sets
			if _, err := pf.config(pf.soc); err != nil {
				return nil, inputErrorf("--vary %s: %v", strings.Join(names, ", "), err)
			}
		}
	}

	results, err := runPoints(ctx, stderr, f, axes, s.Fields, points, metrics)
	if err != nil {
		return nil, err
	}
	s.Points = make([]reports.SweepPoint, len(points))
	for i, r := range results {
		s.Points[i] = reports.SweepPoint{Values: r.values, Metrics: r.metrics}
		if r.err != nil {
			s.Points[i].Metrics = make([]*float64, len(metrics))
			s.Points[i].Err = oneLine(r.err.Error())
		}
	}
	return s, nil
}

// turn advances idx, an odometer over the axes' values whose last digit
// turns fastest, and reports whether it has not come round to the start.
func turn(idx []int, axes []axis) bool {
	for k := len(axes) - 1; k >= 0; k-- {
		if idx[k]++; idx[k] < len(axes[k].values) {
			return true
		}
		idx[k] = 0
	}
	return false
}

// config loads the point's chip and model and sets its prompt for kv or
// ctx. It returns the point's values of the sweep's fields: the varied
// ones, with the derived context after kv.
func (p sweepPoint) config(f *runFlags, axes []axis) (sim.Config, []float64, error) {
	pf := *f
	pf.sets = p.sets
	cfg, err := pf.config(pf.soc)
	if err != nil {
		return sim.Config{}, nil, err
	}
	var values []float64
	for k, a := range axes {
		v := p.varied[k]
		values = append(values, v)
		switch a.field {
		case fieldKV:
			cfg.Prompt = cfg.Model.ContextForKV(cfg.KV, cfg.Batch, v)
			values = append(values, float64(cfg.Prompt))
		case fieldCtx:
			cfg.Prompt = int(v)
		}
	}
	return cfg, values, nil
}

// formatValue writes a value back as --set reads it, exactly.
func formatValue(v float64, k units.Kind) string {
	if k == 0 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return units.Format(v, k)
}

// pointResult is what one point gave: its field values, and its metrics
// or why it has none.
type pointResult struct {
	values  []float64
	metrics []*float64
	err     error
}

// runPoints runs the points on all cores (pool.ForEach), each
// loading its point's config and simulating it. Results go by index, so
// the output does not depend on the parallelism. An error that is not
// the point's own (see isPointError) stops the sweep.
func runPoints(ctx context.Context, stderr io.Writer, f *runFlags, axes []axis, fields []reports.SweepField, points []sweepPoint, metrics []string) ([]pointResult, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	results := make([]pointResult, len(points))
	run := func(i int) {
		r := &results[i]
		cfg, values, err := points[i].config(f, axes)
		if err != nil {
			cancel(inputErr(err)) // checked before the run: not expected
			return
		}
		r.values = values
		res, err := sim.Run(ctx, cfg)
		if err == nil {
			r.metrics, err = reports.MetricValues(res, metrics)
		}
		if r.err = err; err != nil && !isPointError(err) {
			cancel(fmt.Errorf("%s: %w", pointLabel(fields, values), err))
		}
	}
	pool.ForEach(ctx, stderr, "sweep", len(points), run)
	return results, context.Cause(ctx)
}

// isPointError reports whether err is about the point's inputs (the model
// does not fit, the unit cannot run it): the sweep reports it and goes on.
func isPointError(err error) bool {
	var ie *sim.InputError
	return errors.As(err, &ie)
}

// pointLabel names a point in messages: "kv=2 MiB, ctx=43".
func pointLabel(fields []reports.SweepField, values []float64) string {
	parts := make([]string, len(fields))
	for k, f := range fields {
		parts[k] = f.Name + "=" + reports.FormatValue(values[k], f.Kind)
	}
	return strings.Join(parts, ", ")
}
