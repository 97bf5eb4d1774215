package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// sshTarget reaches a machine with the system's OpenSSH client, never
// asking for a password (BatchMode), so a run cannot hang on a prompt.
type sshTarget struct {
	addr       Address
	key        string
	knownHosts string
	grace      time.Duration
}

func (t *sshTarget) String() string { return t.addr.String() }

// options are the client options of every ssh and scp call: no prompts,
// edgetwin's own known_hosts with new hosts accepted on first use, a
// connection that fails within 10 s, and one that stops answering given
// up after 3 × 5 s.
func (t *sshTarget) options() []string {
	opts := []string{
		"-o", "BatchMode=yes",
		"-o", "ConnectTimeout=10",
		"-o", "ServerAliveInterval=5",
		"-o", "ServerAliveCountMax=3",
		"-o", "LogLevel=ERROR",
	}
	if t.knownHosts != "" {
		opts = append(opts, "-o", "StrictHostKeyChecking=accept-new", "-o", "UserKnownHostsFile="+t.knownHosts)
	}
	if t.key != "" {
		opts = append(opts, "-i", t.key, "-o", "IdentitiesOnly=yes")
	}
	return opts
}

// login is user@host, or host.
func (t *sshTarget) login() string {
	if t.addr.User != "" {
		return t.addr.User + "@" + t.addr.Host
	}
	return t.addr.Host
}

// command is an ssh call that runs script on the target.
func (t *sshTarget) command(ctx context.Context, script string) *exec.Cmd {
	args := t.options()
	if t.addr.Port != 0 {
		args = append(args, "-p", strconv.Itoa(t.addr.Port))
	}
	args = append(args, "--", t.login(), script)
	if ctx == nil {
		return exec.Command("ssh", args...)
	}
	return exec.CommandContext(ctx, "ssh", args...)
}

// sh runs a short script on the target and returns what it printed.
func (t *sshTarget) sh(ctx context.Context, script string) (string, error) {
	cmd := t.command(ctx, script)
	out, err := output(ctx, cmd.Args[0], cmd.Args[1:]...)
	if err != nil {
		return out, t.explain(err)
	}
	return out, nil
}

// explain says that status 255 is ssh's own failure (the connection), or
// a remote program killed by a signal, which ssh reports the same way.
func (t *sshTarget) explain(err error) error {
	var xe *ExitError
	if errors.As(err, &xe) && xe.Status == 255 {
		msg := "connection failed or lost, or the program on it was killed"
		if xe.Stderr != "" {
			msg += " (last said: " + xe.Stderr + ")"
		}
		return fmt.Errorf("%s: %s", t, msg)
	}
	return fmt.Errorf("%s: %w", t, err)
}

func (t *sshTarget) Platform(ctx context.Context) (Platform, error) {
	out, err := t.sh(ctx, "uname -s -m")
	if err != nil {
		return Platform{}, err
	}
	p, err := parseUname(out)
	if err != nil {
		return Platform{}, fmt.Errorf("%s: %w", t, err)
	}
	return p, nil
}

func (t *sshTarget) Run(ctx context.Context, bin string, args []string, line func([]byte) error, stderr io.Writer) (err error) {
	out, err := t.sh(ctx, `mktemp -d "${TMPDIR:-/tmp}/edgetwin-probe.XXXXXX"`)
	if err != nil {
		return err
	}
	dir := strings.TrimSpace(out)
	if !strings.HasPrefix(dir, "/") || strings.ContainsAny(dir, "\n'\"") {
		return fmt.Errorf("%s: mktemp printed %q, not a directory", t, dir)
	}
	r := remoteScripts{dir: dir}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		if _, cerr := t.sh(cctx, r.cleanup()); cerr != nil && err == nil {
			err = fmt.Errorf("removing %s: %w", dir, cerr)
		}
	}()

	if err := t.push(ctx, bin, r.bin()); err != nil {
		return err
	}
	cmd := t.command(nil, r.run(args))
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.grace)
		defer cancel()
		t.sh(sctx, r.stop())
	}
	if err := stream(ctx, cmd, func() { go stop() }, t.grace, line, stderr); err != nil {
		return t.explain(err)
	}
	return nil
}

// push copies the local file bin to path on the target with scp.
func (t *sshTarget) push(ctx context.Context, bin, path string) error {
	args := t.options()
	if t.addr.Port != 0 {
		args = append(args, "-P", strconv.Itoa(t.addr.Port))
	}
	host := t.addr.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if t.addr.User != "" {
		host = t.addr.User + "@" + host
	}
	args = append(args, "-q", "--", bin, host+":"+path)
	if _, err := output(ctx, "scp", args...); err != nil {
		return t.explain(err)
	}
	return nil
}
