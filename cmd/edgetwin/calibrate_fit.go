package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"github.com/edgetwin/edgetwin/reports"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/spf13/cobra"
)

// readRecords reads every records file; a missing or malformed file is
// bad input, and a cut-short last line is reported on stderr.
func readRecords(cmd *cobra.Command, files []string) ([]calibrate.Record, error) {
	var all []calibrate.Record
	for _, f := range files {
		recs, warns, err := calibrate.ReadFile(f)
		if err != nil {
			if spec.IsSpecError(err) || strings.HasPrefix(err.Error(), f) {
				return nil, inputErr(err)
			}
			return nil, inputErr(fmt.Errorf("%s: cannot read records: %w", f, err))
		}
		printWarnings(cmd.ErrOrStderr(), warns)
		if len(recs) == 0 {
			return nil, inputErrorf("%s: holds no record (one JSON object a line, as calibrate import and calibrate probe write)", f)
		}
		all = append(all, recs...)
	}
	return all, nil
}

// shownAlike is how many warnings with the same message are printed before
// the rest are counted.
const shownAlike = 3

// printWarnings prints a records file's warnings, each message at most
// shownAlike times and then how many more lines had it: a file of records
// that all leave out their shape says so in four lines, not thousands.
func printWarnings(w io.Writer, warns []calibrate.Warning) {
	seen := map[string]int{}
	var order []string
	for _, wr := range warns {
		if seen[wr.Msg]++; seen[wr.Msg] <= shownAlike {
			fmt.Fprintf(w, "edgetwin: warning: %s:%d: %s\n", wr.File, wr.Line, wr.Msg)
		} else if seen[wr.Msg] == shownAlike+1 {
			order = append(order, wr.Msg)
		}
	}
	for _, msg := range order {
		fmt.Fprintf(w, "edgetwin: warning: … and %d more lines: %s\n", seen[msg]-shownAlike, msg)
	}
}

// paramList splits a --params value; empty means the defaults.
func paramList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// calibrationErr classifies an error of fit or validate: the user's input
// (records naming chips or models that do not load, nothing usable) or not.
func calibrationErr(err error) error {
	if spec.IsSpecError(err) {
		return inputErr(err)
	}
	return err
}

func newCalibrateFit() *cobra.Command {
	var out, params, fidelity, runtimeID string
	var starts int
	cmd := &cobra.Command{
		Use:   "fit RECORDS.jsonl... -o OVERLAY.yaml",
		Short: "Fit the uncertain parameters to measured records: a calibration overlay",
		Long: `fit chooses the parameters the records can inform (compute efficiency by unit
kind, weight format and GEMM/GEMV, DRAM sequential efficiency by memory type,
dispatch cost by unit kind; --params picks others), runs the simulator on every
record's workload and fits them with gonum/optimize (Newton on the log
residuals, bounded by logistic transforms, from several starts). It prints each
fitted value with its one-sigma uncertainty and every record's residual, and
writes the overlay atomically. The overlay's parameters are keyed by unit kind,
weight format and memory type, so it applies to chips that were not in the fit:
simulate --calibration OVERLAY.yaml.

Above the analytic fidelity the fit runs on the analytic model corrected per
record by the ratio of the two fidelities at the current parameters, repeated
until the ratio settles; the residuals printed are at --fidelity.

With --runtime ID the fit is that runtime's: only the records naming it
(their "runtime" field), only the figures a runtime profile carries (GEMM and
GEMV efficiency by weight format, a CPU's GEMV by core design, dispatch cost,
a CPU's barrier per thread, DRAM share), each record run
with the runtime's own measured figures set aside, and -o is the runtime
profile to write: the runtime as it was, with the fitted figures, each cited
to the records, and a basis naming the records and chips they rest on.
simulate --runtime PROFILE.yaml runs it on any chip its units fit.`,
		Example: `  edgetwin calibrate fit m1.jsonl -o m1.yaml
  edgetwin calibrate fit a.jsonl b.jsonl -o cal.yaml --params gemv_efficiency,seq_efficiency --fidelity analytic
  edgetwin calibrate fit examples/public/records.jsonl --runtime rkllm -o rkllm.yaml --fidelity analytic`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			if out == "" {
				return inputErrorf("calibrate fit needs -o, the overlay file to write")
			}
			if _, err := filepath.Abs(out); err != nil || strings.HasSuffix(out, "/") {
				return inputErrorf("-o %q is not a file path", out)
			}
			if err := checkOutFile("-o", out); err != nil {
				return err
			}
			fid, err := sim.ParseFidelity(fidelity)
			if err != nil {
				return inputErr(err)
			}
			if starts < 1 {
				return inputErrorf("--starts %d is not allowed: give 1 or more", starts)
			}
			recs, err := readRecords(cmd, files)
			if err != nil {
				return err
			}
			fit, err := calibrate.FitRecords(cmd.Context(), recs, calibrate.FitOptions{
				Params: paramList(params), Fidelity: fid, Starts: starts,
				Source:   fmt.Sprintf("calibrate fit of %s (%d records) at %s fidelity", strings.Join(files, ", "), len(recs), fid),
				Runtime:  runtimeID,
				Progress: cmd.ErrOrStderr(),
			})
			if err != nil {
				return calibrationErr(err)
			}
			if runtimeID != "" {
				data, err := fit.Profile(strings.Join(files, ", ")).Encode()
				if err != nil {
					return err
				}
				if err := atomicfile.WriteFile(out, data); err != nil {
					return fmt.Errorf("-o %s: %w", out, err)
				}
				if err := reports.WriteFit(cmd.OutOrStdout(), fit); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: runtime %s %s\n", out, runtimeID, fit.Profile("").Basis)
				return nil
			}
			// The overlay is written before the report is printed, so a
			// closed stdout never loses the fit.
			if err := fit.Overlay.Write(out); err != nil {
				return fmt.Errorf("-o %s: %w", out, err)
			}
			if err := reports.WriteFit(cmd.OutOrStdout(), fit); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %d parameters from %d records (%d record predictions)\n", out, len(fit.Overlay.Params), len(fit.Residuals), fit.Runs)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "output", "o", "", "the overlay file to write (YAML)")
	fl.StringVar(&params, "params", "", "parameters to fit, comma-separated: "+strings.Join(calibrate.ParamNames(), ", ")+" (default "+strings.Join(calibrate.DefaultFitParams, ",")+")")
	fl.StringVar(&fidelity, "fidelity", string(sim.Tile), "the fidelity the overlay answers to: analytic, tile or line")
	fl.IntVar(&starts, "starts", 2, "starting points of the optimisation")
	fl.StringVar(&runtimeID, "runtime", "", "fit this runtime's figures on the records naming it; -o is then its runtime profile")
	return cmd
}

func newCalibrateValidate() *cobra.Command {
	var calPath, holdout, format, plotTo, fidelity, params, doc string
	cmd := &cobra.Command{
		Use:   "validate RECORDS.jsonl... [--calibration OVERLAY.yaml]",
		Short: "Predicted vs measured for every record: error per point, MAPE and worst case by phase",
		Long: `validate runs the simulator on every record's workload (with the overlay, if
given) and prints each point's measured and predicted figure and signed error,
then the mean absolute percentage error and the worst point by phase. With
--holdout chip (or model) each chip's (model's) records are predicted from an
overlay fitted on all the other records instead: leave one group out. Records
that name their runtime are predicted with it, and a hold-out fits each
runtime on that runtime's records alone (calibrate fit --runtime).

--doc FILE runs all three splits (the records as the shipped profiles predict
them, leave one chip out, leave one model out) and writes the validation
report in Markdown: the MAPE of each split, per runtime × chip the count, MAPE,
worst point and what the runtime's figures rest on. docs/validation.md is that
report for the public measurements in examples/public/.`,
		Example: `  edgetwin calibrate validate m2.jsonl --calibration m1.yaml
  edgetwin calibrate validate all.jsonl --holdout chip --format json --plot pred.png
  edgetwin calibrate validate examples/public/records.jsonl --fidelity analytic --doc docs/validation.md`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			f, err := checkOutput(format, plotTo)
			if err != nil {
				return err
			}
			if f == reports.CSV {
				return inputErrorf("--format csv is not offered by validate: use table or json")
			}
			fid, err := sim.ParseFidelity(fidelity)
			if err != nil {
				return inputErr(err)
			}
			if holdout != "" && holdout != "chip" && holdout != "model" {
				return inputErrorf("--holdout %q is not allowed: use chip or model", holdout)
			}
			if holdout != "" && calPath != "" {
				return inputErrorf("--holdout fits its own overlays: leave out --calibration")
			}
			if doc != "" && (holdout != "" || calPath != "" || plotTo != "") {
				return inputErrorf("--doc runs every split with the shipped profiles: leave out --holdout, --calibration and --plot")
			}
			if doc != "" {
				if err := checkOutFile("--doc", doc); err != nil {
					return err
				}
			}
			var ov *calibrate.Overlay
			if calPath != "" {
				if ov, err = calibrate.ReadOverlay(calPath); err != nil {
					return inputErr(err)
				}
			}
			recs, err := readRecords(cmd, files)
			if err != nil {
				return err
			}
			if doc != "" {
				runs := map[string]*calibrate.Validation{}
				for _, h := range reports.ValidationSplits {
					v, err := calibrate.Validate(cmd.Context(), recs, calibrate.ValidateOptions{
						Fidelity: fid, Holdout: h, Fit: calibrate.FitOptions{Params: paramList(params)}, Progress: cmd.ErrOrStderr()})
					if err != nil {
						return calibrationErr(err)
					}
					runs[h] = v
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d points, decode MAPE %.1f%%\n", reports.SplitName(h), len(v.Points), 100*v.MAPE[calibrate.PhaseDecode])
				}
				command := "edgetwin calibrate validate " + strings.Join(files, " ") + " --fidelity " + string(fid) + " --doc " + doc
				if err := atomicfile.WriteFile(doc, reports.ValidationDoc(runs, command)); err != nil {
					return fmt.Errorf("--doc %s: %w", doc, err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", doc)
				return nil
			}
			v, err := calibrate.Validate(cmd.Context(), recs, calibrate.ValidateOptions{
				Overlay: ov, Fidelity: fid, Holdout: holdout, Fit: calibrate.FitOptions{Params: paramList(params)},
				Progress: cmd.ErrOrStderr(),
			})
			if err != nil {
				return calibrationErr(err)
			}
			if err := reports.WriteValidation(cmd.OutOrStdout(), v, f); err != nil {
				return err
			}
			if plotTo != "" {
				if err := reports.PlotValidation(plotTo, v); err != nil {
					return fmt.Errorf("--plot %s: %w", plotTo, err)
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&calPath, "calibration", "", "a calibration overlay from calibrate fit")
	fl.StringVar(&holdout, "holdout", "", "leave one group out: chip or model")
	fl.StringVar(&format, "format", string(reports.Table), "output: table or json")
	fl.StringVar(&plotTo, "plot", "", "draw predicted vs measured with the y = x line to FILE (.png, .svg, .pdf)")
	fl.StringVar(&fidelity, "fidelity", string(sim.Tile), "model detail: analytic, tile or line")
	fl.StringVar(&params, "params", "", "with --holdout: the parameters each fit fits (as calibrate fit --params)")
	fl.StringVar(&doc, "doc", "", "run every split and write the validation report (Markdown) to FILE")
	return cmd
}
