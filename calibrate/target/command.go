package target

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// ExitError is a command on the way to or on the target that failed: the
// command, its exit status (-1 when it did not start or was cut off) and
// the last line it printed on stderr.
type ExitError struct {
	Cmd    string
	Status int
	Stderr string // the last line it printed on stderr
	Err    error
}

// Error prints "command: what happened: last line of stderr".
func (e *ExitError) Error() string {
	msg := fmt.Sprintf("%s: %v", e.Cmd, e.Err)
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// Unwrap is the error of the command's start or wait.
func (e *ExitError) Unwrap() error { return e.Err }

// output runs a short command and returns its stdout; the error is an
// *ExitError with its stderr.
func output(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return stdout.String(), exitError(cmd, err, stderr.Bytes())
	}
	return stdout.String(), nil
}

// missingTool says how to get a client that is not on PATH.
var missingTool = map[string]string{
	"ssh": "install OpenSSH's client (Debian: apt-get install openssh-client)",
	"scp": "install OpenSSH's client (Debian: apt-get install openssh-client)",
	"adb": "install Android's platform-tools (Debian: apt-get install adb)",
}

func exitError(cmd *exec.Cmd, err error, stderr []byte) *ExitError {
	if hint, ok := missingTool[commandName(cmd)]; ok && errors.Is(err, exec.ErrNotFound) {
		err = fmt.Errorf("%s is not on PATH: %s", commandName(cmd), hint)
	}
	e := &ExitError{Cmd: commandName(cmd), Status: -1, Stderr: lastLine(stderr), Err: err}
	var xe *exec.ExitError
	if errors.As(err, &xe) {
		e.Status = xe.ExitCode()
	}
	return e
}

// commandName is the program's name, without the arguments (a remote
// script would not fit on a line).
func commandName(cmd *exec.Cmd) string { return filepath.Base(cmd.Args[0]) }

// stream runs cmd on the target name and hands each line of its stdout to line as soon as it
// is complete (without the line break). Its stderr is copied to stderr.
// When ctx is done, stop is called to ask the program to end after its
// current record; whatever it prints within grace after that is still
// read, then the command is killed. A line error kills the command at
// once and is returned as it is; other errors start with name.
func stream(ctx context.Context, name string, cmd *exec.Cmd, stop func(), grace time.Duration, line func([]byte) error, stderr io.Writer) error {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	tail := &tailBuffer{max: 2048}
	cmd.Stderr = io.MultiWriter(stderr, tail)
	cmd.WaitDelay = grace
	setGroup(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, exitError(cmd, err, nil))
	}

	finished := make(chan struct{})
	var watch sync.WaitGroup
	watch.Go(func() {
		select {
		case <-finished:
			return
		case <-ctx.Done():
		}
		stop()
		select {
		case <-finished:
		case <-time.After(grace):
			killGroup(cmd)
		}
	})

	lineErr, cut := readLines(stdout, line)
	if lineErr != nil {
		killGroup(cmd)
	}
	waitErr := cmd.Wait()
	close(finished)
	watch.Wait()

	switch {
	case lineErr != nil:
		return lineErr
	case ctx.Err() != nil:
		return fmt.Errorf("%s: stopped: %w", name, context.Cause(ctx))
	case waitErr != nil:
		return fmt.Errorf("%s: %w", name, exitError(cmd, waitErr, tail.Bytes()))
	case cut > 0:
		return fmt.Errorf("%s: %s: output ended inside a line (%d bytes without a line break)", name, commandName(cmd), cut)
	}
	return nil
}

// readLines reads r to its end and passes each complete line to line. It
// returns the first error of line, or the length of a last line cut short.
func readLines(r io.Reader, line func([]byte) error) (error, int) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		text, err := br.ReadBytes('\n')
		if err != nil {
			// Drain so that the command is not blocked on a full pipe.
			io.Copy(io.Discard, br)
			return nil, len(text)
		}
		if lerr := line(bytes.TrimRight(text, "\r\n")); lerr != nil {
			go io.Copy(io.Discard, br)
			return lerr, 0
		}
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = slices.Clone(t.buf[len(t.buf)-t.max:])
	}
	return len(p), nil
}

func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.buf)
}

// lastLine is the last line of b that is not blank.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
