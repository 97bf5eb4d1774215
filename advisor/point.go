package advisor

import (
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/sweep"
)

// The expressions of a sweep (--require, --pareto) compile here, with the
// same language and checks as advise's, against another environment: the
// simulate result's keys and, under vary., the sweep's fields by their
// names as given to --vary (vary.kv, vary.ctx, vary.memory.l3.size), in
// SI base units. A field sits under vary. rather than at the top because
// its name may start with a result key (model.kv_heads; the result's
// model is a name).

// varyKey is where a sweep point's fields sit in its environment.
const varyKey = "vary"

// PointEnv is the environment of the expressions of a sweep: the result's
// keys and the named fields under vary.
type PointEnv struct {
	env      *Env
	fields   []sweep.Field
	template map[string]any // a result's tree, for the null tree of a point that did not run
}

// NewPointEnv builds the environment of a sweep whose points have these
// fields. Two fields whose names nest (memory.l3 and memory.l3.size)
// cannot both be numbers: that is an error.
func NewPointEnv(fields []sweep.Field) (*PointEnv, error) {
	template := resultTemplate()
	example := resultTemplate()
	vary := map[string]any{}
	for _, f := range fields {
		var v any = 0.0
		if f.Choices != nil {
			v = "" // a field of names (vary.quant == "Q8_0")
		}
		if err := put(vary, f.Name, v); err != nil {
			return nil, err
		}
	}
	example[varyKey] = vary
	names := make([]string, len(fields))
	for k, f := range fields {
		names[k] = f.Name
	}
	e := &Env{example: example, known: map[string]bool{}, kinds: map[string]units.Kind{},
		names: "the keys of the simulate result, as its JSON prints them, and the varied fields under vary.: " + varyNames(names)}
	leaves, inner := paths(example)
	for _, p := range append(leaves, inner...) {
		e.known[p] = true
	}
	e.leaves = leaves
	return &PointEnv{env: e, fields: fields, template: template}, nil
}

// varyNames lists the fields as expressions name them.
func varyNames(fields []string) string {
	names := make([]string, len(fields))
	for k, f := range fields {
		names[k] = varyKey + "." + f
	}
	return strings.Join(names, ", ")
}

// put sets the value at a dotted path of a tree, making the maps on the
// way.
func put(m map[string]any, path string, v any) error {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p]
		if !ok {
			sub := map[string]any{}
			m[p], next = sub, sub
		}
		sub, ok := next.(map[string]any)
		if !ok {
			return spec.FieldErrorf("vary", "%s: %s.%s is already a field", path, varyKey, p)
		}
		m = sub
	}
	last := parts[len(parts)-1]
	if _, ok := m[last].(map[string]any); ok {
		return spec.FieldErrorf("vary", "%s: fields %s.%s.… are varied too; vary one or the other", path, varyKey, path)
	}
	m[last] = v
	return nil
}

// Requirement compiles a --require expression: a condition on the
// environment's names.
func (pe *PointEnv) Requirement(text string) (*Requirement, error) {
	return pe.env.compileRequirement(text)
}

// Objective compiles an expression that gives a number (an objective of a
// Pareto front); field names the setting that gave it in messages.
func (pe *PointEnv) Objective(field, text string) (*Expr, error) {
	return pe.env.compileObjective(field, text)
}

// Point is the environment of one sweep point: its result's tree (nil
// when the point did not run) and its field values, one per field of the
// PointEnv.
func (pe *PointEnv) Point(r *sim.Result, values []float64) (map[string]any, error) {
	var tree map[string]any
	if r != nil {
		var err error
		if tree, err = resultTree(r); err != nil {
			return nil, err
		}
	} else {
		tree = nullTree(pe.template, "", "", "")
	}
	vary := map[string]any{}
	for k, f := range pe.fields {
		var v any = values[k]
		if f.Choices != nil {
			v = f.Text(values[k])
		}
		if err := put(vary, f.Name, v); err != nil {
			return nil, err
		}
	}
	tree[varyKey] = vary
	return tree, nil
}

// Check evaluates a requirement on a point's environment. It returns ""
// when the requirement holds, else why not in one phrase: the clauses
// that are false, or the null figure it needs ("requires ttft_s, which is
// null for kv=2 MiB: the chip did not run"). where names the point and
// runErr says why it did not run, if it did not.
func (req *Requirement) Check(env map[string]any, where, runErr string) string {
	c := checkRequirement(req, env, where, runErr)
	if c.Pass {
		return ""
	}
	return c.failure()
}

// Value evaluates an objective on a point's environment: nil, with the
// reason, when it reads a null figure or cannot be evaluated.
func (x *Expr) Value(env map[string]any, where, runErr string) (*float64, string) {
	if ns := nulls(x.Refs, env); len(ns) > 0 {
		return nil, nullReason(ns[0], where, runErr)
	}
	v, err := runFloat(x.prog, env)
	if err != nil {
		return nil, x.Text + " " + err.Error()
	}
	return &v, ""
}

// SweepJudge compiles the sweep's --require and --pareto expressions
// against the result's keys and the fields under vary., and returns the
// function that checks and measures each point; nil when there are none.
func SweepJudge(r *sweep.Result) (func(*sim.Result, []float64, string) ([]string, []*float64, error), error) {
	if len(r.Requires) == 0 && len(r.Objectives) == 0 {
		return nil, nil
	}
	pe, err := NewPointEnv(r.Fields)
	if err != nil {
		return nil, err
	}
	var reqs []*Requirement
	for _, text := range r.Requires {
		q, err := pe.Requirement(text)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, q)
	}
	var objs []*Expr
	for _, o := range r.Objectives {
		x, err := pe.Objective("pareto", o.Text)
		if err != nil {
			return nil, err
		}
		objs = append(objs, x)
	}
	fields := r.Fields
	return func(res *sim.Result, values []float64, runErr string) ([]string, []*float64, error) {
		env, err := pe.Point(res, values)
		if err != nil {
			return nil, nil, err
		}
		where := sweep.Label(fields, values)
		var unmet []string
		for _, q := range reqs {
			if why := q.Check(env, where, runErr); why != "" {
				unmet = append(unmet, why)
			}
		}
		vals := make([]*float64, len(objs))
		for k, x := range objs {
			vals[k], _ = x.Value(env, where, runErr)
		}
		return unmet, vals, nil
	}, nil
}
