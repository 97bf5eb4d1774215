package target

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// adbTarget reaches an Android device with the adb client on PATH. The
// probe goes under /data/local/tmp, the one place a shell user may run
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

func (t *adbTarget) Run(ctx context.Context, bin string, args []string, line func([]byte) error, stderr io.Writer) error {
	return runRemote(ctx, t, "/data/local/tmp", bin, args, line, stderr, t.grace)
}

func (t *adbTarget) sh(ctx context.Context, script string) (string, error) {
	return t.adb(ctx, "shell", script)
}

func (t *adbTarget) push(ctx context.Context, bin, path string) error {
	_, err := t.adb(ctx, "push", bin, path)
	return err
}

func (t *adbTarget) command(script string) *exec.Cmd {
	return exec.Command("adb", "-s", t.serial, "shell", script)
}
