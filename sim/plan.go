package sim

import (
	"math"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/workloads"
)

// A pass is planned once and run by one of two executors. The plan of an
// operator says where it runs and what it streams: the spans it reads and
// writes outside the SRAM, the SRAM-resident bytes it reads, the tiles it
// is cut into (at most e.tile streamed bytes each) and the unit's compute
// for it. The event stream (tile and line fidelity, tile.go) and the
// arithmetic pipe (analytic fidelity, analytic.go) both run the same plan;
// what they differ in is only how they time it and whether the L3 is
// simulated or estimated.

// opPlan is one operator of a pass, planned.
type opPlan struct {
	on *hw.Unit // the unit that runs it when the run's does not (handoff.go); nil: the run's
	// handIn and handOut mark an operator off the unit that opens a
	// segment (the unit before, from, hands it its input; nil: the run's
	// unit) or closes one (it hands its output back).
	handIn, handOut bool
	from            *hw.Unit
	spans           []span  // what it streams, whole (a tile takes its share of each)
	resident        float64 // bytes it reads from SRAM-resident tensors
	streamed        float64 // the spans' bytes
	tiles           int     // the tiles it is cut into
	compute         float64 // seconds on the unit once its data is in SRAM, all tiles
	conflict        float64 // of which SRAM bank conflicts
	// spillScan are the tiles [lo, hi) whose spilled activations cannot
	// hit (spill.go).
	spillScan extent
}

// extent is where an operator's spans sit in the plan's span buffer.
type extent struct{ lo, hi int }

// plan works out the operators of a pass, in order (the layout gives
// tensors their addresses in the order first seen). The plans and their
// spans live in buffers the next pass reuses.
func (e *engine) plan(ops []workloads.Op) []opPlan {
	plans := e.planBuf[:0]
	spans := e.planSpans[:0]
	extents := e.planExtents[:0]
	seen := e.spillSeen[:0]
	clock := e.clockOf(e.unit) // the unit's clock holds through a pass's plan
	e.weightScan = e.weightScans(e.work, ops)
	for c, scan := range e.weightScan {
		if scan {
			e.l3c.Invalidate(e.requests[c].Ways)
		}
	}
	for i := range ops {
		op := &ops[i]
		if u := e.offUnit(op); u != nil {
			plans = append(plans, opPlan{on: u, tiles: 1})
			extents = append(extents, extent{len(spans), len(spans)})
			continue
		}
		lo := len(spans)
		var resident float64
		spans, resident = e.spansOf(spans, op)
		var streamed float64
		for _, s := range spans[lo:] {
			streamed += s.bytes
		}
		compute, conflict := e.computeSeconds(op, streamed, resident, clock)
		p := opPlan{
			resident: resident,
			streamed: streamed,
			tiles:    max(1, int(math.Ceil(streamed/e.tile))),
			compute:  compute,
			conflict: conflict,
		}
		if last := len(spans) - 1; e.spillReach > 0 && last >= lo && spans[last].class == classActivations {
			seen, p.spillScan.lo, p.spillScan.hi = e.spillScan(seen, spans[last].bytes, p.tiles)
		}
		plans = append(plans, p)
		extents = append(extents, extent{lo, len(spans)})
	}
	for i, x := range extents {
		plans[i].spans = spans[x.lo:x.hi:x.hi]
	}
	handOffs(plans)
	e.planBuf, e.planSpans, e.planExtents, e.spillSeen = plans, spans, extents, seen
	return plans
}

// executor runs a planned pass and returns the simulated seconds it took,
// counting its time, bytes, L3 traffic and fallbacks in the engine's
// statistics.
type executor interface {
	run(ops []workloads.Op, plans []opPlan) float64
}

// newExecutor is the executor of the run's fidelity.
func (e *engine) newExecutor() executor {
	if e.cfg.Fidelity.Options().Events {
		return events{e}
	}
	return arithmetic{e}
}

// computed counts the SRAM traffic of an operator's compute (when the
// executor reaches it, as the counters of a tile pass must change).
func (e *engine) computed(p *opPlan) {
	e.st.bankConflict += p.conflict
	e.st.sramBytes += p.streamed + p.resident
}

// dispatched counts the dispatch of a (non-fallback) operator on the unit
// and returns its cost: the driver's, and on a CPU the barrier its
// threads meet after it (hw.Unit.OpCost).
func (e *engine) dispatched(op workloads.Op) float64 {
	d := float64(e.unit.OpCost())
	e.st.ops += op.FLOPs
	e.st.dispatch += d
	return d
}

// arithmetic is the analytic fidelity's executor (analytic.go).
type arithmetic struct{ e *engine }

// events is the tile and line fidelities' executor (tile.go).
type events struct{ e *engine }
