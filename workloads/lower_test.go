package workloads

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/dtype"
)

// tiny is small enough to check every operator by hand: hidden 8, 2 query
// heads and 1 KV head of dim 4, gated FFN 16, vocabulary 10.
func tiny() Model {
	return Model{Name: "tiny", Layers: 1, Hidden: 8, Heads: 2, KVHeads: 1, FFN: 16, Vocab: 10, MaxContext: 64}
}

func sumTouch(ops []Op, c TensorClass) float64 {
	var s float64
	for _, o := range ops {
		s += o.Touch(c)
	}
	return s
}

func sumFLOPs(ops []Op) float64 {
	var s float64
	for _, o := range ops {
		s += o.FLOPs
	}
	return s
}

func TestLowerTinyDecodeByHand(t *testing.T) {
	// F16 weights (2 bytes) and F16 KV, one decode step at context 5.
	ops := Lower(tiny(), Quant{}, KVFormat{}, Work{Phase: Decode, Tokens: 1, Context: 5, Batch: 1})
	type row struct {
		name             string
		kind             OpKind
		m, n, k          int
		flops, w, kr, kw float64
		act              float64
	}
	want := []row{
		{"token_embd", KindEmbed, 0, 0, 0, 0, 16, 0, 0, 16},            // one row of 8 at 2 B; writes 8 activations
		{"blk.0.attn_norm", KindNorm, 0, 0, 0, 32, 32, 0, 0, 32},       // 4 FLOPs*8; 8 F32 weights; 8 in + 8 out
		{"blk.0.attn_q", KindMatMul, 1, 8, 8, 128, 128, 0, 0, 32},      // 2*1*8*8; 8*8*2 B; (8+8)*2
		{"blk.0.attn_k", KindMatMul, 1, 4, 8, 64, 64, 0, 0, 24},        // N = 1 kv head * 4
		{"blk.0.attn_v", KindMatMul, 1, 4, 8, 64, 64, 0, 0, 24},        //
		{"blk.0.attn_rope", KindRoPE, 0, 0, 0, 36, 0, 0, 0, 48},        // 12 q+k elements * 3; 12 in + 12 out
		{"blk.0.attn", KindAttention, 0, 0, 0, 192, 0, 96, 16, 48},     // 4*8*(5+1); K,V of 6 positions: 2*4*6*2; new K,V 2*4*2; q+k+v+out = 24*2
		{"blk.0.attn_output", KindMatMul, 1, 8, 8, 128, 128, 0, 0, 32}, //
		{"blk.0.attn_residual", KindResidual, 0, 0, 0, 8, 0, 0, 0, 48}, // 8 adds; 16 in + 8 out
		{"blk.0.ffn_norm", KindNorm, 0, 0, 0, 32, 32, 0, 0, 32},        //
		{"blk.0.ffn_gate", KindMatMul, 1, 16, 8, 256, 256, 0, 0, 48},   // (8+16)*2
		{"blk.0.ffn_up", KindMatMul, 1, 16, 8, 256, 256, 0, 0, 48},     //
		{"blk.0.ffn_act", KindActivation, 0, 0, 0, 80, 0, 0, 0, 96},    // 5*16; 32 in + 16 out
		{"blk.0.ffn_down", KindMatMul, 1, 8, 16, 256, 256, 0, 0, 48},   //
		{"blk.0.ffn_residual", KindResidual, 0, 0, 0, 8, 0, 0, 0, 48},  //
		{"output_norm", KindNorm, 0, 0, 0, 32, 32, 0, 0, 32},           //
		{"output", KindMatMul, 1, 10, 8, 160, 160, 0, 0, 36},           // (8+10)*2
	}
	if len(ops) != len(want) {
		for _, o := range ops {
			t.Log(o.Name)
		}
		t.Fatalf("%d ops, want %d", len(ops), len(want))
	}
	for i, w := range want {
		o := ops[i]
		got := row{o.Name, o.Kind, o.M, o.N, o.K, o.FLOPs, o.Bytes.Weights, o.Bytes.KVRead, o.Bytes.KVWrite, o.Bytes.Activations}
		if got != w {
			t.Errorf("op %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
	// Weights read: WeightBytes 1568 (embed 160, norms 3*32, q 128, k 64,
	// v 64, o 128, ffn 3*256, output 160) - table 160 + one row 16 = 1424.
	if wb := tiny().WeightBytes(Quant{}); wb != 1568 {
		t.Errorf("tiny WeightBytes = %v, want 1568", wb)
	}
	if got := sumTouch(ops, Weights); got != 1424 {
		t.Errorf("weights read = %v, want 1424", got)
	}
	if got := sumFLOPs(ops); got != 1732 {
		t.Errorf("total FLOPs = %v, want 1732 (sum of the column)", got)
	}
}

func TestLowerOpFields(t *testing.T) {
	m := loadModel(t, "llama-2-7b")
	ops := Lower(m, mustQuant(t, "Q4_0"), KVFormat{}, Work{Phase: Decode, Tokens: 1, Context: 10, Batch: 1})
	byName := map[string]Op{}
	for _, o := range ops {
		if _, dup := byName[o.Name]; dup {
			t.Errorf("duplicate op name %s", o.Name)
		}
		byName[o.Name] = o
		if o.Matrix != (o.Kind == KindMatMul || o.Kind == KindRouter || o.Kind == KindAttention) {
			t.Errorf("%s: Matrix = %v for kind %s", o.Name, o.Matrix, o.Kind)
		}
		if (o.Tensor == "") != (o.Bytes.Weights == 0) {
			t.Errorf("%s: tensor %q but weight bytes %v", o.Name, o.Tensor, o.Bytes.Weights)
		}
		if o.Expert != -1 {
			t.Errorf("%s: dense op with expert %d", o.Name, o.Expert)
		}
	}
	for name, want := range map[string]struct {
		layer   int
		quant   string
		act     dtype.Dtype
		role    Role
		tensor  string
		n, k, m int
	}{
		"token_embd":        {-1, "Q4_0", dtype.FP16, RoleEmbed, "token_embd", 0, 0, 0},
		"blk.3.attn_q":      {3, "Q4_0", dtype.INT8, RoleAttn, "blk.3.attn_q", 4096, 4096, 1},
		"blk.31.ffn_down":   {31, "Q4_0", dtype.INT8, RoleFFN, "blk.31.ffn_down", 4096, 11008, 1},
		"blk.0.attn_norm":   {0, "F32", dtype.FP16, RoleNorm, "blk.0.attn_norm", 0, 0, 0},
		"output":            {-1, "Q6_K", dtype.INT8, RoleOutput, "output", 32000, 4096, 1},
		"blk.5.attn":        {5, "", dtype.FP16, RoleAttn, "", 0, 0, 0},
		"blk.5.attn_output": {5, "Q4_0", dtype.INT8, RoleAttn, "blk.5.attn_output", 4096, 4096, 1},
	} {
		o, ok := byName[name]
		if !ok {
			t.Errorf("no op %s", name)
			continue
		}
		if o.Layer != want.layer || o.WeightQuant != want.quant || o.ActDtype != want.act || o.Role != want.role ||
			o.Tensor != want.tensor || o.N != want.n || o.K != want.k || o.M != want.m {
			t.Errorf("%s = %+v, want %+v", name, o, want)
		}
	}
	// Every tensor is read by exactly one op, except the embedding table
	// (only rows are read).
	read := map[string]int{}
	for _, o := range ops {
		if o.Tensor != "" {
			read[o.Tensor]++
		}
	}
	for _, tn := range m.Tensors(Quant{}) {
		if read[tn.Name] != 1 {
			t.Errorf("tensor %s read by %d ops", tn.Name, read[tn.Name])
		}
	}
}

// The identity the simulator's DRAM traffic rests on: one decode step reads
// every weight once, except the embedding table of which it reads only the
// token rows.
func TestDecodeWeightsIdentity(t *testing.T) {
	for _, id := range []string{"llama-2-7b", "llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "qwen2.5-7b"} {
		m := loadModel(t, id)
		for _, spec := range []string{"Q4_0", "Q8_0", "F16", "INT4@g128", "attn=INT8,ffn=INT4", "Q4_0,attn=Q8_0,embed=F16"} {
			q := mustQuant(t, spec)
			var table, row float64
			for _, tn := range m.Tensors(q) {
				if tn.Name == "token_embd" {
					table, row = tn.Bytes, tn.Format.rowBytes(m.Hidden)
				}
			}
			for _, batch := range []int{1, 4} {
				ops := Lower(m, q, KVFormat{}, Work{Phase: Decode, Tokens: 1, Context: 100, Batch: batch})
				got := sumTouch(ops, Weights)
				want := m.WeightBytes(q) - table + float64(batch)*row
				if m.TiedEmbeddings {
					// The table is read whole as the output matrix.
					want = m.WeightBytes(q) + float64(batch)*row
				}
				if math.Abs(got-want) > 1e-6*want {
					t.Errorf("%s %s batch %d: weights read %.0f, want %.0f", id, spec, batch, got, want)
				}
			}
		}
	}
}

// Matmul FLOPs of a batch-1 decode step are 2 per active weight (plus one
// add per bias element): the usual "2 * params per token".
func TestDecodeMatmulFLOPsAreTwicePerActiveWeight(t *testing.T) {
	for _, id := range catalogIDs {
		m := loadModel(t, id)
		ops := Lower(m, mustQuant(t, "Q4_0"), KVFormat{}, Work{Phase: Decode, Tokens: 1, Context: 0, Batch: 1})
		var mm float64
		for _, o := range ops {
			if o.Kind == KindMatMul || o.Kind == KindRouter {
				mm += o.FLOPs
			}
		}
		var norms, biases int64
		for _, tn := range m.Tensors(Quant{}) {
			if tn.Role == RoleNorm {
				norms += tn.Elements()
			}
			biases += int64(tn.Bias)
		}
		want := 2*float64(m.ActiveParams()-norms-biases) + float64(biases)
		if mm != want {
			t.Errorf("%s: matmul FLOPs %.0f, want %.0f", id, mm, want)
		}
	}
}

func TestAttentionPrefill(t *testing.T) {
	// Prefill of 3 tokens at context 2, batch 2, on tiny (8 = heads*head_dim,
	// 4 = kv_heads*head_dim), F16 cache.
	ops := Lower(tiny(), Quant{}, KVFormat{}, Work{Phase: Prefill, Tokens: 3, Context: 2, Batch: 2})
	var att, out, q Op
	for _, o := range ops {
		switch o.Name {
		case "blk.0.attn":
			att = o
		case "output":
			out = o
		case "blk.0.attn_q":
			q = o
		}
	}
	// Positions attended: (2+1)+(2+2)+(2+3) = 12 per sequence.
	if want := 4.0 * 8 * 12 * 2; att.FLOPs != want {
		t.Errorf("prefill attention FLOPs = %v, want %v (4*8*12*2)", att.FLOPs, want)
	}
	if want := 2.0 * 4 * 5 * 2 * 2; att.Bytes.KVRead != want {
		t.Errorf("KVRead = %v, want %v (K and V of 2+3 positions, 2 sequences)", att.Bytes.KVRead, want)
	}
	if want := 2.0 * 4 * 3 * 2 * 2; att.Bytes.KVWrite != want {
		t.Errorf("KVWrite = %v, want %v (3 new tokens, 2 sequences)", att.Bytes.KVWrite, want)
	}
	if q.M != 6 {
		t.Errorf("attn_q M = %d, want tokens*batch = 6", q.M)
	}
	if out.M != 2 {
		t.Errorf("prefill output M = %d, want batch = 2 (last token of each sequence only)", out.M)
	}
	// Decode computes logits for every new token.
	ops = Lower(tiny(), Quant{}, KVFormat{}, Work{Phase: Decode, Tokens: 1, Context: 5, Batch: 3})
	if o := ops[len(ops)-1]; o.Name != "output" || o.M != 3 {
		t.Errorf("decode output op %s M = %d, want output with M = 3", o.Name, o.M)
	}
}

func TestDecodeKVReadGrowsWithContext(t *testing.T) {
	m := loadModel(t, "llama-2-7b")
	kv := KVFormat{}
	perLayerPos := 2.0 * 32 * 128 * 2 // K and V, 32 kv heads of 128, 2 bytes
	for _, L := range []int{0, 1, 100, 4095} {
		ops := Lower(m, mustQuant(t, "Q4_0"), kv, Work{Phase: Decode, Tokens: 1, Context: L, Batch: 1})
		for _, o := range ops {
			if o.Name == "blk.7.attn" {
				if want := perLayerPos * float64(L+1); o.Bytes.KVRead != want {
					t.Errorf("context %d: layer KVRead = %v, want %v", L, o.Bytes.KVRead, want)
				}
				if want := 4.0 * 4096 * float64(L+1); o.FLOPs != want {
					t.Errorf("context %d: attention FLOPs = %v, want %v", L, o.FLOPs, want)
				}
			}
		}
		// Summed over layers: the whole cache of L+1 tokens.
		if got, want := sumTouch(ops, KVRead), m.KVBytesPerToken(kv)*float64(L+1); got != want {
			t.Errorf("context %d: KVRead %v, want %v", L, got, want)
		}
		if got, want := sumTouch(ops, KVWrite), m.KVBytesPerToken(kv); got != want {
			t.Errorf("context %d: KVWrite %v, want one token's %v", L, got, want)
		}
	}
	// A quantised cache scales the bytes, not the FLOPs.
	q8, _ := ParseKVFormat("Q8_0")
	ops := Lower(m, Quant{}, q8, Work{Phase: Decode, Tokens: 1, Context: 99, Batch: 1})
	if got, want := sumTouch(ops, KVRead), m.KVBytesPerToken(q8)*100; got != want {
		t.Errorf("Q8_0 cache KVRead %v, want %v", got, want)
	}
}

func TestMoEDecodeReadsExactlyActiveExperts(t *testing.T) {
	m := loadModel(t, "seed-moe-3b")
	q := mustQuant(t, "Q4_0")
	var expertBytes, table, row float64
	for _, tn := range m.Tensors(q) {
		switch {
		case tn.Layer == 0 && tn.Expert == 0:
			expertBytes += tn.Bytes
		case tn.Name == "token_embd":
			table, row = tn.Bytes, tn.Format.rowBytes(m.Hidden)
		}
	}
	for ctx := 0; ctx < 20; ctx++ {
		ops := Lower(m, q, KVFormat{}, Work{Phase: Decode, Tokens: 1, Context: ctx, Batch: 1, Seed: 7})
		touched := map[int]map[int]bool{}
		for _, o := range ops {
			if o.Expert >= 0 {
				if touched[o.Layer] == nil {
					touched[o.Layer] = map[int]bool{}
				}
				touched[o.Layer][o.Expert] = true
				if o.Kind == KindMatMul && o.M != 1 {
					t.Errorf("%s: M = %d, want the 1 token routed to it", o.Name, o.M)
				}
			}
		}
		for il := 0; il < m.Layers; il++ {
			if len(touched[il]) != 2 {
				t.Fatalf("context %d layer %d: %d experts read, want moe.active = 2", ctx, il, len(touched[il]))
			}
		}
		// Weights: everything but the table and the 14 idle experts a layer.
		want := m.WeightBytes(q) - table + row - float64(m.Layers*14)*expertBytes
		if got := sumTouch(ops, Weights); math.Abs(got-want) > 1e-9*want {
			t.Fatalf("context %d: weights read %.0f, want %.0f", ctx, got, want)
		}
	}
}

func TestMoETouchedExpertsGrowWithRows(t *testing.T) {
	m := loadModel(t, "seed-moe-3b")
	count := func(w Work) (experts int, rows int) {
		for _, o := range Lower(m, Quant{}, KVFormat{}, w) {
			if o.Layer == 3 && o.Expert >= 0 && strings.Contains(o.Name, "ffn_up") {
				experts++
				rows += o.M
			}
		}
		return
	}
	// Batch 4 decode: 4 rows pick 2 each, so 2 to 8 experts, 8 picks.
	e, r := count(Work{Phase: Decode, Tokens: 1, Context: 10, Batch: 4, Seed: 1})
	if e < 2 || e > 8 || r != 8 {
		t.Errorf("batch-4 decode: %d experts, %d routed rows; want 2..8 experts and 8 rows", e, r)
	}
	// A 512-token prompt touches all 16 experts (the chance one is missed is
	// 16*(14/16)^512, about 1e-28) with 1024 picks.
	e, r = count(Work{Phase: Prefill, Tokens: 512, Context: 0, Batch: 1, Seed: 1})
	if e != 16 || r != 1024 {
		t.Errorf("prefill 512: %d experts, %d routed rows; want 16 and 1024", e, r)
	}
}

func TestRouteDeterministicAndUniform(t *testing.T) {
	m := loadModel(t, "seed-moe-3b")
	w := Work{Phase: Prefill, Tokens: 64, Context: 0, Batch: 1, Seed: 42}
	a, b := Route(m, w, 5), Route(m, w, 5)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, layer and context routed differently")
	}
	sum := 0
	for _, n := range a {
		sum += n
	}
	if sum != 64*2 {
		t.Errorf("picks = %d, want tokens*active = 128", sum)
	}
	differs := func(w2 Work, layer int) bool { return !reflect.DeepEqual(a, Route(m, w2, layer)) }
	w2 := w
	w2.Seed = 43
	if !differs(w2, 5) {
		t.Error("another seed gives the same routing")
	}
	if !differs(w, 6) {
		t.Error("another layer gives the same routing")
	}
	w2 = w
	w2.Context = 1
	if !differs(w2, 5) {
		t.Error("another context gives the same routing")
	}
	// Uniform: 8000 rows * 2 picks over 16 experts is 1000 each; allow
	// +-15% (about 5 standard deviations).
	big := Route(m, Work{Phase: Prefill, Tokens: 8000, Batch: 1, Seed: 3}, 0)
	for e, n := range big {
		if n < 850 || n > 1150 {
			t.Errorf("expert %d picked %d times of 16000, want about 1000", e, n)
		}
	}
	if Route(tiny(), w, 0) != nil {
		t.Error("dense model has routing")
	}
	// Lower is deterministic too.
	l1 := Lower(m, Quant{}, KVFormat{}, Work{Phase: Decode, Tokens: 1, Context: 3, Batch: 2, Seed: 9})
	l2 := Lower(m, Quant{}, KVFormat{}, Work{Phase: Decode, Tokens: 1, Context: 3, Batch: 2, Seed: 9})
	if !reflect.DeepEqual(l1, l2) {
		t.Error("Lower is not deterministic")
	}
}

func TestLowerVariants(t *testing.T) {
	names := func(ops []Op) map[string]Op {
		out := map[string]Op{}
		for _, o := range ops {
			out[o.Name] = o
		}
		return out
	}
	decode := Work{Phase: Decode, Tokens: 1, Context: 4, Batch: 1}

	// Plain FFN: no gate; the activation reads and writes ffn elements.
	p := tiny()
	p.FFNKind = FFNPlain
	ops := names(Lower(p, Quant{}, KVFormat{}, decode))
	if _, ok := ops["blk.0.ffn_gate"]; ok {
		t.Error("plain FFN has a gate")
	}
	if a := ops["blk.0.ffn_act"]; a.FLOPs != 4*16 || a.Bytes.Activations != (16+16)*2 {
		t.Errorf("plain activation = %+v", a)
	}

	// QK norm and post norms add norm ops over heads and the hidden width.
	n := tiny()
	n.QKNorm, n.PostNorms = true, true
	ops = names(Lower(n, Quant{}, KVFormat{}, decode))
	if o := ops["blk.0.attn_q_norm"]; o.Kind != KindNorm || o.FLOPs != 4*2*4 || o.Bytes.Weights != 4*4 {
		t.Errorf("attn_q_norm = %+v, want 2 heads of 4 normalised, 4 F32 weights", o)
	}
	if o := ops["blk.0.attn_k_norm"]; o.FLOPs != 4*1*4 {
		t.Errorf("attn_k_norm = %+v", o)
	}
	for _, name := range []string{"blk.0.attn_post_norm", "blk.0.ffn_post_norm"} {
		if o := ops[name]; o.Kind != KindNorm || o.Bytes.Weights != 8*4 {
			t.Errorf("%s = %+v", name, o)
		}
	}

	// Shared experts run on every row; routed ones only where picked.
	s := tiny()
	s.MoE = &MoE{Experts: 4, Active: 1, Shared: 2, ExpertFFN: 6, SharedFFN: 12}
	all := Lower(s, Quant{}, KVFormat{}, Work{Phase: Prefill, Tokens: 5, Batch: 2, Seed: 1})
	ops = names(all)
	for _, name := range []string{"blk.0.ffn_up.s0", "blk.0.ffn_up.s1"} {
		if o := ops[name]; o.M != 10 || o.N != 12 || o.Expert != -1 {
			t.Errorf("%s = %+v, want M 10, N 12, expert -1", name, o)
		}
	}
	if o := ops["blk.0.ffn_gate_inp"]; o.Kind != KindRouter || o.N != 4 || o.K != 8 || o.WeightQuant != "F32" || !o.Matrix {
		t.Errorf("router = %+v", o)
	}
	routed := 0
	for _, o := range all {
		if o.Expert >= 0 && o.Kind == KindMatMul && strings.Contains(o.Name, "ffn_up") {
			routed += o.M
			if o.N != 6 {
				t.Errorf("%s N = %d, want expert_ffn 6", o.Name, o.N)
			}
		}
	}
	if routed != 10 {
		t.Errorf("routed rows = %d, want 10 tokens * 1 active", routed)
	}
	// Combine: 10 routed + 2*10 shared expert outputs of 8, a multiply-add each.
	if o := ops["blk.0.ffn_moe_sum"]; o.FLOPs != 2*30*8 {
		t.Errorf("moe sum FLOPs = %v, want %v", o.FLOPs, 2*30*8)
	}
}

func TestLowerEdgeCases(t *testing.T) {
	if ops := Lower(tiny(), Quant{}, KVFormat{}, Work{Phase: Decode, Tokens: 0, Batch: 1}); ops != nil {
		t.Errorf("a pass of 0 tokens has %d ops", len(ops))
	}
	for _, w := range []Work{
		{Phase: Decode, Tokens: 1, Batch: 0},
		{Phase: Decode, Tokens: -1, Batch: 1},
		{Phase: Decode, Tokens: 1, Context: -1, Batch: 1},
		{Phase: Phase(7), Tokens: 1, Batch: 1},
	} {
		if w.Validate() == nil {
			t.Errorf("%+v validates", w)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Lower(%+v) did not panic", w)
				}
			}()
			Lower(tiny(), Quant{}, KVFormat{}, w)
		}()
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Lower of an invalid model did not panic")
			}
		}()
		Lower(Model{Name: "bad"}, Quant{}, KVFormat{}, Work{Tokens: 1, Batch: 1})
	}()
}

func TestStrings(t *testing.T) {
	for got, want := range map[string]string{
		Prefill.String(): "prefill", Decode.String(): "decode",
		Weights.String(): "weights", KVRead.String(): "kv_read", KVWrite.String(): "kv_write", Activations.String(): "activations",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
	tr := Traffic{Weights: 1, KVRead: 2, KVWrite: 4, Activations: 8}
	var s float64
	for _, c := range TensorClasses {
		s += tr.Of(c)
	}
	if s != 15 || tr.Total() != 15 {
		t.Errorf("Traffic sums %v / %v, want 15", s, tr.Total())
	}
}

// TestCompileRemembers: Compile builds a graph once per model figures,
// quantisation and KV format, and hands the same graph to every run of
// them (a sweep's points). A model that differs in any figure, or another
// quantisation, gets its own; a model that differs only in its sources
// shares it; changing the caller's model afterwards leaves the graph as
// built.
func TestCompileRemembers(t *testing.T) {
	m := Model{Name: "remember", Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2, FFN: 128, Vocab: 100, MaxContext: 64,
		MoE: &MoE{Experts: 4, Active: 2}}
	q, kv := mustQuant(t, "Q4_0"), KVFormat{}
	g := Compile(m, q, kv)
	cited := m
	cited.Sources = map[string]string{"layers": "a paper"}
	if Compile(cited, q, kv) != g {
		t.Error("a model differing only in its sources compiled anew")
	}
	wider := m
	wider.Hidden = 128
	if Compile(wider, q, kv) == g || Compile(m, mustQuant(t, "Q8_0"), kv) == g {
		t.Error("a wider model, or another quantisation, got the first model's graph")
	}
	m.MoE.Active = 3 // the caller's MoE, changed in place
	if g.m.MoE.Active != 2 {
		t.Errorf("the remembered graph follows the caller's model: %d active experts, built with 2", g.m.MoE.Active)
	}
	if Compile(m, q, kv) == g {
		t.Error("a model with 3 active experts got the graph built for 2")
	}
}

// TestLowerKept checks that a kept pass is the pass Lower gives, on the
// first call and on every one after, and that lowering other passes into
// a buffer never reaches into what the graph keeps.
func TestLowerKept(t *testing.T) {
	m := tiny()
	m.Layers, m.MoE = 2, &MoE{Experts: 4, Active: 2}
	g := Compile(m, mustQuant(t, "Q4_0"), KVFormat{})
	works := []Work{
		{Phase: Prefill, Tokens: 7, Context: 0, Batch: 1, Seed: 3},
		{Phase: Decode, Tokens: 1, Context: 7, Batch: 1, Seed: 3},
		{Phase: Decode, Tokens: 1, Context: 8, Batch: 2, Seed: 3},
		{Phase: Decode, Tokens: 0, Context: 8, Batch: 1},
	}
	var buf []Op
	for round := range 3 {
		for _, w := range works {
			want := g.Lower(w)
			got, kept := g.LowerKept(buf[:0], w)
			if !(len(got) == 0 && len(want) == 0) && !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d, %+v: LowerKept differs from Lower", round, w)
			}
			if !kept {
				buf = got
			}
			// Another pass lowered into the caller's buffer.
			buf = g.LowerTo(buf[:0], works[0])
			if again, _ := g.LowerKept(nil, w); !(len(again) == 0 && len(want) == 0) && !reflect.DeepEqual(again, want) {
				t.Fatalf("round %d, %+v: the kept pass changed", round, w)
			}
		}
	}
}
