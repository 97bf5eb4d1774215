package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/runtimes"
)

func edgetwin(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// requiredKeys are the JSON keys CONTRACT.md promises.
var requiredKeys = []string{
	"soc", "model", "quant",
	"prefill.tokens", "prefill.seconds", "prefill.tokens_per_s",
	"decode.tokens", "decode.seconds", "decode.tokens_per_s", "decode.first_10s_tokens_per_s",
	"decode.ms_per_token.p50", "decode.ms_per_token.p99", "ttft_s",
	"memory.weights_bytes", "memory.kv_bytes", "memory.dram_bytes", "memory.dram_bw_util",
	"memory.l3_miss_rate", "memory.kv_l3_miss_rate",
	"compute.tops_eff", "compute.mac_util", "compute.stall_mem", "compute.stall_issue",
	"energy.joules_per_token", "energy.avg_power_w",
	"thermal.peak_c", "thermal.skin_peak_c", "thermal.throttle_onset_s", "thermal.sustained_tokens_per_s",
	"provenance",
}

func TestSimulateJSONHasEveryKey(t *testing.T) {
	code, out, errs := edgetwin("simulate", "--soc", "seed-a", "--prompt", "32", "--gen", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range requiredKeys {
		var v any = doc
		for _, part := range strings.Split(key, ".") {
			m, ok := v.(map[string]any)
			if !ok {
				t.Errorf("%s: %v is not an object", key, v)
				break
			}
			if v, ok = m[part]; !ok {
				t.Errorf("JSON lacks %s", key)
				break
			}
		}
	}
}

func TestEveryChipThatHoldsTheModelSimulates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs llama-2-7b on every catalog chip")
	}
	for _, id := range hw.ChipIDs() {
		code, out, errs := edgetwin("simulate", "--soc", id, "--model", "llama-2-7b", "--format", "json", "--prompt", "64", "--gen", "8")
		switch {
		case code == 0 && json.Valid([]byte(out)):
		case code == 2 && strings.Contains(errs, "does not fit: needs"):
		default:
			t.Errorf("%s: exit %d, %s", id, code, errs)
		}
	}
}

func TestDefaultTable(t *testing.T) {
	code, out, errs := edgetwin("simulate", "--prompt", "64", "--gen", "8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"time to first token", "prefill", "decode", "TOPS", "DRAM", "L3 miss rate", "where time went", "memory stall"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestBadInputExits2: every bad input is exit 2 with a one-line message
// naming the problem, and nothing on stdout.
func TestBadInputExits2(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badChip := write("bad.yaml", "name: x\nmemory:\n  dram: {type: LPDDR5, bandwidth: 10 GB/s, capacity: 8 GiB, speed: 3}\nunits: [{name: npu, kind: npu, peak: {int8: 1 TOPS}}]\n")
	badConfig := write("config.json", "{\n  \"model_type\": \"llama\",\n  \"num_hidden_layers\": -3,\n  \"hidden_size\": 4096\n}\n")
	binary := write("blob.yaml", "\x00\x01\x02\x03")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--prompt", "-5"}, "--prompt -5"},
		{[]string{"simulate", "--gen", "-1"}, "--gen -1"},
		{[]string{"simulate", "--batch", "0"}, "--batch 0"},
		{[]string{"simulate", "--prompt", "many"}, "invalid argument"},
		{[]string{"simulate", "--quant", "Q9_9"}, "Q9_9"},
		{[]string{"simulate", "--kv-dtype", "F12"}, "F12"},
		{[]string{"simulate", "--fidelity", "bogus"}, "--fidelity \"bogus\""},
		{[]string{"simulate", "--format", "xml"}, "--format \"xml\""},
		{[]string{"simulate", "--set", "memory.dram.speed=1"}, "unknown path"},
		{[]string{"simulate", "--set", "memory.dram.bandwidth=fast"}, "not a bandwidth"},
		{[]string{"simulate", "--set", "nonsense"}, "PATH=VALUE"},
		{[]string{"simulate", "--set", "model.layers=0"}, "layers"},
		{[]string{"simulate", "--soc", "no-such-chip"}, "no catalog chip"},
		{[]string{"simulate", "--soc", filepath.Join(dir, "missing.yaml")}, "no such file"},
		{[]string{"simulate", "--soc", badChip}, "bad.yaml:3:61: field memory.dram.speed"},
		{[]string{"simulate", "--soc", binary}, "binary"},
		{[]string{"simulate", "--model", badConfig}, "config.json:3: field num_hidden_layers"},
		{[]string{"simulate", "--unit", "tpu"}, "--unit \"tpu\""},
		{[]string{"simulate", "--soc", "raspberry-pi-5", "--quant", "F16"}, "does not fit: needs"},
		{[]string{"simulate", "--bogus"}, "unknown flag"},
		{[]string{"simulate", "--policy", "bogus"}, "--policy \"bogus\": no catalog policy; known: kv-first, naive, stream-weights"},
		{[]string{"simulate", "--policy", filepath.Join(dir, "missing.yaml")}, "cannot read policy file: no such file"},
		{[]string{"simulate", "--set", "units.npu.ops=[matmul, softmax]"}, "\"softmax\" is not an operator"},
		{[]string{"catalog", "show", "nope"}, "no catalog chip, model or runtime"},
		{[]string{"simulate", "--runtme", "genie"}, "unknown flag: --runtme; did you mean --runtime?"},
		{[]string{"sweep", "--vary", "ctx=128,256", "--metrics", "l3_miss"}, "closest: memory.l3_miss_rate"},
		{[]string{"simulate", "--draft-accept", "0.5"}, "--draft-accept needs --draft"},
		{[]string{"simulate", "--model", "llama-3.1-8b", "--draft", "nosuch"}, "--draft \"nosuch\": no catalog model"},
		{[]string{"simulate", "--model", "llama-3.1-8b", "--draft", "llama-3.2-1b", "--draft-len", "0"}, "--draft-len 0 is not allowed"},
		{[]string{"simulate", "--model", "llama-3.1-8b", "--draft", "llama-3.2-1b", "--draft-accept", "2"}, "--draft-accept 2 is not allowed"},
		{[]string{"simulate", "--draft", "llama-3.2-1b"}, "share the model's tokenizer"},
	} {
		code, out, errs := edgetwin(tc.args...)
		expectBadInput(t, tc.args, code, out, errs, tc.want)
	}
}

// expectBadInput checks a run that must fail on its input: exit 2, one line
// on stderr naming the problem, nothing on stdout.
func expectBadInput(t *testing.T, args []string, code int, out, errs, want string) {
	t.Helper()
	if code != 2 {
		t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errs)
	}
	if !strings.Contains(errs, want) {
		t.Errorf("%v: stderr %q lacks %q", args, errs, want)
	}
	if strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("%v: message spans lines: %q", args, errs)
	}
	if out != "" {
		t.Errorf("%v: wrote to stdout on error: %q", args, out)
	}
}

func TestSimulateListsFallbacksAndCounters(t *testing.T) {
	code, out, errs := edgetwin("simulate", "--soc", "seed-c", "--model", "seed-moe-3b", "--prompt", "32", "--gen", "4",
		"--set", "units.npu.ops=[embed, norm, matmul, attention, activation, residual, router]", "--policy", "kv-first", "--fidelity", "line")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"kv-first placement, line fidelity", "on cpu", "rope ×", "hand-off", "npu → cpu ×", "cpu → npu ×", "profiler", "stall_mem", "stall_issue", "mac_util", "FLAG"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestSimulateSplitsLayers: --cpu-layers places blocks on the CPU and the
// table says so, with the hand-off each boundary takes; a value that is
// not a set of blocks is refused naming the flag.
func TestSimulateSplitsLayers(t *testing.T) {
	code, out, errs := edgetwin("simulate", "--soc", "seed-c", "--model", "llama-3.2-1b", "--prompt", "32", "--gen", "4", "--cpu-layers", "0-3", "--fidelity", "analytic")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"layer split", "blocks 0-3 on the cpu, the rest on npu", "on cpu", "matmul ×", "hand-off", "cpu → npu ×5: 144 KiB copied"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	code, _, errs = edgetwin("simulate", "--cpu-layers", "3-1")
	if code != 2 || !strings.Contains(errs, "--cpu-layers") || !strings.Contains(errs, "a range runs from the lower block to the higher") {
		t.Errorf("--cpu-layers 3-1: exit %d, %q; want exit 2 naming the flag", code, errs)
	}
}

// TestSimulateSaysWhenTheBatchIsPadded: a runtime compiled for batches of
// 1, 2 and 4 runs a batch of 3 as 4, and the table's header says so.
func TestSimulateSaysWhenTheBatchIsPadded(t *testing.T) {
	src, _ := runtimes.Source("genie")
	path := filepath.Join(t.TempDir(), "genie-static.yaml")
	if err := os.WriteFile(path, append(src, []byte("batches: [1, 2, 4]\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := edgetwin("simulate", "--soc", "snapdragon-8-gen3", "--model", "llama-3.2-1b", "--runtime", path, "--batch", "3", "--prompt", "16", "--gen", "4", "--fidelity", "analytic")
	if code != 0 || !strings.Contains(out, "batch 3 (run as 4 by "+path+"'s compiled graphs: 1 of the 4 sequences is padding)") {
		t.Errorf("exit %d: %s\n%s", code, errs, out)
	}
}

func TestCatalogShowRoundTrips(t *testing.T) {
	code, out, _ := edgetwin("catalog")
	if code != 0 || !strings.Contains(out, "seed-c") || !strings.Contains(out, "seed-moe-3b") {
		t.Fatalf("catalog: exit %d\n%s", code, out)
	}
	for _, id := range hw.ChipIDs() {
		code, out, errs := edgetwin("catalog", "show", id)
		if code != 0 {
			t.Fatalf("%s: %s", id, errs)
		}
		p := filepath.Join(t.TempDir(), id+".yaml")
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		shown, err := hw.LoadChip(p, nil)
		if err != nil {
			t.Fatalf("%s: shown YAML does not load: %v", id, err)
		}
		orig, _ := hw.LoadChip(id, nil)
		a, _ := json.Marshal(orig.SoC)
		b, _ := json.Marshal(shown.SoC)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: shown YAML loads to a different chip", id)
		}
	}
}

func TestCompletionOffersCatalogIDs(t *testing.T) {
	code, out, _ := edgetwin("__complete", "simulate", "--soc", "seed")
	if code != 0 || !strings.Contains(out, "seed-c") {
		t.Errorf("completion of --soc: %q", out)
	}
	_, out, _ = edgetwin("__complete", "catalog", "show", "")
	if !strings.Contains(out, "llama-2-7b") || !strings.Contains(out, "snapdragon-8-gen3") {
		t.Errorf("completion of catalog show: %q", out)
	}
}

func TestSimulateTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	code, out, errs := edgetwin("simulate", "--soc", "seed-c", "--model", "seed-moe-3b", "--prompt", "16", "--gen", "4", "--trace", path)
	if code != 0 || !strings.Contains(out, "decode") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.TraceEvents) == 0 {
		t.Fatalf("trace is not trace-event JSON: %v", err)
	}
	code, out, errs = edgetwin("simulate", "--fidelity", "analytic", "--trace", path)
	expectBadInput(t, []string{"--fidelity analytic --trace"}, code, out, errs, "--trace needs the tile or line fidelity")
}

func TestScenarioFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--duration", "5m"}, "--duration needs a --scenario"},
		{[]string{"simulate", "--scenario", "sustained", "--duration", "-5m"}, "--duration \"-5m\" is not allowed"},
		{[]string{"simulate", "--scenario", "bogus"}, "--scenario \"bogus\": no catalog scenario; known: chat-30, single, sustained"},
		{[]string{"simulate", "--scenario", "sustained", "--set", "scenario.prompt=0"}, "--set: field scenario.prompt"},
		{[]string{"simulate", "--set", "scenario.prompt=5"}, "no --scenario to apply it to"},
		{[]string{"simulate", "--scenario", "sustained", "--set", "scenario.prompt=9999"}, "leaves nothing to decode"},
	} {
		code, out, errs := edgetwin(tc.args...)
		expectBadInput(t, tc.args, code, out, errs, tc.want)
	}
}

func TestCalibrateImport(t *testing.T) {
	files, _ := filepath.Glob("../../calibrate/testdata/llamabench/*.json")
	if len(files) == 0 {
		t.Fatal("no llama-bench sample in calibrate/testdata")
	}
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, errs := edgetwin("calibrate", "import", files[0], "--soc", "apple-m2", "-o", out)
	if code != 0 || !strings.Contains(errs, "records") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(data), `"kind":"decode"`) {
		t.Fatalf("records: %v\n%s", err, data)
	}
	code, o, errs := edgetwin("calibrate", "import", files[0], "-o", out)
	expectBadInput(t, []string{"calibrate import without --soc"}, code, o, errs, "needs --soc")
}

func TestSimulateSeries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.csv")
	code, _, errs := edgetwin("simulate", "--soc", "seed-c", "--model", "seed-moe-3b", "--prompt", "16", "--gen", "6", "--series", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	// A header, the prefill, and one row per decode step.
	if len(lines) != 1+1+6 || !strings.HasPrefix(lines[0], "phase,end_s,latency_ms,power_w,clock_npu_ghz") || !strings.HasPrefix(lines[1], "prefill,") {
		t.Errorf("series:\n%s", data)
	}
}

// TestRuntimeTakesItsUsersQuant: naming a runtime without --quant runs the
// quantisation its users run (Genie: W4A16; RKLLM: w8a8 as INT8), naming
// both keeps the user's, and a format the runtime cannot read is exit 2.
func TestRuntimeTakesItsUsersQuant(t *testing.T) {
	for _, c := range []struct {
		args          []string
		quant, runtme string
	}{
		{[]string{"--soc", "snapdragon-8-elite", "--runtime", "genie"}, "W4A16", "genie"},
		{[]string{"--soc", "rk3588", "--runtime", "rkllm"}, "INT8", "rkllm"},
		{[]string{"--soc", "snapdragon-8-elite", "--runtime", "genie", "--quant", "INT8"}, "INT8", "genie"},
		{[]string{"--soc", "snapdragon-8-elite"}, "Q4_0", "llama.cpp-opencl"},
	} {
		args := append([]string{"simulate", "--model", "llama-3.2-1b", "--prompt", "16", "--gen", "4", "--fidelity", "analytic", "--format", "json"}, c.args...)
		code, out, errs := edgetwin(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		var r struct{ Quant, Runtime string }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Quant != c.quant || r.Runtime != c.runtme {
			t.Errorf("%v: %s via %s, want %s via %s", c.args, r.Quant, r.Runtime, c.quant, c.runtme)
		}
	}
	code, _, errs := edgetwin("simulate", "--soc", "snapdragon-8-elite", "--model", "llama-3.2-1b", "--runtime", "genie", "--quant", "Q4_0")
	if code != 2 || !strings.Contains(errs, "does not read Q4_0") {
		t.Errorf("genie with Q4_0: exit %d, %s", code, errs)
	}
}
