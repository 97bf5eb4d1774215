package advisor

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// tieTolerance is how close, relative to their size, two objective values
// must be to count as a tie, which spec dominance then breaks.
const tieTolerance = 1e-9

// rank orders the rows: passing chips first by the objective, then
// failing ones by the number of requirements they fail and then by the
// objective; chips without an objective value last in their group. Ties
// go to the chip whose spec dominates, then to the order given. Ranks
// start at 1.
func (p *Plan) rank(rows []Row, specs []map[string]any) []Row {
	better := func(a, b *float64) int { // <0 when a ranks first
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return 1
		case b == nil:
			return -1
		case p.req.Maximize:
			return cmp.Compare(*b, *a)
		}
		return cmp.Compare(*a, *b)
	}
	group := func(r Row) int {
		if r.Pass {
			return 0
		}
		return 1 + r.Failed
	}
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b Row) int {
		if c := cmp.Compare(group(a), group(b)); c != 0 {
			return c
		}
		if c := better(a.Objective, b.Objective); c != 0 {
			return c
		}
		return cmp.Compare(a.index, b.index)
	})
	// Runs of tied rows: same group, objectives within the tolerance of
	// the run's first.
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && group(out[j]) == group(out[i]) && tied(out[i].Objective, out[j].Objective) {
			j++
		}
		if j-i > 1 {
			byDominance(out[i:j], specs)
		}
		i = j
	}
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// tied reports whether two objective values count as equal.
func tied(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Abs(*a-*b) <= tieTolerance*math.Max(math.Abs(*a), math.Abs(*b))
}

// byDominance orders tied rows: repeatedly the first (in the order given)
// that no remaining row dominates.
func byDominance(rows []Row, specs []map[string]any) {
	rest := slices.Clone(rows)
	slices.SortStableFunc(rest, func(a, b Row) int { return cmp.Compare(a.index, b.index) })
	for k := range rows {
		pick := 0
		for c := range rest {
			dominated := false
			for o := range rest {
				if o != c && Dominates(Figures(specs[rest[o].index]), Figures(specs[rest[c].index])) {
					dominated = true
					break
				}
			}
			if !dominated {
				pick = c
				break
			}
		}
		rows[k] = rest[pick]
		rest = slices.Delete(rest, pick, pick+1)
	}
}

// Figures are the spec figures dominance compares, higher being better:
// DRAM bandwidth and capacity, L3 size, and each dtype's best peak over
// the chip's units.
func Figures(specTree map[string]any) map[string]float64 {
	f := map[string]float64{}
	for _, p := range []string{"memory.dram.bandwidth", "memory.dram.capacity", "memory.l3.size"} {
		if v := number(specTree, p); v != nil {
			f[p] = *v
		}
	}
	us, _ := lookup(specTree, "units")
	if m, ok := us.(map[string]any); ok {
		for _, u := range m {
			um, _ := u.(map[string]any)
			peaks, _ := um["peak"].(map[string]any)
			for dt, v := range peaks {
				if x, ok := v.(float64); ok {
					key := "peak." + dt
					f[key] = math.Max(f[key], x)
				}
			}
		}
	}
	return f
}

// Dominates reports whether figures a are at least b's in every figure
// either has (a missing figure counts as 0) and above in one.
func Dominates(a, b map[string]float64) bool {
	above := false
	for _, k := range unionKeys(a, b) {
		switch {
		case a[k] < b[k]:
			return false
		case a[k] > b[k]:
			above = true
		}
	}
	return above
}

func unionKeys(a, b map[string]float64) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// ParetoInput is one point for Front: lower cost and higher value are
// better.
type ParetoInput struct {
	Cost, Value float64
}

// Front returns the indices of the points no other point dominates (at
// most the cost and at least the value, better in one), by rising cost
// and then falling value; equal points are all on the front.
func Front(pts []ParetoInput) []int {
	var front []int
	for i, p := range pts {
		dominated := false
		for j, q := range pts {
			if j != i && q.Cost <= p.Cost && q.Value >= p.Value && (q.Cost < p.Cost || q.Value > p.Value) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, i)
		}
	}
	slices.SortStableFunc(front, func(a, b int) int {
		if c := cmp.Compare(pts[a].Cost, pts[b].Cost); c != 0 {
			return c
		}
		return cmp.Compare(pts[b].Value, pts[a].Value)
	})
	return front
}

// The Pareto plane: price against sustained decode tokens/s where every
// chip's run gives it (a run of 2 minutes or more, with the thermal
// model's clocks), else against decode tokens/s.
const (
	paretoCost      = "chip.price_usd"
	paretoSustained = "thermal.sustained_tokens_per_s"
	paretoDecode    = "decode.tokens_per_s"
)

// pareto lays the ranked chips on the price/throughput plane, by price.
func pareto(rows []Row) Pareto {
	p := Pareto{CostKey: paretoCost, ValueKey: paretoSustained,
		Note: "sustained tokens/s, from the thermal model"}
	ran := 0
	for _, r := range rows {
		if r.Result == nil {
			continue
		}
		ran++
		if number(r.env, paretoSustained) == nil {
			p.ValueKey = paretoDecode
			p.Note = "decode tokens/s, as the runs give no sustained rate; that needs a run of 2 minutes or more"
			break
		}
	}
	if ran == 0 {
		p.ValueKey = paretoDecode
		p.Note = "decode tokens/s"
	}
	var in []ParetoInput
	var at []int // the point each of in is
	for _, r := range rows {
		var why []string
		if r.PriceUSD <= 0 {
			why = append(why, "no price")
		}
		v := number(r.env, p.ValueKey)
		if v == nil {
			if r.Result == nil {
				why = append(why, "did not run")
			} else {
				why = append(why, "no "+p.ValueKey)
			}
		}
		if len(why) > 0 {
			p.Left = append(p.Left, r.SoC+" ("+strings.Join(why, ", ")+")")
			continue
		}
		p.Points = append(p.Points, ParetoPoint{SoC: r.SoC, Cost: r.PriceUSD, Value: *v, Pass: r.Pass})
		if r.Pass { // a chip that fails a requirement is no choice: the front is of those that pass
			in = append(in, ParetoInput{Cost: r.PriceUSD, Value: *v})
			at = append(at, len(p.Points)-1)
		}
	}
	for _, i := range Front(in) {
		p.Points[at[i]].OnFront = true
	}
	slices.SortStableFunc(p.Points, func(a, b ParetoPoint) int {
		if c := cmp.Compare(a.Cost, b.Cost); c != 0 {
			return c
		}
		return cmp.Compare(b.Value, a.Value)
	})
	return p
}
