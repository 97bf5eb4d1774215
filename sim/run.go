package sim

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/workloads"
)

// first10s is the window of decode.first_10s_tokens_per_s.
const first10s = 10.0

// Run simulates a prefill of cfg.Prompt tokens and cfg.Gen decode steps.
// Errors about the inputs are *InputError.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := checkFit(&cfg); err != nil {
		return nil, err
	}
	unit, dt, err := pickUnit(&cfg)
	if err != nil {
		return nil, err
	}
	e := newEngine(&cfg, unit, dt)
	run := e.tilePass
	if cfg.Fidelity == Analytic {
		run = e.analyticPass
	}
	pass := func(w workloads.Work) float64 {
		e.work = w
		return run(workloads.Lower(cfg.Model.Model, cfg.Quant, cfg.KV, w))
	}
	r := newResult(&cfg, unit.Name, dt)
	if max := cfg.Model.MaxContext; cfg.Prompt+cfg.Gen > max {
		r.Warnings = append(r.Warnings, fmt.Sprintf("context %d exceeds %s's trained maximum of %d tokens", cfg.Prompt+cfg.Gen, cfg.Model.Name, max))
	}

	work := workloads.Work{Phase: workloads.Prefill, Tokens: cfg.Prompt, Batch: cfg.Batch, Seed: cfg.Seed}
	var prefill float64
	if cfg.Prompt > 0 {
		prefill = pass(work)
	}
	r.TTFT = prefill + e.sample()
	r.Prefill = phase(cfg.Prompt*cfg.Batch, prefill)

	steps := make([]float64, 0, cfg.Gen)
	for s := 0; s < cfg.Gen; s++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		work := workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: cfg.Prompt + s, Batch: cfg.Batch, Seed: cfg.Seed}
		steps = append(steps, pass(work)+e.sample())
	}
	r.Decode = decodePhase(steps, cfg.Batch)
	e.finish(r, r.TTFT+r.Decode.Seconds)
	return r, nil
}

// sample charges the host for drawing one token per sequence from the
// logits, and returns its time.
func (e *engine) sample() float64 {
	if e.host == nil {
		return 0
	}
	ops := sampleOpsPerLogit * float64(e.cfg.Model.Vocab) * float64(e.cfg.Batch)
	t := float64(e.host.Dispatch) + e.host.VectorSeconds(ops, dtype.FP32, 0)
	e.st.host += t
	return t
}

func newResult(c *Config, unit string, dt dtype.Dtype) *Result {
	return &Result{
		SoC: c.Chip.ID, Model: c.Model.ID, Quant: c.Quant.String(), KVDtype: c.KV.String(),
		Unit: unit, Fidelity: string(c.Fidelity), Prompt: c.Prompt, Gen: c.Gen, Batch: c.Batch,
		Compute:    Compute{Dtype: string(dt)},
		Warnings:   []string{},
		Provenance: provenance(c),
	}
}

func phase(tokens int, seconds float64) Phase {
	p := Phase{Tokens: tokens, Seconds: seconds}
	if tokens > 0 && seconds > 0 {
		p.TokensPerS = ptr(float64(tokens) / seconds)
	}
	return p
}

// decodePhase summarises decode steps: totals, the rate over the first ten
// seconds, and the spread of step times.
func decodePhase(steps []float64, batch int) DecodePhase {
	d := DecodePhase{Phase: phase(len(steps)*batch, sum(steps))}
	if len(steps) == 0 {
		return d
	}
	var t float64
	n := 0
	for _, s := range steps {
		if t+s > first10s {
			break
		}
		t += s
		n++
	}
	if d.Seconds <= first10s {
		d.First10sTokensPerS = d.TokensPerS
	} else {
		d.First10sTokensPerS = ptr(float64(n*batch) / first10s)
	}
	ms := make([]float64, len(steps))
	for i, s := range steps {
		ms[i] = s * 1e3
	}
	sort.Float64s(ms)
	d.MsPerToken = Percentile{P50: ptr(percentile(ms, 0.50)), P99: ptr(percentile(ms, 0.99))}
	return d
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// finish fills the counters of the result from the engine's statistics.
func (e *engine) finish(r *Result, total float64) {
	c := e.cfg
	f := footprint(c)
	st := e.st
	peak := float64(c.Chip.Memory.DRAM.Bandwidth)
	r.Memory = Memory{
		WeightsBytes: f.Weights, KVBytes: f.KV, DRAMBytes: st.dramBytes, DRAMPeak: peak,
		L3Bytes:      st.l3HitBytes,
		DRAMBWUtil:   ratio(st.dramBytes, peak*total),
		L3MissRate:   ratio(st.l3MissLines, st.l3Lines),
		KVL3MissRate: ratio(st.kvMissLines, st.kvLines),
	}
	unitPeak := float64(e.unit.Peak[e.dt])
	r.Compute.PeakTOPS = unitPeak / 1e12
	r.Compute.TOPSEff = ratio(st.ops, total) / 1e12
	r.Compute.MACUtil = ratio(st.ops, unitPeak*total)
	r.Compute.StallMem = ratio(st.stallMem, total)
	r.Compute.StallIssue = ratio(st.dispatch, total)
	r.Time = Time{Total: total, Compute: st.compute, MemoryStall: st.stallMem, Dispatch: st.dispatch, Host: st.host}
}

// ratio is a/b, or 0 when there was nothing to count.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
