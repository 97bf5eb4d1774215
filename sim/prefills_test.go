package sim

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/edgetwin/edgetwin/workloads"
)

// TestFirstPrefills: runs that share their first prefills' L3 outcomes
// (FirstPrefills) give the results of runs that look every block up,
// byte for byte as JSON: a baseline, reruns with a timing figure changed
// (which replay its first prefill) and one with another L3 (which does
// not), and sustained sessions, whose later prefills replay the shared
// recording too.
func TestFirstPrefills(t *testing.T) {
	if testing.Short() {
		t.Skip("ten tile runs")
	}
	shared := new(FirstPrefills)
	for _, c := range []struct {
		name      string
		sets      []string
		sustained bool
	}{
		{"baseline", nil, false},
		{"DRAM random penalty", []string{"memory.dram.random_penalty=3"}, false},
		{"DMA set-up", []string{"dma.setup=2us"}, false},
		{"GPU peak", []string{"units.gpu.peak.fp16=8TFLOPS"}, false},
		{"L3 size", []string{"memory.l3.size=12MiB"}, false},
		{"sustained", nil, true},
		{"sustained, skin limit", []string{"governor.skin.limit=30C"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(prefills *FirstPrefills) []byte {
				cfg := configFor(t, opts{chip: "snapdragon-8-gen3", unit: "gpu", prompt: 512, gen: 8, sets: c.sets})
				if c.sustained {
					cfg.Scenario = &workloads.Scenario{Name: "short", Kind: workloads.Sustained, Duration: 30, Prompt: 512, ContextLimit: 640}
				}
				cfg.Prefills = prefills
				r, err := Run(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				b, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			alone := run(nil)
			before := len(shared.seen)
			if got := run(shared); string(got) != string(alone) {
				t.Errorf("sharing first prefills (%d shared before) changed the result:\n%s\nalone:\n%s", before, got, alone)
			}
		})
	}
	// The baseline, the L3-size rerun and the first session (whose KV
	// cache, sized for its context limit, lies elsewhere) record; the
	// others replay.
	if n := len(shared.seen); n != 3 {
		t.Errorf("%d first prefills recorded, want 3", n)
	}
}
