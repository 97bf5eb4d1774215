package pool

import (
	"context"
	"sync/atomic"
	"testing"
)

// TestRun: every index runs once, on at most the workers asked for; once
// the context is done no more are handed out, and Run says how many were.
func TestRun(t *testing.T) {
	var ran [100]atomic.Int32
	var busy, peak atomic.Int32
	if n := Run(context.Background(), 3, len(ran), func(i int) {
		b := busy.Add(1)
		for p := peak.Load(); b > p && !peak.CompareAndSwap(p, b); p = peak.Load() {
		}
		ran[i].Add(1)
		busy.Add(-1)
	}); n != len(ran) {
		t.Errorf("handed out %d of %d", n, len(ran))
	}
	for i := range ran {
		if ran[i].Load() != 1 {
			t.Errorf("index %d ran %d times", i, ran[i].Load())
		}
	}
	if peak.Load() > 3 {
		t.Errorf("%d workers at once, asked for 3", peak.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := Run(ctx, 1, 10, func(i int) {
		if i == 3 {
			cancel()
		}
	})
	if n < 4 || n > 5 {
		t.Errorf("cancelled at index 3, yet %d handed out", n)
	}
}
