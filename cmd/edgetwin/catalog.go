package main

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
	"github.com/spf13/cobra"
)

func newCatalog() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "List the embedded chips, models, runtimes, placement policies, schedules and scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "CHIP\tNAME\tDRAM\tL3\tUNITS")
			for _, id := range hw.ChipIDs() {
				c, err := hw.LoadChip(id, nil)
				if err != nil {
					return err
				}
				d := c.Memory.DRAM
				fmt.Fprintf(w, "%s\t%s\t%s %s, %s\t%s\t%s\n", id, c.Name, d.Type, d.Bandwidth, d.Capacity, c.Memory.L3.Size, unitSummary(c))
			}
			fmt.Fprintln(w, "\nMODEL\tNAME\tLAYERS\tPARAMS\tCONTEXT")
			for _, id := range workloads.ModelIDs() {
				m, err := workloads.LoadModel(id, nil)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%s\t%s\t%d\t%.2fB\t%d\n", id, m.Name, m.Layers, float64(m.Params())/1e9, m.MaxContext)
			}
			fmt.Fprintln(w, "\nRUNTIME\tNAME\tUNITS\tFORMATS\tFIGURES")
			for _, id := range runtimes.IDs() {
				p := runtimes.MustLoad(id)
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", id, p.Name, strings.Join(p.Units, ","), strings.Join(p.Formats, ","), p.Figures())
			}
			fmt.Fprintf(w, "\nPOLICIES\t%s\n", strings.Join(sim.PolicyIDs(), ", "))
			fmt.Fprintf(w, "SCHEDULES\t%s\n", strings.Join(sim.ScheduleIDs(), ", "))
			fmt.Fprintf(w, "SCENARIOS\t%s\n", strings.Join(workloads.ScenarioIDs(), ", "))
			return w.Flush()
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "show ID",
		Short: "Print a catalog chip, model or runtime as YAML, citations included",
		Args:  cobra.ExactArgs(1),
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return slices.Concat(hw.ChipIDs(), workloads.ModelIDs(), runtimes.IDs()), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if data, ok := hw.ChipSource(args[0]); ok {
				_, err := cmd.OutOrStdout().Write(data)
				return err
			}
			if data, ok := workloads.ModelSource(args[0]); ok {
				_, err := cmd.OutOrStdout().Write(data)
				return err
			}
			if data, ok := runtimes.Source(args[0]); ok {
				_, err := cmd.OutOrStdout().Write(data)
				return err
			}
			return inputErrorf("no catalog chip, model or runtime %q; run `edgetwin catalog` for the list", args[0])
		},
	})
	return cmd
}

// unitSummary lists a chip's units with their int8 peak, or their
// fastest one where they have no int8 figure.
func unitSummary(c *hw.Chip) string {
	var parts []string
	for _, u := range c.Units {
		dt, best := dtype.INT8, u.Peak[dtype.INT8]
		if best == 0 {
			for _, d := range dtype.All {
				if p := u.Peak[d]; p > best {
					dt, best = d, p
				}
			}
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", u.Name, units.Approx(float64(best), units.KindOpRate), dt))
	}
	return strings.Join(parts, ", ")
}
