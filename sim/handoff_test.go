package sim

import (
	"context"
	"maps"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/runtimes"
)

// splitRun runs llama-2-7b (32 blocks of 4096) on the minimal chip's NPU,
// prompt 32 and 4 tokens decoded, with blocks on the CPU.
func splitRun(t *testing.T, layers string, fidelity Fidelity) (*Result, Config) {
	t.Helper()
	cfg := configFor(t, opts{chipSrc: minimalChip, prompt: 32, gen: 4, fidelity: fidelity})
	l, err := ParseLayers(layers)
	if err != nil {
		t.Fatal(err)
	}
	cfg.CPULayers = l
	return resolvedRun(t, cfg)
}

// resolvedRun resolves cfg as simulate does and runs it, returning the
// result and the resolved config.
func resolvedRun(t *testing.T, cfg Config) (*Result, Config) {
	t.Helper()
	if err := Resolve(&cfg); err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r, cfg
}

// TestLayerSplitHandsOffAtEachBoundary: the first blocks on the CPU hand
// the residual stream to the NPU once a pass, the last blocks take it
// from the NPU once, and blocks in the middle do both — one hand-off a
// boundary a pass, not one an operator. Each copies the pass's rows of
// the 4096-wide fp16 hidden state: 32 prompt rows and 4 × 1 decoded, 36 ×
// 8 KiB in all, and takes the NPU's hand-off cost plus the copy written
// and read through DRAM at the CPU's rate (analytic fidelity, where the
// sum is exact).
func TestLayerSplitHandsOffAtEachBoundary(t *testing.T) {
	const bytes = 36 * 4096 * 2
	for _, tc := range []struct {
		layers string
		want   []Boundary // counts and bytes; the seconds are worked out below
	}{
		// The embedding goes with block 0: the CPU holds the token ids,
		// so the pass opens on it and hands over once.
		{"0-7", []Boundary{{From: "cpu", To: "npu", Count: 5, CopyBytes: bytes}}},
		// The output head goes with block 31: the CPU samples from the
		// logits it computed, nothing comes back.
		{"24-31", []Boundary{{From: "npu", To: "cpu", Count: 5, CopyBytes: bytes}}},
		{"8-15", []Boundary{{From: "npu", To: "cpu", Count: 5, CopyBytes: bytes}, {From: "cpu", To: "npu", Count: 5, CopyBytes: bytes}}},
	} {
		t.Run(tc.layers, func(t *testing.T) {
			r, cfg := splitRun(t, tc.layers, Analytic)
			if r.CPULayers != tc.layers {
				t.Errorf("cpu_layers %q, want %q", r.CPULayers, tc.layers)
			}
			npu, cpu := cfg.Chip.Unit("npu"), cfg.Chip.Unit("cpu")
			d := cfg.Chip.Memory.DRAM
			rate := float64(d.Bandwidth) * float64(d.SeqEfficiency)
			if draw := cpu.DRAMDraw(); draw > 0 && draw < rate {
				rate = draw
			}
			if len(r.Boundaries) != len(tc.want) {
				t.Fatalf("boundaries %+v, want %+v", r.Boundaries, tc.want)
			}
			for i, b := range r.Boundaries {
				w := tc.want[i]
				w.Seconds = float64(w.Count)*float64(npu.FallbackSync) + 2*bytes/rate
				if b.From != w.From || b.To != w.To || b.Count != w.Count || b.CopyBytes != w.CopyBytes || math.Abs(b.Seconds-w.Seconds) > 1e-9*w.Seconds {
					t.Errorf("boundary %+v, want %+v", b, w)
				}
			}
		})
	}
}

// TestLayerSplitRunsTheBlocksOnTheCPU: every operator of the CPU's blocks
// runs there — eight blocks of llama-2-7b over five passes are 8 × 5
// attentions — and nothing else does.
func TestLayerSplitRunsTheBlocksOnTheCPU(t *testing.T) {
	r, _ := splitRun(t, "8-15", Tile)
	counts := map[string]int{}
	for _, f := range r.Fallbacks {
		if f.Unit != "cpu" || f.Seconds <= 0 {
			t.Errorf("fallback %+v, want a cost on the cpu", f)
		}
		counts[f.Op] = f.Count
	}
	// Per block and pass: 2 norms, 7 matmuls (q, k, v, o, gate, up,
	// down), a rope, an attention, an activation, 2 residual adds.
	want := map[string]int{"norm": 2 * 40, "matmul": 7 * 40, "rope": 40, "attention": 40, "activation": 40, "residual": 2 * 40}
	for op, n := range want {
		if counts[op] != n {
			t.Errorf("%s ran %d times on the cpu, want %d (all: %v)", op, counts[op], n, counts)
		}
	}
	if counts["embed"] != 0 {
		t.Errorf("the embedding ran on the cpu %d times with block 0 on the npu", counts["embed"])
	}
	if r.Compute.StallFallback <= 0 || r.Time.Fallback <= 0 {
		t.Error("the unit's wait for the CPU's blocks is not counted")
	}
}

// TestWholeModelOnTheCPUIsTheCPU: a split that places every block on the
// CPU prefills as the CPU does alone, and spends the same energy — the prompt is compute-bound there,
// and the CPU runs each operator at the same figures either way. (Decode
// is not held to it: alone, the CPU streams its weights through the
// unit's tile pipeline and the L3; beside another unit it streams them at
// its own draw.)
func TestWholeModelOnTheCPUIsTheCPU(t *testing.T) {
	split, _ := splitRun(t, "0-31", Analytic)
	alone := simulate(t, opts{chipSrc: minimalChip, prompt: 32, gen: 4, fidelity: Analytic, unit: "cpu"})
	if len(split.Boundaries) != 0 {
		t.Errorf("a model wholly on the CPU handed off: %+v", split.Boundaries)
	}
	if got, want := split.Prefill.Seconds, alone.Prefill.Seconds; math.Abs(got-want) > 0.01*want {
		t.Errorf("prefill %.4f s with every block on the CPU beside the NPU, %.4f s on the CPU alone", got, want)
	}
	// The CPU's energy is the same work either way: its threads busy for
	// the time it computes, its operations at its dtype's energy.
	if got, want := split.Energy.TotalJ, alone.Energy.TotalJ; math.Abs(got-want) > 0.02*want {
		t.Errorf("%.3f J with every block on the CPU beside the NPU, %.3f J on the CPU alone", got, want)
	}
}

// TestLayerSplitRefusals: a split needs a CPU beside the unit, and blocks
// the model has.
func TestLayerSplitRefusals(t *testing.T) {
	for _, tc := range []struct {
		o      opts
		layers string
		want   string
	}{
		{opts{chipSrc: minimalChip, prompt: 8, gen: 1}, "0-32", "block 32 is not allowed: Llama 2 7B has 32 blocks, 0-31"},
		{opts{chipSrc: minimalChip, prompt: 8, gen: 1, unit: "cpu"}, "0-3", "the run's unit is the CPU (cpu) already"},
	} {
		cfg := configFor(t, tc.o)
		cfg.CPULayers, _ = ParseLayers(tc.layers)
		_, err := Run(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "cpu-layers") {
			t.Errorf("%s: error %v, want one about cpu-layers saying %q", tc.layers, err, tc.want)
		}
	}
}

// TestRuntimeLeavesOperatorsToTheCPU: llama.cpp's Hexagon backend keeps
// the embedding on the CPU, as all of llama.cpp does, and the HTP refuses
// the output head (128,256 rows of Llama 3.2's vocabulary, past its 32,768;
// a Q6_K matrix in a Q4_0 file). Each pass then opens on the CPU, hands
// the embedded rows to the NPU (16 prompt rows and 4 × 1 decoded of 2048
// fp16), and takes back the one row the head projects (4 KiB a pass).
func TestRuntimeLeavesOperatorsToTheCPU(t *testing.T) {
	r := simulate(t, opts{chip: "snapdragon-8-elite", model: "llama-3.2-1b", prompt: 16, gen: 4, fidelity: Analytic, runtime: runtimes.MustLoad("llama.cpp-hexagon")})
	if r.Unit != "npu" || r.CPURuntime != "llama.cpp-cpu" {
		t.Fatalf("ran on %s with the CPU at %q's figures, want the npu beside llama.cpp-cpu", r.Unit, r.CPURuntime)
	}
	got := map[string]int{}
	for _, f := range r.Fallbacks {
		got[f.Op] = f.Count
	}
	if want := map[string]int{"embed": 5, "matmul": 5}; !maps.Equal(got, want) {
		t.Errorf("on the cpu: %v, want %v (the embedding and the head, once a pass)", got, want)
	}
	want := []Boundary{{From: "cpu", To: "npu", Count: 5, CopyBytes: 20 * 2048 * 2}, {From: "npu", To: "cpu", Count: 5, CopyBytes: 5 * 2048 * 2}}
	if len(r.Boundaries) != 2 {
		t.Fatalf("boundaries %+v, want %+v", r.Boundaries, want)
	}
	for i, b := range r.Boundaries {
		if w := want[i]; b.From != w.From || b.To != w.To || b.Count != w.Count || b.CopyBytes != w.CopyBytes || b.Seconds <= 0 {
			t.Errorf("boundary %+v, want %+v and a cost", b, w)
		}
	}
}

// TestPlacementFileSplitsLayers: a placement policy may carry the split
// (cpu_layers), and runs as the setting does; the setting overrides it; a
// bad value is refused at its line of the file, and blocks the model
// lacks name the policy.
func TestPlacementFileSplitsLayers(t *testing.T) {
	src, err := os.ReadFile("policies/stream-weights.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withSplit := func(layers string) *Policy {
		p, err := DecodePolicy("split.yaml", append(src, []byte("cpu_layers: \""+layers+"\"\n")...))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	byFlag, _ := splitRun(t, "8-15", Analytic)
	cfg := configFor(t, opts{chipSrc: minimalChip, prompt: 32, gen: 4, fidelity: Analytic})
	cfg.Policy = withSplit("8-15")
	byFile, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if byFile.CPULayers != "8-15" || byFile.Decode.Seconds != byFlag.Decode.Seconds || !reflect.DeepEqual(byFile.Boundaries, byFlag.Boundaries) {
		t.Errorf("the placement file's split ran as %q, decode %g s, %+v; the setting's %q, %g s, %+v",
			byFile.CPULayers, byFile.Decode.Seconds, byFile.Boundaries, byFlag.CPULayers, byFlag.Decode.Seconds, byFlag.Boundaries)
	}
	cfg.CPULayers = Layers{0, 1}
	if r, err := Run(context.Background(), cfg); err != nil || r.CPULayers != "0-1" {
		t.Errorf("the setting beside the file's split: %v, %v; want blocks 0-1", r.CPULayers, err)
	}
	if _, err := DecodePolicy("split.yaml", append(src, []byte("cpu_layers: \"7-3\"\n")...)); err == nil ||
		!strings.Contains(err.Error(), "split.yaml:9") || !strings.Contains(err.Error(), "cpu_layers") {
		t.Errorf("a backwards range in the file: %v, want its line and field", err)
	}
	cfg.CPULayers, cfg.Policy = nil, withSplit("30-40")
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "policy stream-weights: cpu_layers: block 40 is not allowed") {
		t.Errorf("blocks past the model's in the file: %v", err)
	}
}

// threeWay runs llama-3.2-3b on the Snapdragon 8 Elite's NPU under
// llama.cpp's Hexagon backend (which leaves the output head to the CPU)
// with blocks on its GPU, 32 prompt tokens and 4 decoded, at fidelity.
func threeWay(t *testing.T, gpu string, fidelity Fidelity) (*Result, Config) {
	t.Helper()
	rt, err := runtimes.Load("llama.cpp-hexagon")
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, opts{chip: "snapdragon-8-elite", model: "llama-3.2-3b", prompt: 32, gen: 4, fidelity: fidelity, runtime: rt})
	if cfg.LayersOn, err = ParseUnitLayers(gpu); err != nil {
		t.Fatal(err)
	}
	return resolvedRun(t, cfg)
}

// TestThreeWaySplitHandsOffBetweenUnits: the first 14 blocks on the GPU
// (the embedding with them), the rest on the NPU, the head on the CPU as
// the Hexagon backend leaves it: each pass hands the 3072-wide fp16
// hidden state from the GPU to the NPU once — 32 + 4 × 1 rows, 216 KiB —
// and from the NPU to the CPU once, the one row a pass the head reads (the
// last position's), 30 KiB; each takes the larger of the two
// accelerators' hand-off costs (the CPU counts none) a pass plus the copy
// written and read through DRAM. The GPU runs its blocks' operators at
// llama.cpp's OpenCL figures, the CPU only the head.
func TestThreeWaySplitHandsOffBetweenUnits(t *testing.T) {
	const bytes, head = 36 * 3072 * 2, 5 * 3072 * 2
	r, cfg := threeWay(t, "gpu=0-13", Analytic)
	if r.LayersOn != "gpu=0-13" || r.LayersOnRuntime != "llama.cpp-opencl" || r.CPURuntime != "llama.cpp-cpu" {
		t.Errorf("layers_on %q at %q, cpu at %q; want gpu=0-13 at llama.cpp-opencl, the cpu at llama.cpp-cpu", r.LayersOn, r.LayersOnRuntime, r.CPURuntime)
	}
	npu, gpu, cpu := cfg.Chip.Unit("npu"), cfg.Chip.Unit("gpu"), cfg.Chip.Unit("cpu")
	d := cfg.Chip.Memory.DRAM
	rate := float64(d.Bandwidth) * float64(d.SeqEfficiency)
	if draw := cpu.DRAMDraw(); draw > 0 && draw < rate {
		rate = draw
	}
	sync := math.Max(float64(npu.FallbackSync), float64(gpu.FallbackSync))
	want := []Boundary{
		{From: "gpu", To: "npu", Count: 5, CopyBytes: bytes, Seconds: 5*sync + 2*bytes/rate},
		{From: "npu", To: "cpu", Count: 5, CopyBytes: head, Seconds: 5*float64(npu.FallbackSync) + 2*head/rate},
	}
	if len(r.Boundaries) != len(want) {
		t.Fatalf("boundaries %+v, want %+v", r.Boundaries, want)
	}
	for i, b := range r.Boundaries {
		if w := want[i]; b.From != w.From || b.To != w.To || b.Count != w.Count || b.CopyBytes != w.CopyBytes || math.Abs(b.Seconds-w.Seconds) > 1e-9*w.Seconds {
			t.Errorf("boundary %+v, want %+v", b, w)
		}
	}
	on := map[string]map[string]int{}
	for _, f := range r.Fallbacks {
		if on[f.Unit] == nil {
			on[f.Unit] = map[string]int{}
		}
		on[f.Unit][f.Op] = f.Count
	}
	// Per block and pass: 7 matmuls (q, k, v, o, gate, up, down) and an
	// attention; 14 blocks over 5 passes; the embedding once a pass.
	if g := on["gpu"]; g["matmul"] != 7*14*5 || g["attention"] != 14*5 || g["embed"] != 5 {
		t.Errorf("the gpu ran %v, want 490 matmuls, 70 attentions, 5 embeddings", g)
	}
	if c := on["cpu"]; len(c) != 1 || c["matmul"] != 5 {
		t.Errorf("the cpu ran %v, want the output head alone, once a pass", c)
	}
	var gpuBusy float64
	for _, u := range r.Units {
		if u.Name == "gpu" {
			gpuBusy = u.BusyS
		}
	}
	if gpuBusy <= 0 {
		t.Errorf("units %+v: the gpu's busy time is missing", r.Units)
	}
}

// TestWholeModelOnTheGPUIsTheGPU: a split that places every block on the
// GPU beside the NPU runs as the GPU does alone, within what timing its
// operators as a roofline rather than tile by tile moves (prefill 2%,
// decode 5%, energy 3%; 1.4%, 3.9% and 1.9% when written): the same
// runtime's figures, its active power only while it works, the CPU's one
// core while it dispatches.
func TestWholeModelOnTheGPUIsTheGPU(t *testing.T) {
	split, _ := threeWay(t, "gpu=0-27", Analytic)
	alone := simulate(t, opts{chip: "snapdragon-8-elite", model: "llama-3.2-3b", prompt: 32, gen: 4, fidelity: Analytic, unit: "gpu"})
	if len(split.Boundaries) != 0 {
		t.Errorf("a model wholly on the GPU handed off: %+v", split.Boundaries)
	}
	for _, c := range []struct {
		what      string
		got, want float64
		tol       float64
	}{
		{"prefill s", split.Prefill.Seconds, alone.Prefill.Seconds, 0.02},
		{"decode s", split.Decode.Seconds, alone.Decode.Seconds, 0.05},
		{"energy J", split.Energy.TotalJ, alone.Energy.TotalJ, 0.03},
	} {
		t.Logf("%s: %.4g every block on the GPU beside the NPU, %.4g on the GPU alone", c.what, c.got, c.want)
		if math.Abs(c.got-c.want) > c.tol*c.want {
			t.Errorf("%s %.4g with every block on the GPU beside the NPU, %.4g on the GPU alone: want within %.0f%%", c.what, c.got, c.want, 100*c.tol)
		}
	}
}

// TestThreeWaySplitRefusals: the third unit must be a unit of the chip
// other than its CPU and the run's, its blocks the model's and not the
// CPU's too.
func TestThreeWaySplitRefusals(t *testing.T) {
	for _, tc := range []struct {
		on, cpu, unit, want string
	}{
		{"dsp=0-3", "", "", `unit "dsp" is not one of snapdragon-8-elite's: npu, gpu, cpu`},
		{"cpu=0-3", "", "", "cpu is the CPU: its blocks are cpu-layers"},
		{"gpu=0-28", "", "", "block 28 is not allowed: Llama 3.2 3B has 28 blocks, 0-27"},
		{"gpu=0-7", "7-9", "", "block 7 is placed on the CPU too (cpu-layers 7-9)"},
		{"gpu=0-7", "", "gpu", "gpu is the run's unit already"},
	} {
		cfg := configFor(t, opts{chip: "snapdragon-8-elite", model: "llama-3.2-3b", prompt: 8, gen: 1, fidelity: Analytic, unit: tc.unit})
		cfg.LayersOn, _ = ParseUnitLayers(tc.on)
		cfg.CPULayers, _ = ParseLayers(tc.cpu)
		_, err := Run(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "layers-on") {
			t.Errorf("%s: error %v, want one about layers-on saying %q", tc.on, err, tc.want)
		}
	}
}

// TestPlacementFileSplitsOverThreeUnits: a placement file's layers_on
// runs as the setting does, and a bad one names its line and field.
func TestPlacementFileSplitsOverThreeUnits(t *testing.T) {
	src, err := os.ReadFile("policies/stream-weights.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := DecodePolicy("split.yaml", append(src, []byte("layers_on: gpu=0-13\n")...))
	if err != nil {
		t.Fatal(err)
	}
	byFlag, _ := threeWay(t, "gpu=0-13", Analytic)
	rt, _ := runtimes.Load("llama.cpp-hexagon")
	cfg := configFor(t, opts{chip: "snapdragon-8-elite", model: "llama-3.2-3b", prompt: 32, gen: 4, fidelity: Analytic, runtime: rt})
	cfg.Policy = p
	byFile, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if byFile.LayersOn != "gpu=0-13" || byFile.Decode.Seconds != byFlag.Decode.Seconds || !reflect.DeepEqual(byFile.Boundaries, byFlag.Boundaries) {
		t.Errorf("the file's split ran as %q, decode %g s, %+v; the setting's %q, %g s, %+v",
			byFile.LayersOn, byFile.Decode.Seconds, byFile.Boundaries, byFlag.LayersOn, byFlag.Decode.Seconds, byFlag.Boundaries)
	}
	if _, err := DecodePolicy("split.yaml", append(src, []byte("layers_on: gpu\n")...)); err == nil ||
		!strings.Contains(err.Error(), "split.yaml:9") || !strings.Contains(err.Error(), "layers_on") {
		t.Errorf("a split without blocks in the file: %v, want its line and field", err)
	}
}
