package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSweepResume: a run cut after k whole points and inside the next
// line goes on with --resume and ends with the bytes of a run that was
// never cut, for every k, in a whole sweep and in a shard.
func TestSweepResume(t *testing.T) {
	dir := t.TempDir()
	for _, extra := range [][]string{nil, {"--shard", "1/3"}, {"--require", "ttft_s < 0.02", "--pareto", "min:vary.memory.dram.bandwidth,max:decode.tokens_per_s"}} {
		args := append(slices.Clone(frontArgs), extra...)
		whole := filepath.Join(dir, "whole.jsonl")
		if code, _, errs := sweepCLI(append(slices.Clone(args), "-o", whole)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errs)
		}
		want, err := os.ReadFile(whole)
		if err != nil {
			t.Fatal(err)
		}
		if _, stdout, _ := sweepCLI(append(slices.Clone(args), "--format", "jsonl")...); stdout != string(want) {
			t.Errorf("%v: -o wrote other bytes than --format jsonl prints", extra)
		}
		lines := bytes.SplitAfter(want, []byte("\n"))
		lines = lines[:len(lines)-1] // the empty tail after the last newline
		// k lines kept whole (the header is line 0), then part of the next:
		// none of it, a few bytes, all but its newline.
		for k := 0; k < len(lines); k++ {
			for _, cut := range []int{0, 7, len(lines[k]) - 1} {
				var b []byte
				for _, l := range lines[:k] {
					b = append(b, l...)
				}
				b = append(b, lines[k][:cut]...)
				cutFile := filepath.Join(dir, "cut.jsonl")
				if err := os.WriteFile(cutFile, b, 0o644); err != nil {
					t.Fatal(err)
				}
				code, stdout, errs := sweepCLI(append(slices.Clone(args), "--resume", cutFile)...)
				got, _ := os.ReadFile(cutFile)
				if code != 0 || stdout != "" || !bytes.Equal(got, want) {
					t.Fatalf("%v: cut after %d lines and %d bytes: exit %d (%s), file equal: %v\n%s\n---\n%s", extra, k, cut, code, errs, bytes.Equal(got, want), got, want)
				}
				if k > 1 && !strings.Contains(errs, "resuming") {
					t.Errorf("%v: cut after %d lines: no note of the resume: %q", extra, k, errs)
				}
			}
		}
	}
	// A finished file is left as it is, and a file that does not exist
	// yet is started.
	done := filepath.Join(dir, "done.jsonl")
	if code, _, errs := sweepCLI(append(slices.Clone(frontArgs), "-o", done)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want, _ := os.ReadFile(done)
	if code, _, errs := sweepCLI(append(slices.Clone(frontArgs), "--resume", done)...); code != 0 || !strings.Contains(errs, "0 to run") {
		t.Errorf("--resume of a finished file: exit %d: %s", code, errs)
	}
	if got, _ := os.ReadFile(done); !bytes.Equal(got, want) {
		t.Errorf("--resume changed a finished file")
	}
	fresh := filepath.Join(dir, "fresh.jsonl")
	if code, _, errs := sweepCLI(append(slices.Clone(frontArgs), "--resume", fresh)...); code != 0 {
		t.Errorf("--resume of a new file: exit %d: %s", code, errs)
	}
}

// TestSweepResumeRefuses: another sweep's file, another shard's, a
// damaged line before the last, and points out of order are exit 2, and
// the file is left as it was.
func TestSweepResumeRefuses(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "run.jsonl")
	if code, _, errs := sweepCLI(append(slices.Clone(frontArgs), "-o", file)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	good, _ := os.ReadFile(file)
	lines := strings.SplitAfter(string(good), "\n")
	damaged := lines[0] + lines[1] + "{\"index\":1,\n" + lines[3]
	swapped := lines[0] + lines[2] + lines[1]
	for _, tc := range []struct {
		name, content string
		args          []string
		want          string
	}{
		{"other flags", string(good), []string{"--gen", "8"}, "was written by another sweep: their other settings differ"},
		{"other ranges", string(good), []string{"--vary", "ctx=64,128"}, "was written by another sweep: vary"},
		{"other shard", string(good), []string{"--shard", "1/2"}, "holds shard 0/1, not 1/2"},
		{"damaged", damaged, nil, "run.jsonl:3: not a JSON object, and not the last line"},
		{"out of order", swapped, nil, "run.jsonl:2: point 1 where the run writes point 0"},
		{"not a sweep", "{\"kind\":\"gemv\"}\n", nil, "no sweep header"},
		{"format", string(good), []string{"--format", "csv"}, "-o and --resume write JSON Lines"},
	} {
		if err := os.WriteFile(file, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append(append(slices.Clone(frontArgs), "--resume", file), tc.args...)
		code, out, errs := sweepCLI(args...)
		expectBadInput(t, []string{tc.name}, code, out, errs, tc.want)
		if got, _ := os.ReadFile(file); string(got) != tc.content {
			t.Errorf("%s: the file was changed", tc.name)
		}
	}
}
