package sim

import (
	"github.com/edgetwin/edgetwin/sim/des"
	"github.com/edgetwin/edgetwin/workloads"
)

// tilePass runs the operators of one pass on the event kernel and returns
// the simulated seconds it took.
//
// The operators' tiles form one stream, as in a compiled graph: the DMA
// engine fetches tile j as soon as a buffer is free (tile j−buffers has
// been computed), even when tile j belongs to the next operator, while the
// unit dispatches each operator and then computes its tiles in order,
// waiting whenever the next tile has not arrived. An operator the unit
// does not support runs on the CPU instead: its activations are copied out
// through DRAM and back, around a hand-off in each direction.
func (e *engine) tilePass(ops []workloads.Op) float64 {
	start := e.sim.Now()
	s := &stream{e: e, ops: ops, idleSince: start}
	s.issue()
	s.next()
	e.sim.Run()
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
	tiles []streamTile // cut lazily, operator by operator, as DMA reaches them

	lowered    int // operators cut into tiles so far
	issued     int // tiles whose DMA has started
	computed   int // tiles computed
	busy       bool
	dispatched int // operators dispatched
	idleSince  des.Time
	opStart    float64 // run time the current operator began, for the trace
}

// more cuts the next operator into tiles; false when none is left. A
// fallback operator is one tile with nothing to stream: the CPU reads its
// data itself.
func (s *stream) more() bool {
	if s.lowered == len(s.ops) {
		return false
	}
	op := s.ops[s.lowered]
	if s.e.fallsBack(op) {
		s.tiles = append(s.tiles, streamTile{op: s.lowered, first: true, fallback: true})
	} else {
		for i, t := range s.e.tiles(op) {
			s.tiles = append(s.tiles, streamTile{tile: t, op: s.lowered, first: i == 0})
		}
	}
	s.lowered++
	return true
}

// issue starts the DMA of every tile that has a free buffer.
func (s *stream) issue() {
	for s.issued < s.computed+s.e.buffers {
		if s.issued == len(s.tiles) && !s.more() {
			return
		}
		j := s.issued
		s.issued++
		s.e.load(&s.tiles[j].tile, func() {
			s.tiles[j].loaded = true
			s.next()
		})
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
		e.st.ops += op.FLOPs
		s.busy = true
		if t.fallback {
			s.opStart = e.now()
			e.runFallback(op, s.finish)
			return
		}
		d := float64(e.unit.Dispatch)
		e.st.dispatch += d
		s.opStart = e.now()
		if e.trace != nil {
			e.trace.span(e.unit.Name, "dispatch", "dispatch", s.opStart, s.opStart+d, nil)
		}
		e.sim.After(des.Seconds(d), func() {
			s.busy = false
			s.idleSince = e.sim.Now()
			s.next()
		})
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
	e.sim.After(des.Seconds(t.compute), s.finish)
}

// finish ends the current tile and moves on.
func (s *stream) finish() {
	s.busy = false
	done := s.tiles[s.computed].op
	s.computed++
	s.idleSince = s.e.sim.Now()
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

// load moves a tile's bytes into SRAM: each span is one DMA descriptor on
// a channel; its L3 hits come over the L3 link and its misses and writes
// over the DRAM link, as fluid transfers.
func (e *engine) load(t *tile, done func()) {
	pending := 1 // released after every descriptor is queued
	finish := func() {
		pending--
		if pending == 0 {
			done()
		}
	}
	for _, s := range t.spans {
		hit := e.access(s)
		miss := s.bytes - hit
		e.countDRAM(miss)
		e.st.l3HitBytes += hit
		if s.bytes == 0 {
			continue
		}
		cost := e.dramCost(s, miss)
		pending++
		e.dma.submit(s.bytes, func(release func()) {
			parts := 0
			part := func() {
				parts--
				if parts == 0 {
					release()
					finish()
				}
			}
			if cost > 0 {
				parts++
				e.dram.Start(cost, 0, part)
			}
			if hit > 0 {
				parts++
				e.l3.Start(hit, 0, part)
			}
		})
	}
	e.sim.After(0, finish)
}

// fallsBack reports whether an operator runs on the CPU because the
// matrix unit does not support it.
func (e *engine) fallsBack(op workloads.Op) bool {
	return e.host != nil && e.host != e.unit && !e.unit.Supports(string(op.Kind))
}

// runFallback runs an operator on the CPU: the unit hands it over (sync),
// its activations go out through DRAM and come back (a write and a read
// each way), the CPU computes, and the unit takes over again (sync).
func (e *engine) runFallback(op workloads.Op, done func()) {
	sync := float64(e.unit.FallbackSync)
	copies := 2 * op.Touch(workloads.Activations)
	cpu := e.hostSeconds(op)
	f := e.fallbackOf(string(op.Kind))
	f.Count++
	f.CopyBytes += copies
	e.st.fallbackOps += op.FLOPs
	e.st.hostOps += op.FLOPs
	start := e.sim.Now()
	e.countDRAM(copies + op.Touch(workloads.Weights))
	e.sim.After(des.Seconds(sync), func() {
		e.dram.Start(copies+op.Touch(workloads.Weights), 0, func() {
			e.sim.After(des.Seconds(cpu+sync), func() {
				took := (e.sim.Now() - start).Seconds()
				f.Seconds += took
				if e.trace != nil {
					end := e.now()
					e.trace.span(e.host.Name, "fallback "+string(op.Kind), "fallback", end-cpu-sync, end-sync, nil)
				}
				e.st.fallback += took
				done()
			})
		})
	})
}

// hostSeconds is an operator's compute time on the CPU.
func (e *engine) hostSeconds(op workloads.Op) float64 {
	act := e.cfg.Quant.ActDtype(op.Role)
	dt, ok := e.host.ComputeDtype(act)
	if !ok {
		dt, _ = e.host.ComputeDtype("int4")
	}
	if op.Matrix && op.M > 0 {
		return e.host.MatmulSeconds(op.M, op.N, op.K, dt, e.clockOf(e.host))
	}
	return e.host.VectorSeconds(op.FLOPs, dt, e.clockOf(e.host))
}

func (e *engine) fallbackOf(kind string) *Fallback {
	f, ok := e.st.fallbacks[kind]
	if !ok {
		f = &Fallback{Op: kind, Unit: e.host.Name}
		e.st.fallbacks[kind] = f
		e.st.fallbackOrder = append(e.st.fallbackOrder, kind)
	}
	return f
}

// dmaQueue hands DMA descriptors to a fixed number of channels; a
// descriptor waits for a free channel, pays the set-up, then runs.
type dmaQueue struct {
	sim     *des.Sim
	free    []int // idle channels, lowest first
	setup   des.Time
	waiting []descriptor
	// trace, when the run records a timeline, receives each descriptor's
	// channel, start time and bytes as it completes; now reads the clock.
	trace func(channel int, start, bytes float64)
	now   func() float64
}

type descriptor struct {
	bytes float64
	run   func(release func())
}

func newDMAQueue(s *des.Sim, channels int, setup float64) *dmaQueue {
	q := &dmaQueue{sim: s, setup: des.Seconds(setup)}
	for ch := channels - 1; ch >= 0; ch-- {
		q.free = append(q.free, ch)
	}
	return q
}

// submit queues a descriptor of bytes; run starts its transfers and calls
// release when they are done.
func (q *dmaQueue) submit(bytes float64, run func(release func())) {
	q.waiting = append(q.waiting, descriptor{bytes, run})
	q.start()
}

func (q *dmaQueue) start() {
	for len(q.free) > 0 && len(q.waiting) > 0 {
		d := q.waiting[0]
		q.waiting = q.waiting[1:]
		ch := q.free[len(q.free)-1]
		q.free = q.free[:len(q.free)-1]
		var start float64
		if q.trace != nil {
			start = q.now()
		}
		q.sim.After(q.setup, func() {
			d.run(func() {
				if q.trace != nil {
					q.trace(ch, start, d.bytes)
				}
				q.free = append(q.free, ch)
				q.start()
			})
		})
	}
}
