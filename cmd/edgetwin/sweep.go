package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/advisor"
	"github.com/edgetwin/edgetwin/reports"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/sweep"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newSweep() *cobra.Command {
	var (
		f          runFlags
		varies     []string
		metrics    []string
		plotTo     string
		sampleSpec string
		shard      string
		shards     int
		requires   []string
		paretoSpec string
		output     string
		resume     string
	)
	cmd := &cobra.Command{
		Use:   "sweep --vary FIELD=RANGE... --metrics KEY,...",
		Short: "Simulate over ranges of a field and tabulate or plot chosen metrics",
		Long: `sweep runs simulate once per combination of the varied fields, on all cores,
and prints the chosen metrics of each run.

--vary FIELD=RANGE (repeatable; the first is the outermost loop and the
plot's x axis). RANGE is a..b:step (additive) or a..b:xN (multiplicative),
both ends included, or a list a,b,c; values take units (1MiB, 40GB/s).
FIELD is:
  kv    the KV-cache size at the start of decode: the prompt becomes
        round(kv / (KV bytes per token × batch)) tokens (at least 1),
        shown as ctx; it replaces --prompt
  ctx   the prompt (context) length, in tokens; it replaces --prompt
  quant, model, runtime
        a list of names, each run as --quant, --model or --runtime would
        run it (quant=Q4_0,Q5_K_M,Q8_0; runtime=genie,llama.cpp-cpu)
  PATH  any --set path: chip fields unprefixed (memory.l3.size), model
        fields as model.PATH (model.kv_heads), runtime fields as
        runtime.PATH (runtime.context)
At most 10000 points.

--metrics lists key paths of the simulate JSON (memory.kv_l3_miss_rate,
decode.tokens_per_s, ...). --format json prints one object per point:
the varied fields under their names, in SI base units, then the metrics.
--format jsonl prints JSON Lines: a header line naming the sweep, then
one point a line with its index, each as soon as it and those before it
are done.

A point the chip cannot run (the model does not fit, say) does not stop
the sweep: its metrics are null and an "error" field (a column in table
and CSV) says why, and a note on stderr counts such points. The sweep
fails (exit 2) only when no point runs.

--shard I/N (0 ≤ I < N) runs only the points whose index in range order
is I modulo N and writes them as JSON Lines; --shard auto takes I and N
from a Slurm array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT) or a
Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with --shards N). Give the
parts to "edgetwin sweep merge", which prints what the whole sweep would.

--plot FILE.png|FILE.svg|FILE.pdf draws one panel per metric over the
first field, one line per combination of the others.

--require EXPR (repeatable) checks every point against a condition over
the simulate result's keys (ttft_s, decode.tokens_per_s) and the varied
fields under vary., by their --vary names in SI base units (vary.kv,
vary.ctx, vary.memory.l3.size, vary.model.kv_heads). Every point is kept:
the output adds "pass" and, for a point that fails, "unmet" saying why. A
requirement on a null figure fails, and says so.

--pareto 'min:EXPR,max:EXPR[,DIR:EXPR]' prints only the Pareto front: the
points that pass every --require and that no other point beats in every
objective, in range order, with each objective that is not a --metrics
name as a column of its own. Points equal in every objective are all on
the front. With --plot it draws every point in the space of the first two
objectives and marks the front. --format jsonl (and --shard) streams
every point with its objectives; sweep merge prints the front.

Expressions are compiled before anything runs: a bad one is exit 2.

-o FILE writes the JSON Lines stream into FILE, a whole line a point as
each finishes (in order), so a killed run keeps every point it finished.
--resume FILE, with the flags that began it, checks that FILE is this
sweep's (and this shard's), drops a last line the kill cut short, runs
only the points missing and appends them: FILE ends as an uninterrupted
run leaves it. A FILE that does not exist is begun.

--sample lhs:N (or random:N) runs N points drawn from the space the --vary
ranges span, which may then be far larger than 10000 points: a Latin
hypercube covers every axis evenly with few points. The draw follows
--seed, so a sampled sweep shards and merges like a grid.`,
		Example: `  edgetwin sweep --soc seed-c --model seed-moe-3b --vary kv=1MiB..16MiB:1MiB \
      --metrics memory.kv_l3_miss_rate,memory.l3_miss_rate,decode.tokens_per_s --plot kv.png
  edgetwin sweep --vary ctx=128..4096:x2 --vary memory.l3.size=3MiB,6MiB,12MiB \
      --metrics decode.tokens_per_s --format csv
  edgetwin sweep --fidelity analytic --vary memory.l3.size=3MiB..24MiB:x2 --vary ctx=256..4096:x2 \
      --metrics decode.tokens_per_s --require 'ttft_s < 2' \
      --pareto 'min:vary.memory.l3.size,max:decode.tokens_per_s' --plot front.png
  edgetwin sweep --vary memory.dram.bandwidth=40GB/s..80GB/s:10GB/s --metrics decode.tokens_per_s
  edgetwin sweep --vary ctx=128..4096:x2 --metrics decode.tokens_per_s --shard 1/4 > part-1.jsonl
  edgetwin sweep --vary ctx=128..4096:x2 --metrics decode.tokens_per_s -o run.jsonl   # killed? the same with --resume run.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			sh, err := sweep.ParseShard(shard, shards, os.Getenv)
			if err != nil {
				return err
			}
			streamTo, err := sweepStream(cmd, output, resume, f.format)
			if err != nil {
				return err
			}
			jsonl, format, err := sweepFormat(cmd, f.format, plotTo, shard != "")
			if err != nil {
				return err
			}
			jsonl = jsonl || streamTo != "" // sweepStream checked --format
			if len(metrics) == 0 {
				return inputErrorf("--metrics is required: result key paths such as decode.tokens_per_s,memory.kv_l3_miss_rate")
			}
			if err := reports.CheckMetrics(metrics); err != nil {
				return inputErr(err)
			}
			parse := sweep.ParseVaries
			var sample *sweep.Sample
			if sampleSpec != "" {
				sm, err := sweep.ParseSample(sampleSpec, f.seed)
				if err != nil {
					return err
				}
				if plotTo != "" && paretoSpec == "" {
					return inputErrorf("--plot draws the lines of a grid; a --sample has none: print it (--format csv) and plot its points yourself, or plot its front (--pareto)")
				}
				sample, parse = &sm, sweep.ParseSpace
			}
			axes, err := parse(varies)
			if err != nil {
				return err
			}
			if plotTo != "" && paretoSpec == "" && axes[0].Choices != nil {
				return inputErrorf("--plot draws its lines over the first --vary field, and %s takes names, not numbers: give a numeric field first (the names then make one line each)", axes[0].Field)
			}
			for _, a := range axes {
				if (a.Field == sweep.FieldKV || a.Field == sweep.FieldCtx) && f.depth > 0 {
					return inputErrorf("--vary %s sizes the context by the prompt; --depth %d would add to it: leave --depth out", a.Field, f.depth)
				}
			}
			// The flags on their own must make a valid run; a bad --set
			// is reported as simulate reports it.
			base, err := f.config(f.soc)
			if err != nil {
				return err
			}
			s := &sweep.Sweep{
				Axes: axes, Metrics: metrics, Sets: f.sets, Measure: reports.MetricValues, Progress: cmd.ErrOrStderr(), Sample: sample,
				Load: func(sets []string) (sim.Config, error) {
					// The sweep's own --set values, then one a varied
					// field: a field of names sets its flag.
					pf := f
					pf.sets = slices.Clone(sets[:len(f.sets)])
					for _, set := range sets[len(f.sets):] {
						switch name, value, _ := strings.Cut(set, "="); name {
						case "quant":
							pf.quant = value
						case "model":
							pf.model = value
						case "runtime":
							pf.runtime = value
						default:
							pf.sets = append(pf.sets, set)
						}
					}
					return pf.config(pf.soc)
				},
			}
			r := &sweep.Result{SoC: base.Chip.ID, Model: base.Model.ID, Quant: base.Quant.String(), Fields: s.Fields(), Metrics: metrics, Requires: requires}
			if !slices.ContainsFunc(axes, func(a sweep.Axis) bool { return strings.HasPrefix(a.Field, "memory.l3.") }) {
				r.L3Bytes = float64(base.Chip.Memory.L3.Size)
			}
			// Every expression compiles before the first point runs.
			if paretoSpec != "" {
				if r.Objectives, err = sweep.ParseObjectives(paretoSpec); err != nil {
					return err
				}
			}
			if s.Judge, err = advisor.SweepJudge(r); err != nil {
				return inputErr(err)
			}
			var emit func(sweep.Point) error
			indices := sh.Indices(s.Len())
			var done []sweep.Point // what the file to resume holds
			if jsonl {
				h := sweep.Header{SoC: r.SoC, Model: r.Model, Quant: r.Quant, Varies: varies, Fields: r.Fields, Metrics: metrics,
					Flags: flagsDigest(cmd.Flags()), Points: s.Len(), Requires: r.Requires, Objectives: r.Objectives, L3Bytes: r.L3Bytes}
				w, resumed, closeStream, err := openStream(cmd, streamTo, resume != "", h, sh, indices)
				if err != nil {
					return err
				}
				defer func() {
					if cerr := closeStream(); err == nil && cerr != nil {
						err = fmt.Errorf("-o %s: %w", streamTo, cerr)
					}
				}()
				enc := sweep.AppendEncoder(w, h)
				if resumed == nil {
					if enc, err = sweep.NewEncoder(w, h, sh); err != nil {
						return err
					}
				} else {
					done = resumed.Points
				}
				emit = enc.Encode
			}
			points, err := s.Run(cmd.Context(), indices[len(done):], emit)
			if err != nil {
				return err
			}
			r.Points = append(done, points...)
			if !sh.Whole() {
				noteShardFailures(cmd.ErrOrStderr(), r, sh)
				return nil
			}
			return printSweep(cmd, r, format, !jsonl, plotTo)
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&varies, "vary", nil, "FIELD=RANGE: a..b:step, a..b:xN or a,b,c; FIELD is kv, ctx or a --set path; repeatable, the first outermost")
	fl.StringSliceVar(&metrics, "metrics", nil, "result key paths to report, comma-separated (decode.tokens_per_s,memory.kv_l3_miss_rate)")
	fl.StringVar(&plotTo, "plot", "", "draw the metrics over the first --vary field into FILE.png, FILE.svg or FILE.pdf")
	fl.StringVar(&sampleSpec, "sample", "", "run N points drawn from the --vary space instead of its grid: random:N, or lhs:N (a Latin hypercube: every axis covered evenly); drawn with --seed, in draw order")
	fl.StringVar(&shard, "shard", "", "run one shard, I/N (the points whose index is I mod N), or auto (from a Slurm array or a Kubernetes Indexed Job), as JSON Lines")
	fl.StringArrayVar(&requires, "require", nil, "a condition every point must meet (ttft_s < 0.5), over the result's keys and the varied fields under vary. (vary.kv, vary.memory.l3.size); repeatable; a point that fails is kept with pass false and left off the front")
	fl.StringVar(&paretoSpec, "pareto", "", "print the Pareto front over two or three objectives, each min:EXPR or max:EXPR ('min:ttft_s,max:decode.tokens_per_s'); with --plot, draw it")
	fl.StringVarP(&output, "output", "o", "", "write the JSON Lines stream (--format jsonl) into FILE, each point a whole line as it finishes, so a killed run keeps what it computed")
	fl.StringVar(&resume, "resume", "", "go on with the JSON Lines FILE a killed run of this same sweep (same flags) was writing: its whole points are kept, a cut-short last line dropped, and only the missing points run; a missing FILE starts afresh")
	fl.IntVar(&shards, "shards", 0, "with --shard auto in a Kubernetes Indexed Job: the number of shards (the Job's completions)")
	cmd.AddCommand(newSweepMerge())
	return cmd
}

func newSweepMerge() *cobra.Command {
	var format, plotTo string
	cmd := &cobra.Command{
		Use:   "merge PART.jsonl...",
		Short: "Join the JSON Lines parts of a sharded sweep and print the whole sweep",
		Long: `merge reads the parts that "edgetwin sweep --shard" wrote (one file per
shard, in any order) and prints exactly what the unsharded sweep prints, in
table, json or csv. It fails (exit 2) when a point is missing or present
twice, or when the parts come from different sweeps (other --vary,
--metrics or flags).`,
		Example: `  edgetwin sweep merge part-*.jsonl --format csv`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := checkOutput(format, plotTo)
			if err != nil {
				return err
			}
			r, err := sweep.Merge(args...)
			if err != nil {
				return err
			}
			return printSweep(cmd, r, f, true, plotTo)
		},
	}
	cmd.Flags().StringVar(&format, "format", string(reports.Table), "output: table, json or csv")
	cmd.Flags().StringVar(&plotTo, "plot", "", "draw the metrics over the first --vary field into FILE.png, FILE.svg or FILE.pdf")
	return cmd
}

// sweepFormat reads sweep's --format: jsonl besides the formats of
// reports. A shard writes JSON Lines only, and draws no plot: the plot is
// of the whole sweep, which merge has.
func sweepFormat(cmd *cobra.Command, format, plot string, sharded bool) (jsonl bool, f reports.Format, err error) {
	if sharded {
		if cmd.Flags().Changed("format") && format != "jsonl" {
			return false, "", inputErrorf("--format %s: a shard (--shard) writes JSON Lines, --format jsonl; edgetwin sweep merge prints the parts as table, json or csv", format)
		}
		if plot != "" {
			return false, "", inputErrorf("--plot draws the whole sweep, which a shard does not have: give --plot to edgetwin sweep merge")
		}
		return true, "", nil
	}
	if format == "jsonl" {
		if plot != "" {
			if err := checkPlotPath(plot); err != nil {
				return false, "", err
			}
		}
		return true, "", nil
	}
	f, err = checkOutput(format, plot)
	if err != nil && strings.Contains(err.Error(), "use table, json or csv") {
		err = inputErrorf("--format %q is not allowed: use table, json, csv or jsonl", format)
	}
	return false, f, err
}

// sweepStream reads -o and --resume: the file the JSON Lines stream goes
// to ("" for stdout). --resume FILE goes on writing FILE, so -o may only
// repeat it; a stream is JSON Lines.
func sweepStream(cmd *cobra.Command, output, resume, format string) (string, error) {
	if resume != "" && output != "" && output != resume {
		return "", inputErrorf("--resume %s goes on writing that file; -o %s names another: leave -o out", resume, output)
	}
	to := output
	if resume != "" {
		to = resume
	}
	if to == "" {
		return "", nil
	}
	if cmd.Flags().Changed("format") && format != "jsonl" {
		return "", inputErrorf("--format %s: -o and --resume write JSON Lines, --format jsonl; edgetwin sweep merge FILE prints it as table, json or csv", format)
	}
	if err := checkOutFile("-o", to); err != nil {
		return "", err
	}
	return to, nil
}

// openStream opens where a sweep's JSON Lines go: stdout when to is "",
// else the file, created afresh, or with resume what it holds of this
// sweep (nil when there is nothing to keep: a missing or empty file, or
// one cut inside its header), the file cut after its last whole line.
// Lines are written unbuffered, a point a write, so a kill leaves at most
// one line cut short, which a resume drops.
func openStream(cmd *cobra.Command, to string, resume bool, h sweep.Header, sh sweep.Shard, indices []int) (io.Writer, *sweep.Partial, func() error, error) {
	if to == "" {
		return cmd.OutOrStdout(), nil, func() error { return nil }, nil
	}
	var part *sweep.Partial
	if resume {
		if _, err := os.Stat(to); err == nil {
			p, err := sweep.ReadPartial(to, h, sh, indices)
			if err != nil {
				return nil, nil, nil, err
			}
			if p.Header {
				part = p
			}
		}
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if part != nil {
		flags = os.O_WRONLY
	}
	file, err := os.OpenFile(to, flags, 0o644)
	if err != nil {
		return nil, nil, nil, outputErr("-o", to, err)
	}
	if part != nil {
		if err := file.Truncate(part.Keep); err == nil {
			_, err = file.Seek(part.Keep, io.SeekStart)
		}
		if err != nil {
			file.Close()
			return nil, nil, nil, fmt.Errorf("--resume %s: %w", to, err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "edgetwin: resuming %s: %d of %d points done, %d to run\n", to, len(part.Points), len(indices), len(indices)-len(part.Points))
	}
	return file, part, file.Close, nil
}

// flagsDigest names the flags that shape a sweep's points, so that merge
// can refuse parts of different sweeps: every flag's value, defaults
// included, but the shard and the output.
func flagsDigest(fl *pflag.FlagSet) string {
	h := sha256.New()
	fl.VisitAll(func(f *pflag.Flag) {
		switch f.Name {
		case "shard", "shards", "format", "plot", "help", "output", "resume":
			return
		case "require", "pareto":
			// Newer than the digest: left out when not given, so parts
			// written before them still merge.
			if !f.Changed {
				return
			}
		}
		fmt.Fprintf(h, "--%s=%s\n", f.Name, f.Value.String())
	})
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]
}

// printSweep prints a whole sweep (unless write is false: JSON Lines went
// out as the points ran) and draws its plot, after a note on the points
// that did not run; it fails when none ran.
func printSweep(cmd *cobra.Command, r *sweep.Result, format reports.Format, write bool, plotTo string) error {
	if failed := r.Failed(); len(failed) > 0 {
		first := r.Points[failed[0]]
		where := sweep.Label(r.Fields, first.Values)
		if len(failed) == len(r.Points) {
			return inputErrorf("no point of the sweep ran; the first, %s: %s", where, first.Err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "edgetwin: %d of %d points did not run (see their error); the first, %s: %s\n",
			len(failed), len(r.Points), where, first.Err)
	}
	all := r
	if len(r.Objectives) > 0 {
		r = r.OnFront()
		fmt.Fprintf(cmd.ErrOrStderr(), "edgetwin: the Pareto front holds %d of %d points%s\n", len(r.Points), len(all.Points), notOnFront(all))
	}
	if write {
		if err := reports.WriteSweep(cmd.OutOrStdout(), r, format); err != nil {
			return err
		}
	}
	if plotTo == "" {
		return nil
	}
	data := reports.SweepPlotData
	if len(r.Objectives) > 0 {
		data, r = reports.FrontPlotData, all
	}
	fig, err := data(r).Figure()
	if err != nil {
		return err
	}
	return reports.SaveFigure(plotTo, fig)
}

// notOnFront says why points that are not dominated are still off the
// front: they fail a requirement, or an objective is null for them.
func notOnFront(r *sweep.Result) string {
	var failing, null int
	for _, p := range r.Points {
		switch {
		case !p.Pass():
			failing++
		case slices.Contains(p.Objectives, nil):
			null++
		}
	}
	var parts []string
	if failing > 0 {
		parts = append(parts, fmt.Sprintf("%d did not run or fail a --require", failing))
	}
	if null > 0 {
		parts = append(parts, fmt.Sprintf("%d have a null objective", null))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// noteShardFailures counts a shard's points that did not run. A shard
// never fails for them: other shards may run; merge decides.
func noteShardFailures(w io.Writer, r *sweep.Result, sh sweep.Shard) {
	if failed := r.Failed(); len(failed) > 0 {
		first := r.Points[failed[0]]
		fmt.Fprintf(w, "edgetwin: %d of the %d points of shard %s did not run (see their error); the first, %s: %s\n",
			len(failed), len(r.Points), sh, sweep.Label(r.Fields, first.Values), first.Err)
	}
}

// checkOutput reads --format and checks a --plot path before anything
// runs, so a typo never costs a whole sweep.
func checkOutput(format, plot string) (reports.Format, error) {
	f, err := reports.ParseFormat(format)
	if err != nil {
		return "", inputErr(err)
	}
	if plot != "" {
		if err := checkPlotPath(plot); err != nil {
			return "", err
		}
	}
	return f, nil
}

// checkPlotPath rejects a --plot file before anything runs: an extension
// that names no format, or a directory that does not exist.
func checkPlotPath(path string) error {
	if _, err := reports.FigureFormat(path); err != nil {
		return inputErr(err)
	}
	return checkOutFile("--plot", path)
}
