package main

import (
	"fmt"
	"strings"

	"github.com/edgetwin/edgetwin/advisor"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/pool"
	"github.com/edgetwin/edgetwin/reports"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/spf13/cobra"
)

func newAdviseQuestions() *cobra.Command {
	var (
		f         runFlags
		kvSizes   string
		sustained string
		turns     int
	)
	cmd := &cobra.Command{
		Use:   "questions --soc ID|FILE --model ID|FILE [--quant SPEC]",
		Short: "Answer the standard review questions for one chip and workload",
		Long: `advise questions answers, for one chip and model, the questions an
architecture review asks, each from the simulator, with the figures the
answer rests on and whether each is cited, assumed or calibrated:

  - the L3 miss rate with 4, 8 and 16 MiB of KV cache (--kv; the context
    is set to hold that much KV, as sweep --vary kv does);
  - when it throttles and what it sustains (the sustained scenario for
    --sustained, 5 minutes by default);
  - the time to first token, cold (loading the model) and warm;
  - the prefill and decode rates, each on its own, and what bounds them;
  - a 30-turn chat (chat-30): first-token and whole-answer latency p50/p95
    and the decode rate of the first turns against the last (--turns caps
    the turns, for a quicker answer);
  - operator coverage on the NPU: which unit ran the model and why, which
    operator kinds the NPU runs and which fall back to the CPU; when the
    NPU does not read the model's weight format, a run on it with one it
    reads.

The runs go in parallel on all cores. --format table (default) or json: a
list of {id, question, answer, metrics, provenance}. A model that does not
fit is answered as such on every question, and the command exits 2.`,
		Example: `  edgetwin advise questions --soc snapdragon-8-gen3 --model llama-2-7b
  edgetwin advise questions --soc seed-c --model seed-moe-3b --format json
  edgetwin advise questions --soc dimensity-9300 --model llama-3.2-3b --turns 10 --kv 2MiB,32MiB`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			flags := cmd.Flags()
			if flags.Changed("scenario") || flags.Changed("duration") {
				return inputErrorf("advise questions runs its own scenarios: leave out --scenario and --duration (--sustained sets the sustained run's length, --turns the chat's)")
			}
			format, err := reports.ParseFormat(f.format)
			if err != nil || format == reports.CSV {
				return inputErrorf("--format %q is not allowed: use table or json", f.format)
			}
			req := advisor.QuestionsRequest{SoC: f.soc, ChatTurns: turns}
			if req.KVSizes, err = parseKVSizes(kvSizes); err != nil {
				return err
			}
			if req.SustainedFor, err = units.Parse(sustained, units.KindDuration); err != nil || req.SustainedFor <= 0 {
				return inputErrorf("--sustained %q is not allowed: give a positive duration such as 5m or 120s", sustained)
			}
			if turns < 1 || turns > 30 {
				return inputErrorf("--turns %d is not allowed: give 1 to 30 turns of the chat", turns)
			}
			if turns == 30 {
				req.ChatTurns = 0 // the scenario's own
			}
			req.Load = func(chip string, sets []string) (sim.Config, error) {
				return f.config(chip)
			}
			ctx := cmd.Context()
			req.Each = func(n int, work func(int)) { pool.ForEach(ctx, cmd.ErrOrStderr(), "questions", n, work) }
			plan, err := advisor.PrepareQuestions(req)
			if err != nil {
				return inputErr(err)
			}
			answers, err := plan.Run(ctx)
			if err != nil {
				return err
			}
			if err := reports.WriteQuestions(cmd.OutOrStdout(), answers, format); err != nil {
				return err
			}
			var failed []advisor.Answer
			for _, a := range answers.Answers {
				if a.Err != "" {
					failed = append(failed, a)
				}
			}
			if len(failed) > 0 {
				return inputErrorf("%d of %d questions could not be answered; the first, %s: %s", len(failed), len(answers.Answers), failed[0].ID, failed[0].Err)
			}
			return nil
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	_ = fl.MarkHidden("scenario")
	_ = fl.MarkHidden("duration")
	fl.Lookup("format").Usage = "output: table or json"
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	fl.StringVar(&kvSizes, "kv", "4MiB,8MiB,16MiB", "KV-cache sizes of the L3 question, comma-separated")
	fl.StringVar(&sustained, "sustained", "5m", "how long the sustained run decodes")
	fl.IntVar(&turns, "turns", 30, "turns of the chat-30 scenario to run (fewer is quicker)")
	return cmd
}

// parseKVSizes reads --kv: sizes with units, comma-separated.
func parseKVSizes(s string) ([]float64, error) {
	var out []float64
	for _, t := range strings.Split(s, ",") {
		v, err := units.Parse(strings.TrimSpace(t), units.KindBytes)
		if err != nil || v <= 0 {
			return nil, inputErrorf("--kv %q: %q is not a KV size; give sizes such as 4MiB,8MiB,16MiB", s, strings.TrimSpace(t))
		}
		out = append(out, v)
	}
	if len(out) > 16 {
		return nil, inputErr(fmt.Errorf("--kv lists %d sizes; at most 16", len(out)))
	}
	return out, nil
}
