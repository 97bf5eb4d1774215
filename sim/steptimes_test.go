package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestStepTimesMatchTheList: the summary gives what the list of step times
// gives — count, sum, the first ten seconds' steps, nearest-rank
// percentiles — exactly while it keeps every step, and the percentiles to
// within half a bin once it bins them.
func TestStepTimesMatchTheList(t *testing.T) {
	defer func(n int) { exactSteps = n }(exactSteps)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, keep := range []int{1 << 20, 500} {
		exactSteps = keep
		var s stepTimes
		var list []float64
		for range 20_000 {
			x := 0.02 + 0.03*rng.Float64()*rng.Float64() // 20–50 ms, skewed
			s.add(x, 1)
			list = append(list, x)
		}
		if s.n != len(list) || s.sum != sum(list) {
			t.Fatalf("keep %d: %d steps summing to %v, the list %d to %v", keep, s.n, s.sum, len(list), sum(list))
		}
		var n10 int
		for t10 := 0.0; n10 < len(list) && t10+list[n10] <= first10s; n10++ {
			t10 += list[n10]
		}
		if s.n10 != n10 {
			t.Errorf("keep %d: %d steps in the first ten seconds, the list %d", keep, s.n10, n10)
		}
		sorted := slices.Clone(list)
		slices.Sort(sorted)
		got := s.percentiles(0.5, 0.99, 0, 1)
		for i, q := range []float64{0.5, 0.99, 0, 1} {
			want := percentile(sorted, q)
			tol := 0.0
			if keep < len(list) {
				tol = binWidth / 2 * want
			}
			if math.Abs(got[i]-want) > tol*1.0001 {
				t.Errorf("keep %d: p%g %.9f, the list's %.9f (tolerance %.2g)", keep, 100*q, got[i], want, tol)
			}
		}
		if binned := s.bins != nil; binned != (keep < len(list)) || binned && s.exact != nil {
			t.Errorf("keep %d: binned %v with %d steps kept", keep, binned, len(s.exact))
		}
	}
}

// TestStepTimesStayBounded: past exactSteps the summary's memory goes with
// the range of the times, not their count — a million steps between 20
// and 40 ms fill at most ln 2 / ln(1 + 1e-4) ≈ 6,932 bins.
func TestStepTimesStayBounded(t *testing.T) {
	defer func(n int) { exactSteps = n }(exactSteps)
	exactSteps = 1000
	var s stepTimes
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1_000_000 {
		s.add(0.02*(1+rng.Float64()), 1)
	}
	if n := len(s.bins); n > 6933 || s.exact != nil {
		t.Errorf("%d bins and %d kept steps for a million steps in one octave", n, len(s.exact))
	}
}
