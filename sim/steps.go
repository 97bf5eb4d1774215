package sim

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"

	"github.com/edgetwin/edgetwin/workloads"
)

// Decode steps at tile fidelity are simulated in full for the first
// warmSteps, then one in every stride steps and the last; the steps between
// take the linear interpolation of their simulated neighbours (time and
// every counter), which is where a decode step's cost goes as the context
// grows by a token at a time. Their KV writes still reach the simulated L3,
// so later steps find the cache as it would be.
//
// The stride adapts: it starts at minStride and doubles (up to maxStride)
// while each simulated step lands within stepTolerance of the straight
// line through the two before it, and falls back to minStride when one
// does not, while the KV cache is within a quarter of a capacity it will
// cross (its SRAM share, the L3 ways it may use), and after the governor
// changes a clock: the places where a step's cost bends. TestStepReuse holds the difference to simulating
// every step under 1%.
const (
	warmSteps     = 2
	minStride     = 4
	maxStride     = 128
	stepTolerance = 1e-3
)

// reuses reports whether decode steps may be interpolated: at tile and
// analytic fidelity (where a step costs little, but a calibration fit
// runs thousands of decodes); not at line fidelity, the exact reference.
func (e *engine) reuses() bool { return e.cfg.takes(stepReuse) }

// simulated is one decode step simulated in full.
type simulated struct {
	index    int
	seconds  float64
	delta    counters
	fallback map[tallyKey]tally // the work off the unit it added
}

// decode runs gen decode steps after base tokens of context and returns
// each step's time.
func (e *engine) decode(ctx context.Context, pass func(string, workloads.Work) float64, base, gen int) ([]float64, error) {
	c := e.cfg
	e.stepBase = base
	steps := make([]float64, gen)
	var prev, last *simulated
	var skipped []int
	stride, next := minStride, 0
	capsSeen := e.heat.changes // a clock change ends a straight stretch
	for s := 0; s < gen; s++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Every step before this one is in the trace, shifted where it
		// ran after skipped steps; the skipped ones, and all that follows,
		// start at the clock or later.
		e.traceSettle(e.clock)
		work := workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: base + s, Batch: e.stepBatch(), Seed: c.Seed}
		// Once the governor is at work, clocks may move at any poll: no
		// step is skipped, so heat and clocks follow every step, and the
		// memo answers for the steps it can. The steps on either side of
		// a capacity edge are simulated, so that none is interpolated
		// across it.
		if e.reuses() && s >= warmSteps && s < next && s != gen-1 && !e.endsSoon(last, len(skipped)) && !e.heat.governing() && !e.pausing() && !e.crossesEdge(work.Context-1, work.Context+1) {
			e.touchKVWrites(work)
			skipped = append(skipped, s)
			continue
		}
		key := e.heat.key()
		mkey := e.memoKey(key)
		var cur *simulated
		if e.reuses() && s >= warmSteps && !e.nearCliff(work.Context) {
			cur = e.memo.at(mkey, work.Context, s, e.crossesEdge)
		}
		if cur != nil {
			// A step at these clocks and about this context ran before:
			// take its figures instead of simulating it again.
			for _, k := range skipped {
				steps[k] = e.interpolate(last, cur, k)
			}
			skipped = skipped[:0]
			e.touchKVWrites(work)
			steps[s] = e.interpolate(cur, cur, s)
		} else {
			before, fb := e.st.counters, e.st.offUnit.snapshot()
			mark, clock := e.trace.mark(), e.clock
			t := pass("decode "+strconv.Itoa(s), work) + e.sample()
			end := e.trace.mark()
			cur = &simulated{index: s, seconds: t, delta: e.st.counters.minus(before), fallback: e.st.offUnit.delta(fb)}
			if e.reuses() {
				e.memo.add(mkey, work.Context, cur)
			}
			// The pass recorded its bandwidth sample before the skipped steps
			// were known: put them first, then the step at its true start.
			sample := e.st.samples[len(e.st.samples)-1]
			e.st.samples = e.st.samples[:len(e.st.samples)-1]
			for _, k := range skipped {
				steps[k] = e.interpolate(last, cur, k)
			}
			skipped = skipped[:0]
			e.trace.shift(mark, end, e.clock-clock) // the step ran after the skipped ones
			sample.StartS = e.clock
			e.st.samples = append(e.st.samples, sample)
			e.advance(workloads.Decode, workloads.Decode.String(), cur.delta, t)
			e.noteStep(t, work.Context, key, true)
			steps[s] = t
		}
		if err := e.pauseAfter(s+1, steps, s); err != nil {
			return nil, err
		}
		if e.stopAt > 0 && e.clock >= e.stopAt {
			return steps[:s+1], nil // the session's time is up
		}
		if prev != nil && onLine(prev, last, cur) && !e.nearCliff(base+s) && e.heat.changes == capsSeen {
			stride = min(2*stride, maxStride)
		} else {
			stride = minStride
		}
		capsSeen = e.heat.changes
		prev, last, next = last, cur, s+stride
	}
	return steps, nil
}

// pausing reports whether a schedule may pause after any step: then no
// step is skipped, so that each is where the schedule decides.
func (e *engine) pausing() bool { return e.sched != nil && e.sched.s.pauses() }

// pauseAfter lets the schedule pause after the decode step steps[k], the
// turn's tokens-th token, and adds the pause to the step's latency.
func (e *engine) pauseAfter(tokens int, steps []float64, k int) error {
	d, err := e.pause(tokens, steps[k])
	if err != nil || d == 0 {
		return err
	}
	steps[k] += d
	e.steps.lengthenLast(d)
	return nil
}

// endsSoon reports whether a session's time runs out within the pending
// skipped steps and the next, at the last simulated step's pace: those
// are simulated, so the session stops at the step that crosses its end,
// as it would simulating every step.
func (e *engine) endsSoon(last *simulated, pending int) bool {
	return e.stopAt > 0 && last != nil && e.clock+float64(pending+2)*last.seconds >= e.stopAt
}

// noteStep keeps a decode step's time, context and clocks (heat.key),
// and whether it was simulated in full, for the spread's attribution and
// the sustained rate.
func (e *engine) noteStep(seconds float64, ctx int, key string, full bool) {
	e.noteContext(ctx + 1)
	e.steps.add(seconds, e.answering(), ctx, key, full)
}

// stepLog is what the result needs of a run's decode steps, in memory
// that grows with the steps simulated in full, not with every step: the
// spread reads the steps simulated in full (every step while fewer than
// minSpreadSteps are), the sustained rate the times of the last
// sustainedWindow of decoding.
type stepLog struct {
	full stepRecords // the steps simulated in full, in order
	// all is every step, in order, while fewer than minSpreadSteps were
	// simulated in full; empty once that many were (the spread reads
	// full then, whatever comes after).
	all      stepRecords
	tail     []float64 // the latest steps' times, covering twice sustainedWindow
	tailToks []int     // the tokens each of them made
	tailS    float64   // over tail
	lastFull bool      // whether the latest step was simulated in full
}

// stepRecords are decode steps' times, contexts and clocks.
type stepRecords struct {
	secs []float64
	ctxs []int
	keys []string
}

func (r *stepRecords) add(seconds float64, ctx int, key string) {
	r.secs, r.ctxs, r.keys = append(r.secs, seconds), append(r.ctxs, ctx), append(r.keys, key)
}

// add keeps a step, which made tokens tokens.
func (l *stepLog) add(seconds float64, tokens, ctx int, key string, full bool) {
	if full {
		l.full.add(seconds, ctx, key)
	}
	if len(l.full.secs) < minSpreadSteps {
		l.all.add(seconds, ctx, key)
	} else {
		l.all = stepRecords{}
	}
	l.lastFull = full
	l.tail, l.tailToks = append(l.tail, seconds), append(l.tailToks, tokens)
	l.tailS += seconds
	// Twice the window, so that rounding in the running sum never drops
	// a step the sustained rate's newest-first sum still reaches.
	for len(l.tail) > 1 && l.tailS-l.tail[0] >= 2*sustainedWindow {
		l.tailS -= l.tail[0]
		l.tail, l.tailToks = l.tail[1:], l.tailToks[1:]
	}
}

// lengthenLast adds d seconds to the latest step (a schedule's pause).
func (l *stepLog) lengthenLast(d float64) {
	if l.lastFull {
		l.full.secs[len(l.full.secs)-1] += d
	}
	if n := len(l.all.secs); n > 0 {
		l.all.secs[n-1] += d
	}
	l.tail[len(l.tail)-1] += d
	l.tailS += d
}

// spreadSteps are the steps the spread reads: those simulated in full
// when there are enough of them, else every step.
func (l *stepLog) spreadSteps() stepRecords {
	if len(l.full.secs) < minSpreadSteps {
		return l.all
	}
	return l.full
}

// stepMemo keeps the decode steps a run simulated in full, by the clocks
// they ran at (heat.key) and their context, so that a later step at the
// same clocks and a context between two of them — in a later request of a
// session, or after the governor moved a clock and back — takes their
// interpolation instead of a simulation. The cache state is not part of
// the key: in steady decode it is a function of the context, and the
// first warmSteps of each request, where it is not, are always simulated.
type stepMemo map[string][]memoStep

type memoStep struct {
	context int
	step    *simulated
}

// memoSpan is the widest gap in context between two remembered steps the
// memo interpolates across: twice the widest stride, so the remembered
// steps of a straight stretch serve every step between them.
const memoSpan = 8 * maxStride

// The memo extends the line of two steps at one clock setting when they
// are at least memoMinGap tokens apart, up to memoReach times that gap
// beyond them: closer steps, or further, would magnify their noise. (A
// remembered step taken as it is a few tokens away was tried and moved a
// throttled session's rate by 3%.)
const (
	memoMinGap = 8
	memoReach  = 4
)

// add remembers a simulated step at context ctx under key.
func (m stepMemo) add(key string, ctx int, s *simulated) {
	list := m[key]
	i, found := slices.BinarySearchFunc(list, ctx, func(a memoStep, c int) int { return cmp.Compare(a.context, c) })
	if found {
		list[i].step = s
		return
	}
	m[key] = slices.Insert(list, i, memoStep{context: ctx, step: s})
}

// at returns step index's figures at context ctx under key: the linear
// interpolation of the remembered steps on either side, when both exist
// within memoSpan, or the extension of the two below it (see memoMinGap);
// else nil. Neither reaches across a capacity edge (crosses reports one
// between two contexts): a step's cost jumps there.
func (m stepMemo) at(key string, ctx, index int, crosses func(a, b int) bool) *simulated {
	list := m[key]
	i, found := slices.BinarySearchFunc(list, ctx, func(a memoStep, c int) int { return cmp.Compare(a.context, c) })
	if found {
		return list[i].step.at(list[i].step, 0, index)
	}
	if i > 0 && i < len(list) && list[i].context-list[i-1].context <= memoSpan && !crosses(list[i-1].context, list[i].context) {
		a, b := list[i-1], list[i]
		w := float64(ctx-a.context) / float64(b.context-a.context)
		return a.step.at(b.step, w, index)
	}
	if i >= 2 {
		// Beyond the steps below: a step's cost grows linearly with its
		// context away from the capacity edges (nearCliff), so extend the
		// line from the latest step at least memoMinGap before the last,
		// but not far.
		b := list[i-1]
		j := i - 2
		for j > 0 && b.context-list[j].context < memoMinGap {
			j--
		}
		a := list[j]
		gap := b.context - a.context
		if ctx-b.context <= min(memoReach*gap, memoSpan/2) && gap >= memoMinGap && gap <= memoSpan && !crosses(a.context, ctx) {
			w := float64(ctx-a.context) / float64(b.context-a.context)
			return a.step.at(b.step, w, index)
		}
	}
	return nil
}

// at is the step (1−w)·a + w·b, as step index.
func (a *simulated) at(b *simulated, w float64, index int) *simulated {
	s := &simulated{index: index, seconds: (1-w)*a.seconds + w*b.seconds, fallback: between(a.fallback, b.fallback, w)}
	s.delta.add(a.delta, 1-w)
	s.delta.add(b.delta, w)
	return s
}

// kvEdges are the KV sizes (all layers) at which a decode step's cost
// bends or jumps: its resident SRAM share, and that plus the L3 ways it
// may allocate into; 0 where there is none. Every decode step asks, so it
// allocates nothing.
func (e *engine) kvEdges() [2]float64 {
	resident := e.kvResident * float64(e.cfg.Model.Layers)
	edges := [2]float64{resident}
	if e.sharesL3 && e.requests[classKV].Allocate {
		edges[1] = resident + e.waysBytes(classKV)
	}
	return edges
}

// kvAt is the KV cache's size (all layers) at context ctx, over the
// sequences the steps run.
func (e *engine) kvAt(ctx int) float64 {
	return e.cfg.Model.KVBytes(e.cfg.KV, ctx) * float64(e.stepBatch())
}

// stepBatch is the batch a decode step runs: the run's, or under a serve
// scenario the sequences active, as the runtime's graphs run them.
func (e *engine) stepBatch() int {
	if e.stepSeqs > 0 {
		return e.cfg.compiledBatch(e.stepSeqs)
	}
	return e.cfg.runBatch()
}

// answering is how many sequences a step makes a token for: the run's
// batch, or under a serve scenario those still answering.
func (e *engine) answering() int {
	if e.stepSeqs > 0 {
		return e.stepTokens
	}
	return e.cfg.Batch
}

// memoKey is the key the step memo keeps a step under: its clocks
// (heat.key), and under a serve scenario the batch it ran.
func (e *engine) memoKey(clocks string) string {
	if e.stepSeqs > 0 {
		return clocks + "|batch " + strconv.Itoa(e.stepBatch())
	}
	return clocks
}

// nearCliff reports whether the KV cache at context ctx is within a
// quarter of a capacity it fills (kvEdges).
func (e *engine) nearCliff(ctx int) bool {
	kv := e.kvAt(ctx)
	for _, edge := range e.kvEdges() {
		if edge > 0 && math.Abs(kv-edge) < edge/4 {
			return true
		}
	}
	return false
}

// crossesEdge reports whether a capacity edge (kvEdges) lies between the
// KV caches at contexts a and b.
func (e *engine) crossesEdge(a, b int) bool {
	lo, hi := e.kvAt(min(a, b)), e.kvAt(max(a, b))
	for _, edge := range e.kvEdges() {
		if edge > 0 && lo < edge && edge <= hi {
			return true
		}
	}
	return false
}

// onLine reports whether step c lies on the line through a and b: its time
// and its DRAM and L3-miss traffic within stepTolerance.
func onLine(a, b, c *simulated) bool {
	at := func(x, y float64) float64 {
		return x + (y-x)*float64(c.index-a.index)/float64(b.index-a.index)
	}
	near := func(x, y, z float64) bool {
		want := at(x, y)
		return math.Abs(z-want) <= stepTolerance*math.Max(math.Abs(want), 1e-12)
	}
	var missA, missB, missC float64
	for k := range a.delta.missLines[workloads.Decode] {
		missA += a.delta.missLines[workloads.Decode][k]
		missB += b.delta.missLines[workloads.Decode][k]
		missC += c.delta.missLines[workloads.Decode][k]
	}
	return near(a.seconds, b.seconds, c.seconds) &&
		near(a.delta.dramBytes, b.delta.dramBytes, c.delta.dramBytes) &&
		near(missA, missB, missC)
}

// interpolate adds skipped step k, between simulated steps a and b, to the
// counters and the bandwidth samples, and returns its time.
func (e *engine) interpolate(a, b *simulated, k int) float64 {
	var w float64
	if b.index != a.index {
		w = float64(k-a.index) / float64(b.index-a.index)
	}
	t := (1-w)*a.seconds + w*b.seconds
	var d counters
	d.add(a.delta, 1-w)
	d.add(b.delta, w)
	e.st.counters.add(d, 1)
	e.st.offUnit.add(between(a.fallback, b.fallback, w))
	dram, l3 := d.dramBytes, d.l3HitBytes
	name := "decode " + strconv.Itoa(k) + " (interpolated)"
	e.trace.span("passes", name, "pass", e.clock, e.clock+t, nil)
	e.addSample(BandwidthSample{
		Pass: name, StartS: e.clock, Seconds: t,
		DRAMUtil: ratio(dram, float64(e.cfg.Chip.Memory.DRAM.Bandwidth)*t),
		L3Util:   ratio(l3, e.l3BW*t),
	})
	e.advance(workloads.Decode, workloads.Decode.String(), d, t)
	e.noteStep(t, e.stepBase+k, e.heat.key(), false)
	return t
}

// touchKVWrites brings a skipped step's new K and V into the L3, as the
// step would have, without counting or timing anything. When the step's
// KV reads are a scan, the next step simulated in full (a later one, so
// a scan too: the context only grows) empties the KV's ways before it
// reads anything, so the writes would leave no trace and are not made.
// (Where a request ends on remembered steps, the next prefill misses a
// few steps' writes in an L3 it sweeps anyway: the KV miss rate of a
// 30-minute sustained session moved by 0.003% when this was added.) The
// analytic fidelity estimates the L3 instead of simulating it: no touch.
func (e *engine) touchKVWrites(w workloads.Work) {
	if e.l3c == nil || !e.requests[classKV].Allocate || e.scans(w) {
		return
	}
	e.work = w
	ops := e.lower(w)
	for i := range ops {
		if ops[i].Kind != workloads.KindAttention {
			continue
		}
		spans, _ := e.kvSpans(&ops[i], nil)
		for _, s := range spans {
			if s.write {
				e.cachePages(s.addr, int64(s.bytes), e.requests[classKV])
			}
		}
	}
}

// minSpreadSteps is the fewest steps simulated in full the spread is
// measured on.
const minSpreadSteps = 8

// spread attributes the variance of the decode steps' times to the
// context (a line through the steps), the clocks (a mean per clock
// setting) and, what a fit of both leaves, everything else. It
// reads the steps simulated in full when there are enough of them: an
// interpolated step lies on a line by construction and would hide the
// scatter of MoE routing.
func (e *engine) spread() Spread {
	st := e.steps.spreadSteps()
	secs, ctxs, keys := st.secs, st.ctxs, st.keys
	n := len(secs)
	if n < 2 {
		return Spread{}
	}
	var mean float64
	for _, t := range secs {
		mean += t
	}
	mean /= float64(n)
	var total float64
	for _, t := range secs {
		total += (t - mean) * (t - mean)
	}
	sp := Spread{StdMs: math.Sqrt(total/float64(n)) * 1e3}
	if total == 0 {
		return sp
	}
	// Residual sum of squares of t = a_g + b·ctx, with one intercept per
	// group of steps and a common slope: the least-squares fit.
	rss := func(group func(i int) string, slope bool) float64 {
		type acc struct{ n, x, y float64 }
		g := map[string]*acc{}
		for i := range n {
			k := group(i)
			if g[k] == nil {
				g[k] = &acc{}
			}
			g[k].n++
			g[k].x += float64(ctxs[i])
			g[k].y += secs[i]
		}
		var sxy, sxx float64
		for i := range n {
			a := g[group(i)]
			dx, dy := float64(ctxs[i])-a.x/a.n, secs[i]-a.y/a.n
			sxy += dx * dy
			sxx += dx * dx
		}
		var b float64
		if slope {
			b = ratio(sxy, sxx)
		}
		var r float64
		for i := range n {
			a := g[group(i)]
			d := secs[i] - a.y/a.n - b*(float64(ctxs[i])-a.x/a.n)
			r += d * d
		}
		return r
	}
	// What each fit explains: the context alone, the clocks alone (a mean
	// per setting), both. The two are correlated — clocks fall as the
	// context grows — so each gets the mean of what it adds first and what
	// it adds second (their Shapley values).
	key := func(i int) string { return keys[i] }
	ctxAlone := total - rss(func(int) string { return "" }, true)
	clkAlone := total - rss(key, false)
	both := math.Max(math.Max(ctxAlone, clkAlone), total-rss(key, true))
	sp.ContextShare = (ctxAlone + both - clkAlone) / 2 / total
	sp.ClockShare = (clkAlone + both - ctxAlone) / 2 / total
	sp.OtherShare = 1 - both/total
	return sp
}
