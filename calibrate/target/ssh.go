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

// args are ssh's arguments that run script on the target.
func (t *sshTarget) args(script string) []string {
	args := t.options()
	if t.addr.Port != 0 {
		args = append(args, "-p", strconv.Itoa(t.addr.Port))
	}
	return append(args, "--", t.login(), script)
}

func (t *sshTarget) command(script string) *exec.Cmd { return exec.Command("ssh", t.args(script)...) }

// sh runs a short script on the target and returns what it printed.
func (t *sshTarget) sh(ctx context.Context, script string) (string, error) {
	out, err := output(ctx, "ssh", t.args(script)...)
	if err != nil {
		return out, t.explain(err)
	}
	return out, nil
}

// explain says that status 255 is ssh's own failure: the connection
// (or the session on the server) failed; other errors get the target's
// name in front unless they have it.
func (t *sshTarget) explain(err error) error {
	var xe *ExitError
	if errors.As(err, &xe) && xe.Status == 255 {
		msg := "connection failed or lost"
		if xe.Stderr != "" {
			msg += " (last said: " + xe.Stderr + ")"
		}
		return fmt.Errorf("%s: %s", t, msg)
	}
	if strings.HasPrefix(err.Error(), t.String()+": ") {
		return err
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

func (t *sshTarget) Run(ctx context.Context, bin string, args []string, line func([]byte) error, stderr io.Writer) error {
	if err := runRemote(ctx, t, `"${TMPDIR:-/tmp}"`, bin, args, line, stderr, t.grace); err != nil {
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
