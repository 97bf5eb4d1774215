package sim

import (
	"testing"

	"github.com/edgetwin/edgetwin/workloads"
)

// TestSkippableFrom: the run of tiles a leap may skip that skippableFrom
// counts from an operator's spans whole is the run the tiles cut one by
// one give, from every tile of every operator of a decode step and of a
// prefill whose spills scan (so some tiles empty ways and some look up).
func TestSkippableFrom(t *testing.T) {
	for _, c := range []struct {
		name string
		o    opts
		w    workloads.Work
	}{
		{"phone decode", opts{chip: "snapdragon-8-gen3", unit: "gpu"}, workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: 3000, Batch: 1}},
		{"phone prefill", opts{chip: "snapdragon-8-gen3", unit: "gpu"}, workloads.Work{Phase: workloads.Prefill, Tokens: 512, Batch: 1}},
		{"MoE decode", opts{chip: "seed-c", model: "seed-moe-3b", sets: []string{"memory.l3.size=24MiB"}}, workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: 200, Batch: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := configFor(t, c.o)
			e := engineFor(t, cfg)
			e.work = c.w
			e.scanBypass(c.w)
			ops := workloads.Lower(cfg.Model.Model, cfg.Quant, cfg.KV, c.w)
			var scans, checked int
			for _, p := range e.plan(ops) {
				if p.on != nil {
					continue
				}
				if p.spillScan.lo < p.spillScan.hi {
					scans++
				}
				// Tile by tile, from the last: the run from i is 0 or 1 + the run from i+1.
				run := 0
				for i := p.tiles - 1; i >= 0; i-- {
					tile := streamTile{tile: tile{spans: e.tileSpans(nil, &p, i)}}
					if e.skippable(&tile) {
						run++
					} else {
						run = 0
					}
					if got := e.skippableFrom(&p, i); got != run {
						t.Fatalf("operator of %d tiles, spill scan %v: %d skippable from tile %d, want %d", p.tiles, p.spillScan, got, i, run)
					}
					checked++
				}
			}
			t.Logf("%d tiles checked, %d operators with a spill scan", checked, scans)
		})
	}
}
