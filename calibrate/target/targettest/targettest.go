// Package targettest helps tests of probe runs on targets: a fake probe
// that speaks edgetwin-probe's protocol without measuring anything, its
// plan, and the test services (an sshd on 127.0.0.1 that scripts/test
// starts, the stand-in adb of scripts/testbin).
package targettest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/calibrate/probe"
	"github.com/edgetwin/edgetwin/calibrate/target"
)

// memoryKinds are the kinds the fake probe cycles through: kinds whose
// records need nothing but a value in bytes/s or seconds.
var memoryKinds = []calibrate.Kind{calibrate.KindBandwidth, calibrate.KindLatency, calibrate.KindMemcpy, calibrate.KindRandomRead}

// Plan is the fake probe's plan of n steps: "fake-01", "fake-02", …
func Plan(n int) []probe.Step {
	steps := make([]probe.Step, n)
	for i := range steps {
		steps[i] = probe.Step{Name: fmt.Sprintf("fake-%02d", i+1), Kind: memoryKinds[i%len(memoryKinds)]}
	}
	return steps
}

// Record is the fake probe's record of step st on soc.
func Record(st probe.Step, soc string) calibrate.Record {
	r := calibrate.Record{Kind: st.Kind, SoC: soc, Kernel: st.Name, Source: "probe:" + st.Name, Value: 1e9, Unit: calibrate.UnitBytesPerSecond}
	if st.Kind == calibrate.KindLatency {
		r.Value, r.Unit = 80e-9, calibrate.UnitSeconds
	}
	return r
}

// Checkout is the root of the source checkout the test runs in.
func Checkout(t testing.TB) string {
	t.Helper()
	wd, _ := os.Getwd()
	root, ok := target.FindCheckout(wd)
	if !ok {
		t.Fatalf("no checkout of %s above %s", target.ModulePath, wd)
	}
	return root
}

// BuildFakeProbe builds the fake probe for this machine into a temporary
// directory and returns its path.
func BuildFakeProbe(t testing.TB) string {
	t.Helper()
	return goBuild(t, "./calibrate/target/testdata/fakeprobe", "fakeprobe")
}

// FakeProbeScript writes a probe "binary" for --probe-binary: a shell
// script that runs the fake probe fake (at its path on this machine) with
// args before the ones it is given. A target that is this machine under
// another name (the test sshd, the stand-in adb) runs it from its copy,
// which says where it is on stderr as the fake probe does.
func FakeProbeScript(t testing.TB, fake string, args ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fakeprobe.sh")
	script := "#!/bin/sh\necho \"fakeprobe: running as $0\" >&2\nexec " + shellLine(append([]string{fake}, args...)) + " \"$@\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func shellLine(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// BuildEdgetwin builds the edgetwin CLI into a temporary directory outside
// the checkout and returns its path.
func BuildEdgetwin(t testing.TB) string {
	t.Helper()
	return goBuild(t, "./cmd/edgetwin", "edgetwin")
}

func goBuild(t testing.TB, pkg, name string) string {
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = Checkout(t)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// SSH is the test sshd that scripts/test starts (EDGETWIN_TEST_SSH, such
// as root@127.0.0.1:2222) and the key to log in with
// (EDGETWIN_TEST_SSH_KEY). Without them the test is skipped.
func SSH(t testing.TB) (target.Address, string) {
	t.Helper()
	dest, key := os.Getenv("EDGETWIN_TEST_SSH"), os.Getenv("EDGETWIN_TEST_SSH_KEY")
	if dest == "" || key == "" {
		t.Skip("no test sshd: EDGETWIN_TEST_SSH and EDGETWIN_TEST_SSH_KEY are unset; scripts/test starts one on 127.0.0.1")
	}
	a, err := target.Parse("ssh://" + dest)
	if err != nil {
		t.Fatalf("EDGETWIN_TEST_SSH: %v", err)
	}
	return a, key
}

// ADB puts the stand-in adb of scripts/testbin first on PATH, with a fresh
// directory in place of the device's /data/local/tmp, and returns that
// directory.
func ADB(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(Checkout(t), "scripts", "testbin")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := t.TempDir()
	t.Setenv("EDGETWIN_ADB_TMP", root)
	return root
}

// Buffer is a bytes.Buffer that a command's output copier and the test may
// use at once.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
