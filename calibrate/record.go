package calibrate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/workloads"
)

// Kind is what a record measured.
type Kind string

// The kinds of measurement. Memory kinds measure the memory system alone,
// kernel kinds one operator, and the model kinds a whole model on a runtime.
const (
	KindBandwidth  Kind = "bandwidth"   // sequential streaming bandwidth of a memory level
	KindLatency    Kind = "latency"     // dependent-load latency of a memory level
	KindRandomRead Kind = "random_read" // random reads of a given size
	KindMemcpy     Kind = "memcpy"      // copy bandwidth (read plus write)
	KindGEMV       Kind = "gemv"        // one matrix-vector product (shape m=1)
	KindGEMM       Kind = "gemm"        // one matrix product
	KindDecoder    Kind = "decoder"     // one transformer block
	KindPrefill    Kind = "prefill"     // a model's prompt processing (llama-bench pp)
	KindDecode     Kind = "decode"      // a model's token generation (llama-bench tg)
)

// Kinds lists every kind, in the order of CONTRACT.md.
func Kinds() []Kind {
	return []Kind{KindBandwidth, KindLatency, KindRandomRead, KindMemcpy, KindGEMV, KindGEMM, KindDecoder, KindPrefill, KindDecode}
}

// The units a record's value may have.
const (
	UnitTokensPerSecond = "tokens/s"
	UnitBytesPerSecond  = "B/s"
	UnitSeconds         = "s"
	UnitOpsPerSecond    = "ops/s"
)

// kindUnits is the units each kind may be given in.
var kindUnits = map[Kind][]string{
	KindBandwidth:  {UnitBytesPerSecond, UnitSeconds},
	KindLatency:    {UnitSeconds},
	KindRandomRead: {UnitBytesPerSecond, UnitSeconds},
	KindMemcpy:     {UnitBytesPerSecond, UnitSeconds},
	KindGEMV:       {UnitOpsPerSecond, UnitSeconds, UnitBytesPerSecond},
	KindGEMM:       {UnitOpsPerSecond, UnitSeconds, UnitBytesPerSecond},
	KindDecoder:    {UnitOpsPerSecond, UnitSeconds, UnitTokensPerSecond},
	KindPrefill:    {UnitTokensPerSecond, UnitSeconds},
	KindDecode:     {UnitTokensPerSecond, UnitSeconds},
}

// Record is one measured figure: what was measured, on which chip, what ran,
// the figure with its unit and spread, and the conditions it was taken in.
// On disk it is one JSON object per line (see [Writer] and [Read]); the JSON
// keys are the snake_case names in the tags, and every key but kind, soc,
// value, unit and source may be left out.
type Record struct {
	// file and line are where [Read] found the record ("" and 0 for one
	// built in code), so that an error about it can point there.
	file string
	line int

	Kind Kind `json:"kind"`
	// SoC is the chip: a catalog id ("apple-m2"), or the path of a chip
	// file, in which case SoCDigest is its content digest.
	SoC string `json:"soc"`
	// SoCDigest is "sha256:" and the hex SHA-256 of the chip file
	// ([DigestFile]); empty for catalog ids.
	SoCDigest string `json:"soc_digest,omitempty"`
	// Device is the machine the chip sat in, or what the tool said the
	// processor was ("Apple M2; Apple M2 (10-core GPU)").
	Device string `json:"device,omitempty"`

	// Model (a catalog id or a model file) and Quant (a ParseQuant spec)
	// are required for the model kinds, prefill and decode.
	Model string `json:"model,omitempty"`
	Quant string `json:"quant,omitempty"`
	// ModelSize and ModelParams are the stored bytes and parameter count
	// the tool reported (llama-bench's model_size and model_n_params).
	ModelSize   int64 `json:"model_size,omitempty"`
	ModelParams int64 `json:"model_params,omitempty"`
	// KVDtype is the KV-cache type, as simulate's --kv-dtype.
	KVDtype string `json:"kv_dtype,omitempty"`

	// Kernel names the operator or probe of the kernel and memory kinds.
	Kernel string `json:"kernel,omitempty"`
	Shape  Shape  `json:"shape,omitzero"`
	// DType is the element type the kernel computed in (hw/dtype names).
	DType   string `json:"dtype,omitempty"`
	Threads int    `json:"threads,omitempty"`
	// Backend is the runtime's backend ("Metal,BLAS", "CUDA", "CPU").
	Backend string `json:"backend,omitempty"`
	// Runtime is the software stack that ran the model: a catalog
	// runtime id ("rkllm", "llama.cpp-cpu") or a runtime file. A run
	// predicting the record uses it; empty, the simulator's default
	// for the chip and format (sim.Choose).
	Runtime string `json:"runtime,omitempty"`
	// NGPULayers is llama.cpp's layers offloaded to the GPU; nil when not
	// known (0 means none: the CPU ran the model).
	NGPULayers *int `json:"n_gpu_layers,omitempty"`

	// Value is the figure, finite and > 0, in Unit.
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	// Reps is how many repetitions Value averages (0: not known); Stddev
	// is their standard deviation in Unit.
	Reps   int     `json:"reps,omitempty"`
	Stddev float64 `json:"stddev,omitempty"`

	Conditions Conditions `json:"conditions,omitzero"`

	// Source says where the figure came from: the file and row of an
	// import ("bench.json:14"), or the probe that measured it.
	Source string `json:"source"`
	// Time is when it was measured, RFC 3339. It is information only: no
	// deterministic output of edgetwin depends on it.
	Time  string `json:"time,omitempty"`
	Notes string `json:"notes,omitempty"`
}

// Shape is the size of what ran. Matrix products are [M×K]·[K×N]; a model
// run has Prompt tokens to process or Gen tokens to generate, after Depth
// tokens already in the context, for Batch sequences.
type Shape struct {
	M      int `json:"m,omitempty"`
	N      int `json:"n,omitempty"`
	K      int `json:"k,omitempty"`
	Prompt int `json:"prompt,omitempty"`
	Gen    int `json:"gen,omitempty"`
	Depth  int `json:"depth,omitempty"`
	Batch  int `json:"batch,omitempty"`
	// Bytes is the size of a memory kind's buffer or access.
	Bytes int64 `json:"bytes,omitempty"`
}

// DefaultPrompt and DefaultGen are the shape of a prefill or a decode
// record that gives none: llama-bench's pp512 and tg128, simulate's
// defaults too.
const (
	DefaultPrompt = 512
	DefaultGen    = 128
)

// defaultShape gives a prefill record without shape.prompt, or a decode
// record without shape.gen, llama-bench's default and returns what it
// assumed ("" when nothing). obj is the record's JSON object: a field given
// as 0 is not missing, and stays an error.
func (r *Record) defaultShape(obj map[string]any) string {
	shape, _ := obj["shape"].(map[string]any)
	switch {
	case r.Kind == KindPrefill && shape["prompt"] == nil:
		r.Shape.Prompt = DefaultPrompt
		return fmt.Sprintf("field shape.prompt missing: assumed %d tokens, llama-bench's pp%d; give it, as a prefill's time depends on it", DefaultPrompt, DefaultPrompt)
	case r.Kind == KindDecode && shape["gen"] == nil:
		r.Shape.Gen = DefaultGen
		return fmt.Sprintf("field shape.gen missing: assumed %d tokens, llama-bench's tg%d", DefaultGen, DefaultGen)
	}
	return ""
}

// Conditions are what the figure may depend on besides the chip and the
// work: temperatures, clocks, software.
type Conditions struct {
	// AmbientC and StartTempC are the room's and the chip's temperature
	// at the start, in °C; nil when not known.
	AmbientC   *float64 `json:"ambient_c,omitempty"`
	StartTempC *float64 `json:"start_temp_c,omitempty"`
	// Clocks are the clocks seen during the run, in Hz, keyed by unit
	// ("cpu.big", "gpu", "dram").
	Clocks map[string]float64 `json:"clocks,omitempty"`
	// Temps are temperatures seen during the run, in °C, keyed by sensor
	// (a thermal zone's type, "x86_pkg_temp"); a probe gives each zone's
	// highest reading.
	Temps map[string]float64 `json:"temps,omitempty"`
	OS    string             `json:"os,omitempty"`
	// FirmwareDate is the date of the firmware or OS build, as given
	// (YYYY-MM-DD where known).
	FirmwareDate string `json:"firmware_date,omitempty"`
	// ToolVersion is the measuring tool and its version ("llama-bench b1").
	ToolVersion string `json:"tool_version,omitempty"`
	// Build is the tool's build, such as its commit ("8e672efe").
	Build string `json:"build,omitempty"`
}

// fieldErrorf is a record field that is wrong, "field <path>: <what is
// wrong>": a *spec.Error its reader places at the record's line.
func fieldErrorf(field, format string, args ...any) *spec.Error {
	return &spec.Error{Path: field, Msg: fmt.Sprintf(format, args...)}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func kindNames() string {
	names := make([]string, 0, len(Kinds()))
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

// Validate checks the record: a known kind, a chip, a finite value > 0 in a
// unit that suits the kind, model and quant for the model kinds, and sane
// optional fields. The error is a *spec.Error, one line.
func (r *Record) Validate() error {
	units, ok := kindUnits[r.Kind]
	if !ok {
		if r.Kind == "" {
			return fieldErrorf("kind", "missing; use one of %s", kindNames())
		}
		return fieldErrorf("kind", "%q is not a kind; use one of %s", string(r.Kind), kindNames())
	}
	if strings.TrimSpace(r.SoC) == "" {
		return fieldErrorf("soc", "missing; give the catalog id or the chip file's path")
	}
	if r.SoCDigest != "" {
		if err := checkDigest(r.SoCDigest); err != nil {
			return fieldErrorf("soc_digest", "%s", err)
		}
	}
	if !finite(r.Value) || r.Value <= 0 {
		return fieldErrorf("value", "must be a finite number > 0, got %v", r.Value)
	}
	if r.Unit == "" {
		return fieldErrorf("unit", "missing; %s takes %s", r.Kind, strings.Join(units, " or "))
	}
	if !slices.Contains(units, r.Unit) {
		return fieldErrorf("unit", "%q does not suit kind %s; use %s", r.Unit, r.Kind, strings.Join(units, " or "))
	}
	if strings.TrimSpace(r.Source) == "" {
		return fieldErrorf("source", "missing; say which file and row, or which probe, the figure came from")
	}
	if r.Kind == KindPrefill || r.Kind == KindDecode {
		if strings.TrimSpace(r.Model) == "" {
			return fieldErrorf("model", "missing; a %s record needs the model (catalog id or file)", r.Kind)
		}
		if strings.TrimSpace(r.Quant) == "" {
			return fieldErrorf("quant", "missing; a %s record needs the quantisation", r.Kind)
		}
	}
	if r.Quant != "" {
		if _, err := workloads.ParseQuant(r.Quant); err != nil {
			return fieldErrorf("quant", "%s", err)
		}
	}
	if r.KVDtype != "" {
		if _, err := workloads.ParseKVFormat(r.KVDtype); err != nil {
			return fieldErrorf("kv_dtype", "%s", err)
		}
	}
	switch {
	case r.Kind == KindPrefill && r.Shape.Prompt <= 0:
		return fieldErrorf("shape.prompt", "a prefill record needs the prompt length > 0, got %d", r.Shape.Prompt)
	case r.Kind == KindDecode && r.Shape.Gen <= 0:
		return fieldErrorf("shape.gen", "a decode record needs the number of generated tokens > 0, got %d", r.Shape.Gen)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"shape.m", int64(r.Shape.M)}, {"shape.n", int64(r.Shape.N)}, {"shape.k", int64(r.Shape.K)},
		{"shape.prompt", int64(r.Shape.Prompt)}, {"shape.gen", int64(r.Shape.Gen)},
		{"shape.depth", int64(r.Shape.Depth)}, {"shape.batch", int64(r.Shape.Batch)},
		{"shape.bytes", r.Shape.Bytes}, {"threads", int64(r.Threads)}, {"reps", int64(r.Reps)},
		{"model_size", r.ModelSize}, {"model_params", r.ModelParams},
	} {
		if f.v < 0 {
			return fieldErrorf(f.name, "must be >= 0, got %d", f.v)
		}
	}
	if r.NGPULayers != nil && *r.NGPULayers < 0 {
		return fieldErrorf("n_gpu_layers", "must be >= 0, got %d", *r.NGPULayers)
	}
	if !finite(r.Stddev) || r.Stddev < 0 {
		return fieldErrorf("stddev", "must be a finite number >= 0, got %v", r.Stddev)
	}
	c := r.Conditions
	for _, t := range []struct {
		name string
		v    *float64
	}{{"conditions.ambient_c", c.AmbientC}, {"conditions.start_temp_c", c.StartTempC}} {
		if t.v != nil && (!finite(*t.v) || *t.v < -273.15) {
			return fieldErrorf(t.name, "must be a finite temperature in °C, got %v", *t.v)
		}
	}
	for _, k := range sortedKeys(c.Clocks) {
		if v := c.Clocks[k]; !finite(v) || v <= 0 {
			return fieldErrorf("conditions.clocks."+k, "must be a finite clock in Hz > 0, got %v", v)
		}
	}
	for _, k := range sortedKeys(c.Temps) {
		if v := c.Temps[k]; !finite(v) || v < -273.15 {
			return fieldErrorf("conditions.temps."+k, "must be a finite temperature in °C, got %v", v)
		}
	}
	if r.Time != "" {
		if _, err := time.Parse(time.RFC3339, r.Time); err != nil {
			return fieldErrorf("time", "%q is not an RFC 3339 time (2006-01-02T15:04:05Z)", r.Time)
		}
	}
	return nil
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

const digestPrefix = "sha256:"

func checkDigest(d string) error {
	hexPart, ok := strings.CutPrefix(d, digestPrefix)
	if !ok || len(hexPart) != 2*sha256.Size {
		return fmt.Errorf("%q is not a digest; want sha256: and 64 lowercase hex digits", d)
	}
	for _, c := range hexPart {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return fmt.Errorf("%q is not a digest; want sha256: and 64 lowercase hex digits", d)
		}
	}
	return nil
}

// Digest is the content digest of a chip file, as Record.SoCDigest holds
// it: "sha256:" and 64 lowercase hex digits.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return digestPrefix + hex.EncodeToString(sum[:])
}

// DigestFile reads a chip file and returns its [Digest].
func DigestFile(path string) (string, error) {
	data, err := spec.ReadFile(path, "chip")
	if err != nil {
		return "", err
	}
	return Digest(data), nil
}

// Where is where the record came from, for messages: its file and line
// when it was read from one, else its source.
func (r Record) Where() string {
	if r.file != "" {
		return fmt.Sprintf("%s:%d", r.file, r.line)
	}
	return r.Source
}

// locate puts an error about r at the record: a catalog error that names
// a flag (--soc, --model) is given the record's file, line and field

// referenceKeys are the record's keys that name a catalog entry or a
// file, by the setting of the same name: an error about one of them (an
// unknown chip) is told at the record's line.
var referenceKeys = map[string]bool{"soc": true, "model": true, "runtime": true}

// instead; any other error is prefixed with where the record came from.
func (r Record) locate(err error) error {
	var se *spec.Error
	if errors.As(err, &se) && se.File == "" && se.Path == "" && referenceKeys[se.Field] && r.file != "" {
		e := *se
		e.File, e.Line, e.Path, e.Field = r.file, r.line, se.Field, ""
		return &e
	}
	return fmt.Errorf("%s: %w", r.Where(), err)
}
