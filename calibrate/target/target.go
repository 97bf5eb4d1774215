package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// Target is a machine a probe binary runs on.
type Target interface {
	// Platform detects the OS and architecture a probe binary must be
	// built for; it is also the first check that the target answers.
	Platform(ctx context.Context) (Platform, error)
	// Run copies the binary bin to a temporary place on the target, runs
	// it with args and hands each line it prints on stdout to line as soon
	// as it is complete, without the line break; its stderr is copied to
	// stderr. The copy is removed afterwards, also when the run fails.
	// When ctx is done, Run asks the program to stop (SIGTERM: the probe
	// ends after its current record), reads what it prints for a grace
	// period, then cuts it off. An error of line stops the run and is
	// returned.
	Run(ctx context.Context, bin string, args []string, line func([]byte) error, stderr io.Writer) error
	// String is the target's address.
	String() string
}

// Options are how edgetwin reaches targets.
type Options struct {
	// SSHKey is the private key file ssh logs in with (ssh -i); empty
	// leaves the choice to ssh and its agent.
	SSHKey string
	// KnownHosts is the known_hosts file of edgetwin's ssh connections:
	// a host's key is accepted the first time and must match after that.
	KnownHosts string
	// Grace is how long a stopped probe has to send its last record
	// before it is cut off; 0 means 10 s.
	Grace time.Duration
}

// probeName is the probe binary's name on the target.
const probeName = "edgetwin-probe"

// New returns the target at a, reached as opts says.
func New(a Address, opts Options) (Target, error) {
	if opts.Grace == 0 {
		opts.Grace = 10 * time.Second
	}
	if opts.SSHKey != "" && a.Scheme != SSH {
		return nil, spec.FieldErrorf("ssh_key", "is for ssh:// targets, not %s", a)
	}
	switch a.Scheme {
	case Local:
		return &localTarget{grace: opts.Grace}, nil
	case SSH:
		return &sshTarget{addr: a, key: opts.SSHKey, knownHosts: opts.KnownHosts, grace: opts.Grace}, nil
	case ADB:
		return &adbTarget{serial: a.Serial, grace: opts.Grace}, nil
	}
	return nil, fmt.Errorf("target %q: unknown scheme; use %s", a, Forms)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellLine quotes each word and joins them.
func shellLine(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

// remote is a machine reached through a shell: ssh or adb.
type remote interface {
	fmt.Stringer
	// sh runs a short script there and returns what it printed.
	sh(ctx context.Context, script string) (string, error)
	// push copies the local file bin to path there.
	push(ctx context.Context, bin, path string) error
	// command is the command that runs script there, its output streamed.
	command(script string) *exec.Cmd
}

// runRemote copies bin into a directory of its own under tmp on r, runs it
// with args and removes the directory afterwards, also on failure; see
// [Target.Run]. tmp is a shell word: "${TMPDIR:-/tmp}" is expanded there.
func runRemote(ctx context.Context, r remote, tmp, bin string, args []string, line func([]byte) error, stderr io.Writer, grace time.Duration) (err error) {
	name := "edgetwin-probe." + randomHex()
	out, err := r.sh(ctx, "d="+tmp+"/"+name+" && mkdir -m 700 \"$d\" && echo \"$d\"")
	if err != nil {
		return err
	}
	dir := strings.TrimSpace(out)
	if !strings.HasPrefix(dir, "/") || !strings.HasSuffix(dir, "/"+name) || strings.ContainsAny(dir, "\n'\"") {
		return fmt.Errorf("%s: the probe's directory came out as %q", r, dir)
	}
	s := remoteScripts{dir: dir}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		if _, cerr := r.sh(cctx, s.cleanup()); cerr != nil && err == nil {
			err = fmt.Errorf("removing %s: %w", dir, cerr)
		}
	}()
	if err := r.push(ctx, bin, s.bin()); err != nil {
		return err
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
		defer cancel()
		r.sh(sctx, s.stop())
	}
	err = stream(ctx, r.String(), r.command(s.run(args)), func() { go stop() }, grace, line, stderr)
	var xe *ExitError
	if errors.As(err, &xe) && xe.Status > 128 && xe.Status < 128+65 {
		// The shell there reports a probe ended by a signal as 128+n
		// (and its last line on stderr is the shell's notice of it).
		return fmt.Errorf("%s: the probe was killed by signal %d", r, xe.Status-128)
	}
	return err
}

// randomHex names a directory that no other run shares.
func randomHex() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// remoteScripts are the shell lines that run a probe copied to dir and
// clean up after it. The run line records the probe's pid, so that stop
// and cleanup can signal it, and removes dir itself when the probe ends,
// so that nothing is left there even when edgetwin is killed: the probe
// then ends at its next record, on a closed connection.
type remoteScripts struct{ dir string }

func (r remoteScripts) bin() string { return r.dir + "/" + probeName }

func (r remoteScripts) run(args []string) string {
	return "d=" + shellQuote(r.dir) + "; cd \"$d\" && chmod 755 " + probeName + " && trap 'rm -rf \"$d\"' EXIT || exit 1; " +
		shellLine(append([]string{r.bin()}, args...)...) + " & echo $! > pid; wait $!"
}

// stop asks the probe to end after its current record.
func (r remoteScripts) stop() string {
	return "kill -TERM $(cat " + shellQuote(r.dir+"/pid") + ") 2>/dev/null"
}

// cleanup kills a probe still running from dir (checked by its command
// line, so a recycled pid is left alone) and removes dir.
func (r remoteScripts) cleanup() string {
	d := shellQuote(r.dir)
	return "p=$(cat " + d + "/pid 2>/dev/null) && tr '\\0' ' ' </proc/$p/cmdline 2>/dev/null | grep -qF " + d +
		" && kill -KILL $p; rm -rf " + d
}

// cleanupTimeout bounds the removal of a probe after its run, which uses a
// context of its own: the run's may be done.
const cleanupTimeout = 30 * time.Second

func keys[V any](m map[string]V) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}
