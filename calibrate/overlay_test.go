package calibrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// golden compares got with testdata/name, or rewrites it under -regen.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *regen {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -regen to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -regen to accept):\n%s", path, got)
	}
}

// TestOverlayApply loads apple-m2 (an NPU, a GPU, a CPU, LPDDR5) with the
// overlay: the GPU's figures, the LPDDR5 efficiency, the DMA set-up and the
// set entries change and say calibrated:<file>; the NPU's int8 GEMM
// efficiency lands in its per-format map; the LPDDR4X figure does not
// apply. The golden file lists every calibrated provenance entry.
func TestOverlayApply(t *testing.T) {
	ov, err := ReadOverlay("testdata/overlay/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	chip, err := ov.Load("apple-m2", nil)
	if err != nil {
		t.Fatal(err)
	}
	gpu, npu := chip.Unit("gpu"), chip.Unit("npu")
	checks := []struct {
		name      string
		got, want float64
	}{
		{"gpu gemv q4_0", gpu.Efficiency(1, "q4_0"), 0.61},
		{"gpu gemv f16 (scalar)", gpu.Efficiency(1, "f16"), 0.45},
		{"gpu dispatch", float64(gpu.Dispatch), 8e-6},
		{"npu gemm int8", npu.Efficiency(64, "int8"), 0.70},
		{"npu gemv (default)", npu.Efficiency(1, "int8"), 1},
		{"seq efficiency (LPDDR5)", float64(chip.Memory.DRAM.SeqEfficiency), 0.83},
		{"dma setup", float64(chip.DMA.Setup), 250e-9},
		{"l3 bandwidth (set)", float64(chip.Memory.L3.Bandwidth), 150e9},
	}
	for _, c := range checks {
		if d := c.got - c.want; d > 1e-12*c.want || d < -1e-12*c.want {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	var b strings.Builder
	for _, e := range chip.Provenance {
		if strings.HasPrefix(e.Source, "calibrated:") {
			b.WriteString(e.Path + " = " + e.Value + "  [" + e.Source + "]\n")
		}
	}
	golden(t, "overlay/apply.golden", b.String())

	// --set still wins over the overlay.
	chip, err = ov.Load("apple-m2", []spec.Override{{Path: "units.gpu.dispatch", Value: "3 us", Origin: "--set"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := chip.Unit("gpu").Dispatch; float64(d) != 3e-6 {
		t.Errorf("--set after the overlay: dispatch %v, want 3 us", d)
	}
}

// TestOverlayMemoryFallback: a memory figure without memory applies to a
// chip whose DRAM type has no figure of its own in the overlay; a typed
// figure wins for its own type.
func TestOverlayMemoryFallback(t *testing.T) {
	ov, err := ParseOverlay("o.yaml", []byte("source: x\nparams:\n"+
		"  - {param: seq_efficiency, memory: LPDDR5, value: 0.9}\n"+
		"  - {param: seq_efficiency, value: 0.8}\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		dram string
		want float64
	}{
		{"{type: LPDDR5, bandwidth: 100 GB/s, capacity: 8 GiB}", 0.9},
		{"{type: LPDDR5X, bandwidth: 100 GB/s, capacity: 8 GiB}", 0.8},
	} {
		path := filepath.Join(dir, "chip.yaml")
		src := "name: x\nmemory:\n  dram: " + c.dram + "\nunits:\n  - {name: gpu, kind: gpu, peak: {fp16: 10 TFLOPS}}\n"
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		chip, err := ov.Load(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(chip.Memory.DRAM.SeqEfficiency); got != c.want {
			t.Errorf("dram %s: seq_efficiency %g, want %g", c.dram, got, c.want)
		}
	}
}

// TestOverlayRoundTrip writes a parsed overlay and reads it back the same.
func TestOverlayRoundTrip(t *testing.T) {
	ov, err := ReadOverlay("testdata/overlay/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "out.yaml")
	if err := ov.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadOverlay(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Encode()) != string(ov.Encode()) || len(back.Params) != len(ov.Params) {
		t.Errorf("round trip changed the overlay:\n%s\nvs\n%s", ov.Encode(), back.Encode())
	}
	for i, p := range back.Params {
		if p.Float() != ov.Params[i].Float() || p.StderrFloat() != ov.Params[i].StderrFloat() {
			t.Errorf("%s: %g ± %g, want %g ± %g", p.Key(), p.Float(), p.StderrFloat(), ov.Params[i].Float(), ov.Params[i].StderrFloat())
		}
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp"))
	if len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

func TestBadOverlays(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"unknown field", "source: x\ncolour: red\n", []string{"o.yaml:2", "colour"}},
		{"missing source", "params: []\n", []string{"o.yaml", "source"}},
		{"unknown param", "source: x\nparams:\n  - {param: magic, unit_kind: gpu, value: 1}\n", []string{"o.yaml:3", "params.0.param", "gemv_efficiency"}},
		{"unit param without kind", "source: x\nparams:\n  - {param: dispatch, value: 1 us}\n", []string{"o.yaml:3", "unit_kind", "missing"}},
		{"memory param with a unit kind", "source: x\nparams:\n  - {param: seq_efficiency, unit_kind: gpu, value: 0.8}\n", []string{"o.yaml:3", "unit_kind", "key it by memory"}},
		{"bad memory", "source: x\nparams:\n  - {param: seq_efficiency, memory: SDRAM, value: 0.8}\n", []string{"o.yaml:3", "memory", "LPDDR5"}},
		{"dtype on dispatch", "source: x\nparams:\n  - {param: dispatch, unit_kind: gpu, dtype: q4_0, value: 1 us}\n", []string{"o.yaml:3", "dtype"}},
		{"bad dtype", "source: x\nparams:\n  - {param: gemv_efficiency, unit_kind: gpu, dtype: Q4_0, value: 0.5}\n", []string{"o.yaml:3", "lower-case"}},
		{"dtype that does not exist", "source: x\nparams:\n  - {param: gemv_efficiency, unit_kind: gpu, dtype: q3_0, value: 0.5}\n", []string{"o.yaml:3", "params.0.dtype", `"q3_0" is not a weight storage format`, "q4_0"}},
		{"fraction above 1", "source: x\nparams:\n  - {param: gemv_efficiency, unit_kind: gpu, value: 1.5}\n", []string{"o.yaml:3", "params.0.value", "out of range"}},
		{"wrong unit", "source: x\nparams:\n  - {param: dispatch, unit_kind: gpu, value: 5 GB}\n", []string{"o.yaml:3", "params.0.value"}},
		{"negative stderr", "source: x\nparams:\n  - {param: dispatch, unit_kind: gpu, value: 5 us, stderr: -1 us}\n", []string{"o.yaml:3", "stderr"}},
		{"given twice", "source: x\nparams:\n  - {param: dispatch, unit_kind: gpu, value: 5 us}\n  - {param: dispatch, unit_kind: gpu, value: 6 us}\n", []string{"o.yaml:4", "twice", "o.yaml:3"}},
		{"core without dtype", "source: x\nparams:\n  - {param: gemv_efficiency, unit_kind: cpu, core: apple-p, value: 0.2}\n", []string{"o.yaml:3", "params.0.core", "dtype"}},
		{"core of a GPU", "source: x\nparams:\n  - {param: gemv_efficiency, unit_kind: gpu, dtype: q4_0, core: apple-p, value: 0.2}\n", []string{"o.yaml:3", "params.0.core", "unit_kind cpu"}},
		{"unknown core", "source: x\nparams:\n  - {param: gemv_efficiency, unit_kind: cpu, dtype: q4_0, core: firestorm, value: 0.2}\n", []string{"o.yaml:3", "params.0.core", `"firestorm" is not a core design`, "apple-p"}},
		{"barrier of a GPU", "source: x\nparams:\n  - {param: barrier, unit_kind: gpu, value: 3 us}\n", []string{"o.yaml:3", "params.0.unit_kind", "cpu"}},
		{"duplicate key", "source: x\nsource: y\n", []string{"o.yaml:2", "duplicate"}},
		{"set not a mapping", "source: x\nset: [a]\n", []string{"o.yaml:2", "set"}},
		{"binary", "\x00", []string{"o.yaml", "binary"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseOverlay("o.yaml", []byte(tc.src))
			if err == nil {
				t.Fatal("parsed a bad overlay")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("message spans lines: %q", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestOverlayCoreFigures: a GEMV efficiency keyed by core design lands on
// the clusters of that design (the 8 Gen 3's Cortex-X4 prime core), or on
// a CPU whose cores are all of it (the Pi 5's A76s) in place of the
// undesigned figure, and nowhere else.
func TestOverlayCoreFigures(t *testing.T) {
	ov, err := ParseOverlay("o.yaml", []byte("source: x\nparams:\n"+
		"  - {param: gemv_efficiency, unit_kind: cpu, dtype: q4_0, core: cortex-x4, value: 0.08}\n"+
		"  - {param: gemv_efficiency, unit_kind: cpu, dtype: q4_0, core: cortex-a76, value: 0.07}\n"+
		"  - {param: gemv_efficiency, unit_kind: cpu, dtype: q4_0, value: 0.1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	gen3, err := ov.Load("snapdragon-8-gen3", nil)
	if err != nil {
		t.Fatal(err)
	}
	u := gen3.Unit("cpu")
	for _, c := range u.Clusters {
		got, want := float64(c.GEMVEfficiencyBy["q4_0"]), 0.0
		if c.Name == "prime" {
			want = 0.08
		}
		if got != want {
			t.Errorf("8 Gen 3 %s cluster: q4_0 GEMV %g, want %g", c.Name, got, want)
		}
	}
	if got := float64(u.GEMVEfficiencyBy["q4_0"]); got != 0.1 {
		t.Errorf("8 Gen 3 CPU: q4_0 GEMV %g, want the undesigned 0.1", got)
	}
	pi, err := ov.Load("raspberry-pi-5", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := float64(pi.Unit("cpu").GEMVEfficiencyBy["q4_0"]); got != 0.07 {
		t.Errorf("Pi 5 CPU: q4_0 GEMV %g, want the A76's 0.07", got)
	}
}

// A set entry the chip has no field for is an error at the overlay's line.
func TestOverlaySetUnknownPath(t *testing.T) {
	ov, err := ParseOverlay("o.yaml", []byte("source: x\nset:\n  memory.l3.size: 4 MiB\n  units.tpu.clock: 1 GHz\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ov.Load("apple-m2", nil)
	if err == nil {
		t.Fatal("applied a set entry for a unit the chip lacks")
	}
	for _, w := range []string{"o.yaml:4", "units.tpu.clock", "apple-m2", "tpu"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message %q lacks %q", err, w)
		}
	}
}

func FuzzParseOverlay(f *testing.F) {
	good, _ := os.ReadFile("testdata/overlay/good.yaml")
	f.Add(good)
	f.Add([]byte("source: x\nparams:\n  - {param: dispatch, unit_kind: gpu, value: 1e400 us}\n"))
	f.Add([]byte("source: x\nset: {a.b: c}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ov, err := ParseOverlay("f.yaml", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("bad message %q", err)
			}
			return
		}
		// What parses writes out and parses back to the same text.
		back, err := ParseOverlay("f.yaml", ov.Encode())
		if err != nil {
			t.Fatalf("encoded overlay does not parse: %v\n%s", err, ov.Encode())
		}
		if string(back.Encode()) != string(ov.Encode()) {
			t.Fatalf("encoding is not stable:\n%s\nvs\n%s", ov.Encode(), back.Encode())
		}
	})
}
