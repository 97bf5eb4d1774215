package sim

import (
	"cmp"
	"slices"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/sim/des"
	"github.com/edgetwin/edgetwin/workloads"
)

// Work off the unit. An operator the unit does not support (hw.Unit.Ops)
// or its runtime leaves to the CPU (runtimes.Profile.CPUOps), and every
// operator of a block placed on the CPU (Config.CPULayers) runs
// on the chip's CPU instead. Consecutive such operators form a segment:
// the unit hands the segment's first input over once, the CPU runs the
// operators one after another — each dispatched as its runtime dispatches
// one (hw.Unit.OpCost), streaming its weights and KV cache from DRAM while
// it computes, its activations staying in its own caches — and hands the
// segment's last output back once. Each hand-off costs the unit's
// FallbackSync and a copy of the tensor through DRAM, written by one side
// and read by the other. A pass begins and ends with the host: a segment
// that opens a pass needs no hand-off in (the CPU holds the token ids), one
// that closes it none back (the CPU samples from the logits it computed).
// Only the tensor the segment's first operator reads and its last writes
// are copied; a skip connection reaching across a boundary (the residual
// of the block the boundary cuts) is not counted.

// tallyKey names what a tally adds up: the operators of one kind run on
// the CPU (op), or the hand-offs from one unit to another (from, to).
type tallyKey struct{ op, from, to string }

// tally is what one kind of work off the unit added up to: how often, how
// long, and the bytes a hand-off copied.
type tally struct {
	count   int
	seconds float64
	bytes   float64
}

// tallies are the run's tallies and the order they first appeared in.
type tallies struct {
	m     map[tallyKey]*tally
	order []tallyKey
}

// of is the tally of key k, created at its first use.
func (ts *tallies) of(k tallyKey) *tally {
	t, ok := ts.m[k]
	if !ok {
		if ts.m == nil {
			ts.m = map[tallyKey]*tally{}
		}
		t = &tally{}
		ts.m[k] = t
		ts.order = append(ts.order, k)
	}
	return t
}

// snapshot copies the tallies, for a later delta.
func (ts *tallies) snapshot() map[tallyKey]tally {
	m := make(map[tallyKey]tally, len(ts.m))
	for k, t := range ts.m {
		m[k] = *t
	}
	return m
}

// delta is what the tallies added since the snapshot.
func (ts *tallies) delta(before map[tallyKey]tally) map[tallyKey]tally {
	d := make(map[tallyKey]tally, len(ts.m))
	for k, t := range ts.m {
		b := before[k]
		d[k] = tally{count: t.count - b.count, seconds: t.seconds - b.seconds, bytes: t.bytes - b.bytes}
	}
	return d
}

// add adds a delta (a remembered or interpolated stretch, a side
// engine's pass) to the tallies; keys new to them join the order sorted,
// so the result does not depend on the map's.
func (ts *tallies) add(d map[tallyKey]tally) {
	var fresh []tallyKey
	for k, t := range d {
		if t.count == 0 && t.seconds == 0 {
			continue
		}
		g, ok := ts.m[k]
		if !ok {
			fresh = append(fresh, k)
			continue
		}
		g.count += t.count
		g.seconds += t.seconds
		g.bytes += t.bytes
	}
	slices.SortFunc(fresh, func(a, b tallyKey) int {
		return cmp.Or(cmp.Compare(a.op, b.op), cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to))
	})
	for _, k := range fresh {
		*ts.of(k) = d[k]
	}
}

// between is the tallies (1−w)·a + w·b, counts as a's.
func between(a, b map[tallyKey]tally, w float64) map[tallyKey]tally {
	m := make(map[tallyKey]tally, len(a))
	for k, ta := range a {
		tb := b[k]
		m[k] = tally{count: ta.count, seconds: (1-w)*ta.seconds + w*tb.seconds, bytes: (1-w)*ta.bytes + w*tb.bytes}
	}
	return m
}

// results are the tallies as a result lists them: the fallbacks by
// operator kind and the boundaries by direction, each in the order it
// first appeared.
func (ts *tallies) results(host string) ([]Fallback, []Boundary) {
	fs, bs := []Fallback{}, []Boundary{}
	for _, k := range ts.order {
		t := ts.m[k]
		if k.op != "" {
			fs = append(fs, Fallback{Op: k.op, Unit: host, Count: t.count, Seconds: t.seconds})
		} else {
			bs = append(bs, Boundary{From: k.from, To: k.to, Count: t.count, CopyBytes: t.bytes, Seconds: t.seconds})
		}
	}
	return fs, bs
}

// onHost reports whether an operator runs on the CPU instead of the unit:
// the unit does not support it, its runtime leaves it to the CPU, or its
// block is placed on the CPU — the embedding going with the first block
// and the output norm and head with the last.
func (e *engine) onHost(op *workloads.Op) bool {
	if e.host == nil || e.host == e.unit {
		return false
	}
	if !e.unit.Supports(string(op.Kind)) || e.cfg.Runtime.LeavesToCPU(string(op.Kind), op.Role == workloads.RoleOutput) {
		return true
	}
	if len(e.cpuLayers) == 0 {
		return false
	}
	layer := op.Layer
	if layer < 0 {
		layer = len(e.cpuLayers) - 1 // the output head
		if op.Kind == workloads.KindEmbed {
			layer = 0
		}
	}
	return e.cpuLayers[layer]
}

// handOffs marks, in a planned pass, the host operators that open a
// segment (a hand-off from the unit before them) and those that close one
// (a hand-off back after them).
func handOffs(plans []opPlan) {
	for i := range plans {
		p := &plans[i]
		if !p.fallback {
			continue
		}
		p.handIn = i > 0 && !plans[i-1].fallback
		p.handOut = i+1 < len(plans) && !plans[i+1].fallback
	}
}

// fellBack counts an operator the CPU runs instead of the unit — its
// operations, the weights and KV cache it reads through DRAM — and returns
// its tally, the bytes it moves and the CPU's compute time.
func (e *engine) fellBack(op workloads.Op) (t *tally, moved, cpu float64) {
	e.st.ops += op.FLOPs
	moved = op.Touch(workloads.Weights) + op.Touch(workloads.KVRead) + op.Touch(workloads.KVWrite)
	t = e.st.offUnit.of(tallyKey{op: string(op.Kind)})
	t.count++
	e.st.fallbackOps += op.FLOPs
	e.st.hostOps += op.FLOPs
	e.countDRAM(moved)
	return t, moved, e.hostSeconds(op)
}

// handedOff counts a hand-off of a tensor of bytes from one unit to
// another and returns its tally and the bytes it moves through DRAM: the
// tensor written by one side and read by the other.
func (e *engine) handedOff(from, to *hw.Unit, bytes float64) (*tally, float64) {
	t := e.st.offUnit.of(tallyKey{from: from.Name, to: to.Name})
	t.count++
	t.bytes += bytes
	e.countDRAM(2 * bytes)
	return t, 2 * bytes
}

// took adds a stretch of work off the unit to its tally and to the time
// the unit waited for it.
func (e *engine) took(t *tally, seconds float64) {
	t.seconds += seconds
	e.st.fallback += seconds
}

// handOffIn and handOffOut are the tensors a segment's hand-offs copy:
// the first operator's input, the last one's output.
func handOffIn(op workloads.Op) float64  { return op.Touch(workloads.Activations) - op.Out }
func handOffOut(op workloads.Op) float64 { return op.Out }

// hostDRAM is the rate the CPU streams bytes at: the DRAM's sequential
// rate, or less where the CPU's own draw caps it.
func (e *engine) hostDRAM() float64 {
	seq := float64(e.cfg.Chip.Memory.DRAM.Bandwidth) * float64(e.cfg.Chip.Memory.DRAM.SeqEfficiency)
	if draw := e.host.DRAMDraw(); draw > 0 && draw < seq {
		return draw
	}
	return seq
}

// runOnHost runs an operator on the CPU on the event kernel: the hand-off
// from the unit when it opens a segment, its weights and KV cache through
// DRAM and its compute, and the hand-off back when it closes one.
func (e *engine) runOnHost(op workloads.Op, p *opPlan, done func()) {
	body := func() {
		f, moved, cpu := e.fellBack(op)
		start := e.sim.Now()
		e.viaDRAM(moved, cpu, float64(e.host.OpCost()), func() {
			if e.trace != nil {
				end := e.now()
				e.trace.span(e.host.Name, "fallback "+string(op.Kind), "fallback", end-cpu, end, nil)
			}
			e.took(f, (e.sim.Now() - start).Seconds())
			if p.handOut {
				e.handOff(e.host, e.unit, handOffOut(op), done)
				return
			}
			done()
		})
	}
	if p.handIn {
		e.handOff(e.unit, e.host, handOffIn(op), body)
		return
	}
	body()
}

// handOff hands a tensor from one unit to the other on the event kernel:
// the synchronisation, then the copy through DRAM.
func (e *engine) handOff(from, to *hw.Unit, bytes float64, done func()) {
	t, moved := e.handedOff(from, to, bytes)
	start, begin := e.sim.Now(), e.now()
	e.sim.After(des.Seconds(float64(e.unit.FallbackSync)), func() {
		e.viaDRAM(moved, 0, 0, func() {
			if e.trace != nil {
				e.trace.span(e.host.Name, "hand-off "+from.Name+"→"+to.Name, "fallback", begin, e.now(), map[string]any{"bytes": bytes})
			}
			e.took(t, (e.sim.Now() - start).Seconds())
			done()
		})
	})
}

// viaDRAM moves bytes for the CPU over the DRAM link while it computes
// for cpu seconds, and takes fixed seconds more (an operator's dispatch):
// the link carries the bytes at its own rate (shared with the unit's own
// traffic), a CPU that draws less than the link gives takes longer, and
// the compute overlaps the stream.
func (e *engine) viaDRAM(bytes, cpu, fixed float64, done func()) {
	start := e.sim.Now()
	least := max(bytes/e.hostDRAM(), cpu) + fixed
	e.dram.Send(bytes, 0, func() {
		e.sim.After(des.Seconds(max(0, least-(e.sim.Now()-start).Seconds())), done)
	})
}

// analyticOnHost charges an operator run on the CPU at analytic fidelity:
// its hand-offs, and its dispatch and its bytes through DRAM at the CPU's
// rate overlapped with its compute.
func (e *engine) analyticOnHost(op workloads.Op, p *opPlan) float64 {
	var total float64
	handOff := func(from, to *hw.Unit, bytes float64) {
		h, moved := e.handedOff(from, to, bytes)
		t := float64(e.unit.FallbackSync) + moved/e.hostDRAM()
		e.took(h, t)
		total += t
	}
	if p.handIn {
		handOff(e.unit, e.host, handOffIn(op))
	}
	f, moved, cpu := e.fellBack(op)
	t := max(moved/e.hostDRAM(), cpu) + float64(e.host.OpCost())
	e.took(f, t)
	total += t
	if p.handOut {
		handOff(e.host, e.unit, handOffOut(op))
	}
	return total
}

// hostSeconds is an operator's compute time on the CPU: a matrix product
// at its kernels' share for the weights' format, as on any unit.
func (e *engine) hostSeconds(op workloads.Op) float64 {
	dt := e.hostDtype(e.cfg.Quant.ActDtype(op.Role))
	if op.Matrix && op.M > 0 {
		return e.host.MatmulSecondsFor(op.M, op.N, op.K, dt, e.clockOf(e.host), e.formatOf(op.WeightQuant))
	}
	return e.host.VectorSeconds(op.FLOPs, dt, e.clockOf(e.host))
}

// hostDtype is the dtype the host computes activations of dtype act in
// (hw.Unit.ComputeDtype), or its fastest when it has none at or above act.
func (e *engine) hostDtype(act dtype.Dtype) dtype.Dtype {
	dt, ok := e.host.ComputeDtype(act)
	if !ok {
		dt, _ = e.host.ComputeDtype("int4")
	}
	return dt
}
