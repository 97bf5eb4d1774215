package thermal

import (
	"fmt"
	"math"
)

// TimeToReach returns the first time t ≥ 0, in seconds, at which node's
// temperature reaches limit (T ≥ limit) when the network starts at t0 and
// dissipates constant power p, or +Inf if it never does. It is 0 when t0 is
// already at or above the limit.
//
// The simulator uses it to schedule a trip point as an event instead of
// polling for it. The answer is exact to rounding: T(t) is a sum of
// exponentials, T∞ + Σ cₖ e^(−λₖt); the search brackets its first crossing
// with bounds that hold on whole intervals (each term is monotone), so it
// cannot step over a crossing that a coarse scan would miss, then closes the
// bracket to a few ulps with the Illinois variant of regula falsi. A
// temperature that merely touches the limit tangentially may be reported as
// never reaching it. Advance(nil, t0, p, t)[node] ≥ limit at the returned
// time, to rounding.
//
// It panics when t0 or p has the wrong length, node is out of range or
// limit is NaN.
func (n *Network) TimeToReach(t0 State, p []float64, node int, limit float64) float64 {
	return n.crossing(t0, p, node, limit, 1)
}

// TimeToFall is TimeToReach for cooling: the first time node's temperature
// falls to limit or below (T ≤ limit), or +Inf. The simulator uses it for
// the moment a throttled zone drops below its trip minus hysteresis.
func (n *Network) TimeToFall(t0 State, p []float64, node int, limit float64) float64 {
	return n.crossing(t0, p, node, limit, -1)
}

// expSum is g(t) = sign·(T(t) − limit) written as Ta' + Σ lₖ (z∞ₖ + e^(−λₖt) dₖ),
// the same arithmetic Advance does for one node, so that a time at which
// g ≥ 0 is one at which Advance agrees.
type expSum struct {
	sign, limit, ambient float64
	l, zInf, d, lambda   []float64
}

func (e *expSum) temp(t float64) float64 {
	var y float64
	for k, lk := range e.l {
		y += lk * (e.zInf[k] + math.Exp(-e.lambda[k]*t)*e.d[k])
	}
	return e.ambient + y
}

func (e *expSum) val(t float64) float64 { return e.sign * (e.temp(t) - e.limit) }

// bounds returns an upper bound of g on [a, b] and lower and upper bounds of
// its derivative there. Each term lₖ dₖ e^(−λₖt) and its derivative is
// monotone in t, so its extremes on the interval are at the ends.
func (e *expSum) bounds(a, b float64) (gHi, dLo, dHi float64) {
	var steady float64
	for k, lk := range e.l {
		steady += lk * e.zInf[k]
		c := e.sign * lk * e.d[k]
		if c == 0 {
			continue
		}
		ea, eb := math.Exp(-e.lambda[k]*a), math.Exp(-e.lambda[k]*b)
		gHi += max(c*ea, c*eb)
		da, db := -e.lambda[k]*c*ea, -e.lambda[k]*c*eb
		dLo += min(da, db)
		dHi += max(da, db)
	}
	gHi += e.sign * (e.ambient + steady - e.limit)
	// Rounding in the sum is far below this margin; it keeps a crossing
	// that sits exactly on a bound from being pruned.
	gHi += 1e-12 * (1 + math.Abs(e.limit))
	return gHi, dLo, dHi
}

func (n *Network) crossing(t0 State, p []float64, node int, limit, sign float64) float64 {
	n.check(t0, "state")
	n.check(p, "power")
	size := len(n.names)
	if node < 0 || node >= size {
		panic(fmt.Sprintf("thermal: node %d out of range [0, %d)", node, size))
	}
	if math.IsNaN(limit) {
		panic("thermal: temperature limit is NaN")
	}
	var buf [3 * maxStack]float64
	var store []float64
	if size <= maxStack {
		store = buf[:3*size]
	} else {
		store = make([]float64, 3*size)
	}
	e := &expSum{
		sign: sign, limit: limit, ambient: n.ambient,
		l:      n.left[node*size : (node+1)*size],
		zInf:   store[:size],
		d:      store[size : 2*size],
		lambda: n.lambda,
	}
	for k := 0; k < size; k++ {
		r := n.right[k*size : (k+1)*size]
		lt := n.leftT[k*size : (k+1)*size]
		var z0, q float64
		for j := 0; j < size; j++ {
			z0 += r[j] * (t0[j] - n.ambient)
			q += lt[j] * p[j]
		}
		e.zInf[k] = q / n.lambda[k]
		e.d[k] = z0 - e.zInf[k]
	}
	if sign*(t0[node]-limit) >= 0 || e.val(0) >= 0 {
		return 0
	}
	// Intervals [0, h], [h, 2h], [2h, 4h], … up to where the slowest mode
	// has decayed by e^-40: the fast modes get fine intervals early, the
	// slow ones coarse intervals late, so the bounds are tight everywhere.
	lamMax, lamMin := n.lambda[size-1], n.lambda[0]
	h := 0.25 / lamMax
	end := 40 / lamMin
	budget := 4096
	a := 0.0
	for b := h; ; b *= 2 {
		if t, ok := e.search(a, b, 0, &budget); ok {
			return t
		}
		a = b
		if a >= end {
			break
		}
	}
	// Past the tail every mode has decayed to rounding: the node sits at its
	// steady temperature, which either lies strictly beyond the limit (the
	// crossing is in the far tail) or never gets there.
	if e.val(math.Inf(1)) <= 0 {
		return math.Inf(1)
	}
	for i := 0; i < 64; i++ {
		b := 2 * a
		if t, ok := e.search(a, b, 0, &budget); ok {
			return t
		}
		a = b
	}
	return math.Inf(1)
}

// search finds the first t in [a, b] with g(t) ≥ 0, given g(a) < 0.
func (e *expSum) search(a, b float64, depth int, budget *int) (float64, bool) {
	*budget--
	gHi, dLo, dHi := e.bounds(a, b)
	if gHi < 0 {
		return 0, false
	}
	gb := e.val(b)
	switch {
	case dLo >= 0: // non-decreasing: at most one crossing, at b's side
		if gb >= 0 {
			return e.solve(a, b, gb), true
		}
		return 0, false
	case dHi <= 0: // non-increasing from g(a) < 0
		return 0, false
	case depth >= 80 || *budget <= 0 || b-a <= 4*eps*b:
		if gb >= 0 {
			return b, true
		}
		return 0, false
	}
	m := 0.5 * (a + b)
	if t, ok := e.search(a, m, depth+1, budget); ok {
		return t, true
	}
	return e.search(m, b, depth+1, budget)
}

const eps = 0x1p-52

// solve closes the bracket [a, b], g(a) < 0 ≤ g(b), g monotone, with the
// Illinois variant of regula falsi, and returns its upper end, where
// g ≥ 0.
func (e *expSum) solve(lo, hi, gHi float64) float64 {
	gLo := e.val(lo)
	side := 0
	for i := 0; i < 200 && hi-lo > 4*eps*hi; i++ {
		x := (lo*gHi - hi*gLo) / (gHi - gLo)
		if !(x > lo && x < hi) {
			x = 0.5 * (lo + hi)
		}
		gx := e.val(x)
		if gx >= 0 {
			hi, gHi = x, gx
			if side == 1 {
				gLo /= 2
			}
			side = 1
			if gx == 0 {
				break
			}
		} else {
			lo, gLo = x, gx
			if side == -1 {
				gHi /= 2
			}
			side = -1
		}
	}
	return hi
}
