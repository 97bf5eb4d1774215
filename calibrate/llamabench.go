package calibrate

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/workloads"
)

// ImportOptions say what the rows of an import were measured on, and
// optionally override what is read from them.
type ImportOptions struct {
	// SoC is the chip (catalog id or chip file path), required; SoCDigest
	// is the chip file's [Digest], empty for a catalog id.
	SoC, SoCDigest string
	// Models, when given, are the models the rows ran (catalog ids or
	// model files) instead of the catalog model matched by model_n_params.
	// One is the model of every row, and a row whose model_n_params is more
	// than 1% off its parameter count is skipped; of several, each row
	// takes the one closest to its model_n_params, within 1%.
	Models []ModelRef
	// Quant, when set, is the quantisation of every row (a
	// workloads.ParseQuant spec) instead of the one read from model_type.
	Quant string
}

// Skip is a row of the input that gave no record, and why. Row is the
// 1-based number of the result in the file (0 for a problem that is not a
// row, such as a JSON array that is not closed); Line is where it starts.
type Skip struct {
	File   string
	Row    int
	Line   int
	Reason string
}

// String prints "row 7 (bench.json:130): reason", or "file:line: reason"
// when the skip is not a row.
func (s Skip) String() string {
	if s.Row == 0 {
		return fmt.Sprintf("%s:%d: %s", s.File, s.Line, s.Reason)
	}
	return fmt.Sprintf("row %d (%s:%d): %s", s.Row, s.File, s.Line, s.Reason)
}

// Form is a form of llama-bench output.
type Form string

// The forms of llama-bench output that Import reads (its -o flag).
const (
	FormJSON     Form = "json"
	FormJSONL    Form = "jsonl"
	FormCSV      Form = "csv"
	FormMarkdown Form = "md"
)

const acceptedForms = "llama-bench output as JSON (-o json), JSON Lines (-o jsonl), CSV (-o csv) or its Markdown table (-o md)"

// mixedReason is the reason a pp+tg row is skipped.
const mixedReason = "mixed pp+tg test: edgetwin needs them separate (run llama-bench with -p and -n, not -pg)"

// paramTolerance is how close model_n_params must be to a model's
// parameter count to match it.
const paramTolerance = 0.01

// Import reads llama.cpp llama-bench results in any of its forms (detected
// from the content, see [Detect]) and turns each pp-only row into a
// prefill record and each tg-only row into a decode record on opts.SoC, in
// tokens/s. The model is the catalog model whose parameter count is within
// 1% of model_n_params (Llama 2 7B: 6738415616) and the quant the last
// word of model_type ("llama 7B Q4_0"), unless opts gives them. Rows that
// cannot be mapped are returned as skips with the reason; unknown columns
// are ignored. The error, one line naming the file (a *spec.Error), is only
// for input that is not llama-bench output at all or for bad options.
func Import(name string, data []byte, opts ImportOptions) ([]Record, []Skip, error) {
	m, err := newMapper(name, opts)
	if err != nil {
		return nil, nil, err
	}
	text, err := decodeText(name, data)
	if err != nil {
		return nil, nil, err
	}
	form, ok := detectText(text)
	if !ok {
		return nil, nil, &spec.Error{File: name, Msg: "not llama-bench output; expected " + acceptedForms}
	}
	var rows []benchRow
	var skips []Skip
	switch form {
	case FormJSON:
		rows, skips = parseJSONArray(name, text)
	case FormJSONL:
		rows, skips = parseJSONLines(name, text)
	case FormCSV:
		rows, skips = parseCSV(name, text)
	case FormMarkdown:
		rows, skips = parseMarkdown(name, text)
	}
	return m.mapRows(rows, skips)
}

// Detect says which form of llama-bench output data is in: a JSON array, JSON
// objects one a line, a Markdown table with test and t/s columns, or CSV
// with a header naming n_prompt or avg_ts.
func Detect(data []byte) (Form, bool) {
	text, err := decodeText("", data)
	if err != nil {
		return "", false
	}
	return detectText(text)
}

func detectText(text []byte) (Form, bool) {
	trimmed := bytes.TrimLeft(text, " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return "", false
	case trimmed[0] == '[':
		return FormJSON, true
	case trimmed[0] == '{':
		return FormJSONL, true
	}
	for line := range strings.Lines(string(text)) {
		if _, ok := markdownHeader(line); ok {
			return FormMarkdown, true
		}
	}
	first, _, _ := bytes.Cut(trimmed, []byte{'\n'})
	for _, h := range strings.Split(string(first), ",") {
		h = strings.ToLower(strings.Trim(strings.TrimSpace(h), `"`))
		if h == "n_prompt" || h == "avg_ts" {
			return FormCSV, true
		}
	}
	return "", false
}

// decodeText turns the input into UTF-8 text with \n line ends: a UTF-8 BOM
// is dropped and UTF-16 with a BOM (PowerShell's redirection) converted.
func decodeText(name string, data []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		little := data[0] == 0xFF
		data = data[2:]
		if len(data)%2 != 0 {
			return nil, &spec.Error{File: name, Msg: "not text: UTF-16 with an odd number of bytes; expected " + acceptedForms}
		}
		u := make([]uint16, len(data)/2)
		for i := range u {
			if little {
				u[i] = uint16(data[2*i]) | uint16(data[2*i+1])<<8
			} else {
				u[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
			}
		}
		data = []byte(string(utf16.Decode(u)))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &spec.Error{File: name, Msg: "empty; expected " + acceptedForms}
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return nil, &spec.Error{File: name, Msg: "not text (binary data); expected " + acceptedForms}
	}
	return bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), nil
}

// benchRow is one llama-bench result with its fields as text, under
// llama-bench's JSON/CSV names whatever the form.
type benchRow struct {
	row, line int
	f         map[string]string
	samples   int // len(samples_ts), when the form has it
}

// lineIndex maps byte offsets of a text to 1-based line numbers.
type lineIndex []int

func newLineIndex(text []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range text {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (li lineIndex) line(off int) int {
	n, found := slices.BinarySearch(li, off)
	if found {
		return n + 1
	}
	return n
}

// catalogParams is the parameter count of every catalog model.
var catalogParams = sync.OnceValue(func() map[string]int64 {
	out := map[string]int64{}
	for _, id := range workloads.ModelIDs() {
		if s, err := workloads.LoadModel(id, nil); err == nil {
			out[id] = s.Params()
		}
	}
	return out
})

// matchModel is the catalog model whose parameter count is closest to n,
// if within paramTolerance.
func matchModel(n int64) (string, bool) { return closest(n, catalogParams()) }

// closest is the key of params whose count is nearest n, within 1%.
func closest(n int64, params map[string]int64) (string, bool) {
	best, bestErr := "", math.Inf(1)
	for _, id := range sortedKeys(params) {
		p := float64(params[id])
		if e := math.Abs(float64(n)-p) / p; e <= paramTolerance && e < bestErr {
			best, bestErr = id, e
		}
	}
	return best, best != ""
}

// ModelRef is a model an import may map rows to: a catalog id or a model
// file, and its parameter count (0: looked up for a catalog id, unknown
// for a file).
type ModelRef struct {
	Ref    string
	Params int64
}

type mapper struct {
	name   string
	opts   ImportOptions
	quant  string     // canonical opts.Quant
	models []ModelRef // opts.Models, with the catalog's counts filled in
}

func newMapper(name string, opts ImportOptions) (*mapper, error) {
	m := &mapper{name: name, opts: opts}
	if strings.TrimSpace(opts.SoC) == "" {
		return nil, spec.FieldErrorf("soc", "is not given: the records of %s need the chip they were measured on (a catalog id or a chip file)", name)
	}
	if opts.SoCDigest != "" {
		if err := checkDigest(opts.SoCDigest); err != nil {
			return nil, &spec.Error{File: name, Msg: "chip digest: " + err.Error()}
		}
	}
	if opts.Quant != "" {
		q, err := workloads.ParseQuant(opts.Quant)
		if err != nil {
			return nil, spec.FieldErrorf("quant", ": %s", spec.OneLine(err.Error()))
		}
		m.quant = q.String()
	}
	for _, mr := range opts.Models {
		if mr.Params == 0 {
			mr.Params = catalogParams()[mr.Ref]
		}
		if len(opts.Models) > 1 && mr.Params == 0 {
			return nil, spec.FieldErrorf("model", ": %s: its parameter count is not known, and with several models each row is matched by it", mr.Ref)
		}
		m.models = append(m.models, mr)
	}
	return m, nil
}

// modelOf is the given model a row of params parameters ran (hasParams:
// the row gives them), or the reason none fits.
func (m *mapper) modelOf(params int64, hasParams bool) (string, string) {
	if len(m.models) == 1 {
		mr := m.models[0]
		if hasParams && mr.Params > 0 {
			if e := math.Abs(float64(params)-float64(mr.Params)) / float64(mr.Params); e > paramTolerance {
				return "", fmt.Sprintf("model_n_params %d is not the %d parameters of the model given, %s (more than 1%% apart)", params, mr.Params, mr.Ref)
			}
		}
		return mr.Ref, ""
	}
	given := map[string]int64{}
	var names []string
	for _, mr := range m.models {
		given[mr.Ref] = mr.Params
		names = append(names, fmt.Sprintf("%s (%d)", mr.Ref, mr.Params))
	}
	if !hasParams || params == 0 {
		return "", "no model_n_params to tell the given models apart by"
	}
	if ref, ok := closest(params, given); ok {
		return ref, ""
	}
	return "", fmt.Sprintf("model_n_params %d is within 1%% of none of the given models: %s", params, strings.Join(names, ", "))
}

func (m *mapper) mapRows(rows []benchRow, skips []Skip) ([]Record, []Skip, error) {
	var recs []Record
	for _, r := range rows {
		rec, reason := m.record(r)
		if reason != "" {
			skips = append(skips, Skip{File: m.name, Row: r.row, Line: r.line, Reason: spec.OneLine(reason)})
			continue
		}
		recs = append(recs, rec)
	}
	slices.SortStableFunc(skips, func(a, b Skip) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Row - b.Row
	})
	return recs, skips, nil
}

// count reads a non-negative whole number field.
func (r benchRow) count(key string) (n int64, present bool, err error) {
	s, ok := r.f[key]
	if !ok || strings.TrimSpace(s) == "" {
		return 0, false, nil
	}
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		if v < 0 {
			return 0, true, fmt.Errorf("%s %q is negative", key, s)
		}
		return v, true, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < 0 || f > 1<<53 {
		return 0, true, fmt.Errorf("%s %q is not a whole number >= 0", key, s)
	}
	return int64(f), true, nil
}

// number reads a finite number field.
func (r benchRow) number(key string) (v float64, present bool, err error) {
	s, ok := r.f[key]
	if !ok || strings.TrimSpace(s) == "" {
		return 0, false, nil
	}
	v, err = strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !finite(v) {
		return 0, true, fmt.Errorf("%s %q is not a number", key, s)
	}
	return v, true, nil
}

func (r benchRow) str(key string) string { return strings.TrimSpace(r.f[key]) }

// quantOf reads the quantisation from llama-bench's model_type, which is
// "<arch> <size> <file type>": "llama 7B Q4_0", older "llama 7B mostly
// Q4_0", "llama 7B all F32", or "qwen2 7B Q4_K - Medium". ParseQuant knows
// llama.cpp's names of the file types ("Q4_K - Medium" is Q4_K_M); the
// quant is its canonical spelling.
func quantOf(modelType string) (string, error) {
	words := strings.Fields(modelType)
	if len(words) == 0 {
		return "", fmt.Errorf("no model_type to read the quant from; give the quant")
	}
	ftype := words[len(words)-1]
	if len(words) >= 3 {
		rest := words[2:]
		if rest[0] == "mostly" || rest[0] == "all" {
			rest = rest[1:]
		}
		if n := len(rest); n > 0 && rest[n-1] == "(guessed)" {
			rest = rest[:n-1]
		}
		if len(rest) > 0 {
			ftype = strings.Join(rest, " ")
		}
	}
	q, err := workloads.ParseQuant(ftype)
	if err != nil || strings.ContainsAny(ftype, "=,") {
		return "", fmt.Errorf("quant %q (from model_type %q) is not one edgetwin models; give the quant", ftype, modelType)
	}
	return q.String(), nil
}

// parseBool reads llama-bench's booleans: true/false in JSON, 1/0 in CSV.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes":
		return true, true
	case "0", "false", "no":
		return false, true
	}
	return false, false
}

// backendOf is the backends column, or for old llama-bench versions the
// backend flags it printed instead (cuda, metal, …).
func backendOf(r benchRow) string {
	if b := r.str("backends"); b != "" {
		return b
	}
	var names []string
	for _, f := range []struct{ key, name string }{
		{"cuda", "CUDA"}, {"vulkan", "Vulkan"}, {"kompute", "Kompute"}, {"metal", "Metal"},
		{"sycl", "SYCL"}, {"opencl", "OpenCL"}, {"rpc", "RPC"}, {"blas", "BLAS"},
	} {
		if v, ok := parseBool(r.f[f.key]); ok && v {
			names = append(names, f.name)
		}
	}
	if len(names) == 0 {
		if _, ok := r.f["cuda"]; ok {
			return "CPU"
		}
		return ""
	}
	return strings.Join(names, ",")
}

// record maps one row, or says why it cannot.
func (m *mapper) record(r benchRow) (Record, string) {
	var notes []string
	nPrompt, hasP, err := r.count("n_prompt")
	if err != nil {
		return Record{}, err.Error()
	}
	nGen, hasG, err := r.count("n_gen")
	if err != nil {
		return Record{}, err.Error()
	}
	if !hasP && !hasG {
		if t := r.str("test"); t != "" {
			return Record{}, fmt.Sprintf("test %q is not ppN, tgN or ppN+tgN", t)
		}
		return Record{}, "no n_prompt or n_gen: cannot tell a prefill test from a decode test"
	}
	var kind Kind
	switch {
	case nPrompt > 0 && nGen > 0:
		return Record{}, mixedReason
	case nPrompt > 0:
		kind = KindPrefill
	case nGen > 0:
		kind = KindDecode
	default:
		return Record{}, "n_prompt and n_gen are both 0: nothing was measured"
	}
	if nPrompt > math.MaxInt32 || nGen > math.MaxInt32 {
		return Record{}, "n_prompt or n_gen is too large"
	}
	depth, _, err := r.count("n_depth")
	if err != nil || depth > math.MaxInt32 {
		return Record{}, fmt.Sprintf("n_depth %q is not a whole number >= 0", r.str("n_depth"))
	}

	value, hasV, err := r.number("avg_ts")
	if err != nil {
		return Record{}, err.Error()
	}
	if !hasV {
		ns, hasNS, err := r.number("avg_ns")
		if err != nil {
			return Record{}, err.Error()
		}
		if !hasNS {
			return Record{}, "no avg_ts (or avg_ns): no figure to record"
		}
		if ns > 0 {
			value = float64(nPrompt+nGen) * 1e9 / ns
		}
	}
	if !finite(value) || value <= 0 {
		return Record{}, fmt.Sprintf("avg_ts %v is not a rate > 0", value)
	}
	stddev, hasSD, err := r.number("stddev_ts")
	if err != nil {
		return Record{}, err.Error()
	}
	if !hasSD {
		sdNS, okSD, _ := r.number("stddev_ns")
		avgNS, okAvg, _ := r.number("avg_ns")
		if okSD && okAvg && avgNS > 0 && sdNS >= 0 {
			stddev = value * sdNS / avgNS // first order: the spread of time as a share of the rate
		}
	}
	if stddev < 0 || !finite(stddev) {
		return Record{}, fmt.Sprintf("stddev_ts %v is not a spread >= 0", stddev)
	}

	quant := m.quant
	if quant == "" {
		if quant, err = quantOf(r.str("model_type")); err != nil {
			return Record{}, err.Error()
		}
	}
	params, hasParams, err := r.count("model_n_params")
	if err != nil {
		if len(m.models) == 0 {
			return Record{}, err.Error() + "; give --model"
		}
		notes = append(notes, err.Error()+"; ignored")
		hasParams = false
	}
	var model string
	if len(m.models) == 0 {
		if !hasParams || params == 0 {
			return Record{}, "no model_n_params to find the catalog model by; give --model"
		}
		id, ok := matchModel(params)
		if !ok {
			return Record{}, fmt.Sprintf("no catalog model with %d parameters (within 1%%); give the model", params)
		}
		model = id
	} else {
		var why string
		if model, why = m.modelOf(params, hasParams); why != "" {
			return Record{}, why
		}
	}

	rec := Record{
		Kind:        kind,
		SoC:         m.opts.SoC,
		SoCDigest:   m.opts.SoCDigest,
		Model:       model,
		Quant:       quant,
		Shape:       Shape{Prompt: int(nPrompt), Gen: int(nGen), Depth: int(depth), Batch: 1},
		Backend:     backendOf(r),
		Value:       value,
		Unit:        UnitTokensPerSecond,
		Stddev:      stddev,
		Source:      fmt.Sprintf("%s:%d", m.name, r.line),
		ModelParams: params,
	}
	var devs []string
	for _, k := range []string{"cpu_info", "gpu_info"} {
		if v := spec.OneLine(r.str(k)); v != "" && !slices.Contains(devs, v) {
			devs = append(devs, v)
		}
	}
	rec.Device = strings.Join(devs, "; ")

	optional := func(key string, max int64) (int64, bool) {
		v, ok, err := r.count(key)
		if err != nil || v > max {
			notes = append(notes, fmt.Sprintf("%s %q ignored", key, r.str(key)))
			return 0, false
		}
		return v, ok
	}
	if v, ok := optional("model_size", math.MaxInt64); ok {
		rec.ModelSize = v
	}
	if v, ok := optional("n_threads", math.MaxInt32); ok {
		rec.Threads = int(v)
	}
	if v, ok := optional("n_gpu_layers", math.MaxInt32); ok {
		ngl := int(v)
		rec.NGPULayers = &ngl
	}
	if v, ok := optional("n_reps", math.MaxInt32); ok {
		rec.Reps = int(v)
	} else if r.samples > 0 {
		rec.Reps = r.samples
	}

	tk, tv := strings.ToLower(r.str("type_k")), strings.ToLower(r.str("type_v"))
	switch {
	case tk == "" && tv == "":
	case tk == tv:
		if kv, err := workloads.ParseKVFormat(tk); err == nil {
			rec.KVDtype = kv.String()
		} else {
			notes = append(notes, fmt.Sprintf("KV cache type %q not known to edgetwin", tk))
		}
	default:
		notes = append(notes, fmt.Sprintf("KV cache type_k %q, type_v %q", tk, tv))
	}
	if f16, ok := parseBool(r.f["f16_kv"]); ok && tk == "" && tv == "" {
		// Before type_k and type_v, llama-bench had f16_kv: an F16 or F32 cache.
		rec.KVDtype = map[bool]string{true: "F16", false: "F32"}[f16]
	}
	if fa, ok := parseBool(r.f["flash_attn"]); ok && fa {
		notes = append(notes, "flash_attn on")
	}

	c := Conditions{Build: spec.OneLine(r.str("build_commit")), ToolVersion: "llama-bench"}
	if b := r.str("build_number"); b != "" {
		c.ToolVersion = "llama-bench b" + spec.OneLine(b)
	}
	rec.Conditions = c
	if t := r.str("test_time"); t != "" {
		if _, err := time.Parse(time.RFC3339, t); err == nil {
			rec.Time = t
		}
	}
	rec.Notes = spec.OneLine(strings.Join(notes, "; "))
	if err := rec.Validate(); err != nil {
		return Record{}, "gives no valid record: " + err.Error()
	}
	return rec, ""
}
