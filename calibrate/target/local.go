package target

import (
	"context"
	"io"
	"os/exec"
	"time"
)

// localTarget runs a probe binary on this machine, where it is: nothing
// to copy or remove.
type localTarget struct{ grace time.Duration }

func (*localTarget) String() string { return "local" }

func (*localTarget) Platform(context.Context) (Platform, error) { return Host(), nil }

func (t *localTarget) Run(ctx context.Context, bin string, args []string, line func([]byte) error, stderr io.Writer) error {
	cmd := exec.Command(bin, args...)
	return stream(ctx, t.String(), cmd, func() { terminate(cmd) }, t.grace, line, stderr)
}
