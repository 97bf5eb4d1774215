package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// adbTarget reaches an Android device with the adb client on PATH. The
// probe goes to /data/local/tmp, the one place a shell user may run
// programs from.
type adbTarget struct {
	serial string
	grace  time.Duration
}

func (t *adbTarget) String() string { return "adb://" + t.serial }

// adb runs adb on the device and returns what it printed.
func (t *adbTarget) adb(ctx context.Context, args ...string) (string, error) {
	out, err := output(ctx, "adb", append([]string{"-s", t.serial}, args...)...)
	if err != nil {
		return out, fmt.Errorf("%s: %w", t, err)
	}
	return out, nil
}

func (t *adbTarget) Platform(ctx context.Context) (Platform, error) {
	state, err := t.adb(ctx, "get-state")
	if err != nil {
		return Platform{}, err
	}
	if s := strings.TrimSpace(state); s != "device" {
		return Platform{}, fmt.Errorf("%s: the device is %q, not ready (adb get-state should say device)", t, s)
	}
	out, err := t.adb(ctx, "shell", "getprop ro.product.cpu.abi")
	if err != nil {
		return Platform{}, err
	}
	p, err := parseABI(out)
	if err != nil {
		return Platform{}, fmt.Errorf("%s: %w", t, err)
	}
	return p, nil
}

func (t *adbTarget) Run(ctx context.Context, bin string, args []string, line func([]byte) error, stderr io.Writer) (err error) {
	r := remoteScripts{dir: "/data/local/tmp/edgetwin-probe." + randomHex()}
	if _, err := t.adb(ctx, "shell", "mkdir "+shellQuote(r.dir)); err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		if _, cerr := t.adb(cctx, "shell", r.cleanup()); cerr != nil && err == nil {
			err = fmt.Errorf("removing %s: %w", r.dir, cerr)
		}
	}()
	if _, err := t.adb(ctx, "push", bin, r.bin()); err != nil {
		return err
	}
	cmd := exec.Command("adb", "-s", t.serial, "shell", r.run(args))
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.grace)
		defer cancel()
		t.adb(sctx, "shell", r.stop())
	}
	if err := stream(ctx, cmd, func() { go stop() }, t.grace, line, stderr); err != nil {
		return fmt.Errorf("%s: %w", t, err)
	}
	return nil
}

// randomHex names a temporary directory that no other run shares.
func randomHex() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
