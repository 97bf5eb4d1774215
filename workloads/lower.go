package workloads

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/edgetwin/edgetwin/hw/dtype"
)

// Phase is the part of inference a pass belongs to.
type Phase int

// The phases.
const (
	Prefill Phase = iota // the prompt, all tokens at once; logits for the last token only
	Decode               // generation; logits for every new token
)

func (p Phase) String() string {
	switch p {
	case Prefill:
		return "prefill"
	case Decode:
		return "decode"
	}
	return fmt.Sprintf("Phase(%d)", int(p))
}

// TensorClass is a class of bytes an operator touches.
type TensorClass int

// The tensor classes.
const (
	Weights     TensorClass = iota // stored weights (quantised size)
	KVRead                         // KV cache read by attention
	KVWrite                        // KV cache written by attention (the new tokens' K and V)
	Activations                    // activations read and written, 2 bytes (fp16) an element
	NumTensorClasses
)

// TensorClasses lists the classes in order, for iteration.
var TensorClasses = [NumTensorClasses]TensorClass{Weights, KVRead, KVWrite, Activations}

func (c TensorClass) String() string {
	switch c {
	case Weights:
		return "weights"
	case KVRead:
		return "kv_read"
	case KVWrite:
		return "kv_write"
	case Activations:
		return "activations"
	}
	return fmt.Sprintf("TensorClass(%d)", int(c))
}

// Traffic is the bytes an operator touches, by tensor class.
type Traffic struct {
	Weights, KVRead, KVWrite, Activations float64
}

// Of returns the bytes of class c.
func (t Traffic) Of(c TensorClass) float64 {
	switch c {
	case Weights:
		return t.Weights
	case KVRead:
		return t.KVRead
	case KVWrite:
		return t.KVWrite
	case Activations:
		return t.Activations
	}
	panic(fmt.Sprintf("workloads: unknown tensor class %d", int(c)))
}

// Total is the sum over all classes.
func (t Traffic) Total() float64 { return t.Weights + t.KVRead + t.KVWrite + t.Activations }

// Work says what one pass computes.
type Work struct {
	Phase   Phase
	Tokens  int    // new tokens per sequence in this pass: the prompt length for prefill, 1 for a decode step
	Context int    // tokens already in the KV cache before this pass
	Batch   int    // concurrent sequences (>= 1), all at the same context
	Seed    uint64 // MoE routing: experts are drawn from a PRNG seeded by (Seed, layer, Context)
}

// Validate reports a pass that cannot be lowered.
func (w Work) Validate() error {
	switch {
	case w.Phase != Prefill && w.Phase != Decode:
		return fmt.Errorf("work: phase %d is not prefill or decode", int(w.Phase))
	case w.Tokens < 0:
		return fmt.Errorf("work: tokens %d is negative", w.Tokens)
	case w.Context < 0:
		return fmt.Errorf("work: context %d is negative", w.Context)
	case w.Batch < 1:
		return fmt.Errorf("work: batch %d is not allowed: must be at least 1", w.Batch)
	}
	return nil
}

// rows is the number of token rows every block processes (M of its matmuls).
func (w Work) rows() int { return w.Tokens * w.Batch }

// logitRows is how many rows reach the output matmul: the last token of each
// sequence in prefill (llama.cpp computes no other logits there), every new
// token in decode.
func (w Work) logitRows() int {
	if w.Phase == Prefill {
		return w.Batch
	}
	return w.rows()
}

// OpKind is what an operator does.
type OpKind string

// The operator kinds Lower emits.
const (
	KindEmbed      OpKind = "embed"      // token embedding row lookup
	KindNorm       OpKind = "norm"       // RMSNorm
	KindMatMul     OpKind = "matmul"     // activations [M x K] times weights [K x N]
	KindRoPE       OpKind = "rope"       // rotary position embedding of q and k
	KindAttention  OpKind = "attention"  // softmax(Q K^T) V over the cache, KV append included
	KindActivation OpKind = "activation" // SiLU/GELU (times the gate when gated)
	KindResidual   OpKind = "residual"   // elementwise sums: residual adds, MoE expert combine
	KindRouter     OpKind = "router"     // MoE router matmul [M x hidden] x [hidden x experts] and top-k
)

// Op is one operator: enough for a simulator to time it on any unit.
type Op struct {
	Name    string  // e.g. "blk.3.attn_q", "blk.3.ffn_up.e5", "output"
	Layer   int     // block index, -1 outside the blocks
	Kind    OpKind  // what the op does
	Role    Role    // the role of the weights read, or of the block part for weightless ops
	M, N, K int     // matmul shape: [M x K] activations times [K x N] weights; 0 for other ops
	FLOPs   float64 // useful operations, 2 per multiply-accumulate
	Bytes   Traffic // bytes touched by class
	// Out is, of Bytes.Activations, the bytes the op writes (its output);
	// the rest are the activations it reads. A hand-off between units
	// copies a segment's first input and its last output (sim).
	Out         float64
	WeightQuant string // storage format of the weights read ("Q4_0", "Q6_K", "F32"), "" if none
	ActDtype    dtype.Dtype
	Matrix      bool   // work for the matrix unit (matmul, router, attention); false for vector work
	Tensor      string // name of the weight tensor read (see Model.Tensors), "" if none
	Expert      int    // routed expert of an expert matmul, -1 otherwise
}

// Touch is the bytes of class c the op touches.
func (o Op) Touch(c TensorClass) float64 { return o.Bytes.Of(c) }

// actBytes is the size of one activation element in memory: fp16.
const actBytes = 2

// Per-element FLOP costs of the vector operators. They are conventions (the
// ops are memory-bound); see the package documentation.
const (
	normFLOPs     = 4 // square, accumulate, scale by 1/rms, multiply by weight
	ropeFLOPs     = 3 // a 2x2 rotation per pair: 4 mul + 2 add over 2 elements
	actFLOPs      = 4 // the non-linearity
	gateFLOPs     = 1 // times the gate
	residualFLOPs = 1 // one add per element
)

type lowering struct {
	m   Model
	kv  KVFormat
	w   Work
	wt  *weightTable
	ops []Op
	// counts and perm are route's, kept from layer to layer of a pass.
	counts, perm []int
}

// route is Route of the pass's layer il, in the lowering's buffers (the
// counts are used before the next layer routes).
func (l *lowering) route(il int) []int {
	if n := l.m.MoE.Experts; len(l.counts) != n {
		l.counts, l.perm = make([]int, n), make([]int, n)
	}
	return route(l.m, l.w, il, l.counts, l.perm)
}

// Graph is a model ready to lower under one quantisation and KV format:
// its weight table (every tensor, its format and size, every operator's
// name) is built once, so lowering a pass is arithmetic over its shapes.
// A simulation compiles its model once and lowers every pass from it.
type Graph struct {
	m  Model
	kv KVFormat
	wt *weightTable
	// What a run asks of the graph more than once, worked out at Compile.
	formats []Format
	bytes   float64
	tensors int
}

// MatrixFormats is Model.MatrixFormats of the graph's model and quantisation.
func (g *Graph) MatrixFormats() []Format { return slices.Clone(g.formats) }

// WeightBytes is Model.WeightBytes of the graph's model and quantisation.
func (g *Graph) WeightBytes() float64 { return g.bytes }

// Tensors is the number of weight tensors of the graph: the most distinct
// Op.Tensor names its passes name.
func (g *Graph) Tensors() int { return g.tensors }

// Compile builds the graph of m under q and kv. It panics if m does not
// validate (check it first: Model.Validate). A graph is never changed
// once built, so graphs are remembered by what decides them (the model's
// figures, q and kv; not its sources): the runs of one model, a sweep's
// thousands of points among them, compile it once.
func Compile(m Model, q Quant, kv KVFormat) *Graph {
	k := graphKey{shape: m.shape(), q: q, kv: kv}
	graphs.Lock()
	g := graphs.m[k]
	graphs.Unlock()
	if g != nil {
		return g
	}
	if err := m.Validate(); err != nil {
		panic("workloads.Compile: model " + m.Name + ": " + err.Error())
	}
	m.Sources = nil
	if m.MoE != nil {
		moe := *m.MoE // the graph's own: the caller's model may change
		m.MoE = &moe
	}
	g = &Graph{m: m, kv: kv, wt: m.weights(q)}
	g.formats, g.bytes = g.wt.matrixFormats(m), g.wt.bytes(m)
	g.wt.each(m, func(Tensor) { g.tensors++ })
	graphs.Lock()
	if len(graphs.m) >= maxGraphs {
		clear(graphs.m)
	}
	graphs.m[k] = g
	graphs.Unlock()
	return g
}

// graphs are the graphs Compile built, up to maxGraphs (then it starts
// afresh): compiling Llama 2 7B allocates about 83 kB (runtime.MemStats),
// so the graphs kept are a few megabytes at most.
var graphs = struct {
	sync.Mutex
	m map[graphKey]*Graph
}{m: map[graphKey]*Graph{}}

const maxGraphs = 64

// graphKey is what decides a graph.
type graphKey struct {
	shape string
	q     Quant
	kv    KVFormat
}

// shape is every figure of m that its graph depends on, as text: all but
// its sources.
func (m Model) shape() string {
	var moe MoE
	if m.MoE != nil {
		moe = *m.MoE
	}
	m.MoE, m.Sources = nil, nil
	return fmt.Sprintf("%+v|%+v", m, moe)
}

// Lower turns one pass of the model into operators, in execution order. It
// panics if m or w does not validate (check them first: Model.Validate,
// Work.Validate). A pass of 0 tokens has no operators. It is
// Compile(m, q, kv).Lower(w).
func Lower(m Model, q Quant, kv KVFormat, w Work) []Op {
	return Compile(m, q, kv).Lower(w)
}

// Lower turns one pass w of the graph's model into operators, in
// execution order. It panics if w does not validate (Work.Validate).
func (g *Graph) Lower(w Work) []Op {
	var ops []Op // a pass of 0 tokens has none
	if w.Tokens > 0 {
		ops = make([]Op, 0, 2+g.m.Layers*16+2)
	}
	return g.LowerTo(ops, w)
}

// LowerKept is LowerTo for a simulation that runs the same passes again:
// the graph keeps the passes it lowered (up to a bound over all graphs)
// and returns a kept pass as its own slice, kept true, which the caller
// must not change; a pass it does not keep is lowered into buf (kept
// false). A sweep's points run the same prefill and mostly the same decode
// steps, each lowered once. It panics if w does not validate.
func (g *Graph) LowerKept(buf []Op, w Work) (ops []Op, kept bool) {
	if err := w.Validate(); err != nil {
		panic("workloads.Lower: " + err.Error())
	}
	k := passKey{g, w}
	passes.Lock()
	ops, kept = passes.m[k]
	passes.Unlock()
	if kept {
		return ops, true
	}
	ops = g.LowerTo(buf, w)
	if len(ops) > maxKeptOps/8 {
		return ops, false // a pass this large would crowd out the rest
	}
	own := slices.Clone(ops)
	passes.Lock()
	if passes.ops+len(own) > maxKeptOps {
		clear(passes.m)
		passes.ops = 0
	}
	passes.m[k] = own
	passes.ops += len(own)
	passes.Unlock()
	return own, true
}

// passes are the passes LowerKept keeps, by graph and work, up to
// maxKeptOps operators in all (then it starts afresh): about 11 MB.
var passes = struct {
	sync.Mutex
	m   map[passKey][]Op
	ops int
}{m: map[passKey][]Op{}}

const maxKeptOps = 1 << 16

type passKey struct {
	g *Graph
	w Work
}

// LowerTo is Lower appending to ops, whose room it reuses: a simulation
// lowers pass after pass into one buffer.
func (g *Graph) LowerTo(ops []Op, w Work) []Op {
	if err := w.Validate(); err != nil {
		panic("workloads.Lower: " + err.Error())
	}
	if w.Tokens == 0 {
		return ops
	}
	m := g.m
	l := &lowering{m: m, kv: g.kv, w: w, wt: g.wt, ops: ops}

	emb := g.wt.embed
	rows := w.rows()
	l.ops = append(l.ops, Op{
		Name: "token_embd", Layer: -1, Kind: KindEmbed, Role: RoleEmbed,
		Bytes: Traffic{
			Weights:     float64(rows) * emb.Format.rowBytes(m.Hidden),
			Activations: float64(rows*m.Hidden) * actBytes,
		},
		Out:         float64(rows*m.Hidden) * actBytes, // from token ids
		WeightQuant: emb.Format.String(), ActDtype: dtype.FP16,
		Tensor: emb.Name, Expert: -1,
	})
	for il := 0; il < m.Layers; il++ {
		l.attention(il)
		l.ffn(il)
	}
	out := l.w.logitRows()
	l.norm(g.wt.outputNorm, out, 1)
	l.matmul("output", -1, RoleOutput, out, g.wt.output)
	return l.ops
}

func (l *lowering) matmul(name string, layer int, role Role, m int, t Tensor) {
	flops := 2 * float64(m) * float64(t.N) * float64(t.K)
	if t.Bias > 0 {
		flops += float64(m) * float64(t.Bias)
	}
	kind := KindMatMul
	if role == RoleRouter {
		kind = KindRouter
	}
	l.ops = append(l.ops, Op{
		Name: name, Layer: layer, Kind: kind, Role: role,
		M: m, N: t.N, K: t.K, FLOPs: flops,
		Bytes: Traffic{
			Weights:     t.Bytes,
			Activations: (float64(m)*float64(t.K) + float64(m)*float64(t.N)) * actBytes,
		},
		Out:         float64(m) * float64(t.N) * actBytes,
		WeightQuant: t.Format.String(), ActDtype: t.Format.ActDtype(),
		Matrix: true, Tensor: t.Name, Expert: t.Expert,
	})
}

// norm normalises rows*vectors vectors of t.K elements with weight t.
func (l *lowering) norm(t Tensor, rows, vectors int) {
	n := float64(rows) * float64(vectors) * float64(t.K)
	l.ops = append(l.ops, Op{
		Name: t.Name, Layer: t.Layer, Kind: KindNorm, Role: RoleNorm,
		FLOPs:       normFLOPs * n,
		Bytes:       Traffic{Weights: t.Bytes, Activations: 2 * n * actBytes},
		Out:         n * actBytes,
		WeightQuant: t.Format.String(), ActDtype: dtype.FP16,
		Tensor: t.Name, Expert: -1,
	})
}

// vector appends a weightless elementwise op reading in and writing out
// elements.
func (l *lowering) vector(name string, layer int, kind OpKind, role Role, in, out, flops float64) {
	l.ops = append(l.ops, Op{
		Name: name, Layer: layer, Kind: kind, Role: role, FLOPs: flops,
		Bytes:    Traffic{Activations: (in + out) * actBytes},
		Out:      out * actBytes,
		ActDtype: dtype.FP16, Expert: -1,
	})
}

func (l *lowering) attention(il int) {
	m, w := l.m, l.w
	rows := w.rows()
	r := float64(rows)
	hd := float64(m.HeadDimension())
	qd, kvd := float64(m.Heads)*hd, float64(m.KVHeads)*hd
	h := float64(m.Hidden)
	lw := &l.wt.layers[il]
	at := lw.attn
	next := func() Tensor { t := at[0]; at = at[1:]; return t }

	l.norm(next(), rows, 1)
	q, k, v := next(), next(), next()
	l.matmul(q.Name, il, RoleAttn, rows, q)
	l.matmul(k.Name, il, RoleAttn, rows, k)
	l.matmul(v.Name, il, RoleAttn, rows, v)
	if m.QKNorm {
		l.norm(next(), rows, m.Heads)
		l.norm(next(), rows, m.KVHeads)
	}
	rope := r * (qd + kvd)
	l.vector(lw.rope, il, KindRoPE, RoleAttn, rope, rope, ropeFLOPs*rope)

	// Causal attention: new token i (1..Tokens) attends to Context+i
	// positions, each costing a QK dot and a PV accumulate per query head.
	// A windowed layer's token j attends to the last min(c+j+1, window)
	// positions, and the pass reads the window's span of the cache.
	n, b := float64(w.Tokens), float64(w.Batch)
	positions, read := attended(w.Tokens, w.Context, m.Window(il))
	perPos := 2 * kvd * l.kv.BytesPerElement() // K and V of one position, one layer
	l.ops = append(l.ops, Op{
		Name: lw.attention, Layer: il, Kind: KindAttention, Role: RoleAttn,
		FLOPs: 4 * qd * positions * b,
		Bytes: Traffic{
			KVRead:      perPos * read * b,
			KVWrite:     perPos * n * b,
			Activations: r * (qd + 2*kvd + qd) * actBytes, // q, new k and v in; output out
		},
		Out:      r * qd * actBytes,
		ActDtype: l.kv.Dtype(), Matrix: true, Expert: -1,
	})

	o := next()
	l.matmul(o.Name, il, RoleAttn, rows, o)
	if m.PostNorms {
		l.norm(next(), rows, 1)
	}
	l.vector(lw.attnResidual, il, KindResidual, RoleAttn, 2*r*h, r*h, residualFLOPs*r*h)
}

// attended is, for a pass of n new tokens after c tokens of context
// through a layer with a sliding window of win tokens (0: none), the
// positions its queries attend to in all — Σ_j min(c+j+1, win) — and the
// positions of the cache it reads: min(c+n, win+n−1).
func attended(n, c, win int) (positions, read float64) {
	fn, fc := float64(n), float64(c)
	if win == 0 || c+n <= win {
		return fn*fc + fn*(fn+1)/2, fc + fn
	}
	// Token j is below the cap while c+j+1 ≤ win: the first k of them.
	k := float64(min(max(win-c, 0), n))
	fw := float64(win)
	a := fc + 1
	return k*a + k*(k-1)/2 + (fn-k)*fw, math.Min(fc+fn, fw+fn-1)
}

// ffnBody appends gate/up, activation and down for rows tokens through ffn
// matrices mats (gate, up, down or up, down).
func (l *lowering) ffnBody(il, rows int, mats []Tensor, act string) {
	r := float64(rows)
	for _, t := range mats[:len(mats)-1] {
		l.matmul(t.Name, il, RoleFFN, rows, t)
	}
	down := mats[len(mats)-1]
	f := float64(down.K)
	if l.m.gated() {
		l.vector(act, il, KindActivation, RoleFFN, 2*r*f, r*f, (actFLOPs+gateFLOPs)*r*f)
	} else {
		l.vector(act, il, KindActivation, RoleFFN, r*f, r*f, actFLOPs*r*f)
	}
	l.matmul(down.Name, il, RoleFFN, rows, down)
}

func (l *lowering) ffn(il int) {
	m := l.m
	lw := &l.wt.layers[il]
	rows := l.w.rows()
	r, h := float64(rows), float64(m.Hidden)
	l.norm(lw.ffnNorm, rows, 1)
	if m.MoE == nil {
		l.ffnBody(il, rows, lw.dense, lw.act)
	} else {
		l.matmul(lw.router.Name, il, RoleRouter, rows, lw.router)
		picks := 0
		for e, n := range l.route(il) {
			if n == 0 {
				continue
			}
			l.ffnBody(il, n, lw.experts[e], lw.expertAct[e])
			picks += n
		}
		for s := range lw.shared {
			l.ffnBody(il, rows, lw.shared[s], lw.sharedAct[s])
			picks += rows
		}
		// Weighted sum of each token's expert outputs: a multiply-add per
		// element of every expert output.
		in := float64(picks) * h
		l.vector(lw.moeSum, il, KindResidual, RoleFFN, in, r*h, 2*in)
	}
	if m.PostNorms {
		l.norm(lw.postNorm, rows, 1)
	}
	l.vector(lw.ffnResidual, il, KindResidual, RoleFFN, 2*r*h, r*h, residualFLOPs*r*h)
}

// Route says how many token rows of the pass pick each routed expert of
// block layer: a slice of moe.experts counts summing to
// Tokens*Batch*moe.active (nil for a dense model). Each row picks
// moe.active distinct experts uniformly at random — no load imbalance is
// modelled — from a PRNG seeded by (w.Seed, layer, w.Context), so the same
// pass always routes the same way and consecutive decode steps differ.
func Route(m Model, w Work, layer int) []int {
	if m.MoE == nil {
		return nil
	}
	return route(m, w, layer, make([]int, m.MoE.Experts), make([]int, m.MoE.Experts))
}

// route is Route counting into counts with perm as its scratch, both
// moe.experts long.
func route(m Model, w Work, layer int, counts, perm []int) []int {
	e, k := m.MoE.Experts, m.MoE.Active
	clear(counts)
	for i := range perm {
		perm[i] = i
	}
	r := newRouteRNG(w.Seed, layer, w.Context)
	for t := w.rows(); t > 0; t-- {
		// A partial Fisher-Yates shuffle draws k distinct experts; it stays
		// uniform when started from the previous row's permutation.
		for j := 0; j < k; j++ {
			i := j + r.below(e-j)
			perm[j], perm[i] = perm[i], perm[j]
			counts[perm[j]]++
		}
	}
	return counts
}

// routeRNG is SplitMix64: tiny, fast and fully specified here, so routing
// never changes with the Go release.
type routeRNG struct{ state uint64 }

func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

const golden = 0x9e3779b97f4a7c15

func newRouteRNG(seed uint64, layer, context int) routeRNG {
	s := mix64(seed + golden)
	s = mix64(s ^ (uint64(layer) + golden))
	s = mix64(s ^ (uint64(context) + 0xd1b54a32d192ed03))
	return routeRNG{state: s}
}

func (r *routeRNG) next() uint64 {
	r.state += golden
	return mix64(r.state)
}

// below returns a uniform integer in [0, n) (multiply-shift; the bias is
// below 2^-50 for any expert count).
func (r *routeRNG) below(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}
