package sim

import (
	"github.com/edgetwin/edgetwin/sim/des"
	"github.com/edgetwin/edgetwin/workloads"
)

// buffers is how many tiles may sit in SRAM at once: double buffering.
const buffers = 2

// tilePass runs the operators of one pass on the event kernel and returns
// the simulated seconds it took.
//
// The operators' tiles form one stream, as in a compiled graph: the DMA
// engine fetches tile j as soon as a buffer is free (tile j−2 has been
// computed), even when tile j belongs to the next operator, while the unit
// dispatches each operator and then computes its tiles in order, waiting
// whenever the next tile has not arrived.
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
	op     int
	first  bool // the operator's first tile: the unit dispatches it first
	loaded bool
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
}

// more cuts the next operator into tiles; false when none is left.
func (s *stream) more() bool {
	if s.lowered == len(s.ops) {
		return false
	}
	for i, t := range s.e.tiles(s.ops[s.lowered]) {
		s.tiles = append(s.tiles, streamTile{tile: t, op: s.lowered, first: i == 0})
	}
	s.lowered++
	return true
}

// issue starts the DMA of every tile that has a free buffer.
func (s *stream) issue() {
	for s.issued < s.computed+buffers {
		if s.issued == len(s.tiles) && !s.more() {
			return
		}
		j := s.issued
		s.issued++
		s.e.dma(&s.tiles[j].tile, func() {
			s.tiles[j].loaded = true
			s.next()
		})
	}
}

// next moves the unit on: dispatch the next operator, or compute the next
// tile once it has arrived.
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
		d := float64(e.unit.Dispatch)
		e.st.dispatch += d
		s.busy = true
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
	now := e.sim.Now()
	e.st.stallMem += (now - s.idleSince).Seconds()
	s.busy = true
	e.st.compute += t.compute
	e.sim.After(des.Seconds(t.compute), func() {
		s.busy = false
		s.computed++
		s.idleSince = e.sim.Now()
		s.issue()
		s.next()
	})
}

// dma moves a tile's bytes: hits from the L3, misses and writes from and
// to DRAM, both as fluid transfers after the descriptor set-up.
func (e *engine) dma(t *tile, done func()) {
	var fromDRAM, fromL3 float64
	for _, s := range t.spans {
		hit := e.access(s)
		fromL3 += hit
		fromDRAM += s.bytes - hit
	}
	e.st.dramBytes += fromDRAM
	e.st.l3HitBytes += fromL3
	if fromDRAM+fromL3 == 0 {
		e.sim.After(0, done)
		return
	}
	pending := 0
	finish := func() {
		pending--
		if pending == 0 {
			done()
		}
	}
	e.sim.After(des.Seconds(float64(e.cfg.Chip.DMA.Setup)), func() {
		if fromDRAM > 0 {
			pending++
			e.dram.Start(fromDRAM, 0, finish)
		}
		if fromL3 > 0 {
			pending++
			e.l3.Start(fromL3, 0, finish)
		}
	})
}
