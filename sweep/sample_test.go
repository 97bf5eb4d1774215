package sweep

import (
	"slices"
	"strings"
	"testing"
)

// TestLatinHypercube: N draws of a Latin hypercube put one draw in each
// of every axis's N strata; an axis of at least N values then gets N
// different values, spread over its whole range. The same seed draws the
// same points, another seed others; random draws stay in range.
func TestLatinHypercube(t *testing.T) {
	const n = 8
	s := Sample{Kind: SampleLHS, N: n, Seed: 1}
	for k, col := range transpose(s.units(4)) {
		var strata []int
		for _, u := range col {
			strata = append(strata, int(u*n))
		}
		slices.Sort(strata)
		if !slices.Equal(strata, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
			t.Errorf("axis %d: strata %v, want each of 0..7 once", k, strata)
		}
	}
	sizes := []int{32, 181, 16, 7}
	picks := s.picks(sizes)
	for k, size := range sizes[:3] {
		seen := map[int]bool{}
		for _, p := range picks {
			seen[p[k]*n/size] = true
		}
		if len(seen) != n {
			t.Errorf("axis %d (%d values): the picks fall in %d of %d strata", k, size, len(seen), n)
		}
	}
	if again := s.picks(sizes); !slices.EqualFunc(picks, again, slices.Equal) {
		t.Error("the same seed drew different points")
	}
	s.Seed = 2
	if other := s.picks(sizes); slices.EqualFunc(picks, other, slices.Equal) {
		t.Error("another seed drew the same points")
	}
	r := Sample{Kind: SampleRandom, N: 500, Seed: 3}
	for _, p := range r.picks(sizes) {
		for k, j := range p {
			if j < 0 || j >= sizes[k] {
				t.Fatalf("random draw %v out of range", p)
			}
		}
	}
}

func transpose(rows [][]float64) [][]float64 {
	out := make([][]float64, len(rows[0]))
	for _, r := range rows {
		for k, v := range r {
			out[k] = append(out[k], v)
		}
	}
	return out
}

func TestParseSample(t *testing.T) {
	if s, err := ParseSample("lhs:64", 7); err != nil || s != (Sample{Kind: SampleLHS, N: 64, Seed: 7}) || s.String() != "lhs:64" {
		t.Errorf("lhs:64: %+v, %v", s, err)
	}
	for _, bad := range []string{"lhs", "lhs:0", "grid:4", "random:x", "random:10001", ":4"} {
		if _, err := ParseSample(bad, 1); err == nil || !strings.Contains(err.Error(), "random:N or lhs:N") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
