package sweep

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// Sample draws N points of a space too large for a grid, each axis's
// value by index into its values.
type Sample struct {
	// Kind is SampleRandom or SampleLHS.
	Kind string
	N    int
	Seed uint64
}

// Sampling kinds.
const (
	// SampleRandom draws each axis's value uniformly and independently.
	SampleRandom = "random"
	// SampleLHS draws a Latin hypercube: each axis's range is cut into N
	// equal strata and every stratum is drawn once, so N points cover
	// every axis evenly however many axes there are.
	SampleLHS = "lhs"
)

// ParseSample reads --sample: random:N or lhs:N with 1 ≤ N ≤ MaxPoints;
// seed makes the draw repeatable (the run's --seed).
func ParseSample(s string, seed uint64) (Sample, error) {
	kind, n, ok := strings.Cut(s, ":")
	count, err := strconv.Atoi(n)
	if !ok || (kind != SampleRandom && kind != SampleLHS) || err != nil || count < 1 || count > MaxPoints {
		return Sample{}, spec.FieldErrorf("sample", "%q is not allowed: use random:N or lhs:N (a Latin hypercube), 1 ≤ N ≤ %d", s, MaxPoints)
	}
	return Sample{Kind: kind, N: count, Seed: seed}, nil
}

// String writes the sample as --sample takes it.
func (s Sample) String() string { return fmt.Sprintf("%s:%d", s.Kind, s.N) }

// picks returns, for each of the sample's N points, the index into each
// axis's values; sizes are the axes' lengths. The same sample and sizes
// give the same picks on every machine.
func (s Sample) picks(sizes []int) [][]int {
	u := s.units(len(sizes))
	out := make([][]int, s.N)
	for i := range out {
		out[i] = make([]int, len(sizes))
		for k, size := range sizes {
			out[i][k] = min(size-1, int(u[i][k]*float64(size)))
		}
	}
	return out
}

// units draws the sample's points in the unit cube of axes dimensions:
// for a Latin hypercube, each axis's N strata [j/N, (j+1)/N) hold one
// draw each.
func (s Sample) units(axes int) [][]float64 {
	rng := rand.New(rand.NewPCG(s.Seed, 0x5eed))
	out := make([][]float64, s.N)
	for i := range out {
		out[i] = make([]float64, axes)
	}
	for k := range axes {
		var strata []int
		if s.Kind == SampleLHS {
			strata = rng.Perm(s.N)
		}
		for i := range out {
			u := rng.Float64()
			if strata != nil {
				u = (float64(strata[i]) + u) / float64(s.N)
			}
			out[i][k] = u
		}
	}
	return out
}
