package probe

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/workloads"
)

// tiny is a small Llama-shaped model: GQA (4 query heads on 2 KV heads),
// head dim 16, gated FFN.
var tiny = workloads.Model{
	Name: "tiny", Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2, HeadDim: 16, FFN: 96,
	FFNKind: workloads.FFNGated, Vocab: 50, MaxContext: 64,
}

// TestDecoderMatchesReference runs three decode steps of the tiny model in
// F16 and compares the logits with a float64 forward pass over the same
// (decoded) weights and KV cache. The decoder rounds activations and the
// KV cache to halves, so they agree to about 1e-3 of the logits' scale.
func TestDecoderMatchesReference(t *testing.T) {
	d, err := NewDecoder(context.Background(), tiny, "F16", 8, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	d.Reset(0, 1)
	ref := newRefDecoder(d)
	tok := 3
	for step := range 3 {
		want := ref.step(tok)
		next, err := d.Step(context.Background(), tok)
		if err != nil {
			t.Fatal(err)
		}
		var scale float64
		for _, v := range want {
			scale = max(scale, math.Abs(v))
		}
		for i, v := range want {
			if math.Abs(float64(d.logits[i])-v) > 2e-3*scale {
				t.Fatalf("step %d logit %d = %v, want %v (scale %v)", step, i, d.logits[i], v, scale)
			}
		}
		tok = next
	}
	if d.Pos() != 3 {
		t.Errorf("Pos = %d after 3 steps", d.Pos())
	}
}

// refDecoder is the decoder's forward pass in float64, written out plainly.
type refDecoder struct {
	d      *Decoder
	k, v   [][][]float64 // layer, position, kv dim
	pos    int
	matrix func(*Matrix, []float64) []float64
}

func newRefDecoder(d *Decoder) *refDecoder {
	r := &refDecoder{d: d, k: make([][][]float64, d.Model.Layers), v: make([][][]float64, d.Model.Layers)}
	r.matrix = func(w *Matrix, x []float64) []float64 { return ReferenceMatMul(w, x, 1) }
	return r
}

func refNorm(x []float64, w []float32) []float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	s := 1 / math.Sqrt(ss/float64(len(x))+1e-5)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * s * float64(w[i])
	}
	return out
}

func refRope(x []float64, hd, pos int) {
	for h := 0; h < len(x); h += hd {
		for i := 0; i < hd; i += 2 {
			th := float64(pos) * math.Pow(10000, -float64(i)/float64(hd))
			a, b := x[h+i], x[h+i+1]
			x[h+i], x[h+i+1] = a*math.Cos(th)-b*math.Sin(th), a*math.Sin(th)+b*math.Cos(th)
		}
	}
}

func (r *refDecoder) step(tok int) []float64 {
	d, m := r.d, r.d.Model
	hd := m.HeadDimension()
	row := make([]float32, m.Hidden)
	d.embed.Dequantize(row, tok)
	x := make([]float64, m.Hidden)
	for i, v := range row {
		x[i] = float64(v)
	}
	for il, l := range d.layers {
		xn := refNorm(x, l.attnNorm)
		q, k, v := r.matrix(l.wq, xn), r.matrix(l.wk, xn), r.matrix(l.wv, xn)
		refRope(q, hd, r.pos)
		refRope(k, hd, r.pos)
		r.k[il], r.v[il] = append(r.k[il], k), append(r.v[il], v)
		att := make([]float64, len(q))
		for h := range m.Heads {
			kvh := h / (m.Heads / m.KVHeads)
			var scores []float64
			best := math.Inf(-1)
			for t := range r.k[il] {
				var s float64
				for i := range hd {
					s += q[h*hd+i] * r.k[il][t][kvh*hd+i]
				}
				s /= math.Sqrt(float64(hd))
				scores = append(scores, s)
				best = max(best, s)
			}
			var sum float64
			for t := range scores {
				scores[t] = math.Exp(scores[t] - best)
				sum += scores[t]
			}
			for t, p := range scores {
				for i := range hd {
					att[h*hd+i] += p / sum * r.v[il][t][kvh*hd+i]
				}
			}
		}
		for i, o := range r.matrix(l.wo, att) {
			x[i] += o
		}
		xn = refNorm(x, l.ffnNorm)
		g, u := r.matrix(l.ffnGate, xn), r.matrix(l.ffnUp, xn)
		for i := range g {
			g[i] = g[i] / (1 + math.Exp(-g[i])) * u[i]
		}
		for i, o := range r.matrix(l.ffnDown, g) {
			x[i] += o
		}
	}
	r.pos++
	return r.matrix(d.output, refNorm(x, d.norm))
}

// TestDecoderWeightsAreTheSimulatorsTensors: every reference decoder of the
// catalog, built as the probe runs it, stores exactly the bytes
// workloads.Model.Tensors gives for its quantisation, and its size is in
// the range the catalog promises (about 50 to 600 MB of Q4_0 weights).
func TestDecoderWeightsAreTheSimulatorsTensors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the three reference decoders (about 900 MB)")
	}
	q, err := workloads.ParseQuant(DecoderQuant)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id       string
		min, max float64
	}{
		{"probe-decoder-s", 50e6, 60e6}, {"probe-decoder-m", 190e6, 210e6}, {"probe-decoder-l", 600e6, 640e6},
	} {
		spec, err := workloads.LoadModel(tc.id, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		for _, ts := range spec.Tensors(q) {
			if ts.Format.Name() != "Q4_0" && ts.Format.Name() != "F32" {
				t.Errorf("%s: tensor %s is %s", tc.id, ts.Name, ts.Format)
			}
			want += ts.Bytes
		}
		d, err := NewDecoder(context.Background(), spec.Model, DecoderQuant, 2, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(d.WeightBytes()); got != want || got < tc.min || got > tc.max {
			t.Errorf("%s: %v weight bytes, Tensors say %v, want within [%v, %v]", tc.id, got, want, tc.min, tc.max)
		}
	}
}

func TestNewDecoderRefuses(t *testing.T) {
	for _, tc := range []struct {
		quant string
		edit  func(*workloads.Model)
		want  string
	}{
		// llama.cpp's output matrix of a Q4_0 model, once 256 divides its rows.
		{"Q4_0", func(m *workloads.Model) { m.Hidden = 256 }, "tensor output is stored as Q6_K"},
		{"INT4", nil, "stored as INT4"},
		{"Q4_0,output=Q4_0", func(m *workloads.Model) { m.TiedEmbeddings = true }, "only dense, gated, untied"},
		{"Q4_0,output=Q4_0", func(m *workloads.Model) { m.FFNKind = workloads.FFNPlain }, "only dense, gated, untied"},
		{"Q3", nil, "not a quantisation"},
	} {
		m := tiny
		if tc.edit != nil {
			tc.edit(&m)
		}
		_, err := NewDecoder(context.Background(), m, tc.quant, 4, 1, 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.quant, err, tc.want)
		}
	}
}
