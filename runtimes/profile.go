package runtimes

import (
	"bytes"
	"embed"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"go.yaml.in/yaml/v3"
)

//go:embed catalog/*.yaml
var catalogFiles embed.FS

var catalog = spec.Catalog{Files: catalogFiles, Dir: "catalog", Kind: "runtime", Field: "runtime"}

// Graph modes: how a runtime hands work to its unit.
const (
	PerOp    = "per-op"   // one dispatch per operator (llama.cpp, ExecuTorch XNNPACK)
	Compiled = "compiled" // a compiled graph: a few dispatches per pass (QNN/Genie, RKLLM, Core ML, MLC)
)

// Profile is one software stack on one kind of unit.
type Profile struct {
	// ID is the catalog id, or the file name of a profile read from a file.
	ID          string `yaml:"-"`
	Name        string `yaml:"name" spec:"required"`
	Description string `yaml:"description,omitempty"`
	// Units are the unit kinds the runtime drives (npu, gpu, cpu, dsp).
	Units []string `yaml:"units" spec:"required"`
	// Vendors, when given, are the chip vendors whose units it runs on
	// (Metal and Core ML on Apple's, RKLLM on Rockchip's); empty means any.
	Vendors []string `yaml:"vendors,omitempty"`
	// Formats are the weight storage formats its kernels read, as
	// workloads.ParseQuant names them (Q4_0, Q8_0, F16, INT8, W4A16, …).
	Formats []string `yaml:"formats" spec:"required"`
	// Quant is the quantisation its users run (Genie's W4A16, RKLLM's
	// w8a8 as INT8), taken when a run names the runtime but no --quant;
	// empty: Q4_0, as for every run. It must be one of Formats.
	Quant string `yaml:"quant,omitempty"`
	// Graph is per-op or compiled; Dispatch its cost per dispatched
	// operator (per-op) or per operator inside the compiled graph.
	Graph    string        `yaml:"graph" spec:"required,oneof=per-op|compiled"`
	Dispatch units.Seconds `yaml:"dispatch,omitempty" spec:"bound=cost"`
	// Barrier is, for a CPU runtime whose threads meet after every
	// operator, what each thread past the first adds to an operator
	// (hw.Unit.Barrier).
	Barrier units.Seconds `yaml:"barrier,omitempty" spec:"bound=cost"`
	// Threads is the CPU threads a CPU runtime uses by default; 0 means one
	// per core.
	Threads int `yaml:"threads,omitempty" spec:"nonneg"`
	// Context is the KV cache the runtime preallocates, in tokens (Genie's
	// models are compiled for 4096); 0 means what the request needs.
	Context int `yaml:"context,omitempty" spec:"nonneg"`
	// PrefillChunk is the prompt length a compiled prefill graph takes
	// (Genie's prompt processor: 128): a prompt runs as whole chunks, the
	// last padded, and the padding is wasted work. 0: one pass of the
	// prompt as it is.
	PrefillChunk int `yaml:"prefill_chunk,omitempty" spec:"nonneg"`
	// KVBlock is, for a runtime whose KV cache is paged (vLLM's and
	// FlashInfer's paged attention), the tokens of one block: the cache
	// holds the context rounded up to whole blocks, and attention reads it
	// block by block from wherever each block was allocated. 0: one
	// contiguous cache.
	KVBlock int `yaml:"kv_block,omitempty" spec:"nonneg"`
	// Batches are the batch sizes its compiled graphs take (static shapes,
	// as NPU SDKs compile them), ascending: a batch between two runs as the
	// next larger one, the extra sequences wasted work. Empty: any batch.
	Batches []int `yaml:"batches,omitempty"`
	// Mmap says the runtime computes from the mapped weights file instead
	// of a copy (llama.cpp's CPU and Metal backends; its CUDA, OpenCL and
	// Vulkan backends copy what they offload into device buffers): weights
	// past the app's memory budget then stay on storage and page in as
	// each pass reads them, instead of the model failing to load.
	Mmap bool `yaml:"mmap,omitempty"`
	// StreamLayers says the runtime keeps no weights resident: each pass
	// loads every block's weights from storage as it reaches them, the
	// next block's while the current one computes (AirLLM's layer-by-layer
	// offload with prefetching), so a model far past the memory budget runs
	// with two blocks' weights in memory.
	StreamLayers bool `yaml:"stream_layers,omitempty"`
	// FlashFFN says the runtime keeps the FFN weights on storage and
	// reads only the neurons a token activates ("LLM in a flash"); nil:
	// it does not.
	FlashFFN *FlashFFN `yaml:"flash_ffn,omitempty"`
	// CPUOps are the operators its kernels leave to the CPU on the unit it
	// drives (ggml's scheduler runs an operator its backend refuses on the
	// CPU): kinds of hw.Operators, or OutputHead for the output head's
	// matmul alone.
	CPUOps []string `yaml:"cpu_ops,omitempty"`
	// SampleOnUnit says the runtime draws the next token on the unit it
	// drives (a GPU sampling kernel: top-k/top-p over the logits where they
	// are) instead of copying the logits to the CPU's sampler.
	SampleOnUnit bool `yaml:"sample_on_unit,omitempty"`
	// Efficiency is the share of the unit's peak its kernels reach.
	Efficiency Efficiency `yaml:"efficiency"`
	// Basis says what the figures rest on: the records and chips of the
	// fit, or that none backs them.
	Basis   string            `yaml:"basis" spec:"required"`
	Sources map[string]string `yaml:"sources,omitempty"`

	// Provenance lists every figure of the profile with its source.
	Provenance []spec.Entry `yaml:"-"`

	// file and src are the file the profile was read from and its text,
	// which With applies overrides to; nil for a profile built or changed
	// in code (Bare, and the fits built on it), which With encodes first.
	file string
	src  []byte
}

// FlashFFN is the sparse FFN loading of "LLM in a flash" (Alizadeh et
// al., arXiv 2312.11514): a predictor picks the FFN neurons a token will
// activate; only their rows are computed, and those not already in DRAM
// are read from storage, each neuron's gate, up and down rows bundled
// into one read. The attention, embedding and output weights stay
// resident. The figures belong to a sparse (ReLU or ReLU-fied) model and
// its predictor.
type FlashFFN struct {
	// Active is the share of FFN neurons computed for a token: those the
	// predictor fires, false positives included.
	Active units.Fraction `yaml:"active" spec:"required"`
	// Cached is the share of the FFN weights held in DRAM: the neurons
	// recent tokens activated (the paper's window).
	Cached units.Fraction `yaml:"cached"`
	// Fresh is the share of the FFN weights read from storage for a
	// token: the active neurons the window does not hold.
	Fresh units.Fraction `yaml:"fresh" spec:"required"`
}

// Efficiency is the share of the modelled rate a runtime's kernels reach on
// its unit. GEMM (prompt processing) and GEMV (decode) are keyed by
// lower-case weight format (q4_0, f16, int8, w4a16) with `default` for the
// rest; Memory is the share of the DRAM peak a long stream of its decode
// reaches. Cores gives a CPU runtime's GEMV shares on the cores of one
// design (hw.CoreFamilies); GEMV's are then those pooled over the designs
// fitted, for cores of a design not listed (or of none named). A zero
// leaves the chip's own figure in place.
type Efficiency struct {
	GEMM   map[string]units.Fraction `yaml:"gemm,omitempty"`
	GEMV   map[string]units.Fraction `yaml:"gemv,omitempty"`
	Memory units.Fraction            `yaml:"memory,omitempty"`
	Cores  map[string]CoreEfficiency `yaml:"cores,omitempty"`
}

// CoreEfficiency is a runtime's share of the peak of one core design's
// cores: its GEMV kernels' by lower-case weight format.
type CoreEfficiency struct {
	GEMV map[string]units.Fraction `yaml:"gemv" spec:"required"`
}

// Default is the key of the efficiency maps that covers formats without
// their own figure.
const DefaultKey = "default"

// None is the runtime `--runtime none` names: no profile at all, so a run
// uses the chip file's own efficiencies (and the assumed defaults) and the
// unit its formats allow. It is for chips whose figures already describe
// the stack, and for tests of the simulator's mechanisms.
var None = &Profile{ID: "none", Name: "no runtime profile: the chip's own figures", Basis: "the chip file's figures"}

// IDs lists the catalog's runtimes, sorted.
func IDs() []string { return catalog.IDs() }

// Source returns a catalog profile as written, and whether it exists.
func Source(id string) ([]byte, bool) { return catalog.Source(id) }

// Load reads a catalog runtime by id, or a runtime YAML file.
func Load(ref string) (*Profile, error) {
	if ref == None.ID {
		return None, nil
	}
	if _, ok := catalog.Source(ref); !ok && !strings.ContainsRune(ref, '/') && !strings.HasSuffix(ref, ".yaml") && !strings.HasSuffix(ref, ".yml") {
		return nil, spec.UnknownID("runtime", "runtime", ref, append(IDs(), None.ID))
	}
	file, data, isID, err := catalog.Open(ref)
	if err != nil {
		return nil, err
	}
	p, err := Decode(file, data)
	if err != nil {
		return nil, err
	}
	p.ID = ref
	if !isID {
		p.ID = file
	}
	return p, nil
}

// Decode reads a runtime profile strictly and checks what spans fields.
func Decode(file string, data []byte) (*Profile, error) { return decode(file, data, nil) }

// With is the profile with overrides applied (paths without the
// "runtime." prefix: context=32768, efficiency.gemv.q4_0=15%), checked as
// a file of it would be; each figure set cites the override. The ID stays
// the profile's. No overrides: p itself.
func (p *Profile) With(sets []spec.Override) (*Profile, error) {
	if len(sets) == 0 {
		return p, nil
	}
	if p == None {
		return nil, &spec.Error{Field: "set", Path: "runtime." + sets[0].Path, Msg: "the run's runtime is none, which applies no profile: there is nothing to set"}
	}
	// The profile's own text, as read: an encoding of it leaves out what
	// is zero (mmap: false) and would orphan the sources that cite it.
	file, data := p.file, p.src
	if data == nil {
		var err error
		if data, err = p.encodeGiven(); err != nil {
			return nil, err
		}
		file = "runtime " + p.ID
	}
	q, err := decode(file, data, sets)
	if err != nil {
		return nil, spec.Prefixed(err, "runtime.")
	}
	q.ID = p.ID
	if q.Sources == nil {
		q.Sources = map[string]string{}
	}
	for _, o := range sets {
		q.Sources[o.Path] = "set: runtime." + o.Path + "=" + o.Value
	}
	return q, nil
}

// encodeGiven is Encode without the sources of figures the encoding
// leaves out (a zero, as mmap: false, or an efficiency Bare removed),
// which would cite nothing.
func (p *Profile) encodeGiven() ([]byte, error) {
	data, err := p.Encode()
	if err != nil {
		return nil, err
	}
	doc, err := spec.Parse("runtime "+p.ID, data)
	if err != nil {
		return nil, err
	}
	q := *p
	q.Sources = map[string]string{}
	for path, src := range p.Sources {
		if doc.Has(path) {
			q.Sources[path] = src
		}
	}
	return q.Encode()
}

// decode is Decode with overrides applied before the checks.
func decode(file string, data []byte, sets []spec.Override) (*Profile, error) {
	var p Profile
	doc, err := spec.Parse(file, data)
	if err != nil {
		return nil, err
	}
	if err := doc.Apply(sets, &p); err != nil {
		return nil, err
	}
	if err := doc.Decode(&p); err != nil {
		return nil, err
	}
	kinds := []string{"npu", "gpu", "cpu", "dsp"}
	for i, k := range p.Units {
		if !slices.Contains(kinds, k) {
			return nil, doc.Errorf(fmt.Sprintf("units.%d", i), "unit kind %q is not one of %s", k, strings.Join(kinds, ", "))
		}
	}
	if p.Quant != "" && !slices.Contains(p.Formats, p.Quant) {
		return nil, doc.Errorf("quant", "%q is not one of the formats the runtime reads (%s)", p.Quant, strings.Join(p.Formats, ", "))
	}
	for i, f := range p.Formats {
		if !slices.Contains(WeightFormats, f) {
			return nil, doc.Errorf(fmt.Sprintf("formats.%d", i), "weight format %q is not one of %s", f, strings.Join(WeightFormats, ", "))
		}
	}
	for i, b := range p.Batches {
		if b < 1 || i > 0 && b <= p.Batches[i-1] {
			return nil, doc.Errorf(fmt.Sprintf("batches.%d", i), "%d is not allowed: batch sizes are 1 or more, each larger than the one before (as [1, 2, 4])", b)
		}
	}
	for i, op := range p.CPUOps {
		if !slices.Contains(hw.Operators, op) && op != OutputHead {
			return nil, doc.Errorf(fmt.Sprintf("cpu_ops.%d", i), "%q is not an operator: use %s or %s (the output head's matmul)", op, strings.Join(hw.Operators, ", "), OutputHead)
		}
		if slices.Contains(p.Units, hw.CPU) {
			return nil, doc.Errorf(fmt.Sprintf("cpu_ops.%d", i), "operators left to the CPU are a runtime's on another unit; this one drives %s", strings.Join(p.Units, ", "))
		}
	}
	shares := map[string]map[string]units.Fraction{"efficiency.gemm": p.Efficiency.GEMM, "efficiency.gemv": p.Efficiency.GEMV}
	for core, ce := range p.Efficiency.Cores {
		if !slices.Contains(hw.CoreFamilies, core) {
			return nil, doc.Errorf("efficiency.cores."+core, "%q is not a core design: use one of %s", core, strings.Join(hw.CoreFamilies, ", "))
		}
		if !slices.Contains(p.Units, hw.CPU) {
			return nil, doc.Errorf("efficiency.cores."+core, "shares by core design are a CPU runtime's; this one drives %s", strings.Join(p.Units, ", "))
		}
		shares["efficiency.cores."+core+".gemv"] = ce.GEMV
	}
	for _, name := range slices.Sorted(maps.Keys(shares)) {
		for key, v := range shares[name] {
			path := name + "." + key
			if key != DefaultKey && !slices.Contains(WeightFormats, strings.ToUpper(key)) {
				return nil, doc.Errorf(path, "%q is not a weight format (lower-case: q4_0, f16, int8, w4a16, …) or default", key)
			}
			if v <= 0 || v > 1 {
				return nil, doc.Errorf(path, "an efficiency is a share of the peak: above 0 and at most 100%%")
			}
		}
	}
	if p.Barrier > 0 && !slices.Contains(p.Units, hw.CPU) {
		return nil, doc.Errorf("barrier", "%s: a barrier between operators is a CPU runtime's; this one drives %s", p.Barrier, strings.Join(p.Units, ", "))
	}
	if f := p.FlashFFN; f != nil {
		switch {
		case p.StreamLayers:
			return nil, doc.Errorf("flash_ffn", "a runtime streams every layer (stream_layers) or reads the FFN's active neurons (flash_ffn), not both")
		case f.Active <= 0 || f.Active > 1:
			return nil, doc.Errorf("flash_ffn.active", "the share of FFN neurons a token computes: above 0 and at most 100%%")
		case f.Cached < 0 || f.Cached >= 1:
			return nil, doc.Errorf("flash_ffn.cached", "the share of the FFN weights held in DRAM: at least 0 and below 100%%")
		case f.Fresh <= 0 || f.Fresh > f.Active || f.Fresh > 1-f.Cached:
			return nil, doc.Errorf("flash_ffn.fresh", "the share of the FFN weights a token reads from storage: above 0, at most the active share (%s) and at most what DRAM does not hold (%s)", f.Active, 1-f.Cached)
		}
	}
	if p.Efficiency.Memory < 0 || p.Efficiency.Memory > 1 {
		return nil, doc.Errorf("efficiency.memory", "a share of the DRAM peak: above 0 and at most 100%%")
	}
	for path := range p.Sources {
		if !doc.Has(path) {
			return nil, doc.Errorf("sources", "a source for %q, which the profile does not give", path)
		}
	}
	p.Provenance = doc.Provenance("", p.Sources)
	p.file, p.src = file, data
	return &p, nil
}

// OutputHead is the name cpu_ops gives the output head's matmul (the
// projection onto the vocabulary), an operator of kind matmul that a
// backend may refuse alone.
const OutputHead = "output"

// LeavesToCPU reports whether the runtime leaves an operator of kind, or
// the output head, to the CPU.
func (p *Profile) LeavesToCPU(kind string, head bool) bool {
	return p != nil && (slices.Contains(p.CPUOps, kind) || head && slices.Contains(p.CPUOps, OutputHead))
}

// WeightFormats is the vocabulary of weight formats a profile may list (the
// names hw.WeightFormats gives, kept in step by a test).
var WeightFormats = []string{"F16", "BF16", "F32", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "IQ4_NL", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "IQ4_XS", "INT8", "INT4", "W4A16"}

// Drives reports whether the runtime runs on a unit of the given kind on a
// chip of the given vendor.
func (p *Profile) Drives(kind, vendor string) bool {
	if !slices.Contains(p.Units, kind) {
		return false
	}
	return len(p.Vendors) == 0 || slices.ContainsFunc(p.Vendors, func(v string) bool { return strings.EqualFold(v, vendor) })
}

// Unread returns one of formats (storage format names) that the runtime's
// kernels do not read, if there is one.
func (p *Profile) Unread(formats []string) (string, bool) {
	for _, f := range formats {
		if !slices.Contains(p.Formats, f) {
			return f, true
		}
	}
	return "", false
}

// Preference is the order in which a chip's user reaches for a runtime
// when none is asked for: the vendor's own stack for its NPU, llama.cpp's
// backend for the GPU (Vulkan where the vendor has none), llama.cpp on the
// CPU, then the others. Every catalog id is in it.
var Preference = []string{
	"genie", "rkllm", "coreml", "neuropilot",
	"llama.cpp-metal", "llama.cpp-cuda", "llama.cpp-opencl", "llama.cpp-vulkan",
	"llama.cpp-cpu", "mlc", "executorch-qnn", "executorch-xnnpack", "llama.cpp-hexagon", "ollama",
}

// Drivers returns the catalog runtimes that drive a unit of kind on a
// chip of vendor, in Preference order.
func Drivers(kind, vendor string) []*Profile {
	var out []*Profile
	for _, id := range Preference {
		if p := MustLoad(id); p.Drives(kind, vendor) {
			out = append(out, p)
		}
	}
	return out
}

// Default returns the runtime a user would run on a unit of kind on a chip
// of vendor for weights in formats: the first of Drivers that reads them,
// or nil when none does.
func Default(kind, vendor string, formats []string) *Profile {
	for _, p := range Drivers(kind, vendor) {
		if _, unread := p.Unread(formats); !unread {
			return p
		}
	}
	return nil
}

// Bare returns the profile without its measured figures (efficiencies,
// dispatch and barrier costs): what a fit of the runtime runs, so the chip's own
// figures stand until the fit replaces them.
func (p *Profile) Bare() *Profile {
	q := *p
	q.Efficiency, q.Dispatch, q.Barrier = Efficiency{}, 0, 0
	q.file, q.src = "", nil // no longer the text it was read from
	return &q
}

// Encode prints the profile as the YAML a catalog file or --runtime FILE
// holds.
func (p *Profile) Encode() ([]byte, error) {
	var b bytes.Buffer
	e := yaml.NewEncoder(&b)
	e.SetIndent(2) // the catalog's own indent
	if err := e.Encode(p); err != nil {
		return nil, err
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Generic reports whether the runtime runs on any vendor's chips (its
// vendors list is empty), as llama.cpp's CPU and Vulkan backends do.
func (p *Profile) Generic() bool { return len(p.Vendors) == 0 }

// MustLoad returns a catalog runtime; it panics on an id the catalog does
// not hold, a programmer's error (the catalog's own tests load every id).
func MustLoad(id string) *Profile {
	p, err := loadCached(id)
	if err != nil {
		panic(err)
	}
	return p
}

// Measured reports whether measurements back the profile's figures: it
// gives a fitted share of the peak or of the DRAM bandwidth.
func (p *Profile) Measured() bool {
	return len(p.Efficiency.GEMM)+len(p.Efficiency.GEMV)+len(p.Efficiency.Cores) > 0 || p.Efficiency.Memory > 0
}

// Figures says in a few words whether measurements back the profile's
// efficiencies: "fitted" when it gives any, else "assumed (none measured)".
func (p *Profile) Figures() string {
	if p.Measured() {
		return "fitted"
	}
	return "chip's assumed figures (no measurement)"
}
