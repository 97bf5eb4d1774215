package main

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// frontArgs is a tiny analytic sweep of 8 points: two L3 sizes × four
// DRAM bandwidths, on a short prompt so the points differ in both
// objectives.
var frontArgs = []string{"--soc", "seed-c", "--model", "llama-3.2-1b", "--fidelity", "analytic", "--gen", "4", "--prompt", "64",
	"--vary", "memory.l3.size=3MiB,12MiB", "--vary", "memory.dram.bandwidth=20GB/s..80GB/s:20GB/s",
	"--metrics", "decode.tokens_per_s,ttft_s"}

// TestSweepRequireAndPareto: --require keeps every point with its
// verdict; --pareto prints exactly the points that pass and that no
// other beats in both objectives, worked out here from the full sweep.
func TestSweepRequireAndPareto(t *testing.T) {
	code, out, errs := sweepCLI(append(slices.Clone(frontArgs), "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	all := sweepPoints(t, out)
	// The requirement cuts at the median TTFT, so some points fail.
	ttfts := make([]float64, len(all))
	for i, p := range all {
		ttfts[i] = p["ttft_s"].(float64)
	}
	sorted := slices.Sorted(slices.Values(ttfts))
	limit := (sorted[3] + sorted[4]) / 2
	req := fmt.Sprintf("ttft_s < %v", limit)
	args := append(slices.Clone(frontArgs), "--require", req, "--format", "json")
	code, out, errs = sweepCLI(args...)
	if code != 0 {
		t.Fatalf("--require: exit %d: %s", code, errs)
	}
	checked := sweepPoints(t, out)
	if len(checked) != len(all) {
		t.Fatalf("--require kept %d points of %d: failing ones stay, with pass false", len(checked), len(all))
	}
	for i, p := range checked {
		pass := ttfts[i] < limit
		if p["pass"] != pass {
			t.Errorf("point %d: ttft %v < %v is %v, pass is %v", i, ttfts[i], limit, pass, p["pass"])
		}
		if _, has := p["unmet"]; has == pass {
			t.Errorf("point %d: pass %v but unmet %v", i, pass, p["unmet"])
		}
	}

	// The front by hand: min bandwidth, max tokens/s over the passing points.
	type pt struct{ bw, tps float64 }
	var cand []pt
	for i, p := range all {
		if ttfts[i] < limit {
			cand = append(cand, pt{p["memory.dram.bandwidth"].(float64), p["decode.tokens_per_s"].(float64)})
		}
	}
	var want []pt
	for _, a := range cand {
		beaten := slices.ContainsFunc(cand, func(b pt) bool {
			return b.bw <= a.bw && b.tps >= a.tps && (b.bw < a.bw || b.tps > a.tps)
		})
		if !beaten {
			want = append(want, a)
		}
	}
	plot := filepath.Join(t.TempDir(), "front.png")
	code, out, errs = sweepCLI(append(args, "--pareto", "min:vary.memory.dram.bandwidth,max:decode.tokens_per_s", "--plot", plot)...)
	if code != 0 {
		t.Fatalf("--pareto: exit %d: %s", code, errs)
	}
	var got []pt
	for _, p := range sweepPoints(t, out) {
		got = append(got, pt{p["memory.dram.bandwidth"].(float64), p["decode.tokens_per_s"].(float64)})
		if p["pass"] != true {
			t.Errorf("a point on the front fails: %v", p)
		}
	}
	if len(want) == 0 || len(want) == len(all) || !slices.Equal(got, want) {
		t.Errorf("front %v, want %v (of %d points)", got, want, len(all))
	}
	if !strings.Contains(errs, fmt.Sprintf("the Pareto front holds %d of %d points", len(want), len(all))) {
		t.Errorf("stderr does not count the front: %q", errs)
	}
	f, err := os.Open(plot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("--plot: not a PNG: %v", err)
	}
}

// TestSweepRequireNull: a requirement on a figure the run does not give
// fails every point, saying that the figure is null.
func TestSweepRequireNull(t *testing.T) {
	args := []string{"--soc", "seed-c", "--model", "llama-3.2-1b", "--fidelity", "analytic", "--gen", "4", "--prompt", "16",
		"--vary", "ctx=16,32", "--metrics", "ttft_s", "--require", "thermal.sustained_tokens_per_s > 1", "--format", "json"}
	code, out, errs := sweepCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, p := range sweepPoints(t, out) {
		unmet := fmt.Sprint(p["unmet"])
		if p["pass"] != false || !strings.Contains(unmet, "requires thermal.sustained_tokens_per_s, which is null for ctx=") {
			t.Errorf("point %v: pass %v, unmet %s", p["ctx"], p["pass"], unmet)
		}
	}
}

// TestSweepExpressionErrorsExit2: a bad expression stops the sweep
// before any point runs (no progress, no output).
func TestSweepExpressionErrorsExit2(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--require", "ttft < 1"}, "unknown name ttft; did you mean ttft_cold_s, ttft_s"},
		{[]string{"--require", "ttft_s"}, "is a number, not a condition"},
		{[]string{"--require", "ttft_s <"}, "syntax error"},
		{[]string{"--require", "vary.kv > 1"}, "(names are the keys of the simulate result, as its JSON prints them, and the varied fields under vary.: vary.memory.l3.size, vary.memory.dram.bandwidth)"},
		{[]string{"--pareto", "min:ttft_s"}, "give two or three"},
		{[]string{"--pareto", "min:ttft_s,decode.tokens_per_s"}, "each objective starts with min: or max:"},
		{[]string{"--pareto", "min:ttft_s,max:ttft_s > 1"}, "not a number"},
		{[]string{"--pareto", "min:ttft_s,max:decode.tokens_per_sec"}, "unknown name decode.tokens_per_sec"},
	} {
		args := append(slices.Clone(frontArgs), tc.args...)
		code, out, errs := sweepCLI(args...)
		expectBadInput(t, tc.args, code, out, errs, tc.want)
	}
}

// TestSweepMergeKeepsTheFront: the parts of a sweep with --require and
// --pareto merge into the bytes the unsharded sweep prints.
func TestSweepMergeKeepsTheFront(t *testing.T) {
	args := append(slices.Clone(frontArgs), "--require", "ttft_s < 1", "--pareto", "min:vary.memory.dram.bandwidth,max:decode.tokens_per_s,min:energy.joules_per_token")
	dir := t.TempDir()
	var parts []string
	for i := range 3 {
		code, out, errs := sweepCLI(append(slices.Clone(args), "--shard", fmt.Sprintf("%d/3", i))...)
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errs)
		}
		parts = append(parts, filepath.Join(dir, fmt.Sprint(i)))
		if err := os.WriteFile(parts[i], []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, format := range []string{"json", "csv", "table"} {
		_, want, wantErr := sweepCLI(append(slices.Clone(args), "--format", format)...)
		code, got, gotErr := edgetwin(append([]string{"sweep", "merge", "--format", format}, parts...)...)
		if code != 0 || got != want || gotErr != wantErr {
			t.Errorf("merge --format %s: exit %d, stderr %q (want %q)\n%s\n---\n%s", format, code, gotErr, wantErr, got, want)
		}
	}
}

// TestSweepFrontOfASample: a sampled sweep has no grid to plot but has a
// front, which --plot draws; -o with --plot draws the whole sweep, which
// it is.
func TestSweepFrontOfASample(t *testing.T) {
	dir := t.TempDir()
	args := append(slices.Clone(frontArgs), "--sample", "lhs:5", "--pareto", "min:vary.memory.dram.bandwidth,max:decode.tokens_per_s",
		"--plot", filepath.Join(dir, "front.png"), "--format", "csv")
	code, out, errs := sweepCLI(args...)
	if code != 0 || !strings.HasPrefix(out, "memory.l3.size,memory.dram.bandwidth,decode.tokens_per_s,ttft_s\n") {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "front.png")); err != nil {
		t.Error(err)
	}
	code, _, errs = sweepCLI(append(slices.Clone(frontArgs), "-o", filepath.Join(dir, "run.jsonl"), "--plot", filepath.Join(dir, "grid.png"))...)
	if _, err := os.Stat(filepath.Join(dir, "grid.png")); code != 0 || err != nil {
		t.Errorf("-o with --plot: exit %d (%s), %v", code, errs, err)
	}
}
