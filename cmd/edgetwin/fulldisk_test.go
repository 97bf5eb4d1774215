package main

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/internal/atomicfile/atomicfiletest"
)

// TestFullDiskKeepsEarlierOutputs runs the commands that write large
// outputs in a 256 KiB tmpfs holding an earlier output of each: the new
// one does not fit, so the command fails (exit 1) with a message naming
// the flag, the file and the full disk, and the earlier output is as it
// was, with nothing beside it.
func TestFullDiskKeepsEarlierOutputs(t *testing.T) {
	in := t.TempDir() // the inputs, off the small disk
	bench := filepath.Join(in, "bench.jsonl")
	if err := os.WriteFile(bench, bytes.Repeat(checkoutFile(t, "calibrate/testdata/llamabench/m2.jsonl"), 500), 0o644); err != nil {
		t.Fatal(err) // 3000 rows: 1.2 MB of records
	}
	review, err := filepath.Abs(smallReview) // the runs are in the tmpfs
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		killCase
		want string // the message: the flag, the file, the full disk, the file kept
	}{
		// A 1.3 MB trace; the series is written after it, so not at all.
		{killCase{name: "simulate", args: []string{"simulate", "--soc", "seed-a", "--model", "llama-3.2-1b", "--prompt", "64", "--gen", "32", "--trace", "t.json", "--series", "s.csv"},
			files: []string{"t.json", "s.csv"}}, "--trace t.json: no space left on device; t.json is left as it was"},
		{killCase{name: "calibrate import", args: []string{"calibrate", "import", bench, "--soc", "apple-m2", "-o", "r.jsonl"},
			files: []string{"r.jsonl"}}, "-o r.jsonl: no space left on device; r.jsonl is left as it was"},
		{killCase{name: "report", args: []string{"report", "--config", review, "-o", "report"}, dir: "report"}, "-o report: no space left on device; report is left as it was"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mnt := atomicfiletest.SmallDisk(t, "256k")
			t.Chdir(mnt)
			tc.plantEarlier(t, mnt)
			before := tc.outputs(t, mnt)
			code, _, errs := edgetwin(tc.args...)
			if code != 1 {
				t.Errorf("%v: exit %d, want 1:\n%s", tc.args, code, errs)
			}
			if want := "edgetwin: " + tc.want + "\n"; errs != want {
				t.Errorf("stderr is\n%s\nwant\n%s", errs, want)
			}
			if got := tc.outputs(t, mnt); !maps.Equal(got, before) {
				t.Errorf("the earlier outputs were changed: %s", strings.Join(tc.whole(got, before, before), "; "))
			}
			if left := tc.leftovers(t, mnt, 0); len(left) > 0 {
				t.Errorf("left on the full disk: %v", left)
			}
		})
	}
}
