package probe

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/edgetwin/edgetwin/calibrate"
)

// Version is the probe's version, in every record's tool_version.
const Version = "0.1.0"

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
	// catalog id or a chip file's path. Empty means "host".
	SoC string
	// Progress, when not nil, receives one line per step as it starts.
	Progress io.Writer
	// Steps, when not empty, keeps only the steps of these names (see
	// StepNames), in Plan's order. Run fails on a name it does not know.
	Steps []string
	// Host is the host's description; nil means Run calls Inspect.
	Host *Host
}

// Step is one measurement of a probe; it emits one or more records whose
// source is "probe:" and the step's name.
type Step struct {
	Name string
	Kind calibrate.Kind
}

// step is a Step with the code that takes it.
type step struct {
	Step
	run func(r *runner, ctx context.Context) error
}

// steps is every step, in the order a probe takes them: memory first (on
// one shared buffer), then the kernels, then the decoders, which run long
// enough to show the clocks and temperatures of a sustained load.
var steps = []step{
	{Step{"bandwidth", calibrate.KindBandwidth}, (*runner).bandwidth},
	{Step{"latency", calibrate.KindLatency}, (*runner).latency},
	{Step{"random_read", calibrate.KindRandomRead}, (*runner).randomRead},
	{Step{"memcpy", calibrate.KindMemcpy}, (*runner).memcpy},
	{Step{"gemv-f16", calibrate.KindGEMV}, gemvStep(F16)},
	{Step{"gemv-q8_0", calibrate.KindGEMV}, gemvStep(Q8_0)},
	{Step{"gemv-q4_0", calibrate.KindGEMV}, gemvStep(Q4_0)},
	{Step{"gemm-q8_0", calibrate.KindGEMM}, (*runner).gemm},
	{Step{"decoder-s", calibrate.KindDecoder}, decoderStep("probe-decoder-s")},
	{Step{"decoder-m", calibrate.KindDecoder}, decoderStep("probe-decoder-m")},
	{Step{"decoder-l", calibrate.KindDecoder}, decoderStep("probe-decoder-l")},
}

// StepNames lists every step's name in the order a probe takes them.
func StepNames() []string {
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = s.Name
	}
	return names
}

// plan is the steps opts selects.
func plan(opts Options) []step {
	var out []step
	for _, s := range steps {
		if len(opts.Steps) == 0 || slices.Contains(opts.Steps, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// Plan lists the steps Run takes with opts, in order.
func Plan(opts Options) []Step {
	var out []Step
	for _, s := range plan(opts) {
		out = append(out, s.Step)
	}
	return out
}

// Run takes every step of Plan(opts) and passes each record to emit as soon
// as it is measured. It stops at the first error of emit, or when ctx is
// done, returning that error.
func Run(ctx context.Context, opts Options, emit func(calibrate.Record) error) error {
	for _, name := range opts.Steps {
		if !slices.Contains(StepNames(), name) {
			return fmt.Errorf("probe: %q is not a step; steps: %s", name, strings.Join(StepNames(), ", "))
		}
	}
	host := opts.Host
	if host == nil {
		h := Inspect()
		host = &h
	}
	r := newRunner(*host, opts, emit)
	todo := plan(opts)
	for i, s := range todo {
		if err := ctx.Err(); err != nil {
			return err
		}
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "probe: [%d/%d] %s\n", i+1, len(todo), s.Name)
		}
		r.step = s.Name
		if err := s.run(r, ctx); err != nil {
			return err // without freeing memory: a cancelled probe returns at once
		}
	}
	r.release()
	return nil
}

// runner carries what the steps share: the host, the sizes chosen for it,
// the memory buffer and the records' common fields.
type runner struct {
	host    Host
	opts    Options
	emit    func(calibrate.Record) error
	threads int
	step    string

	maxSet int64    // the largest working set, bytes
	buf    []uint64 // the memory steps' buffer, maxSet bytes
}

func newRunner(h Host, opts Options, emit func(calibrate.Record) error) *runner {
	threads := opts.Threads
	if threads <= 0 {
		threads = max(1, h.Cores)
	}
	return &runner{host: h, opts: opts, emit: emit, threads: threads, maxSet: maxWorkingSet(h, opts.Quick)}
}

// Sizes the probe is built around.
const (
	minSet        = 4 << 10
	unknownLLCSet = 256 << 20 // the largest working set when the LLC is not known
	setCap        = 2 << 30   // no working set beyond 2 GiB, whatever the LLC
)

// maxWorkingSet is 4× the LLC (2× in a quick probe), or 256 MiB when the
// LLC is unknown, but never more than an eighth of the memory or 2 GiB.
func maxWorkingSet(h Host, quick bool) int64 {
	n := int64(unknownLLCSet)
	if llc := h.LLC().Bytes; llc > 0 {
		n = 4 * llc
		if quick {
			n = 2 * llc
		}
	}
	if h.MemoryBytes > 0 {
		n = min(n, h.MemoryBytes/8)
	}
	n = min(n, setCap)
	return max(n, 1<<20) &^ (64<<10 - 1)
}

// timing of each kind of measurement, full and quick.
func (r *runner) timing(full, quick timing) timing {
	if r.opts.Quick {
		return quick
	}
	return full
}

// buffer is the memory steps' shared buffer, allocated and mapped once.
func (r *runner) buffer(ctx context.Context) ([]uint64, error) {
	if r.buf == nil {
		buf := make([]uint64, r.maxSet/8)
		if err := touch(ctx, buf); err != nil {
			return nil, err
		}
		r.buf = buf
	}
	return r.buf, nil
}

// release drops the memory buffer so the kernels have the memory.
func (r *runner) release() {
	if r.buf != nil {
		r.buf = nil
		freeMemory()
	}
}

// freeMemory hands the garbage of a step's large buffers back to the OS,
// so the next large allocation maps fresh zero pages instead of clearing
// reused ones (which takes seconds and cannot be interrupted).
func freeMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

// record is a record of the current step with the common fields set.
func (r *runner) record(kind calibrate.Kind, unit string) calibrate.Record {
	soc := r.opts.SoC
	if soc == "" {
		soc = "host"
	}
	return calibrate.Record{
		Kind: kind, SoC: soc, Device: r.host.CPU, Unit: unit,
		Source:     "probe:" + r.step,
		Conditions: r.conditions(sampleSensors()),
		Time:       time.Now().UTC().Format(time.RFC3339),
	}
}

// put fills a record's figure from a sample of rates and emits it.
func (r *runner) put(rec calibrate.Record, s sample) error {
	rec.Value, rec.Reps, rec.Stddev = s.median(), len(s), s.stddev()
	return r.emit(rec)
}

// threadCounts is 1 and the probe's largest thread count.
func (r *runner) threadCounts() []int {
	if r.threads == 1 {
		return []int{1}
	}
	return []int{1, r.threads}
}

// toolVersion is "edgetwin-probe <version>"; build is the VCS revision the
// binary was built from, when Go recorded it.
func toolVersion() (tool, build string) {
	tool = "edgetwin-probe " + Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 8 {
				build = s.Value[:8]
			}
		}
	}
	return tool, build
}

func mib(n int64) string { return fmt.Sprintf("%.4g MiB", float64(n)/(1<<20)) }
