package workloads

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// hfFamily says how one Hugging Face model_type maps onto Model.
type hfFamily struct {
	tied      bool   // default of tie_word_embeddings
	plain     bool   // a two-matrix FFN (up, down) with no gate
	qkvBias   bool   // q, k, v projections carry biases (the default when biasKey is set)
	biasKey   string // boolean key that turns those biases on or off ("" = fixed)
	qkNorm    bool   // per-head q and k norms (the default when qkNormKey is set)
	qkNormKey string // boolean key that turns the q and k norms on or off ("" = fixed)
	postNorms bool   // norms after attention and after the FFN
	// keys renames the standard keys a family keeps under its own names
	// (ChatGLM's num_layers for num_hidden_layers).
	keys      map[string]string
	kvSwitch  string // boolean key that, false, gives every head its own K and V ("" = none)
	experts   string // key of the routed-expert count ("" for dense)
	expertFFN string // key of the per-expert size ("" = intermediate_size)
	sharedFFN string // key of the shared expert size ("" = no shared expert)
	// defaults are the configuration class's values for size keys a
	// published config.json may leave out; class names it in citations.
	// Without a default an absent size key is an error (or, for
	// num_key_value_heads, num_attention_heads).
	class    string
	defaults map[string]int
}

// hfFamilies are the supported model_type values. Their defaults are the
// transformers configuration classes' (e.g. GemmaConfig ties embeddings).
var hfFamilies = map[string]hfFamily{
	"llama":     {},
	"mistral":   {},
	"mixtral":   {experts: "num_local_experts"},
	"qwen2":     {qkvBias: true},
	"qwen2_moe": {qkvBias: true, experts: "num_experts", expertFFN: "moe_intermediate_size", sharedFFN: "shared_expert_intermediate_size"},
	"qwen3":     {qkNorm: true},
	"qwen3_moe": {qkNorm: true, experts: "num_experts", expertFFN: "moe_intermediate_size"},
	"phi3":      {}, // fused qkv_proj and gate_up_proj hold the same weights
	"gemma":     {tied: true},
	"gemma2":    {tied: true, postNorms: true},
	"gemma3_text": {tied: true, qkNorm: true, postNorms: true, class: "Gemma3TextConfig", defaults: map[string]int{
		"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
		"num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "max_position_embeddings": 131072}},
	// Phi-1.5 and Phi-2: fc1 and fc2, with biases on every projection.
	"phi":        {plain: true, qkvBias: true, qkNormKey: "qk_layernorm"},
	"stablelm":   {biasKey: "use_qkv_bias", qkNormKey: "qk_layernorm", class: "StableLmConfig", defaults: map[string]int{"num_key_value_heads": 32}},
	"starcoder2": {tied: true, plain: true, qkvBias: true, biasKey: "use_bias", class: "Starcoder2Config", defaults: map[string]int{"num_key_value_heads": 2}},
	"granite":    {biasKey: "attention_bias"}, // the four multipliers scale activations, not sizes
	"olmo2":      {qkNorm: true, biasKey: "attention_bias"},
	"olmoe":      {qkNorm: true, experts: "num_experts"}, // OlmoeConfig: q and k norms, intermediate_size a routed expert's, no shared one
	"internlm2":  {qkvBias: true, biasKey: "bias"},       // fused wqkv holds the q, k, v weights
	"smollm3":    {tied: true, biasKey: "attention_bias", class: "SmolLM3Config", defaults: map[string]int{"num_key_value_heads": 4}},
	"exaone":     {tied: true, keys: map[string]string{"num_hidden_layers": "num_layers"}},
	// ChatGLM2 and 3: q, k, v biases (add_qkv_bias) and none elsewhere
	// (add_bias_linear), a gated FFN (dense_h_to_4h holds gate and up), an
	// untied output_layer; multi_query_group_num K and V heads when
	// multi_query_attention is set. Rotary on half of each head changes no
	// size.
	"chatglm": {biasKey: "add_qkv_bias", kvSwitch: "multi_query_attention", keys: map[string]string{
		"num_hidden_layers": "num_layers", "intermediate_size": "ffn_hidden_size", "vocab_size": "padded_vocab_size",
		"max_position_embeddings": "seq_length", "num_key_value_heads": "multi_query_group_num", "head_dim": "kv_channels"}},
	"gpt_neox": {plain: true, qkvBias: true, biasKey: "attention_bias"}, // fused query_key_value
}

// hfNested are the model_type values whose language model is the object
// under "text_config", with the family that object is read as. Their
// configuration classes build the text model from text_config alone, so
// nothing is inherited from the top level.
var hfNested = map[string]string{
	"gemma3": "gemma3_text",
}

func hfSupported() string {
	names := make([]string, 0, len(hfFamilies)+len(hfNested))
	for n := range hfFamilies {
		names = append(names, n)
	}
	for n := range hfNested {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// hfDoc is one object of a config.json (the top level, or a nested object
// such as text_config): each key's raw value, line in the file and offset.
type hfDoc struct {
	file   string
	data   []byte
	raw    map[string]json.RawMessage
	line   map[string]int
	off    map[string]int64 // where the value starts in data
	prefix string           // path of the object in messages: "" or "text_config."
	at     int              // line of the key holding the object (1 at the top)
}

// lineAt is the 1-based line of byte offset off.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// lineCounter finds lines of increasing offsets in one pass over the data,
// so a file with many keys costs linear time.
type lineCounter struct {
	data []byte
	off  int64
	line int
}

func (c *lineCounter) at(off int64) int {
	off = min(max(off, 0), int64(len(c.data)))
	if c.line == 0 || off < c.off {
		c.off, c.line = 0, 1
	}
	c.line += bytes.Count(c.data[c.off:off], []byte{'\n'})
	c.off = off
	return c.line
}

// scanHF reads the top-level object, remembering where each key is.
func scanHF(file string, data []byte) (*hfDoc, error) {
	d := &hfDoc{file: file, data: data, raw: map[string]json.RawMessage{}, line: map[string]int{}, off: map[string]int64{}, at: 1}
	dec := json.NewDecoder(bytes.NewReader(data))
	lines := lineCounter{data: data}
	syntax := func(err error) error {
		msg, off := spec.JSONProblem(data, err)
		if off < 0 {
			off = dec.InputOffset()
		}
		return notHF(file, lineAt(data, off), msg)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, syntax(err)
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return nil, notHF(file, lineAt(data, dec.InputOffset()), "expected a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, syntax(fmt.Errorf("expected a key"))
		}
		line := lines.at(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, syntax(err)
		}
		// A repeated key is refused by ParseHFConfig (spec.DuplicateJSONKey);
		// detection keeps the last. The value is its exact bytes, so it
		// starts its length before the decoder's offset.
		d.raw[key], d.line[key], d.off[key] = v, line, dec.InputOffset()-int64(len(v))
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, notHF(file, lineAt(data, dec.InputOffset()), "data after the JSON object")
	}
	return d, nil
}

// notHF is a config.json that is not one, at line.
func notHF(file string, line int, msg string) error {
	return &spec.Error{File: file, Line: line, Msg: "not a Hugging Face config.json: " + msg}
}

// shown renders a raw JSON value for a message: compact, one line, short.
func shown(v json.RawMessage) string {
	var b bytes.Buffer
	s := string(v)
	if json.Compact(&b, v) == nil {
		s = b.String()
	}
	s = spec.OneLine(s)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// errorf locates a message at key's line, or at the object's own line when
// the key is absent.
func (d *hfDoc) errorf(key, format string, args ...any) error {
	line, ok := d.line[key]
	if !ok {
		line = d.at
	}
	return &spec.Error{File: d.file, Line: line, Path: d.prefix + key, Msg: spec.OneLine(fmt.Sprintf(format, args...))}
}

// cite is "FILE:LINE KEY" for a key that is given, "" otherwise.
func (d *hfDoc) cite(key string) string {
	line, ok := d.line[key]
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s:%d %s%s", d.file, line, d.prefix, key)
}

// object reads the object under key as a document of its own whose keys
// keep their lines in the file and are named "KEY.INNER" in messages. what
// says what the object must hold.
func (d *hfDoc) object(key, what string) (*hfDoc, error) {
	v, given := d.raw[key]
	switch {
	case !given:
		return nil, d.errorf(key, "missing: must be an object holding %s", what)
	case !bytes.HasPrefix(v, []byte("{")):
		return nil, d.errorf(key, "%s is not allowed: must be an object holding %s", shown(v), what)
	}
	sub, err := scanHF(d.file, v)
	if err != nil { // not reached: the value was already read as JSON
		return nil, d.errorf(key, "%s", strings.TrimPrefix(err.Error(), d.file+":"))
	}
	base := d.off[key]
	shift := lineAt(d.data, base) - 1
	for k := range sub.line {
		sub.line[k] += shift
		sub.off[k] += base
	}
	sub.data = d.data
	sub.prefix, sub.at = d.prefix+key+".", d.line[key]
	return sub, nil
}

// present reports whether key is given with a non-null value.
func (d *hfDoc) present(key string) bool {
	v, ok := d.raw[key]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// integer reads an integer field. A missing or null key is 0 with ok false.
func (d *hfDoc) integer(key string) (n int, ok bool, err error) {
	if !d.present(key) {
		return 0, false, nil
	}
	v := d.raw[key]
	i, perr := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
	if perr != nil || i != int64(int(i)) {
		return 0, true, d.errorf(key, "%s is not allowed: must be a positive integer", shown(v))
	}
	return int(i), true, nil
}

// required reads an integer field that must be present and positive.
func (d *hfDoc) required(key string) (int, error) {
	n, ok, err := d.integer(key)
	switch _, given := d.raw[key]; {
	case err != nil:
	case ok && n < 1:
		err = d.errorf(key, "%d is not allowed: must be a positive integer", n)
	case ok:
	case given:
		err = d.errorf(key, "null is not allowed: must be a positive integer")
	default:
		err = d.errorf(key, "missing: must be a positive integer")
	}
	return n, err
}

func (d *hfDoc) boolean(key string, def bool) (bool, error) {
	if !d.present(key) {
		return def, nil
	}
	switch v := string(bytes.TrimSpace(d.raw[key])); v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	default:
		return false, d.errorf(key, "%s is not allowed: must be true or false", shown(d.raw[key]))
	}
}

func (d *hfDoc) str(key string) (string, bool) {
	var s string
	if !d.present(key) || json.Unmarshal(d.raw[key], &s) != nil {
		return "", false
	}
	return s, true
}

// IsHFConfig reports whether data is a Hugging Face config.json: a JSON
// object with a "model_type" key. It never fails; anything else is false.
// A file that opens as a JSON object and names "model_type" counts even
// when its JSON is broken (a BOM, a trailing comma, a NaN), so that
// ParseHFConfig reports the break rather than the model YAML schema.
func IsHFConfig(data []byte) bool {
	d, err := scanHF("", data)
	if err != nil {
		text := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
		return bytes.HasPrefix(text, []byte("{")) && bytes.Contains(text, []byte(`"model_type"`))
	}
	_, ok := d.raw["model_type"]
	return ok
}

// ParseHFConfig reads a Hugging Face config.json into a Model. filename is
// used in errors and to name the model when "_name_or_path" is absent.
//
// Supported model_type values: chatglm, exaone, gemma, gemma2, gemma3,
// gemma3_text, gpt_neox, granite, internlm2, llama, mistral, mixtral, olmo2,
// olmoe, phi, phi3, qwen2, qwen2_moe, qwen3, qwen3_moe, smollm3, stablelm,
// starcoder2 (SmolLM and SmolLM2 ship as llama). Unknown keys are ignored; head_dim is
// honoured when given (and not null); tie_word_embeddings defaults as in
// transformers (true for gemma, gemma2, gemma3_text, starcoder2, smollm3 and
// exaone, false otherwise); num_key_value_heads defaults to
// num_attention_heads, except where the configuration class says otherwise
// (stablelm 32, starcoder2 2, smollm3 4, gemma3_text 4). exaone counts its
// layers in num_layers (and needs intermediate_size, which ExaoneConfig
// would derive). chatglm (ChatGLM2 and 3) names its sizes num_layers,
// ffn_hidden_size, padded_vocab_size, seq_length, kv_channels (the head
// dimension) and multi_query_group_num (its K and V heads, when
// multi_query_attention is true; else every head has its own), with q, k, v
// biases when add_qkv_bias is. phi, starcoder2 and gpt_neox have plain FFNs
// (up, down).
// Biases on q, k and v are fixed for qwen2 and phi and follow a key
// elsewhere: attention_bias (granite, olmo2, smollm3: default false;
// gpt_neox: true), use_qkv_bias (stablelm, false), use_bias (starcoder2,
// true), bias (internlm2, true); qk_layernorm turns on q and k norms for
// phi and stablelm.
//
// A gemma3 config (Gemma 3 4B and up) nests its language model under
// "text_config", read as gemma3_text; messages and sources name the keys
// "text_config.KEY" at their own lines. As in transformers nothing comes
// from the top level, and Gemma3TextConfig's defaults fill the size keys it
// leaves out (google/gemma-3-4b-it gives only hidden_size,
// intermediate_size and num_hidden_layers); a source then says so. The
// same defaults serve a top-level gemma3_text (Gemma 3 1B). Other
// multimodal configs (llava, mllama, paligemma, qwen2_vl, ...) are not
// supported.
//
// Approximations, each a small fraction of a percent of the parameters:
// Model's norms have weights only and it has no biases on the attention
// output, the FFN or the logits, so LayerNorm biases (phi, stablelm,
// starcoder2, gpt_neox) and those biases are left out; olmo2's and olmoe's
// q and k norms span all heads but count as per-head norms; stablelm's per-head
// q/k LayerNorms count once. Parallel attention and FFN (phi, gpt_neox),
// norms after rather than before each sub-layer (olmo2), granite's
// embedding, attention, residual and logit multipliers and NoPE layers
// (smollm3) change no size; the twin times them as plain blocks. A
// sliding window (sliding_window; Gemma 2 alternates windowed and global
// layers, Gemma 3 has one global in sliding_window_pattern) bounds what a
// windowed layer attends to and keeps.
//
// MoE: mixtral's num_local_experts, the Qwen MoE models' num_experts,
// moe_intermediate_size and shared_expert_intermediate_size (one shared
// expert when non-zero), olmoe's num_experts of intermediate_size each;
// num_experts_per_tok for all. Every MoE layer is
// assumed sparse (decoder_sparse_step and mlp_only_layers are ignored), and
// Qwen2-MoE's one-output shared_expert_gate is left out (hidden parameters
// a layer).
//
// Errors are one line, "FILE:LINE: field KEY: what is wrong: what is
// allowed", with the line of the offending key; bad input never panics.
func ParseHFConfig(filename string, data []byte) (Model, error) {
	top, err := scanHF(filename, data)
	if err != nil {
		return Model{}, err
	}
	// Python's json keeps the last of a repeated key and Go's too, so a
	// config edited by hand can say two things; which one was meant is
	// not ours to guess.
	if err := spec.DuplicateJSONKey(filename, 1, data); err != nil {
		return Model{}, err
	}
	if !top.present("model_type") {
		return Model{}, top.errorf("model_type", "missing: must be one of %s", hfSupported())
	}
	mt, isString := top.str("model_type")
	d, family := top, mt
	if inner, nested := hfNested[mt]; isString && nested {
		if d, err = top.object("text_config", "the "+inner+" language model"); err != nil {
			return Model{}, err
		}
		family = inner
	}
	fam, known := hfFamilies[family]
	if !isString || !known {
		return Model{}, top.errorf("model_type", "%s is not supported: use one of %s", shown(top.raw["model_type"]), hfSupported())
	}

	r := hfReader{d: d, fam: fam, from: map[string]string{}, sources: map[string]string{}, absent: map[string]bool{}}
	m := r.model(family)
	if r.err != nil {
		return Model{}, r.err
	}
	m.Name = hfName(filename, top)
	m.Sources = r.sources
	if err := m.Validate(); err != nil {
		var fe *spec.Error
		if errors.As(err, &fe) {
			if key, ok := r.from[fe.Path]; ok {
				msg := fe.Msg
				if r.absent[key] {
					msg += fmt.Sprintf(" (the key is absent and %s's default is used)", fam.class)
				}
				return Model{}, d.errorf(key, "%s", msg)
			}
		}
		return Model{}, &spec.Error{File: filename, Line: 1, Msg: spec.OneLine(err.Error())}
	}
	return m, nil
}

// hfReader fills a Model from one object of a config.json, remembering for
// each yaml field the key it came from and a citation. The first error
// stops it.
type hfReader struct {
	d       *hfDoc
	fam     hfFamily
	from    map[string]string // yaml field -> HF key
	sources map[string]string // yaml field -> citation
	absent  map[string]bool   // HF keys that took the class default
	err     error
}

// size reads the integer key into *dst for the yaml field and reports
// whether it set *dst. An absent key takes the class default if there is
// one; otherwise it is an error when need is set, and leaves *dst alone
// when not (as does null).
func (r *hfReader) size(dst *int, field, key string, need bool) bool {
	if r.err != nil {
		return false
	}
	d := r.d
	r.from[field] = key
	if _, given := d.raw[key]; !given {
		if v, ok := r.fam.defaults[key]; ok {
			*dst, r.absent[key] = v, true
			r.sources[field] = fmt.Sprintf("%s default %s%s=%d (absent from %s)", r.fam.class, d.prefix, key, v, d.file)
			return true
		}
	}
	n, ok := 0, true
	if need {
		n, r.err = d.required(key)
	} else {
		n, ok, r.err = d.integer(key)
	}
	if r.err != nil || !ok {
		return false
	}
	*dst = n
	if c := d.cite(key); c != "" {
		r.sources[field] = c
	}
	return true
}

// flag reads the boolean key into *dst, def when absent or key is "".
func (r *hfReader) flag(dst *bool, key string, def bool) {
	*dst = def
	if r.err == nil && key != "" {
		*dst, r.err = r.d.boolean(key, def)
	}
}

// model reads the fields in a fixed order, so the first bad key is the one
// reported.
func (r *hfReader) model(family string) Model {
	fam := r.fam
	m := Model{Family: family, FFNKind: FFNGated, PostNorms: fam.postNorms}
	if fam.plain {
		m.FFNKind = FFNPlain
	}
	key := func(std string) string { return cmp.Or(fam.keys[std], std) }
	r.size(&m.Layers, "layers", key("num_hidden_layers"), true)
	r.size(&m.Hidden, "hidden", "hidden_size", true)
	r.size(&m.Heads, "heads", "num_attention_heads", true)
	r.size(&m.Vocab, "vocab", key("vocab_size"), true)
	r.size(&m.MaxContext, "max_context", key("max_position_embeddings"), true)
	r.size(&m.FFN, "ffn", cmp.Or(fam.expertFFN, key("intermediate_size")), true)
	if r.err != nil {
		return m
	}
	m.KVHeads = m.Heads
	grouped := true
	if fam.kvSwitch != "" {
		r.flag(&grouped, fam.kvSwitch, false)
	}
	if !grouped || !r.size(&m.KVHeads, "kv_heads", key("num_key_value_heads"), false) && r.err == nil {
		r.from["kv_heads"] = "num_attention_heads"
		if c, ok := r.sources["heads"]; ok {
			r.sources["kv_heads"] = c
		}
	}
	if r.size(&m.HeadDim, "head_dim", key("head_dim"), false) && m.HeadDim <= 0 {
		r.err = r.d.errorf(key("head_dim"), "%d is not allowed: must be a positive integer", m.HeadDim)
	}
	r.flag(&m.TiedEmbeddings, "tie_word_embeddings", fam.tied)
	r.flag(&m.QKVBias, fam.biasKey, fam.qkvBias)
	r.flag(&m.QKNorm, fam.qkNormKey, fam.qkNorm)
	r.window(&m, family)
	if fam.experts != "" && r.err == nil {
		m.MoE = &MoE{}
		r.size(&m.MoE.Experts, "moe.experts", fam.experts, true)
		r.size(&m.MoE.Active, "moe.active", "num_experts_per_tok", true)
		var n int
		if fam.sharedFFN != "" && r.size(&n, "moe.shared_ffn", fam.sharedFFN, false) && n != 0 {
			m.MoE.Shared, m.MoE.SharedFFN = 1, n
		}
	}
	return m
}

// window reads a sliding window: sliding_window (unless
// use_sliding_window is false, as Qwen2's configs say), every layer
// windowed but every second (Gemma 2) or every sliding_window_pattern-th
// (Gemma 3: 6 by default) attending to the whole context.
func (r *hfReader) window(m *Model, family string) {
	if r.err != nil || !r.d.present("sliding_window") {
		return
	}
	use := true
	if use, r.err = r.d.boolean("use_sliding_window", true); r.err != nil || !use {
		return
	}
	if !r.size(&m.SlidingWindow, "sliding_window", "sliding_window", false) {
		return
	}
	switch family {
	case "gemma2":
		m.GlobalEvery = 2
	case "gemma3_text":
		m.GlobalEvery = 6
		r.size(&m.GlobalEvery, "global_every", "sliding_window_pattern", false)
	}
}

// hfName names a parsed model: "_name_or_path" if set, else the folder of a
// file called config.json, else the file name without extension.
func hfName(filename string, d *hfDoc) string {
	if s, ok := d.str("_name_or_path"); ok && strings.TrimSpace(s) != "" {
		return spec.OneLine(strings.TrimSpace(s))
	}
	base := filepath.Base(filename)
	if base == "config.json" {
		if dir := filepath.Base(filepath.Dir(filename)); dir != "." && dir != string(filepath.Separator) {
			return dir
		}
	}
	if name := strings.TrimSuffix(base, filepath.Ext(base)); name != "" && name != "." && name != string(filepath.Separator) {
		return name
	}
	s, _ := d.str("model_type")
	return s
}
