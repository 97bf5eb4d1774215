package main

import (
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// sweepCLI runs `edgetwin sweep args...` in-process.
func sweepCLI(args ...string) (code int, stdout, stderr string) {
	return edgetwin(append([]string{"sweep"}, args...)...)
}

// sweepPoints decodes a JSON sweep as a list of key/value lists, in
// document order.
func sweepPoints(t *testing.T, out string) []map[string]any {
	t.Helper()
	var points []map[string]any
	if err := json.Unmarshal([]byte(out), &points); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	return points
}

const MiB = 1 << 20

var kvArgs = []string{"--soc", "seed-c", "--model", "seed-moe-3b", "--vary", "kv=1MiB..4MiB:1MiB",
	"--metrics", "memory.kv_l3_miss_rate,decode.tokens_per_s", "--gen", "4", "--format", "json"}

// TestSweepKV: four points in range order, the context derived from the
// KV-cache size, every metric a number.
func TestSweepKV(t *testing.T) {
	code, out, errs := sweepCLI(kvArgs...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	points := sweepPoints(t, out)
	if len(points) != 4 {
		t.Fatalf("%d points, want 4", len(points))
	}
	// seed-moe-3b's F16 KV cache is 2 × 24 layers × 4 KV heads × 128 ×
	// 2 B = 49152 B a token: 1 MiB is 21.3 tokens, 2 MiB 42.7, 3 MiB 64,
	// 4 MiB 85.3.
	wantCtx := []float64{21, 43, 64, 85}
	for i, p := range points {
		if p["kv"] != float64((i+1)*MiB) || p["ctx"] != wantCtx[i] {
			t.Errorf("point %d: kv %v ctx %v, want %d and %v", i, p["kv"], p["ctx"], (i+1)*MiB, wantCtx[i])
		}
		for _, m := range []string{"memory.kv_l3_miss_rate", "decode.tokens_per_s"} {
			if v, ok := p[m].(float64); !ok || v <= 0 {
				t.Errorf("point %d: %s = %v", i, m, p[m])
			}
		}
	}
	if i, j := strings.Index(out, `"kv"`), strings.Index(out, `"ctx"`); i < 0 || j < i || strings.Index(out, `"memory.kv_l3_miss_rate"`) < j {
		t.Errorf("keys out of order (kv, ctx, then the metrics):\n%s", out)
	}
}

// TestSweepSameOutputAnyParallelism: one worker or four, the same bytes.
func TestSweepSameOutputAnyParallelism(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(4)
	_, parallel, _ := sweepCLI(kvArgs...)
	runtime.GOMAXPROCS(1)
	_, serial, errs := sweepCLI(kvArgs...)
	if parallel == "" || parallel != serial {
		t.Errorf("output differs between 4 workers and 1 (%s):\n%s\n---\n%s", errs, parallel, serial)
	}
}

// TestSweepNests: the first --vary is the outer loop, and a --set path
// reaches the simulator: decode, which streams the weights from DRAM,
// is faster on the faster DRAM.
func TestSweepNests(t *testing.T) {
	code, out, errs := sweepCLI("--soc", "seed-c", "--model", "seed-moe-3b", "--vary", "ctx=16,32",
		"--vary", "memory.dram.bandwidth=25.5GB/s,51GB/s", "--metrics", "decode.tokens_per_s", "--gen", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	points := sweepPoints(t, out)
	var got [][2]float64
	for _, p := range points {
		got = append(got, [2]float64{p["ctx"].(float64), p["memory.dram.bandwidth"].(float64)})
	}
	want := [][2]float64{{16, 25.5e9}, {16, 51e9}, {32, 25.5e9}, {32, 51e9}}
	if !slices.Equal(got, want) {
		t.Errorf("points %v, want %v", got, want)
	}
	for i := 0; i < len(points); i += 2 {
		slow, fast := points[i]["decode.tokens_per_s"].(float64), points[i+1]["decode.tokens_per_s"].(float64)
		if fast <= slow {
			t.Errorf("ctx %v: %v tokens/s at 51 GB/s, not above %v at 25.5 GB/s", got[i][0], fast, slow)
		}
	}
}

func TestSweepTableAndCSV(t *testing.T) {
	args := []string{"--soc", "seed-c", "--model", "seed-moe-3b", "--vary", "kv=1MiB,2MiB", "--metrics", "decode.tokens_per_s,ttft_s", "--gen", "2"}
	code, out, errs := sweepCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "seed-moe-3b Q4_0 on seed-c") ||
		!strings.Contains(lines[2], "decode.tokens_per_s") || !strings.Contains(lines[3], "1 MiB") || !strings.Contains(lines[3], " ms") {
		t.Errorf("table:\n%s", out)
	}
	code, out, errs = sweepCLI(append(args, "--format", "csv")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || lines[0] != "kv,ctx,decode.tokens_per_s,ttft_s" || !strings.HasPrefix(lines[1], "1048576,21,") {
		t.Errorf("csv:\n%s", out)
	}
}

// TestSweepPointThatDoesNotFit: on a chip with 2 GiB of DRAM, seed-moe-3b
// Q4_0 (1.76 GB of weights) leaves room for 256 MiB of KV cache but not
// 1 GiB. The sweep reports that point with null metrics and why, and
// exits 0; when no point fits it exits 2.
func TestSweepPointThatDoesNotFit(t *testing.T) {
	args := []string{"--soc", "seed-c", "--model", "seed-moe-3b", "--fidelity", "analytic", "--gen", "1",
		"--vary", "kv=64MiB..1GiB:x4", "--metrics", "decode.tokens_per_s", "--format", "json"}
	code, out, errs := sweepCLI(append(args, "--set", "memory.dram.capacity=2GiB")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	points := sweepPoints(t, out)
	if len(points) != 3 {
		t.Fatalf("%d points, want 3", len(points))
	}
	for i, p := range points[:2] {
		if _, ok := p["decode.tokens_per_s"].(float64); !ok || p["error"] != nil {
			t.Errorf("point %d should have run: %v", i, p)
		}
	}
	last := points[2]
	if v, ok := last["decode.tokens_per_s"]; !ok || v != nil || !strings.Contains(fmt.Sprint(last["error"]), "does not fit: needs") {
		t.Errorf("the 1 GiB point: %v", last)
	}
	if !strings.Contains(errs, "1 of 3 points did not run") || !strings.Contains(errs, "kv=1 GiB") {
		t.Errorf("stderr %q should count and name the point that did not run", errs)
	}

	code, out, errs = sweepCLI(append(args, "--set", "memory.dram.capacity=1GiB")...)
	if code != 2 || out != "" || !strings.Contains(errs, "no point of the sweep ran") || !strings.Contains(errs, "does not fit") {
		t.Errorf("nothing fits: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestSweepPlot(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kv.png")
	code, _, errs := sweepCLI("--soc", "seed-c", "--model", "seed-moe-3b", "--vary", "kv=1MiB..2MiB:1MiB",
		"--metrics", "memory.kv_l3_miss_rate,decode.tokens_per_s", "--gen", "2", "--plot", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if cfg, err := png.DecodeConfig(f); err != nil || cfg.Width < 1200 {
		t.Errorf("plot: %v, %d px wide", err, cfg.Width)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d files; a temporary file stayed", len(entries))
	}
}

// TestSweepBadInputExits2: every bad input is exit 2 with a one-line
// message, before anything runs, and nothing on stdout.
func TestSweepBadInputExits2(t *testing.T) {
	base := []string{"--soc", "seed-c", "--model", "seed-moe-3b", "--gen", "1"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--vary", "kv=1MiB", "--metrics", "kv_l3_miss_rate"}, "closest: memory.kv_l3_miss_rate"},
		{[]string{"--vary", "kv=1MiB", "--metrics", "decode.tokens_per_s,soc"}, "--metrics soc is not a numeric key"},
		{[]string{"--vary", "kv=1MiB"}, "--metrics is required"},
		{[]string{"--metrics", "ttft_s"}, "--vary is required"},
		{[]string{"--vary", "kv=4MiB..1MiB:1MiB", "--metrics", "ttft_s"}, "--vary kv=4MiB..1MiB:1MiB: the range runs backwards"},
		{[]string{"--vary", "kv=1MiB..4MiB:x1", "--metrics", "ttft_s"}, "factor must be above 1"},
		{[]string{"--vary", "memory.l3.sise=3MiB,6MiB", "--metrics", "ttft_s"}, `--vary memory.l3.sise=3 MiB: field memory.l3.sise: unknown path: memory.l3 has no field "sise"`},
		{[]string{"--vary", "model.kv_head=1,2", "--metrics", "ttft_s"}, "unknown path"},
		{[]string{"--vary", "memory.l3.size=1GB/s,2GB/s", "--metrics", "ttft_s"}, "GB/s is a bandwidth, not a size"},
		{[]string{"--vary", "scenario.turns=1,2", "--metrics", "ttft_s"}, "no --scenario to apply it to"},
		{[]string{"--vary", "kv=1MiB", "--vary", "ctx=5", "--metrics", "ttft_s"}, "vary one of them"},
		{[]string{"--vary", "kv=1MiB", "--metrics", "ttft_s", "--plot", "kv.gif"}, "use .png, .svg or .pdf"},
		{[]string{"--vary", "kv=1MiB", "--metrics", "ttft_s", "--plot", filepath.Join(t.TempDir(), "no", "kv.png")}, "no directory"},
		{[]string{"--vary", "kv=1MiB", "--metrics", "ttft_s", "--format", "xml"}, `--format "xml"`},
		{[]string{"--vary", "kv=1MiB", "--metrics", "ttft_s", "--set", "memory.dram.speed=1"}, "--set: field memory.dram.speed: unknown path"},
		{[]string{"--vary", "kv=1MiB", "--metrics", "ttft_s", "--unit", "tpu"}, `unit "tpu": seed-c has no such unit`}, // a point's error, as its JSON keeps it
	} {
		code, out, errs := sweepCLI(append(base, tc.args...)...)
		expectBadInput(t, tc.args, code, out, errs, tc.want)
	}
}

// shardArgs is a small analytic sweep of 12 points, 4 of which do not fit
// (1 GiB of KV cache beside 1.76 GB of weights in 2 GiB), so the merge
// carries errors and null metrics too.
var shardArgs = []string{"--soc", "seed-c", "--model", "seed-moe-3b", "--fidelity", "analytic", "--gen", "4",
	"--set", "memory.dram.capacity=2GiB", "--vary", "kv=64MiB..1GiB:x4", "--vary", "memory.dram.bandwidth=25GB/s..100GB/s:25GB/s",
	"--metrics", "decode.tokens_per_s,memory.kv_l3_miss_rate,ttft_s"}

// writeShards runs the sweep as n shards with extra flags and returns the
// parts' paths.
func writeShards(t *testing.T, n int, extra ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var parts []string
	for i := range n {
		code, out, errs := sweepCLI(append(append(slices.Clone(shardArgs), extra...), "--shard", fmt.Sprintf("%d/%d", i, n))...)
		if code != 0 {
			t.Fatalf("shard %d/%d: exit %d: %s", i, n, code, errs)
		}
		path := filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", i))
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, path)
	}
	return parts
}

// TestSweepMergeEqualsUnsharded: three shards merged, in any order, print
// the bytes the unsharded sweep prints, in every format, stderr note
// included.
func TestSweepMergeEqualsUnsharded(t *testing.T) {
	parts := writeShards(t, 3)
	slices.Reverse(parts)
	for _, format := range []string{"json", "csv", "table"} {
		code, want, wantErr := sweepCLI(append(slices.Clone(shardArgs), "--format", format)...)
		if code != 0 {
			t.Fatalf("unsharded %s: exit %d: %s", format, code, wantErr)
		}
		code, got, gotErr := edgetwin(append([]string{"sweep", "merge", "--format", format}, parts...)...)
		if code != 0 || got != want || gotErr != wantErr {
			t.Errorf("merge --format %s: exit %d, stderr %q (want %q); output equal: %v\n%s\n---\n%s", format, code, gotErr, wantErr, got == want, got, want)
		}
	}
	// --format jsonl unsharded is one part holding every point.
	code, out, errs := sweepCLI(append(slices.Clone(shardArgs), "--format", "jsonl")...)
	if lines := strings.Count(out, "\n"); code != 0 || lines != 13 || !strings.Contains(out, `"shard":"0/1"`) {
		t.Errorf("unsharded jsonl: exit %d, %d lines (want a header and 12 points): %s", code, lines, errs)
	}
}

// TestSweepShardAutoKubernetes: JOB_COMPLETION_INDEX with --shards picks
// the shard, as in an Indexed Job, and the parts merge.
func TestSweepShardAutoKubernetes(t *testing.T) {
	t.Setenv("SLURM_ARRAY_TASK_ID", "") // as in a pod, even when the tests run under Slurm
	dir := t.TempDir()
	var parts []string
	for i := range 4 {
		t.Setenv("JOB_COMPLETION_INDEX", fmt.Sprint(i))
		code, out, errs := sweepCLI(append(slices.Clone(shardArgs), "--shard", "auto", "--shards", "4")...)
		if code != 0 || !strings.Contains(out, fmt.Sprintf(`"shard":"%d/4"`, i)) {
			t.Fatalf("index %d: exit %d, %s", i, code, errs)
		}
		parts = append(parts, filepath.Join(dir, fmt.Sprint(i)))
		if err := os.WriteFile(parts[i], []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, want, _ := sweepCLI(append(slices.Clone(shardArgs), "--format", "csv")...)
	if code, got, errs := edgetwin(append([]string{"sweep", "merge", "--format", "csv"}, parts...)...); code != 0 || got != want {
		t.Errorf("merge: exit %d (%s):\n%s\nwant\n%s", code, errs, got, want)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "")
	code, out, errs := sweepCLI(append(slices.Clone(shardArgs), "--shard", "auto", "--shards", "4")...)
	expectBadInput(t, []string{"--shard", "auto", "(no environment)"}, code, out, errs, "neither SLURM_ARRAY_TASK_ID")
}

// TestSweepMergeRefuses: a missing point, a point given twice and a part
// of another sweep are exit 2, naming the point or the difference.
func TestSweepMergeRefuses(t *testing.T) {
	parts := writeShards(t, 3)
	other := writeShards(t, 3, "--gen", "8") // another sweep: its flags differ
	dup := filepath.Join(t.TempDir(), "again.jsonl")
	data, _ := os.ReadFile(parts[1])
	if err := os.WriteFile(dup, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		parts []string
		want  string
	}{
		{parts[:2], "4 points are missing (2, 5, 8, 11) of 12; shard 2/3 holds point 2"},
		{[]string{parts[0], parts[1], parts[2], dup}, "point 1 is present twice"},
		{[]string{parts[0], parts[1], parts[1]}, "is given twice"},
		{[]string{parts[0], parts[1], other[2]}, "parts of different sweeps: their other settings differ"},
	} {
		code, out, errs := edgetwin(append([]string{"sweep", "merge"}, tc.parts...)...)
		expectBadInput(t, tc.parts, code, out, errs, tc.want)
	}
}

// TestSweepShardBadInput: --shard forms and the flags that cannot go with
// a shard are exit 2 before anything runs.
func TestSweepShardBadInput(t *testing.T) {
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	t.Setenv("JOB_COMPLETION_INDEX", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "4/4"}, `--shard "4/4" is not allowed: use I/N with 0 ≤ I < N`},
		{[]string{"--shard", "x"}, `--shard "x" is not allowed`},
		{[]string{"--shard", "0/2", "--shards", "2"}, "--shards 2 goes with shard auto"},
		{[]string{"--shard", "0/2", "--format", "csv"}, "a shard (--shard) writes JSON Lines"},
		{[]string{"--shard", "0/2", "--plot", "x.png"}, "give --plot to edgetwin sweep merge"},
		{[]string{"--format", "xml"}, "use table, json, csv or jsonl"},
	} {
		code, out, errs := sweepCLI(append(slices.Clone(shardArgs), tc.args...)...)
		expectBadInput(t, tc.args, code, out, errs, tc.want)
	}
}

// TestSweepSample: --sample lhs:N runs N points of a space far larger
// than a grid may be (32 × 181 × 16 values here), each value inside its
// range; the same --seed draws the same points and shards merge to them,
// another --seed draws others, and --plot is refused (a sample has no
// lines to draw).
func TestSweepSample(t *testing.T) {
	args := []string{"--soc", "seed-c", "--model", "seed-moe-3b", "--fidelity", "analytic", "--gen", "4",
		"--vary", "ctx=128..4096:128", "--vary", "memory.dram.bandwidth=20GB/s..200GB/s:1GB/s", "--vary", "memory.l3.size=3MiB..48MiB:3MiB",
		"--metrics", "decode.tokens_per_s", "--sample", "lhs:6"}
	code, whole, errs := sweepCLI(append(slices.Clone(args), "--format", "csv")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if rows := strings.Count(whole, "\n"); rows != 7 {
		t.Errorf("%d lines, want a header and 6 points:\n%s", rows, whole)
	}
	if _, again, _ := sweepCLI(append(slices.Clone(args), "--format", "csv")...); again != whole {
		t.Error("the same seed drew other points")
	}
	if _, other, _ := sweepCLI(append(slices.Clone(args), "--format", "csv", "--seed", "2")...); other == whole {
		t.Error("another seed drew the same points")
	}
	dir := t.TempDir()
	var parts []string
	for i := range 2 {
		code, out, errs := sweepCLI(append(slices.Clone(args), "--shard", fmt.Sprintf("%d/2", i))...)
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errs)
		}
		parts = append(parts, filepath.Join(dir, fmt.Sprintf("p%d.jsonl", i)))
		if err := os.WriteFile(parts[i], []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, merged, errs := edgetwin(append([]string{"sweep", "merge", "--format", "csv"}, parts...)...); code != 0 || merged != whole {
		t.Errorf("merged shards: exit %d, %s\n%s\nwant\n%s", code, errs, merged, whole)
	}
	if code, _, errs := sweepCLI(append(slices.Clone(args), "--plot", filepath.Join(dir, "p.png"))...); code != 2 || !strings.Contains(errs, "a --sample has none") {
		t.Errorf("--plot with --sample: exit %d, %s", code, errs)
	}
}

// TestSweepOverNames: quant, model and runtime vary as lists of names,
// each point run as its flag would run it: a quant's point is the run
// --quant gives, a requirement reads vary.quant as the name, the shards
// merge to the unsharded output, a name no run takes is refused before
// anything runs, and a plot needs a numeric field first.
func TestSweepOverNames(t *testing.T) {
	args := []string{"--soc", "apple-m2", "--model", "llama-3.2-1b", "--runtime", "llama.cpp-metal", "--fidelity", "analytic",
		"--prompt", "64", "--gen", "8", "--vary", "quant=Q8_0,Q4_0", "--vary", "ctx=64,128",
		"--metrics", "decode.tokens_per_s,quality.ppl_delta", "--require", `vary.quant != "Q8_0" && quality.ppl_delta < 1`}
	code, out, errs := sweepCLI(append(slices.Clone(args), "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	points := sweepPoints(t, out)
	if len(points) != 4 || points[0]["quant"] != "Q8_0" || points[2]["quant"] != "Q4_0" || points[1]["ctx"] != 128.0 {
		t.Fatalf("points %v: want Q8_0 then Q4_0, each at ctx 64 and 128", points)
	}
	if points[0]["pass"] != false || points[2]["pass"] != true {
		t.Errorf("vary.quant in --require: pass %v, %v; want false for Q8_0, true for Q4_0", points[0]["pass"], points[2]["pass"])
	}
	for i, q := range map[int]string{0: "Q8_0", 3: "Q4_0"} {
		ctx := fmt.Sprint(points[i]["ctx"])
		code, one, errs := edgetwin("simulate", "--soc", "apple-m2", "--model", "llama-3.2-1b", "--runtime", "llama.cpp-metal", "--fidelity", "analytic",
			"--prompt", ctx, "--gen", "8", "--quant", q, "--format", "json")
		if code != 0 {
			t.Fatalf("simulate --quant %s: %s", q, errs)
		}
		var r struct {
			Decode struct {
				TokensPerS float64 `json:"tokens_per_s"`
			} `json:"decode"`
		}
		json.Unmarshal([]byte(one), &r)
		if got := points[i]["decode.tokens_per_s"]; got != r.Decode.TokensPerS {
			t.Errorf("point %d (%s, ctx %s): decode %v, simulate --quant says %v", i, q, ctx, got, r.Decode.TokensPerS)
		}
	}
	dir := t.TempDir()
	var parts []string
	for i := range 2 {
		code, part, errs := sweepCLI(append(slices.Clone(args), "--shard", fmt.Sprintf("%d/2", i))...)
		if code != 0 {
			t.Fatalf("shard %d: %s", i, errs)
		}
		parts = append(parts, filepath.Join(dir, fmt.Sprint(i)))
		os.WriteFile(parts[i], []byte(part), 0o644)
	}
	if code, got, errs := edgetwin(append([]string{"sweep", "merge", "--format", "json"}, parts...)...); code != 0 || got != out {
		t.Errorf("merge: exit %d (%s), equal %v", code, errs, got == out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--vary", "quant=Q4_0,Q9"}, "quant=Q9"},
		{[]string{"--vary", "runtime=genie,nosuch"}, `runtime=nosuch`},
		{[]string{"--vary", "model=llama-3.2-1b,llama-9"}, "model=llama-9"},
		{[]string{"--vary", "quant=Q4_0,Q8_0", "--plot", filepath.Join(dir, "q.png")}, "quant takes names, not numbers"},
	} {
		base := []string{"--soc", "apple-m2", "--model", "llama-3.2-1b", "--fidelity", "analytic", "--metrics", "decode.tokens_per_s"}
		code, out, errs := sweepCLI(append(base, tc.args...)...)
		expectBadInput(t, tc.args, code, out, errs, tc.want)
	}
}
