package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/calibrate/probe"
)

// buildProbe builds the binary into a temporary directory.
func buildProbe(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "edgetwin-probe")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// splitHost checks the wire protocol's first line, "#host " and the JSON
// of probe.Inspect, and returns it and the record lines after it.
func splitHost(t *testing.T, out []byte) (probe.Host, []byte) {
	t.Helper()
	first, rest, _ := bytes.Cut(out, []byte("\n"))
	js, ok := bytes.CutPrefix(first, []byte("#host "))
	if !ok {
		t.Fatalf("first line %q does not start with #host", first)
	}
	var h probe.Host
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		t.Fatalf("#host line: %v", err)
	}
	return h, rest
}

// TestProtocol runs the binary on one quick step and reads what it prints
// as the remote targets do: the #host line, then records with calibrate.Read;
// progress goes to stderr only.
func TestProtocol(t *testing.T) {
	bin := buildProbe(t)
	cmd := exec.Command(bin, "--quick", "--steps", "decoder-s", "--soc", "my-board")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	h, rest := splitHost(t, out)
	if h.OS == "" || h.Arch == "" || h.Cores < 1 {
		t.Errorf("host %+v", h)
	}
	recs, warns, err := calibrate.Read(bytes.NewReader(rest), "stdout")
	if err != nil || len(warns) > 0 || len(recs) != 1 {
		t.Fatalf("%d records, %v, %v", len(recs), warns, err)
	}
	if r := recs[0]; r.Kind != calibrate.KindDecoder || r.SoC != "my-board" || r.Source != "probe:decoder-s" {
		t.Errorf("record %+v", r)
	}
	if got := stderr.String(); got != "probe: [1/1] decoder-s\n" {
		t.Errorf("stderr %q", got)
	}
}

func TestBadStep(t *testing.T) {
	bin := buildProbe(t)
	cmd := exec.Command(bin, "--steps", "warp")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), `"warp" is not a step`) {
		t.Errorf("err %v, stderr %q", err, stderr.String())
	}
}

// TestInterrupt sends SIGINT while the probe builds its largest decoder:
// it stops within a couple of seconds, and everything it printed reads
// back whole.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the probe for a few seconds")
	}
	bin := buildProbe(t)
	cmd := exec.Command(bin, "--quick", "--steps", "gemm-q8_0,decoder-l")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.Contains(sc.Text(), "decoder-l") {
	}
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	go func() {
		for sc.Scan() {
		}
	}()
	cmd.Wait()
	if d := time.Since(sent); d > 2*time.Second {
		t.Errorf("stopped %v after SIGINT", d)
	}
	_, rest := splitHost(t, stdout.Bytes())
	recs, warns, err := calibrate.Read(bytes.NewReader(rest), "stdout")
	if err != nil || len(warns) > 0 || len(recs) == 0 {
		t.Fatalf("after SIGINT: %d records, %v, %v", len(recs), warns, err)
	}
	for _, r := range recs {
		if r.Source != "probe:gemm-q8_0" {
			t.Errorf("a record from %s: the decoder was interrupted before measuring", r.Source)
		}
	}
}
