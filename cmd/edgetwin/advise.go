package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/advisor"
	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/reports"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/spf13/cobra"
)

// newAdvise is the `advise` command group: `advise chip` today.
func newAdvise() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "advise",
		Short: "Recommend hardware for a workload",
		Long: `advise answers "what should I buy for this workload?".

  advise chip       rank candidate chips against requirements and an objective
  advise cloud      device or cloud for a deployment profile
  advise questions  the standard review questions for one chip and workload`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return inputErrorf("advise needs a subcommand: advise chip (edgetwin advise --help)")
		},
	}
	cmd.AddCommand(newAdviseChip(), newAdviseCloud(), newAdviseQuestions())
	return cmd
}

func newAdviseChip() *cobra.Command {
	var (
		f           runFlags
		candidates  string
		runtimeList string
		requires    []string
		minimize    string
		maximize    string
		whatIfs     []string
		paretoTo    string
	)
	cmd := &cobra.Command{
		Use:   "chip --model ID|FILE --require EXPR... [--minimize EXPR | --maximize EXPR]",
		Short: "Rank candidate chips for a workload against requirements and an objective",
		Long: `advise chip simulates the workload (--model, --quant and every other
simulate flag) on each candidate, on all cores, and ranks them.

--candidates lists chips, comma-separated: catalog ids or chip YAML files;
without it, the whole catalog (edgetwin catalog lists it).

--require EXPR (repeatable) is a condition every passing chip meets;
--minimize EXPR or --maximize EXPR the figure passing chips are ranked by
(default: --maximize decode.tokens_per_s). Expressions use expr syntax
(https://expr-lang.org) over the keys of edgetwin simulate --format json
(ttft_s, decode.tokens_per_s, memory.dram_bw_util, thermal.skin_peak_c, ...)
and the chip's spec under chip. (chip.price_usd, chip.memory.dram.bandwidth,
chip.units.npu.peak.int8), quantities as SI numbers (bytes, seconds,
bytes/s, ops/s). A misspelt name is an error before anything runs. A
requirement that reads a null metric fails and says so (for instance
thermal.sustained_tokens_per_s, null for runs shorter than 2 minutes).

Passing chips rank first, by the objective, ties going to the chip whose
spec dominates (at least the DRAM bandwidth and capacity, L3 size and peaks
of the other); then failing chips, by how many requirements they fail. A
chip that cannot hold the model is listed with pass false and the reason.

For each chip that ran the advice gives: each requirement's top-level &&
clause with its margin; a one-line diagnosis of the bottleneck with what
+20% DRAM bandwidth and 2× peak would give; the elasticity of decode
tokens/s and TTFT to each uncertain parameter (DRAM bandwidth, sequential
efficiency and random-read penalty, L3 size and bandwidth, the unit's peak
and dispatch cost, DMA set-up; when heat can decide — the run throttles or
gives a sustained rate — also the thermal resistances to ambient, the skin
trip and the unit's active power), from reruns with the figure changed; and,
for the parameters that matter (|elasticity| > 0.1) but are only assumed,
questions for the vendor with the measurement that settles them. Then the
Pareto front of price against sustained tokens/s where every run gives
one, else decode tokens/s.

--what-if PATH=VALUE (repeatable; CHIP:PATH=VALUE for one candidate) reruns
the ranking with changed figures, --set paths, and shows it beside the
baseline's ranks.

--format table (default) or json: an object with ranking (soc, pass,
objective, metrics, diagnosis, requirement checks, sensitivity, in rank
order), pareto and vendor_questions.
--pareto FILE.png|FILE.svg|FILE.pdf draws the price/throughput plane with
the front connected and every chip labelled.`,
		Example: `  edgetwin advise chip --model llama-3.2-3b --quant Q4_0 \
      --require 'ttft_s < 0.5 && decode.tokens_per_s >= 8' --require 'thermal.skin_peak_c < 45' \
      --minimize chip.price_usd --pareto front.png
  edgetwin advise chip --candidates seed-a,seed-b,seed-c --model seed-moe-3b --maximize decode.tokens_per_s
  edgetwin advise chip --candidates snapdragon-8-gen3,dimensity-9300 --model llama-3.2-3b \
      --what-if memory.dram.seq_efficiency=0.8 --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			flags := cmd.Flags()
			if flags.Changed("soc") {
				return inputErrorf("advise chip takes --candidates ID|FILE,... instead of --soc")
			}
			format, err := reports.ParseFormat(f.format)
			if err != nil || format == reports.CSV {
				return inputErrorf("--format %q is not allowed: use table or json", f.format)
			}
			if paretoTo != "" {
				if err := checkFigurePath("--pareto", paretoTo); err != nil {
					return err
				}
			}
			if flags.Changed("minimize") && flags.Changed("maximize") {
				return inputErrorf("--minimize and --maximize both given: rank by one objective")
			}
			chips := hw.ChipIDs()
			if flags.Changed("candidates") {
				if chips, err = parseCandidates(candidates); err != nil {
					return err
				}
			}
			if runtimeList != "" {
				if chips, err = withRuntimes(f, chips, runtimeList); err != nil {
					return err
				}
			}
			req := advisor.Request{Candidates: chips, Requires: requires}
			switch {
			case flags.Changed("minimize"):
				req.Objective = minimize
			case flags.Changed("maximize"):
				req.Objective, req.Maximize = maximize, true
			}
			for _, s := range whatIfs {
				w, err := advisor.ParseWhatIf(s)
				if err != nil {
					return inputErr(err)
				}
				req.WhatIf = append(req.WhatIf, w)
			}
			req.Load = func(ref string, sets []string) (sim.Config, error) {
				pf := f
				pf.sets = append(slices.Clone(f.sets), sets...)
				chip, rt := splitPair(ref)
				if rt != "" {
					pf.runtime = rt
				}
				return pf.config(chip)
			}
			plan, err := advisor.Prepare(req)
			if err != nil {
				return inputErr(err)
			}
			advice, err := plan.Run(cmd.Context())
			if err != nil {
				return err
			}
			var failed []advisor.Row
			for _, r := range advice.Ranking {
				if r.Result == nil {
					failed = append(failed, r)
				}
			}
			if len(failed) > 0 {
				first := failed[0]
				if len(failed) == len(advice.Ranking) {
					return inputErrorf("no candidate ran; the first, %s: %s", first.SoC, first.Err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "edgetwin: %d of %d candidates did not run (listed with pass false and the reason); the first, %s: %s\n",
					len(failed), len(advice.Ranking), first.SoC, first.Err)
			}
			if err := reports.WriteAdvice(cmd.OutOrStdout(), advice, format); err != nil {
				return err
			}
			if paretoTo == "" {
				return nil
			}
			if err := reports.ParetoPlotData(advice).Save(paretoTo); err != nil {
				return fmt.Errorf("--pareto %s: %w", paretoTo, err)
			}
			return nil
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	_ = fl.MarkHidden("soc")
	fl.Lookup("format").Usage = "output: table or json"
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	fl.StringVar(&candidates, "candidates", "", "the chips to rank, comma-separated: catalog ids or chip YAML files (default: the whole catalog); CHIP@RUNTIME ranks the chip under that runtime")
	fl.StringVar(&runtimeList, "runtimes", "", "rank each candidate under these runtimes too, as (chip, runtime) pairs: ID,... or all (every catalog runtime that can run the model on it); each chip keeps its default runtime's row")
	fl.StringArrayVar(&requires, "require", nil, "a condition passing chips meet, e.g. 'ttft_s < 500ms && decode.tokens_per_s >= 8' (a number with a unit is read in the key's SI unit: 500ms, 8GiB, 43C, 50%); repeatable")
	fl.StringVar(&minimize, "minimize", "", "rank passing chips by this expression, lowest first (e.g. chip.price_usd)")
	fl.StringVar(&maximize, "maximize", "", "rank passing chips by this expression, highest first (default decode.tokens_per_s)")
	fl.StringArrayVar(&whatIfs, "what-if", nil, "rerun the ranking with a changed figure, PATH=VALUE or CHIP:PATH=VALUE (--set paths); repeatable")
	fl.StringVar(&paretoTo, "pareto", "", "draw price against decode tokens/s, the front connected, into FILE.png, FILE.svg or FILE.pdf")
	_ = cmd.RegisterFlagCompletionFunc("candidates", completeIDs(hw.ChipIDs))
	return cmd
}

// splitPair reads a candidate CHIP@RUNTIME as its chip and runtime; a
// candidate without @ runs on its default runtime ("").
func splitPair(ref string) (chip, runtime string) {
	if i := strings.LastIndexByte(ref, '@'); i > 0 && i < len(ref)-1 {
		return ref[:i], ref[i+1:]
	}
	return ref, ""
}

// withRuntimes expands each candidate chip into (chip, runtime) pairs: the
// chip on its default runtime, then CHIP@ID for every runtime of list (ID,…
// or all, in runtimes.Preference order) that is not its default and can run
// the model on it. A runtime named in list that runs on none of them is an
// error; under all, a runtime that cannot run is left out.
func withRuntimes(f runFlags, chips []string, list string) ([]string, error) {
	ids := runtimes.Preference
	all := list == "all"
	if !all {
		ids = nil
		for _, id := range strings.Split(list, ",") {
			id = strings.TrimSpace(id)
			if _, err := runtimes.Load(id); err != nil {
				return nil, inputErrorf("--runtimes %s: %v", list, err)
			}
			ids = append(ids, id)
		}
	}
	used := map[string]bool{}
	var out []string
	for _, ref := range chips {
		out = append(out, ref)
		if _, rt := splitPair(ref); rt != "" {
			continue
		}
		base, err := f.config(ref)
		if err != nil {
			continue // the row says why the chip cannot run
		}
		def, err := sim.Choose(&base)
		if err != nil {
			continue
		}
		for _, id := range ids {
			if id == def.RuntimeID() {
				used[id] = true
				continue
			}
			pf := f
			pf.runtime = id
			cfg, err := pf.config(ref)
			if err != nil {
				continue
			}
			if _, err := sim.Choose(&cfg); err != nil {
				continue
			}
			used[id] = true
			out = append(out, ref+"@"+id)
		}
	}
	for _, id := range ids {
		if !all && !used[id] {
			return nil, inputErrorf("--runtimes: %s runs %s on none of the candidates (it drives %s units of %s chips and reads %s)", id, f.model, strings.Join(runtimes.MustLoad(id).Units, "/"), vendorsOf(id), strings.Join(runtimes.MustLoad(id).Formats, ", "))
		}
	}
	return out, nil
}

func vendorsOf(id string) string {
	if v := runtimes.MustLoad(id).Vendors; len(v) > 0 {
		return strings.Join(v, "/")
	}
	return "any vendor's"
}

// parseCandidates splits --candidates into chip references, in order. An
// empty entry or a chip named twice is an error.
func parseCandidates(s string) ([]string, error) {
	var chips []string
	for _, ref := range strings.Split(s, ",") {
		ref = strings.TrimSpace(ref)
		switch {
		case ref == "":
			return nil, inputErrorf("--candidates %q has an empty entry; list chips as id,id,... (edgetwin catalog lists the ids)", s)
		case slices.Contains(chips, ref):
			return nil, inputErrorf("--candidates lists %s twice", ref)
		}
		chips = append(chips, ref)
	}
	return chips, nil
}

// checkFigurePath rejects a figure file before anything runs: an
// extension that names no format, or a directory that does not exist.
func checkFigurePath(flag, path string) error {
	if _, err := reports.FigureFormat(path); err != nil {
		return inputErrorf("%s %s: the extension decides the format; use .png, .svg or .pdf", flag, path)
	}
	return checkOutFile(flag, path)
}
