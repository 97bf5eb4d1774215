// Package workloads describes what runs on the chip: decoder-only
// transformer models, weight quantisations with their true storage cost,
// KV-cache formats, and Lower, which turns one inference pass into operators
// with shapes, FLOPs and the bytes of each tensor class they touch. It has no
// clock and no event loop; timing is the simulator's job.
//
// # Models
//
// A Model is a transformer's shape: layers, hidden width, query and KV heads
// (GQA when fewer KV heads), head dimension, FFN width and kind, vocabulary,
// tied embeddings, trained context and an optional MoE. Catalog models ship
// as YAML in ModelFiles (models/<id>.yaml, every figure with a source);
// ParseHFConfig reads a Hugging Face config.json instead: the llama,
// mistral/mixtral, qwen2/qwen3 (and MoE), gemma 1-3, phi and phi3, stablelm,
// starcoder2, gpt_neox, granite, olmo2 and olmoe, internlm2, smollm3, exaone
// and chatglm model_types, and gemma3's language model nested under text_config (its
// doc comment lists them and what is approximated). Validate before use:
//
//	m, err := workloads.ParseHFConfig("config.json", data)
//	if err != nil { ... }              // "config.json:5: field num_hidden_layers: ..."
//	m.Params()                         // 6738415616 for Llama 2 7B, as llama-bench says
//	m.KVBytesPerToken(workloads.KVFormat{}) // F16 cache: 2*32*32*128*2 = 524288
//
// # Quantisation
//
// ParseQuant reads "Q4_0", "Q8_0", "F16" (GGUF storage: 18 and 34 bytes per
// block of 32, 2 bytes a weight), the other GGUF block formats (Q4_1, Q5_0,
// Q5_1, IQ4_NL per 32; Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS per 256, at 84,
// 110, 144, 176, 210 and 136 bytes), "INT8", "INT4", "W4A16" (bits/8 plus
// one fp16 scale per group: "INT4@g128" is 0.5 + 2/128 bytes a weight), per
// role mixes ("Q4_0,attn=Q8_0", "attn=INT8,ffn=INT4") and llama.cpp's file
// types: Q4_K_M, Q4_K_S, Q5_K_M, Q5_K_S, Q3_K_S, Q3_K_M, Q3_K_L, Q2_K, IQ4_NL
// and IQ4_XS, also by llama.cpp's names ("Q4_K - Medium"), alone or with role
// overrides ("Q4_K_M,attn=Q8_0"). Model.WeightBytes is the stored size the
// way llama.cpp stores it: norms and biases in F32, the router in F32, and
// for every GGUF block default but Q8_0 the output matrix in Q6_K — which
// makes Llama 2 7B Q4_0 exactly llama-bench's 3825065984 bytes. (llama-
// quantize keeps output.weight at Q8_0 for Q8_0 models, and conversion
// keeps F16 as F16.) A file type picks each tensor's format by name and
// layer as llama-quantize's llama_tensor_get_type does: Q4_K_M stores attn_v
// and ffn_down at Q6_K in the layers use_more_bits picks (16 of Llama 2 7B's
// 32), and 8-expert models keep attn_v and attn_k at Q8_0 under every block
// format; Llama 2 7B Q4_K_M is 4080263168 bytes, 0.018% under llama-bench's
// 4081004544. A tied embedding is one tensor stored as the output role
// says. A block format whose block does not divide a row falls back (Q4_K to
// Q5_0, Q5_K to Q5_1, Q6_K to Q8_0, Q2_K, Q3_K and IQ4_XS to IQ4_NL, then
// F16), as llama-quantize does. Model.Tensors lists every tensor with its
// final format and bytes; Model.MatrixFormats the formats a unit's matrix
// kernels must read.
//
// Quant.ActDtype gives the activation type a role's matmuls take: int8 for
// the GGUF block formats, INT8 and INT4; fp16 for F16 and W4A16. The
// simulator then picks the unit's best supported dtype at or above it.
//
// # Lowering
//
// Lower(m, q, kv, Work{...}) lists one pass's operators in execution order.
// Work gives the phase, the new tokens per sequence (Tokens), the tokens
// already cached (Context), the number of sequences (Batch) and the seed of
// MoE routing. Every matmul is [M x K] activations times [K x N] weights with
// M = Tokens*Batch, costs 2*M*N*K FLOPs and reads its whole weight tensor
// once per pass, whatever M is (whether it stays on chip between rows is the
// simulator's business). The operators:
//
//	token_embd            embed: reads only the M embedding rows, M*hidden at the embed format
//	per block il:
//	blk.il.attn_norm      norm (RMSNorm)
//	blk.il.attn_q/k/v     matmul K=hidden, N=heads*head_dim or kv_heads*head_dim (+ F32 bias)
//	blk.il.attn_q/k_norm  norm per head (qk_norm models only)
//	blk.il.attn_rope      rope over q and k
//	blk.il.attn           attention, see below
//	blk.il.attn_output    matmul K=heads*head_dim, N=hidden
//	blk.il.attn_post_norm norm (post_norms models only)
//	blk.il.attn_residual  residual add
//	blk.il.ffn_norm       norm
//	dense:  blk.il.ffn_gate, ffn_up (N=ffn), ffn_act, ffn_down (K=ffn); plain FFNs have no gate
//	MoE:    blk.il.ffn_gate_inp (router, N=experts), then for each expert e
//	        picked by at least one row, ffn_gate.e<e>, ffn_up.e<e>, ffn_act.e<e>,
//	        ffn_down.e<e> with M = the rows routed to e; shared experts
//	        (.s0, .s1, ...) on all M rows; ffn_moe_sum combines the outputs
//	blk.il.ffn_post_norm  norm (post_norms models only)
//	blk.il.ffn_residual   residual add
//	output_norm, output   final norm and logits matmul (N=vocab) on the last
//	                      token of each sequence in prefill (M = Batch, as llama.cpp),
//	                      on every new token in decode
//
// Attention for a sequence with C cached tokens and N new ones is causal:
// new token i attends to C+i positions, so FLOPs = 4*heads*head_dim*sum over
// i=1..N of (C+i) (a QK dot and a PV accumulate per position and head). It
// writes the new tokens' K and V (KVWrite = 2*kv_heads*head_dim*N*bytes per
// element) and reads the K and V of all C+N positions once (KVRead =
// 2*kv_heads*head_dim*(C+N)*bytes per element); both times Batch. A decode
// step at context L thus reads L+1 positions. MoE routing draws each row's
// top-k experts uniformly (no load imbalance) from a PRNG seeded by (Seed,
// layer, Context): deterministic, and a batch-1 decode step reads exactly
// moe.active experts a layer. Route exposes the draw.
//
// Bytes: Weights is the stored size of what the op reads (so summed over a
// decode step it is WeightBytes minus the embedding table plus the rows
// read); KVRead and KVWrite are in the KV format; Activations counts every
// element read and written at 2 bytes (fp16) — for a matmul M*K in plus M*N
// out, for elementwise ops all inputs plus the output, for attention q, the
// new k and v, and the output. Vector ops are charged conventional FLOPs per
// element (norm 4, rope 3, activation 4 plus 1 for the gate, add 1; the MoE
// combine 2 per expert output element); they are memory-bound and matter
// little. Known simplifications: llama.cpp also skips the last block's FFN
// for prompt rows whose logits are not needed, which Lower does not model;
// Qwen2-MoE's shared-expert gate (hidden weights a layer) and sliding-window
// attention are left out.
//
// A zero Quant and a zero KVFormat are F16. Lower panics on a model or work
// that does not validate; data errors are returned by the parsers.
package workloads
