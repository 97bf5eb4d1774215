package target

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/calibrate/probe"
)

// ModulePath is the module of edgetwin's source; a checkout is a directory
// whose go.mod declares it.
const ModulePath = "github.com/edgetwin/edgetwin"

// ErrNoProbeBinary says that no probe binary was given and edgetwin does
// not run from a source checkout to build one.
var ErrNoProbeBinary = errors.New("no probe binary: edgetwin does not run from a source checkout (no go.mod of " +
	ModulePath + " above the working directory or the executable), so it cannot build one; " +
	"give --probe-binary FILE, an edgetwin-probe built for the target (GOOS=… GOARCH=… CGO_ENABLED=0 go build ./cmd/edgetwin-probe)")

// FindCheckout looks for edgetwin's source checkout in each of dirs and the
// directories above them, in order, and returns its root.
func FindCheckout(dirs ...string) (string, bool) {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		d, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		for {
			if modulePath(filepath.Join(d, "go.mod")) == ModulePath {
				return d, true
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	return "", false
}

// modulePath reads the module line of a go.mod file; "" when there is none.
func modulePath(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			path := strings.TrimSpace(rest)
			if uq, err := strconv.Unquote(path); err == nil {
				path = uq
			}
			return path
		}
	}
	return ""
}

// SearchDirs are where edgetwin looks for its checkout: the working
// directory and the directory of its executable.
func SearchDirs() []string {
	var dirs []string
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		dirs = append(dirs, filepath.Dir(exe))
	}
	return dirs
}

// Build cross-builds cmd/edgetwin-probe of the checkout at root for p, a
// static binary without cgo, into dir, and returns its path.
func Build(ctx context.Context, root string, p Platform, dir string) (string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building the probe for %s from %s needs the Go toolchain on PATH; without it, give a probe binary built for %s", p, root, p)
	}
	out := filepath.Join(dir, probeName+"-"+p.OS+"-"+p.Arch+p.ARM)
	cmd := exec.CommandContext(ctx, gobin, "build", "-trimpath", "-o", out, "./cmd/edgetwin-probe")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), p.Env()...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the probe for %s in %s: %v: %s", p, root, err, strings.Join(strings.Fields(string(msg)), " "))
	}
	return out, nil
}

// ProbeArgs are the edgetwin-probe arguments that make it take opts.
func ProbeArgs(opts probe.Options) []string {
	var args []string
	if opts.Quick {
		args = append(args, "-quick")
	}
	if opts.Threads > 0 {
		args = append(args, "-threads", strconv.Itoa(opts.Threads))
	}
	if opts.SoC != "" {
		args = append(args, "-soc", opts.SoC)
	}
	return args
}
