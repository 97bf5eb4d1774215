package sim

import (
	"math"
	"slices"
	"sync"

	"github.com/edgetwin/edgetwin/hw/cache"
	"github.com/edgetwin/edgetwin/workloads"
)

// A prefill that runs again with the same work — every request of a
// sustained session prefills the same prompt into a fresh context — finds
// the same L3 outcome: its lookups follow the same addresses in the same
// order (the stream issues tiles in program order, whatever the clocks),
// and its activations and KV, gigabytes of them, sweep out whatever the
// request before left in the L3. The first such pass records the bytes
// each lookup hit and the L3 it leaves; the later ones take those hits
// instead of looking up again, and leave the L3 as recorded. Their timing
// is simulated as ever, at their own clocks. TestPrefillReplay holds a
// session with replays to one without under 0.5%.
const maxRecordings = 4 // distinct prefills remembered

// recordingKey is what a pass's L3 outcome depends on.
type recordingKey struct {
	tokens, context, batch int
	seed                   uint64 // routing: only for MoE models
}

// recording is one pass's L3 outcome: the bytes each lookup hit, in
// order, and the L3 it left.
type recording struct {
	hits []int64
	end  *cache.State
	next int // the next lookup, while replaying
}

// startReplay prepares pass w: it replays a recording of the same work if
// there is one, or records one.
func (e *engine) startReplay(w workloads.Work) {
	e.recording, e.replaying = nil, false
	if w.Phase != workloads.Prefill || e.l3c == nil || !e.cfg.takes(prefillReplay) {
		return
	}
	k := recordingKey{tokens: w.Tokens, context: w.Context, batch: w.Batch}
	if e.cfg.Model.MoE != nil {
		k.seed = w.Seed
	}
	if r, ok := e.recordings[k]; ok {
		r.next = 0
		e.recording, e.replaying = r, true
		return
	}
	if len(e.recordings) < maxRecordings {
		r := &recording{}
		e.recordings[k] = r
		e.recording = r
	}
}

// lookup runs a span through the L3 (layerLookup), or takes its recorded
// outcome.
func (e *engine) lookup(s span) int64 {
	r := e.recording
	switch {
	case r != nil && e.replaying && r.next < len(r.hits):
		r.next++
		return r.hits[r.next-1]
	case r != nil && !e.replaying:
		hit := e.layerLookup(s)
		r.hits = append(r.hits, hit)
		return hit
	}
	return e.layerLookup(s)
}

// endReplay ends the pass: a recording keeps the L3 it leaves, a replay
// puts it back.
func (e *engine) endReplay() {
	switch r := e.recording; {
	case r == nil:
	case e.replaying:
		e.l3c.Restore(r.end)
	default:
		r.end = e.l3c.Save()
	}
	e.recording, e.replaying = nil, false
}

// FirstPrefills shares the L3 outcome of runs' first prefill among the
// runs of one command: advise reruns each chip with one figure changed
// at a time (a bandwidth, a peak, a thermal resistance), which leaves the
// first prefill's lookups as they were. A run's first pass starts from
// the empty L3 and looks its blocks up in an order that follows from its
// plan alone (the addresses, sizes and kinds of its spans, the L3 and how
// each class uses it), never from its timing; a run whose first prefill
// has a plan some run recorded, bit for bit, replays that recording
// instead of looking up again (as the later prefills of a sustained
// session replay the first's), with the same hits and the same L3 after.
// Safe for concurrent use; the zero value is ready.
// TestFirstPrefills holds runs sharing it to runs without it, result for
// result.
type FirstPrefills struct {
	mu   sync.Mutex
	seen []firstPrefill
}

// firstPrefill is a recorded first prefill: its lookups' inputs and
// their outcome, which nobody changes once shared.
type firstPrefill struct {
	plan []uint64
	rec  *recording
}

// shareFirst turns the recording the run's first prefill would make into
// a replay of a shared one with the same plan, when there is one, and
// returns the plan's signature when the pass may be shared (nil if not).
func (e *engine) shareFirst(plans []opPlan) []uint64 {
	m, r := e.cfg.Prefills, e.recording
	if m == nil || r == nil || e.replaying || e.firstDone {
		return nil
	}
	plan := e.lookupSignature(plans)
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, f := range m.seen {
		if slices.Equal(f.plan, plan) {
			r.hits, r.end = f.rec.hits, f.rec.end
			e.replaying = true
			return nil
		}
	}
	return plan
}

// shareRecorded shares r, the first prefill the run recorded, whose
// plan's signature is plan (nil: none to share).
func (e *engine) shareRecorded(plan []uint64, r *recording) {
	if plan == nil || r == nil || r.end == nil {
		return
	}
	m := e.cfg.Prefills
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen = append(m.seen, firstPrefill{plan: plan, rec: &recording{hits: r.hits, end: r.end}})
}

// lookupSignature is, bit for bit, everything a pass's L3 lookups depend
// on: the L3's geometry and policy, how each class uses it, and every
// operator's spans and tiles.
func (e *engine) lookupSignature(plans []opPlan) []uint64 {
	f := math.Float64bits
	g := e.l3c.Geometry()
	sig := []uint64{uint64(g.Size), uint64(g.Ways), uint64(g.Block), f(e.line)}
	for _, c := range e.cfg.Chip.Memory.L3.Replacement {
		sig = append(sig, uint64(c))
	}
	for _, r := range e.requests {
		var flags uint64
		if r.Allocate {
			flags |= 1
		}
		if r.Lock {
			flags |= 2
		}
		sig = append(sig, flags, uint64(r.Class), uint64(r.Ways))
	}
	for i := range plans {
		p := &plans[i]
		var fallback uint64
		if p.on != nil {
			fallback = 1
		}
		sig = append(sig, fallback, uint64(p.tiles), uint64(p.spillScan.lo), uint64(p.spillScan.hi), uint64(len(p.spans)))
		for _, s := range p.spans {
			var flags uint64
			for k, b := range [...]bool{s.write, s.scan, s.flush} {
				if b {
					flags |= 1 << k
				}
			}
			sig = append(sig, uint64(s.addr), f(s.bytes), uint64(s.class), flags)
		}
	}
	return sig
}
