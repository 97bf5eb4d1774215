package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/internal/suggest"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes of CONTRACT.md.
const (
	exitOK       = 0
	exitInternal = 1
	exitBadInput = 2
)

// badInput marks an error as the user's input: exit 2.
type badInput struct{ err error }

func (b badInput) Error() string { return b.err.Error() }
func (b badInput) Unwrap() error { return b.err }

// UserInput marks it as the user's input (hw/spec.UserInput): exit 2.
func (badInput) UserInput() {}

func inputErr(err error) error {
	if err == nil {
		return nil
	}
	return badInput{err}
}

// flagErr is err, about the value of flag, as bad input located at the
// flag (the value alone does not say which flag it came from).
func flagErr(flag string, err error) error {
	if spec.IsSpecError(err) {
		return badInput{err}
	}
	return badInput{&spec.Error{File: flag, Msg: err.Error()}}
}

func inputErrorf(format string, args ...any) error {
	return badInput{fmt.Errorf(format, args...)}
}

// run executes the CLI with args and returns the exit code; tests call it
// in-process.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Ctrl-C or SIGTERM cancels the command's context: its runs stop and
	// what it was writing is dropped, so its outputs are left as they were.
	ctx, stop := stopOnSignal(context.Background())
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	if c := context.Cause(ctx); c != nil && errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), c.Error()) {
		err = fmt.Errorf("%w (%v)", err, c) // say why the context was cancelled
	}
	fmt.Fprintln(stderr, "edgetwin: "+spec.OneLine(flagged(err)))
	if spec.IsUserInput(err) {
		return exitBadInput
	}
	return exitInternal
}

// flagged is err's message on the command line: a setting a package below
// cmd names by its field (spec.Error's Field: "draft.len", "what_if")
// is named by the flag that gives it (--draft-len, --what-if), the field
// path with its dots and underscores as dashes, as every such flag is
// spelled.
func flagged(err error) string {
	msg := err.Error()
	var ie *spec.Error
	if errors.As(err, &ie) && ie.Field != "" && ie.File == "" {
		msg = strings.Replace(msg, ie.Error(), ie.Named("--"+strings.NewReplacer(".", "-", "_", "-").Replace(ie.Field)), 1)
	}
	return msg
}

// stopOnSignal is ctx, cancelled with the signal as its cause on SIGINT or
// SIGTERM: a command then stops its runs (a probe after its current
// record) and drops what it was writing.
func stopOnSignal(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-sigs:
			// A second Ctrl-C ends edgetwin at once, as a kill would:
			// the outputs are whole either way.
			signal.Stop(sigs)
			cancel(fmt.Errorf("%v received", sig))
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "edgetwin",
		Short: "A digital twin of edge SoCs running LLM inference",
		Long: `edgetwin simulates an LLM running on an edge SoC — MAC arrays, SRAM, L3 and
LPDDR, DMA and driver costs — and predicts time to first token, tokens/s,
memory traffic and L3 miss rates. Start with: edgetwin simulate`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return badInput{flagHint(c, err)} })
	root.AddCommand(newSimulate(), newSweep(), newCompare(), newAdvise(), newCalibrate(), newCatalog(), newReport())
	usageIsInput(root)
	return root
}

// unknownCommand is the error for a command group c does not have, with
// the nearest of its commands by the one suggester.
func unknownCommand(c *cobra.Command, name string) error {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
	if near := suggest.Closest(name, names, 2); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return badInput{fmt.Errorf("%s (%s --help lists the commands)", msg, c.CommandPath())}
}

// usageIsInput makes cobra's own complaints about a command line the
// user's input (exit 2): a wrong number of arguments to a command, and a
// command a group does not have, which cobra would otherwise answer with
// the group's help and exit 0 ("edgetwin calibrate fitt").
func usageIsInput(c *cobra.Command) {
	if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, a []string) error {
			if len(a) == 0 {
				return cmd.Help()
			}
			return unknownCommand(cmd, a[0])
		}
	} else if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return badInput{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageIsInput(sub)
	}
}

// flagHint adds a "did you mean" to an unknown flag: the nearest flags
// the command has, by the one suggester (internal/suggest).
func flagHint(c *cobra.Command, err error) error {
	// On a group, a flag cobra cannot place means the command before it
	// is not one of the group's ("edgetwin simulat --soc x").
	if a := c.Flags().Args(); c.HasSubCommands() && len(a) > 0 {
		return unknownCommand(c, a[0])
	}
	msg := err.Error()
	_, name, ok := strings.Cut(msg, "unknown flag: --")
	if !ok {
		return err
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	near := suggest.Closest(strings.Fields(name + " ")[0], names, 2)
	if len(near) == 0 {
		return err
	}
	return fmt.Errorf("%s; did you mean --%s? (%s --help lists the flags)", msg, strings.Join(near, " or --"), c.CommandPath())
}
