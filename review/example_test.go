package review_test

import (
	"context"
	"fmt"
	"io"

	"github.com/edgetwin/edgetwin/review"
)

// A review of one teaching chip at the analytic fidelity, short enough to
// run as an example: Parse checks the file, Prepare plans its runs, Run
// runs them and returns the bundle, whose sections are printed in reading
// order.
func Example() {
	f, err := review.Parse("review.yaml", []byte(`title: Teaching chip review
chips: [seed-a]
models: [{model: llama-3.2-1b, quant: Q4_0}]
workload: {prompt: 64, gen: 8}
contexts: [64, 128]
fidelity: analytic
requirements: ['ttft_s < 2']
questions: [best-chip]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := review.Prepare(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := p.Run(context.Background(), io.Discard)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Title)
	for _, s := range b.Sections {
		kind := "table"
		if s.Figure != nil {
			kind = "figure"
		}
		fmt.Println(s.ID, kind)
	}
	// The review runs no scenario, so it has no thermal or power-cliff
	// figure; reports.WriteBundle writes the rest as one folder.

	// Output:
	// Teaching chip review
	// answers table
	// requirements-llama-3-2-1b table
	// compare-llama-3-2-1b figure
	// pareto-llama-3-2-1b figure
	// roofline figure
	// context figure
	// kv-policy figure
	// time-per-token figure
	// turns figure
	// parameters table
	// assumptions table
}
