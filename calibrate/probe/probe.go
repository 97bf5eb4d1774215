package probe

import (
	"context"
	"errors"
	"io"

	"github.com/edgetwin/edgetwin/calibrate"
)

// Options choose what a probe measures.
type Options struct {
	// Quick takes a probe that finishes in under a minute on a 2-core
	// machine, with fewer sizes and repetitions; a full probe takes at
	// most five minutes.
	Quick bool
	// Threads is the largest thread count of the multi-threaded kernels;
	// 0 means every core.
	Threads int
	// SoC is the chip the records are measured on, as their soc field: a
	// catalog id or a chip file's path.
	SoC string
	// Progress, when not nil, receives one line per step as it starts.
	Progress io.Writer
}

// Step is one measurement of a probe; it emits one or more records whose
// source is "probe:" and the step's name.
type Step struct {
	Name string
	Kind calibrate.Kind
}

// Plan lists the steps Run takes with opts, in order.
func Plan(opts Options) []Step { return nil }

// Run takes every step of Plan(opts) and passes each record to emit as soon
// as it is measured. It stops at the first error of emit, or when ctx is
// done, returning that error.
func Run(ctx context.Context, opts Options, emit func(calibrate.Record) error) error {
	return errors.New("probe: not implemented yet")
}

// Host describes the machine a probe ran on: what the OS says of its CPU,
// caches, memory and sensors.
type Host struct {
	OS   string `json:"os"`
	Arch string `json:"arch"`
}

// Inspect describes the machine it runs on.
func Inspect() Host { return Host{} }

// EmitSoC writes a chip file (SoC YAML) for host from its description and
// the probe's records, with a source for every figure.
func EmitSoC(host Host, recs []calibrate.Record) ([]byte, error) {
	return nil, errors.New("probe: EmitSoC not implemented yet")
}
