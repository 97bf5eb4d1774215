package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/edgetwin/edgetwin/internal/suggest"
	"github.com/spf13/pflag"
	"io"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/spf13/cobra"
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
	err := root.ExecuteContext(context.Background())
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "edgetwin: "+spec.OneLine(err.Error()))
	var bi badInput
	var ie *sim.InputError
	if errors.As(err, &bi) || errors.As(err, &ie) || spec.IsSpecError(err) || isUsage(err) {
		return exitBadInput
	}
	return exitInternal
}

// isUsage recognises cobra's own errors about commands and arguments.
func isUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "flag needs an argument", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
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
	return root
}

// flagHint adds a "did you mean" to an unknown flag: the nearest flags
// the command has, by the one suggester (internal/suggest).
func flagHint(c *cobra.Command, err error) error {
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
	return fmt.Errorf("%s; did you mean --%s? (edgetwin %s --help lists the flags)", msg, strings.Join(near, " or --"), c.Name())
}
