package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edgetwin/edgetwin/calibrate/target/targettest"
)

// TestOutputPathsCheckedFirst: an output that cannot be written is bad
// input naming the flag, found before any simulation runs (so at once).
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--trace", filepath.Join(missing, "t.json")}, "--trace " + filepath.Join(missing, "t.json") + ": no directory"},
		{[]string{"simulate", "--series", dir}, "--series " + dir + ": " + dir + " is a directory"},
		{[]string{"simulate", "--ptrace", "/dev/null"}, "--ptrace /dev/null: /dev/null is a character device"},
		{[]string{"compare", "--soc", "seed-a,seed-b", "--plot", filepath.Join(missing, "p.png")}, "--plot"},
		{[]string{"sweep", "--vary", "kv=1MiB,2MiB", "--plot", filepath.Join(missing, "p.svg")}, "--plot"},
		{[]string{"advise", "chip", "--candidates", "seed-a", "--pareto", filepath.Join(missing, "p.png")}, "--pareto"},
		{[]string{"calibrate", "fit", "x.jsonl", "-o", filepath.Join(missing, "o.yaml")}, "-o " + filepath.Join(missing, "o.yaml") + ": no directory"},
		{[]string{"calibrate", "thermal", "x.csv", "--soc", "seed-c", "-o", dir}, "is a directory"},
		{[]string{"calibrate", "import", "x.json", "--soc", "seed-a", "-o", filepath.Join(missing, "r.jsonl")}, "-o "},
		{[]string{"calibrate", "probe", "-o", filepath.Join(missing, "r.jsonl")}, "-o "},
		{[]string{"calibrate", "probe", "-o", filepath.Join(dir, "r.jsonl"), "--emit-soc", dir}, "--emit-soc"},
		{[]string{"report", "--config", "../../examples/review/review.yaml", "-o", "."}, "is the working directory"},
		{[]string{"report", "--config", "../../examples/review/review.yaml", "-o", filepath.Join(missing, "r")}, "no directory"},
	} {
		start := time.Now()
		code, out, errs := edgetwin(tc.args...)
		expectBadInput(t, tc.args, code, out, errs, tc.want)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%v: refused after %v, not before the work", tc.args, d)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the checks left files: %v", left)
	}
}

// TestInputFilesRefused: a FIFO, a device or a folder given as an input
// file is refused at once (never read), naming the file.
func TestInputFilesRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "chip.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	big := filepath.Join(dir, "big.yaml")
	os.WriteFile(big, make([]byte, 4<<20+1), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--soc", fifo}, fifo + ": cannot read chip file: a named pipe, not a regular file"},
		{[]string{"simulate", "--soc", "/dev/zero"}, "/dev/zero: cannot read chip file: a character device, not a regular file"},
		{[]string{"simulate", "--model", dir + "/"}, "a directory, not a regular file"},
		{[]string{"simulate", "--policy", fifo}, "a named pipe"},
		{[]string{"simulate", "--scenario", "/dev/zero"}, "a character device"},
		{[]string{"simulate", "--calibration", fifo}, "a named pipe"},
		{[]string{"simulate", "--soc", big}, "larger than 4 MiB"},
		{[]string{"calibrate", "fit", fifo, "-o", filepath.Join(dir, "o.yaml")}, fifo + ": cannot read records file: a named pipe"},
		{[]string{"calibrate", "validate", "/dev/zero"}, "a character device"},
		{[]string{"calibrate", "import", "/dev/zero", "--soc", "seed-a", "-o", filepath.Join(dir, "r.jsonl")}, "/dev/zero: cannot read llama-bench output file: a character device"},
		{[]string{"calibrate", "thermal", fifo, "--soc", "seed-c", "-o", filepath.Join(dir, "o.yaml")}, "cannot read series file: a named pipe"},
		{[]string{"report", "--config", fifo, "-o", filepath.Join(dir, "r")}, "cannot read review file: a named pipe"},
		{[]string{"advise", "cloud", "--profile", "/dev/zero"}, "cannot read profile file: a character device"},
	} {
		start := time.Now()
		code, out, errs := edgetwin(tc.args...)
		expectBadInput(t, tc.args, code, out, errs, tc.want)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%v took %v", tc.args, d)
		}
	}
}

// TestImportAllSkippedKeepsFile: an import with no usable row is bad
// input, says why each row was skipped, and leaves -o as it was.
func TestImportAllSkippedKeepsFile(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "bench.json"), filepath.Join(dir, "r.jsonl")
	os.WriteFile(in, []byte(`[{"model_type": "llama 1B F16", "model_n_params": 12345, "n_prompt": 512, "n_gen": 0, "avg_ts": 10.5},
 {"model_type": "llama 1B F16", "model_n_params": 12345, "n_prompt": 0, "n_gen": 128, "avg_ts": 3.5}]`), 0o644)
	os.WriteFile(out, []byte("earlier records\n"), 0o644)
	code, _, errs := edgetwin("calibrate", "import", in, "--soc", "apple-m2", "-o", out)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{"2 rows skipped", "row 1 (" + in + ":1): no catalog model with 12345 parameters", "row 2 (", "no row could be imported (2 skipped", "-o " + out + " is left as it was"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if data, _ := os.ReadFile(out); string(data) != "earlier records\n" {
		t.Errorf("-o now holds %q", data)
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Errorf("left: %v", left)
	}
}

// TestProbeUnfinishedKeepsEarlier: a probe that fails midway over an
// earlier records file leaves it as it was and keeps its own records in
// FILE.partial.
func TestProbeUnfinishedKeepsEarlier(t *testing.T) {
	withFakeProbe(t, 4, emitting(4, 2, func(ctx context.Context) error { return errors.New("probe: out of memory") }))
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	os.WriteFile(out, []byte("earlier\n"), 0o644)
	code, _, errs := edgetwin("calibrate", "probe", "-o", out)
	if want := "the 2 records received are kept in " + out + ".partial; " + out + " is left as it was"; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stderr lacks %q:\n%s", code, want, errs)
	}
	if data, _ := os.ReadFile(out); string(data) != "earlier\n" {
		t.Errorf("-o now holds %q", data)
	}
	mustReadRecords(t, out+".partial", 2)

	// A finished probe replaces it.
	withFakeProbe(t, 4, emitting(4, 4, finished))
	if code, _, errs := edgetwin("calibrate", "probe", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustReadRecords(t, out, 4)
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Errorf("left: %v", left)
	}
}

// TestReportInterrupted runs the built binary over an earlier report and
// stops it with SIGINT midway: the earlier report is intact and nothing
// is left beside it.
func TestReportInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds edgetwin; skipped under -short")
	}
	cli := targettest.BuildEdgetwin(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	earlier := map[string]string{"index.html": "earlier page", "report.md": "earlier text"}
	writeEarlierReport(t, out, earlier)

	for _, delay := range []time.Duration{300 * time.Millisecond, 1500 * time.Millisecond} {
		cmd := exec.Command(cli, "report", "--config", "../../examples/review/review.yaml", "-o", out)
		var stderr targettest.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("report did not stop within 30 s of SIGINT:\n%s", stderr.String())
		}
		// On a loaded machine the signal can come before the process has
		// installed its handler; then the default action ends it, which
		// is as good, so long as no file is lost (checked below).
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		early := ws.Signaled() && ws.Signal() == syscall.SIGINT
		if code := cmd.ProcessState.ExitCode(); !early && (code != 1 || !strings.Contains(stderr.String(), "interrupt received")) {
			t.Errorf("after SIGINT at %v: exit %d, stderr:\n%s", delay, code, stderr.String())
		}
		for name, data := range earlier {
			if got, _ := os.ReadFile(filepath.Join(out, name)); string(got) != data {
				t.Errorf("after SIGINT at %v: %s holds %q", delay, name, got)
			}
		}
		if left, _ := os.ReadDir(parent); len(left) != 1 {
			t.Errorf("after SIGINT at %v, beside the report: %v", delay, left)
		}
	}
}
