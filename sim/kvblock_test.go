package sim

import (
	"strconv"
	"testing"

	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/workloads"
)

// paged is the catalog's mlc with its KV cache paged in blocks of n tokens.
func paged(t *testing.T, n int) *runtimes.Profile {
	t.Helper()
	src, _ := runtimes.Source("mlc")
	p, err := runtimes.Decode("mlc-paged.yaml", append(src, []byte("kv_block: "+strconv.Itoa(n)+"\n")...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPagedKVCache: a KV cache paged in blocks of 16 tokens holds the
// context in whole blocks — 100 prompt tokens and 1 decoded, 101, in 7
// blocks of 16, 112 tokens' worth — and attention reads it block by block,
// a DRAM row opened per block: the smaller the block, the slower a long
// context decodes, and a contiguous cache is the fastest.
func TestPagedKVCache(t *testing.T) {
	o := opts{chip: "snapdragon-8-gen3", model: "llama-3.2-1b", quant: "W4A16", prompt: 100, gen: 1, fidelity: Analytic, runtime: runtimes.MustLoad("mlc")}
	contiguous := simulate(t, o)
	o.runtime = paged(t, 16)
	r := simulate(t, o)
	m := configFor(t, o).Model
	if got, want := r.Memory.KVBytes, 112*m.KVBytesPerToken(r0KV(t)); got != want {
		t.Errorf("paged KV cache of %g bytes, want 112 tokens' %g (contiguous: %g)", got, want, contiguous.Memory.KVBytes)
	}
	if r.KVBlock != 16 {
		t.Errorf("kv_block %d in the result, want 16", r.KVBlock)
	}
	o.prompt, o.gen = 8192, 16
	step := func(p *runtimes.Profile) float64 {
		o.runtime = p
		return simulate(t, o).Decode.Seconds
	}
	whole, b64, b16, b1 := step(runtimes.MustLoad("mlc")), step(paged(t, 64)), step(paged(t, 16)), step(paged(t, 1))
	if !(whole <= b64 && b64 <= b16 && b16 < b1) {
		t.Errorf("decode at 8K context: contiguous %.5f s, blocks of 64 %.5f, 16 %.5f, 1 %.5f: want slower as the blocks shrink", whole, b64, b16, b1)
	}
}

func r0KV(t *testing.T) workloads.KVFormat {
	t.Helper()
	kv, err := workloads.ParseKVFormat("F16")
	if err != nil {
		t.Fatal(err)
	}
	return kv
}
