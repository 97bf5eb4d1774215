package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edgetwin/edgetwin/calibrate/probe"
	"github.com/edgetwin/edgetwin/calibrate/target/targettest"
)

// TestCalibrateProbeBinary runs a built edgetwin as a user does: outside
// its checkout, killed with SIGKILL and stopped with Ctrl-C midway.
func TestCalibrateProbeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds edgetwin; skipped under -short")
	}
	cli := targettest.BuildEdgetwin(t)
	fake := targettest.BuildFakeProbe(t)

	t.Run("no probe binary outside a checkout", func(t *testing.T) {
		cmd := exec.Command(cli, "calibrate", "probe", "--target", "ssh://pi@192.0.2.1", "-o", "r.jsonl")
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cmd.Dir)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		expectBadInput(t, cmd.Args, code, stdout.String(), stderr.String(), "no probe binary: edgetwin does not run from a source checkout")
		if !strings.Contains(stderr.String(), "give --probe-binary FILE") {
			t.Errorf("the message does not say what to do: %s (%v)", stderr.String(), err)
		}
		if left, _ := os.ReadDir(cmd.Dir); len(left) > 0 {
			t.Errorf("bad input left files: %v", left)
		}
	})

	slow := targettest.FakeProbeScript(t, fake, "-steps", "100", "-delay", "150ms")
	t.Run("SIGKILL local", func(t *testing.T) {
		killMidway(t, cli, syscall.SIGKILL, "--probe-binary", slow)
	})
	t.Run("SIGKILL ssh", func(t *testing.T) {
		addr, key := targettest.SSH(t)
		killMidway(t, cli, syscall.SIGKILL, "--target", addr.String(), "--ssh-key", key, "--probe-binary", slow)
	})
	t.Run("Ctrl-C ssh", func(t *testing.T) {
		addr, key := targettest.SSH(t)
		stderr := killMidway(t, cli, syscall.SIGINT, "--target", addr.String(), "--ssh-key", key, "--probe-binary", slow)
		for _, want := range []string{"fakeprobe: interrupted after", "interrupt received"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		m := regexp.MustCompile(`fakeprobe: running as (\S+)`).FindStringSubmatch(stderr)
		if m == nil {
			t.Fatalf("the probe did not say where it ran:\n%s", stderr)
		}
		if _, err := os.Stat(filepath.Dir(m[1])); !os.IsNotExist(err) {
			t.Errorf("the probe's directory is left on the target: %v", err)
		}
	})
}

// killMidway starts a slow probe through the built CLI, sends sig once
// three records are in the records file, and checks that every record
// written is intact. After SIGINT it also checks the summary and the exit
// status; it returns the CLI's stderr.
func killMidway(t *testing.T, cli string, sig syscall.Signal, args ...string) string {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	cmd := exec.Command(cli, append([]string{"calibrate", "probe", "-o", out}, args...)...)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir)
	var stderr targettest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for lines(out) < 3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no 3 records after 60 s:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	n := lines(out)
	recs := mustReadRecords(t, out, n)
	if n < 3 || n == 100 {
		t.Errorf("%d records after a kill at the third", n)
	}
	for i, r := range recs {
		if want := fmt.Sprintf("probe:fake-%02d", i+1); r.Source != want {
			t.Errorf("record %d is from %s, want %s", i+1, r.Source, want)
		}
	}
	if sig == syscall.SIGKILL {
		// A killed edgetwin cannot clean up after itself; on a remote
		// target, the probe ends at its next record on the closed
		// connection and the shell that ran it removes its directory.
		if m := regexp.MustCompile(`fakeprobe: running as (\S*/edgetwin-probe\.\S+)/`).FindStringSubmatch(stderr.String()); m != nil {
			waitGone(t, m[1])
		}
		return stderr.String()
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d (%v) after %v, want 1", code, err, sig)
	}
	// The built CLI takes the plan of the real probe, in which no fake step
	// is: every step of it is missing.
	plan := probe.Plan(probe.Options{SoC: "host"})
	want := fmt.Sprintf(": %d records; 0 of %d steps done", n, len(plan))
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, stderr.String())
	}
	return stderr.String()
}

// lines counts the complete lines of a file.
func lines(path string) int {
	data, _ := os.ReadFile(path)
	return bytes.Count(data, []byte{'\n'})
}

// waitGone waits up to 20 s for dir to be removed.
func waitGone(t *testing.T, dir string) {
	t.Helper()
	for range 200 {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%s is still there 20 s after edgetwin was killed", dir)
	os.RemoveAll(dir)
}
