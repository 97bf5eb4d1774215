package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/calibrate/probe"
	"github.com/edgetwin/edgetwin/calibrate/target/targettest"
)

// fakeRun is a stand-in for probe.Run.
type fakeRun func(ctx context.Context, opts probe.Options, emit func(calibrate.Record) error) error

// withFakeProbe puts a probe of the fake plan of steps steps in place of
// the real one for the rest of the test; run measures nothing.
func withFakeProbe(t *testing.T, steps int, run fakeRun) {
	plan, runf, inspect, emit := probePlan, probeRun, probeInspect, probeEmitSoC
	t.Cleanup(func() { probePlan, probeRun, probeInspect, probeEmitSoC = plan, runf, inspect, emit })
	probePlan = func(probe.Options) []probe.Step { return targettest.Plan(steps) }
	probeRun = run
	probeInspect = func() probe.Host { return probe.Host{OS: "linux", Arch: "amd64"} }
	probeEmitSoC = func(h probe.Host, recs []calibrate.Record) ([]byte, error) {
		return fmt.Appendf(nil, "name: %s/%s host from %d records\n", h.OS, h.Arch, len(recs)), nil
	}
}

// emitting measures the first n steps of the fake plan of steps steps,
// then returns what end returns.
func emitting(steps, n int, end func(ctx context.Context) error) fakeRun {
	return func(ctx context.Context, opts probe.Options, emit func(calibrate.Record) error) error {
		for _, st := range targettest.Plan(steps)[:n] {
			if err := emit(targettest.Record(st, opts.SoC)); err != nil {
				return err
			}
		}
		return end(ctx)
	}
}

func finished(context.Context) error { return nil }

// readRecords reads a records file strictly: every record intact.
func mustReadRecords(t *testing.T, path string, want int) []calibrate.Record {
	t.Helper()
	recs, warns, err := calibrate.ReadFile(path)
	if err != nil || len(warns) > 0 {
		t.Fatalf("%s: %v %v", path, err, warns)
	}
	if len(recs) != want {
		t.Fatalf("%s: %d records, want %d", path, len(recs), want)
	}
	return recs
}

func TestCalibrateProbeLocal(t *testing.T) {
	withFakeProbe(t, 4, emitting(4, 4, finished))
	dir := t.TempDir()
	out, chip := filepath.Join(dir, "host.jsonl"), filepath.Join(dir, "host.yaml")
	code, stdout, errs := edgetwin("calibrate", "probe", "--target", "local", "--quick", "-o", out, "--emit-soc", chip)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, errs)
	}
	if !regexp.MustCompile(`probe on local: 4 records; 4 of 4 steps done; \d+\.\ds; records in .*host.jsonl\n`).MatchString(errs) {
		t.Errorf("summary: %q", errs)
	}
	for _, r := range mustReadRecords(t, out, 4) {
		if r.SoC != chip {
			t.Errorf("record soc %q, want the --emit-soc file %q", r.SoC, chip)
		}
	}
	data, err := os.ReadFile(chip)
	if err != nil || string(data) != "name: linux/amd64 host from 4 records\n" {
		t.Errorf("chip file %q, %v", data, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	code, _, errs = edgetwin("calibrate", "probe", "-o", out, "--soc", "seed-a")
	if code != 0 || mustReadRecords(t, out, 4)[0].SoC != "seed-a" {
		t.Errorf("--soc seed-a: exit %d, %s", code, errs)
	}
}

// TestCalibrateProbeLocalFails: a probe that fails midway keeps its records,
// names the missing steps and writes no chip file.
func TestCalibrateProbeLocalFails(t *testing.T) {
	withFakeProbe(t, 4, emitting(4, 2, func(context.Context) error { return errors.New("probe: out of memory") }))
	dir := t.TempDir()
	out, chip := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "host.yaml")
	code, _, errs := edgetwin("calibrate", "probe", "-o", out, "--emit-soc", chip)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		"probe on local: 2 records; 2 of 4 steps done; missing: fake-03, fake-04; ",
		"edgetwin: the probe on local did not finish: probe: out of memory; the 2 records received are kept in " + out,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	mustReadRecords(t, out, 2)
	if _, err := os.Stat(chip); !os.IsNotExist(err) {
		t.Errorf("a chip file from an unfinished probe: %v", err)
	}
}

func TestCalibrateProbeTimeout(t *testing.T) {
	withFakeProbe(t, 5, emitting(5, 3, func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }))
	out := filepath.Join(t.TempDir(), "r.jsonl")
	start := time.Now()
	code, _, errs := edgetwin("calibrate", "probe", "-o", out, "--timeout", "300ms")
	if code != 1 || time.Since(start) > 5*time.Second {
		t.Errorf("exit %d after %v, want 1 soon after 300ms", code, time.Since(start))
	}
	for _, want := range []string{"3 of 5 steps done; missing: fake-04, fake-05;", "did not finish: context deadline exceeded (--timeout 300ms reached)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	mustReadRecords(t, out, 3)
}

func TestCalibrateProbeBadInput(t *testing.T) {
	withFakeProbe(t, 1, emitting(1, 1, finished))
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "local"}, "calibrate probe needs -o RECORDS.jsonl"},
		{[]string{"--target", "http://board", "-o", out}, `--target: target "http://board": unknown scheme "http"; use local, ssh://[user@]host[:port] or adb://SERIAL`},
		{[]string{"--target", "ssh://pi@board:99999", "-o", out}, `port "99999" is not a number from 1 to 65535`},
		{[]string{"--target", "adb://", "-o", out}, "empty serial"},
		{[]string{"-o", out, "--timeout", "soon"}, `--timeout "soon" is not allowed`},
		{[]string{"-o", out, "--timeout", "-1m"}, `--timeout "-1m" is not allowed`},
		{[]string{"-o", out, "--ssh-key", filepath.Join(dir, "nokey")}, "--ssh-key " + filepath.Join(dir, "nokey") + ": not a readable file"},
		{[]string{"-o", out, "--ssh-key", "calibrate_probe.go"}, "--ssh-key is for ssh:// targets, not local"},
		{[]string{"--target", "adb://x", "-o", out, "--probe-binary", dir}, "--probe-binary " + dir + ": not a readable file"},
		{[]string{"-o", filepath.Join(dir, "no", "such", "dir.jsonl")}, "-o " + filepath.Join(dir, "no", "such", "dir.jsonl")},
		{[]string{"-o", out, "extra"}, "unknown command"},
	} {
		args := append([]string{"calibrate", "probe"}, tc.args...)
		code, stdout, errs := edgetwin(args...)
		expectBadInput(t, args, code, stdout, errs, tc.want)
	}
}

// TestCalibrateProbeLocalBinary: --target local with --probe-binary runs
// that binary here, streaming its records as a remote target does.
func TestCalibrateProbeLocalBinary(t *testing.T) {
	withFakeProbe(t, 6, nil)
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, errs := edgetwin("calibrate", "probe", "--probe-binary", targettest.BuildFakeProbe(t), "-o", out)
	if code != 0 || !strings.Contains(errs, "probe on local: 6 records; 6 of 6 steps done;") {
		t.Errorf("exit %d: %s", code, errs)
	}
	mustReadRecords(t, out, 6)
}

func TestCalibrateProbeADB(t *testing.T) {
	root := targettest.ADB(t)
	withFakeProbe(t, 6, nil)
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, errs := edgetwin("calibrate", "probe", "--target", "adb://emulator-5554", "--probe-binary", targettest.BuildFakeProbe(t), "-o", out, "--soc", "seed-b")
	if code != 0 || !strings.Contains(errs, "probe on adb://emulator-5554: 6 records; 6 of 6 steps done;") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if mustReadRecords(t, out, 6)[5].SoC != "seed-b" {
		t.Errorf("--soc did not reach the remote probe")
	}
	if left, _ := os.ReadDir(root); len(left) > 0 {
		t.Errorf("left on the device: %v", left)
	}
}

func TestCalibrateProbeSSH(t *testing.T) {
	addr, key := targettest.SSH(t)
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	withFakeProbe(t, 6, nil)
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, errs := edgetwin("calibrate", "probe", "--target", addr.String(), "--ssh-key", key, "--probe-binary", targettest.BuildFakeProbe(t), "-o", out)
	if code != 0 || !strings.Contains(errs, "probe on "+addr.String()+": 6 records; 6 of 6 steps done;") {
		t.Errorf("exit %d: %s", code, errs)
	}
	mustReadRecords(t, out, 6)
	kh, err := os.ReadFile(filepath.Join(config, "edgetwin", "known_hosts"))
	if err != nil || !strings.Contains(string(kh), "ssh-ed25519") {
		t.Errorf("edgetwin's known_hosts does not hold the host's key: %q, %v", kh, err)
	}
}
