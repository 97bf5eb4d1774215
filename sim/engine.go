package sim

import (
	"math"
	"strconv"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/cache"
	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/sim/des"
	"github.com/edgetwin/edgetwin/workloads"
)

// Tile sizes: a quarter of the unit's SRAM (two buffers in flight, each
// at most half of what is left for activations), clamped so a tile is
// neither a DMA descriptor's worth nor a whole layer.
const (
	minTileBytes = 64 << 10
	maxTileBytes = 1 << 20
	// minCacheBlock is the coarsest granularity the tile fidelity tracks
	// the L3 at; blocks never exceed 1/64 of a way.
	minCacheBlock = 32 << 10
	// sampleOpsPerLogit is the host work to sample one token: softmax,
	// top-k/top-p filtering and the draw, about five operations per logit.
	sampleOpsPerLogit = 5
)

// engine executes lowered operators on one chip.
type engine struct {
	cfg  *Config
	unit *hw.Unit // runs the matrix work
	dt   dtype.Dtype
	vdt  dtype.Dtype // dtype of vector work on unit
	host *hw.Unit    // the CPU: sampling

	sim      *des.Sim
	dram, l3 *des.Link
	l3c      *cache.Cache
	line     float64
	tile     float64
	kvLayer  float64 // KV bytes per token per layer, all sequences
	layout   layout
	st       stats
	dramBW   float64 // achievable sequential DRAM bandwidth, bytes/s
	l3BW     float64
	passes   int            // passes run so far (the analytic L3 estimate needs it)
	work     workloads.Work // the pass being run
}

// stats are the run's counters, in seconds, bytes and cache lines.
type stats struct {
	compute, stallMem, dispatch, host float64
	ops                               float64
	dramBytes, l3HitBytes             float64
	l3Lines, l3MissLines              float64
	kvLines, kvMissLines              float64
}

func newEngine(c *Config, unit *hw.Unit, dt dtype.Dtype) *engine {
	chip := &c.Chip.SoC
	e := &engine{cfg: c, unit: unit, dt: dt, vdt: dt, sim: des.New()}
	if _, ok := unit.Peak[dtype.FP16]; ok {
		e.vdt = dtype.FP16
	}
	for i := range chip.Units {
		if chip.Units[i].Kind == hw.CPU {
			e.host = &chip.Units[i]
			break
		}
	}
	d := chip.Memory.DRAM
	l3 := chip.Memory.L3
	e.dramBW = float64(d.Bandwidth) * float64(d.SeqEfficiency)
	e.l3BW = float64(l3.Bandwidth)
	e.dram = des.NewLink(e.sim, "dram", e.dramBW)
	e.l3 = des.NewLink(e.sim, "l3", e.l3BW)
	e.line = float64(l3.Line)
	e.l3c = cache.New(cacheGeometry(l3))
	e.tile = math.Min(maxTileBytes, math.Max(minTileBytes, float64(unit.SRAM)/4))
	e.kvLayer = c.Model.KVBytesPerToken(c.KV) / float64(c.Model.Layers)
	e.layout = layout{addr: map[string]int64{}}
	return e
}

// cacheGeometry coarsens the L3 to blocks of at least minCacheBlock while
// keeping at least one block per way.
func cacheGeometry(c hw.Cache) cache.Geometry {
	way := int64(c.Size) / int64(c.Ways)
	block := int64(c.Line)
	for block < minCacheBlock && way%(block*2) == 0 && way/(block*2) >= 1 {
		block *= 2
	}
	return cache.Geometry{Size: int64(c.Size), Ways: c.Ways, Block: block}
}

// layout gives every tensor an address range, in the order first seen.
type layout struct {
	addr map[string]int64
	next int64
}

func (l *layout) of(name string, size float64) int64 {
	if a, ok := l.addr[name]; ok {
		return a
	}
	const page = 4096
	a := l.next
	l.addr[name] = a
	l.next += (int64(size) + page - 1) / page * page
	return a
}

// span is a contiguous range of one tensor class read or written by a tile.
type span struct {
	addr  int64
	bytes float64
	kv    bool
	write bool
}

// tile is the unit of DMA and compute.
type tile struct {
	spans   []span
	compute float64 // seconds on the unit
}

// spansOf lists the bytes an operator streams. Weight and KV bytes stream
// from their home in DRAM through the L3; activations stay in SRAM unless
// they exceed half of it, when they spill through the L3 too.
func (e *engine) spansOf(op workloads.Op) []span {
	var spans []span
	if w := op.Touch(workloads.Weights); w > 0 {
		spans = append(spans, span{addr: e.layout.of(op.Tensor, w), bytes: w})
	}
	if op.Kind == workloads.KindAttention {
		base := e.layout.of(kvName(op.Layer), e.kvLayer*float64(e.cfg.Prompt+e.cfg.Gen))
		r := op.Touch(workloads.KVRead)
		spans = append(spans, span{addr: base, bytes: r, kv: true})
		if w := op.Touch(workloads.KVWrite); w > 0 {
			spans = append(spans, span{addr: base + int64(r), bytes: w, kv: true, write: true})
		}
	}
	if a := op.Touch(workloads.Activations); a > float64(e.unit.SRAM)/2 {
		spans = append(spans, span{addr: e.layout.of("activations", float64(e.unit.SRAM)*8), bytes: a})
	}
	return spans
}

// computeSeconds is an operator's time on the unit once its data is in
// SRAM: the compute model, or reading the bytes out of SRAM if slower.
func (e *engine) computeSeconds(op workloads.Op, streamed float64) float64 {
	return math.Max(e.opSeconds(op), streamed/float64(e.unit.SRAMBandwidth))
}

// tiles cuts an operator into tiles of at most e.tile streamed bytes, each
// with its share of every span and of the compute.
func (e *engine) tiles(op workloads.Op) []tile {
	whole := e.spansOf(op)
	var stream float64
	for _, s := range whole {
		stream += s.bytes
	}
	n := max(1, int(math.Ceil(stream/e.tile)))
	compute := e.computeSeconds(op, stream) / float64(n)
	ts := make([]tile, n)
	slab := make([]span, n*len(whole)) // one allocation for every tile's spans
	for i := range ts {
		t := &ts[i]
		t.compute = compute
		t.spans = slab[i*len(whole) : (i+1)*len(whole)]
		for k, s := range whole {
			part := s.bytes / float64(n)
			t.spans[k] = span{addr: s.addr + int64(part*float64(i)), bytes: part, kv: s.kv, write: s.write}
		}
	}
	return ts
}

func kvName(layer int) string { return "kv." + strconv.Itoa(layer) }

// opSeconds is the compute time of an operator on the matrix unit.
func (e *engine) opSeconds(op workloads.Op) float64 {
	u := e.unit
	switch {
	case op.Kind == workloads.KindAttention:
		return e.attentionSeconds(op)
	case op.Matrix && op.M > 0:
		return u.MatmulSeconds(op.M, op.N, op.K, e.dt, 0)
	}
	return u.VectorSeconds(op.FLOPs, e.vdt, 0)
}

// attentionSeconds times QKᵀ and AV as matrix products per KV head: the
// queries that share a KV head (the GQA group, times the new tokens) form
// the rows, the context the columns, the head dimension the reduction.
func (e *engine) attentionSeconds(op workloads.Op) float64 {
	m := e.cfg.Model
	b := e.cfg.Batch
	tokens := max(1, e.work.Tokens)
	group := m.Heads / m.KVHeads
	hd := m.HeadDimension()
	// FLOPs = 4 · heads · head_dim · Σ context over the new tokens, per sequence.
	ctx := op.FLOPs / (4 * float64(m.Heads) * float64(hd) * float64(tokens) * float64(b))
	one := e.unit.MatmulSeconds(group*tokens, max(1, int(math.Round(ctx))), hd, e.vdt, 0)
	return 2 * float64(m.KVHeads) * float64(b) * one
}

// access charges a span to the L3 and returns the bytes that hit.
func (e *engine) access(s span) float64 {
	hit := float64(e.l3c.AccessRange(s.addr, int64(s.bytes), true))
	lines := s.bytes / e.line
	miss := (s.bytes - hit) / e.line
	e.st.l3Lines += lines
	e.st.l3MissLines += miss
	if s.kv {
		e.st.kvLines += lines
		e.st.kvMissLines += miss
	}
	if s.write { // write-allocate and write-through: the bytes reach DRAM
		return 0
	}
	return hit
}
