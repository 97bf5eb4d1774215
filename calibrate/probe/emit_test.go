package probe

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

var regen = flag.Bool("regen", false, "rewrite the golden files under testdata")

// piHost is the host of testdata/linux-arm64.
func piHost() Host {
	h := Host{OS: "linux", Arch: "arm64", Cores: 4}
	inspectLinux(&h, os.DirFS("testdata/linux-arm64"))
	return h
}

// piRecords are records such a host might give: a bandwidth curve whose
// plateau (beyond the 2 MiB LLC, 4 threads: 12, 12.5, 13.5 GB/s) has a
// median of 12.5 GB/s, latencies, 4 KiB reads 3×
// slower at random, a Q4_0 GEMV and a Q8_0 GEMM.
func piRecords() []calibrate.Record {
	rec := func(kind calibrate.Kind, source, kernel string, threads int, bytes int64, value float64, unit string) calibrate.Record {
		return calibrate.Record{Kind: kind, SoC: "host", Source: "probe:" + source, Kernel: kernel, Threads: threads,
			Shape: calibrate.Shape{Bytes: bytes}, Value: value, Unit: unit}
	}
	gemv := rec(calibrate.KindGEMV, "gemv-q4_0", "gemv_q4_0_q8_0", 4, 0, 7.68e9, calibrate.UnitOpsPerSecond)
	gemv.Shape = calibrate.Shape{M: 1, N: 512, K: 1024}
	gemm := rec(calibrate.KindGEMM, "gemm-q8_0", "gemm_q8_0_q8_0", 4, 0, 15.36e9, calibrate.UnitOpsPerSecond)
	gemm.Shape = calibrate.Shape{M: 64, N: 2048, K: 2048}
	return []calibrate.Record{
		rec(calibrate.KindBandwidth, "bandwidth", "read_sequential", 1, 4<<10, 60e9, calibrate.UnitBytesPerSecond),
		rec(calibrate.KindBandwidth, "bandwidth", "read_sequential", 1, 8<<20, 9e9, calibrate.UnitBytesPerSecond),
		rec(calibrate.KindBandwidth, "bandwidth", "read_sequential", 4, 1<<20, 40e9, calibrate.UnitBytesPerSecond),
		rec(calibrate.KindBandwidth, "bandwidth", "read_sequential", 4, 4<<20, 13.5e9, calibrate.UnitBytesPerSecond),
		rec(calibrate.KindBandwidth, "bandwidth", "read_sequential", 4, 6<<20, 12e9, calibrate.UnitBytesPerSecond),
		rec(calibrate.KindBandwidth, "bandwidth", "read_sequential", 4, 8<<20, 12.5e9, calibrate.UnitBytesPerSecond),
		rec(calibrate.KindLatency, "latency", "pointer_chase", 1, 1<<20, 12e-9, calibrate.UnitSeconds),
		rec(calibrate.KindLatency, "latency", "pointer_chase", 1, 8<<20, 105e-9, calibrate.UnitSeconds),
		rec(calibrate.KindRandomRead, "random_read", "sequential_4k", 1, 4096, 6e9, calibrate.UnitBytesPerSecond),
		rec(calibrate.KindRandomRead, "random_read", "random_4k", 1, 4096, 2e9, calibrate.UnitBytesPerSecond),
		gemv, gemm,
	}
}

// TestEmitSoC writes the chip of the Pi-like host, compares it with the
// golden file, loads it with hw.Load and simulates a reference decoder on
// it. The figures: DRAM 12.5 GB/s (the plateau), random penalty 6/2 = 3,
// DRAM latency 105 ns (the largest set), L3 latency 12 ns (the largest set
// within half the 2 MiB L3), peaks 4 cores × 2.4 GHz × 16 int8 lanes × 2 =
// 307.2 GOPS int8, and a GEMV efficiency of 7.68/307.2 = 0.025.
func TestEmitSoC(t *testing.T) {
	data, err := EmitSoC(piHost(), piRecords())
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "emit-pi.yaml")
	if *regen {
		os.WriteFile(golden, data, 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != string(want) {
		t.Errorf("EmitSoC differs from %s (go test -regen to rewrite):\n%s", golden, data)
	}
	chip, err := hw.Load("probed.yaml", data, nil)
	if err != nil {
		t.Fatalf("hw.Load of the emitted chip: %v\n%s", err, data)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"dram bandwidth", float64(chip.Memory.DRAM.Bandwidth), 12.5e9},
		{"random penalty", chip.Memory.DRAM.RandomPenalty, 3},
		{"dram latency", float64(chip.Memory.DRAM.Latency), 105e-9},
		{"l3 latency", float64(chip.Memory.L3.Latency), 12e-9},
		{"l3 size", float64(chip.Memory.L3.Size), 2 << 20},
		{"int8 peak", float64(chip.Units[0].Peak["int8"]), 307.2e9},
		{"gemv efficiency", float64(chip.Units[0].GEMVEfficiency), 0.025},
		{"gemm efficiency", float64(chip.Units[0].GEMMEfficiency), 0.05},
		{"capacity", float64(chip.Memory.DRAM.Capacity), 8245340 << 10},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Every figure of the emitted file is cited: nothing in the chip's
	// provenance that came from the file is without a source.
	for _, p := range chip.Provenance {
		if strings.HasPrefix(p.Source, "probed.yaml:") {
			t.Errorf("%s = %s has no source", p.Path, p.Value)
		}
	}
	simulateOn(t, chip)
}

// simulateOn runs the smallest reference decoder on chip, as the lead
// would to predict the probe's decoder records.
func simulateOn(t *testing.T, chip *hw.Chip) {
	t.Helper()
	model, err := workloads.LoadModel("probe-decoder-s", nil)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := workloads.ParseQuant(DecoderQuant)
	for _, f := range []sim.Fidelity{sim.Analytic, sim.Tile} {
		res, err := sim.Run(context.Background(), sim.Config{Chip: chip, Model: model, Quant: q, Prompt: 0, Gen: 4, Batch: 1, Fidelity: f})
		if err != nil {
			t.Fatalf("simulate at %s on the emitted chip: %v", f, err)
		}
		if res.Decode.TokensPerS == nil || *res.Decode.TokensPerS <= 0 {
			t.Errorf("simulate at %s: decode rate %v", f, res.Decode.TokensPerS)
		}
	}
}

func TestEmitSoCNeedsBandwidth(t *testing.T) {
	recs := slices.DeleteFunc(piRecords(), func(r calibrate.Record) bool { return r.Kind == calibrate.KindBandwidth })
	if _, err := EmitSoC(piHost(), recs); err == nil || !strings.Contains(err.Error(), "bandwidth") {
		t.Errorf("EmitSoC without bandwidth records: %v", err)
	}
}

// TestEmitSoCBareHost: a host that reported nothing still gives a chip
// hw.Load accepts, every guess marked assumed.
func TestEmitSoCBareHost(t *testing.T) {
	data, err := EmitSoC(Host{OS: "plan9", Arch: "386", Cores: 1}, piRecords()[:1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hw.Load("bare.yaml", data, nil); err != nil {
		t.Fatalf("hw.Load: %v\n%s", err, data)
	}
	for _, want := range []string{"assumed: 2 GHz", "assumed: 8 GiB", "assumed: 128-bit"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("no %q in\n%s", want, data)
		}
	}
}
