package calibrate

import (
	"context"
	"testing"

	"github.com/edgetwin/edgetwin/sim"
)

// TestDepthRecords: llama-bench's "pp512 @ d4096" and "tg128 @ d4096"
// rows are predicted after their context: slower than at depth 0, each
// new token attending to 4096 more positions.
func TestDepthRecords(t *testing.T) {
	pr := NewPredictor(sim.Analytic)
	rate := func(kind Kind, depth int) float64 {
		t.Helper()
		r := Record{Kind: kind, SoC: "apple-m2-max", Model: "llama-2-7b", Quant: "Q4_0", Unit: UnitTokensPerSecond, Value: 1, Source: "synthetic"}
		r.Shape = Shape{Prompt: 512, Depth: depth, Batch: 1}
		if kind == KindDecode {
			r.Shape = Shape{Gen: 128, Depth: depth, Batch: 1}
		}
		if ok, why := Predictable(r); !ok {
			t.Fatalf("%s at depth %d: %s", kind, depth, why)
		}
		_, v, err := pr.figure(context.Background(), r, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	pp, tg := rate(KindPrefill, 4096)/rate(KindPrefill, 0), rate(KindDecode, 4096)/rate(KindDecode, 0)
	if !(pp < 1 && tg < 1) {
		t.Errorf("at depth 4096 / at 0: prefill %.3f, decode %.3f; want both below 1", pp, tg)
	}
	t.Logf("at depth 4096 / at 0: prefill %.3f, decode %.3f", pp, tg)
}
