package calibrate

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/edgetwin/edgetwin/sim"
)

// TestDecodeFollowsThreads runs the shipped llama.cpp-cpu profile on the
// public thread rows (Llama-2-7B decode on the Pi 5 at 1/2 threads, the
// M2 Ultra at 1/8 and the OnePlus 12's 8 Gen 3 at 1/2/3; T-MAC's profiling
// data and issue 32) and holds each within 15% of what was measured: one
// profile, its GEMV share by core design and its barrier per thread, for
// every chip and thread count.
func TestDecodeFollowsThreads(t *testing.T) {
	t.Chdir("..")
	recs, _, err := ReadFile(publicRecords)
	if err != nil {
		t.Fatal(err)
	}
	var rows []Record
	for _, r := range recs {
		if r.Runtime == "llama.cpp-cpu" && r.Model == "llama-2-7b" && r.Kind == KindDecode {
			rows = append(rows, r)
		}
	}
	// The rows the issue names: chip → the thread counts it was measured at.
	want := map[string][]int{"raspberry-pi-5": {1, 2}, "apple-m2-ultra": {1, 8}, "snapdragon-8-gen3": {1, 2, 3}}
	for soc, threads := range want {
		for _, n := range threads {
			if !slices.ContainsFunc(rows, func(r Record) bool { return r.SoC == soc && r.Threads == n }) {
				t.Errorf("%s has no Llama-2-7B llama.cpp-cpu decode row of %s at %d threads", publicRecords, soc, n)
			}
		}
	}
	pred, err := NewPredictor(sim.Analytic).Predict(context.Background(), rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		e := pred[i]/r.Value - 1
		line := fmt.Sprintf("%s %s %d threads: %.3g tokens/s, measured %.3g (%+.1f%%)", r.SoC, r.Quant, r.Threads, pred[i], r.Value, 100*e)
		if math.Abs(e) > 0.15 {
			t.Error(line)
			continue
		}
		t.Log(line)
	}
	// The 8 Gen 3's second thread adds 0.6 tokens/s and its third 1.67:
	// no per-core rate that only grows with threads fits both, so the fit
	// leaves its two-thread row fast and its three-thread row slow.
	t.Log("snapdragon-8-gen3: 1→2 threads add less than 2→3 in the measurements; no monotone per-core rate fits both steps")
}
