package workloads

import (
	"math"
	"testing"
)

// TestAttended holds the sliding window's positions to hand counts.
func TestAttended(t *testing.T) {
	for _, c := range []struct {
		name             string
		n, ctx, win      int
		positions, reads float64
	}{
		// No window, or one the pass stays inside: n·c + n(n+1)/2.
		{"prompt of 512", 512, 0, 0, 512 * 513 / 2, 512},
		{"inside the window", 512, 0, 4096, 512 * 513 / 2, 512},
		// A decode step past the window attends to the window only.
		{"decode past the window", 1, 5000, 4096, 4096, 4096},
		// Ten tokens crossing it at 4090: 4091 … 4096 for the first six,
		// 4096 for the last four; the cache read spans 4090 + 10 tokens.
		{"crossing the window", 10, 4090, 4096, 6*4091 + 15 + 4*4096, 4100},
		// A long pass past the window reads the window and its own span.
		{"prefill after the window", 100, 8000, 1024, 100 * 1024, 1123},
	} {
		p, r := attended(c.n, c.ctx, c.win)
		if p != c.positions || r != c.reads {
			t.Errorf("%s: %g positions, %g read; want %g, %g", c.name, p, r, c.positions, c.reads)
		}
	}
}

// TestSlidingWindowFromConfig: Gemma 2 alternates windowed (4096) and
// global layers, so at 8192 tokens its KV cache is three quarters of a
// full one; Gemma 3 1B keeps one global layer in six at a window of 512;
// Qwen2.5's config names a window it does not use.
func TestSlidingWindowFromConfig(t *testing.T) {
	kv, _ := ParseKVFormat("F16")
	for _, c := range []struct {
		file        string
		window, gl  int
		share8k     float64 // KV at 8192 tokens over a full-attention cache's
		firstGlobal int     // first layer that attends to everything (-1: none windowed)
	}{
		{"gemma-2-2b.config.json", 4096, 2, 0.75, 1},
		{"gemma-3-1b-it.config.json", 512, 6, (22*512.0/8192 + 4) / 26, 5},
		{"qwen2.5-7b.config.json", 0, 0, 1, -1},
	} {
		m, err := ParseHFConfig(c.file, readTestdata(t, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if m.SlidingWindow != c.window || m.GlobalEvery != c.gl {
			t.Errorf("%s: window %d every %d, want %d every %d", c.file, m.SlidingWindow, m.GlobalEvery, c.window, c.gl)
		}
		if got := m.KVBytes(kv, 8192) / (m.KVBytesPerToken(kv) * 8192); math.Abs(got-c.share8k) > 1e-12 {
			t.Errorf("%s: KV at 8192 tokens is %.4f of a full cache, want %.4f", c.file, got, c.share8k)
		}
		if c.firstGlobal >= 0 && (m.Window(c.firstGlobal) != 0 || m.Window(0) != c.window) {
			t.Errorf("%s: layer 0 window %d, layer %d window %d", c.file, m.Window(0), c.firstGlobal, m.Window(c.firstGlobal))
		}
	}
}
