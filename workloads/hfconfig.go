package workloads

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// hfFamily says how one Hugging Face model_type maps onto Model.
type hfFamily struct {
	tied      bool   // default of tie_word_embeddings
	qkvBias   bool   // q, k, v projections carry biases
	qkNorm    bool   // per-head q and k norms
	postNorms bool   // norms after attention and after the FFN
	experts   string // key of the routed-expert count ("" for dense)
	expertFFN string // key of the per-expert size ("" = intermediate_size)
	sharedFFN string // key of the shared expert size ("" = no shared expert)
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
}

func hfSupported() string {
	names := make([]string, 0, len(hfFamilies))
	for n := range hfFamilies {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// hfDoc is the top level of a config.json: each key's raw value and line.
type hfDoc struct {
	file string
	data []byte
	raw  map[string]json.RawMessage
	line map[string]int
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
	d := &hfDoc{file: file, data: data, raw: map[string]json.RawMessage{}, line: map[string]int{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	lines := lineCounter{data: data}
	syntax := func(err error) error {
		off := dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s:%d: not a Hugging Face config.json: the JSON ends early", file, lineAt(data, int64(len(data))))
		}
		return fmt.Errorf("%s:%d: not a Hugging Face config.json: %s", file, lineAt(data, off), oneLine(err.Error()))
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, syntax(err)
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return nil, fmt.Errorf("%s:%d: not a Hugging Face config.json: expected a JSON object", file, lineAt(data, dec.InputOffset()))
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
		d.raw[key], d.line[key] = v, line // a repeated key: the last wins, as in Python
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s:%d: not a Hugging Face config.json: data after the JSON object", file, lineAt(data, dec.InputOffset()))
	}
	return d, nil
}

// oneLine flattens a message so every error stays on one line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// shown renders a raw JSON value for a message: compact, one line, short.
func shown(v json.RawMessage) string {
	var b bytes.Buffer
	s := string(v)
	if json.Compact(&b, v) == nil {
		s = b.String()
	}
	s = oneLine(s)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

func (d *hfDoc) errorf(key, format string, args ...any) error {
	line, ok := d.line[key]
	if !ok {
		line = 1
	}
	return fmt.Errorf("%s:%d: field %s: %s", d.file, line, key, fmt.Sprintf(format, args...))
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
func IsHFConfig(data []byte) bool {
	d, err := scanHF("", data)
	if err != nil {
		return false
	}
	_, ok := d.raw["model_type"]
	return ok
}

// ParseHFConfig reads a Hugging Face config.json into a Model. filename is
// used in errors and to name the model when "_name_or_path" is absent.
//
// Supported model_type values: gemma, gemma2, llama, mistral, mixtral, phi3,
// qwen2, qwen2_moe, qwen3, qwen3_moe. Unknown keys are ignored; head_dim is
// honoured when given (and not null); num_key_value_heads defaults to
// num_attention_heads; tie_word_embeddings defaults as in transformers
// (true for gemma and gemma2, false otherwise). MoE: mixtral's
// num_local_experts, the Qwen MoE models' num_experts, moe_intermediate_size
// and shared_expert_intermediate_size (one shared expert when non-zero);
// num_experts_per_tok for all. Every MoE layer is assumed sparse
// (decoder_sparse_step and mlp_only_layers are ignored), and Qwen2-MoE's
// one-output shared_expert_gate is left out (hidden parameters a layer).
//
// Errors are one line, "FILE:LINE: field KEY: what is wrong: what is
// allowed", with the line of the offending key; bad input never panics.
func ParseHFConfig(filename string, data []byte) (Model, error) {
	d, err := scanHF(filename, data)
	if err != nil {
		return Model{}, err
	}
	if !d.present("model_type") {
		return Model{}, d.errorf("model_type", "missing: must be one of %s", hfSupported())
	}
	mt, ok := d.str("model_type")
	fam, known := hfFamilies[mt]
	if !ok || !known {
		return Model{}, d.errorf("model_type", "%s is not supported: use one of %s", shown(d.raw["model_type"]), hfSupported())
	}

	m := Model{Family: mt, FFNKind: FFNGated, QKVBias: fam.qkvBias, QKNorm: fam.qkNorm, PostNorms: fam.postNorms}
	from := map[string]string{} // yaml field -> HF key
	need := func(dst *int, field, key string) {
		if err != nil {
			return
		}
		*dst, err = d.required(key)
		from[field] = key
	}
	need(&m.Layers, "layers", "num_hidden_layers")
	need(&m.Hidden, "hidden", "hidden_size")
	need(&m.Heads, "heads", "num_attention_heads")
	need(&m.Vocab, "vocab", "vocab_size")
	need(&m.MaxContext, "max_context", "max_position_embeddings")
	if fam.expertFFN == "" {
		need(&m.FFN, "ffn", "intermediate_size")
	} else {
		need(&m.FFN, "ffn", fam.expertFFN)
	}
	if err != nil {
		return Model{}, err
	}
	m.KVHeads = m.Heads
	if n, ok, err := d.integer("num_key_value_heads"); err != nil {
		return Model{}, err
	} else if ok {
		m.KVHeads = n
		from["kv_heads"] = "num_key_value_heads"
	} else {
		from["kv_heads"] = "num_attention_heads"
	}
	if n, ok, err := d.integer("head_dim"); err != nil {
		return Model{}, err
	} else if ok {
		m.HeadDim = n
		if n <= 0 {
			return Model{}, d.errorf("head_dim", "%d is not allowed: must be a positive integer", n)
		}
	}
	from["head_dim"] = "head_dim"
	if m.TiedEmbeddings, err = d.boolean("tie_word_embeddings", fam.tied); err != nil {
		return Model{}, err
	}

	if fam.experts != "" {
		m.MoE = &MoE{}
		need(&m.MoE.Experts, "moe.experts", fam.experts)
		need(&m.MoE.Active, "moe.active", "num_experts_per_tok")
		if err != nil {
			return Model{}, err
		}
		if fam.sharedFFN != "" {
			n, ok, err := d.integer(fam.sharedFFN)
			if err != nil {
				return Model{}, err
			}
			if ok && n != 0 {
				m.MoE.Shared, m.MoE.SharedFFN = 1, n
			}
			from["moe.shared_ffn"] = fam.sharedFFN
		}
	}

	m.Name = hfName(filename, d)
	m.Sources = map[string]string{}
	for field, key := range from {
		if line, ok := d.line[key]; ok {
			m.Sources[field] = fmt.Sprintf("%s:%d %s", filename, line, key)
		}
	}
	if err := m.Validate(); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			if key, ok := from[fe.Field]; ok {
				return Model{}, d.errorf(key, "%s", fe.Msg)
			}
		}
		return Model{}, fmt.Errorf("%s:1: %s", filename, oneLine(err.Error()))
	}
	return m, nil
}

// hfName names a parsed model: "_name_or_path" if set, else the folder of a
// file called config.json, else the file name without extension.
func hfName(filename string, d *hfDoc) string {
	if s, ok := d.str("_name_or_path"); ok && strings.TrimSpace(s) != "" {
		return oneLine(strings.TrimSpace(s))
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
