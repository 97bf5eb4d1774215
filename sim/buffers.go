package sim

import (
	"sync"

	"github.com/edgetwin/edgetwin/workloads"
)

// passBuffers are the slices an engine's passes reuse (engine.opBuf and
// the rest beside it). A finished run hands them to the next through
// bufferPool, so that the thousands of runs of a sweep do not each grow
// them from nothing: growing them was a quarter of an analytic sweep
// point's time (BenchmarkSweepPointAnalytic).
type passBuffers struct {
	ops       []workloads.Op
	tiles     []streamTile
	spans     []span
	pipe      []float64
	plans     []opPlan
	planSpans []span
	extents   []extent
	spills    []float64
	// The layout's address map, emptied, and its KV names ("kv.0", …, the
	// same in every run).
	addr   map[string]int64
	kvName []string
}

var bufferPool = sync.Pool{New: func() any { return new(passBuffers) }}

// takeBuffers gives e the buffers a finished run left, if any.
func (e *engine) takeBuffers() {
	b := bufferPool.Get().(*passBuffers)
	e.opBuf, e.tileBuf, e.spanBuf, e.pipeBuf = b.ops[:0], b.tiles[:0], b.spans[:0], b.pipe[:0]
	e.planBuf, e.planSpans, e.planExtents, e.spillSeen = b.plans[:0], b.planSpans[:0], b.extents[:0], b.spills[:0]
	clear(b.addr)
	e.layout = layout{addr: b.addr, kvName: b.kvName}
	*b = passBuffers{}
	e.bufs = b
}

// releaseBuffers hands e's buffers on to the next run; e runs no more
// passes. Nothing a result holds points into them.
func (e *engine) releaseBuffers() {
	b := e.bufs
	if b == nil {
		return
	}
	e.bufs = nil
	*b = passBuffers{ops: e.opBuf[:0], tiles: e.tileBuf[:0], spans: e.spanBuf[:0], pipe: e.pipeBuf[:0],
		plans: e.planBuf[:0], planSpans: e.planSpans[:0], extents: e.planExtents[:0], spills: e.spillSeen[:0],
		addr: e.layout.addr, kvName: e.layout.kvName}
	e.layout = layout{}
	e.opBuf, e.tileBuf, e.spanBuf, e.pipeBuf, e.planBuf, e.planSpans, e.planExtents, e.spillSeen = nil, nil, nil, nil, nil, nil, nil, nil
	bufferPool.Put(b)
}
