package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// compare runs `edgetwin compare args...` in-process.
func compare(args ...string) (code int, stdout, stderr string) {
	return edgetwin(append([]string{"compare"}, args...)...)
}

var seedArgs = []string{"--soc", "seed-a,seed-b,seed-c", "--model", "seed-moe-3b", "--prompt", "32", "--gen", "4", "--format", "json"}

func compareRows(t *testing.T, out string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	return rows
}

// TestCompareSeeds: three results in the order given, each the object
// simulate prints for that chip.
func TestCompareSeeds(t *testing.T) {
	code, out, errs := compare(seedArgs...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if errs != "" {
		t.Errorf("stderr %q", errs)
	}
	rows := compareRows(t, out)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	for i, chip := range []string{"seed-a", "seed-b", "seed-c"} {
		if rows[i]["soc"] != chip {
			t.Errorf("row %d is %v, want %s", i, rows[i]["soc"], chip)
		}
		if _, ok := rows[i]["error"]; ok {
			t.Errorf("%s has an error: %v", chip, rows[i]["error"])
		}
	}
	code, single, errs := edgetwin("simulate", "--soc", "seed-b", "--model", "seed-moe-3b", "--prompt", "32", "--gen", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errs)
	}
	var want map[string]any
	if err := json.Unmarshal([]byte(single), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows[1], want) {
		t.Errorf("seed-b's row is not what simulate prints for it")
	}
}

// TestCompareSameOutputAnyParallelism: one worker or two, the same bytes.
func TestCompareSameOutputAnyParallelism(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(2)
	_, parallel, _ := compare(seedArgs...)
	runtime.GOMAXPROCS(1)
	_, serial, errs := compare(seedArgs...)
	if parallel == "" || parallel != serial {
		t.Errorf("output differs between 2 workers and 1 (%s):\n%s\n---\n%s", errs, parallel, serial)
	}
}

// smallChip is a chip file with 1 GiB of DRAM: seed-moe-3b Q4_0 (1.76 GB
// of weights) does not fit.
const smallChip = `name: Small chip
price_usd: 25
memory:
  dram: {type: LPDDR4X, bandwidth: 17 GB/s, capacity: 1 GiB}
units:
  - {name: npu, kind: npu, peak: {int8: 6 TOPS}}
`

// TestCompareChipThatDoesNotFit: the chip keeps its row, with null figures
// and the reason, the others run, stderr counts it, exit 0; when no chip
// fits, exit 2.
func TestCompareChipThatDoesNotFit(t *testing.T) {
	small := filepath.Join(t.TempDir(), "small.yaml")
	if err := os.WriteFile(small, []byte(smallChip), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--model", "seed-moe-3b", "--prompt", "16", "--gen", "2", "--fidelity", "analytic"}
	code, out, errs := compare(append(args, "--soc", "seed-a,"+small+",seed-c", "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := compareRows(t, out)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	mid := rows[1]
	if mid["soc"] != small || !strings.Contains(fmt.Sprint(mid["error"]), "does not fit: needs") {
		t.Errorf("the small chip's row: soc %v, error %v", mid["soc"], mid["error"])
	}
	if v, ok := mid["ttft_s"]; !ok || v != nil {
		t.Errorf("the small chip's ttft_s = %v, want null", v)
	}
	if d := mid["decode"].(map[string]any); d["tokens_per_s"] != nil {
		t.Errorf("the small chip's decode.tokens_per_s = %v, want null", d["tokens_per_s"])
	}
	if mid["prompt"] != float64(16) || mid["model"] != "seed-moe-3b" {
		t.Errorf("the workload is not kept: prompt %v, model %v", mid["prompt"], mid["model"])
	}
	for _, i := range []int{0, 2} {
		if _, ok := rows[i]["decode"].(map[string]any)["tokens_per_s"].(float64); !ok {
			t.Errorf("row %d did not run: %v", i, rows[i]["error"])
		}
	}
	if !strings.Contains(errs, "1 of 3 chips did not run") || !strings.Contains(errs, small) {
		t.Errorf("stderr %q should count and name the chip that did not run", errs)
	}

	// The table says why at the end of the row, and shows the prices.
	code, out, _ = compare(append(args, "--soc", "seed-a,"+small)...)
	if code != 0 || !strings.Contains(out, "does not fit: needs") || !strings.Contains(out, "$25") || !strings.Contains(out, "$100") {
		t.Errorf("table (exit %d):\n%s", code, out)
	}

	code, out, errs = compare(append(args, "--soc", small)...)
	if code != 2 || out != "" || !strings.Contains(errs, "no chip of the comparison ran") || !strings.Contains(errs, "does not fit") {
		t.Errorf("nothing fits: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestCompareTableAndCSV(t *testing.T) {
	args := []string{"--soc", "seed-a,seed-c", "--model", "seed-moe-3b", "--prompt", "16", "--gen", "2", "--fidelity", "analytic"}
	code, out, errs := compare(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "seed-moe-3b Q4_0 — prompt 16 · generate 2") ||
		!strings.Contains(lines[2], "decode tok/s") || !strings.Contains(lines[2], "price") ||
		!strings.HasPrefix(strings.TrimSpace(lines[3]), "seed-a") || !strings.HasPrefix(strings.TrimSpace(lines[4]), "seed-c") {
		t.Errorf("table:\n%s", out)
	}
	code, out, errs = compare(append(args, "--format", "csv")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "soc,model,quant") || !strings.HasPrefix(lines[1], "seed-a,") || !strings.HasPrefix(lines[2], "seed-c,") {
		t.Errorf("csv:\n%s", out)
	}
}

func TestComparePlot(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cmp.svg")
	code, _, errs := compare("--soc", "seed-a,seed-b", "--model", "seed-moe-3b", "--prompt", "16", "--gen", "2",
		"--fidelity", "analytic", "--plot", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"decode (tokens/s)", "seed-a", "seed-b", "DRAM bandwidth used (% of peak)"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the plot lacks %q", want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d files; a temporary file stayed", len(entries))
	}
}

// TestCompareBadInputExits2: a bad chip list or flag is exit 2 with a
// one-line message, before anything runs, and nothing on stdout.
func TestCompareBadInputExits2(t *testing.T) {
	base := []string{"--model", "seed-moe-3b", "--prompt", "8", "--gen", "1"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "--soc is required"},
		{[]string{"--soc", "seed-a,,seed-b"}, "empty entry"},
		{[]string{"--soc", "seed-a,"}, "empty entry"},
		{[]string{"--soc", "seed-a,seed-a"}, "--soc lists seed-a twice"},
		{[]string{"--soc", "seed-a,seed-z"}, `--soc "seed-z": no catalog chip`},
		{[]string{"--soc", "seed-a,missing/chip.yaml"}, "missing/chip.yaml"},
		{[]string{"--soc", "seed-a,seed-b", "--format", "xml"}, `--format "xml"`},
		{[]string{"--soc", "seed-a,seed-b", "--plot", "cmp.gif"}, "use .png, .svg or .pdf"},
		{[]string{"--soc", "seed-a,seed-b", "--plot", filepath.Join(t.TempDir(), "no", "cmp.png")}, "no directory"},
		{[]string{"--soc", "seed-a,seed-b", "--set", "memory.dram.speed=1"}, "unknown path"},
		{[]string{"--soc", "seed-a,seed-b", "--quant", "Q3_X"}, "Q3_X"},
		{[]string{"--soc", "seed-a", "extra"}, "unknown command"},
	} {
		code, out, errs := compare(append(base, tc.args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", tc.args, code, errs)
		}
		if !strings.Contains(errs, tc.want) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, errs, tc.want)
		}
		if strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: message spans lines: %q", tc.args, errs)
		}
		if out != "" {
			t.Errorf("%v: wrote to stdout on error: %q", tc.args, out)
		}
	}
}
