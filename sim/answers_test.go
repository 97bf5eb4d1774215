// Tests of answers that once misled (issue 17): each fails on the code
// before its fix.
package sim

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/workloads"
)

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

// TestScenarioThatDoesNotFitSaysHowToCap: a sustained session decodes to
// the model's trained context (131K for Llama 3.2), which no 12 GiB phone
// holds beside a 3B model; the error says so and names a context_limit
// that fits, and with it the session runs.
func TestScenarioThatDoesNotFitSaysHowToCap(t *testing.T) {
	sc, err := workloads.LoadScenario("sustained", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, opts{chip: "snapdragon-8-gen3", model: "llama-3.2-3b", fidelity: Analytic})
	cfg.Scenario, cfg.Duration = sc, 5
	_, err = Run(context.Background(), cfg)
	m := regexp.MustCompile(`cap it with scenario\.context_limit=(\d+), which fits`).FindStringSubmatch(fmt.Sprint(err))
	if m == nil || !strings.Contains(err.Error(), "grows to 131072 tokens") {
		t.Fatalf("got %v, want the context it grows to and a limit that fits", err)
	}
	limit, _ := strconv.Atoi(m[1])
	capped := *sc
	capped.ContextLimit = limit
	cfg = configFor(t, opts{chip: "snapdragon-8-gen3", model: "llama-3.2-3b", fidelity: Analytic})
	cfg.Scenario, cfg.Duration = &capped, 5
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Errorf("with context_limit=%d: %v", limit, err)
	}
}
