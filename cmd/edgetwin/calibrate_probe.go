package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/calibrate/probe"
	"github.com/edgetwin/edgetwin/calibrate/target"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"github.com/spf13/cobra"
)

// The probe's entry points; tests put fakes in their place to run the
// in-process path without the real kernels.
var (
	probePlan    = probe.Plan
	probeRun     = probe.Run
	probeInspect = probe.Inspect
	probeEmitSoC = probe.EmitSoC
)

type probeFlags struct {
	target, out, emitSoC, soc string
	sshKey, probeBinary       string
	timeout                   string
	quick                     bool
}

func newCalibrateProbe() *cobra.Command {
	var f probeFlags
	cmd := &cobra.Command{
		Use:   "probe --target local|ssh://user@host[:port]|adb://SERIAL -o RECORDS.jsonl",
		Short: "Measure a machine with real kernels: this one, or a device over ssh or adb",
		Long: `probe measures memory bandwidth and latency across working-set sizes, random
reads, memcpy, the quantised GEMV and GEMM kernels of LLM inference and a small
decoder, and writes one record per measurement to -o as soon as it is taken.

--target local runs the probe in this process. ssh:// and adb:// targets get a
probe binary built for their OS and architecture (detected with uname, or the
Android ABI): cross-built with the Go toolchain when edgetwin runs from its
source checkout, else the file --probe-binary names. It is copied to a
temporary directory there, run, and removed afterwards; its records stream
back as they are measured. ssh never prompts (use --ssh-key or an agent) and
keeps the host keys it has seen in edgetwin's own known_hosts file.

A lost connection, a killed probe, --timeout or Ctrl-C keeps every record
received and says which steps of the probe are missing (exit 1). Ctrl-C lets
the probe finish its current measurement (up to 10 s); a second one ends
edgetwin at once. The last line on stderr sums up: records, steps done and
missing, wall time.
--emit-soc writes a chip file for the machine from what the probe found.`,
		Example: `  edgetwin calibrate probe --target local --quick -o host.jsonl --emit-soc host.yaml
  edgetwin calibrate probe --target ssh://pi@raspberrypi.local --ssh-key ~/.ssh/id_ed25519 -o pi5.jsonl --soc raspberry-pi-5
  edgetwin calibrate probe --target adb://R58M40ABCDE -o phone.jsonl --soc snapdragon-8-gen3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runProbe(cmd.Context(), f, cmd.ErrOrStderr()) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.target, "target", "local", "where to probe: "+target.Forms)
	fl.StringVarP(&f.out, "output", "o", "", "the records file to write (JSON Lines)")
	fl.StringVar(&f.emitSoC, "emit-soc", "", "also write a chip file (SoC YAML) for the probed machine")
	fl.StringVar(&f.soc, "soc", "", "the records' chip: a catalog id or chip file (default: the --emit-soc file, else host)")
	fl.BoolVar(&f.quick, "quick", false, "a probe of under a minute, with fewer sizes and repetitions")
	fl.StringVar(&f.sshKey, "ssh-key", "", "private key for ssh:// targets (ssh -i)")
	fl.StringVar(&f.probeBinary, "probe-binary", "", "an edgetwin-probe built for the target (needed outside a source checkout)")
	fl.StringVar(&f.timeout, "timeout", "10m", "give up after this long (building and copying the probe included), keeping the records received")
	return cmd
}

// probeJob is a checked probe command: where, how and for how long.
type probeJob struct {
	addr    target.Address
	tg      target.Target
	opts    probe.Options
	timeout time.Duration
	// checkout is the source checkout to build the probe from; empty when
	// the probe runs in-process or the user gave a binary.
	checkout string
}

// checkProbeFlags turns the flags into a job; every error is bad input.
func checkProbeFlags(f probeFlags) (probeJob, error) {
	if f.out == "" {
		return probeJob{}, inputErrorf("calibrate probe needs -o RECORDS.jsonl, the records file to write")
	}
	if err := checkOutFiles("-o", f.out, "--emit-soc", f.emitSoC); err != nil {
		return probeJob{}, err
	}
	addr, err := target.Parse(f.target)
	if err != nil {
		return probeJob{}, inputErrorf("--target: %v", err)
	}
	timeout, err := units.Parse(f.timeout, units.KindDuration)
	if err != nil || timeout <= 0 {
		return probeJob{}, inputErrorf("--timeout %q is not allowed: give a positive duration such as 10m or 90s", f.timeout)
	}
	for _, file := range []struct{ flag, path string }{{"--ssh-key", f.sshKey}, {"--probe-binary", f.probeBinary}} {
		if file.path == "" {
			continue
		}
		if st, err := os.Stat(file.path); err != nil || !st.Mode().IsRegular() {
			return probeJob{}, inputErrorf("%s %s: not a readable file", file.flag, file.path)
		}
	}
	tg, err := target.New(addr, target.Options{SSHKey: f.sshKey, KnownHosts: knownHostsFile(addr)})
	if err != nil {
		return probeJob{}, inputErr(err)
	}
	job := probeJob{addr: addr, tg: tg, timeout: time.Duration(timeout * float64(time.Second))}
	job.opts = probe.Options{Quick: f.quick, SoC: recordsSoC(f)}
	if addr.Scheme != target.Local && f.probeBinary == "" {
		root, ok := target.FindCheckout(target.SearchDirs()...)
		if !ok {
			return probeJob{}, inputErr(target.ErrNoProbeBinary)
		}
		job.checkout = root
	}
	return job, nil
}

// recordsSoC is the chip the records name: --soc, else the chip file
// --emit-soc writes, else "host".
func recordsSoC(f probeFlags) string {
	switch {
	case f.soc != "":
		return calibrate.PathFrom(f.out, f.soc)
	case f.emitSoC != "":
		return calibrate.PathFrom(f.out, f.emitSoC)
	}
	return "host"
}

// knownHostsFile is edgetwin's own known_hosts, in the user's config
// directory, for ssh targets; "" (ssh's own files, so an unknown host is
// refused) when there is no such directory.
func knownHostsFile(addr target.Address) string {
	if addr.Scheme != target.SSH {
		return ""
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "edgetwin", "known_hosts")
}

func runProbe(ctx context.Context, f probeFlags, stderr io.Writer) error {
	job, err := checkProbeFlags(f)
	if err != nil {
		return err
	}
	// Ctrl-C or SIGTERM has cancelled ctx by then (run's context): the
	// probe stops after its current record.
	ctx, cancel := context.WithTimeoutCause(ctx, job.timeout, fmt.Errorf("--timeout %s reached", f.timeout))
	defer cancel()
	start := time.Now()
	job.opts.Progress = stderr

	bin := f.probeBinary
	if job.addr.Scheme != target.Local {
		if kh := knownHostsFile(job.addr); kh != "" {
			if err := os.MkdirAll(filepath.Dir(kh), 0o700); err != nil {
				return err
			}
		}
		plat, err := job.tg.Platform(ctx)
		if err != nil {
			return err
		}
		if job.checkout != "" {
			tmp, err := os.MkdirTemp("", "edgetwin-probe-build-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			fmt.Fprintf(stderr, "building edgetwin-probe for %s (%s) from %s\n", plat, job.tg, job.checkout)
			if bin, err = target.Build(ctx, job.checkout, plat, tmp); err != nil {
				return err
			}
		}
	}

	_, existed := os.Stat(f.out)
	w, err := calibrate.CreateLive(f.out)
	if err != nil {
		return outputErr("-o", f.out, err)
	}
	s := target.NewSession(job.tg.String(), w, probePlan(job.opts))
	if bin == "" {
		s.SetHost(probeInspect())
		err = probeRun(ctx, job.opts, s.Record)
	} else {
		err = job.tg.Run(ctx, bin, target.ProbeArgs(job.opts), s.Line, stderr)
	}
	kept, cerr := keepRecords(w, f.out, existed == nil, err == nil, len(s.Records()))
	if cerr != nil && err == nil {
		err = cerr
	}
	fmt.Fprintf(stderr, "probe on %s: %s; records in %s\n", job.tg, s.Summary(time.Since(start)), kept)
	if err != nil {
		if c := context.Cause(ctx); c != nil && !strings.Contains(err.Error(), c.Error()) {
			err = fmt.Errorf("%w (%v)", err, c)
		}
		return fmt.Errorf("the probe on %s did not finish: %w; %s", job.tg, err, keptNote(len(s.Records()), kept, f.out, existed == nil))
	}
	if f.emitSoC != "" {
		return emitSoC(f.emitSoC, s, stderr)
	}
	return nil
}

// keepRecords puts the records file in place. A probe that finished
// replaces out; one that did not keeps what arrived in out when there was
// no file there (where they were written as they came, so even a SIGKILL
// keeps them), else beside it in out.partial, so an earlier probe's
// records are never lost to a shorter one; with nothing received, out is
// left as it was. It returns where the records are.
func keepRecords(w *calibrate.Writer, out string, existed, finished bool, n int) (string, error) {
	switch {
	case finished || !existed && n > 0:
		return out, w.Close()
	case n > 0:
		return out + ".partial", w.CloseAs(out + ".partial")
	}
	return "", w.Discard()
}

// keptNote says where the records of a probe that did not finish are.
func keptNote(n int, kept, out string, existed bool) string {
	switch {
	case kept == "" && existed:
		return fmt.Sprintf("no records were received; %s is left as it was", out)
	case kept == "":
		return fmt.Sprintf("no records were received; %s was not written", out)
	case kept != out:
		return fmt.Sprintf("the %d records received are kept in %s; %s is left as it was", n, kept, out)
	}
	return fmt.Sprintf("the %d records received are kept in %s", n, kept)
}

// emitSoC writes the chip file of the probed host, atomically.
func emitSoC(path string, s *target.Session, stderr io.Writer) error {
	host := s.Host()
	if host == nil {
		return errors.New("--emit-soc: the probe did not describe its host (no #host line)")
	}
	data, err := probeEmitSoC(*host, s.Records())
	if err != nil {
		return fmt.Errorf("--emit-soc %s: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, data); err != nil {
		return fmt.Errorf("--emit-soc %s: %w", path, err)
	}
	fmt.Fprintf(stderr, "chip file: %s\n", path)
	return nil
}
