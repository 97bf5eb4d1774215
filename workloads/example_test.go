package workloads_test

import (
	"fmt"
	"os"

	"github.com/edgetwin/edgetwin/workloads"
)

// One decode step of a small two-block model at context 99: the operators of
// the first block, then what the whole step touches.
func ExampleLower() {
	m := workloads.Model{Name: "demo", Layers: 2, Hidden: 512, Heads: 8, KVHeads: 2,
		FFN: 1024, Vocab: 1000, MaxContext: 2048}
	if err := m.Validate(); err != nil {
		panic(err)
	}
	q, _ := workloads.ParseQuant("Q4_0")
	kv, _ := workloads.ParseKVFormat("F16")
	w := workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: 99, Batch: 1}
	ops := workloads.Lower(m, q, kv, w)
	for _, op := range ops[:15] {
		fmt.Printf("%-19s %-10s M=%d N=%-4d K=%-4d %7.0f FLOPs %6.0f B weights %5s %s\n",
			op.Name, op.Kind, op.M, op.N, op.K, op.FLOPs, op.Touch(workloads.Weights), op.WeightQuant, op.ActDtype)
	}
	var weights, kvRead, flops float64
	for _, op := range ops {
		weights += op.Touch(workloads.Weights)
		kvRead += op.Touch(workloads.KVRead)
		flops += op.FLOPs
	}
	fmt.Printf("%d ops, %.0f FLOPs, %.0f B of weights (model %.0f B), %.0f B of KV read\n",
		len(ops), flops, weights, m.WeightBytes(q), kvRead)
	// Output:
	// token_embd          embed      M=0 N=0    K=0          0 FLOPs    288 B weights  Q4_0 fp16
	// blk.0.attn_norm     norm       M=0 N=0    K=0       2048 FLOPs   2048 B weights   F32 fp16
	// blk.0.attn_q        matmul     M=1 N=512  K=512   524288 FLOPs 147456 B weights  Q4_0 int8
	// blk.0.attn_k        matmul     M=1 N=128  K=512   131072 FLOPs  36864 B weights  Q4_0 int8
	// blk.0.attn_v        matmul     M=1 N=128  K=512   131072 FLOPs  36864 B weights  Q4_0 int8
	// blk.0.attn_rope     rope       M=0 N=0    K=0       1920 FLOPs      0 B weights       fp16
	// blk.0.attn          attention  M=0 N=0    K=0     204800 FLOPs      0 B weights       fp16
	// blk.0.attn_output   matmul     M=1 N=512  K=512   524288 FLOPs 147456 B weights  Q4_0 int8
	// blk.0.attn_residual residual   M=0 N=0    K=0        512 FLOPs      0 B weights       fp16
	// blk.0.ffn_norm      norm       M=0 N=0    K=0       2048 FLOPs   2048 B weights   F32 fp16
	// blk.0.ffn_gate      matmul     M=1 N=1024 K=512  1048576 FLOPs 294912 B weights  Q4_0 int8
	// blk.0.ffn_up        matmul     M=1 N=1024 K=512  1048576 FLOPs 294912 B weights  Q4_0 int8
	// blk.0.ffn_act       activation M=0 N=0    K=0       5120 FLOPs      0 B weights       fp16
	// blk.0.ffn_down      matmul     M=1 N=512  K=1024 1048576 FLOPs 294912 B weights  Q4_0 int8
	// blk.0.ffn_residual  residual   M=0 N=0    K=0        512 FLOPs      0 B weights       fp16
	// 31 ops, 10372864 FLOPs, 2937280 B of weights (model 3224992 B), 102400 B of KV read
}

// A model compiled once and lowered pass after pass, as a simulation does:
// each decode step reads the same weights and a cache one position longer.
func ExampleCompile() {
	m := workloads.Model{Name: "demo", Layers: 2, Hidden: 512, Heads: 8, KVHeads: 2,
		FFN: 1024, Vocab: 1000, MaxContext: 2048}
	if err := m.Validate(); err != nil {
		panic(err)
	}
	q, _ := workloads.ParseQuant("Q4_0")
	kv, _ := workloads.ParseKVFormat("F16")
	g := workloads.Compile(m, q, kv)
	fmt.Printf("formats %v, %.0f B of weights\n", g.MatrixFormats(), g.WeightBytes())
	for ctx := 99; ctx <= 101; ctx++ {
		var weights, kvRead float64
		for _, op := range g.Lower(workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: ctx, Batch: 1}) {
			weights += op.Touch(workloads.Weights)
			kvRead += op.Touch(workloads.KVRead)
		}
		fmt.Printf("context %d: %.0f B of weights, %.0f B of KV read\n", ctx, weights, kvRead)
	}
	// Output:
	// formats [Q4_0 Q6_K], 3224992 B of weights
	// context 99: 2937280 B of weights, 102400 B of KV read
	// context 100: 2937280 B of weights, 103424 B of KV read
	// context 101: 2937280 B of weights, 104448 B of KV read
}

func ExampleParseQuant() {
	for _, spec := range []string{"q4_0", "INT4@g128", "attn=INT8,ffn=INT4", "Q4_0,attn=Q8_0"} {
		q, err := workloads.ParseQuant(spec)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-20s -> %-16s attn %.4f B/weight, ffn %.4f, output %.4f, activations %s\n", spec, q,
			q.BytesPerWeight(workloads.RoleAttn), q.BytesPerWeight(workloads.RoleFFN),
			q.BytesPerWeight(workloads.RoleOutput), q.ActDtype(workloads.RoleFFN))
	}
	_, err := workloads.ParseQuant("Q9_9")
	fmt.Println(err)
	// Output:
	// q4_0                 -> Q4_0             attn 0.5625 B/weight, ffn 0.5625, output 0.8203, activations int8
	// INT4@g128            -> INT4@g128        attn 0.5156 B/weight, ffn 0.5156, output 0.5156, activations int8
	// attn=INT8,ffn=INT4   -> INT8,ffn=INT4    attn 1.0625 B/weight, ffn 0.5625, output 1.0625, activations int8
	// Q4_0,attn=Q8_0       -> Q4_0,attn=Q8_0   attn 1.0625 B/weight, ffn 0.5625, output 0.8203, activations int8
	// "Q9_9" is not a quantisation: use F16, Q8_0, Q4_0, Q4_K_M, INT8, INT4, W4A16 (also BF16, F32, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS; llama.cpp's file types Q2_K, Q3_K_S, Q3_K_M, Q3_K_L, Q4_K_S, Q4_K_M, Q5_K_S, Q5_K_M, IQ4_NL, IQ4_XS), optionally @gN, or a mix like attn=INT8,ffn=INT4
}

func ExampleParseHFConfig() {
	data, err := os.ReadFile("testdata/llama-2-7b.config.json")
	if err != nil {
		panic(err)
	}
	m, err := workloads.ParseHFConfig("config.json", data)
	if err != nil {
		panic(err)
	}
	q, _ := workloads.ParseQuant("Q4_0")
	fmt.Println(m.Name, m.Params(), "parameters")
	fmt.Printf("Q4_0: %.0f bytes; F16 KV cache: %.0f bytes a token\n", m.WeightBytes(q), m.KVBytesPerToken(workloads.KVFormat{}))

	_, err = workloads.ParseHFConfig("config.json", []byte("{\n  \"model_type\": \"llama\",\n  \"num_hidden_layers\": -3\n}"))
	fmt.Println(err)
	// Output:
	// meta-llama/Llama-2-7b-hf 6738415616 parameters
	// Q4_0: 3825065984 bytes; F16 KV cache: 524288 bytes a token
	// config.json:3: field num_hidden_layers: -3 is not allowed: must be a positive integer
}
