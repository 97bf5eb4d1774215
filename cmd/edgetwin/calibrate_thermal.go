package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/calibrate/thermalfit"
	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"github.com/edgetwin/edgetwin/internal/inputfile"
	"github.com/edgetwin/edgetwin/reports"
	"github.com/spf13/cobra"
)

func newCalibrateThermal() *cobra.Command {
	var soc, fit, out, format string
	var starts int
	cmd := &cobra.Command{
		Use:   "thermal SERIES.csv",
		Short: "Fit the chip's thermal RC network to a measured time series",
		Long: `thermal fits the heat capacities and thermal resistances of the chip's RC
network to a time series of power and temperatures, and writes them as a
calibration overlay (-o) whose set: paths are those --set takes.

The series is CSV with a header: time_s; power_<unit|node>_w, the mean power
over the interval since the row before; temp_<node>_c, a sensor read as a
node of the network; optionally clock_<unit>_hz (or _mhz, _ghz) and
ambient_c. What simulate --series writes reads as it is. The first row gives
the starting temperatures.

--fit chooses the parameters: all (default), r (every resistance), c (every
capacity), or paths such as thermal.nodes.skin.capacity, comma-separated.
The table gives each value with its 1σ uncertainty, the network's time
constants before and after, and the fit error per sensor.`,
		Example: `  edgetwin simulate --soc snapdragon-8-gen3 --scenario sustained --duration 5m --series run.csv
  edgetwin calibrate thermal run.csv --soc snapdragon-8-gen3 -o thermal.yaml
  edgetwin calibrate thermal phone.csv --soc my-phone.yaml --fit c,thermal.links.3.resistance -o fit.yaml --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if soc == "" || out == "" {
				return inputErrorf("calibrate thermal needs --soc (the chip the series was measured on) and -o (the overlay to write)")
			}
			f, err := reports.ParseFormat(format)
			if err != nil || f == reports.CSV {
				return inputErrorf("--format %q is not allowed: use table or json", format)
			}
			if starts < 1 {
				return inputErrorf("--starts %d: give at least 1 optimiser run", starts)
			}
			if err := checkOutFile("-o", out); err != nil {
				return err
			}
			chip, err := hw.LoadChip(soc, nil)
			if err != nil {
				return inputErr(err)
			}
			path := args[0]
			data, err := spec.ReadFileMax(path, "series", inputfile.SeriesCap)
			if err != nil {
				return inputErr(err)
			}
			series, err := thermalfit.ReadSeries(path, data)
			if err != nil {
				return inputErr(err)
			}
			d, err := series.Bind(*chip.Thermal, thermalfit.UnitNodes(&chip.SoC))
			if err != nil {
				return inputErr(err)
			}
			params, err := thermalfit.SelectParams(*chip.Thermal, strings.Split(fit, ","))
			if err != nil {
				return inputErr(err)
			}
			began := time.Now()
			r, err := thermalfit.Fit(cmd.Context(), *chip.Thermal, d, thermalfit.Options{Params: params, Starts: starts})
			if err != nil {
				return inputErr(err)
			}
			wall := time.Since(began)
			source := fmt.Sprintf("calibrate thermal: %s (%s) on %s", path, calibrate.Digest(data), chipRef(soc, chip))
			if err := atomicfile.WriteFile(out, thermalfit.Overlay(r, source)); err != nil {
				return fmt.Errorf("-o %s: %w", out, err)
			}
			if err := reports.WriteThermalFit(cmd.OutOrStdout(), r, f); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "fitted %d parameters to %d rows in %.1f s; overlay written to %s\n", len(r.Params), r.Rows, wall.Seconds(), out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&soc, "soc", "", "the chip the series was measured on: a catalog id or a chip file (its thermal network is the starting point)")
	fl.StringVar(&fit, "fit", "all", "the parameters to fit: all, r, c, or spec paths, comma-separated")
	fl.StringVarP(&out, "output", "o", "", "the calibration overlay to write (YAML)")
	fl.StringVar(&format, "format", "table", "output: table or json")
	fl.IntVar(&starts, "starts", thermalfit.DefaultStarts, "optimiser runs from spread starting points; the best wins")
	_ = cmd.RegisterFlagCompletionFunc("soc", completeIDs(hw.ChipIDs))
	return cmd
}

// chipRef names the chip in an overlay's source: its catalog id, or its
// file with the file's digest.
func chipRef(ref string, chip *hw.Chip) string {
	if _, ok := hw.ChipSource(ref); ok {
		return ref
	}
	if digest, err := calibrate.DigestFile(ref); err == nil {
		return chip.ID + " (" + digest + ")"
	}
	return chip.ID
}
