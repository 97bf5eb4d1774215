package sim

import (
	"context"
	"testing"

	"github.com/edgetwin/edgetwin/workloads"
)

// TestLayerReplay holds the layer replay to looking every layer up: on
// prompts whose spills are far longer than the L3 (the 8 Gen 3's 6 MiB
// and a 7B model's 512-token prompt, the sustained session's), near it
// (the Orin Nano's 4 MiB, a 288-token prompt of the hub's serve), and
// within it (the M2 Max's 48 MiB), every figure a user reads agrees within
// 0.1% (a rate within 0.001), and the replay is taken where the layers
// enter alike.
func TestLayerReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("full prefills of 7B models, every layer looked up")
	}
	for _, c := range []struct {
		o       opts
		replays bool // the replay applies: the layers enter with the L3 alike
	}{
		{opts{chip: "snapdragon-8-gen3", model: "llama-2-7b", prompt: 512, gen: 4}, true},
		{opts{chip: "jetson-orin-nano", model: "llama-3.2-3b", prompt: 288, gen: 4}, true},
		{opts{chip: "apple-a17-pro", model: "llama-3.2-3b", prompt: 300, gen: 4}, false}, // spills within the L3: each layer enters holding the KV of the one before
		{opts{chip: "apple-m2-max", model: "llama-2-7b", prompt: 512, gen: 4}, false},
		{opts{chip: "rk3588", model: "llama-3.2-1b", prompt: 128, gen: 4}, false},
		{opts{chip: "seed-c", model: "seed-moe-3b", prompt: 64, gen: 4}, false}, // routing differs layer to layer
	} {
		name := c.o.chip + " " + c.o.model
		run := func(exact Shortcuts) *Result {
			cfg := configFor(t, c.o)
			cfg.Fidelity, cfg.Exact = Tile, exact
			r, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		if err := agree(run(Shortcuts{}), run(Shortcuts{LayerReplay: true}), 0.001); err != nil {
			t.Errorf("%s: layers replayed and looked up: %v", name, err)
		}
		got := layersReplayed(t, c.o)
		t.Logf("%s, a %d-token prompt: %d layers replayed", name, c.o.prompt, got)
		if got > 0 != c.replays {
			t.Errorf("%s: %d layers of the prompt replayed; want some: %v", name, got, c.replays)
		}
	}
}

// layersReplayed is how many layers of the first prefill of o replay the
// layer before.
func layersReplayed(t *testing.T, o opts) int {
	cfg := configFor(t, o)
	cfg.Fidelity = Tile
	e := engineFor(t, cfg)
	e.work = workloads.Work{Phase: workloads.Prefill, Tokens: o.prompt, Batch: 1}
	ops := workloads.Lower(cfg.Model.Model, cfg.Quant, cfg.KV, e.work)
	plans := e.plan(ops)
	e.beginLayers(ops, plans)
	e.exec.run(ops, plans)
	e.endLayers()
	return e.layers.replayed
}
