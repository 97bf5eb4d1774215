package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/workloads"
)

// A serve scenario's requests arrive on their own — a Poisson process at
// the scenario's rate, drawn from the run's seed — each a fresh context,
// and wait for the unit. Without a batching policy they are served one at
// a time in order of arrival. Under continuous batching a request that
// finds a free slot is prefilled at the next step's boundary (the others
// wait for that pass) and decodes with the batch; under static batching
// the requests waiting when the unit is free are prefilled together,
// padded to the longest prompt, and decode together until the longest
// answer is done. A decode step runs the active sequences at their mean
// context: the KV bytes it reads and the attention it computes are those
// of their contexts summed. Arrivals stop at the scenario's duration; the
// unit serves what is left for at most as long again, and what it has not
// served by then is counted as unserved.

// request is one request of a serve scenario, as it goes.
type request struct {
	id          int
	arrive      float64 // run time it arrived
	prompt, gen int
	start       float64 // run time its prefill began
	first       float64 // run time its first token was sampled
	context     int     // tokens in its KV cache
	left        int     // answer tokens still to decode
}

// arrivals draws a serve scenario's requests: exponential gaps at its
// rate over its duration, lengths drawn as a chat's.
func arrivals(c *Config) []*request {
	sc := c.Scenario
	rng := rand.New(rand.NewPCG(c.Seed, 0x73657276)) // "serv"
	var out []*request
	for t := rng.ExpFloat64() / sc.Rate; t < c.Duration; t += rng.ExpFloat64() / sc.Rate {
		out = append(out, &request{id: len(out), arrive: t,
			prompt: sc.Length(sc.Prompt, rng.Float64()), gen: sc.Length(sc.Answer, rng.Float64())})
	}
	return out
}

// batching is the run's batching policy: the schedule's, or one request
// at a time.
func (c *Config) batching() Batching {
	if s := c.Schedule; s != nil && s.Batching != nil {
		return *s.Batching
	}
	return Batching{Max: 1, Mode: Continuous}
}

// server is a serve scenario in progress.
type server struct {
	s        *session
	policy   Batching
	reqs     []*request
	next     int        // the first request not yet admitted
	active   []*request // admitted, decoding
	waitedS  float64    // time the unit had no request
	seqStepS float64    // Σ sequences × step time, for the mean batch
}

// serve runs a serve scenario's requests and fills the session's turns,
// one a request served, in order of arrival.
func (e *engine) serve(ctx context.Context, s *session) (*ServeResult, error) {
	c := e.cfg
	v := &server{s: s, policy: c.batching(), reqs: arrivals(c)}
	if len(v.reqs) == 0 {
		return nil, spec.FieldErrorf("scenario", "no request of serve scenario %s arrives in %s at %g a second (seed %d): give a higher rate or a longer duration", c.Scenario.Name, units.Seconds(c.Duration), c.Scenario.Rate, c.Seed)
	}
	horizon := 2 * c.Duration
	defer func() { e.stepSeqs, e.stepTokens, e.stopAt = 0, 0, c.Duration }()
	if c.Scenario.ColdStart { // the first requests wait for the model to load
		e.coldLoad()
	}
	for e.clock < horizon && (v.next < len(v.reqs) || len(v.active) > 0) {
		if len(v.active) == 0 {
			r := v.reqs[v.next]
			wait := r.arrive
			if v.policy.Mode == Static {
				wait += float64(v.policy.Wait)
				if last := v.next + v.policy.Max - 1; last < len(v.reqs) {
					wait = min(wait, max(r.arrive, v.reqs[last].arrive))
				}
			}
			if wait > e.clock {
				v.waitedS += wait - e.clock
				e.idleAs("wait", wait-e.clock)
			}
		}
		switch {
		case v.policy.Mode == Static && len(v.active) == 0:
			v.admitTogether(e)
		case v.policy.Mode == Continuous:
			for v.next < len(v.reqs) && len(v.active) < v.policy.Max && v.reqs[v.next].arrive <= e.clock {
				v.admit(e, v.reqs[v.next])
			}
		}
		if err := v.decode(ctx, e, horizon); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(s.turns, func(a, b Turn) int { return a.Turn - b.Turn })
	return v.result(e), nil
}

// admit prefills one request alone, as continuous batching does when a
// slot is free.
func (v *server) admit(e *engine, r *request) {
	v.next++
	v.prefill(e, []*request{r}, r.prompt)
}

// admitTogether prefills the requests waiting now, up to the batch's
// most, as one pass padded to the longest prompt.
func (v *server) admitTogether(e *engine) {
	k := 0
	longest := 0
	for v.next+k < len(v.reqs) && k < v.policy.Max && v.reqs[v.next+k].arrive <= e.clock {
		longest = max(longest, v.reqs[v.next+k].prompt)
		k++
	}
	batch := v.reqs[v.next : v.next+k]
	v.next += k
	padded := e.st.paddedTokens
	v.prefill(e, batch, longest)
	chunks := e.st.paddedTokens - padded // a compiled prefill's padding, a sequence's
	e.st.paddedTokens = padded + chunks*k
	for _, r := range batch {
		e.st.paddedTokens += longest - r.prompt
	}
}

// prefill runs the prompts of batch, each tokens long after padding, as
// one pass, samples each one's first token and makes them active.
func (v *server) prefill(e *engine, batch []*request, tokens int) {
	c := e.cfg
	e.stepSeqs, e.stepTokens = len(batch), len(batch)
	work := workloads.Work{Phase: workloads.Prefill, Tokens: tokens, Batch: e.stepBatch(), Seed: c.Seed + uint64(batch[0].id)}
	start := e.clock
	if c.Scenario.Allocation == workloads.OnDemand {
		e.allocate(len(batch))
	}
	before := e.st.counters
	t := e.prefill(v.s.pass, requestName("prefill", batch[0].id, *c), work)
	sample := e.sample()
	e.advance(workloads.Prefill, workloads.Prefill.String(), e.st.counters.minus(before), t+sample)
	v.s.prefills = append(v.s.prefills, t)
	if len(v.s.prefills) == 1 {
		v.s.ttft = e.clock - start // with the allocation, where it is on demand
	}
	for _, r := range batch {
		r.start, r.first, r.context, r.left = start, e.clock, r.prompt, r.gen
		v.active = append(v.active, r)
	}
}

// decode runs the active sequences' steps until the first of those still
// answering is done or, under continuous batching with a slot free, the
// next request has arrived. Under static batching the answered ones stay
// in the batch, computed and thrown away, until the longest is done.
// Each request done is served.
func (v *server) decode(ctx context.Context, e *engine, horizon float64) error {
	n, answering, sum := 0, 0, 0
	for _, r := range v.active {
		sum += r.context
		if r.left > 0 {
			answering++
			if n == 0 || r.left < n {
				n = r.left
			}
		}
	}
	if answering == 0 {
		return nil
	}
	e.stopAt = horizon
	if v.policy.Mode == Continuous && len(v.active) < v.policy.Max && v.next < len(v.reqs) {
		e.stopAt = min(horizon, v.reqs[v.next].arrive)
	}
	e.stepSeqs, e.stepTokens = len(v.active), answering
	steps, err := e.decode(ctx, v.s.pass, int(math.Round(float64(sum)/float64(len(v.active)))), n)
	if err != nil {
		return err
	}
	for _, x := range steps {
		v.s.steps.add(x, answering)
		v.seqStepS += float64(answering) * x
	}
	kept, left := v.active[:0], 0
	for _, r := range v.active {
		r.context += len(steps)
		if r.left > 0 {
			r.left -= len(steps)
			if r.left == 0 {
				v.served(e, r, e.clock)
			}
		}
		if r.left > 0 || v.policy.Mode == Static {
			kept = append(kept, r)
		}
		left += r.left
	}
	v.active = kept
	if left == 0 {
		v.active = v.active[:0] // a static batch is done when its longest answer is
	}
	return nil
}

// served adds a request that is done as a turn: its wait in the queue,
// its prefill, and its decode among the others.
func (v *server) served(e *engine, r *request, done float64) {
	t := Turn{Turn: r.id + 1, StartS: r.arrive, Prompt: r.prompt, Answer: r.gen,
		Stages: []StageTime{{"queue", r.start - r.arrive}, {"prefill", r.first - r.start}, {"decode", done - r.first}},
		TTFTS:  r.first - r.arrive, TotalS: done - r.arrive}
	e.judgeBudget(&t)
	v.s.turns = append(v.s.turns, t)
}

// result is what the unit did with the requests.
func (v *server) result(e *engine) *ServeResult {
	c := e.cfg
	mode := v.policy.Mode
	if v.policy.Max == 1 {
		mode = "serial"
	}
	r := &ServeResult{Mode: mode, MaxBatch: v.policy.Max, RatePerS: c.Scenario.Rate,
		Arrived: len(v.reqs), Served: len(v.s.turns), Unserved: len(v.reqs) - len(v.s.turns)}
	if e.sched != nil && e.sched.s.Budget > 0 {
		e.sched.res.Turns += r.Unserved // none of them kept to the budget
	}
	if v.s.steps.sum > 0 {
		r.MeanBatch = v.seqStepS / v.s.steps.sum
	}
	if e.clock > 0 {
		r.BusyShare = 1 - v.waitedS/e.clock
	}
	if len(v.s.turns) > 0 {
		queue := make([]float64, len(v.s.turns))
		for i, t := range v.s.turns {
			queue[i] = t.Stages[0].Seconds
		}
		slices.Sort(queue)
		r.QueueS = Percentile{P50: ptr(percentile(queue, 0.50)), P99: ptr(percentile(queue, 0.99))}
	}
	return r
}

// Describe names the batching, for messages and reports.
func (r *ServeResult) Describe() string {
	switch r.Mode {
	case "serial":
		return "served one at a time"
	case Static:
		return fmt.Sprintf("static batches of up to %d", r.MaxBatch)
	}
	return fmt.Sprintf("continuous batching of up to %d", r.MaxBatch)
}
