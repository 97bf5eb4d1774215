package workloads

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// Model is a decoder-only transformer. The YAML field names are the yaml
// tags; a model file is exactly this struct.
type Model struct {
	Name           string `yaml:"name"`
	Family         string `yaml:"family,omitempty"`   // llama, qwen2, mixtral, gemma2, ...: informational
	Layers         int    `yaml:"layers"`             // transformer blocks
	Hidden         int    `yaml:"hidden"`             // model (residual stream) width
	Heads          int    `yaml:"heads"`              // query heads
	KVHeads        int    `yaml:"kv_heads"`           // key/value heads (GQA when fewer than heads)
	HeadDim        int    `yaml:"head_dim,omitempty"` // 0 means Hidden/Heads
	FFN            int    `yaml:"ffn"`                // dense FFN intermediate size (per expert for MoE if ExpertFFN is 0)
	FFNKind        string `yaml:"ffn_kind,omitempty"` // "gated" (gate, up, down; the default) or "plain" (up, down)
	Vocab          int    `yaml:"vocab"`              // vocabulary size
	TiedEmbeddings bool   `yaml:"tied_embeddings,omitempty"`
	MaxContext     int    `yaml:"max_context"`          // trained maximum context, tokens
	QKVBias        bool   `yaml:"qkv_bias,omitempty"`   // q, k, v projections carry biases (Qwen2)
	QKNorm         bool   `yaml:"qk_norm,omitempty"`    // RMSNorm on each query and key head (Qwen3)
	PostNorms      bool   `yaml:"post_norms,omitempty"` // extra norms after attention and after the FFN (Gemma 2)
	// SlidingWindow is the tokens a windowed layer attends to (Mistral 7B
	// v0.1, Gemma 2 and 3); 0: every layer attends to the whole context.
	// GlobalEvery makes every GlobalEvery-th layer attend to the whole
	// context all the same (Gemma 2: 2, Gemma 3: 6); 0: every layer is
	// windowed.
	SlidingWindow int               `yaml:"sliding_window,omitempty"`
	GlobalEvery   int               `yaml:"global_every,omitempty"`
	MoE           *MoE              `yaml:"moe,omitempty"`
	Sources       map[string]string `yaml:"sources,omitempty"` // citation per field path ("layers", "moe.experts")
}

// MoE describes the mixture-of-experts FFN that replaces the dense FFN in
// every block.
type MoE struct {
	Experts   int `yaml:"experts"`              // routed experts per layer
	Active    int `yaml:"active"`               // experts per token (top-k)
	Shared    int `yaml:"shared,omitempty"`     // always-on shared experts
	ExpertFFN int `yaml:"expert_ffn,omitempty"` // per-expert intermediate size; 0 = Model.FFN
	SharedFFN int `yaml:"shared_ffn,omitempty"` // per shared expert; 0 = the expert size
}

// FFN kinds.
const (
	FFNGated = "gated" // SwiGLU / GeGLU: gate, up, down
	FFNPlain = "plain" // up, activation, down
)

// Limits of what Validate accepts. They are far above any published model
// and keep every count well inside int64 and Lower's op list finite.
const (
	maxLayers  = 1024
	maxDim     = 1 << 20 // hidden, head_dim
	maxHeads   = 1 << 14
	maxFFN     = 1 << 22
	maxVocab   = 1 << 24
	maxContext = 1 << 30
	maxExperts = 4096
	maxShared  = 64
	maxParams  = 1e15
)

func fieldErr(field string, value any, allowed string) *spec.Error {
	return &spec.Error{Path: field, Msg: fmt.Sprintf("%v is not allowed: %s", value, allowed)}
}

func checkRange(field string, v, lo, hi int) *spec.Error {
	if v >= lo && v <= hi {
		return nil
	}
	switch {
	case lo == 1 && v < 1:
		return fieldErr(field, v, "must be a positive integer")
	case lo == 1:
		return fieldErr(field, v, "must be a positive integer no larger than "+strconv.Itoa(hi))
	}
	return fieldErr(field, v, fmt.Sprintf("must be an integer from %d to %d", lo, hi))
}

// Validate reports the first field that is out of range, as a *spec.Error
// naming the yaml field and what is allowed. Rules: layers, hidden, heads,
// kv_heads, ffn, vocab and max_context are positive (and below generous
// limits); kv_heads divides heads; head_dim is 0 or positive, and may be 0
// only when heads divides hidden; ffn_kind is empty, gated or plain; under
// moe, experts is positive, 1 <= active <= experts, shared, expert_ffn and
// shared_ffn are 0 or positive.
func (m Model) Validate() error {
	if m.Name == "" {
		return &spec.Error{Path: "name", Msg: "missing: must be a non-empty string"}
	}
	for _, c := range []struct {
		field string
		v, hi int
	}{
		{"layers", m.Layers, maxLayers},
		{"hidden", m.Hidden, maxDim},
		{"heads", m.Heads, maxHeads},
		{"kv_heads", m.KVHeads, maxHeads},
		{"ffn", m.FFN, maxFFN},
		{"vocab", m.Vocab, maxVocab},
		{"max_context", m.MaxContext, maxContext},
	} {
		if err := checkRange(c.field, c.v, 1, c.hi); err != nil {
			return err
		}
	}
	if err := checkRange("sliding_window", m.SlidingWindow, 0, maxContext); err != nil {
		return err
	}
	if err := checkRange("global_every", m.GlobalEvery, 0, maxLayers); err != nil {
		return err
	}
	if m.Heads%m.KVHeads != 0 {
		return fieldErr("kv_heads", m.KVHeads, fmt.Sprintf("must divide heads (%d)", m.Heads))
	}
	if err := checkRange("head_dim", m.HeadDim, 0, maxDim); err != nil {
		return err
	}
	if m.HeadDim == 0 && m.Hidden%m.Heads != 0 {
		return &spec.Error{Path: "head_dim", Msg: fmt.Sprintf("missing: must be given when heads (%d) does not divide hidden (%d)", m.Heads, m.Hidden)}
	}
	switch m.FFNKind {
	case "", FFNGated, FFNPlain:
	default:
		return fieldErr("ffn_kind", strconv.Quote(m.FFNKind), "must be gated or plain")
	}
	if e := m.MoE; e != nil {
		if err := checkRange("moe.experts", e.Experts, 1, maxExperts); err != nil {
			return err
		}
		if e.Active < 1 || e.Active > e.Experts {
			return fieldErr("moe.active", e.Active, fmt.Sprintf("must be from 1 to experts (%d)", e.Experts))
		}
		if err := checkRange("moe.shared", e.Shared, 0, maxShared); err != nil {
			return err
		}
		if err := checkRange("moe.expert_ffn", e.ExpertFFN, 0, maxFFN); err != nil {
			return err
		}
		if err := checkRange("moe.shared_ffn", e.SharedFFN, 0, maxFFN); err != nil {
			return err
		}
	}
	if p := m.paramsFloat(); p > maxParams {
		return &spec.Error{Path: "layers", Msg: fmt.Sprintf("the model has %.3g parameters: at most %.0e are supported", p, float64(maxParams))}
	}
	return nil
}

// HeadDimension is the width of one attention head: HeadDim, or Hidden/Heads
// when HeadDim is 0.
func (m Model) HeadDimension() int {
	if m.HeadDim > 0 {
		return m.HeadDim
	}
	if m.Heads == 0 {
		return 0
	}
	return m.Hidden / m.Heads
}

func (m Model) gated() bool { return m.FFNKind != FFNPlain }

// ffnMatrices is the number of weight matrices of one FFN (or expert).
func (m Model) ffnMatrices() int {
	if m.gated() {
		return 3
	}
	return 2
}

func (m Model) expertFFN() int {
	if m.MoE != nil && m.MoE.ExpertFFN > 0 {
		return m.MoE.ExpertFFN
	}
	return m.FFN
}

func (m Model) sharedFFN() int {
	if m.MoE != nil && m.MoE.SharedFFN > 0 {
		return m.MoE.SharedFFN
	}
	return m.expertFFN()
}

// paramsFloat counts parameters in closed form and in float64, so Validate
// can bound the size without listing (or overflowing) anything. A test
// checks it against Params.
func (m Model) paramsFloat() float64 {
	h, hd := float64(m.Hidden), float64(m.HeadDimension())
	qd, kvd := float64(m.Heads)*hd, float64(m.KVHeads)*hd
	layer := 2*h*qd + 2*h*kvd + 2*h // q, o, k, v, attn_norm, ffn_norm
	if m.QKVBias {
		layer += qd + 2*kvd
	}
	if m.QKNorm {
		layer += 2 * hd
	}
	if m.PostNorms {
		layer += 2 * h
	}
	mats := float64(m.ffnMatrices())
	if m.MoE == nil {
		layer += mats * h * float64(m.FFN)
	} else {
		layer += h * float64(m.MoE.Experts)
		layer += float64(m.MoE.Experts) * mats * h * float64(m.expertFFN())
		layer += float64(m.MoE.Shared) * mats * h * float64(m.sharedFFN())
	}
	embed := float64(m.Vocab) * h
	if !m.TiedEmbeddings {
		embed *= 2
	}
	return float64(m.Layers)*layer + embed + h
}

// Tensor is one stored weight tensor. A matmul weight maps K input features
// to N output features; a norm weight has N = 1 and K = its length. Bias is
// the length of an F32 bias vector stored with the tensor (0 if none).
type Tensor struct {
	Name   string // llama.cpp-style: "token_embd", "blk.3.attn_q", "blk.3.ffn_up.e5", "output"
	Layer  int    // -1 outside the blocks
	Role   Role
	Expert int // routed expert index, -1 otherwise
	N, K   int
	Bias   int
	Format Format  // storage actually used (after the tied-embedding and row-fit rules)
	Bytes  float64 // stored size
}

// Elements is the number of parameters in the tensor.
func (t Tensor) Elements() int64 { return int64(t.N)*int64(t.K) + int64(t.Bias) }

// tensors builds Tensor values for one model and quantisation.
type tensors struct {
	m  Model
	q  Quant
	at tensorAt // the model's part; make sets the layer
}

func newTensors(m Model, q Quant) tensors {
	at := tensorAt{layers: m.Layers, gqa: 1}
	if m.KVHeads > 0 {
		at.gqa = m.Heads / m.KVHeads
	}
	if m.MoE != nil {
		at.experts = m.MoE.Experts
	}
	return tensors{m, q, at}
}

func (ts tensors) make(name string, layer int, role Role, expert, n, k, bias int) Tensor {
	var f Format
	if role == RoleEmbed && ts.m.TiedEmbeddings {
		// One matrix serves both ends; llama-quantize treats token_embd as
		// the output tensor when there is no separate output.weight.
		f = ts.q.Format(RoleOutput)
	} else {
		at := ts.at
		at.layer = layer
		f = ts.q.tensorFormat(name, role, at)
	}
	f = fitRow(f, k)
	return Tensor{
		Name: name, Layer: layer, Role: role, Expert: expert, N: n, K: k, Bias: bias,
		Format: f, Bytes: float64(n)*f.rowBytes(k) + 4*float64(bias),
	}
}

func blk(il int, name string) string { return "blk." + strconv.Itoa(il) + "." + name }

func (ts tensors) embed() Tensor {
	return ts.make("token_embd", -1, RoleEmbed, -1, ts.m.Vocab, ts.m.Hidden, 0)
}

// output is the logits matrix: the embedding table itself when tied.
func (ts tensors) output() Tensor {
	if ts.m.TiedEmbeddings {
		return ts.embed()
	}
	return ts.make("output", -1, RoleOutput, -1, ts.m.Vocab, ts.m.Hidden, 0)
}

func (ts tensors) norm(name string, layer, k int) Tensor {
	return ts.make(name, layer, RoleNorm, -1, 1, k, 0)
}

// attn lists the attention tensors of block il in execution order:
// attn_norm, q, k, v, [q_norm, k_norm], output, [post_norm].
func (ts tensors) attn(il int) []Tensor {
	m := ts.m
	hd := m.HeadDimension()
	qd, kvd := m.Heads*hd, m.KVHeads*hd
	var qb, kvb int
	if m.QKVBias {
		qb, kvb = qd, kvd
	}
	out := []Tensor{
		ts.norm(blk(il, "attn_norm"), il, m.Hidden),
		ts.make(blk(il, "attn_q"), il, RoleAttn, -1, qd, m.Hidden, qb),
		ts.make(blk(il, "attn_k"), il, RoleAttn, -1, kvd, m.Hidden, kvb),
		ts.make(blk(il, "attn_v"), il, RoleAttn, -1, kvd, m.Hidden, kvb),
	}
	if m.QKNorm {
		out = append(out, ts.norm(blk(il, "attn_q_norm"), il, hd), ts.norm(blk(il, "attn_k_norm"), il, hd))
	}
	out = append(out, ts.make(blk(il, "attn_output"), il, RoleAttn, -1, m.Hidden, qd, 0))
	if m.PostNorms {
		out = append(out, ts.norm(blk(il, "attn_post_norm"), il, m.Hidden))
	}
	return out
}

// ffn lists one FFN's matrices (gate, up, down or up, down) of width f;
// suffix distinguishes experts (".e5") and shared experts (".s0").
func (ts tensors) ffn(il, expert int, suffix string, f int) []Tensor {
	m := ts.m
	var out []Tensor
	if m.gated() {
		out = append(out, ts.make(blk(il, "ffn_gate"+suffix), il, RoleFFN, expert, f, m.Hidden, 0))
	}
	return append(out,
		ts.make(blk(il, "ffn_up"+suffix), il, RoleFFN, expert, f, m.Hidden, 0),
		ts.make(blk(il, "ffn_down"+suffix), il, RoleFFN, expert, m.Hidden, f, 0))
}

func (ts tensors) router(il int) Tensor {
	return ts.make(blk(il, "ffn_gate_inp"), il, RoleRouter, -1, ts.m.MoE.Experts, ts.m.Hidden, 0)
}

func expertSuffix(e int) string { return ".e" + strconv.Itoa(e) }
func sharedSuffix(s int) string { return ".s" + strconv.Itoa(s) }

// Tensors lists every stored weight tensor of the model under quantisation
// q, in the order Lower reads them: token_embd; per block the attention
// tensors, ffn_norm, the FFN (or router, experts e0.. and shared experts
// s0..) and post-norms; output_norm; output (absent when tied: the output
// matmul reads token_embd). Storage rules beyond Quant.Format: a llama.cpp
// file type picks formats by tensor name and layer as llama-quantize does
// (Q4_K_M stores attn_v and ffn_down at Q6_K in the layers use_more_bits
// picks; the layer of an expert's ffn_down.eN or a shared ffn_down.sN is
// its block), and an 8-expert model keeps attn_v and attn_k at Q8_0 under
// every GGUF block format; a role the spec names takes its format in every
// tensor; a tied embedding is stored as the output role says; a GGUF block
// format whose block does not divide a row falls back as llama-quantize
// does (Q4_K to Q5_0, Q5_K to Q5_1, Q6_K to Q8_0, Q2_K, Q3_K and IQ4_XS to
// IQ4_NL, and to F16 when that does not divide it either); norm weights and
// biases are F32.
func (m Model) Tensors(q Quant) []Tensor {
	var out []Tensor
	m.eachTensor(q, func(t Tensor) { out = append(out, t) })
	return out
}

// eachTensor visits the tensors of Tensors without collecting them.
func (m Model) eachTensor(q Quant, visit func(Tensor)) {
	m.weights(q).each(m, visit)
}

// weightTable is every stored tensor of a model under one quantisation,
// built once in the order Lower reads them, with the names of the pass's
// weightless operators: lowering a pass from it builds no name.
type weightTable struct {
	embed, output, outputNorm Tensor
	layers                    []layerWeights
}

// layerWeights is one block's tensors and operator names.
type layerWeights struct {
	attn              []Tensor // attn_norm, q, k, v, [q_norm, k_norm], output, [post_norm]
	ffnNorm, postNorm Tensor   // postNorm when the model has post-norms
	router            Tensor   // MoE
	dense             []Tensor // a dense model's FFN
	experts, shared   [][]Tensor
	// The weightless operators' names.
	rope, attention, attnResidual, act, moeSum, ffnResidual string
	expertAct, sharedAct                                    []string
}

// weights builds the model's weight table under q.
func (m Model) weights(q Quant) *weightTable {
	ts := newTensors(m, q)
	w := &weightTable{
		embed:      ts.embed(),
		output:     ts.output(),
		outputNorm: ts.norm("output_norm", -1, m.Hidden),
		layers:     make([]layerWeights, m.Layers),
	}
	for il := range w.layers {
		l := &w.layers[il]
		l.attn = ts.attn(il)
		l.ffnNorm = ts.norm(blk(il, "ffn_norm"), il, m.Hidden)
		l.rope, l.attention, l.attnResidual = blk(il, "attn_rope"), blk(il, "attn"), blk(il, "attn_residual")
		l.act, l.moeSum, l.ffnResidual = blk(il, "ffn_act"), blk(il, "ffn_moe_sum"), blk(il, "ffn_residual")
		if m.MoE == nil {
			l.dense = ts.ffn(il, -1, "", m.FFN)
		} else {
			l.router = ts.router(il)
			for e := 0; e < m.MoE.Experts; e++ {
				sfx := expertSuffix(e)
				l.experts = append(l.experts, ts.ffn(il, e, sfx, m.expertFFN()))
				l.expertAct = append(l.expertAct, l.act+sfx)
			}
			for s := 0; s < m.MoE.Shared; s++ {
				sfx := sharedSuffix(s)
				l.shared = append(l.shared, ts.ffn(il, -1, sfx, m.sharedFFN()))
				l.sharedAct = append(l.sharedAct, l.act+sfx)
			}
		}
		if m.PostNorms {
			l.postNorm = ts.norm(blk(il, "ffn_post_norm"), il, m.Hidden)
		}
	}
	return w
}

// each visits the table's tensors in the order of Tensors.
func (w *weightTable) each(m Model, visit func(Tensor)) {
	visit(w.embed)
	for il := range w.layers {
		l := &w.layers[il]
		for _, t := range l.attn {
			visit(t)
		}
		visit(l.ffnNorm)
		if m.MoE != nil {
			visit(l.router)
		}
		for _, e := range l.experts {
			for _, t := range e {
				visit(t)
			}
		}
		for _, t := range l.dense {
			visit(t)
		}
		for _, sh := range l.shared {
			for _, t := range sh {
				visit(t)
			}
		}
		if m.PostNorms {
			visit(l.postNorm)
		}
	}
	visit(w.outputNorm)
	if !m.TiedEmbeddings {
		visit(w.output)
	}
}

// Params is the total parameter count: embeddings, every block (all
// experts), norms, biases and the output matrix (once if tied).
func (m Model) Params() int64 {
	var n int64
	m.eachTensor(Quant{}, func(t Tensor) { n += t.Elements() })
	return n
}

// ActiveParams is the parameters one token's forward pass multiplies by:
// all of them except the routed experts it does not pick and the input
// embedding table (a row lookup). The output matrix counts even when tied.
func (m Model) ActiveParams() int64 {
	var n int64
	m.eachTensor(Quant{}, func(t Tensor) {
		if (t.Name == "token_embd" && !m.TiedEmbeddings) || t.Expert >= m.activeExperts() {
			return
		}
		n += t.Elements()
	})
	return n
}

func (m Model) activeExperts() int {
	if m.MoE == nil {
		return 0
	}
	return m.MoE.Active
}

// WeightBytes is the stored model size under q — embeddings, output matrix,
// norms (F32) and biases included; what llama-bench reports as model_size.
func (m Model) WeightBytes(q Quant) float64 {
	return m.weights(q).bytes(m)
}

func (w *weightTable) bytes(m Model) float64 {
	var b float64
	w.each(m, func(t Tensor) { b += t.Bytes })
	return b
}

// MatrixFormats lists the formats the model's matrices are stored in under
// q, without repeats, in the order a forward pass's matmuls first read
// them: the formats a unit's matrix kernels must read to run the model.
// Every storage rule of Tensors counts, so Llama 2 7B under Q4_K_M is Q4_K
// and Q6_K, under Q4_0 Q4_0 and Q6_K (the output matrix), and a row the
// block does not divide adds its fallback. A tied embedding table counts as
// the output matrix, which it is; an untied one is a row lookup, and router
// and norm weights are not read by a unit's matrix kernels either.
func (m Model) MatrixFormats(q Quant) []Format {
	return m.weights(q).matrixFormats(m)
}

func (w *weightTable) matrixFormats(m Model) []Format {
	var out []Format
	add := func(f Format) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	var tied []Format // token_embd, when tied
	w.each(m, func(t Tensor) {
		switch {
		case t.Role == RoleAttn || t.Role == RoleFFN || t.Role == RoleOutput:
			add(t.Format)
		case t.Role == RoleEmbed && m.TiedEmbeddings:
			tied = append(tied, t.Format) // read last, by the output matmul
		}
	})
	for _, f := range tied {
		add(f)
	}
	return out
}

// Window is the tokens layer il attends to: the sliding window for a
// windowed layer, 0 (the whole context) for the others.
func (m Model) Window(il int) int {
	if m.SlidingWindow == 0 || (m.GlobalEvery > 0 && (il+1)%m.GlobalEvery == 0) {
		return 0
	}
	return m.SlidingWindow
}

// KVBytes is the KV cache of one sequence at a context of ctx tokens: a
// windowed layer keeps only its window (llama.cpp's sliding-window cache).
func (m Model) KVBytes(kv KVFormat, ctx int) float64 {
	if m.SlidingWindow == 0 {
		return m.KVBytesPerToken(kv) * float64(ctx)
	}
	perLayer := m.KVBytesPerToken(kv) / float64(m.Layers)
	var tokens float64
	for il := range m.Layers {
		if w := m.Window(il); w > 0 && w < ctx {
			tokens += float64(w)
		} else {
			tokens += float64(ctx)
		}
	}
	return perLayer * tokens
}

// KVBytesPerToken is the KV-cache size of one token:
// 2 (K and V) * layers * kv_heads * head_dim * bytes per element.
func (m Model) KVBytesPerToken(kv KVFormat) float64 {
	return 2 * float64(m.Layers) * float64(m.KVHeads) * float64(m.HeadDimension()) * kv.BytesPerElement()
}

// ContextForKV is the context, in tokens per sequence, whose KV cache over
// batch sequences comes closest to bytes: at least 1 token.
func (m Model) ContextForKV(kv KVFormat, batch int, bytes float64) int {
	perToken := m.KVBytesPerToken(kv) * float64(max(1, batch))
	return max(1, int(math.Round(bytes/perToken)))
}
