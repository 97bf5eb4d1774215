package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateCalibration: --calibration changes the run and the
// provenance says calibrated:<file>; a bad overlay is exit 2 with file:line.
func TestSimulateCalibration(t *testing.T) {
	dir := t.TempDir()
	cal := filepath.Join(dir, "cal.yaml")
	if err := os.WriteFile(cal, []byte("source: test\nparams:\n  - {param: seq_efficiency, memory: LPDDR5, value: 0.35}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"simulate", "--soc", "apple-m2", "--model", "llama-3.2-1b", "--prompt", "16", "--gen", "4", "--fidelity", "analytic", "--format", "json"}
	var results [2]map[string]any
	for i, extra := range [][]string{nil, {"--calibration", cal}} {
		code, out, errs := edgetwin(append(args, extra...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if err := json.Unmarshal([]byte(out), &results[i]); err != nil {
			t.Fatal(err)
		}
	}
	rate := func(r map[string]any) float64 { return r["decode"].(map[string]any)["tokens_per_s"].(float64) }
	if rate(results[1]) >= rate(results[0])*0.9 {
		t.Errorf("decode %g tokens/s with half the DRAM efficiency, %g without: the overlay did not apply", rate(results[1]), rate(results[0]))
	}
	found := false
	for _, e := range results[1]["provenance"].([]any) {
		m := e.(map[string]any)
		if m["path"] == "memory.dram.seq_efficiency" {
			found = m["source"] == "calibrated:"+cal && m["value"] == "0.35"
		}
	}
	if !found {
		t.Error("provenance lacks memory.dram.seq_efficiency = 0.35 from calibrated:<file>")
	}
	// The same flag reaches compare and sweep through the shared flags.
	if code, _, errs := edgetwin("compare", "--soc", "apple-m2,seed-a", "--model", "llama-3.2-1b", "--prompt", "16", "--gen", "2", "--fidelity", "analytic", "--calibration", cal); code != 0 {
		t.Errorf("compare --calibration: exit %d: %s", code, errs)
	}
}

func TestCalibrateBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badCal := write("bad.yaml", "source: x\nparams:\n  - {param: seq_efficiency, memory: LPDDR5, value: 2}\n")
	recs := write("r.jsonl", `{"kind":"decode","soc":"apple-m2","model":"llama-3.2-1b","quant":"Q4_0","shape":{"gen":4},"value":30,"unit":"tokens/s","source":"t"}`+"\n")
	kernels := write("k.jsonl", `{"kind":"gemv","soc":"apple-m2","value":1e9,"unit":"ops/s","source":"t"}`+"\n")
	badRec := write("bad.jsonl", `{"kind":"decode","soc":"apple-m2","valu":3}`+"\n")
	noChip := write("nochip.jsonl", `{"kind":"decode","soc":"no-such-chip","model":"llama-3.2-1b","quant":"Q4_0","shape":{"gen":4},"value":30,"unit":"tokens/s","source":"t"}`+"\n")
	out := filepath.Join(dir, "o.yaml")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"simulate bad overlay", []string{"simulate", "--calibration", badCal}, "bad.yaml:3"},
		{"simulate missing overlay", []string{"simulate", "--calibration", filepath.Join(dir, "none.yaml")}, "no such file"},
		{"fit without -o", []string{"calibrate", "fit", recs}, "-o"},
		{"fit no records file", []string{"calibrate", "fit", filepath.Join(dir, "none.jsonl"), "-o", out}, "none.jsonl"},
		{"fit bad record", []string{"calibrate", "fit", badRec, "-o", out}, "bad.jsonl:1"},
		{"fit only a shapeless kernel", []string{"calibrate", "fit", kernels, "-o", out}, "prefill, decode, gemv or gemm"},
		{"fit unknown chip", []string{"calibrate", "fit", noChip, "-o", out}, "no-such-chip"},
		{"fit unknown param", []string{"calibrate", "fit", recs, "-o", out, "--params", "magic"}, "magic"},
		{"fit bad fidelity", []string{"calibrate", "fit", recs, "-o", out, "--fidelity", "exact"}, "exact"},
		{"validate bad format", []string{"calibrate", "validate", recs, "--format", "xml"}, "xml"},
		{"validate bad holdout", []string{"calibrate", "validate", recs, "--holdout", "vendor"}, "vendor"},
		{"validate bad plot", []string{"calibrate", "validate", recs, "--plot", filepath.Join(dir, "p.gif")}, ".png"},
		{"validate bad overlay", []string{"calibrate", "validate", recs, "--calibration", badCal}, "bad.yaml:3"},
		{"validate holdout one chip", []string{"calibrate", "validate", recs, "--holdout", "chip", "--fidelity", "analytic"}, "two"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := edgetwin(tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2: %s", code, errs)
			}
			if !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
				t.Errorf("stderr %q: want one line with %q", errs, tc.want)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed fit wrote the overlay")
	}
}

// TestCalibrateFitAndValidate fits one record and validates with the
// overlay: the overlay is written and the JSON has points and mape.
func TestCalibrateFitAndValidate(t *testing.T) {
	dir := t.TempDir()
	recs := filepath.Join(dir, "r.jsonl")
	if err := os.WriteFile(recs, []byte(`{"kind":"decode","soc":"apple-m2","model":"llama-3.2-1b","quant":"Q4_0","shape":{"gen":4},"n_gpu_layers":99,"value":60,"unit":"tokens/s","source":"t:1"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cal.yaml")
	code, table, errs := edgetwin("calibrate", "fit", recs, "-o", out, "--fidelity", "analytic", "--params", "seq_efficiency", "--starts", "1")
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errs)
	}
	if !strings.Contains(table, "seq_efficiency[LPDDR5]") || !strings.Contains(table, "t:1") {
		t.Errorf("fit table lacks the parameter or the record:\n%s", table)
	}
	code, js, errs := edgetwin("calibrate", "validate", recs, "--calibration", out, "--fidelity", "analytic", "--format", "json", "--plot", filepath.Join(dir, "p.png"))
	if code != 0 {
		t.Fatalf("validate: exit %d: %s", code, errs)
	}
	var v struct {
		Points []struct {
			SoC, Model, Quant, Phase string
			Measured, Predicted      float64
			Error                    float64
		}
		MAPE map[string]float64
	}
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Points) != 1 || v.Points[0].Phase != "decode" || v.Points[0].SoC != "apple-m2" {
		t.Fatalf("points %+v", v.Points)
	}
	// One record, one parameter: the fit matches it.
	if e := v.Points[0].Error; e > 0.01 || e < -0.01 || v.MAPE["decode"] > 0.01 {
		t.Errorf("error %g, MAPE %v after fitting the one record", e, v.MAPE)
	}
	if st, err := os.Stat(filepath.Join(dir, "p.png")); err != nil || st.Size() == 0 {
		t.Errorf("no plot: %v", err)
	}
}

// TestRecordsWithoutShape: records with only CONTRACT.md's fields are
// validated at llama-bench's default lengths, and the warning that says so
// is printed three times and then counted, not once a line.
func TestRecordsWithoutShape(t *testing.T) {
	line := `{"kind":"decode","soc":"apple-m2","model":"llama-3.2-1b","quant":"Q4_0","value":40,"unit":"tokens/s","source":"x"}` + "\n"
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 5)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := edgetwin("calibrate", "validate", path, "--fidelity", "analytic", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var v struct{ Points []any }
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Points) != 5 {
		t.Fatalf("%d points, %v", len(v.Points), err)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "r.jsonl:1: field shape.gen missing: assumed 128 tokens") ||
		!strings.HasPrefix(lines[3], "edgetwin: warning: … and 2 more lines: field shape.gen missing") {
		t.Errorf("warnings:\n%s", errOut)
	}
}
