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
	tiles []streamTile // cut lazily, operator by operator, as DMA reaches them

	lowered    int // operators cut into tiles so far
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
	pending   int // descriptors not yet arrived, and the release after they are queued
	arrivedFn func()
}

// tileEnd is the state of the stream as a tile finishes.
type tileEnd struct {
	at    des.Time
	c     counters
	tile  int
	valid bool
}

// more cuts the next operator into tiles; false when none is left. A
// fallback operator is one tile with nothing to stream: the CPU reads its
// data itself.
func (s *stream) more() bool {
	if s.lowered == len(s.ops) {
		return false
	}
	if p := &s.plans[s.lowered]; p.fallback {
		s.tiles = append(s.tiles, streamTile{op: s.lowered, first: true, fallback: true})
	} else {
		s.tiles = s.e.cut(s.tiles, p, s.lowered)
	}
	s.lowered++
	return true
}

// buffers reports whether the tile holds a DMA buffer: it has bytes to
// stream.
func (t *streamTile) buffers() bool { return len(t.spans) > 0 }

// cut appends the index-th operator, planned as p, to tiles: its tiles,
// each with its share of every span, of the resident reads and of the
// compute. The spans live in e.spanBuf.
func (e *engine) cut(tiles []streamTile, p *opPlan, index int) []streamTile {
	e.computed(p)
	whole, n := p.spans, p.tiles
	compute := p.compute / float64(n)
	// Spans already handed out keep their backing array if this grows it.
	at := len(e.spanBuf)
	e.spanBuf = slices.Grow(e.spanBuf, n*len(whole))[:at+n*len(whole)]
	slab := e.spanBuf[at:]
	for i := range n {
		t := streamTile{op: index, first: i == 0}
		t.compute = compute
		t.resident = p.resident / float64(n)
		t.spans = slab[i*len(whole) : (i+1)*len(whole) : (i+1)*len(whole)]
		for k, s := range whole {
			part := s.bytes / float64(n)
			s.addr += int64(part * float64(i))
			s.bytes = part
			if s.class == classActivations && i >= p.spillScan.lo && i < p.spillScan.hi {
				s.scan, s.flush = true, i == p.spillScan.lo
			}
			t.spans[k] = s
		}
		tiles = append(tiles, t)
	}
	return tiles
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
			e.runOnHost(op, &s.plans[t.op], s.finishFn)
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
	if e.trace != nil || !e.cfg.takes(leap) || e.recording != nil {
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
		step := c.c.minus(b.c)
		if step.near(b.c.minus(a.c)) && s.skip(t.op, p, period, step) {
			*r = [len(r)]tileEnd{}
		}
		return
	}
}

// skip leaps over whole periods of p tiles of operator op not yet issued,
// each taking period and adding step to the counters, and reports whether
// it did.
func (s *stream) skip(op, p int, period des.Time, step counters) bool {
	e := s.e
	// The tiles the period was measured on and those in flight must be of
	// the kind skipped: a spill's scan follows tiles that look up.
	for j := s.computed - 2*p; j < s.issued; j++ {
		if !e.skippable(&s.tiles[j]) {
			return false
		}
	}
	end := s.issued // the operator's tiles not yet issued that may be skipped: [s.issued, end)
	for end < len(s.tiles) && s.tiles[end].op == op && e.skippable(&s.tiles[end]) {
		end++
	}
	periods := (end - s.issued - leapKeep) / p
	if periods*p < leapMin {
		return false
	}
	n := periods * p
	// The skipped tiles' writes still allocate in the L3, and their misses
	// are their own, not the period's: the L3 they meet has moved on.
	e.st.counters.add(step, float64(periods))
	ph := e.work.Phase
	for c := range step.writeMissLines[ph] {
		e.st.missLines[ph][c] -= float64(periods) * step.writeMissLines[ph][c]
		e.st.writeMissLines[ph][c] -= float64(periods) * step.writeMissLines[ph][c]
	}
	for _, t := range s.tiles[s.issued : s.issued+n] {
		for _, sp := range t.spans {
			if e.looksUp(sp) {
				miss := (sp.bytes - float64(e.cachePages(sp.addr, int64(sp.bytes), e.requests[sp.class]))) / e.line
				e.st.missLines[ph][sp.class] += miss
				e.st.writeMissLines[ph][sp.class] += miss
			}
		}
	}
	d := des.Time(periods) * period
	e.sim.Skip(d)
	s.idleSince += d
	s.tiles = slices.Delete(s.tiles, s.issued, s.issued+n)
	return true
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
func (e *engine) load(t *tile, l *tileLoad) {
	l.pending = 1 // released after every descriptor is queued
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
	e.sim.After(0, l.arrivedFn)
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
