package sim

import (
	"math"

	"github.com/edgetwin/edgetwin/workloads"
)

// run follows the tile fidelity's stream by arithmetic instead of
// events: each operator is dispatched, then computed tile by tile as its
// tiles arrive; a tile is fetched once a buffer is free, its set-up first,
// its transfer after the transfers before it (the DMA moves them in order),
// and the next operator's first tiles are fetched while this one ends and
// the unit dispatches the next. The first and last tiles of an operator
// are followed one by one; the settled middle, where every tile takes the
// same period, is skipped at once. There are no events, and no contention
// but the stream's own.
//
// The L3 is estimated per class instead of simulated: a class whose
// footprint fits in the ways it may use hits, from the second pass on, and
// in the first on what the pass reads again (a prefill's KV, written before
// it is read; its spilled activations, one buffer read by every operator);
// one that does not fit misses, except that locked lines keep the share
// that fits.
func (a arithmetic) run(ops []workloads.Op, plans []opPlan) float64 {
	e := a.e
	var pass passBytes
	for i := range plans {
		for _, s := range plans[i].spans {
			switch {
			case s.write:
				pass.written[s.class] += s.bytes
			case s.class == classActivations: // every spill reuses one buffer (spansOf)
				pass.read[s.class] += s.bytes
				pass.footprint[s.class] = max(pass.footprint[s.class], s.bytes)
			default:
				pass.read[s.class] += s.bytes
				pass.footprint[s.class] += s.bytes
			}
		}
	}
	hit := e.analyticHits(pass)
	e.passes++
	p := e.newPipe()
	for i := range plans {
		pl := &plans[i]
		if pl.on != nil {
			p.unit += e.analyticOff(ops[i], pl)
			continue
		}
		var dram, l3 float64
		for _, s := range pl.spans {
			h := hit[s.class]
			if s.write {
				e.countL3(s.class, s.bytes, s.bytes) // new lines: a miss that allocates, as in tile
				dram += e.dramCost(s, s.bytes)
				e.countDRAM(s.bytes)
				continue
			}
			e.countL3(s.class, s.bytes, s.bytes*(1-h))
			l3 += s.bytes * h
			dram += e.dramCost(s, s.bytes*(1-h))
			e.countDRAM(s.bytes * (1 - h))
			e.st.l3HitBytes += s.bytes * h
		}
		d := e.dispatched(ops[i])
		e.computed(pl)
		start := p.unit
		p.unit += d
		if len(pl.spans) == 0 || pl.streamed == 0 {
			p.unit += pl.compute
		} else {
			n := pl.tiles
			lat := float64(e.cfg.Chip.Memory.DRAM.Latency)
			if dram == 0 {
				lat = float64(e.cfg.Chip.Memory.L3.Latency)
			}
			p.stream(n, pl.compute/float64(n), (dram/e.dramBW+l3/e.l3BW)/float64(n), e.setupOf(len(pl.spans)), lat)
		}
		e.st.compute += pl.compute
		e.st.stallMem += max(0, p.unit-start-d-pl.compute)
	}
	return p.unit
}

// pipe is the analytic pass's tile stream, in seconds from the pass's
// start: when the DMA's transfers so far are done, when the unit is free,
// and when each of the last buffers+1 tiles was computed (tile i's buffer
// is free for tile i+buffers once tile i is computed).
type pipe struct {
	link, unit float64
	computed   []float64 // tile i's end at i mod len
	tiles      int
}

// newPipe is an empty stream with every buffer free at the start.
func (e *engine) newPipe() pipe {
	if cap(e.pipeBuf) < e.buffers+1 {
		e.pipeBuf = make([]float64, e.buffers+1)
	}
	clear(e.pipeBuf[:e.buffers+1])
	return pipe{computed: e.pipeBuf[:e.buffers+1]}
}

// setupOf is the set-up time of a tile of so many DMA descriptors (one a
// span): the channels set descriptors up side by side, each buffer's tile
// having its share of them.
func (e *engine) setupOf(descriptors int) float64 {
	share := max(1, e.cfg.Chip.DMA.Channels/e.buffers)
	return float64(e.cfg.Chip.DMA.Setup) * math.Ceil(float64(descriptors)/float64(share))
}

// pipeKeep is how many tiles of an operator are followed one by one at
// each end before and after its settled middle is skipped.
const pipeKeep = 4

// stream runs n identical tiles through the pipe, each computed in c
// seconds once its transfer of t seconds has followed a set-up of s and
// the memory's latency lat.
func (p *pipe) stream(n int, c, t, s, lat float64) {
	b := len(p.computed) - 1
	one := func() {
		freed := p.computed[(p.tiles+1)%(b+1)] // tile i−b's end: its buffer
		// Requested once set up; its first bytes flow a latency later or
		// when the link frees, whichever is last (as the event queue).
		p.link = max(freed+s+lat, p.link) + t
		p.unit = max(p.unit, p.link) + c
		p.computed[p.tiles%(b+1)] = p.unit
		p.tiles++
	}
	head := min(n, b+pipeKeep)
	for range head {
		one()
	}
	if skip := n - head - pipeKeep; skip > 0 {
		// Settled: each tile ends one period after the tile before; the
		// period is the average over the last b, which a buffer cycle spans.
		period := (p.unit - p.computed[p.tiles%(b+1)]) / float64(b)
		shift := float64(skip) * period
		p.link += shift
		p.unit += shift
		for i := range p.computed {
			p.computed[i] += shift
		}
		p.tiles += skip
		n -= skip
	}
	for range n - head {
		one()
	}
}

// passBytes is what a pass reads and writes of each class, and how much
// memory its reads cover (less than they read when they read a buffer
// again).
type passBytes struct {
	read, written, footprint [numClasses]float64
}

// analyticHits estimates each class's L3 hit fraction for this pass.
func (e *engine) analyticHits(pass passBytes) [numClasses]float64 {
	var hit [numClasses]float64
	if !e.sharesL3 {
		return hit
	}
	var shared float64 // footprint of the classes that share the unreserved ways
	for c := range pass.footprint {
		if r := e.requests[c]; r.Allocate && !r.Lock && r.Ways == e.shared {
			shared += pass.footprint[c]
		}
	}
	for c, bytes := range pass.read {
		r := e.requests[c]
		if !r.Allocate || bytes == 0 {
			continue
		}
		reuse := 1.0 // an earlier pass left the footprint in the L3
		if e.passes == 0 {
			// Only what this pass wrote, or read before, is there.
			cold := max(0, pass.footprint[c]-pass.written[c])
			reuse = 1 - min(1, cold/bytes)
		}
		capacity := e.waysBytes(class(c))
		switch {
		case r.Lock:
			hit[c] = reuse * min(1, capacity/pass.footprint[c])
		case pass.footprint[c] <= capacity && shared <= capacity:
			hit[c] = reuse
		}
	}
	return hit
}
