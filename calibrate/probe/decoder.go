package probe

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/edgetwin/edgetwin/workloads"
)

// DecoderQuant is the quantisation the reference decoders run: Q4_0
// everywhere, the output matrix included. (llama.cpp would store a Q4_0
// model's output matrix as Q6_K, whose kernels the probe does not have; the
// records name this spec, so the simulator runs exactly what was measured.)
const DecoderQuant = "Q4_0,output=Q4_0"

// Decoder is a Llama-style transformer built from the probe's kernels with
// random weights: RMSNorm, Q/K/V projections with grouped-query attention,
// RoPE, attention over an F16 KV cache, the output projection, a gated SiLU
// FFN, the final norm and the output matrix, then a greedy pick of the next
// token. Every weight is stored in the format workloads.Model.Tensors gives
// for the model and quantisation, so it reads the bytes the simulator
// assumes.
type Decoder struct {
	Model   workloads.Model
	Threads int

	embed  *Matrix
	layers []decoderLayer
	norm   []float32
	output *Matrix

	// The KV cache: per layer, MaxContext positions of KVHeads·HeadDim
	// halves, position-major as llama.cpp's.
	kcache, vcache [][]uint16
	pos            int

	// Scratch.
	x, xn, q, k, v, att, o, gate, up, ffnh, down, logits, scores []float32
	ropeCos, ropeSin                                             []float32
	act                                                          Activations
}

type decoderLayer struct {
	attnNorm, ffnNorm       []float32
	wq, wk, wv, wo          *Matrix
	ffnGate, ffnUp, ffnDown *Matrix
}

// NewDecoder builds m with random weights stored as quant says (a
// workloads.ParseQuant spec), for contexts up to maxCtx tokens. It fails
// when a tensor's storage is one the probe has no kernel for, or the model
// is not a dense gated Llama-style decoder.
// Building the largest catalog decoder takes seconds; it stops with ctx's
// error when ctx ends.
func NewDecoder(ctx context.Context, m workloads.Model, quant string, maxCtx, threads int, seed uint64) (*Decoder, error) {
	q, err := workloads.ParseQuant(quant)
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.MoE != nil || m.FFNKind == workloads.FFNPlain || m.QKVBias || m.QKNorm || m.PostNorms || m.TiedEmbeddings {
		return nil, fmt.Errorf("probe: decoder %s: only dense, gated, untied Llama blocks without biases or extra norms are built", m.Name)
	}
	d := &Decoder{Model: m, Threads: max(1, threads), layers: make([]decoderLayer, m.Layers)}
	r := rand.New(rand.NewPCG(seed, 3))
	for i, t := range m.Tensors(q) {
		name := t.Format.Name()
		if t.Role == workloads.RoleNorm {
			w := make([]float32, t.K)
			for j := range w {
				w[j] = 0.9 + 0.2*r.Float32()
			}
			if err := d.place(t.Name, t.Layer, w, nil); err != nil {
				return nil, err
			}
			continue
		}
		f, ok := map[string]Format{"F16": F16, "Q8_0": Q8_0, "Q4_0": Q4_0}[name]
		if !ok {
			return nil, fmt.Errorf("probe: decoder %s under %s: tensor %s is stored as %s, which the probe has no kernel for; use F16, Q8_0 or Q4_0", m.Name, quant, t.Name, name)
		}
		// Weights of deviation 1/√K keep activations near unit scale.
		mat, err := randomMatrix(ctx, f, t.N, t.K, float32(1/math.Sqrt(float64(t.K))), seed+uint64(i))
		if err != nil {
			return nil, err
		}
		if err := d.place(t.Name, t.Layer, nil, mat); err != nil {
			return nil, err
		}
	}
	kvd := m.KVHeads * m.HeadDimension()
	for range m.Layers {
		d.kcache = append(d.kcache, make([]uint16, maxCtx*kvd))
		d.vcache = append(d.vcache, make([]uint16, maxCtx*kvd))
	}
	qd := m.Heads * m.HeadDimension()
	f32 := func(n int) []float32 { return make([]float32, n) }
	d.x, d.xn, d.q, d.k, d.v, d.att, d.o = f32(m.Hidden), f32(m.Hidden), f32(qd), f32(kvd), f32(kvd), f32(qd), f32(m.Hidden)
	d.gate, d.up, d.ffnh, d.down, d.logits = f32(m.FFN), f32(m.FFN), f32(m.FFN), f32(m.Hidden), f32(m.Vocab)
	d.scores = f32(m.Heads * maxCtx)
	d.ropeCos, d.ropeSin = f32(m.HeadDimension()/2), f32(m.HeadDimension()/2)
	return d, nil
}

// place stores a tensor by its llama.cpp name.
func (d *Decoder) place(name string, layer int, norm []float32, mat *Matrix) error {
	if layer < 0 {
		switch name {
		case "token_embd":
			d.embed = mat
		case "output_norm":
			d.norm = norm
		case "output":
			d.output = mat
		default:
			return fmt.Errorf("probe: decoder: unexpected tensor %s", name)
		}
		return nil
	}
	l := &d.layers[layer]
	suffix := name[len(fmt.Sprintf("blk.%d.", layer)):]
	switch suffix {
	case "attn_norm":
		l.attnNorm = norm
	case "ffn_norm":
		l.ffnNorm = norm
	case "attn_q":
		l.wq = mat
	case "attn_k":
		l.wk = mat
	case "attn_v":
		l.wv = mat
	case "attn_output":
		l.wo = mat
	case "ffn_gate":
		l.ffnGate = mat
	case "ffn_up":
		l.ffnUp = mat
	case "ffn_down":
		l.ffnDown = mat
	default:
		return fmt.Errorf("probe: decoder: unexpected tensor %s", name)
	}
	return nil
}

// WeightBytes is the stored size of every weight matrix (embedding table
// included), as llama-bench's model_size.
func (d *Decoder) WeightBytes() int64 {
	n := d.embed.Bytes() + d.output.Bytes() + int64(4*len(d.norm))
	for _, l := range d.layers {
		for _, m := range []*Matrix{l.wq, l.wk, l.wv, l.wo, l.ffnGate, l.ffnUp, l.ffnDown} {
			n += m.Bytes()
		}
		n += int64(4 * (len(l.attnNorm) + len(l.ffnNorm)))
	}
	return n
}

// Reset empties the KV cache down to depth positions, filled with random
// keys and values as if a prompt of that length had been processed.
func (d *Decoder) Reset(depth int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 4))
	kvd := d.Model.KVHeads * d.Model.HeadDimension()
	for il := range d.layers {
		for i := range depth * kvd {
			d.kcache[il][i] = ToHalf(float32(r.NormFloat64()))
			d.vcache[il][i] = ToHalf(float32(r.NormFloat64()))
		}
	}
	d.pos = depth
}

// Pos is the number of tokens in the KV cache.
func (d *Decoder) Pos() int { return d.pos }

// Step runs one decode step for token and returns the next token (the
// argmax of the logits).
func (d *Decoder) Step(ctx context.Context, token int) (int, error) {
	m := d.Model
	if d.pos >= len(d.kcache[0])/(m.KVHeads*m.HeadDimension()) {
		return 0, fmt.Errorf("probe: decoder context full at %d tokens", d.pos)
	}
	d.embed.Dequantize(d.x, token%m.Vocab)
	ropeAngles(d.ropeCos, d.ropeSin, d.pos)
	for il := range d.layers {
		if err := d.block(ctx, il); err != nil {
			return 0, err
		}
	}
	rmsNorm(d.xn, d.x, d.norm)
	if err := d.gemv(ctx, d.logits, d.output, d.xn); err != nil {
		return 0, err
	}
	d.pos++
	best := 0
	for i, v := range d.logits {
		if v > d.logits[best] {
			best = i
		}
	}
	return best, nil
}

func (d *Decoder) gemv(ctx context.Context, dst []float32, w *Matrix, x []float32) error {
	d.act.Prepare(w.Format, x, 1, w.K)
	return MatMul(ctx, dst, w, &d.act, d.Threads)
}

// block runs transformer block il on d.x in place.
func (d *Decoder) block(ctx context.Context, il int) error {
	m, l := d.Model, &d.layers[il]
	hd := m.HeadDimension()
	kvd := m.KVHeads * hd
	rmsNorm(d.xn, d.x, l.attnNorm)
	for _, p := range []struct {
		dst []float32
		w   *Matrix
	}{{d.q, l.wq}, {d.k, l.wk}, {d.v, l.wv}} {
		if err := d.gemv(ctx, p.dst, p.w, d.xn); err != nil {
			return err
		}
	}
	rope(d.q, hd, d.ropeCos, d.ropeSin)
	rope(d.k, hd, d.ropeCos, d.ropeSin)
	kc, vc := d.kcache[il][d.pos*kvd:(d.pos+1)*kvd], d.vcache[il][d.pos*kvd:(d.pos+1)*kvd]
	for i := range kvd {
		kc[i], vc[i] = ToHalf(d.k[i]), ToHalf(d.v[i])
	}
	if err := parallelRows(ctx, m.Heads, d.Threads, func(lo, hi int) {
		for h := lo; h < hi; h++ {
			d.attend(il, h)
		}
	}); err != nil {
		return err
	}
	if err := d.gemv(ctx, d.o, l.wo, d.att); err != nil {
		return err
	}
	for i, v := range d.o {
		d.x[i] += v
	}
	rmsNorm(d.xn, d.x, l.ffnNorm)
	if err := d.gemv(ctx, d.gate, l.ffnGate, d.xn); err != nil {
		return err
	}
	if err := d.gemv(ctx, d.up, l.ffnUp, d.xn); err != nil {
		return err
	}
	for i, g := range d.gate {
		d.ffnh[i] = g / (1 + float32(math.Exp(float64(-g)))) * d.up[i]
	}
	if err := d.gemv(ctx, d.down, l.ffnDown, d.ffnh); err != nil {
		return err
	}
	for i, v := range d.down {
		d.x[i] += v
	}
	return nil
}

// attend computes query head h's attention over positions 0..pos of layer
// il: softmax(q·K/√d)·V, with K and V read from the F16 cache.
func (d *Decoder) attend(il, h int) {
	m := d.Model
	hd := m.HeadDimension()
	kvd := m.KVHeads * hd
	kvh := h / (m.Heads / m.KVHeads)
	q := d.q[h*hd : (h+1)*hd]
	n := d.pos + 1
	scores := d.scores[h*len(d.scores)/m.Heads:][:n]
	scale := float32(1 / math.Sqrt(float64(hd)))
	kc, vc := d.kcache[il], d.vcache[il]
	best := float32(math.Inf(-1))
	for t := range n {
		k := kc[t*kvd+kvh*hd : t*kvd+(kvh+1)*hd]
		var s float32
		for i, kv := range k {
			s += q[i] * halfToFloat[kv]
		}
		scores[t] = s * scale
		best = max(best, scores[t])
	}
	var sum float32
	for t := range scores {
		scores[t] = float32(math.Exp(float64(scores[t] - best)))
		sum += scores[t]
	}
	out := d.att[h*hd : (h+1)*hd]
	clear(out)
	for t, p := range scores {
		v := vc[t*kvd+kvh*hd : t*kvd+(kvh+1)*hd]
		p /= sum
		for i, vv := range v {
			out[i] += p * halfToFloat[vv]
		}
	}
}

// rmsNorm writes x/rms(x)·w to dst, with llama's ε = 1e-5.
func rmsNorm(dst, x, w []float32) {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	s := float32(1 / math.Sqrt(ss/float64(len(x))+1e-5))
	for i, v := range x {
		dst[i] = v * s * w[i]
	}
}

// ropeAngles sets cos and sin of pos·θ_i for the pairs i of a head of
// 2·len(cos) elements, θ_i = 10000^(−2i/d) as Llama's rotary embedding.
func ropeAngles(cos, sin []float32, pos int) {
	hd := 2 * len(cos)
	for i := range cos {
		theta := float64(pos) * math.Pow(10000, -float64(2*i)/float64(hd))
		cos[i], sin[i] = float32(math.Cos(theta)), float32(math.Sin(theta))
	}
}

// rope rotates each head's adjacent pairs (x[2i], x[2i+1]) by the angles
// of ropeAngles, as ggml's rope in its normal (Llama) mode.
func rope(x []float32, hd int, cos, sin []float32) {
	for h := 0; h+hd <= len(x); h += hd {
		for i := range hd / 2 {
			a, b := x[h+2*i], x[h+2*i+1]
			x[h+2*i], x[h+2*i+1] = a*cos[i]-b*sin[i], a*sin[i]+b*cos[i]
		}
	}
}
