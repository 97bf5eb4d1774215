package main

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edgetwin/edgetwin/calibrate/target/targettest"
	"github.com/edgetwin/edgetwin/internal/atomicfile"
)

var killSeed = flag.Uint64("killseed", 0, "seed of the kill points of TestKillKeepsEarlierOutputs (0: a new one, printed on failure)")

// killCase is a command that writes outputs, for the kill tests: its
// inputs (copied into the folder it runs in), its arguments (relative to
// that folder, so every run's output is the same bytes) and what it
// writes there.
type killCase struct {
	name   string
	inputs map[string][]byte // file name → content
	args   []string
	files  []string // output files
	dir    string   // output folder (report -o), or ""
}

// plantEarlier puts in dir what the outputs held before the command ran:
// for a file, one line naming it; for the report folder, an earlier
// report.
func (c killCase) plantEarlier(t *testing.T, dir string) {
	t.Helper()
	for _, f := range c.files {
		if err := os.WriteFile(filepath.Join(dir, f), earlierFile(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if c.dir != "" {
		out := filepath.Join(dir, c.dir)
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
		writeEarlierReport(t, out, earlierReport)
	}
}

// earlierFile is what the output file name held before the command.
func earlierFile(name string) []byte { return []byte("earlier " + name + ", which no kill may lose\n") }

// earlierReport is the earlier report's files (its marker besides).
var earlierReport = map[string]string{"index.html": "earlier page", "report.md": "earlier text", "old-figure.svg": "<svg/>"}

// writeEarlierReport makes out an earlier report holding files, with the
// marker a report writes, so a new report may replace it.
func writeEarlierReport(t *testing.T, out string, files map[string]string) {
	t.Helper()
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	listed := slices.Sorted(maps.Keys(files))
	for _, name := range listed {
		if err := os.WriteFile(filepath.Join(out, name), []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	marker := "edgetwin report: the files below were written by edgetwin report and are replaced by the next report into this folder\n" + strings.Join(listed, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(out, ".edgetwin-report"), []byte(marker), 0o644); err != nil {
		t.Fatal(err)
	}
}

// outputs reads what the case's outputs hold in dir: each file's bytes,
// and each file of the output folder under "folder/name" (a missing
// output is absent from the map).
func (c killCase) outputs(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, f := range c.files {
		if data, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			got[f] = string(data)
		}
	}
	if c.dir != "" {
		entries, _ := os.ReadDir(filepath.Join(dir, c.dir))
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, c.dir, e.Name()))
			if err != nil {
				t.Fatalf("%s/%s: %v", c.dir, e.Name(), err)
			}
			got[c.dir+"/"+e.Name()] = string(data)
		}
	}
	return got
}

// whole says whether each output holds either what it held before or the
// whole of what an uninterrupted run writes, and names those that hold
// neither.
func (c killCase) whole(got, before, after map[string]string) []string {
	var bad []string
	for _, f := range c.files {
		if got[f] != before[f] && got[f] != after[f] {
			bad = append(bad, fmt.Sprintf("%s holds %d bytes, neither the earlier %d nor the new %d", f, len(got[f]), len(before[f]), len(after[f])))
		}
	}
	if c.dir != "" {
		sub := func(m map[string]string) map[string]string {
			s := map[string]string{}
			for k, v := range m {
				if strings.HasPrefix(k, c.dir+"/") {
					s[k] = v
				}
			}
			return s
		}
		if g := sub(got); !maps.Equal(g, sub(before)) && !maps.Equal(g, sub(after)) {
			bad = append(bad, fmt.Sprintf("%s holds %v, neither the earlier report nor the new one", c.dir, slices.Sorted(maps.Keys(g))))
		}
	}
	return bad
}

// smallReview is the review of testdata/small-review.yaml, which reports
// in under a second.
const smallReview = "testdata/small-review.yaml"

// killCases are the commands that replace a user's files: a report over
// an earlier one, an import and a fit over earlier files, and a
// simulation's trace and series. Each runs for about a second, the
// import mostly writing (a record and its fsync at a time), the
// simulation a 21 MB trace.
func killCases(t *testing.T) []killCase {
	bench := bytes.Repeat(checkoutFile(t, "calibrate/testdata/llamabench/m2.jsonl"), 500) // 3000 rows
	public := bytes.SplitAfterN(checkoutFile(t, "examples/public/records.jsonl"), []byte("\n"), 5)
	return []killCase{
		{name: "report", inputs: map[string][]byte{"review.yaml": checkoutFile(t, "cmd/edgetwin/"+smallReview)},
			args: []string{"report", "--config", "review.yaml", "-o", "report"}, dir: "report"},
		{name: "calibrate import", inputs: map[string][]byte{"bench.jsonl": bench},
			args: []string{"calibrate", "import", "bench.jsonl", "--soc", "apple-m2", "-o", "r.jsonl"}, files: []string{"r.jsonl"}},
		{name: "calibrate fit", inputs: map[string][]byte{"r.jsonl": bytes.Join(public[:4], nil)},
			args: []string{"calibrate", "fit", "r.jsonl", "-o", "cal.yaml", "--fidelity", "analytic", "--starts", "1", "--params", "gemv_efficiency,gemm_efficiency"}, files: []string{"cal.yaml"}},
		{name: "simulate", args: []string{"simulate", "--prompt", "64", "--gen", "16", "--trace", "t.json", "--series", "s.csv"},
			files: []string{"t.json", "s.csv"}},
	}
}

// checkoutFile is the file at path in the checkout.
func checkoutFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", path))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestKillKeepsEarlierOutputs runs each command that replaces a user's
// files from the built binary, over earlier files, and stops it with
// SIGINT or SIGKILL at random points of its run (seeded: -killseed
// repeats a failure). Every output must hold what it held before or the
// whole of what an uninterrupted run writes. After SIGINT nothing of the
// run may be left beside them; after SIGKILL only the hidden files and
// folders internal/atomicfile names after the dead process, which the
// next run removes (and a report folder set aside, which it puts back).
func TestKillKeepsEarlierOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds edgetwin; skipped under -short")
	}
	seed := *killSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("kill points from -killseed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 17))
	cli := targettest.BuildEdgetwin(t)
	for _, c := range killCases(t) {
		t.Run(c.name, func(t *testing.T) {
			ref := t.TempDir()
			c.plantInputs(t, ref)
			start := time.Now()
			if code, stderr := runCLI(t, cli, ref, c.args, 0, 0); code != 0 {
				t.Fatalf("%v: exit %d:\n%s", c.args, code, stderr)
			}
			took := time.Since(start)
			after := c.outputs(t, ref)

			dir := t.TempDir()
			c.plantInputs(t, dir)
			for i := range 6 {
				sig := []syscall.Signal{syscall.SIGINT, syscall.SIGKILL}[i%2]
				// Points from a quarter into the run (the process
				// started, its work begun) to a quarter past its length
				// in the first run, where the outputs are put in place.
				at := time.Duration((0.25 + rng.Float64()) * float64(took))
				c.plantEarlier(t, dir)
				before := c.outputs(t, dir)
				code, stderr, pid := killCLI(t, cli, dir, c.args, sig, at)
				where := fmt.Sprintf("-killseed %d: %v at %v (of %v)", seed, sig, at.Round(time.Millisecond), took.Round(time.Millisecond))
				left := c.leftovers(t, dir, pid)
				if sig == syscall.SIGKILL {
					if err := c.recover(dir); err != nil {
						t.Errorf("%s: recovery: %v", where, err)
					}
				} else {
					if len(left) > 0 {
						t.Errorf("%s: left beside the outputs: %v", where, left)
					}
					if code != -1 && code != 0 && !strings.Contains(stderr, "interrupt") {
						t.Errorf("%s: exit %d without saying it was interrupted:\n%s", where, code, stderr)
					}
				}
				if bad := c.whole(c.outputs(t, dir), before, after); len(bad) > 0 {
					t.Errorf("%s: %s\nstderr:\n%s", where, strings.Join(bad, "; "), stderr)
				}
			}
			// An uninterrupted run over what the kills left removes it.
			if code, stderr := runCLI(t, cli, dir, c.args, 0, 0); code != 0 {
				t.Fatalf("%v after the kills: exit %d:\n%s", c.args, code, stderr)
			}
			if got := c.outputs(t, dir); !maps.Equal(got, after) {
				t.Errorf("-killseed %d: the run after the kills wrote other outputs than a first run", seed)
			}
			if left := c.leftovers(t, dir, 0); len(left) > 0 {
				t.Errorf("-killseed %d: the run after the kills left %v", seed, left)
			}
		})
	}
}

// plantInputs writes the case's input files into dir.
func (c killCase) plantInputs(t *testing.T, dir string) {
	t.Helper()
	for name, data := range c.inputs {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// leftovers lists what is in dir beside the case's inputs and outputs:
// for a pid, only what names that process (atomicfile's temporary files
// ".NAME.PID-….tmp" and folders ".DIR.edgetwin-new-PID-…"); for pid 0,
// everything.
func (c killCase) leftovers(t *testing.T, dir string, pid int) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	own := regexp.MustCompile(`[.-]` + strconv.Itoa(pid) + `-`)
	var left []string
	for _, e := range entries {
		name := e.Name()
		if _, in := c.inputs[name]; in || slices.Contains(c.files, name) || name == c.dir {
			continue
		}
		if pid == 0 || own.MatchString(name) {
			left = append(left, name)
		}
	}
	return left
}

// recover is what the next run does first with what a SIGKILL left: a
// report folder set aside between its two renames is put back
// (atomicfile.Recover). A file needs nothing: its target is never
// missing.
func (c killCase) recover(dir string) error {
	if c.dir == "" {
		return nil
	}
	return atomicfile.Recover(filepath.Join(dir, c.dir))
}

// runCLI runs the built edgetwin in dir and returns its exit status and
// stderr; see killCLI.
func runCLI(t *testing.T, cli, dir string, args []string, sig syscall.Signal, at time.Duration) (int, string) {
	code, stderr, _ := killCLI(t, cli, dir, args, sig, at)
	return code, stderr
}

// killCLI runs the built edgetwin in dir and, when sig is not 0, sends
// it sig after at. It returns the exit status (-1 when a signal ended
// it), stderr and the process id. A run still going a minute on is
// killed and fails the test.
func killCLI(t *testing.T, cli, dir string, args []string, sig syscall.Signal, at time.Duration) (int, string, int) {
	t.Helper()
	cmd := exec.Command(cli, args...)
	cmd.Dir = dir
	var stderr targettest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if sig != 0 {
		select {
		case <-done:
			return cmd.ProcessState.ExitCode(), stderr.String(), cmd.Process.Pid
		case <-time.After(at):
			cmd.Process.Signal(sig)
		}
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not end within a minute:\n%s", args, stderr.String())
	}
	return cmd.ProcessState.ExitCode(), stderr.String(), cmd.Process.Pid
}
