package sim

import (
	"math"
	"math/bits"

	"github.com/edgetwin/edgetwin/workloads"
)

// analyticPass is a roofline per operator: the larger of its dispatch plus
// compute time and the time its bytes take to arrive, with no overlap
// between operators. The DMA of an operator's data starts before the unit
// dispatches it, as in the tile fidelity, but only its first tiles fit in
// the buffers: the dispatch beyond their fetch adds to the memory time.
//
// The L3 is estimated per class instead of simulated: after the first
// pass, a class whose bytes per pass fit in the ways it may use hits; one
// that does not fit misses, except that locked lines keep the share that
// fits.
func (e *engine) analyticPass(ops []workloads.Op) float64 {
	var perClass [numClasses]float64
	for _, op := range ops {
		if e.fallsBack(op) {
			continue
		}
		spans, _ := e.spansOf(op)
		for _, s := range spans {
			if !s.write {
				perClass[s.class] += s.bytes
			}
		}
	}
	hit := e.analyticHits(perClass)
	e.passes++
	var total float64
	for _, op := range ops {
		if e.fallsBack(op) {
			total += e.analyticFallback(op)
			continue
		}
		spans, resident := e.spansOf(op)
		var dram, l3, streamed float64
		for _, s := range spans {
			streamed += s.bytes
			h := hit[s.class]
			e.countL3(s.class, s.bytes, s.bytes*(1-h))
			if s.write {
				dram += e.dramCost(s, s.bytes)
				e.countDRAM(s.bytes)
				continue
			}
			l3 += s.bytes * h
			dram += e.dramCost(s, s.bytes*(1-h))
			e.countDRAM(s.bytes * (1 - h))
			e.st.l3HitBytes += s.bytes * h
		}
		e.st.ops += op.FLOPs
		d := float64(e.unit.Dispatch)
		compute := e.computeSeconds(op, streamed, resident)
		stream := e.analyticStream(compute, dram/e.dramBW+l3/e.l3BW, streamed, len(spans))
		// The DMA fetches an operator's first tiles while the unit
		// dispatches it; the rest of the dispatch holds the stream up.
		op := math.Max(d+compute, stream.held(d)+stream.seconds)
		e.st.dispatch += d
		e.st.compute += compute
		e.st.stallMem += math.Max(0, op-d-compute)
		total += op
	}
	return total
}

// streamTime is the analytic estimate of an operator's tile stream.
type streamTime struct {
	seconds  float64 // the tiles' share of the stream
	prefetch float64 // the fetch of the tiles the buffers hold before compute starts
}

// held is the part of a dispatch of d seconds the stream waits for.
func (s streamTime) held(d float64) float64 { return math.Max(0, d-s.prefetch) }

// analyticStream times an operator's tiles as the tile fidelity runs them:
// n tiles, each fetched in set-up + transfer and then computed, with as
// many in flight as there are buffers. In steady state a tile takes the
// longest of its compute, its transfer on the shared link, and (fetch +
// compute) / buffers, since a buffer is refilled only once its tile is
// computed.
func (e *engine) analyticStream(compute, link, streamed float64, spans int) streamTime {
	if spans == 0 || streamed == 0 {
		return streamTime{seconds: compute}
	}
	n := math.Max(1, math.Ceil(streamed/e.tile))
	b := float64(e.buffers)
	c, t := compute/n, link/n
	fetch := float64(e.cfg.Chip.DMA.Setup)*float64(spans) + t
	period := math.Max(math.Max(c, t), (fetch+c)/b)
	// The stream runs on across operators (the DMA fetches the next
	// operator's tiles while this one computes), so there is no fill.
	return streamTime{seconds: n * period, prefetch: math.Min(n, b) * fetch}
}

// analyticHits estimates each class's L3 hit fraction for this pass.
func (e *engine) analyticHits(perClass [numClasses]float64) [numClasses]float64 {
	var hit [numClasses]float64
	if e.l3c == nil || e.passes == 0 {
		return hit
	}
	ways := float64(e.cfg.Chip.Memory.L3.Ways)
	var shared float64 // bytes of the classes that share the unreserved ways
	for c := range perClass {
		if r := e.requests[c]; r.Allocate && !r.Lock && r.Ways == e.shared {
			shared += perClass[c]
		}
	}
	for c, bytes := range perClass {
		r := e.requests[c]
		if !r.Allocate || bytes == 0 {
			continue
		}
		capacity := e.l3Size * float64(bits.OnesCount64(uint64(r.Ways))) / ways
		switch {
		case r.Lock:
			hit[c] = math.Min(1, capacity/bytes)
		case bytes <= capacity && shared <= capacity:
			hit[c] = 1
		}
	}
	return hit
}

// analyticFallback charges a fallback operator: two hand-offs, the copies
// through DRAM and the CPU's compute, one after the other.
func (e *engine) analyticFallback(op workloads.Op) float64 {
	copies := 2 * op.Touch(workloads.Activations)
	moved := copies + op.Touch(workloads.Weights)
	t := 2*float64(e.unit.FallbackSync) + moved/e.dramBW + e.hostSeconds(op)
	f := e.fallbackOf(string(op.Kind))
	f.Count++
	f.CopyBytes += copies
	f.Seconds += t
	e.st.fallback += t
	e.countDRAM(moved)
	e.st.ops += op.FLOPs
	e.st.fallbackOps += op.FLOPs
	e.st.hostOps += op.FLOPs
	return t
}
