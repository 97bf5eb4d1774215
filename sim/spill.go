package sim

import (
	"math"
	"math/bits"
)

// The spill bypass. An operator's activations past its SRAM budget spill
// through the L3, every operator into the same buffer from its start
// (spansOf), tile by tile in address order. A spilled block at offset x
// was last read by the latest earlier spill of the pass longer than x;
// since then that spill read [x, its end) and every later one, this one
// included, read within [0, x): at least that whole earlier spill has been
// touched since. Where that is far more than the activations' ways hold,
// the block cannot hit (its reuse distance is too long), so its lookup is
// skipped and counted as a miss, as the KV scan bypass does for a decode
// step's KV. The first such tile empties the activations' ways, as the
// scan it starts would (a scan that long evicts what came before it);
// what the rest of the scan would leave behind in the L3 is the scan's own
// tail, which the next spill misses anyway, and under LRU blocks touched
// later are not affected by older ones. The tiles before (read soon after
// a short spill) and after (past every earlier spill of the pass, as the
// start of a prefill) are looked up as ever. TestSpillBypass holds the
// difference to looking every block up under 1%.
//
// Only LRU, whose hits follow reuse distance; SRRIP and BRRIP keep
// re-read blocks through a scan. Not locked activations (locked lines
// stay), nor the line fidelity, the exact reference. The classification
// reads only the pass's own operators, so a prefill replay classifies as
// the pass it replays did and takes its recorded hits in the same order.

// spillMissChance bounds the chance that a spilled block the bypass counts
// as a miss would have hit.
const spillMissChance = 0.005

// spillReach is the reuse distance, in bytes, past which a block in ways
// of size bytes with ways blocks a set cannot hit (but for a chance of
// spillMissChance). Under LRU a block hits when fewer than ways other
// blocks of its set were touched since it was last; the OS scatters pages
// over the sets, so of D bytes touched a set takes a Poisson number with
// mean ways·D/size. The reach is the smallest D, in steps of 1/64 of the
// ways' size, at which fewer than ways come with that chance at most:
// 1.78 times the ways' size for 16 ways, 2.16 for 8.
func spillReach(size float64, ways int) float64 {
	for f := 1.0; ; f += 1.0 / 64 {
		if poissonBelow(f*float64(ways), ways) <= spillMissChance {
			return f * size
		}
	}
}

// poissonBelow is the chance that a Poisson variable of the given mean is
// below k.
func poissonBelow(mean float64, k int) float64 {
	term, sum := math.Exp(-mean), 0.0
	for i := range k {
		sum += term
		term *= mean / float64(i+1)
	}
	return sum
}

// spillBypassReach is the run's spillReach for its activations' ways, or 0
// where the bypass does not apply.
func (e *engine) spillBypassReach() float64 {
	r := e.requests[classActivations]
	if e.l3c == nil || !e.cfg.takes(spillBypass) || !r.Allocate || r.Lock || e.cfg.Chip.Memory.L3.Replacement != "lru" {
		return 0
	}
	return spillReach(e.waysBytes(classActivations), bits.OnesCount64(uint64(r.Ways)))
}

// spillScan returns the tiles [lo, hi) of an operator's spill of the given
// bytes, cut into tiles, that cannot hit (see the spill bypass), and notes
// the spill in seen: the pass's earlier spills that no later one is as
// long as, longest first. lo == hi when there are none.
func (e *engine) spillScan(seen []float64, spill float64, tiles int) (_ []float64, lo, hi int) {
	if reach := e.spillReach; reach > 0 && len(seen) > 0 && seen[0] >= reach {
		from := 0.0 // below from, a block was last read by a spill shorter than the reach
		for _, s := range seen {
			if s < reach {
				from = s
				break
			}
		}
		part := spill / float64(tiles)
		lo, hi = int(math.Ceil(from/part)), int(math.Floor(math.Min(spill, seen[0])/part))
		if float64(hi-lo)*part < reach { // too short to sweep out what came before
			lo, hi = 0, 0
		}
	}
	for len(seen) > 0 && seen[len(seen)-1] <= spill {
		seen = seen[:len(seen)-1]
	}
	return append(seen, spill), lo, hi
}
