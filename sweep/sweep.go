package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/numfmt"
	"github.com/edgetwin/edgetwin/internal/pool"
	"github.com/edgetwin/edgetwin/sim"
)

// Result is what a sweep found: one point per combination of the varied
// fields, in range order with the first field outermost.
type Result struct {
	SoC, Model, Quant string // what ran, for titles
	// Fields are the input columns: the varied fields in the order given,
	// each followed by the fields derived from it (ctx after kv).
	Fields []Field
	// Metrics are result key paths (decode.tokens_per_s), as given.
	Metrics []string
	// Requires are the --require expressions every point is checked
	// against, as given; Objectives those of the Pareto front (--pareto).
	Requires   []string
	Objectives []Objective
	Points     []Point
	// L3Bytes is the chip's L3 size when no field varies it, so that a
	// figure of a swept KV cache marks where the cache outgrows the L3;
	// 0 for none.
	L3Bytes float64
}

// Title names what the sweep ran: "seed-moe-3b Q4_0 on seed-c", with the
// list of a varied model or quant in its place ("llama-3.1-8b (Q4_0,
// Q8_0) on apple-m2").
func (r *Result) Title() string {
	model, quant := r.Model, r.Quant
	for _, f := range r.Fields {
		switch list := "(" + strings.Join(f.Choices, ", ") + ")"; f.Name {
		case "model":
			model = list
		case "quant":
			quant = list
		}
	}
	return fmt.Sprintf("%s %s on %s", model, quant, r.SoC)
}

// Failed lists the indices in Points of the points that have no result.
func (r *Result) Failed() []int {
	var failed []int
	for i, p := range r.Points {
		if p.Err != "" {
			failed = append(failed, i)
		}
	}
	return failed
}

// Field is one input column of a sweep.
type Field struct {
	Name  string     // as given to --vary (kv, memory.l3.size), or the derived field's
	Label string     // what an axis calls it, without the unit: "KV cache"
	Kind  units.Kind // of the values; 0 for plain numbers (context lengths, ways)
	// Derived fields follow from another field (the context a KV-cache
	// size gives); plots draw no separate line for them.
	Derived bool
	// Choices are the names a field of names takes (quant, model,
	// runtime); a point's value is the index of its choice.
	Choices []string
}

// Text is value v of the field as people read it: its choice, or the
// number in readable units.
func (f Field) Text(v float64) string {
	if f.Choices != nil {
		return f.choice(v)
	}
	return numfmt.Value(v, f.Kind)
}

// JSON is value v of the field as JSON: its choice as a string, or the
// number in SI base units.
func (f Field) JSON(v float64) string {
	if f.Choices != nil {
		b, _ := json.Marshal(f.choice(v))
		return string(b)
	}
	b, err := json.Marshal(v)
	if err != nil { // not finite: a sweep's values never are
		return "null"
	}
	return string(b)
}

// same reports whether two fields are one: name, label, kind and choices.
func (f Field) same(g Field) bool {
	return f.Name == g.Name && f.Label == g.Label && f.Kind == g.Kind && f.Derived == g.Derived && slices.Equal(f.Choices, g.Choices)
}

// choice is the name at index v, or "?" for an index the field has not.
func (f Field) choice(v float64) string {
	if i := int(v); float64(i) == v && i >= 0 && i < len(f.Choices) {
		return f.Choices[i]
	}
	return "?"
}

// Point is one simulation of a sweep.
type Point struct {
	Index   int        // in range order over the whole sweep
	Values  []float64  // one per field, in SI base units
	Metrics []*float64 // one per metric; nil where the result has no figure
	// Err says why the point has no result ("does not fit: ..."); its
	// metrics are then all nil.
	Err string
	// Unmet says, for each requirement the point does not meet, why
	// ("ttft_s < 0.5 is false"); empty when it meets them all.
	Unmet []string
	// Objectives are the values of the Pareto front's objectives, one
	// each; nil where an objective reads a null figure.
	Objectives []*float64
}

// Sweep is a sweep to run: its axes, what to read from each run, and how
// to load a point's configuration. The caller owns flags and output.
type Sweep struct {
	Axes    []Axis
	Metrics []string
	// Sets are the --set overrides every point starts from; a point adds
	// one per varied --set path.
	Sets []string
	// Load builds the configuration of a run with these overrides. Its
	// errors are the user's input.
	Load func(sets []string) (sim.Config, error)
	// Measure reads the metrics from a result; nil for a null figure.
	Measure func(r *sim.Result, metrics []string) ([]*float64, error)
	// Progress, when a terminal, shows a progress bar.
	Progress io.Writer
	// Sample, when set, runs Sample.N points drawn from the axes instead
	// of their grid; point i is then the i-th draw.
	Sample *Sample
	// Judge, when set, checks a point against the requirements and
	// evaluates the front's objectives, from its result (nil when the
	// point did not run, with runErr saying why) and its field values.
	// Its error stops the sweep.
	Judge func(res *sim.Result, values []float64, runErr string) (unmet []string, objectives []*float64, err error)

	picks [][]int // the sample's draws, once computed
	once  sync.Once
}

// Len is the number of points: the product of the axes' lengths, or the
// sample's size.
func (s *Sweep) Len() int {
	if s.Sample != nil {
		return s.Sample.N
	}
	n := 1
	for _, a := range s.Axes {
		n *= len(a.Values)
	}
	return n
}

// Fields lists the sweep's input columns, ctx after kv.
func (s *Sweep) Fields() []Field {
	var fields []Field
	for _, a := range s.Axes {
		switch a.Field {
		case FieldKV:
			fields = append(fields,
				Field{Name: FieldKV, Label: "KV cache", Kind: units.KindBytes},
				Field{Name: FieldCtx, Label: "context (tokens)", Derived: true})
		case FieldCtx:
			fields = append(fields, Field{Name: FieldCtx, Label: "context (tokens)"})
		default:
			fields = append(fields, Field{Name: a.Field, Label: a.Field, Kind: a.Kind, Choices: a.Choices})
		}
	}
	return fields
}

// point is one combination of the varied values.
type point struct {
	varied []float64 // one per axis
	sets   []string  // the sweep's --set values, plus one per varied path
	names  []string  // the varied --set values alone, for messages
}

// key names the point's overrides: points with one key load the same
// configuration.
func (p point) key() string { return strings.Join(p.sets, "\n") }

// point returns the i-th combination in range order (the last axis
// turns fastest), or the sample's i-th draw.
func (s *Sweep) point(i int) point {
	p := point{varied: make([]float64, len(s.Axes)), sets: slices.Clone(s.Sets)}
	if s.Sample != nil {
		s.once.Do(func() {
			sizes := make([]int, len(s.Axes))
			for k, a := range s.Axes {
				sizes[k] = len(a.Values)
			}
			s.picks = s.Sample.picks(sizes)
		})
		for k, a := range s.Axes {
			p.varied[k] = a.Values[s.picks[i][k]]
		}
	} else {
		for k := len(s.Axes) - 1; k >= 0; k-- {
			a := s.Axes[k]
			p.varied[k] = a.Values[i%len(a.Values)]
			i /= len(a.Values)
		}
	}
	for k, a := range s.Axes {
		if a.Field != FieldKV && a.Field != FieldCtx {
			value := formatValue(p.varied[k], a.Kind)
			if a.Choices != nil {
				value = a.Choices[int(p.varied[k])]
			}
			set := a.Field + "=" + value
			p.sets = append(p.sets, set)
			p.names = append(p.names, set)
		}
	}
	return p
}

// config loads the point's chip and model and sets its prompt for kv or
// ctx. It returns the point's values of the sweep's fields: the varied
// ones, with the derived context after kv.
func (s *Sweep) config(p point, loaded map[string]sim.Config) (sim.Config, []float64, error) {
	cfg, ok := loaded[p.key()]
	if !ok {
		var err error
		if cfg, err = s.Load(p.sets); err != nil {
			return sim.Config{}, nil, err
		}
	}
	var values []float64
	for k, a := range s.Axes {
		v := p.varied[k]
		values = append(values, v)
		switch a.Field {
		case FieldKV:
			cfg.Prompt = cfg.Model.ContextForKV(cfg.KV, cfg.Batch, v)
			values = append(values, float64(cfg.Prompt))
		case FieldCtx:
			cfg.Prompt = int(v)
		}
	}
	return cfg, values, nil
}

// Run runs the points whose indices are given (in range order; all of
// them for the whole sweep) on all cores and returns them in that order.
// It first checks every point's overrides, so that a bad value stops the
// sweep before anything runs. A point whose own inputs cannot run (the
// model does not fit) keeps its error in Err and the sweep goes on; any
// other error stops it. emit, when not nil, receives each point in order
// as soon as it and every point before it are done, so a stream keeps
// what was computed.
func (s *Sweep) Run(ctx context.Context, indices []int, emit func(Point) error) ([]Point, error) {
	points := make([]point, len(indices))
	// Points that differ only in kv or ctx load the same chip and model.
	// Each set of overrides is loaded once here, so that a bad value stops
	// the sweep before anything runs, and the first keepLoaded of them are
	// kept for the points that use them: a run reads its chip and model
	// and never changes them (sim copies what a runtime changes), so
	// points may share one.
	loaded := map[string]sim.Config{}
	checked := map[string]bool{}
	for j, i := range indices {
		if i < 0 || i >= s.Len() {
			return nil, fmt.Errorf("sweep: point %d of %d", i, s.Len())
		}
		p := s.point(i)
		points[j] = p
		key := p.key()
		if checked[key] {
			continue
		}
		checked[key] = true
		cfg, err := s.Load(p.sets)
		if err != nil {
			if len(p.names) > 0 {
				return nil, spec.FieldErrorf("vary", "%s: %s", strings.Join(p.names, ", "), spec.Bare(err))
			}
			return nil, spec.Errorf("%v", err)
		}
		if len(loaded) < keepLoaded {
			loaded[key] = cfg
		}
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	out := make([]Point, len(indices))
	var (
		mu   sync.Mutex
		done = make([]bool, len(indices))
		next int // the first point not yet emitted
	)
	fields := s.Fields()
	run := func(j int) {
		r := &out[j]
		r.Index = indices[j]
		cfg, values, err := s.config(points[j], loaded)
		if err != nil {
			cancel(spec.Errorf("%v", err)) // checked before the run: not expected
			return
		}
		r.Values = values
		res, err := sim.Run(ctx, cfg)
		if err == nil {
			r.Metrics, err = s.Measure(res, s.Metrics)
		}
		if err != nil {
			if !IsPointError(err) {
				cancel(fmt.Errorf("%s: %w", label(fields, values), err))
				return
			}
			r.Metrics = make([]*float64, len(s.Metrics))
			r.Err = spec.OneLine(err.Error())
			res = nil
		}
		if s.Judge != nil {
			if r.Unmet, r.Objectives, err = s.Judge(res, values, r.Err); err != nil {
				cancel(fmt.Errorf("%s: %w", label(fields, values), err))
				return
			}
		}
		if emit == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for done[j] = true; next < len(done) && done[next]; next++ {
			if err := emit(out[next]); err != nil {
				cancel(err)
				return
			}
		}
	}
	pool.ForEach(ctx, s.Progress, "sweep", len(indices), run)
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return out, nil
}

// keepLoaded is how many loaded configurations a sweep keeps from its
// check for the points to run on (the rest load again): a bound on the
// memory a large sweep holds (a load of seed-c allocates about 330 kB,
// BenchmarkLoadChip; what a kept chip retains is less).
const keepLoaded = 256

// IsPointError reports whether err is about a run's own inputs (the model
// does not fit, the unit cannot run it): a sweep or comparison reports it
// for that point and goes on.
func IsPointError(err error) bool {
	var ie *spec.Error
	return errors.As(err, &ie)
}

// label names a point in messages: "kv=2 MiB, ctx=43".
func label(fields []Field, values []float64) string {
	parts := make([]string, len(fields))
	for k, f := range fields {
		v := formatValue(values[k], 0)
		switch {
		case f.Choices != nil:
			v = f.choice(values[k])
		case f.Kind != 0:
			v = units.Approx(values[k], f.Kind)
		}
		parts[k] = f.Name + "=" + v
	}
	return strings.Join(parts, ", ")
}

// Label names a point in messages: "kv=2 MiB, ctx=43".
func Label(fields []Field, values []float64) string {
	parts := make([]string, len(fields))
	for k, f := range fields {
		parts[k] = f.Name + "=" + f.Text(values[k])
	}
	return strings.Join(parts, ", ")
}

// RunAll simulates each configuration on the one worker pool (progress on
// stderr under label), results by index so the output does not depend on
// the parallelism. A configuration whose inputs cannot run (IsPointError)
// keeps the reason in its place and a nil result; any other error stops
// the rest and is returned, naming the chip.
func RunAll(ctx context.Context, stderr io.Writer, label string, cfgs []sim.Config) ([]*sim.Result, []string, error) {
	results := make([]*sim.Result, len(cfgs))
	why := make([]string, len(cfgs))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	pool.ForEach(ctx, stderr, label, len(cfgs), func(i int) {
		r, err := sim.Run(ctx, cfgs[i])
		switch {
		case err == nil:
			results[i] = r
		case IsPointError(err):
			why[i] = spec.OneLine(err.Error())
		default:
			cancel(fmt.Errorf("%s: %w", cfgs[i].Chip.ID, err))
		}
	})
	return results, why, context.Cause(ctx)
}
