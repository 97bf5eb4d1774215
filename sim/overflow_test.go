package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// TestTimeOverflowIsInputError: a chip whose figures (set past the load
// bounds, as a program may) make a run longer than simulated time holds is
// refused with a located input error naming the figure, never printed with
// a saturated time. 100 B/s once gave a 9.2e6 s prefill and a decode of
// 90,840 tokens/s, exit 0.
func TestTimeOverflowIsInputError(t *testing.T) {
	for _, fid := range []Fidelity{Tile, Analytic} {
		for _, tc := range []struct {
			name string
			bend func(*Config)
			want []string
		}{
			{"dram bandwidth", func(c *Config) { c.Chip.Memory.DRAM.Bandwidth = 100 }, []string{"memory.dram.bandwidth", "waiting for memory", "int64 picoseconds"}},
			{"peak", func(c *Config) {
				u := c.Chip.Unit("npu")
				for k := range u.Peak {
					u.Peak[k] = 1e-3
				}
			}, []string{"units.npu.peak", "computing"}},
		} {
			t.Run(string(fid)+" "+tc.name, func(t *testing.T) {
				cfg, err := buildConfig(opts{chip: "seed-c", unit: "npu", quant: "INT8", prompt: 64, gen: 4, fidelity: fid})
				if err != nil {
					t.Fatal(err)
				}
				tc.bend(&cfg)
				r, err := Run(t.Context(), cfg)
				if err == nil {
					t.Fatalf("ran: prefill %v s, decode %v s", r.Prefill.Seconds, r.Decode.Seconds)
				}
				t.Log(err)
				if !IsTimeOverflow(err) {
					t.Error("IsTimeOverflow does not recognise it")
				}
				if !spec.IsSpecError(err) {
					t.Errorf("error %T is not a *spec.Error: %v", err, err)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("message %q lacks %q", err, w)
					}
				}
			})
		}
	}
}

// TestCheckFinite: a result with a NaN or an infinity anywhere is refused
// with the JSON path of the number.
func TestCheckFinite(t *testing.T) {
	r := &Result{}
	if err := checkFinite(r, "c.yaml"); err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	r.Decode.TokensPerS = &inf
	err := checkFinite(r, "c.yaml")
	if err == nil || !spec.IsSpecError(err) || !strings.Contains(err.Error(), "decode.tokens_per_s") {
		t.Errorf("got %v, want a spec.Error naming decode.tokens_per_s", err)
	}
}
