// Command edgetwin-probe measures the machine it runs on and prints what it
// measured as calibration records, for `edgetwin calibrate probe` to push
// to a remote device and stream back. Its first line is "#host " and the
// JSON of the host's description; each further line is one record, flushed
// as soon as it is measured. Progress goes to stderr.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/calibrate/probe"
)

func main() {
	var opts probe.Options
	flag.BoolVar(&opts.Quick, "quick", false, "a probe of under a minute")
	flag.IntVar(&opts.Threads, "threads", 0, "largest thread count (0: every core)")
	flag.StringVar(&opts.SoC, "soc", "host", "the chip the records are measured on")
	steps := flag.String("steps", "", "comma-separated steps to take (default: all): "+strings.Join(probe.StepNames(), ", "))
	flag.Parse()
	if *steps != "" {
		opts.Steps = strings.Split(*steps, ",")
	}
	opts.Progress = os.Stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	host, err := json.Marshal(probe.Inspect())
	if err != nil {
		fmt.Fprintln(os.Stderr, "edgetwin-probe:", err)
		os.Exit(1)
	}
	if _, err := fmt.Fprintf(os.Stdout, "#host %s\n", host); err != nil {
		os.Exit(1)
	}
	w := calibrate.NewWriter(os.Stdout)
	if err := probe.Run(ctx, opts, w.Write); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("interrupted; every record printed before is complete")
		}
		fmt.Fprintln(os.Stderr, "edgetwin-probe:", err)
		os.Exit(1)
	}
}
