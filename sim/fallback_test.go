package sim

import "testing"

// TestFallbackAttentionReadsKV: attention moved to the CPU still reads the
// whole KV cache, now through the CPU's side of the fabric, and hands its
// activations back and forth; at an 8K context that cannot make decode
// faster than attention on the NPU (before, the fallback read no KV and
// decode went from 34.3 to 40.9 tokens/s), nor move fewer DRAM bytes.
func TestFallbackAttentionReadsKV(t *testing.T) {
	noAttention := "units.npu.ops=[embed,norm,matmul,rope,activation,residual,router]"
	for _, f := range []Fidelity{Analytic, Tile} {
		npu := simulate(t, opts{chip: "seed-c", model: "llama-3.2-1b", prompt: 8192, gen: 8, fidelity: f})
		cpu := simulate(t, opts{chip: "seed-c", model: "llama-3.2-1b", prompt: 8192, gen: 8, fidelity: f, sets: []string{noAttention}})
		if len(cpu.Fallbacks) == 0 {
			t.Fatalf("%s: attention did not fall back", f)
		}
		if *cpu.Decode.TokensPerS >= *npu.Decode.TokensPerS {
			t.Errorf("%s: decode %.1f tokens/s with attention on the CPU, %.1f on the NPU", f, *cpu.Decode.TokensPerS, *npu.Decode.TokensPerS)
		}
		if cpu.Memory.DRAMBytes < 0.99*npu.Memory.DRAMBytes {
			t.Errorf("%s: %.3g DRAM bytes with attention on the CPU, %.3g on the NPU: the KV cache went unread", f, cpu.Memory.DRAMBytes, npu.Memory.DRAMBytes)
		}
	}
}
