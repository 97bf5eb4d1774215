package probe

import (
	"context"
	"math"
	"slices"
	"time"
)

// sample is the repetitions of one measurement: a rate (work per second)
// per repetition.
type sample []float64

// median is the value a record reports: robust to the odd repetition
// another process disturbed.
func (s sample) median() float64 {
	c := slices.Clone(s)
	slices.Sort(c)
	n := len(c)
	if n%2 == 1 {
		return c[n/2]
	}
	return (c[n/2-1] + c[n/2]) / 2
}

// stddev is the sample standard deviation (0 for one repetition).
func (s sample) stddev() float64 {
	if len(s) < 2 {
		return 0
	}
	var mean float64
	for _, v := range s {
		mean += v
	}
	mean /= float64(len(s))
	var ss float64
	for _, v := range s {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss / float64(len(s)-1))
}

// timing says how long a measurement runs: reps repetitions, each running
// the kernel until at least minRep has passed, after one untimed call
// unless cold (for buffers beyond the LLC, just written, whose pages are
// mapped and which no cache holds anyway).
type timing struct {
	reps   int
	minRep time.Duration
	cold   bool
}

// rates runs once to warm up (page faults, caches) unless tm.cold, then
// reps repetitions of run; each repetition calls run until minRep has passed and records
// the work done per second. run returns the work of one call. It stops
// with ctx's error between calls.
func rates(ctx context.Context, tm timing, run func() (float64, error)) (sample, error) {
	if !tm.cold {
		if _, err := run(); err != nil {
			return nil, err
		}
	}
	out := make(sample, 0, tm.reps)
	for range tm.reps {
		var work float64
		start := time.Now()
		for el := time.Duration(0); el == 0 || el < tm.minRep; {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			w, err := run()
			if err != nil {
				return nil, err
			}
			work += w
			el = time.Since(start)
		}
		out = append(out, work/time.Since(start).Seconds())
	}
	return out, ctx.Err()
}
