package main

import (
	"fmt"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/reports"
	"github.com/edgetwin/edgetwin/review"
	"github.com/spf13/cobra"
)

func newReport() *cobra.Command {
	var config, out string
	cmd := &cobra.Command{
		Use:   "report --config REVIEW.yaml -o DIR",
		Short: "Write a design-review report from a review file: figures, tables and answers",
		Long: `report runs everything a review file asks for — its chips, models,
workload, scenarios and requirements — on all cores, and writes one folder:

  index.html      the report, self-contained (figures embedded, no network)
  report.md       the same content, with the figures beside it
  ID.svg, ID.png  every figure
  ID.csv          the data behind every figure and table

The folder is built beside DIR under a hidden name and renamed into
place, so a report is never half-written and an interrupted one leaves DIR
as it was; DIR must be new, empty, or an earlier report (holding only the
files its .edgetwin-report marker lists), which is replaced. A folder
holding anything else is refused before anything runs.

The review file (YAML, strict: unknown fields are errors with file:line):

  title: Phone assistant SoC review
  chips: [snapdragon-8-gen3, dimensity-9300]      # catalog ids or chip files
  models: [{model: llama-3.2-3b, quant: Q4_0}]
  workload: {prompt: 512, gen: 128}                # the single-prompt runs
  scenarios: [{scenario: sustained, duration: 2m, set: [context_limit=2048]}]
  set: [thermal.ambient=35C]                       # --set for every run
  requirements: ['ttft_s < 1', 'thermal.sustained_tokens_per_s >= 8']
  maximize: thermal.sustained_tokens_per_s         # or minimize: chip.price_usd
  questions: [best-chip, throttle, 'Can we ship the 7B model?']
  fidelity: tile                                   # analytic, tile or line

Requirements are advise chip's --require expressions, checked under the
first scenario (or the single prompt without one). Questions are ids —
` + strings.Join(review.QuestionIDs(), ", ") + ` — or free text, listed for the reader.`,
		Example: `  edgetwin report --config examples/review/review.yaml -o review-report`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if config == "" {
				return inputErrorf("--config is required: a review file such as examples/review/review.yaml")
			}
			if out == "" {
				return inputErrorf("-o DIR is required: the folder to write the report into")
			}
			data, err := spec.ReadFile(config, "review")
			if err != nil {
				return inputErr(err)
			}
			f, err := review.Parse(config, data)
			if err != nil {
				return inputErr(err)
			}
			if err := reports.CheckBundleDir(out); err != nil {
				return inputErr(fmt.Errorf("-o %w", err))
			}
			p, err := review.Prepare(f)
			if err != nil {
				return inputErr(err)
			}
			// Ctrl-C or SIGTERM (run's context) stops the runs and the
			// writing, and the folder being built is removed: -o is left
			// as it was.
			ctx := cmd.Context()
			b, err := p.Run(ctx, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if err := reports.WriteBundle(ctx, out, b); err != nil {
				return fmt.Errorf("-o %s: %w", out, err)
			}
			figures := 0
			for _, s := range b.Sections {
				if s.Figure != nil {
					figures++
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s/index.html and report.md: %d sections, %d figures\n", out, len(b.Sections), figures)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&config, "config", "", "the review file (YAML): chips, models, scenarios, requirements, questions")
	fl.StringVarP(&out, "out", "o", "", "the folder to write the report into (new, empty, or an earlier report)")
	return cmd
}
