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
// operator of a block placed on the CPU (Config.CPULayers) runs on the
// chip's CPU instead; every operator of a block placed on a third unit
// (Config.LayersOn: a GPU beside an NPU) runs there, at that unit's
// runtime, or on the CPU where that unit or its runtime does not run it.
// Consecutive operators on one unit form a segment: the unit before hands
// the segment's first input over once, the segment's unit runs the
// operators one after another — each dispatched as its runtime dispatches
// one (hw.Unit.OpCost), streaming its weights and KV cache from DRAM while
// it computes, its activations staying in its own caches — and the last
// hands its output back to the run's unit, or on to the next segment's,
// once. Each hand-off costs the accelerator's FallbackSync (the larger of
// two) and a copy of the tensor through DRAM, written by one side and read
// by the other. Work off the unit is timed as a roofline at its unit's
// figures; the run's unit alone is simulated tile by tile. A pass begins
// and ends with the host: a segment that opens a pass needs no hand-off
// in (the CPU holds the token ids), one that closes it none back (the CPU
// samples from the logits it computed).
// Only the tensor the segment's first operator reads and its last writes
// are copied; a skip connection reaching across a boundary (the residual
// of the block the boundary cuts) is not counted.

// tallyKey names what a tally adds up: the operators of one kind run on
// a unit off the run's (op, unit), or the hand-offs from one unit to
// another (from, to).
type tallyKey struct{ op, unit, from, to string }

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
		return cmp.Or(cmp.Compare(a.op, b.op), cmp.Compare(a.unit, b.unit), cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to))
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
func (ts *tallies) results() ([]Fallback, []Boundary) {
	fs, bs := []Fallback{}, []Boundary{}
	for _, k := range ts.order {
		t := ts.m[k]
		if k.op != "" {
			fs = append(fs, Fallback{Op: k.op, Unit: k.unit, Count: t.count, Seconds: t.seconds})
		} else {
			bs = append(bs, Boundary{From: k.from, To: k.to, Count: t.count, CopyBytes: t.bytes, Seconds: t.seconds})
		}
	}
	return fs, bs
}

// placeLayers places blocks on unit u beside the run's unit.
func (e *engine) placeLayers(l Layers, u *hw.Unit) {
	if e.layerOn == nil {
		e.layerOn = make([]*hw.Unit, e.cfg.Model.Layers)
	}
	for _, i := range l {
		e.layerOn[i] = u
	}
}

// offUnit is the unit an operator runs on instead of the run's, or nil
// when the run's unit runs it: the unit its block is placed on (the
// embedding going with the first block, the output norm and head with the
// last), and the CPU where that unit does not support the operator or its
// runtime leaves it to the CPU.
func (e *engine) offUnit(op *workloads.Op) *hw.Unit {
	if e.host == nil || e.host == e.unit {
		return nil
	}
	u, rt := e.unit, e.cfg.Runtime
	if e.layerOn != nil {
		layer := op.Layer
		if layer < 0 {
			layer = len(e.layerOn) - 1 // the output head
			if op.Kind == workloads.KindEmbed {
				layer = 0
			}
		}
		if on := e.layerOn[layer]; on != nil {
			u, rt = on, e.cfg.sideRuntime
		}
	}
	if u != e.host && (!u.Supports(string(op.Kind)) || rt.LeavesToCPU(string(op.Kind), op.Role == workloads.RoleOutput)) {
		u = e.host
	}
	if u == e.unit {
		return nil
	}
	return u
}

// handOffs marks, in a planned pass, the operators off the unit that open
// a segment (a hand-off before them, from the unit or from another unit
// off it) and those that close one (a hand-off back to the unit after
// them): one hand-off a boundary.
func handOffs(plans []opPlan) {
	for i := range plans {
		p := &plans[i]
		if p.on == nil {
			continue
		}
		p.handIn = i > 0 && plans[i-1].on != p.on
		if i > 0 {
			p.from = plans[i-1].on
		}
		p.handOut = i+1 < len(plans) && plans[i+1].on == nil
	}
}

// fellBack counts an operator unit u runs instead of the run's unit — its
// operations, the weights and KV cache it reads through DRAM — and returns
// its tally, the bytes it moves and its compute time.
func (e *engine) fellBack(u *hw.Unit, op workloads.Op) (t *tally, moved, compute float64) {
	e.st.ops += op.FLOPs
	moved = op.Touch(workloads.Weights) + op.Touch(workloads.KVRead) + op.Touch(workloads.KVWrite)
	t = e.st.offUnit.of(tallyKey{op: string(op.Kind), unit: u.Name})
	t.count++
	if u == e.host {
		e.st.fallbackOps += op.FLOPs
		e.st.hostOps += op.FLOPs
	} else {
		e.st.sideOps += op.FLOPs
	}
	e.countDRAM(moved)
	return t, moved, e.offUnitSeconds(u, op)
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
// the unit waited for it; on is the unit that worked (nil for a
// hand-off, whose synchronisation and copy the CPU drives), of which
// dispatch seconds the CPU spent dispatching the operator to it.
func (e *engine) took(t *tally, on *hw.Unit, seconds, dispatch float64) {
	t.seconds += seconds
	e.st.fallback += seconds
	if on != nil && on != e.host {
		e.st.side += seconds
		e.st.sideDispatch += dispatch
	}
}

// syncOf is what a hand-off between two units costs to synchronise: the
// accelerator's FallbackSync (the larger of two accelerators').
func (e *engine) syncOf(from, to *hw.Unit) float64 {
	s := 0.0
	for _, u := range [2]*hw.Unit{from, to} {
		if u != e.host {
			s = max(s, float64(u.FallbackSync))
		}
	}
	return s
}

// unitOr is u, or the run's unit for nil (a plan's unit).
func (e *engine) unitOr(u *hw.Unit) *hw.Unit {
	if u == nil {
		return e.unit
	}
	return u
}

// handOffIn and handOffOut are the tensors a segment's hand-offs copy:
// the first operator's input, the last one's output.
func handOffIn(op workloads.Op) float64  { return op.Touch(workloads.Activations) - op.Out }
func handOffOut(op workloads.Op) float64 { return op.Out }

// hostDRAM is the rate the CPU streams bytes at: the DRAM's sequential
// rate, or less where the CPU's own draw caps it.
func (e *engine) hostDRAM() float64 { return e.streamRate(e.host) }

// streamRate is the rate unit u streams bytes at off the run's unit: the
// DRAM's sequential rate, or less where u's own draw caps it.
func (e *engine) streamRate(u *hw.Unit) float64 {
	seq := float64(e.cfg.Chip.Memory.DRAM.Bandwidth) * float64(e.cfg.Chip.Memory.DRAM.SeqEfficiency)
	if draw := u.DRAMDraw(); draw > 0 && draw < seq {
		return draw
	}
	return seq
}

// runOff runs an operator off the run's unit on the event kernel: the
// hand-off to its unit when it opens a segment, its weights and KV cache
// through DRAM and its compute, and the hand-off back when it closes one.
func (e *engine) runOff(op workloads.Op, p *opPlan, done func()) {
	u := p.on
	body := func() {
		f, moved, compute := e.fellBack(u, op)
		start := e.sim.Now()
		e.viaDRAM(u, moved, compute, float64(u.OpCost()), func() {
			if e.trace != nil {
				end := e.now()
				e.trace.span(u.Name, "fallback "+string(op.Kind), "fallback", end-compute, end, nil)
			}
			e.took(f, u, (e.sim.Now() - start).Seconds(), float64(u.OpCost()))
			if p.handOut {
				e.handOff(u, e.unit, handOffOut(op), done)
				return
			}
			done()
		})
	}
	if p.handIn {
		e.handOff(e.unitOr(p.from), u, handOffIn(op), body)
		return
	}
	body()
}

// handOff hands a tensor from one unit to the other on the event kernel:
// the synchronisation, then the copy through DRAM.
func (e *engine) handOff(from, to *hw.Unit, bytes float64, done func()) {
	t, moved := e.handedOff(from, to, bytes)
	start, begin := e.sim.Now(), e.now()
	e.sim.After(des.Seconds(e.syncOf(from, to)), func() {
		e.viaDRAM(e.host, moved, 0, 0, func() {
			if e.trace != nil {
				e.trace.span(e.host.Name, "hand-off "+from.Name+"→"+to.Name, "fallback", begin, e.now(), map[string]any{"bytes": bytes})
			}
			e.took(t, nil, (e.sim.Now() - start).Seconds(), 0)
			done()
		})
	})
}

// viaDRAM moves bytes for unit u over the DRAM link while it computes for
// compute seconds, and takes fixed seconds more (an operator's dispatch):
// the link carries the bytes at its own rate (shared with the run's unit's
// traffic), a unit that draws less than the link gives takes longer, and
// the compute overlaps the stream.
func (e *engine) viaDRAM(u *hw.Unit, bytes, compute, fixed float64, done func()) {
	start := e.sim.Now()
	least := max(bytes/e.streamRate(u), compute) + fixed
	e.dram.Send(bytes, 0, func() {
		e.sim.After(des.Seconds(max(0, least-(e.sim.Now()-start).Seconds())), done)
	})
}

// analyticOff charges an operator run off the unit at analytic fidelity:
// its hand-offs, and its dispatch and its bytes through DRAM at its unit's
// rate overlapped with its compute.
func (e *engine) analyticOff(op workloads.Op, p *opPlan) float64 {
	u := p.on
	var total float64
	handOff := func(from, to *hw.Unit, bytes float64) {
		h, moved := e.handedOff(from, to, bytes)
		t := e.syncOf(from, to) + moved/e.hostDRAM()
		e.took(h, nil, t, 0)
		total += t
	}
	if p.handIn {
		handOff(e.unitOr(p.from), u, handOffIn(op))
	}
	f, moved, compute := e.fellBack(u, op)
	t := max(moved/e.streamRate(u), compute) + float64(u.OpCost())
	e.took(f, u, t, float64(u.OpCost()))
	total += t
	if p.handOut {
		handOff(u, e.unit, handOffOut(op))
	}
	return total
}

// offUnitSeconds is an operator's compute time on unit u off the run's
// unit: a matrix product at its kernels' share for the weights' format, as
// on any unit.
func (e *engine) offUnitSeconds(u *hw.Unit, op workloads.Op) float64 {
	dt := offUnitDtype(u, e.cfg.Quant.ActDtype(op.Role))
	if op.Matrix && op.M > 0 {
		return u.MatmulSecondsFor(op.M, op.N, op.K, dt, e.clockOf(u), e.formatOf(op.WeightQuant))
	}
	return u.VectorSeconds(op.FLOPs, dt, e.clockOf(u))
}

// offUnitDtype is the dtype unit u computes activations of dtype act in
// (hw.Unit.ComputeDtype), or its fastest when it has none at or above act.
func offUnitDtype(u *hw.Unit, act dtype.Dtype) dtype.Dtype {
	dt, ok := u.ComputeDtype(act)
	if !ok {
		dt, _ = u.ComputeDtype("int4")
	}
	return dt
}
