package target_test

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/calibrate/target"
	"github.com/edgetwin/edgetwin/calibrate/target/targettest"
)

// outcome is what a probe run on a target left.
type outcome struct {
	session *target.Session
	file    string // the records file
	stderr  string
	err     error
	elapsed time.Duration
}

// probeOn runs the fake probe binary bin on tg with args (taking the fake
// plan of steps steps) into a records file; after each record it calls
// after with the number of records so far.
func probeOn(t *testing.T, ctx context.Context, tg target.Target, bin string, steps int, args []string, after func(n int)) outcome {
	t.Helper()
	file := filepath.Join(t.TempDir(), "records.jsonl")
	w, err := calibrate.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	s := target.NewSession(tg.String(), w, targettest.Plan(steps))
	var stderr targettest.Buffer
	start := time.Now()
	args = append([]string{"-steps", strconv.Itoa(steps), "-soc", "host"}, args...)
	err = tg.Run(ctx, bin, args, func(line []byte) error {
		n := len(s.Records())
		if err := s.Line(line); err != nil {
			return err
		}
		if after != nil && len(s.Records()) > n {
			after(len(s.Records()))
		}
		return nil
	}, &stderr)
	if cerr := w.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	return outcome{session: s, file: file, stderr: stderr.String(), err: err, elapsed: time.Since(start)}
}

// checkRecords checks that the records file holds exactly the first n
// records of the fake plan, intact, and that the session names the rest as
// missing.
func checkRecords(t *testing.T, o outcome, n, steps int) {
	t.Helper()
	recs, warns, err := calibrate.ReadFile(o.file)
	if err != nil || len(warns) > 0 {
		t.Fatalf("records file: %v %v", err, warns)
	}
	plan := targettest.Plan(steps)
	if len(recs) != n {
		t.Fatalf("%d records in the file, want %d (stderr %s)", len(recs), n, o.stderr)
	}
	for i, r := range recs {
		if want := targettest.Record(plan[i], "host"); r.Source != want.Source || r.Value != want.Value {
			t.Errorf("record %d: %+v, want %+v", i+1, r, want)
		}
	}
	var missing []string
	for _, st := range plan[n:] {
		missing = append(missing, st.Name)
	}
	if got := o.session.Missing(); strings.Join(got, ",") != strings.Join(missing, ",") {
		t.Errorf("missing %v, want %v", got, missing)
	}
	summary := o.session.Summary(o.elapsed)
	want := strconv.Itoa(n) + " records; " + strconv.Itoa(n) + " of " + strconv.Itoa(steps) + " steps done"
	if !strings.HasPrefix(summary, want) {
		t.Errorf("summary %q, want it to start %q", summary, want)
	}
	if len(missing) > 0 && !strings.Contains(summary, "missing: "+strings.Join(missing, ", ")+";") {
		t.Errorf("summary %q does not name the missing steps %v", summary, missing)
	}
}

// probeDir is where the fake probe ran from, as it says on stderr.
func probeDir(t *testing.T, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`fakeprobe: running as (\S+)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("the probe did not say where it ran: %s", stderr)
	}
	return filepath.Dir(m[1])
}

func checkRemoved(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the probe's directory %s is still there (%v)", dir, err)
	}
}

func TestLocalRun(t *testing.T) {
	bin := targettest.BuildFakeProbe(t)
	tg, _ := target.New(target.Address{Scheme: target.Local}, target.Options{})
	o := probeOn(t, t.Context(), tg, bin, 6, nil, nil)
	if o.err != nil {
		t.Fatalf("run: %v\n%s", o.err, o.stderr)
	}
	checkRecords(t, o, 6, 6)
	if h := o.session.Host(); h == nil || h.OS == "" || h.Arch == "" {
		t.Errorf("host %+v", h)
	}
	if !strings.Contains(o.stderr, "fakeprobe: fake-06") {
		t.Errorf("the probe's progress did not reach stderr: %q", o.stderr)
	}
}

// TestLocalStop: a stopped run (Ctrl-C, timeout) asks the probe to end after
// its current record and keeps every record it sent.
func TestLocalStop(t *testing.T) {
	bin := targettest.BuildFakeProbe(t)
	tg, _ := target.New(target.Address{Scheme: target.Local}, target.Options{Grace: 5 * time.Second})
	o := stopAt(t, tg, bin, 10, 3, "100ms")
	// The probe finishes the record it is measuring when asked to stop.
	checkRecords(t, o, 4, 10)
	if !strings.Contains(o.stderr, "interrupted after fake-04") {
		t.Errorf("the probe did not stop in order: %s", o.stderr)
	}
}

// stopAt runs the fake probe of steps steps with delay before each record
// on tg, stops the run (as Ctrl-C or a timeout does) when it has n records,
// and checks that the run says it was stopped.
func stopAt(t *testing.T, tg target.Target, bin string, steps, n int, delay string) outcome {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	o := probeOn(t, ctx, tg, bin, steps, []string{"-delay", delay}, func(got int) {
		if got == n {
			cancel()
		}
	})
	if o.err == nil || !strings.HasPrefix(o.err.Error(), tg.String()+": stopped: context canceled") {
		t.Fatalf("err %v, want stopped", o.err)
	}
	return o
}

// TestLocalKilled: a probe killed midway leaves the records before it.
func TestLocalKilled(t *testing.T) {
	bin := targettest.BuildFakeProbe(t)
	pidfile := filepath.Join(t.TempDir(), "pid")
	tg, _ := target.New(target.Address{Scheme: target.Local}, target.Options{})
	o := probeOn(t, t.Context(), tg, bin, 10, []string{"-delay", "100ms", "-pidfile", pidfile}, func(n int) {
		if n == 2 {
			killPID(t, pidfile)
		}
	})
	if o.err == nil || !strings.Contains(o.err.Error(), "signal: killed") {
		t.Fatalf("err %v, want the probe killed", o.err)
	}
	checkRecords(t, o, 2, 10)
}

func killPID(t *testing.T, pidfile string) {
	data, err := os.ReadFile(pidfile)
	pid, perr := strconv.Atoi(string(data))
	if err != nil || perr != nil {
		t.Errorf("pid file: %v %v", err, perr)
		return
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Errorf("kill %d: %v", pid, err)
	}
}

// TestBadLine: a line that is not a record ends the run with an error that
// names the target and the line; the records before it are kept.
func TestBadLine(t *testing.T) {
	bin := targettest.BuildFakeProbe(t)
	tg, _ := target.New(target.Address{Scheme: target.Local}, target.Options{})
	o := probeOn(t, t.Context(), tg, bin, 6, []string{"-bad-at", "3", "-delay", "0"}, nil)
	if o.err == nil || !strings.HasPrefix(o.err.Error(), `local:4: "this is not a record" is neither a record nor the #host line`) {
		t.Fatalf("err %v", o.err)
	}
	checkRecords(t, o, 2, 6)
}

func TestSessionLines(t *testing.T) {
	var buf bytes.Buffer
	s := target.NewSession("adb://x", calibrate.NewWriter(&buf), targettest.Plan(2))
	rec := `{"kind":"bandwidth","soc":"host","value":1,"unit":"B/s","source":"probe:fake-02"}`
	for _, tc := range []struct{ line, want string }{
		{`#host {"os":"linux","arch":"arm64"}`, ""},
		{"", ""},
		{rec + "\r", ""},
		{`#host {"os":"linux"}`, "adb://x:4: a #host line after the first line"},
		{`{"kind":"bandwidth","soc":"host","value":1,"unit":"B/s"}`, "adb://x:5: field source: missing"},
		{`{"kind":"bandwidth",`, "adb://x:6: not a JSON object"},
	} {
		err := s.Line([]byte(tc.line))
		if (err == nil) != (tc.want == "") || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("line %q: %v, want %q", tc.line, err, tc.want)
		}
	}
	if h := s.Host(); h == nil || h.Arch != "arm64" {
		t.Errorf("host %+v", h)
	}
	if strings.Join(s.Missing(), ",") != "fake-01" || buf.String() != rec+"\n" {
		t.Errorf("missing %v, written %q", s.Missing(), buf.String())
	}
	bad := target.NewSession("x", calibrate.NewWriter(&buf), nil)
	if err := bad.Line([]byte(`#host {"os":"linux","colour":1}`)); err == nil || !strings.Contains(err.Error(), `x:1: #host line: unknown field "colour"`) {
		t.Errorf("unknown host field: %v", err)
	}
}

// TestBuildCrossCompiles builds the real cmd/edgetwin-probe for a 64-bit
// ARM board from this checkout, as a run on such a target does.
func TestBuildCrossCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-builds the probe; skipped under -short")
	}
	root := targettest.Checkout(t)
	start := time.Now()
	bin, err := target.Build(t.Context(), root, target.Platform{OS: "linux", Arch: "arm64"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cross-build for linux/arm64: %v", time.Since(start).Round(time.Millisecond))
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != elf.EM_AARCH64 {
		t.Errorf("%s is for %v, want EM_AARCH64", bin, f.Machine)
	}
	if interp := f.Section(".interp"); interp != nil {
		t.Errorf("%s is dynamically linked (it has .interp): cgo was on", bin)
	}
}

func TestBuildWithoutGo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := target.Build(t.Context(), targettest.Checkout(t), target.Platform{OS: "linux", Arch: "arm64"}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "needs the Go toolchain on PATH; without it, give a probe binary built for linux/arm64") {
		t.Errorf("err %v", err)
	}
}

// FuzzSessionLine: whatever a target prints, Session.Line never panics,
// writes only what it accepts as a record, and writes it as one line.
func FuzzSessionLine(f *testing.F) {
	for _, s := range []string{
		`#host {"os":"linux","arch":"arm64"}`,
		`{"kind":"bandwidth","soc":"host","value":1,"unit":"B/s","source":"probe:fake-01"}`,
		`{"kind":"decode","soc":"x","model":"llama-2-7b","quant":"Q4_0","shape":{"gen":1},"value":1,"unit":"tokens/s","source":"probe:d"}`,
		`#host {"os":`, "{", "fakeprobe: fake-01", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var buf bytes.Buffer
		s := target.NewSession("fuzz", calibrate.NewWriter(&buf), targettest.Plan(2))
		err := s.Line([]byte(line))
		written := strings.Count(buf.String(), "\n")
		if err != nil && written > 0 || len(s.Records()) != written || written > 1 {
			t.Fatalf("line %q: err %v, %d records, %d lines written", line, err, len(s.Records()), written)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("line %q: error spans lines: %q", line, err)
		}
	})
}
