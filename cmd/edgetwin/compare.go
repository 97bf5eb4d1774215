package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/reports"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/sweep"
	"github.com/spf13/cobra"
)

func newCompare() *cobra.Command {
	var (
		f      runFlags
		plotTo string
	)
	cmd := &cobra.Command{
		Use:   "compare --soc ID|FILE,...",
		Short: "Simulate the same workload on several chips and compare them",
		Long: `compare runs simulate once per chip, on all cores, with the same model,
quantisation, prompt and every other simulate flag, and prints one row per
chip in the order given.

--soc lists the chips, comma-separated: catalog ids or chip YAML files
(edgetwin catalog lists the ids). --set applies to every chip.

--format table (the default) shows what an architect compares: time to
first token, prefill and decode rates, the p99 time per token, effective
TOPS against the unit's peak, the DRAM bandwidth used, the decode's L3
miss rate, and the chip's price where its spec gives one. --format json
prints an array of simulate results, exactly the objects simulate
--format json prints; --format csv one row per chip of simulate's columns.

A chip that cannot run the workload (the model does not fit its memory,
say) does not stop the comparison: its row stays, with null figures and
an "error" field (a column in table and CSV) that says why, and a note on
stderr counts such chips. compare fails (exit 2) only when no chip runs.

--plot FILE.png|FILE.svg|FILE.pdf draws one panel per figure (decode and
prefill tokens/s, time to first token, DRAM bandwidth used) with a bar
per chip.`,
		Example: `  edgetwin compare --soc snapdragon-8-gen3,dimensity-9300,apple-a17-pro,snapdragon-8-elite --model llama-2-7b
  edgetwin compare --soc seed-a,seed-b,seed-c --model seed-moe-3b --prompt 128 --gen 64 --plot seeds.png
  edgetwin compare --soc raspberry-pi-5,rk3588,jetson-orin-nano --model llama-3.2-1b --quant Q8_0 --format csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := checkOutput(f.format, plotTo)
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("soc") {
				return inputErrorf("--soc is required: the chips to compare, comma-separated, such as --soc seed-a,seed-b,seed-c (edgetwin catalog lists the ids)")
			}
			chips, err := parseChipList(f.soc)
			if err != nil {
				return err
			}
			// Every chip must load with the flags before anything runs:
			// a typo in the list, or a --set one chip lacks, is the
			// user's input. Each config has its own chip and model, so
			// the runs share nothing.
			cfgs := make([]sim.Config, len(chips))
			for i, ref := range chips {
				if cfgs[i], err = f.config(ref); err != nil {
					if strings.Contains(err.Error(), ref) { // it names the chip already
						return err
					}
					return inputErrorf("--soc %s: %v", ref, err)
				}
			}
			c, err := runCompare(cmd.Context(), cmd.ErrOrStderr(), cfgs)
			if err != nil {
				return err
			}
			var failed []int
			for i, r := range c.Rows {
				if r.Result == nil {
					failed = append(failed, i)
				}
			}
			if len(failed) > 0 {
				first := c.Rows[failed[0]]
				if len(failed) == len(c.Rows) {
					return inputErrorf("no chip of the comparison ran; the first, %s: %s", first.Chip, first.Err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "edgetwin: %d of %d chips did not run (see their error); the first, %s: %s\n",
					len(failed), len(c.Rows), first.Chip, first.Err)
			}
			if err := reports.WriteCompare(cmd.OutOrStdout(), c, format); err != nil {
				return err
			}
			if plotTo == "" {
				return nil
			}
			return reports.ComparePlotData(c).Save(plotTo)
		},
	}
	f.register(cmd)
	soc := cmd.Flags().Lookup("soc")
	soc.Usage = "the chips to compare, comma-separated: catalog ids or chip YAML files (required)"
	soc.DefValue = ""
	cmd.Flags().StringVar(&plotTo, "plot", "", "draw decode and prefill tokens/s, TTFT and DRAM use, a bar per chip, into FILE.png, FILE.svg or FILE.pdf")
	return cmd
}

// parseChipList splits --soc into chip references, in order. An empty
// entry or a chip named twice is an error.
func parseChipList(s string) ([]string, error) {
	var chips []string
	for _, ref := range strings.Split(s, ",") {
		ref = strings.TrimSpace(ref)
		switch {
		case ref == "":
			return nil, inputErrorf("--soc %q has an empty entry; list chips as id,id,... (edgetwin catalog lists the ids)", s)
		case slices.Contains(chips, ref):
			return nil, inputErrorf("--soc lists %s twice", ref)
		}
		chips = append(chips, ref)
	}
	return chips, nil
}

// runCompare runs each config (sweep.RunAll) into the comparison's rows.
func runCompare(ctx context.Context, stderr io.Writer, cfgs []sim.Config) (*reports.Compare, error) {
	first := cfgs[0]
	c := &reports.Compare{
		Model: first.Model.ID, Quant: first.Quant.String(), KVDtype: first.KV.String(),
		Fidelity: string(first.Fidelity), Prompt: first.Prompt, Depth: first.Depth, Gen: first.Gen, Batch: first.Batch,
		Rows: make([]reports.CompareRow, len(cfgs)),
	}
	results, why, err := sweep.RunAll(ctx, stderr, "compare", cfgs)
	for i, cfg := range cfgs {
		c.Rows[i] = reports.CompareRow{Chip: cfg.Chip.ID, PriceUSD: cfg.Chip.PriceUSD, Result: results[i], Err: why[i]}
	}
	return c, err
}
