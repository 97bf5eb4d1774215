package sim

import (
	"math"
	"slices"

	"github.com/edgetwin/edgetwin/sim/des"
	"github.com/edgetwin/edgetwin/workloads"
)

// run runs the planned operators of one pass on the event kernel and
// returns the simulated seconds it took.
//
// The operators' tiles form one stream, as in a compiled graph: the DMA
// engine fetches tile j as soon as a buffer is free (tile j−buffers has
// been computed), even when tile j belongs to the next operator, while the
// unit dispatches each operator and then computes its tiles in order,
// waiting whenever the next tile has not arrived. An operator the unit
// does not support runs on the CPU instead: its activations are copied out
// through DRAM and back, around a hand-off in each direction.
func (v events) run(ops []workloads.Op, plans []opPlan) float64 {
	e := v.e
	start := e.sim.Now()
	s := &stream{e: e, ops: ops, plans: plans, idleSince: start, tiles: e.tileBuf[:0]}
	s.finishFn, s.dispatchedFn = s.finish, s.dispatchDone
	e.spanBuf = e.spanBuf[:0]
	s.issue()
	s.next()
	if !e.sim.RunBefore(des.Seconds(maxSimSeconds)) {
		// The pass would run past what simulated time holds: the run
		// is refused (Run's overflowed), whatever the pending events.
		e.tileBuf = s.tiles[:0]
		return math.Inf(1)
	}
	e.tileBuf = s.tiles[:0]
	return (e.sim.Now() - start).Seconds()
}

// streamTile is a tile and the operator it belongs to.
type streamTile struct {
	tile
	op       int
	first    bool // the operator's first tile: the unit dispatches it first
	fallback bool // the operator runs on the CPU
	loaded   bool
}

type stream struct {
	e     *engine
	ops   []workloads.Op
	plans []opPlan
	tiles []streamTile // cut lazily, tile by tile, as DMA reaches them

	lowered int // operators whose cutting began
	// cutting is the operator being cut, while it has tiles left (cut
	// and next say which): tiles a leap skips are never cut.
	cutting    *opPlan
	cut        opCut
	issued     int // tiles whose DMA has started
	computed   int // tiles computed
	buffered   int // tiles issued, not yet computed, that hold a buffer
	busy       bool
	dispatched int // operators dispatched
	idleSince  des.Time
	opStart    float64                    // run time the current operator began, for the trace
	recent     [2*leapPeriods + 1]tileEnd // the last tiles' ends, tile k at k mod its length
	// finishFn and dispatchedFn are s.finish and s.dispatchDone, bound
	// once so that scheduling them allocates nothing per tile.
	finishFn, dispatchedFn func()
}

// tileLoad is the load of one tile in flight: its descriptors not yet
// arrived. Loads are reused, their callback bound once, so a pass
// allocates none per tile.
type tileLoad struct {
	s         *stream
	tile      int // the tile's index in s.tiles
	pending   int // descriptors not yet arrived (or 1 for a tile with none: see load)
	arrivedFn func()
}

// tileEnd is the state of the stream as a tile finishes.
type tileEnd struct {
	at    des.Time
	c     counters
	tile  int
	valid bool
}

// more cuts the next tile: the next of the operator being cut, or the
// first of the next operator; false when none is left. A fallback
// operator is one tile with nothing to stream: the CPU reads its data
// itself.
func (s *stream) more() bool {
	if s.cutting != nil {
		s.tiles = s.e.cutTile(s.tiles, s.cutting, &s.cut)
		if s.cut.next == s.cutting.tiles {
			s.cutting = nil
		}
		return true
	}
	if s.lowered == len(s.ops) {
		return false
	}
	if p := &s.plans[s.lowered]; p.on != nil {
		s.tiles = append(s.tiles, streamTile{op: s.lowered, first: true, fallback: true})
	} else {
		s.e.computed(p)
		s.cutting, s.cut = p, newOpCut(p, s.lowered)
		s.lowered++
		return s.more()
	}
	s.lowered++
	return true
}

// buffers reports whether the tile holds a DMA buffer: it has bytes to
// stream.
func (t *streamTile) buffers() bool { return len(t.spans) > 0 }

// opCut is where the cutting of an operator into tiles stands: each tile
// takes its share of every span, of the resident reads and of the compute.
type opCut struct {
	op                int // the operator's index in the pass
	next              int // the next tile to cut
	compute, resident float64
}

func newOpCut(p *opPlan, index int) opCut {
	n := float64(p.tiles)
	return opCut{op: index, compute: p.compute / n, resident: p.resident / n}
}

// cutTile appends to tiles the next tile c of the operator planned as p.
// Its spans live in e.spanBuf.
func (e *engine) cutTile(tiles []streamTile, p *opPlan, c *opCut) []streamTile {
	i := c.next
	c.next++
	t := streamTile{op: c.op, first: i == 0}
	t.compute = c.compute
	t.resident = c.resident
	// Spans already handed out keep their backing array if this grows it.
	at := len(e.spanBuf)
	e.spanBuf = e.tileSpans(e.spanBuf, p, i)
	t.spans = e.spanBuf[at:len(e.spanBuf):len(e.spanBuf)]
	return append(tiles, t)
}

// tileSpans appends tile i's share of operator p's spans to spans.
func (e *engine) tileSpans(spans []span, p *opPlan, i int) []span {
	n := p.tiles
	for _, s := range p.spans {
		part := s.bytes / float64(n)
		s.addr += int64(part * float64(i))
		s.bytes = part
		if s.class == classActivations && i >= p.spillScan.lo && i < p.spillScan.hi {
			s.scan, s.flush = true, i == p.spillScan.lo
		}
		spans = append(spans, s)
	}
	return spans
}

// skippableFrom is how many of operator p's tiles from tile i on, in a
// row, a leap may skip (skippable): its tiles differ only in the spill
// scan's, so the count follows from the spans whole.
func (e *engine) skippableFrom(p *opPlan, i int) int {
	var readsOut, act bool // outside the spill scan, a tile has a read that looks up; it spills
	for _, s := range p.spans {
		if s.class == classActivations {
			act = true
			readsOut = readsOut || e.looksUp(s) && !s.write
		} else if e.looksUp(s) && !s.write {
			return 0 // every tile has it
		}
	}
	lo, hi, from := p.spillScan.lo, p.spillScan.hi, i
	for i < p.tiles {
		switch {
		case lo <= i && i < hi && act && i == lo:
			return i - from // the scan's first tile empties ways
		case lo <= i && i < hi:
			i = hi
		case readsOut:
			return i - from
		case i < lo:
			i = lo
		default:
			i = p.tiles
		}
	}
	return p.tiles - from
}

// issue starts the DMA of every tile that has a free buffer. A tile with
// nothing to stream (a norm, a residual add, a fallback) needs none: the
// DMA goes on to the next operator's tiles while the unit runs it.
func (s *stream) issue() {
	for s.buffered < s.e.buffers {
		if s.issued == len(s.tiles) && !s.more() {
			return
		}
		j := s.issued
		s.issued++
		if s.tiles[j].buffers() {
			s.buffered++
		}
		s.e.loading(s.ops, s.tiles[j].op)
		s.e.load(&s.tiles[j].tile, s.e.newLoad(s, j))
	}
}

// next moves the unit on: dispatch the next operator, hand it to the CPU,
// or compute the next tile once it has arrived.
func (s *stream) next() {
	if s.busy {
		return
	}
	if s.computed == len(s.tiles) && !s.more() {
		return
	}
	e := s.e
	t := &s.tiles[s.computed]
	if t.first && s.dispatched == t.op {
		op := s.ops[t.op]
		s.dispatched++
		s.busy = true
		if t.fallback {
			s.opStart = e.now()
			e.runOff(op, &s.plans[t.op], s.finishFn)
			return
		}
		d := e.dispatched(op)
		s.opStart = e.now()
		if e.trace != nil {
			e.trace.span(e.unit.Name, "dispatch", "dispatch", s.opStart, s.opStart+d, nil)
		}
		e.sim.After(des.Seconds(d), s.dispatchedFn)
		return
	}
	if !t.loaded {
		return
	}
	e.st.stallMem += (e.sim.Now() - s.idleSince).Seconds()
	s.busy = true
	e.st.compute += t.compute
	if e.trace != nil {
		start := e.now()
		e.trace.span(e.unit.Name, "tile", "compute", start, start+t.compute, nil)
	}
	e.sim.After(des.Seconds(t.compute), s.finishFn)
}

// dispatchDone frees the unit once an operator's dispatch is paid.
func (s *stream) dispatchDone() {
	s.busy = false
	s.idleSince = s.e.sim.Now()
	s.next()
}

// finish ends the current tile and moves on.
func (s *stream) finish() {
	s.busy = false
	done := s.tiles[s.computed].op
	if s.tiles[s.computed].buffers() {
		s.buffered--
	}
	s.computed++
	s.idleSince = s.e.sim.Now()
	s.leap()
	s.issue()
	if s.e.trace != nil && (s.computed == len(s.tiles) && !s.more() || s.tiles[s.computed].op != done) {
		op := s.ops[done]
		track := s.e.unit.Name
		if s.tiles[s.computed-1].fallback {
			track = s.e.host.Name
		}
		s.e.trace.span(track, op.Name, string(op.Kind), s.opStart, s.e.now(), map[string]any{"flops": op.FLOPs})
	}
	s.next()
}

// Leaping. The tiles of one operator are identical but for their
// addresses, so once the pipeline has settled (the DMA of each tile
// overlapping the compute of the one before), every tile takes the same
// time and adds the same to the counters: the state repeats, one tile
// later. leap then skips the tiles in the middle of the operator at once
// — time moves on by their periods (des.Sim.Skip), the counters by their
// sums — and simulates the last few as before, so the operator's drain and
// the hand-over to the next are exact. Only tiles whose L3 traffic cannot
// hit may be skipped (an allocating read's hits depend on the addresses);
// their writes still reach the L3. TestLeap holds it to simulating every
// tile.
const (
	leapKeep    = 4 // tiles of an operator always simulated after a leap
	leapMin     = 4 // fewer skippable tiles are not worth a leap
	leapPeriods = 3 // the longest period looked for, in tiles
)

// leap notes the tile just finished and, when the finishes of the last
// tiles repeat with a period of one to leapPeriods tiles, with equal
// counter increments, skips ahead (see Leaping).
func (s *stream) leap() {
	e := s.e
	if e.trace != nil || !e.cfg.takes(leap) || e.recording != nil || e.layers.sigs != nil {
		return
	}
	k := s.computed - 1
	r := &s.recent
	n := len(r)
	r[k%n] = tileEnd{at: e.sim.Now(), c: e.st.counters, tile: k, valid: true}
	t := &s.tiles[k]
	if t.fallback {
		return
	}
	for p := 1; p <= leapPeriods && k >= 2*p; p++ {
		a, b, c := &r[(k-2*p)%n], &r[(k-p)%n], &r[k%n]
		if !a.valid || a.tile != k-2*p || s.tiles[a.tile].op != t.op || s.tiles[a.tile].first {
			return // not two whole periods of this operator yet
		}
		period := c.at - b.at
		if d := period - (b.at - a.at); period <= 0 || d < -1 || d > 1 {
			continue
		}
		// Whether there are tiles to skip is cheaper to ask than
		// whether the counters repeat.
		if tiles := s.leapable(t.op, p); tiles > 0 {
			if step := c.c.minus(b.c); step.near(b.c.minus(a.c)) {
				s.skip(tiles, p, period, step)
				*r = [len(r)]tileEnd{}
			}
		}
		return
	}
}

// leapable is how many tiles of operator op not yet issued a leap over
// whole periods of p tiles skips: 0 when it may not leap.
func (s *stream) leapable(op, p int) int {
	e := s.e
	// The tiles the period was measured on and those in flight must be of
	// the kind skipped: a spill's scan follows tiles that look up.
	for j := s.computed - 2*p; j < s.issued; j++ {
		if !e.skippable(&s.tiles[j]) {
			return 0
		}
	}
	end := s.issued // the operator's tiles cut, not yet issued, that may be skipped: [s.issued, end)
	for end < len(s.tiles) && s.tiles[end].op == op && e.skippable(&s.tiles[end]) {
		end++
	}
	var uncut int // and those not yet cut, from s.cut.next on
	if end == len(s.tiles) && s.cutting != nil && s.cut.op == op {
		uncut = e.skippableFrom(s.cutting, s.cut.next)
	}
	periods := (end - s.issued + uncut - leapKeep) / p
	if periods*p < leapMin {
		return 0
	}
	return periods * p
}

// skip leaps over the next n tiles (leapable's), whole periods of p
// tiles each taking period and adding step to the counters.
func (s *stream) skip(n, p int, period des.Time, step counters) {
	e := s.e
	periods := n / p
	cut := min(n, len(s.tiles)-s.issued) // of which cut already (leapable counted those first)
	// The skipped tiles' writes still allocate in the L3, and their misses
	// are their own, not the period's: the L3 they meet has moved on.
	e.st.counters.add(step, float64(periods))
	ph := e.work.Phase
	for c := range step.writeMissLines[ph] {
		e.st.missLines[ph][c] -= float64(periods) * step.writeMissLines[ph][c]
		e.st.writeMissLines[ph][c] -= float64(periods) * step.writeMissLines[ph][c]
	}
	for _, t := range s.tiles[s.issued : s.issued+cut] {
		e.skipWrites(t.spans)
	}
	if cut < n {
		e.skipUncut(s.cutting, s.cut.next, s.cut.next+n-cut)
		s.cut.next += n - cut
		if s.cut.next == s.cutting.tiles {
			s.cutting = nil
		}
	}
	d := des.Time(periods) * period
	e.sim.Skip(d)
	s.idleSince += d
	s.tiles = slices.Delete(s.tiles, s.issued, s.issued+cut)
}

// skipWrites runs a skipped tile's spans that look up (its writes)
// through the L3 and counts their misses.
func (e *engine) skipWrites(spans []span) {
	ph := e.work.Phase
	for _, sp := range spans {
		if e.looksUp(sp) {
			miss := (sp.bytes - float64(e.cachePages(sp.addr, int64(sp.bytes), e.requests[sp.class]))) / e.line
			e.st.missLines[ph][sp.class] += miss
			e.st.writeMissLines[ph][sp.class] += miss
		}
	}
}

// skipUncut is skipWrites for operator p's tiles [from, to), never cut.
func (e *engine) skipUncut(p *opPlan, from, to int) {
	if !slices.ContainsFunc(p.spans, e.looksUp) {
		return // nothing of theirs reaches the L3 (a spill scan's reads never look up)
	}
	var buf [8]span
	for i := from; i < to; i++ {
		e.skipWrites(e.tileSpans(buf[:0], p, i))
	}
}

// skippable reports whether a leap may skip tile t: none of its reads can
// hit, and it does not start a scan (which empties ways).
func (e *engine) skippable(t *streamTile) bool {
	for _, sp := range t.spans {
		if sp.flush || e.looksUp(sp) && !sp.write {
			return false
		}
	}
	return true
}

// load moves a tile's bytes into SRAM: each span is one DMA descriptor on
// a channel; its L3 hits come over the L3 link and its misses and writes
// over the DRAM link, as fluid transfers.
//
// A tile with nothing to stream is loaded once the events already due
// now have run. Else it is loaded when its last descriptor arrives: never
// before the events due now (a descriptor's set-up and transfers are
// events of their own), so it needs no event of its own.
func (e *engine) load(t *tile, l *tileLoad) {
	l.pending = 0
	for _, s := range t.spans {
		hit := e.access(s)
		miss := s.bytes - hit
		e.countDRAM(miss)
		e.st.l3HitBytes += hit
		if s.bytes == 0 {
			continue
		}
		l.pending++
		e.dma.submit(s.bytes, e.dramCost(s, miss), hit, l.arrivedFn)
	}
	if l.pending == 0 {
		l.pending = 1
		e.sim.After(0, l.arrivedFn)
	}
}

// newLoad is a load of tile j of stream s, a spare one if there is one.
func (e *engine) newLoad(s *stream, j int) *tileLoad {
	var l *tileLoad
	if n := len(e.loadSpare); n > 0 {
		l, e.loadSpare = e.loadSpare[n-1], e.loadSpare[:n-1]
	} else {
		l = &tileLoad{}
		l.arrivedFn = l.arrived
	}
	l.s, l.tile = s, j
	return l
}

// arrived counts one of the load's descriptors (or its release) in; after
// the last the tile is loaded, the load is spare again and the unit moves
// on.
func (l *tileLoad) arrived() {
	if l.pending--; l.pending > 0 {
		return
	}
	s, j := l.s, l.tile
	l.s = nil
	s.e.loadSpare = append(s.e.loadSpare, l)
	s.tiles[j].loaded = true
	s.next()
}
