package sim

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/cache"
	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/sim/des"
	"github.com/edgetwin/edgetwin/workloads"
)

// Tile sizes: a quarter of the SRAM left for streaming (two buffers in
// flight, each at most half of what is left beside activations), clamped
// so a tile is neither a DMA descriptor's worth nor a whole layer.
const (
	minTileBytes = 64 << 10
	maxTileBytes = 1 << 20
	// sampleOpsPerLogit is the host's arithmetic to sample one token
	// (softmax, top-k/top-p filtering and the draw, about five operations
	// a logit), for its energy; its time is samplerCycles'.
	sampleOpsPerLogit = 5
	// randomRun is the access size at which memory.dram.random_penalty is
	// defined: random 4 KiB reads.
	randomRun = 4096
)

// engine executes lowered operators on one chip under one placement
// policy. It is built once per run and keeps the L3's state across passes.
type engine struct {
	cfg  *Config
	pol  *Policy
	unit *hw.Unit // runs the matrix work
	dt   dtype.Dtype
	vdt  dtype.Dtype // dtype of vector work on unit
	host *hw.Unit    // the CPU: sampling and fallbacks
	// side is the third unit of a layer split (Config.LayersOn), nil
	// when there is none; sideDt the dtype it computes the model's
	// operators in.
	side   *hw.Unit
	sideDt dtype.Dtype
	// layerOn is the unit each block is placed on off the unit (the host
	// for Config.CPULayers, side for Config.LayersOn; nil: the unit); nil
	// when no block is.
	layerOn []*hw.Unit
	hostDt  dtype.Dtype // the dtype the host computes the model's operators in

	sim      *des.Sim
	dram, l3 *des.Link
	dramBW   float64 // achievable sequential DRAM bandwidth, bytes/s
	l3BW     float64
	l3c      *cache.Cache // the L3 simulated (tile and line fidelity); nil when the unit does not share it
	// sharesL3 says the unit's traffic goes through the L3, l3Block the
	// block it is tracked in (analytic fidelity estimates it instead).
	sharesL3 bool
	l3Block  int64
	l3Size   float64
	line     float64
	requests [numClasses]cache.Request // how each class touches the L3
	shared   cache.WayMask             // the ways no class reserved
	dma      *dmaQueue

	tile      float64 // streamed bytes per tile
	buffers   int     // tiles that fit in SRAM at once
	actBudget float64 // bytes of activations an operator keeps in SRAM
	// kvResident is the KV-cache bytes per layer kept in SRAM (home sram).
	kvResident float64
	kvLayer    float64 // KV bytes per token per layer, all sequences
	// rowMiss is the DRAM cost, in bytes of sequential transfer, of a run
	// that opens a new row: (random_penalty − 1) × 4 KiB, so that random
	// 4 KiB reads take random_penalty times as long as sequential ones.
	rowMiss float64
	rowSize float64

	layout layout
	// lastFormat is the last weight format formatOf lowered, and its
	// lower-case name.
	lastFormat [2]string
	matmuls    []quantMatmul // the unit's matrix-product models by quant (matmul)
	st         stats
	passes     int    // passes run so far (the analytic L3 estimate needs it)
	trace      *Trace // nil unless the run records a timeline
	heat       *heat
	deposit    deposit  // scratch: where the current stretch's energy goes (energy, heat.step)
	steps      stepLog  // what the result needs of the decode steps
	stepBase   int      // context before the current decode's first step
	memo       stepMemo // decode steps simulated in full, for reuse
	stageUnit  *hw.Unit // the unit a pipeline stage runs on, while it runs
	// stepSeqs, under a serve scenario, are the sequences the steps run
	// now, stepTokens those of them still answering (0: the run's batch).
	stepSeqs, stepTokens int
	// overlap is, while a turn decodes, the seconds of each token's stages
	// that run beside the next step (workloads.Stage.Overlap).
	overlap float64
	stopAt  float64 // a session's end, seconds of the run; 0 for one request
	kvScan  bool    // this pass's KV reads cannot hit: see scanBypass
	// weightScan says which weight classes' reads cannot hit this pass
	// (weightScans).
	weightScan [numClasses]bool
	// spillReach is the reuse distance past which a spilled block cannot
	// hit (spill.go); 0 where the spill bypass does not apply.
	spillReach float64
	clock      float64        // the run's one clock: seconds so far, moved only by advance, to a stretch's end
	lead       float64        // seconds of the current stretch run so far (its passes and sampling), while clock stands at its start
	passSim    des.Time       // the event kernel's time when the current pass began (or the last one ended)
	work       workloads.Work // the pass being run
	spec       *speculation   // speculative decoding's draft, when the run has one
	mem        memoryPlan     // where the weights and the KV cache live: mapped past the budget, streamed, read by neuron, swapped
	swapAt     *float64       // run time the KV cache first swapped
	swapPeak   float64        // the most KV bytes swapped at once
	sched      *scheduler     // the scheduling policy at work, when the run has one
	overflow   error          // the first pass whose simulated time overflowed the clock
	stop       func()         // ends the session early (after an overflow); nil on side engines
	resting    float64        // seconds the SoC has rested so far in this idle stretch; −1 while it works

	recordings map[recordingKey]*recording // prefills' L3 outcomes (replay.go)
	recording  *recording                  // the current pass's, if any
	replaying  bool                        // the current pass takes its hits from recording
	firstDone  bool                        // a pass has run: the L3 is no longer the empty one (FirstPrefills)
	layers     replayedLayers              // the current prefill's layers that replay the one before (layerreplay.go)

	// Buffers the passes reuse, so a pass allocates little.
	opBuf       []workloads.Op // the pass's operators (lower)
	tileBuf     []streamTile
	spanBuf     []span
	pipeBuf     []float64 // the analytic pass's pipe, reused
	planBuf     []opPlan  // the pass's plan (plan)
	planSpans   []span
	planExtents []extent
	spillSeen   []float64    // the pass's spills so far, for the spill bypass (spillScan)
	layerSigBuf []uint64     // the pass's layer signatures (layerSignatures)
	loadSpare   []*tileLoad  // tile loads done with, for reuse (tile.go)
	exec        executor     // runs each pass's plan: events or arithmetic, by fidelity
	bufs        *passBuffers // where the buffers above came from and go back to (buffers.go)
}

// counters are the run's additive figures, in seconds, bytes and cache
// lines; decode steps that are not simulated add an interpolated share.
type counters struct {
	compute, stallMem, dispatch, host, fallback float64
	bankConflict                                float64
	ops                                         float64 // useful ops, wherever they ran
	fallbackOps, hostOps                        float64 // of which on the CPU; and all CPU ops (sampling too)
	side, sideOps, sideDispatch                 float64 // of fallback, the seconds and ops on the third unit of a split, and the CPU's dispatching to it
	stage                                       float64 // seconds of pipeline-stage work on engine.stageUnit
	storageBytes                                float64 // read from storage (a cold start, paged weights)
	paging                                      float64 // seconds waiting for weights paged in from storage
	dramBytes, l3HitBytes, sramBytes            float64
	lines, missLines                            [2][numClasses]float64 // by phase
	// writeMissLines are the misses of looked-up writes among missLines:
	// a leap replays the writes it skips through the L3 and counts their
	// own misses instead of the period's (stream.skip).
	writeMissLines [2][numClasses]float64
	dramByPhase    [2]float64
}

// add sets c to c + k·d.
func (c *counters) add(d counters, k float64) {
	c.compute += k * d.compute
	c.stallMem += k * d.stallMem
	c.dispatch += k * d.dispatch
	c.host += k * d.host
	c.fallback += k * d.fallback
	c.bankConflict += k * d.bankConflict
	c.ops += k * d.ops
	c.fallbackOps += k * d.fallbackOps
	c.side += k * d.side
	c.sideOps += k * d.sideOps
	c.sideDispatch += k * d.sideDispatch
	c.hostOps += k * d.hostOps
	c.stage += k * d.stage
	c.storageBytes += k * d.storageBytes
	c.paging += k * d.paging
	c.dramBytes += k * d.dramBytes
	c.l3HitBytes += k * d.l3HitBytes
	c.sramBytes += k * d.sramBytes
	for p := range c.lines {
		for k2 := range c.lines[p] {
			c.lines[p][k2] += k * d.lines[p][k2]
			c.missLines[p][k2] += k * d.missLines[p][k2]
			c.writeMissLines[p][k2] += k * d.writeMissLines[p][k2]
		}
		c.dramByPhase[p] += k * d.dramByPhase[p]
	}
}

// near reports whether c and o agree to a part in 10⁹ in the fields a
// pass's time and traffic are made of (the read misses among them: a
// leap recounts the misses of the writes it skips, see stream.skip).
func (c counters) near(o counters) bool {
	var lc, lo, mc, mo float64
	for k := range c.lines[workloads.Prefill] {
		lc += c.lines[workloads.Prefill][k] + c.lines[workloads.Decode][k]
		lo += o.lines[workloads.Prefill][k] + o.lines[workloads.Decode][k]
		for p := range c.missLines {
			mc += c.missLines[p][k] - c.writeMissLines[p][k]
			mo += o.missLines[p][k] - o.writeMissLines[p][k]
		}
	}
	pairs := [...][2]float64{
		{c.compute, o.compute}, {c.stallMem, o.stallMem}, {c.dispatch, o.dispatch},
		{c.bankConflict, o.bankConflict}, {c.ops, o.ops}, {c.dramBytes, o.dramBytes},
		{c.l3HitBytes, o.l3HitBytes}, {c.sramBytes, o.sramBytes}, {lc, lo}, {mc, mo},
	}
	for _, p := range pairs {
		if math.Abs(p[0]-p[1]) > 1e-9*max(math.Abs(p[0]), math.Abs(p[1])) {
			return false
		}
	}
	return true
}

// minus is c − o.
func (c counters) minus(o counters) counters {
	o2 := c
	o2.add(o, -1)
	return o2
}

// stats are the run's counters plus what is not additive.
type stats struct {
	counters
	offUnit      tallies           // fallbacks and hand-offs (handoff.go)
	samples      []BandwidthSample // the last passes' samples; see addSample
	bandwidth    bandwidthLog      // the samples before them
	paddedTokens int               // prompt tokens a compiled prefill graph computed past the prompt
	energy       [2]energyParts    // by phase
	peakPower    float64           // watts, the highest of any pass
	// overPMIC is the time stretches drew more than the PMIC's limit, and
	// worst the stretch that drew the most above it.
	overPMIC float64
	worst    struct {
		watts, at float64
		label     string
	}
	// points counts the stretches of the run's series (for the step
	// budget), recent keeps the last of them (for the recent power), and
	// point holds the slices of the point handed to the sink.
	points int
	recent powerTail
	point  SeriesPoint
}

func newEngine(c *Config, pol *Policy, unit *hw.Unit, dt dtype.Dtype) (*engine, error) {
	chip := &c.Chip.SoC
	e := &engine{cfg: c, pol: pol, unit: unit, dt: dt, vdt: dt, sim: des.New(), trace: c.Trace, memo: stepMemo{}, recordings: map[recordingKey]*recording{}}
	e.takeBuffers()
	e.resting = -1
	h, err := newHeat(chip)
	if err != nil {
		return nil, err
	}
	e.heat = h
	e.deposit.node = make([]float64, h.net.Len())
	if _, ok := unit.Peak[dtype.FP16]; ok {
		e.vdt = dtype.FP16
	}
	e.host = hostCPU(c.Chip)
	if e.host != nil {
		e.hostDt = offUnitDtype(e.host, c.Quant.ActDtype(workloads.RoleFFN))
	}
	if len(c.CPULayers) > 0 {
		switch {
		case e.host == nil:
			return nil, spec.FieldErrorf("cpu-layers", "%s has no CPU to place blocks on", c.Chip.ID)
		case e.host == unit:
			return nil, spec.FieldErrorf("cpu-layers", "the run's unit is the CPU (%s) already: a layer split places blocks on the CPU beside another unit (unit)", unit.Name)
		}
		e.placeLayers(c.CPULayers, e.host)
	}
	if on := c.LayersOn; len(on.Layers) > 0 {
		e.side = c.Chip.Unit(on.Unit)
		if e.side == unit {
			return nil, spec.FieldErrorf("layers-on", "%s is the run's unit already: a split places blocks on another (unit)", unit.Name)
		}
		e.sideDt = offUnitDtype(e.side, c.Quant.ActDtype(workloads.RoleFFN))
		e.placeLayers(on.Layers, e.side)
	}
	d := chip.Memory.DRAM
	l3 := chip.Memory.L3
	e.dramBW = float64(d.Bandwidth) * float64(d.SeqEfficiency)
	if draw := unit.DRAMDraw(); draw > 0 && draw < e.dramBW {
		e.dramBW = draw // a CPU's cores, or a unit's port of the fabric, draw less than the DRAM gives
	}
	e.l3BW = float64(l3.Bandwidth)
	e.dram = des.NewLink(e.sim, "dram", e.dramBW)
	e.l3 = des.NewLink(e.sim, "l3", e.l3BW)
	e.dma = newDMAQueue(e.sim, e.dram, e.l3, float64(d.Latency), float64(l3.Latency), chip.DMA.Channels, float64(chip.DMA.Setup))
	if e.trace != nil {
		e.dma.now = e.now
		e.dma.trace = func(ch int, start, bytes float64) {
			e.trace.span("dma "+strconv.Itoa(ch), "descriptor", "dma", start, e.now(), map[string]any{"bytes": bytes})
		}
	}
	e.line = float64(l3.Line)
	e.l3Size = float64(l3.Size)
	e.rowMiss = (d.RandomPenalty - 1) * randomRun
	e.rowSize = float64(d.RowSize)
	e.kvLayer = c.Model.KVBytesPerToken(c.KV) / float64(c.Model.Layers) * float64(c.runBatch())
	// Every tensor of the model, every layer's KV cache and the spill
	// buffer: room for all at once, as a pass names them all.
	if e.layout.addr == nil { // no finished run left one (takeBuffers)
		e.layout.addr = make(map[string]int64, c.compiled().Tensors()+c.Model.Layers+1)
	}

	if l3.Shares(unit.Name) {
		g := cache.TileGeometry(int64(l3.Size), l3.Ways, int64(l3.Line))
		opt := c.Fidelity.Options()
		if opt.Lines {
			g.Block = int64(l3.Line)
		}
		e.sharesL3, e.l3Block = true, g.Block
		if opt.Events {
			e.l3c = cache.New(cache.Config{Geometry: g, Replacement: cache.Replacement(l3.Replacement)})
		}
		e.requests, e.shared = l3Requests(pol, l3.Ways)
		e.spillReach = e.spillBypassReach()
	}

	// SRAM: the KV cache's resident share first, then streaming buffers.
	sram := float64(unit.SRAM)
	if kv := pol.placement(classKV); kv.Home == HomeSRAM {
		need := c.Model.KVBytes(c.KV, c.context()) * float64(c.runBatch())
		e.kvResident = min(need, float64(kv.SRAM)*sram) / float64(c.Model.Layers)
		sram -= e.kvResident * float64(c.Model.Layers)
	}
	e.tile = min(maxTileBytes, max(minTileBytes, sram/4))
	e.actBudget = sram / 2
	e.buffers = 2
	if sram < 2*e.tile {
		e.buffers = 1 // no room to double-buffer: DMA and compute alternate
	}
	e.exec = e.newExecutor()
	if sram < e.tile {
		return nil, spec.Errorf("policy %s leaves %s of %s's SRAM for streaming tiles; it needs at least %s", pol.Name, units.Approx(max(0, sram), units.KindBytes), unit.Name, units.Approx(minTileBytes, units.KindBytes))
	}
	return e, nil
}

// l3Requests turns the policy into L3 requests per class: classes with an
// l3_share get disjoint ways (KV first, then experts, FFN, weights,
// activations); the others share the ways nobody reserved, and stream
// without allocating when there are none.
func l3Requests(pol *Policy, ways int) (reqs [numClasses]cache.Request, free cache.WayMask) {
	order := []class{classKV, classExperts, classFFN, classWeights, classActivations}
	for _, c := range order {
		pl := pol.placement(c)
		reqs[c] = cache.Request{Allocate: pl.Home != HomeDRAM, Lock: pl.Lock, Class: uint8(c)}
	}
	next := 0
	for _, c := range order {
		pl := pol.placement(c)
		if pl.L3Share == 0 || reqs[c].Ways != 0 {
			continue
		}
		n := min(ways-next, max(1, int(math.Round(float64(pl.L3Share)*float64(ways)))))
		if n <= 0 {
			continue // the shares before it took every way
		}
		mask := cache.Ways(next, n)
		// Classes that fall back to the same placement share its ways.
		for _, o := range order {
			if pol.placement(o) == pl {
				reqs[o].Ways = mask
			}
		}
		next += n
	}
	free = cache.Ways(next, ways-next)
	for _, c := range order {
		if reqs[c].Ways == 0 {
			reqs[c].Ways = free
			// When the shares reserve every way, the other classes have
			// nowhere to allocate: they read through without allocating.
			reqs[c].Allocate = reqs[c].Allocate && free != 0
		}
	}
	return reqs, free
}

// layout gives every tensor an address range, in the order first seen.
type layout struct {
	addr   map[string]int64
	next   int64
	kvName []string // layer i's KV cache is named kvName[i]
}

// kvName names layer il's KV cache in the layout.
func (e *engine) kvName(il int) string {
	l := &e.layout
	for len(l.kvName) <= il {
		l.kvName = append(l.kvName, "kv."+strconv.Itoa(len(l.kvName)))
	}
	return l.kvName[il]
}

// addrOf is tensor name's address, size bytes given it when first seen:
// 0 for all when no L3 is simulated, where addresses tell nothing (the
// analytic pass estimates the L3 per class).
func (e *engine) addrOf(name string, size float64) int64 {
	if e.l3c == nil {
		return 0
	}
	return e.layout.of(name, size)
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

// span is a contiguous address range of one tensor class that a tile
// reads or writes. Run and stride describe how DRAM sees it: runs of Run
// bytes every Stride bytes (Run 0: one sequential stream).
type span struct {
	addr        int64
	bytes       float64
	class       class
	write       bool
	run, stride float64
	// scan marks a read that cannot hit, its reuse distance far past what
	// its ways hold: it skips its lookups and counts its bytes as misses
	// (scanBypass, spillBypass).
	scan bool
	// flush empties the class's unlocked ways before the span, as the scan
	// it starts would have evicted them (spillBypass).
	flush bool
}

// tile is the unit of DMA and compute.
type tile struct {
	spans    []span
	compute  float64 // seconds on the unit
	resident float64 // bytes read from SRAM-resident tensors
}

// spansOf appends to spans what an operator streams from outside the
// SRAM, and returns them with the bytes it reads from SRAM-resident
// tensors. Its activations (inputs and outputs) stay in SRAM up to half of
// the streaming area; the excess spills through the L3.
func (e *engine) spansOf(spans []span, op *workloads.Op) (_ []span, resident float64) {
	if w := op.Bytes.Weights; w > 0 {
		spans = append(spans, span{addr: e.addrOf(op.Tensor, w), bytes: w, class: weightClass(op), scan: e.weightScan[weightClass(op)]})
	}
	if op.Kind == workloads.KindAttention {
		spans, resident = e.kvSpans(op, spans)
	}
	if spill := op.Bytes.Activations - e.actBudget; spill > 0 {
		spans = append(spans, span{addr: e.addrOf("activations", float64(e.unit.SRAM)*8), bytes: spill, class: classActivations})
	}
	return spans, resident
}

// kvSpans adds the KV cache an attention operator reads and writes. The
// oldest positions up to kvResident bytes stay in SRAM; the rest streams.
//
// The unit walks the cache a tile of positions at a time, all heads
// together (flash-decoding style). In a seq-major layout ([seq, head,
// dim], llama.cpp's) such a tile is contiguous, and the new tokens' K and
// V are one run each; in a head-major layout ([head, seq, dim]) a tile is
// one run per head (the tile's positions of that head), and the new
// tokens' K and V are one run per head, each far from the next.
func (e *engine) kvSpans(op *workloads.Op, spans []span) ([]span, float64) {
	m := e.cfg.Model
	maxCtx := float64(e.cfg.context())
	base := e.addrOf(e.kvName(op.Layer), e.kvLayer*maxCtx)
	read, write := op.Bytes.KVRead, op.Bytes.KVWrite
	resident := min(read, e.kvResident)
	headVec := float64(m.HeadDimension()) * e.cfg.KV.BytesPerElement() * float64(e.cfg.runBatch())
	perPos := 2 * float64(m.KVHeads) * headVec // K and V of one position
	headStride := headVec * maxCtx
	var readRun, writeRun float64 // 0: sequential
	switch {
	case e.cfg.kvBlock() > 0:
		// A paged cache: each block's positions together, the blocks
		// wherever they were allocated — a DRAM row opened per block.
		readRun, writeRun, headStride = float64(e.cfg.kvBlock())*perPos, write, math.Inf(1)
	case e.pol.KV.Layout == HeadMajor:
		readRun = max(headVec, math.Floor(e.tile/perPos)*headVec)
		writeRun = write / perPos * headVec
	}
	if rest := read - resident; rest > 0 {
		spans = append(spans, span{addr: base + int64(resident), bytes: rest, class: classKV, run: readRun, stride: headStride, scan: e.kvScan})
	}
	// The positions read include the new ones, written first: [read−write, read).
	if write > 0 && read > e.kvResident {
		spans = append(spans, span{addr: base + int64(read-write), bytes: write, class: classKV, write: true, run: writeRun, stride: headStride})
	}
	return spans, resident
}

// computeSeconds is an operator's time on the unit at clock once its data
// is in SRAM: the compute model, or reading its bytes out of SRAM if
// slower; and the bank-conflict time among it.
//
// Streamed tiles and SRAM-resident KV are read at once. Interleaved over
// all N banks (banks: shared), two streams collide in a bank on 1 access
// pair in N and one of them waits a cycle, so together they run at
// 1 − 1/(2N) of the SRAM's bandwidth; the extra time is the bank-conflict
// cost. Split by head across their own banks (banks: split), each stream
// has only its share of the bandwidth but never conflicts.
func (e *engine) computeSeconds(op *workloads.Op, streamed, resident, clock float64) (seconds, conflict float64) {
	bw := float64(e.unit.SRAMBandwidth)
	sram := (streamed + resident) / bw
	switch {
	case resident > 0 && e.pol.KV.Banks == "split":
		share := float64(e.pol.KV.SRAM)
		sram = max(resident/(bw*share), streamed/(bw*(1-share)))
	case resident > 0 && streamed > 0:
		conflicted := sram / (1 - 1/(2*float64(e.unit.SRAMBanks)))
		conflict = conflicted - sram
		sram = conflicted
	}
	return max(e.opSeconds(op, clock), sram), conflict
}

// opSeconds is the compute time of an operator on the matrix unit at clock.
func (e *engine) opSeconds(op *workloads.Op, clock float64) float64 {
	u := e.unit
	switch {
	case op.Kind == workloads.KindAttention:
		return e.attentionSeconds(op, clock)
	case op.Matrix && op.M > 0:
		return e.matmul(op.WeightQuant).Seconds(op.M, op.N, op.K, clock)
	}
	return u.VectorSeconds(op.FLOPs, e.vdt, clock)
}

// matmul is the unit's matrix-product model on weights of quant, made
// once a run for each quant its passes read (a few).
func (e *engine) matmul(quant string) *hw.Matmul {
	for i := range e.matmuls {
		if e.matmuls[i].quant == quant {
			return &e.matmuls[i].mm
		}
	}
	e.matmuls = append(e.matmuls, quantMatmul{quant, e.unit.Matmul(e.dt, e.formatOf(quant))})
	return &e.matmuls[len(e.matmuls)-1].mm
}

// quantMatmul is the unit's matrix-product model on weights of one quant.
type quantMatmul struct {
	quant string
	mm    hw.Matmul
}

// formatOf is strings.ToLower(quant), the storage format's name as a
// unit's efficiency tables key it: a pass's operators read weights of a
// few formats, so the last one's is kept rather than lowered (and
// allocated) again per operator.
func (e *engine) formatOf(quant string) string {
	if quant != e.lastFormat[0] {
		e.lastFormat = [2]string{quant, strings.ToLower(quant)}
	}
	return e.lastFormat[1]
}

// attentionSeconds times QKᵀ and AV as matrix products per KV head: the
// queries that share a KV head (the GQA group, times the new tokens) form
// the rows, the context the columns, the head dimension the reduction.
func (e *engine) attentionSeconds(op *workloads.Op, clock float64) float64 {
	m := e.cfg.Model
	b := e.work.Batch // a serve scenario's steps run the sequences active then
	if b == 0 {
		b = e.cfg.runBatch()
	}
	tokens := max(1, e.work.Tokens)
	group := m.Heads / m.KVHeads
	hd := m.HeadDimension()
	// FLOPs = 4 · heads · head_dim · Σ context over the new tokens, per sequence.
	ctx := op.FLOPs / (4 * float64(m.Heads) * float64(hd) * float64(tokens) * float64(b))
	one := e.unit.MatmulSeconds(group*tokens, max(1, int(math.Round(ctx))), hd, e.vdt, clock)
	return 2 * float64(m.KVHeads) * float64(b) * one
}

// access charges a span to the L3 and returns the bytes that hit; writes
// allocate (write-allocate) but their bytes still go to DRAM
// (write-through), so they return 0.
func (e *engine) access(s span) float64 {
	if s.flush && !e.replaying && !e.layers.replaying { // a replay leaves the L3 as recorded
		e.l3c.Invalidate(e.requests[s.class].Ways)
	}
	if !e.looksUp(s) {
		e.countL3(s.class, s.bytes, s.bytes)
		return 0
	}
	hit := float64(e.lookup(s))
	e.countL3(s.class, s.bytes, s.bytes-hit)
	if s.write {
		e.st.writeMissLines[e.work.Phase][s.class] += (s.bytes - hit) / e.line
		return 0
	}
	return hit
}

// looksUp reports whether span s goes through the L3. A class that never
// allocates can never hit: its addresses are its own. Skipping the lookup
// changes nothing but the cost. Nor can a scan (span.scan): KV reads
// during a pass that scans far more KV than its ways hold, or spilled
// activations last read far more than their ways' size ago.
func (e *engine) looksUp(s span) bool {
	return e.l3c != nil && e.requests[s.class].Allocate && !s.scan
}

// scanFactor is how many times the KV's ways a pass must read for the KV
// reads to count as a scan that cannot hit.
const scanFactor = 4

// scanBypass decides, at the start of a decode step, whether its KV reads
// can hit at all. Under LRU or SRRIP, a cyclic scan over far more than the
// ways it may use evicts every block before it comes round again (the
// reuse distance of each block is the whole scan), so every KV read
// misses: the pass skips their lookups and, as the scan would, empties
// the KV's unlocked ways for whatever shares them. BRRIP keeps part of a
// cycle and locked KV stays, so neither is bypassed; nor is the line
// fidelity, the exact reference. TestKVScanBypass holds the difference
// to the full simulation under 1%.
func (e *engine) scanBypass(w workloads.Work) {
	e.kvScan = e.scans(w)
	if e.kvScan {
		e.l3c.Invalidate(e.requests[classKV].Ways)
	}
}

// weightScans decides, before a decode step's lookups, which of its weight
// classes (dense, FFN, experts) can hit, as scanBypass does for its KV: a
// step reads every weight it uses once (one sequence, one token: a GEMV),
// so a weight's reuse distance is the step's whole stream of the weights
// in its ways, and where that is scanFactor times those ways' size or
// more, each is evicted before the next step comes round to it (LRU or
// SRRIP). Such a class skips its lookups and, as its stream would,
// empties its ways of what is unlocked in them. A class whose ways only
// partly overlap another weight class's is looked up as ever.
// TestWeightScanBypass holds the difference to the full simulation under
// 1%.
func (e *engine) weightScans(w workloads.Work, ops []workloads.Op) (scan [numClasses]bool) {
	repl := e.cfg.Chip.Memory.L3.Replacement
	if w.Phase != workloads.Decode || w.Tokens != 1 || w.Batch != 1 || e.l3c == nil || !e.cfg.takes(scanBypass) || (repl != "lru" && repl != "srrip") {
		return scan
	}
	var read [numClasses]float64
	for i := range ops {
		if e.offUnit(&ops[i]) == nil {
			read[weightClass(&ops[i])] += ops[i].Bytes.Weights
		}
	}
	weights := []class{classWeights, classFFN, classExperts}
	for _, c := range weights {
		r := e.requests[c]
		if !r.Allocate || r.Lock {
			continue
		}
		through, whole := 0.0, true
		for _, d := range weights {
			switch q := e.requests[d]; {
			case !q.Allocate:
			case q.Ways == r.Ways:
				through += read[d]
			case q.Ways&r.Ways != 0:
				whole = false
			}
		}
		scan[c] = whole && through > scanFactor*e.waysBytes(c)
	}
	return scan
}

// scans reports whether the KV reads of pass w are a scan that cannot hit
// (see scanBypass).
func (e *engine) scans(w workloads.Work) bool {
	r := e.requests[classKV]
	repl := e.cfg.Chip.Memory.L3.Replacement
	// Only decode steps: a prefill reads the KV it has just written.
	if w.Phase != workloads.Decode || e.l3c == nil || !e.cfg.takes(scanBypass) || !r.Allocate || r.Lock || (repl != "lru" && repl != "srrip") {
		return false
	}
	layers := float64(e.cfg.Model.Layers)
	read := (e.kvLayer*float64(w.Context+w.Tokens) - e.kvResident) * layers
	return read > scanFactor*e.waysBytes(classKV)
}

// waysBytes is the size of the L3 ways class c may allocate into.
func (e *engine) waysBytes(c class) float64 {
	return e.l3Size * float64(bits.OnesCount64(uint64(e.requests[c].Ways))) / float64(e.cfg.Chip.Memory.L3.Ways)
}

// pageSize is the granule the OS maps: a tensor contiguous in virtual
// memory sits on scattered physical pages, and the L3 is physically
// indexed.
const pageSize = 4096

// cachePages runs a virtual range through the L3 page by page, each page
// at its physical address, and returns the bytes that hit.
func (e *engine) cachePages(addr, n int64, r cache.Request) (hit int64) {
	for end := addr + n; addr < end; {
		page := addr / pageSize
		off := addr - page*pageSize
		size := min(end-addr, pageSize-off)
		hit += e.l3c.AccessRange(physicalPage(page)*pageSize+off, size, r)
		addr += size
	}
	return hit
}

// physicalPage maps a virtual page to a physical one, as an OS's page
// allocator scatters them: a bijective four-round Feistel permutation of
// 36-bit page numbers (256 GiB of memory), deterministic so runs repeat.
func physicalPage(v int64) int64 {
	const half, mask = 18, 1<<18 - 1
	l, r := uint64(v)>>half&mask, uint64(v)&mask
	for round := uint64(1); round <= 4; round++ {
		x := (r + round) * 0x9E3779B97F4A7C15
		x ^= x >> 29
		l, r = r, l^(x&mask)
	}
	return int64(l<<half | r)
}

// countL3 adds L3 accesses and misses, in lines, to the current phase.
func (e *engine) countL3(c class, bytes, missed float64) {
	p := e.work.Phase
	e.st.lines[p][c] += bytes / e.line
	e.st.missLines[p][c] += missed / e.line
}

// countDRAM adds DRAM traffic to the run and the current phase.
func (e *engine) countDRAM(bytes float64) {
	e.st.dramBytes += bytes
	e.st.dramByPhase[e.work.Phase] += bytes
}

// dramCost is the bytes of sequential DRAM transfer a span's misses take.
// A span read in runs (run > 0) moves each run as whole DMA bursts, so a
// run that is not a multiple of dma.max_burst pays for the rest of its
// last burst; runs that each open a new DRAM row (strided further apart
// than a row) also pay the row miss.
func (e *engine) dramCost(s span, bytes float64) float64 {
	if s.run <= 0 || bytes <= 0 {
		return bytes
	}
	runs := bytes / s.run
	burst := float64(e.cfg.Chip.DMA.MaxBurst)
	cost := runs * math.Ceil(s.run/burst) * burst
	if s.stride > e.rowSize {
		cost += runs * e.rowMiss
	}
	return cost
}

// lower gives the operators of pass w of the run's model: the graph's own
// for a pass it keeps (workloads.Graph.LowerKept), else in a buffer the
// next call reuses. Either way they are only read, until the next pass.
func (e *engine) lower(w workloads.Work) []workloads.Op {
	ops, kept := e.cfg.compiled().LowerKept(e.opBuf[:0], w)
	if e.mem.flash != nil {
		if kept { // the graph's own: cut a copy
			ops = append(e.opBuf[:0], ops...)
			kept = false
		}
		e.mem.flash.sparsify(ops, e.cfg.Model.FFN)
	}
	if !kept { // else the graph's own: the next pass must not lower into it
		e.opBuf = ops
	}
	return ops
}
