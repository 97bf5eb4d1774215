package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/workloads"
)

// first10s is the window of decode.first_10s_tokens_per_s.
const first10s = 10.0

// Run simulates a prefill of cfg.Prompt tokens after cfg.Depth tokens of
// context, and cfg.Gen decode steps.
// Errors about the inputs are *spec.Error.
//
// Run resolves cfg first (Resolve); a config resolved before runs the same.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	choice, err := resolve(&cfg)
	if err != nil {
		return nil, err
	}
	unit, dt := cfg.Chip.Unit(choice.Unit.Name), choice.Dtype
	plan, err := checkFit(&cfg)
	if err != nil {
		return nil, err
	}
	e, err := newEngine(&cfg, cfg.Policy, unit, dt)
	if err != nil {
		return nil, err
	}
	defer e.release()
	e.beginSeries()
	e.mem = plan
	if cfg.Draft != nil {
		if e.spec, err = e.newSpeculation(); err != nil {
			return nil, err
		}
	}
	if cfg.Schedule != nil {
		e.sched = &scheduler{s: cfg.Schedule, res: ScheduleResult{Name: cfg.Schedule.Name, BudgetS: float64(cfg.Schedule.Budget)}}
	}
	// A pass whose simulated time runs past what the clock holds stops
	// the session at its next step; the run is refused, never printed
	// with a saturated time.
	e.stop = stop
	pass := e.pass
	r := newResult(&cfg, unit.Name, dt)
	if max := cfg.Model.MaxContext; cfg.context() > max {
		r.Warnings = append(r.Warnings, fmt.Sprintf("context %d exceeds %s's trained maximum of %d tokens", cfg.context(), cfg.Model.Name, max))
	}

	s, err := e.runSession(ctx, pass, r)
	overflow := e.overflow
	if overflow != nil {
		return nil, overflow
	}
	if err != nil {
		return nil, err
	}
	if overflow == nil && overflowed(0, e.clock) {
		overflow = e.overflowError("session")
	}
	if overflow != nil {
		return nil, overflow
	}
	r.TTFT = s.ttft
	r.ColdStartS = coldStart(&cfg, e.unit, plan)
	r.TTFTColdS = r.ColdStartS + r.TTFT
	var prompted int
	for _, t := range s.turns {
		prompted += t.Prompt
	}
	seqs := cfg.Batch // the sequences each prompt ran in
	if r.Serve != nil {
		seqs = 1
	}
	r.Prefill = PrefillPhase{Phase: phase(prompted*seqs, sum(s.prefills)), PaddedTokens: e.st.paddedTokens * seqs}
	r.Decode = decodePhase(&s.steps)
	r.Decode.Spread = e.spread()
	r.Requests = len(s.prefills)
	if v := r.Serve; v != nil {
		r.Requests = v.Served
		if v.Unserved > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the unit did not keep up: %d of %d requests were still waiting or decoding %s after the last arrival (%g a second arrived; %s)",
				v.Unserved, v.Arrived, units.Seconds(cfg.Duration), v.RatePerS, v.Describe()))
		}
	}
	if e.spec != nil {
		r.Speculative = e.spec.result()
	}
	if e.sched != nil {
		r.Schedule = &e.sched.res
	}
	e.finish(r, e.clock)
	if err := checkFinite(r, cfg.Chip.ID); err != nil {
		return nil, err
	}
	return r, nil
}

// release hands on the buffers of e and its side engines when the run is
// over.
func (e *engine) release() {
	e.releaseBuffers()
	if e.spec != nil {
		e.spec.drafter.releaseBuffers()
		e.spec.plain.releaseBuffers()
	}
}

// pass runs one pass of work w, named name in the timeline, at the run's
// fidelity, and returns its time. It records the pass's bandwidth sample;
// its caller accounts its energy and advances the clock.
func (e *engine) pass(name string, w workloads.Work) float64 {
	c := e.cfg
	e.work = w
	e.scanBypass(w)
	e.lap(0)
	dram, l3, start := e.st.dramBytes, e.st.l3HitBytes, e.now()
	e.startReplay(w)
	ops := e.lower(w)
	plans := e.plan(ops)
	shared := e.shareFirst(plans)
	e.beginLayers(ops, plans)
	t := e.exec.run(ops, plans)
	e.endLayers()
	if overflowed(start, t) && e.overflow == nil {
		e.overflow = e.overflowError(name)
		if e.stop != nil {
			e.stop() // the session's next step ends the run
		}
	}
	recorded := e.recording
	e.endReplay()
	if e.overflow == nil { // else the recording stops where the pass did
		e.shareRecorded(shared, recorded)
	}
	e.firstDone = true
	load := e.pageIn(ops)
	if e.mem.streamed { // the next block loads while this one computes
		hidden := min(load, t)
		e.st.paging -= hidden
		load -= hidden
	}
	t += load + e.swapIn(w)
	e.trace.span("passes", name, "pass", start, start+t, nil)
	e.addSample(BandwidthSample{
		Pass: name, StartS: start, Seconds: t,
		DRAMUtil: ratio(e.st.dramBytes-dram, float64(c.Chip.Memory.DRAM.Bandwidth)*t),
		L3Util:   ratio(e.st.l3HitBytes-l3, e.l3BW*t),
	})
	e.lap(t)
	return t
}

// pageIn reads the share of a pass's weights that stays on storage (a
// mapped model past the app budget): page faults the unit waits for, at
// the storage's sequential read bandwidth (readahead turns a pass's walk
// through a layer's weights into long reads). The page cache is taken to
// keep the same weights resident from pass to pass — a scan-resistant
// cache; a plain LRU over a walk longer than itself keeps none, so this
// is the optimistic case. A runtime that reads its FFN by neuron reads
// the pass's fresh neurons instead (flashIn). It returns the time.
func (e *engine) pageIn(ops []workloads.Op) float64 {
	if e.mem.flash != nil {
		return e.flashIn(ops)
	}
	if e.mem.paged == 0 {
		return 0
	}
	var w float64
	for _, op := range ops {
		w += op.Touch(workloads.Weights)
	}
	bytes := e.mem.paged * w
	t := bytes / float64(e.cfg.Chip.Storage.ReadBandwidth)
	e.st.storageBytes += bytes
	e.st.paging += t
	return t
}

// swapIn reads the part of the KV cache past the app budget back from
// swap: a pass attends to its whole context, so every byte of the KV
// cache beyond kvRoom is read from swap once, at the swap's bandwidth.
// It returns the time.
func (e *engine) swapIn(w workloads.Work) float64 {
	if e.mem.kvRoom == 0 {
		return 0
	}
	over := e.noteContext(w.Context + w.Tokens)
	if over <= 0 {
		return 0
	}
	t := over / float64(e.cfg.Chip.Memory.Swap.Bandwidth)
	e.st.paging += t
	return t
}

// noteContext keeps when the KV cache first swapped and the most of it
// swapped at once, for a pass or a decode step (simulated or not) that
// ends at context ctx, and returns the bytes in swap then.
func (e *engine) noteContext(ctx int) float64 {
	if e.mem.kvRoom == 0 {
		return 0
	}
	over := e.kvAt(ctx) - e.mem.kvRoom
	if over > 0 {
		if e.swapAt == nil {
			e.swapAt = ptr(e.clock)
		}
		e.swapPeak = math.Max(e.swapPeak, over)
	}
	return over
}

// requestName names a pass in the timeline: "prefill", or "prefill 3"
// for the fourth request of a session.
func requestName(name string, req int, cfg Config) string {
	if cfg.Scenario == nil {
		return name
	}
	return name + " " + strconv.Itoa(req)
}

// sample charges the host for drawing one token per sequence from the
// logits, and returns its time.
func (e *engine) sample() float64 {
	if e.host == nil || e.cfg.NoSampling {
		return 0
	}
	// The token's overlapped stages run beside the next step: their
	// work is this step's, their time is not (turn).
	e.st.stage += e.overlap
	logits := float64(e.cfg.Model.Vocab) * float64(e.answering())
	ops := sampleOpsPerLogit * logits
	if rt := e.cfg.Runtime; rt != nil && rt.SampleOnUnit && e.unit != e.host {
		return e.sampleOnUnit(logits, ops)
	}
	cycles, _ := samplerCycles(e.host)
	t := float64(e.host.Dispatch) + logits*cycles/e.clockOf(e.host)
	e.st.host += t
	e.st.hostOps += ops
	if e.trace != nil {
		at := e.now()
		e.trace.span(e.host.Name, "sample", "host", at, at+t, nil)
	}
	e.lap(t)
	return t
}

// sampleOnUnit draws the tokens on the run's unit, where the logits are
// (runtimes.Profile.SampleOnUnit): a kernel dispatched once that reads the
// fp32 logits from DRAM and runs the sampler's operations at the unit's
// vector rate, whichever takes longer. It returns its time.
func (e *engine) sampleOnUnit(logits, ops float64) float64 {
	bytes := 4 * logits
	t := float64(e.unit.Dispatch) + max(bytes/e.dramBW, e.unit.VectorSeconds(ops, e.vdt, e.clockOf(e.unit)))
	e.st.compute += t
	e.st.ops += ops
	e.countDRAM(bytes)
	if e.trace != nil {
		at := e.now()
		e.trace.span(e.unit.Name, "sample", "compute", at, at+t, nil)
	}
	e.lap(t)
	return t
}

func newResult(c *Config, unit string, dt dtype.Dtype) *Result {
	scenario := ""
	if c.Scenario != nil {
		scenario = c.Scenario.Name
	}
	cpuRuntime, sideRuntime := "", ""
	if c.cpuRuntime != nil {
		cpuRuntime = c.cpuRuntime.ID
	}
	if c.sideRuntime != nil {
		sideRuntime = c.sideRuntime.ID
	}
	compiled := 0
	if b := c.runBatch(); b != c.Batch {
		compiled = b
	}
	return &Result{
		CPURuntime: cpuRuntime, LayersOn: c.LayersOn.String(), LayersOnRuntime: sideRuntime, CompiledBatch: compiled, KVBlock: c.kvBlock(),
		SoC: c.Chip.ID, Model: c.Model.ID, Quant: c.Quant.String(), Runtime: runtimeID(c.Runtime), RuntimeBasis: runtimeBasis(c.Runtime), RuntimeMeasured: c.Runtime != nil && c.Runtime.Measured(), Threads: c.Threads, KVDtype: c.KV.String(), Scenario: scenario,
		Unit: unit, Policy: c.Policy.Name, Fidelity: string(c.Fidelity), Prompt: c.Prompt, Depth: c.Depth, Gen: c.Gen, Batch: c.Batch, CPULayers: c.CPULayers.String(),
		Compute:    Compute{Dtype: string(dt)},
		Quality:    workloads.QualityOf(c.Quant),
		Warnings:   []string{},
		Provenance: provenance(c),
	}
}

func phase(tokens int, seconds float64) Phase {
	p := Phase{Tokens: tokens, Seconds: seconds}
	if tokens > 0 && seconds > 0 {
		p.TokensPerS = ptr(float64(tokens) / seconds)
	}
	return p
}

// decodePhase summarises decode steps: totals, the rate over the first ten
// seconds, and the spread of step times.
func decodePhase(steps *stepTimes) DecodePhase {
	d := DecodePhase{Phase: phase(steps.tokens, steps.sum)}
	if steps.n == 0 {
		return d
	}
	if d.Seconds <= first10s {
		d.First10sTokensPerS = d.TokensPerS
	} else {
		d.First10sTokensPerS = ptr(float64(steps.tokens10) / first10s)
	}
	p := steps.percentiles(0.50, 0.99)
	d.MsPerToken = Percentile{P50: ptr(p[0] * 1e3), P99: ptr(p[1] * 1e3)}
	return d
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, q float64) float64 {
	return sorted[nearestRank(q, len(sorted))]
}

// nearestRank is the index of the nearest-rank percentile q of n sorted
// values.
func nearestRank(q float64, n int) int {
	return max(0, min(int(math.Ceil(q*float64(n)))-1, n-1))
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// finish fills the counters of the result from the engine's statistics.
func (e *engine) finish(r *Result, total float64) {
	c := e.cfg
	f := footprint(c)
	st := e.st
	peak := float64(c.Chip.Memory.DRAM.Bandwidth)
	var lines, miss [2]float64
	var classLines, classMiss [numClasses]float64
	for p := range st.lines {
		for k := range st.lines[p] {
			classLines[k] += st.lines[p][k]
			classMiss[k] += st.missLines[p][k]
			lines[p] += st.lines[p][k]
			miss[p] += st.missLines[p][k]
		}
	}
	rate := func(k class) float64 { return ratio(classMiss[k], classLines[k]) }
	prefill, decode := workloads.Prefill, workloads.Decode
	r.Memory = Memory{
		WeightsBytes: f.Weights, KVBytes: f.KV, KVResidentBytes: e.kvResident * float64(c.Model.Layers),
		AppBudget: c.Chip.Memory.AppBudget(), PagedWeightsBytes: e.mem.onStorage(f), StorageBytes: st.storageBytes,
		SwappedKVBytes: e.swapPeak, SwapOnsetS: e.swapAt,
		SRAMBytes: st.sramBytes, L3Bytes: st.l3HitBytes, DRAMBytes: st.dramBytes, DRAMPeak: peak,
		DRAMBWUtil:    ratio(st.dramBytes, peak*total),
		L3MissRate:    ratio(miss[prefill]+miss[decode], lines[prefill]+lines[decode]),
		KVL3MissRate:  rate(classKV),
		L3MissRateOf:  ClassRates{Weights: rate(classWeights), FFN: rate(classFFN), Experts: rate(classExperts), KV: rate(classKV), Activations: rate(classActivations)},
		L3AccessBytes: (lines[prefill] + lines[decode]) * e.line,
		Prefill: PhaseMemory{DRAMBytes: st.dramByPhase[prefill], L3MissRate: ratio(miss[prefill], lines[prefill]),
			KVL3MissRate: ratio(st.missLines[prefill][classKV], st.lines[prefill][classKV])},
		Decode: PhaseMemory{DRAMBytes: st.dramByPhase[decode], L3MissRate: ratio(miss[decode], lines[decode]),
			KVL3MissRate: ratio(st.missLines[decode][classKV], st.lines[decode][classKV])},
		L3Replacement:  c.Chip.Memory.L3.Replacement,
		DMABuffers:     e.buffers,
		TileBytes:      e.tile,
		RowMissPenalty: c.Chip.Memory.DRAM.RandomPenalty,
	}
	if fl := e.mem.flash; fl != nil {
		r.Memory.FlashFFN = &FlashFFNMemory{StoredBytes: fl.stored(), FreshBytesPerToken: fl.read(1) * fl.ffn, ReadBytes: fl.neuron, ReadRate: c.Chip.Storage.ReadRate(fl.neuron)}
	}
	if e.sharesL3 {
		r.Memory.L3BlockBytes = float64(e.l3Block)
	}
	unitPeak := float64(e.unit.Peak[e.dt])
	r.Compute.PeakTOPS = unitPeak / 1e12
	r.Compute.TOPSEff = ratio(st.ops, total) / 1e12
	r.Compute.MACUtil = ratio(st.ops, unitPeak*total)
	r.Compute.StallMem = ratio(st.stallMem, total)
	r.Compute.StallIssue = ratio(st.dispatch, total)
	r.Compute.StallFallback = ratio(st.fallback, total)
	r.Time = Time{Total: total, Compute: st.compute, MemoryStall: st.stallMem, Dispatch: st.dispatch,
		Fallback: st.fallback, Host: st.host, BankConflict: st.bankConflict, Paging: st.paging}
	if e.swapAt != nil {
		sw := c.Chip.Memory.Swap
		r.Warnings = append(r.Warnings, fmt.Sprintf("from %.1f s the KV cache outgrows the app budget of %s beside the weights: up to %s of it lives in %s, and every pass reads it back at %s (%s of the run)",
			*e.swapAt, units.Approx(c.Chip.Memory.AppBudget(), units.KindBytes), units.Approx(e.swapPeak, units.KindBytes), map[string]string{"zram": "compressed memory (zram)", "storage": "the swap file"}[sw.Kind],
			units.Approx(float64(sw.Bandwidth), units.KindByteRate), pctOf(st.paging, total)))
	}
	if e.mem.streamed {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s streams all %s of %s's weights from storage every pass at %s, the next block loading while one computes: %s of the run waits on storage",
			c.Runtime.ID, units.Approx(f.Weights, units.KindBytes), c.Model.Name, units.Approx(float64(c.Chip.Storage.ReadBandwidth), units.KindByteRate), pctOf(st.paging, total)))
	} else if e.mem.flash != nil {
		r.Warnings = append(r.Warnings, e.mem.flash.note(c, st.paging, total))
	} else if e.mem.paged > 0 {
		with := ""
		if f.Draft > 0 {
			with = " with its draft"
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s needs %s%s, past the app budget of %s: %s maps its weights, so %s of them stay on storage and page in every pass at %s (%s of the run)",
			c.Model.Name, units.Approx(f.Total(), units.KindBytes), with, units.Approx(c.Chip.Memory.AppBudget(), units.KindBytes), c.Runtime.ID,
			units.Approx(e.mem.paged*f.Weights, units.KindBytes), units.Approx(float64(c.Chip.Storage.ReadBandwidth), units.KindByteRate), pctOf(st.paging, total)))
	}
	if sc := c.Scenario; sc != nil && sc.Reclaim > 0 && !e.reclaims() {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the scenario's reclaim (%s of the mapped weights between turns) is not applied: %s",
			sc.Reclaim, reclaimless(c, e.mem)))
	}
	r.Fallbacks, r.Boundaries = st.offUnit.results()
	if len(r.Boundaries) == 0 {
		r.Boundaries = nil
	}
	r.Units = []UnitCounters{{
		Name: e.unit.Name, Kind: e.unit.Kind, BusyS: st.compute + st.dispatch,
		MACUtil: r.Compute.MACUtil, StallMem: r.Compute.StallMem, StallIssue: r.Compute.StallIssue, StallFallback: r.Compute.StallFallback,
	}}
	if e.host != nil && e.host != e.unit {
		// The CPU drives the hand-offs; each unit off the run's is busy
		// for its operators.
		var cpuOps, sideOps float64
		for _, fb := range r.Fallbacks {
			if fb.Unit == e.host.Name {
				cpuOps += fb.Seconds
			} else {
				sideOps += fb.Seconds
			}
		}
		for _, b := range r.Boundaries {
			cpuOps += b.Seconds
		}
		r.Units = append(r.Units, UnitCounters{Name: e.host.Name, Kind: e.host.Kind, BusyS: st.host + cpuOps})
		if e.side != nil {
			r.Units = append(r.Units, UnitCounters{Name: e.side.Name, Kind: e.side.Kind, BusyS: sideOps})
		}
	}
	r.Health = health(r.Compute)
	e.fillEnergy(r, total)
	e.fillThermal(r, total)
	e.traceCounters()
	r.Bandwidth = e.bandwidthSamples()
}

// pctOf is a/b as a whole per cent.
func pctOf(a, b float64) string { return strconv.Itoa(int(math.Round(100*ratio(a, b)))) + "%" }

// Thresholds of a healthy matrix unit, as NPU profilers flag them.
const (
	healthStallMem   = 0.15
	healthStallIssue = 0.08
	healthMACUtil    = 0.70
)

func health(c Compute) []Health {
	return []Health{
		{Counter: "stall_mem", Value: c.StallMem, Threshold: "< 15%", OK: c.StallMem < healthStallMem},
		{Counter: "stall_issue", Value: c.StallIssue, Threshold: "< 8%", OK: c.StallIssue < healthStallIssue},
		{Counter: "mac_util", Value: c.MACUtil, Threshold: "> 70%", OK: c.MACUtil > healthMACUtil},
	}
}

// ratio is a/b, or 0 when there was nothing to count.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func runtimeID(p *runtimes.Profile) string {
	if p == nil {
		return NoRuntime
	}
	return p.ID
}

func runtimeBasis(p *runtimes.Profile) string {
	if p == nil {
		return ""
	}
	return p.Basis
}

// Resolve fixes what a run of cfg runs on: the unit and runtime Choose
// picks, and cfg.Chip as that runtime runs it (its figures in place of the
// chip's assumed ones, a CPU cut to its threads), so that what a caller
// reads from cfg.Chip — a figure, its provenance, the value a sensitivity
// perturbs — is what the run uses. Resolving twice changes nothing, and
// on an error cfg is left as it was.
func Resolve(cfg *Config) error {
	_, err := resolve(cfg)
	return err
}

func resolve(cfg *Config) (Choice, error) {
	choice, err := Choose(cfg)
	if err != nil {
		return Choice{}, err
	}
	// Threads are the CPU's, whichever unit runs the matrices (the CPU
	// still runs what the others do not), so more than it has is refused
	// on every chip rather than ignored off the CPU.
	for _, u := range cfg.Chip.Units {
		if u.Kind == hw.CPU && cfg.Threads > u.Cores {
			return Choice{}, spec.FieldErrorf("threads", "%d is not allowed on %s: its %s has %d cores", cfg.Threads, cfg.Chip.ID, u.Name, u.Cores)
		}
	}
	if p := choice.Runtime; p != nil && len(p.Batches) > 0 && cfg.Batch > p.Batches[len(p.Batches)-1] {
		return Choice{}, spec.FieldErrorf("batch", "%d is not allowed with %s: its graphs are compiled for batches of %s", cfg.Batch, p.ID, joinInts(p.Batches))
	}
	cfg.Chip = withRuntime(cfg.Chip, choice, cfg.Threads)
	if choice.Runtime != nil {
		cfg.Runtime = choice.Runtime
	}
	// The runtime's overridden figures are inputs of the run like the
	// chip's: in its provenance, as --set.
	for _, o := range cfg.RuntimeSets {
		path := "runtime." + o.Path
		if !slices.ContainsFunc(cfg.Chip.Provenance, func(e spec.Entry) bool { return e.Path == path }) {
			cfg.Chip.Provenance = append(cfg.Chip.Provenance, spec.Entry{Path: path, Value: o.Value, Source: spec.SetOrigin})
		}
	}
	// The CPU that runs part of the model beside the unit (a layer split,
	// operators the unit lacks) runs it at what a CPU runtime reaches
	// there, where one reads the model's formats.
	// A third unit of a split runs its blocks at what the runtime a user
	// of that unit would run reaches there; the operators that unit or
	// runtime leaves go to the CPU.
	side := cfg.Chip.Unit(cfg.LayersOn.Unit)
	if side != nil && side.Name != choice.Unit.Name {
		if p := runtimes.Default(side.Kind, cfg.Chip.Vendor, formatNames(cfg)); p != nil {
			cfg.Chip = withRuntime(cfg.Chip, Choice{Unit: side, Runtime: p}, cfg.Threads)
			cfg.sideRuntime = p
		}
	}
	if host := hostCPU(cfg.Chip); host != nil && host.Name != choice.Unit.Name && (len(cfg.CPULayers) > 0 || side != nil || len(choice.Unit.Ops) > 0 || choice.Runtime != nil && len(choice.Runtime.CPUOps) > 0) {
		if p := runtimes.Default(hw.CPU, cfg.Chip.Vendor, formatNames(cfg)); p != nil {
			cfg.Chip = withRuntime(cfg.Chip, Choice{Unit: host, Runtime: p}, cfg.Threads)
			cfg.cpuRuntime = p
		}
	}
	return choice, nil
}

// joinInts writes ns as "1, 2, 4".
func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// reclaimless says why a run keeps all of its weights between turns
// though its scenario has the operating system reclaim some.
func reclaimless(c *Config, m memoryPlan) string {
	switch {
	case m.streamed:
		return c.Runtime.ID + " streams its layers and holds only two blocks between passes"
	case m.flash != nil:
		return c.Runtime.ID + " reads its FFN by neuron from storage and keeps only its window in memory"
	case c.Runtime == nil || c.Runtime == runtimes.None:
		return "no runtime profile maps the weights"
	}
	return c.Runtime.ID + " reads its weights into the app's own memory (no mmap), which the operating system does not drop (under pressure it swaps or ends the app instead)"
}
