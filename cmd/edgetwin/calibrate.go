package main

import (
	"context"
	"fmt"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/internal/inputfile"
	"github.com/edgetwin/edgetwin/workloads"
	"github.com/spf13/cobra"
)

func newCalibrate() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Tie the twin to measurements of real kernels and models",
		Long: `calibrate turns measurements into records edgetwin can fit its uncertain
parameters to. import reads what people already run (llama.cpp's llama-bench);
probe measures this machine or a device over ssh or adb with real kernels;
fit turns records into a calibration overlay (simulate --calibration), and
validate measures how well the twin predicts them; thermal fits the chip's
thermal network to a measured time series.`,
	}
	cmd.AddCommand(newCalibrateImport(), newCalibrateProbe(), newCalibrateFit(), newCalibrateValidate(), newCalibrateThermal())
	return cmd
}

func newCalibrateImport() *cobra.Command {
	var soc, quant, out string
	var models []string
	cmd := &cobra.Command{
		Use:   "import FILE...",
		Short: "Turn llama-bench output (JSON, JSONL, CSV or Markdown) into records",
		Long: `import reads llama-bench output in any of its forms and writes one record per
row measured on the chip --soc names: a pp row is a prefill record, a tg row a
decode record. The model comes from the row's parameter count and the quant
from its model type, unless --model and --quant say otherwise. Rows that cannot
be mapped are listed with the reason on stderr; the records are written to -o
one by one, so nothing already imported is lost. Given several --model, each
row takes the one whose parameter count is within 1% of its model_n_params.`,
		Example: `  edgetwin calibrate import bench.json --soc apple-m2 -o m2.jsonl
  edgetwin calibrate import results.md --soc my-board.yaml --model llama-3.2-1b --quant Q4_0 -o board.jsonl
  edgetwin calibrate import bench.jsonl --soc rk3588 --model qwen/config.json --model phi/config.json -o board.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			if soc == "" || out == "" {
				return inputErrorf("calibrate import needs --soc (the chip the rows were measured on) and -o (the records file)")
			}
			if err := checkOutFile("-o", out); err != nil {
				return err
			}
			opts := calibrate.ImportOptions{SoC: soc, Quant: quant}
			if _, ok := hw.ChipSource(soc); !ok {
				data, err := spec.ReadFile(soc, "chip")
				if err != nil {
					return inputErr(err)
				}
				if _, err := hw.Load(soc, data, nil); err != nil {
					return inputErr(err)
				}
				opts.SoCDigest = calibrate.Digest(data)
			}
			for _, ref := range models {
				m, err := workloads.LoadModel(ref, nil)
				if err != nil {
					return inputErr(err)
				}
				opts.Models = append(opts.Models, calibrate.ModelRef{Ref: ref, Params: m.Params()})
			}
			var all []calibrate.Record
			var skipped []calibrate.Skip
			for _, f := range files {
				data, err := spec.ReadFileMax(f, "llama-bench output", inputfile.RecordsCap)
				if err != nil {
					return inputErr(err)
				}
				recs, skips, err := calibrate.Import(f, data, opts)
				if err != nil {
					return inputErr(err)
				}
				all, skipped = append(all, recs...), append(skipped, skips...)
			}
			// Chip and model files are named from where the records go,
			// so the records file reads the same from anywhere.
			for i := range all {
				all[i].SoC, all[i].Model = calibrate.PathFrom(out, all[i].SoC), calibrate.PathFrom(out, all[i].Model)
			}
			summary := calibrate.ImportCommandSummary(all, skipped)
			if len(all) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), summary)
				return inputErrorf("no row could be imported (%d skipped, each with its reason above); -o %s is left as it was", len(skipped), out)
			}
			// The records go beside -o and replace it only once all are
			// written: an interrupt or a full disk leaves it as it was.
			w, err := calibrate.Create(out)
			if err != nil {
				return outputErr("-o", out, err)
			}
			for _, r := range all {
				if err := context.Cause(cmd.Context()); err != nil {
					w.Discard()
					return fmt.Errorf("-o %s: %w; the file is left as it was", out, err)
				}
				if err := w.Write(r); err != nil {
					w.Discard()
					return fmt.Errorf("-o %s: %w", out, err) // says the file is left as it was
				}
			}
			if err := w.Close(); err != nil {
				return fmt.Errorf("-o %s: %w", out, err)
			}
			fmt.Fprintln(cmd.ErrOrStderr(), summary)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&soc, "soc", "", "the chip the rows were measured on: a catalog id or a chip file")
	fl.StringArrayVar(&models, "model", nil, "the model the rows ran, a catalog id or a model file (YAML or config.json); repeat it for rows of several models, each row taking the one its parameter count matches (default: the catalog model it matches)")
	fl.StringVar(&quant, "quant", "", "the quant of every row (default: from the row's model type)")
	fl.StringVarP(&out, "output", "o", "", "the records file to write (JSON Lines)")
	_ = cmd.RegisterFlagCompletionFunc("soc", completeIDs(hw.ChipIDs))
	return cmd
}
