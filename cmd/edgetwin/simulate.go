package main

import (
	"fmt"
	"strings"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/thermal"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/reports"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runFlags are the flags every command that runs the simulator shares.
type runFlags struct {
	soc, model, quant, kv, unit string
	policy, runtime             string
	threads                     int
	cpuLayers, layersOn         string
	draft                       string
	draftLen                    int
	draftAccept                 float64
	schedule                    string
	flags                       *pflag.FlagSet // the command's, to tell a flag given from its default
	calibration                 string
	scenario, duration          string
	fidelity, format            string
	prompt, depth, gen, batch   int
	seed                        uint64
	sets                        []string
}

func (f *runFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.flags = fl
	fl.StringVar(&f.soc, "soc", hw.DefaultChip, "catalog chip id or a chip YAML file")
	fl.StringVar(&f.model, "model", workloads.DefaultModel, "catalog model id, a model YAML file, or a Hugging Face config.json")
	fl.StringVar(&f.quant, "quant", "", "weight quantisation (default Q4_0, or the quantisation the --runtime's users run: W4A16 for genie, INT8 for rkllm): F16, Q8_0, Q4_0, a llama.cpp file type (Q4_K_M, Q5_K_M, Q3_K_M, IQ4_XS, ...), INT8, INT4, W4A16 (@gN group size), or a mix like attn=INT8,ffn=INT4")
	fl.StringVar(&f.kv, "kv-dtype", "F16", "KV-cache element type (F16, Q8_0, Q4_0, INT8, ...)")
	fl.StringVar(&f.unit, "unit", "", "unit that runs the matrix work (default: the fastest at the compute dtype)")
	fl.StringVar(&f.runtime, "runtime", "", "software stack that runs the model: "+strings.Join(runtimes.IDs(), ", ")+", or a runtime YAML file (default: the one a user of the chip runs for the model's format)")
	fl.IntVar(&f.threads, "threads", 0, "CPU threads the runtime uses (default: the runtime's, else every core)")
	fl.StringVar(&f.cpuLayers, "cpu-layers", "", "layer split: the blocks the CPU runs instead of the unit, as 0-13 or 0-3,20-27 (the embedding goes with block 0, the output head with the last block; default: none)")
	fl.StringVar(&f.layersOn, "layers-on", "", "layer split over a third unit: the blocks another accelerator runs beside the unit and the CPU, as gpu=0-13 (at the runtime a user of that unit would run; default: none)")
	fl.StringVar(&f.draft, "draft", "", "speculative decoding: the draft model (catalog id, model YAML or config.json) that proposes tokens for --model to verify (default: none)")
	fl.IntVar(&f.draftLen, "draft-len", 0, "with --draft: tokens drafted per cycle (default 4, assumed)")
	fl.Float64Var(&f.draftAccept, "draft-accept", -1, "with --draft: the chance, 0..1, that the model accepts a drafted token given it accepted the ones before (default 0.6, assumed)")
	fl.StringVar(&f.schedule, "schedule", "", "scheduling policy: "+strings.Join(sim.ScheduleIDs(), ", ")+", or a YAML file (default: none)")
	fl.IntVar(&f.prompt, "prompt", 512, "prompt tokens (prefill)")
	fl.IntVar(&f.depth, "depth", 0, "tokens already in the KV cache before the prompt (a follow-up request; llama-bench -d)")
	fl.IntVar(&f.gen, "gen", 128, "generated tokens (decode steps)")
	fl.IntVar(&f.batch, "batch", 1, "concurrent sequences")
	fl.StringVar(&f.policy, "policy", "", "tensor placement policy: "+strings.Join(sim.PolicyIDs(), ", ")+", or a YAML file (default: the chip's)")
	fl.StringVar(&f.scenario, "scenario", "", "run a session instead of one prompt: "+strings.Join(workloads.ScenarioIDs(), ", ")+", or a YAML file")
	fl.StringVar(&f.duration, "duration", "", "how long the scenario runs, e.g. 5m (default: the scenario's)")
	fl.StringVar(&f.fidelity, "fidelity", string(sim.Tile), "model detail: analytic, tile, or line (every L3 line simulated; slow)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed for every random choice (MoE routing)")
	fl.StringVar(&f.format, "format", string(reports.Table), "output: table, json or csv")
	fl.StringVar(&f.calibration, "calibration", "", "a calibration overlay from edgetwin calibrate fit, applied before --set")
	fl.StringArrayVar(&f.sets, "set", nil, "override a field, PATH=VALUE (chip paths unprefixed; model.PATH, scenario.PATH and runtime.PATH for the model, the scenario and the runtime profile); repeatable")
	_ = cmd.RegisterFlagCompletionFunc("soc", completeIDs(hw.ChipIDs))
	_ = cmd.RegisterFlagCompletionFunc("model", completeIDs(workloads.ModelIDs))
	_ = cmd.RegisterFlagCompletionFunc("fidelity", cobra.FixedCompletions([]string{"analytic", "tile", "line"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("policy", completeIDs(sim.PolicyIDs))
	_ = cmd.RegisterFlagCompletionFunc("runtime", completeIDs(runtimes.IDs))
	_ = cmd.RegisterFlagCompletionFunc("schedule", completeIDs(sim.ScheduleIDs))
	_ = cmd.RegisterFlagCompletionFunc("scenario", completeIDs(workloads.ScenarioIDs))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json", "csv"}, cobra.ShellCompDirectiveNoFileComp))
}

// completeIDs offers catalog ids, and files, for a flag.
func completeIDs(ids func() []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return ids(), cobra.ShellCompDirectiveDefault
	}
}

// config loads everything the flags name into a simulation config for the
// chip ref. Every error is the user's input.
func (f *runFlags) config(chipRef string) (sim.Config, error) {
	fid, err := sim.ParseFidelity(f.fidelity)
	if err != nil {
		return sim.Config{}, inputErr(err)
	}
	var rt *runtimes.Profile
	if f.runtime != "" {
		if rt, err = runtimes.Load(f.runtime); err != nil {
			return sim.Config{}, inputErr(err)
		}
	}
	quant := f.quant
	if quant == "" {
		quant = "Q4_0"
		if rt != nil && rt.Quant != "" {
			quant = rt.Quant
		}
	}
	q, err := workloads.ParseQuant(quant)
	if err != nil {
		return sim.Config{}, flagErr("--quant", err)
	}
	kv, err := workloads.ParseKVFormat(f.kv)
	if err != nil {
		return sim.Config{}, flagErr("--kv-dtype", err)
	}
	sets, err := sim.SplitSets(f.sets)
	if err != nil {
		return sim.Config{}, inputErr(err)
	}
	chipSets, modelSets, scenarioSets := sets.Chip, sets.Model, sets.Scenario
	var scenario *workloads.Scenario
	if f.scenario != "" {
		if scenario, err = workloads.LoadScenario(f.scenario, scenarioSets); err != nil {
			return sim.Config{}, inputErr(spec.Prefixed(err, "scenario."))
		}
	} else if len(scenarioSets) > 0 {
		return sim.Config{}, inputErrorf("--set %s: no --scenario to apply it to", "scenario."+scenarioSets[0].Path)
	}
	var duration float64
	if f.duration != "" {
		if scenario == nil {
			return sim.Config{}, inputErrorf("--duration needs a --scenario: one prompt runs as long as it takes")
		}
		if duration, err = units.Parse(f.duration, units.KindDuration); err != nil || duration <= 0 {
			return sim.Config{}, inputErrorf("--duration %q is not allowed: give a positive duration such as 5m or 90s", f.duration)
		}
		if b, _ := units.BoundFor(units.KindDuration, ""); b.Check(f.duration, duration) != "" {
			return sim.Config{}, inputErr(&spec.Error{File: "--duration", Msg: b.Check(f.duration, duration)})
		}
	}
	var cal *calibrate.Overlay
	if f.calibration != "" {
		if cal, err = calibrate.ReadOverlay(f.calibration); err != nil {
			return sim.Config{}, inputErr(err)
		}
	}
	chip, err := cal.Load(chipRef, chipSets)
	if err != nil {
		return sim.Config{}, inputErr(err)
	}
	model, err := workloads.LoadModel(f.model, modelSets)
	if err != nil {
		return sim.Config{}, inputErr(spec.Prefixed(err, "model."))
	}
	var pol *sim.Policy
	if f.policy != "" {
		if pol, err = sim.LoadPolicy(f.policy); err != nil {
			return sim.Config{}, inputErr(err)
		}
	}
	if f.threads < 0 {
		return sim.Config{}, inputErrorf("--threads %d is not allowed: give a positive thread count, or leave it out for the runtime's default", f.threads)
	}
	cpuLayers, err := sim.ParseLayers(f.cpuLayers)
	if err != nil {
		return sim.Config{}, flagErr("--cpu-layers", err)
	}
	layersOn, err := sim.ParseUnitLayers(f.layersOn)
	if err != nil {
		return sim.Config{}, flagErr("--layers-on", err)
	}
	draft, err := f.draftConfig()
	if err != nil {
		return sim.Config{}, err
	}
	var sched *sim.Schedule
	if f.schedule != "" {
		if sched, err = sim.LoadSchedule(f.schedule); err != nil {
			return sim.Config{}, inputErr(err)
		}
	}
	cfg := sim.Config{
		Draft: draft, Schedule: sched,
		Chip: chip, Model: model, Quant: q, KV: kv, Unit: f.unit, Policy: pol, Scenario: scenario, Duration: duration,
		Runtime: rt, RuntimeSets: sets.Runtime, Threads: f.threads, CPULayers: cpuLayers, LayersOn: layersOn,
		Prompt: f.prompt, Depth: f.depth, Gen: f.gen, Batch: f.batch, Fidelity: fid, Seed: f.seed,
	}
	// The chip as its runtime runs it, so that every reader of the config
	// (the advisor's sensitivities and vendor questions, a review's figures)
	// sees the figures the run uses. A config that cannot run is left as
	// it is: its run says why, as one row of a ranking or one point of a
	// sweep, without stopping the others.
	_ = sim.Resolve(&cfg)
	return cfg, nil
}

func newSimulate() *cobra.Command {
	var f runFlags
	var tracePath, seriesPath, ptracePath string
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate one prompt and its generation on a chip",
		Long: `simulate prefills a prompt and decodes tokens with a model on a chip, and
prints time to first token, prefill and decode rates, the per-token spread,
DRAM and L3 behaviour and where the time went.`,
		Example: `  edgetwin simulate
  edgetwin simulate --soc seed-c --model seed-moe-3b --prompt 128 --gen 64
  edgetwin simulate --soc raspberry-pi-5 --model llama-3.2-1b --quant Q8_0 --format json
  edgetwin simulate --set memory.dram.bandwidth=120GB/s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := reports.ParseFormat(f.format)
			if err != nil {
				return inputErr(err)
			}
			if err := checkSimulateOutputs(tracePath, seriesPath, ptracePath); err != nil {
				return err
			}
			cfg, err := f.config(f.soc)
			if err != nil {
				return err
			}
			var trace *reports.TraceFile
			if tracePath != "" {
				if cfg.Fidelity == sim.Analytic {
					return inputErrorf("--trace needs the tile or line fidelity: the analytic one has no timeline")
				}
				// The trace goes to disk as the run goes: a long run's
				// would not fit in memory.
				if trace, err = reports.CreateTrace(tracePath); err != nil {
					return outputErr("--trace", tracePath, err)
				}
				defer trace.Close()
				cfg.Trace = trace.Trace
			}
			// So do the series and the power trace: the run keeps no
			// series of its own.
			var series *reports.SeriesFile
			var ptrace *reports.HotSpotFile
			var sinks []sim.SeriesSink
			if seriesPath != "" {
				if series, err = reports.CreateSeries(seriesPath); err != nil {
					return outputErr("--series", seriesPath, err)
				}
				defer series.Abort()
				sinks = append(sinks, series)
			}
			if ptracePath != "" {
				if ptrace, err = reports.CreateHotSpot(ptracePath); err != nil {
					return outputErr("--ptrace", ptracePath, err)
				}
				defer ptrace.Close()
				sinks = append(sinks, ptrace)
			}
			if len(sinks) > 0 {
				cfg.Series = sim.MultiSeriesSink(sinks...)
			}
			r, err := sim.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			// The result is printed before the trace is written, so a trace
			// that cannot be written never loses the result.
			if err := reports.WriteSimulate(cmd.OutOrStdout(), r, format); err != nil {
				return err
			}
			if trace != nil {
				if err := trace.Commit(); err != nil {
					return fmt.Errorf("--trace %s: %w", tracePath, err)
				}
			}
			if series != nil {
				if err := series.Commit(); err != nil {
					return fmt.Errorf("--series %s: %w", seriesPath, err)
				}
			}
			if ptrace != nil {
				var net *thermal.Network
				if spec := cfg.Chip.Thermal; spec != nil {
					if net, err = thermal.Compile(*spec); err != nil {
						return fmt.Errorf("--ptrace %s: %w", ptracePath, err)
					}
				}
				if err := ptrace.Commit(net); err != nil {
					return fmt.Errorf("--ptrace %s: %w", ptracePath, err)
				}
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&tracePath, "trace", "", "write the run's timeline as Chrome/Perfetto trace-event JSON to FILE")
	cmd.Flags().StringVar(&ptracePath, "ptrace", "", "write the run's power per heat source as a HotSpot power trace to FILE (.ptrace), and its floorplan beside it (.flp)")
	cmd.Flags().StringVar(&seriesPath, "series", "", "write the run over time as CSV to FILE: per step its end, latency, power, clocks and temperatures")
	return cmd
}

// draftConfig reads the --draft flags: nil without --draft, an error when
// --draft-len or --draft-accept come without it.
func (f *runFlags) draftConfig() (*sim.Draft, error) {
	changed := func(name string) bool { return f.flags != nil && f.flags.Changed(name) }
	if f.draft == "" {
		for _, name := range []string{"draft-len", "draft-accept"} {
			if changed(name) {
				return nil, inputErrorf("--%s needs --draft: name the draft model that proposes the tokens", name)
			}
		}
		return nil, nil
	}
	m, err := workloads.LoadModel(f.draft, nil)
	if err != nil {
		return nil, inputErr(spec.Refield(err, "model", "draft"))
	}
	d := &sim.Draft{Model: m}
	if changed("draft-len") {
		if f.draftLen < 1 {
			return nil, inputErrorf("--draft-len %d is not allowed: draft at least one token a cycle", f.draftLen)
		}
		d.Len = f.draftLen
	}
	if changed("draft-accept") {
		a := f.draftAccept
		d.Accept = &a
	}
	return d, nil
}
