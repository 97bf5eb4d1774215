package sim

import (
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

// lookup runs a span through the L3 (cachePages), or takes its recorded
// outcome.
func (e *engine) lookup(s span) int64 {
	r := e.recording
	switch {
	case r != nil && e.replaying && r.next < len(r.hits):
		r.next++
		return r.hits[r.next-1]
	case r != nil && !e.replaying:
		hit := e.cachePages(s.addr, int64(s.bytes), e.requests[s.class])
		r.hits = append(r.hits, hit)
		return hit
	}
	return e.cachePages(s.addr, int64(s.bytes), e.requests[s.class])
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
