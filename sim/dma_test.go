package sim

import (
	"math"
	"testing"
)

// bigGPU is a datasheet-level chip with an M1 Max's bandwidth and GPU. A
// decode streams 256 KiB tiles: each takes t = 256 KiB / (400 GB/s × 0.7
// assumed sequential efficiency) = 0.94 µs to arrive and c = 256 KiB /
// 400 GB/s (the GPU's assumed SRAM bandwidth) = 0.66 µs to compute.
const bigGPU = `name: big GPU
memory:
  dram: {type: LPDDR5, bandwidth: 400 GB/s, capacity: 64 GiB}
units:
  - {name: gpu, kind: gpu, peak: {fp16: 10.4 TFLOPS, fp32: 10.4 TFLOPS}}
`

// TestDoubleBufferingHidesSetup: with two buffers, the transfer of one
// tile hides the set-up of the next while the unit computes, so a set-up
// s with s + c ≤ t costs a decode nothing, and a longer one shows; the
// analytic estimate agrees with the event simulation at each. (With the link shared fairly between the two
// buffers' transfers they finished together and paid their set-ups
// together: 312 ns cost this decode 18%.)
func TestDoubleBufferingHidesSetup(t *testing.T) {
	step := func(setup string, fid Fidelity) float64 {
		r := simulate(t, opts{chipSrc: bigGPU, model: "llama-3.2-1b", quant: "F16", gen: 2, fidelity: fid, sets: []string{"dma.setup=" + setup}})
		return r.Decode.Seconds
	}
	base := step("0", Tile)
	for _, c := range []struct {
		setup  string
		hidden bool
	}{{"100ns", true}, {"250ns", true}, {"400ns", false}, {"3us", false}} {
		tile, ana := step(c.setup, Tile), step(c.setup, Analytic)
		if slower := tile/base - 1; (slower < 0.005) != c.hidden {
			t.Errorf("set-up %s: decode %.1f%% slower than with none; want hidden %v", c.setup, 100*slower, c.hidden)
		}
		if d := math.Abs(ana/tile - 1); d > 0.01 {
			t.Errorf("set-up %s: analytic %.4f s, tile %.4f s: %.1f%% apart", c.setup, ana, tile, 100*d)
		}
	}
}
