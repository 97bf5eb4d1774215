package sim_test

import (
	"context"
	"fmt"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

// A layer split: the first four blocks of Llama 3.2 1B on the CPU beside
// seed-c's NPU. Each pass opens on the CPU (the embedding goes with block
// 0) and hands the residual stream to the NPU once: 16 prompt rows and
// then one a decoded token, 2048 fp16 values each.
func ExampleRun_layerSplit() {
	chip, _ := hw.LoadChip("seed-c", nil)
	model, _ := workloads.LoadModel("llama-3.2-1b", nil)
	q, _ := workloads.ParseQuant("Q4_0")
	kv, _ := workloads.ParseKVFormat("F16")
	layers, _ := sim.ParseLayers("0-3")
	r, err := sim.Run(context.Background(), sim.Config{
		Chip: chip, Model: model, Quant: q, KV: kv,
		Prompt: 16, Gen: 4, Batch: 1, Fidelity: sim.Analytic, Seed: 1,
		CPULayers: layers,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("blocks on the CPU:", r.CPULayers, "at", r.CPURuntime+"'s figures")
	for _, b := range r.Boundaries {
		fmt.Printf("%s → %s: %d hand-offs, %.0f KiB\n", b.From, b.To, b.Count, b.CopyBytes/1024)
	}
	// Output:
	// blocks on the CPU: 0-3 at llama.cpp-cpu's figures
	// cpu → npu: 5 hand-offs, 80 KiB
}
