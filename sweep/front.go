package sweep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// Objective is one axis of a Pareto front: an expression over a point's
// result and fields, and whether more of it is better.
type Objective struct {
	Text     string // the expression, as given
	Maximize bool
}

// String gives the objective as --pareto reads it: "max:decode.tokens_per_s".
func (o Objective) String() string {
	if o.Maximize {
		return "max:" + o.Text
	}
	return "min:" + o.Text
}

// ParseObjectives reads --pareto: two or three objectives, each min:EXPR or
// max:EXPR, separated by commas ("min:ttft_s,max:decode.tokens_per_s").
// A comma splits objectives only where min: or max: follows it, so an
// expression may call max(a, b).
func ParseObjectives(text string) ([]Objective, error) {
	var parts []string
	rest := text
	for {
		cut := -1
		for i := 0; i < len(rest); i++ {
			if rest[i] != ',' {
				continue
			}
			next := strings.TrimLeft(rest[i+1:], " ")
			if strings.HasPrefix(next, "min:") || strings.HasPrefix(next, "max:") {
				cut = i
				break
			}
		}
		if cut < 0 {
			parts = append(parts, rest)
			break
		}
		parts = append(parts, rest[:cut])
		rest = rest[cut+1:]
	}
	var out []Objective
	for _, p := range parts {
		p = strings.TrimSpace(p)
		dir, text, ok := strings.Cut(p, ":")
		if !ok || (dir != "min" && dir != "max") {
			return nil, spec.FieldErrorf("pareto", "%q: %q has no direction: write min:EXPR or max:EXPR, e.g. 'min:ttft_s,max:decode.tokens_per_s'", text, p)
		}
		if strings.TrimSpace(text) == "" {
			return nil, spec.FieldErrorf("pareto", "%q: %s: has no expression", text, dir)
		}
		o := Objective{Text: strings.TrimSpace(text), Maximize: dir == "max"}
		if slices.ContainsFunc(out, func(x Objective) bool { return x.Text == o.Text }) {
			return nil, spec.FieldErrorf("pareto", "%q names %s twice", text, o.Text)
		}
		out = append(out, o)
	}
	if len(out) < 2 || len(out) > 3 {
		hint := ""
		if len(out) == 1 && strings.Contains(out[0].Text, ",") {
			hint = " (each objective starts with min: or max:)"
		}
		return nil, spec.FieldErrorf("pareto", "%q has %d objective(s)%s: give two or three, e.g. 'min:ttft_s,max:decode.tokens_per_s'", text, len(out), hint)
	}
	return out, nil
}

// Front returns the indices of the rows of values that no other row
// dominates, in the order of values. Row a dominates row b when it is at
// least as good in every objective and better in one; maximize[k] says
// whether more of objective k is better. Rows equal in every objective do
// not dominate each other: all of them are on the front. It costs
// O(n² × objectives).
func Front(values [][]float64, maximize []bool) []int {
	// better is how much a is better than b in objective k (>0: a is).
	better := func(a, b []float64, k int) float64 {
		if maximize[k] {
			return a[k] - b[k]
		}
		return b[k] - a[k]
	}
	dominates := func(a, b []float64) bool {
		strict := false
		for k := range maximize {
			d := better(a, b, k)
			if d < 0 {
				return false
			}
			if d > 0 {
				strict = true
			}
		}
		return strict
	}
	var front []int
	for i, v := range values {
		if len(v) != len(maximize) {
			panic(fmt.Sprintf("sweep: row %d has %d objectives, not %d", i, len(v), len(maximize)))
		}
		dominated := false
		for j, w := range values {
			if j != i && dominates(w, v) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, i)
		}
	}
	return front
}

// Pass reports whether a point ran and meets every requirement.
func (p Point) Pass() bool { return p.Err == "" && len(p.Unmet) == 0 }

// Front lists the indices in Points of the sweep's Pareto front over its
// Objectives: among the points that pass and have every objective, those
// no other dominates, in range order. Nil without objectives.
func (r *Result) Front() []int {
	if len(r.Objectives) == 0 {
		return nil
	}
	maximize := make([]bool, len(r.Objectives))
	for k, o := range r.Objectives {
		maximize[k] = o.Maximize
	}
	var rows [][]float64
	var at []int
	for i, p := range r.Points {
		if !p.Pass() || slices.Contains(p.Objectives, nil) {
			continue
		}
		row := make([]float64, len(p.Objectives))
		for k, v := range p.Objectives {
			row[k] = *v
		}
		rows, at = append(rows, row), append(at, i)
	}
	front := Front(rows, maximize)
	for k, j := range front {
		front[k] = at[j]
	}
	return front
}

// OnFront returns the sweep reduced to its Pareto front (a copy sharing
// the points). Without objectives it returns r.
func (r *Result) OnFront() *Result {
	if len(r.Objectives) == 0 {
		return r
	}
	out := *r
	out.Points = nil
	for _, i := range r.Front() {
		out.Points = append(out.Points, r.Points[i])
	}
	return &out
}
