package main

import (
	"strings"

	"github.com/edgetwin/edgetwin/cloud"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/reports"
	"github.com/spf13/cobra"
)

// newAdviseCloud is `advise cloud`: device, cloud or hybrid for a
// deployment profile.
func newAdviseCloud() *cobra.Command {
	var (
		profile, format string
		seed            uint64
	)
	cmd := &cobra.Command{
		Use:   "cloud --profile FILE [--format table|json] [--seed N]",
		Short: "Run the model on the device, in the cloud, or both? Compare them for a deployment profile",
		Long: `advise cloud compares serving a feature's sessions on the device fleet, on
each cloud option, and on the best hybrid of the two, for a deployment
profile (YAML, strict: unknown fields and inconsistent values are errors
with file:line), and recommends device, cloud or hybrid with its reasons
along the five questions architects ask: latency, privacy, cost, network
and model size.

The profile gives the users and their sessions per day; the prompt and
answer tokens (or tasks, each with its share and lengths); the targets
(TTFT p50 and p95, tokens/s, availability, default 99%); whether data may
leave the device; the network (RTT p50 and p95, fitted to a lognormal,
jitter, round trips per request, the share of sessions offline or on a
weak link); the device fleet (chip, share of users, battery, price and the
share of it the feature carries, amortised over 24 months unless given)
with the model and quant it would run; and the cloud options: built-in
endpoints by id (edgetwin's catalog, each figure with its source and date:
` + strings.Join(cloud.EndpointIDs(), ", ") + `), with any figure overridden, or
endpoints of its own (api: price per million input and output tokens; gpu:
price per GPU-hour and throughput).

For each option: the user-visible TTFT p50 and p95 (network included,
from sessions drawn with a fixed seed), the streaming rate, the monthly
cost (the device share amortised; API tokens; GPUs provisioned for the
peak, peak_to_average × the mean load, default 3), energy per session and
the share of a charge a user's sessions take a day on the device, the
share of sessions served, whether it works offline and keeps the data on
the device. Then the break-even volume (sessions per user per day) above
which the device is cheaper than the cloud, and the best hybrid plan
(tasks routed by prompt length to the cloud when online, the rest and
everything offline on the device).

--format table (default) or json: an object with options (name,
ttft_p50_s, ttft_p95_s, monthly_cost_usd, privacy_ok, offline_ok and
more), break_even, hybrid, recommendation (device, cloud or hybrid) and
reasons.`,
		Example: `  edgetwin advise cloud --profile examples/cloud/offline-assistant.yaml
  edgetwin advise cloud --profile examples/cloud/summariser.yaml --format json
  edgetwin advise cloud --profile examples/cloud/summariser.yaml --seed 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := reports.ParseFormat(format)
			if err != nil || f == reports.CSV {
				return inputErrorf("--format %q is not allowed: use table or json", format)
			}
			if profile == "" {
				return inputErrorf("advise cloud needs --profile FILE (a deployment profile; see examples/cloud/)")
			}
			data, err := spec.ReadFile(profile, "profile")
			if err != nil {
				return inputErr(err)
			}
			p, err := cloud.LoadProfile(profile, data)
			if err != nil {
				return inputErr(err)
			}
			if !cmd.Flags().Changed("seed") {
				seed = 0 // the profile's
			} else if seed == 0 {
				return inputErrorf("--seed 0 is not allowed: give a seed of 1 or more")
			}
			a, err := cloud.Advise(cmd.Context(), p, seed)
			if err != nil {
				return err
			}
			return reports.WriteCloudAdvice(cmd.OutOrStdout(), a, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&profile, "profile", "", "the deployment profile, a YAML file")
	fl.StringVar(&format, "format", string(reports.Table), "output: table or json")
	fl.Uint64Var(&seed, "seed", 0, "seed for the sampled network delays (default: the profile's seed, else 1)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.MarkFlagFilename("profile", "yaml", "yml")
	return cmd
}
