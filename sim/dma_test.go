package sim

import (
	"math"
	"testing"

	"github.com/edgetwin/edgetwin/sim/des"
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
// s with s + l + c ≤ t costs a decode nothing — l is the DRAM's 110 ns
// (assumed) load-to-use latency, which the next request waits out after
// its set-up — and a longer one shows; the analytic estimate agrees with
// the event simulation at each. A latency past the slack shows the same
// way with no set-up at all. (With the link shared fairly between the two
// buffers' transfers they finished together and paid their set-ups
// together: 312 ns cost this decode 18%.)
func TestDoubleBufferingHidesSetup(t *testing.T) {
	step := func(fid Fidelity, sets ...string) float64 {
		r := simulate(t, opts{chipSrc: bigGPU, model: "llama-3.2-1b", quant: "F16", gen: 2, fidelity: fid, sets: sets})
		return r.Decode.Seconds
	}
	base := step(Tile, "dma.setup=0")
	for _, c := range []struct {
		set    string
		hidden bool
	}{
		{"dma.setup=100ns", true},  // 100 + 110 + 660 = 870 ns ≤ 940
		{"dma.setup=150ns", true},  // 920 ns
		{"dma.setup=250ns", false}, // 1020 ns
		{"dma.setup=400ns", false},
		{"dma.setup=3us", false},
		{"memory.dram.latency=400ns", false}, // no set-up: 0 + 400 + 660 > 940
	} {
		sets := []string{c.set}
		if c.set[0] == 'm' {
			sets = append(sets, "dma.setup=0")
		}
		tile, ana := step(Tile, sets...), step(Analytic, sets...)
		if slower := tile/base - 1; (slower < 0.005) != c.hidden {
			t.Errorf("%s: decode %.1f%% slower than with none; want hidden %v", c.set, 100*slower, c.hidden)
		}
		if d := math.Abs(ana/tile - 1); d > 0.01 {
			t.Errorf("%s: analytic %.4f s, tile %.4f s: %.1f%% apart", c.set, ana, tile, 100*d)
		}
	}
}

// TestDMAQueue times descriptors through the queue by hand, on links of
// 1 GB/s (DRAM) and 2 GB/s (L3) with a 500 ns set-up: 1000 bytes take
// 1 µs over DRAM. Each row lists when each descriptor reports done.
func TestDMAQueue(t *testing.T) {
	type desc struct{ dram, l3 float64 }
	for _, c := range []struct {
		name     string
		channels int
		latency  float64 // DRAM's, seconds; the L3's is a quarter of it
		descs    []desc
		want     []float64 // µs
	}{
		// One channel: the second descriptor's set-up waits for the
		// channel, which the first frees when its transfer lands.
		{"one channel serialises set-ups", 1, 0, []desc{{1000, 0}, {1000, 0}}, []float64{1.5, 3}},
		// Two channels set up together; the transfers then take the DRAM
		// link one at a time, in order: the second hides its set-up.
		{"two channels hide the second set-up", 2, 0, []desc{{1000, 0}, {1000, 0}}, []float64{1.5, 2.5}},
		// In order, not shared: a small transfer queued behind a large
		// one lands after it, at the large one's end plus its own time.
		{"in order on the link", 2, 0, []desc{{3000, 0}, {500, 0}}, []float64{3.5, 4}},
		// DRAM and L3 parts move on their own links at once: done when
		// the slower lands (1 µs over DRAM, 1.5 µs for 3000 B of L3).
		{"parts on both links", 1, 0, []desc{{1000, 3000}}, []float64{2}},
		// Nothing to move: done once set up.
		{"empty descriptor", 1, 0, []desc{{0, 0}}, []float64{0.5}},
		// A 200 ns load-to-use latency shows on an idle link (0.5 µs
		// set-up + 0.2 + 1) ...
		{"latency on an idle link", 1, 200e-9, []desc{{1000, 0}}, []float64{1.7}},
		// ... and hides behind a busy one: the second transfer's first
		// bytes are ready at 0.7 µs, long before the link frees at 1.7.
		{"latency behind a busy link", 2, 200e-9, []desc{{1000, 0}, {1000, 0}}, []float64{1.7, 2.7}},
		// Each link has its own: 0.5 + 0.05 + 1.5 µs for the L3 part.
		{"latency per link", 1, 200e-9, []desc{{1000, 3000}}, []float64{2.05}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := des.New()
			q := newDMAQueue(s, des.NewLink(s, "dram", 1e9), des.NewLink(s, "l3", 2e9), c.latency, c.latency/4, c.channels, 500e-9)
			got := make([]float64, len(c.descs))
			for i, d := range c.descs {
				q.submit(d.dram+d.l3, d.dram, d.l3, func() { got[i] = s.Now().Seconds() * 1e6 })
			}
			s.Run()
			for i := range c.want {
				if d := got[i] - c.want[i]; d > 1e-6 || d < -1e-6 {
					t.Errorf("descriptor %d done at %.4f µs, want %.4f", i, got[i], c.want[i])
				}
			}
			if len(q.free) != c.channels || len(q.waiting) != 0 {
				t.Errorf("after the run: %d channels free of %d, %d waiting", len(q.free), c.channels, len(q.waiting))
			}
		})
	}
}
