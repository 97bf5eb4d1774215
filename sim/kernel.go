package sim

import (
	"context"

	"github.com/edgetwin/edgetwin/workloads"
)

// RunKernel simulates op on its own, as a kernel benchmark runs it: on
// the unit cfg picks for cfg.Quant, at cfg.Fidelity and the chip's top
// clocks. Cold, its weights stream from DRAM (a product larger than the
// last cache level, or run once); warm, the benchmark has run it before
// and its weights sit in the L3 as far as they fit (they allocate there,
// and the product is timed on its second run). It returns the unit's name
// and the seconds op takes, dispatch included. cfg's prompt, depth,
// generation, scenario and trace are ignored; its model only sizes the
// engine.
func RunKernel(ctx context.Context, cfg Config, op workloads.Op, warm bool) (unit string, seconds float64, err error) {
	cfg.Prompt, cfg.Depth, cfg.Gen, cfg.Scenario, cfg.Trace = 0, 0, 0, nil, nil
	if err := cfg.validate(); err != nil {
		return "", 0, err
	}
	if err := ctx.Err(); err != nil {
		return "", 0, err
	}
	u, dt, err := pickUnit(&cfg)
	if err != nil {
		return "", 0, err
	}
	if warm {
		pol := *cfg.Policy
		pol.Weights, pol.FFN, pol.Experts = Placement{Home: HomeL3}, nil, nil
		cfg.Policy = &pol
	}
	e, err := newEngine(&cfg, cfg.Policy, u, dt)
	if err != nil {
		return "", 0, err
	}
	w := workloads.Work{Phase: workloads.Decode, Tokens: max(1, op.M), Batch: 1}
	if op.M > 1 {
		w.Phase = workloads.Prefill
	}
	e.work = w
	e.scanBypass(w)
	ops := []workloads.Op{op}
	if warm {
		e.exec.run(ops, e.plan(ops))
	}
	return u.Name, e.exec.run(ops, e.plan(ops)), nil
}
