package sim

import (
	"math"

	"github.com/edgetwin/edgetwin/workloads"
)

// analyticPass is a roofline per operator: the larger of its dispatch plus
// compute time and the time its bytes take to arrive (the DMA of an
// operator's data is programmed before the unit dispatches it, as in the
// tile fidelity), with no overlap between operators. L3 hits are estimated from whether the
// pass's streamed bytes fit in the L3 (then everything after the first
// pass hits) or not (nothing does).
func (e *engine) analyticPass(ops []workloads.Op) float64 {
	var total, passBytes float64
	for _, op := range ops {
		for _, s := range e.spansOf(op) {
			passBytes += s.bytes
		}
	}
	hitFrac := 0.0
	if e.passes > 0 && passBytes <= float64(e.cfg.Chip.Memory.L3.Size) {
		hitFrac = 1
	}
	e.passes++
	for _, op := range ops {
		var fromDRAM, fromL3, streamed float64
		for _, s := range e.spansOf(op) {
			streamed += s.bytes
			lines := s.bytes / e.line
			e.st.l3Lines += lines
			e.st.l3MissLines += lines * (1 - hitFrac)
			if s.kv {
				e.st.kvLines += lines
				e.st.kvMissLines += lines * (1 - hitFrac)
			}
			if s.write {
				fromDRAM += s.bytes
				continue
			}
			fromL3 += s.bytes * hitFrac
			fromDRAM += s.bytes * (1 - hitFrac)
		}
		e.st.dramBytes += fromDRAM
		e.st.l3HitBytes += fromL3
		e.st.ops += op.FLOPs
		d := float64(e.unit.Dispatch)
		compute := e.computeSeconds(op, streamed)
		mem := fromDRAM/e.dramBW + fromL3/e.l3BW
		if op.Touch(workloads.Weights)+op.Touch(workloads.KVRead) > 0 {
			mem += float64(e.cfg.Chip.DMA.Setup)
		}
		e.st.dispatch += d
		e.st.compute += compute
		e.st.stallMem += math.Max(0, mem-d-compute)
		total += math.Max(d+compute, mem)
	}
	return total
}
