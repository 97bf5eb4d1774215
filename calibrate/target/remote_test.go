package target_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edgetwin/edgetwin/calibrate/target"
	"github.com/edgetwin/edgetwin/calibrate/target/targettest"
)

// sshTarget is the test sshd of scripts/test as a target, with a
// known_hosts file of its own.
func sshTarget(t *testing.T) target.Target {
	t.Helper()
	addr, key := targettest.SSH(t)
	tg, err := target.New(addr, target.Options{SSHKey: key, KnownHosts: filepath.Join(t.TempDir(), "known_hosts"), Grace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestSSHRoundTrip runs the fake probe over ssh end to end: the platform
// from uname, the push, the run, the records streamed back, and the
// probe's directory removed afterwards.
func TestSSHRoundTrip(t *testing.T) {
	tg := sshTarget(t)
	bin := targettest.BuildFakeProbe(t)
	start := time.Now()
	p, err := tg.Platform(t.Context())
	if err != nil || p != target.Host() {
		t.Fatalf("platform %v, %v; want %v", p, err, target.Host())
	}
	o := probeOn(t, t.Context(), tg, bin, 6, []string{"-delay", "0"}, nil)
	if o.err != nil {
		t.Fatalf("run: %v\n%s", o.err, o.stderr)
	}
	t.Logf("ssh round trip (platform, mktemp, scp, run of 6 records, cleanup): %v", time.Since(start).Round(time.Millisecond))
	checkRecords(t, o, 6, 6)
	dir := probeDir(t, o.stderr)
	if !strings.Contains(filepath.Base(dir), "edgetwin-probe.") {
		t.Errorf("the probe ran from %s, not a temporary directory of its own", dir)
	}
	checkRemoved(t, dir)
}

// TestSSHRemoteProbeKilled: the probe dies on the device midway (as when the
// device reboots or runs out of memory); the records received are intact,
// the rest are named missing and the directory is removed.
func TestSSHRemoteProbeKilled(t *testing.T) {
	tg := sshTarget(t)
	bin := targettest.BuildFakeProbe(t)
	pidfile := filepath.Join(t.TempDir(), "pid") // the device is this machine
	o := probeOn(t, t.Context(), tg, bin, 10, []string{"-delay", "150ms", "-pidfile", pidfile}, func(n int) {
		if n == 3 {
			killPID(t, pidfile)
		}
	})
	if o.err == nil || o.err.Error() != tg.String()+": the probe was killed by signal 9" {
		t.Fatalf("err %v, want the probe killed by signal 9", o.err)
	}
	t.Logf("error: %v", o.err)
	checkRecords(t, o, 3, 10)
	checkRemoved(t, probeDir(t, o.stderr))
}

// TestSSHStop: a stopped run (timeout, Ctrl-C) asks the remote probe to end
// after its current record, keeps what came and cleans up.
func TestSSHStop(t *testing.T) {
	tg := sshTarget(t)
	bin := targettest.BuildFakeProbe(t)
	// The stop travels over a connection of its own, which takes a while:
	// up to 40 × 300 ms here.
	o := stopAt(t, tg, bin, 40, 2, "300ms")
	n := len(o.session.Records())
	if n < 2 || n == 40 {
		t.Errorf("%d records after a stop at the second", n)
	}
	checkRecords(t, o, n, 40)
	if !strings.Contains(o.stderr, "fakeprobe: interrupted after") {
		t.Errorf("the remote probe was not asked to stop: %s", o.stderr)
	}
	checkRemoved(t, probeDir(t, o.stderr))
}

// TestSSHUnreachable: nothing listens; the error says the connection failed.
func TestSSHUnreachable(t *testing.T) {
	addr, key := targettest.SSH(t)
	addr.Port = 1 // tcpmux: nothing listens there
	tg, _ := target.New(addr, target.Options{SSHKey: key, KnownHosts: filepath.Join(t.TempDir(), "kh")})
	_, err := tg.Platform(t.Context())
	if err == nil || !strings.Contains(err.Error(), "connection failed or lost") || !strings.Contains(err.Error(), "Connection refused)") {
		t.Errorf("err %v", err)
	}
}

// TestADBRoundTrip runs the fake probe through the stand-in adb of
// scripts/testbin, whose device reports an x86_64 ABI.
func TestADBRoundTrip(t *testing.T) {
	root := targettest.ADB(t)
	tg, _ := target.New(target.Address{Scheme: target.ADB, Serial: "emulator-5554"}, target.Options{Grace: 5 * time.Second})
	bin := targettest.BuildFakeProbe(t)
	start := time.Now()
	p, err := tg.Platform(t.Context())
	if err != nil || p.String() != "linux/amd64" {
		t.Fatalf("platform %v, %v; want linux/amd64", p, err)
	}
	o := probeOn(t, t.Context(), tg, bin, 6, []string{"-delay", "0"}, nil)
	if o.err != nil {
		t.Fatalf("run: %v\n%s", o.err, o.stderr)
	}
	t.Logf("adb round trip (stand-in adb): %v", time.Since(start).Round(time.Millisecond))
	checkRecords(t, o, 6, 6)
	if dir := probeDir(t, o.stderr); filepath.Dir(dir) != root {
		t.Errorf("the probe ran from %s, not from /data/local/tmp (%s)", dir, root)
	}
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Errorf("left on the device: %v", left)
	}
}

// TestADBStop: a stopped adb run keeps what came, and cleans up.
func TestADBStop(t *testing.T) {
	root := targettest.ADB(t)
	tg, _ := target.New(target.Address{Scheme: target.ADB, Serial: "emulator-5554"}, target.Options{Grace: 5 * time.Second})
	bin := targettest.BuildFakeProbe(t)
	o := stopAt(t, tg, bin, 10, 2, "200ms")
	checkRecords(t, o, len(o.session.Records()), 10)
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Errorf("left on the device: %v", left)
	}
}

func TestADBUnknownDevice(t *testing.T) {
	targettest.ADB(t)
	tg, _ := target.New(target.Address{Scheme: target.ADB, Serial: "R58M0000"}, target.Options{})
	_, err := tg.Platform(t.Context())
	if err == nil || !strings.Contains(err.Error(), "adb://R58M0000: adb: exit status 1: adb: device 'R58M0000' not found") {
		t.Errorf("err %v", err)
	}
}

func TestADBMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	tg, _ := target.New(target.Address{Scheme: target.ADB, Serial: "x"}, target.Options{})
	_, err := tg.Platform(t.Context())
	if err == nil || !strings.HasPrefix(err.Error(), "adb://x: adb: adb is not on PATH: install Android's platform-tools") {
		t.Errorf("err %v", err)
	}
}
