package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCalibrateThermal runs the loop a user would: simulate with --series
// and --ptrace, then fit the chip's network back to the series. The series
// comes from the same chip without noise, so the fit must return the
// chip's own values.
func TestCalibrateThermal(t *testing.T) {
	dir := t.TempDir()
	series, overlay := filepath.Join(dir, "run.csv"), filepath.Join(dir, "thermal.yaml")
	code, _, errs := edgetwin("simulate", "--soc", "seed-c", "--model", "seed-moe-3b", "--prompt", "64", "--gen", "64",
		"--series", series, "--ptrace", filepath.Join(dir, "run.ptrace"))
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errs)
	}
	for _, f := range []string{"run.ptrace", "run.flp"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("simulate --ptrace: %v", err)
		}
	}
	code, out, errs := edgetwin("calibrate", "thermal", series, "--soc", "seed-c", "--fit", "thermal.links.0.resistance,thermal.nodes.npu.capacity", "-o", overlay, "--format", "json")
	if code != 0 {
		t.Fatalf("calibrate thermal: exit %d: %s", code, errs)
	}
	var r struct {
		Params []struct {
			Path         string
			Start, Value float64
		}
		TimeConstants []struct{ ValueS float64 } `json:"time_constants"`
		RMSC          float64                    `json:"rms_c"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(r.Params) != 2 || len(r.TimeConstants) != 6 {
		t.Fatalf("result: %s", out)
	}
	for _, p := range r.Params {
		if math.Abs(p.Value/p.Start-1) > 1e-3 {
			t.Errorf("%s: fitted %g to the chip's own series, its value is %g", p.Path, p.Value, p.Start)
		}
	}
	// The series has 8 significant digits: the fit is as close as that.
	if r.RMSC > 1e-4 {
		t.Errorf("RMS residual %g °C on a noise-free series", r.RMSC)
	}
	text, err := os.ReadFile(overlay)
	if err != nil || !strings.Contains(string(text), "\nset:\n  thermal.nodes.npu.capacity: ") || !strings.Contains(string(text), "\nsource: \"calibrate thermal: "+series) {
		t.Errorf("overlay: %v\n%s", err, text)
	}
}

func TestCalibrateThermalBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(good, []byte("time_s,power_npu_w,temp_npu_c\n0,1,25\n1,1,26\n2,1,27\n"), 0o644)
	os.WriteFile(bad, []byte("time_s,power_npu_w,temp_npu_c,fan_rpm\n0,1,25,0\n"), 0o644)
	out := filepath.Join(dir, "o.yaml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{good, "-o", out}, "needs --soc"},
		{[]string{good, "--soc", "seed-c"}, "needs --soc"},
		{[]string{bad, "--soc", "seed-c", "-o", out}, `bad.csv:1: field "fan_rpm": unknown column; allowed:`},
		{[]string{filepath.Join(dir, "none.csv"), "--soc", "seed-c", "-o", out}, "none.csv: cannot read series file: no such file"},
		{[]string{good, "--soc", "seed-c", "-o", out, "--fit", "thermal.nodes.npu.mass"}, `--fit "thermal.nodes.npu.mass": no such parameter; allowed: all, r`},
		{[]string{good, "--soc", "seed-c", "-o", out, "--format", "csv"}, "use table or json"},
		{[]string{good, "--soc", "no-such-chip", "-o", out}, "no-such-chip"},
	} {
		code, o, errs := edgetwin(append([]string{"calibrate", "thermal"}, c.args...)...)
		expectBadInput(t, c.args, code, o, errs, c.want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an overlay was written for bad input")
	}
}
