package calibrate

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	workers "github.com/edgetwin/edgetwin/internal/pool"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

// Phases of a validation point.
const (
	PhasePrefill = "prefill"
	PhaseDecode  = "decode"
	PhaseKernel  = "kernel"
)

// PhaseOf is the phase a record's kind belongs to: prefill, decode (a
// probe's reference decoder too), or kernel for everything measured below
// the model (bandwidth, gemv, …).
func PhaseOf(k Kind) string {
	switch k {
	case KindPrefill:
		return PhasePrefill
	case KindDecode, KindDecoder:
		return PhaseDecode
	}
	return PhaseKernel
}

// decodes reports whether a record measures decoding: a model's decode,
// or the probe's reference decoder, which is one.
func decodes(r Record) bool { return r.Kind == KindDecode || r.Kind == KindDecoder }

// Predictable reports whether the simulator can predict a record: the
// model kinds, prefill and decode; the probe's reference decoder (a
// decode of a catalog model) and its GEMV and GEMM kernels with their
// shape and quant (sim.RunKernel), on as many of the CPU's cores as the
// record has threads. Memory kinds are not predicted; the reason says why.
func Predictable(r Record) (ok bool, reason string) {
	switch {
	case r.Kind == KindGEMV || r.Kind == KindGEMM:
		if r.Shape.N <= 0 || r.Shape.K <= 0 || r.Quant == "" {
			return false, fmt.Sprintf("kind %s needs shape.n, shape.k and quant", r.Kind)
		}
		if r.Unit != UnitOpsPerSecond && r.Unit != UnitSeconds {
			return false, fmt.Sprintf("kind %s in %s: kernels are predicted in %s or %s", r.Kind, r.Unit, UnitOpsPerSecond, UnitSeconds)
		}
	case r.Kind == KindDecoder:
		if r.Model == "" || r.Quant == "" || r.Shape.Gen <= 0 {
			return false, "kind decoder needs model, quant and shape.gen"
		}
	case r.Kind != KindPrefill && r.Kind != KindDecode:
		return false, fmt.Sprintf("kind %s: the simulator predicts models (prefill, decode, the probe's decoder) and matrix kernels (gemv, gemm); memory probes characterise the chip instead", r.Kind)
	}
	return true, ""
}

// onThreads is the chip a record ran on under ov, with the CPU cut to the
// record's thread count when it ran on the CPU (unit, or the chip's CPU
// when unit is "") with fewer threads than it has cores: the CPU's
// compute (its peaks) scales with the cores; its DRAM bandwidth does not
// (one thread is modelled as reaching what all do).
func (p *Predictor) onThreads(ov *Overlay, soc, unit string, threads int) (*hw.Chip, error) {
	chip, err := p.chip(ov, soc, nil)
	if err != nil || threads <= 0 {
		return chip, err
	}
	if unit == "" {
		unit = unitOfKind(chip, hw.CPU)
	}
	u := chip.Unit(unit)
	if u == nil || u.Kind != hw.CPU || threads >= u.Cores {
		return chip, nil
	}
	const origin = "the record's threads"
	sets := []spec.Override{{Path: "units." + u.Name + ".cores", Value: strconv.Itoa(threads), Origin: origin}}
	// The peak is for all the cores, whether the chip file gives it (the
	// probe's host chip does) or the loader derived it from them.
	for _, dt := range slices.Sorted(maps.Keys(u.Peak)) {
		v := float64(u.Peak[dt]) * float64(threads) / float64(u.Cores)
		sets = append(sets, spec.Override{Path: "units." + u.Name + ".peak." + string(dt), Value: units.Format(v, units.KindOpRate), Origin: origin})
	}
	return p.chip(ov, soc, sets)
}

// chip loads a chip under ov and sets, once per distinct combination: a
// fit asks for the same chip and overlay for each of its records, and
// loading (parsing, defaults, the overlay) costs about as much as an
// analytic run. The simulator only reads a chip, so runs share it.
func (p *Predictor) chip(ov *Overlay, soc string, sets []spec.Override) (*hw.Chip, error) {
	key := soc + "\x00" + overlayKey(ov)
	for _, s := range sets {
		key += "\x00" + s.Path + "=" + s.Value
	}
	// A fit moves on to other overlays: the limit keeps memory bounded.
	return cached(&p.mu, p.chips, key, maxChips, func() (*hw.Chip, error) { return ov.Load(soc, sets) })
}

// cached is m[key], loaded and kept on a miss; m is cleared once it holds
// limit entries (0: no limit). Two callers may load the same key at once;
// either result is kept.
func cached[V any](mu *sync.Mutex, m map[string]V, key string, limit int, load func() (V, error)) (V, error) {
	mu.Lock()
	v, ok := m[key]
	mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := load()
	if err != nil {
		return v, err
	}
	mu.Lock()
	if limit > 0 && len(m) >= limit {
		clear(m)
	}
	m[key] = v
	mu.Unlock()
	return v, nil
}

// maxChips bounds the loaded chips a predictor keeps.
const maxChips = 256

// workload is what one record asks the simulator to run, minus the chip's
// calibration: records that share it share a run.
type workload struct {
	soc, model, quant, kv     string
	depth, prompt, gen, batch int // depth: tokens in the KV cache before the prompt (llama-bench -d)
	gpu                       int // llama.cpp's n_gpu_layers: -1 unknown, 0 CPU, >0 GPU
	backend                   string
	runtime                   string // the record's runtime (catalog id or file); "" the simulator's default
	threads                   int    // CPU threads it ran on; 0 unknown (all cores)
}

func workloadOf(r Record) workload {
	w := workload{soc: r.SoC, model: r.Model, quant: r.Quant, kv: r.KVDtype, depth: r.Shape.Depth, batch: max(1, r.Shape.Batch), gpu: -1, backend: r.Backend, runtime: r.Runtime, threads: r.Threads}
	if w.kv == "" {
		w.kv = "F16"
	}
	if r.NGPULayers != nil {
		w.gpu = *r.NGPULayers
	}
	if r.Kind == KindDecoder {
		w.gpu = 0 // the probe runs its decoder on the CPU
	}
	if r.Kind == KindPrefill {
		w.prompt = r.Shape.Prompt
	} else {
		w.gen = r.Shape.Gen
	}
	return w
}

// predicted is the figure a result gives for a record, in its unit: a
// rate, the seconds per generated token of a decode, or the time to first
// token of a prefill measured in seconds.
func predicted(r Record, res *sim.Result) (float64, error) {
	ph := res.Prefill.Phase
	if decodes(r) {
		ph = res.Decode.Phase
	}
	if ph.TokensPerS == nil || *ph.TokensPerS <= 0 {
		return 0, fmt.Errorf("%s: the run has no %s rate", r.Where(), r.Kind)
	}
	if r.Unit == UnitSeconds {
		if decodes(r) {
			return 1 / *ph.TokensPerS, nil // seconds per generated token
		}
		// A prompt timed in seconds is what apps time: the first token.
		return res.TTFT, nil
	}
	return *ph.TokensPerS, nil
}

// Predictor runs the simulator on records' workloads under a calibration
// overlay, at one fidelity, reusing runs across identical points. It is
// safe for concurrent use.
type Predictor struct {
	Fidelity sim.Fidelity
	// Workers bounds the runs in flight; 0 means GOMAXPROCS.
	Workers int

	// Runtimes, when set, replace the profiles records name by id (a
	// fit's trial profiles); a record whose runtime is not in it loads
	// its own.
	Runtimes map[string]*runtimes.Profile

	mu       sync.Mutex
	profiles map[string]*runtimes.Profile
	models   map[string]*workloads.Spec
	chips    map[string]*hw.Chip
	runs     map[string]*sim.Result
}

// NewPredictor makes a predictor at fidelity (analytic, tile or line).
func NewPredictor(f sim.Fidelity) *Predictor {
	return &Predictor{Fidelity: f, profiles: map[string]*runtimes.Profile{}, models: map[string]*workloads.Spec{}, chips: map[string]*hw.Chip{}, runs: map[string]*sim.Result{}}
}

// runtime loads a record's runtime once.
func (p *Predictor) runtime(ref string) (*runtimes.Profile, error) {
	if p.Runtimes != nil {
		if rt, ok := p.Runtimes[ref]; ok {
			return rt, nil
		}
	}
	return cached(&p.mu, p.profiles, ref, 0, func() (*runtimes.Profile, error) { return runtimes.Load(ref) })
}

func (p *Predictor) model(ref string) (*workloads.Spec, error) {
	return cached(&p.mu, p.models, ref, 0, func() (*workloads.Spec, error) { return workloads.LoadModel(ref, nil) })
}

// Run simulates record r's workload with overlay ov (nil for none). The
// result holds the unit that ran it, its prefill and decode phases and the
// time to first token; the rest of a simulation's result is dropped.
func (p *Predictor) Run(ctx context.Context, r Record, ov *Overlay) (*sim.Result, error) {
	w := workloadOf(r)
	key := fmt.Sprintf("%+v|%s", w, overlayKey(ov))
	res, err := cached(&p.mu, p.runs, key, 0, func() (*sim.Result, error) { return p.run(ctx, w, ov) })
	if err != nil {
		return nil, r.locate(err)
	}
	return res, nil
}

// run simulates one workload under ov. A record that names its runtime
// runs on the unit that runtime chooses, on the record's threads when it
// is a CPU (sim.Config.Threads: the cores fill their clusters and draw
// what they can); else the record's backend and n_gpu_layers name the
// unit.
func (p *Predictor) run(ctx context.Context, w workload, ov *Overlay) (*sim.Result, error) {
	chip, err := p.chip(ov, w.soc, nil)
	if err != nil {
		return nil, err
	}
	var rt *runtimes.Profile
	unit := ""
	if w.runtime != "" {
		if rt, err = p.runtime(w.runtime); err != nil {
			return nil, err
		}
	} else {
		unit = unitForRecord(chip, w.gpu, w.backend)
	}
	m, err := p.model(w.model)
	if err != nil {
		return nil, err
	}
	q, err := workloads.ParseQuant(w.quant)
	if err != nil {
		return nil, err
	}
	kv, err := workloads.ParseKVFormat(w.kv)
	if err != nil {
		return nil, err
	}
	// The records time the forward passes alone, as llama-bench does (its
	// tests draw no token): assumed for every record, as none says how
	// its tool sampled.
	cfg := sim.Config{Chip: chip, Model: m, Quant: q, KV: kv, Unit: unit, Runtime: rt, Threads: w.threads,
		Depth: w.depth, Prompt: w.prompt, Gen: w.gen, Batch: w.batch, Fidelity: p.Fidelity, Seed: 1, NoSampling: true}
	full, err := sim.Run(ctx, cfg)
	if sim.IsTimeOverflow(err) {
		// A fit tries figures that make some runs absurdly slow: such a
		// run is the slowest one simulated time holds, a residual that
		// turns the fit away, not a failure of the fit.
		return slowest(unit, w.prompt*w.batch, w.gen*w.batch), nil
	}
	if err != nil {
		return nil, err
	}
	return lean(full), nil
}

// lean keeps of a result what a record's figure needs (the unit, the
// prefill and decode phases, the time to first token): a fit caches tens
// of thousands of runs, and whole results (per-token samples, provenance,
// series) took gigabytes.
func lean(r *sim.Result) *sim.Result {
	out := &sim.Result{Unit: r.Unit, Prefill: r.Prefill, TTFT: r.TTFT}
	out.Decode.Phase = r.Decode.Phase
	return out
}

// slowest is the lean result of a run that would overflow simulated time:
// each phase takes sim.MaxSeconds.
func slowest(unit string, prompt, gen int) *sim.Result {
	out := &sim.Result{Unit: unit, TTFT: sim.MaxSeconds}
	out.Prefill.Phase = sim.Phase{Tokens: prompt, Seconds: sim.MaxSeconds}
	if prompt > 0 {
		r := float64(prompt) / sim.MaxSeconds
		out.Prefill.TokensPerS = &r
	}
	out.Decode.Phase = sim.Phase{Tokens: gen, Seconds: sim.MaxSeconds}
	if gen > 0 {
		r := float64(gen) / sim.MaxSeconds
		out.Decode.TokensPerS = &r
	}
	return out
}

// overlayKey identifies an overlay's content for the run cache.
func overlayKey(ov *Overlay) string {
	if ov == nil {
		return ""
	}
	return ov.file + "\x00" + string(ov.Encode())
}

// unitFor picks the unit llama.cpp ran on: the GPU when layers were
// offloaded to it, the CPU when none were, else the simulator's choice.
func unitFor(chip *hw.Chip, gpuLayers int) string {
	switch {
	case gpuLayers > 0:
		return unitOfKind(chip, hw.GPU)
	case gpuLayers == 0:
		return unitOfKind(chip, hw.CPU)
	}
	return ""
}

// unitOfKind is the name of the chip's first unit of a kind, or "".
func unitOfKind(chip *hw.Chip, kind string) string {
	for _, u := range chip.Units {
		if u.Kind == kind {
			return u.Name
		}
	}
	return ""
}

// backendKinds maps the words runtimes name their backends with (a word
// of the backend's name starting with one: "HTP0") to the kind of unit
// they run on, most specific first.
var backendKinds = []struct{ word, kind string }{
	{"qnn", hw.NPU}, {"htp", hw.NPU}, {"hexagon", hw.NPU}, {"genie", hw.NPU}, {"snpe", hw.NPU},
	{"rknn", hw.NPU}, {"rkllm", hw.NPU}, {"npu", hw.NPU}, {"ane", hw.NPU}, {"coreml", hw.NPU},
	{"nnapi", hw.NPU}, {"ethos", hw.NPU}, {"neuron", hw.NPU}, {"neuropilot", hw.NPU}, {"apu", hw.NPU},
	{"metal", hw.GPU}, {"mlx", hw.GPU}, {"cuda", hw.GPU}, {"tensorrt", hw.GPU}, {"vulkan", hw.GPU},
	{"opencl", hw.GPU}, {"sycl", hw.GPU}, {"rocm", hw.GPU}, {"hip", hw.GPU}, {"mps", hw.GPU},
	{"gpu", hw.GPU}, {"dsp", hw.DSP},
	{"cpu", hw.CPU}, {"blas", hw.CPU}, {"xnnpack", hw.CPU},
}

// unitForRecord picks the unit a model record ran on. llama.cpp's
// n_gpu_layers of 0 means the CPU; above 0, the accelerator its backend
// names (Hexagon or QNN: the NPU) or else the GPU. Without the count, the
// backend's name decides (QNN, Genie, RKNN/RKLLM, NeuroPilot: the NPU;
// Metal, MLX, CUDA/TensorRT, OpenCL: the GPU; CPU or XNNPACK: the CPU)
// when the chip has such a unit; else the simulator chooses.
func unitForRecord(chip *hw.Chip, gpuLayers int, backend string) string {
	named := ""
	words := strings.FieldsFunc(strings.ToLower(backend), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, bk := range backendKinds {
		if slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, bk.word) }) {
			if u := unitOfKind(chip, bk.kind); u != "" {
				named = u
				break
			}
		}
	}
	if gpuLayers > 0 && named != "" && chip.Unit(named).Kind != hw.CPU {
		return named
	}
	if u := unitFor(chip, gpuLayers); u != "" || gpuLayers >= 0 {
		return u
	}
	return named
}

// Predict gives the predicted figure of every record, in its unit, in
// order, running up to Workers simulations at once.
func (p *Predictor) Predict(ctx context.Context, recs []Record, ov *Overlay) ([]float64, error) {
	ovs := make([]*Overlay, len(recs))
	for i := range ovs {
		ovs[i] = ov
	}
	return p.PredictEach(ctx, recs, ovs)
}

// figure predicts record r under overlay ov: the unit that runs it and
// its figure in r's unit.
func (p *Predictor) figure(ctx context.Context, r Record, ov *Overlay) (unit string, value float64, err error) {
	if r.Kind == KindGEMV || r.Kind == KindGEMM {
		return p.kernel(ctx, r, ov)
	}
	res, err := p.Run(ctx, r, ov)
	if err != nil {
		return "", 0, err
	}
	v, err := predicted(r, res)
	return res.Unit, v, err
}

// kernelModel only sizes the engine of a kernel run (sim.RunKernel).
const kernelModel = "probe-decoder-s"

// kernel predicts a GEMV or GEMM record on the chip's CPU.
func (p *Predictor) kernel(ctx context.Context, r Record, ov *Overlay) (string, float64, error) {
	chip, err := p.onThreads(ov, r.SoC, "", r.Threads)
	if err != nil {
		return "", 0, r.locate(err)
	}
	m, err := p.model(kernelModel)
	if err != nil {
		return "", 0, err
	}
	q, err := workloads.ParseQuant(r.Quant)
	if err != nil {
		return "", 0, r.locate(err)
	}
	op := workloads.MatMul(q, max(1, r.Shape.M), r.Shape.N, r.Shape.K)
	cfg := sim.Config{Chip: chip, Model: m, Quant: q, Unit: unitFor(chip, 0), Batch: 1, Fidelity: p.Fidelity, Seed: 1}
	// A probe repeats a product: weights that fit the L3 stay there.
	warm := op.Touch(workloads.Weights) <= float64(chip.Memory.L3.Size)
	unit, secs, err := sim.RunKernel(ctx, cfg, op, warm)
	if err != nil {
		return "", 0, r.locate(err)
	}
	if r.Unit == UnitSeconds {
		return unit, secs, nil
	}
	return unit, op.FLOPs / secs, nil
}

// PredictEach is Predict with an overlay per record.
func (p *Predictor) PredictEach(ctx context.Context, recs []Record, ovs []*Overlay) ([]float64, error) {
	out, errs := p.predictAll(ctx, recs, ovs)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// predictAll predicts every record under its overlay and returns each
// figure or the error that kept it from one.
func (p *Predictor) predictAll(ctx context.Context, recs []Record, ovs []*Overlay) ([]float64, []error) {
	out := make([]float64, len(recs))
	errs := make([]error, len(recs))
	handed := workers.Run(ctx, p.Workers, len(recs), func(i int) {
		_, out[i], errs[i] = p.figure(ctx, recs[i], ovs[i])
	})
	for i := handed; i < len(recs); i++ {
		errs[i] = ctx.Err()
	}
	return out, errs
}

// Forget drops the cached runs (the fit calls it between rounds so memory
// stays bounded).
func (p *Predictor) Forget() {
	p.mu.Lock()
	p.runs = map[string]*sim.Result{}
	p.mu.Unlock()
}

// chipLabel is a short name for a record's chip: a file's base name without
// its extension, or the catalog id.
func chipLabel(soc string) string {
	if i := strings.LastIndexByte(soc, '/'); i >= 0 {
		soc = soc[i+1:]
	}
	return strings.TrimSuffix(strings.TrimSuffix(soc, ".yaml"), ".yml")
}
