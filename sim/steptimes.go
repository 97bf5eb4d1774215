package sim

import (
	"math"
	"slices"
)

// stepTimes summarises a session's decode step times for its result in
// memory that stops growing: the count and the sum, the steps of the first
// ten seconds of decoding, and the percentiles — exact while the session
// has taken at most exactSteps steps, from then on read from a histogram
// of bins binWidth wide (relative), whose number is bounded by the range of
// the times, not their count.
type stepTimes struct {
	n   int
	sum float64 // in the order the steps came, as summing their list would
	// tokens are the tokens the steps made: a token a sequence a step.
	tokens int
	// first10 is the time, count and tokens of the steps that fit in the
	// first ten seconds; full once one did not.
	first10  float64
	n10      int
	tokens10 int
	full10   bool
	exact    []float64     // every step, while n <= exactSteps
	bins     map[int32]int // the steps by bin once n > exactSteps
	min, max float64
}

// exactSteps is how many step times a session keeps before it bins them:
// 8 MiB, some 58 hours of decoding at 5 tokens a second. A variable so a
// test can lower it.
var exactSteps = 1 << 20

// binWidth is the relative width of a histogram bin: a percentile read
// from the bins is within 0.005% of the exact one.
const binWidth = 1e-4

// add takes the next step's time, in seconds, and the sequences it made
// a token for.
func (s *stepTimes) add(seconds float64, seqs int) {
	s.n++
	s.sum += seconds
	s.tokens += seqs
	if !s.full10 {
		if s.first10+seconds > first10s {
			s.full10 = true
		} else {
			s.first10 += seconds
			s.n10++
			s.tokens10 += seqs
		}
	}
	if s.n == 1 || seconds < s.min {
		s.min = seconds
	}
	if s.n == 1 || seconds > s.max {
		s.max = seconds
	}
	if s.bins == nil && s.n <= exactSteps {
		s.exact = append(s.exact, seconds)
		return
	}
	if s.bins == nil {
		s.bins = map[int32]int{}
		for _, x := range s.exact {
			s.bins[binOf(x)]++
		}
		s.exact = nil
	}
	s.bins[binOf(seconds)]++
}

// binOf is the histogram bin of a step time.
func binOf(seconds float64) int32 {
	if seconds <= 0 {
		return math.MinInt32
	}
	return int32(math.Floor(math.Log(seconds) / math.Log1p(binWidth)))
}

// percentiles returns the nearest-rank percentiles qs of the steps, in
// seconds: exact from the kept steps, else the geometric middle of the
// bin the rank falls in (clamped to the least and greatest step).
func (s *stepTimes) percentiles(qs ...float64) []float64 {
	out := make([]float64, len(qs))
	if s.n == 0 {
		return out
	}
	if s.bins == nil {
		sorted := slices.Clone(s.exact)
		slices.Sort(sorted)
		for i, q := range qs {
			out[i] = percentile(sorted, q)
		}
		return out
	}
	keys := make([]int32, 0, len(s.bins))
	for k := range s.bins {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, q := range qs {
		r, seen := nearestRank(q, s.n), 0
		for _, k := range keys {
			seen += s.bins[k]
			if seen > r {
				mid := 0.0 // the bin of steps that took no time
				if k != math.MinInt32 {
					mid = math.Pow(1+binWidth, float64(k)+0.5)
				}
				out[i] = math.Min(s.max, math.Max(s.min, mid))
				break
			}
		}
	}
	return out
}
