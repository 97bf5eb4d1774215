package review

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/numfmt"
	"github.com/edgetwin/edgetwin/reports"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

// figure is one kind of figure (or table) in the report: plan adds the
// runs it needs (nil: it needs only the advice), sections draws it from
// their results, returning none when the review gives it nothing to show.
// To add a figure, write the two functions and list it in figures.
type figure struct {
	id       string
	plan     func(p *Plan) error
	sections func(p *Plan) ([]reports.Section, error)
}

// figures are the report's figures in reading order.
var figures = []figure{
	{"compare", nil, compareSections},
	{"pareto", nil, paretoSections},
	{"roofline", nil, rooflineSections},
	{"context", planContext, contextSections},
	{"kv-policy", planKVPolicy, kvPolicySections},
	{"thermal", nil, thermalSections},
	{"power-cliff", planPowerCliff, powerCliffSections},
	{"time-per-token", planTimeParts, timePartsSections},
	{"turns", planTurns, turnSections},
}

// --- compare and Pareto: from the advice -------------------------------------

func compareSections(p *Plan) ([]reports.Section, error) {
	var out []reports.Section
	for j, a := range p.advice {
		c := &reports.Compare{Model: a.Model, Quant: a.Quant, KVDtype: a.KVDtype, Fidelity: a.Fidelity, Prompt: a.Prompt, Gen: a.Gen, Batch: a.Batch}
		for i, chip := range p.chipIDs {
			row := reports.CompareRow{Chip: chip, Result: p.adviceResult(a, i)}
			for _, r := range a.Ranking {
				if r.SoC == chip {
					row.PriceUSD, row.Err = r.PriceUSD, r.Err
				}
			}
			c.Rows = append(c.Rows, row)
		}
		d := reports.ComparePlotData(c)
		d.Title = "Chips compared — " + p.workloadName(j, true)
		out = append(out, reports.Section{
			ID: "compare-" + slug(p.file.Models[j].Model), Title: "Chips compared: " + p.workloadName(j, true),
			Figure:  d,
			Caption: "Decode and prefill rates, time to first token and the DRAM bandwidth used, one bar per chip, from the runs the requirements are checked on." + scenarioNote(p),
		})
	}
	return out, nil
}

func scenarioNote(p *Plan) string {
	if len(p.file.Scenarios) == 0 {
		return ""
	}
	return " Under a scenario the rates total the whole session, throttling included."
}

func paretoSections(p *Plan) ([]reports.Section, error) {
	var out []reports.Section
	for j, a := range p.advice {
		d := reports.ParetoPlotData(a)
		if len(d.Points) == 0 {
			continue
		}
		d.Title = "Pareto front — " + p.workloadName(j, true)
		caption := "Price against throughput: every chip with a price, the Pareto front (no other chip is both cheaper and faster) connected; crosses fail a requirement."
		if a.Pareto.Note != "" {
			caption += " " + a.Pareto.Note
		}
		if len(a.Pareto.Left) > 0 {
			caption += " Left out: " + strings.Join(a.Pareto.Left, "; ") + "."
		}
		out = append(out, reports.Section{
			ID: "pareto-" + slug(p.file.Models[j].Model), Title: "Pareto front: " + p.workloadName(j, true),
			Figure: d, Caption: caption,
		})
	}
	return out, nil
}

// --- roofline ---------------------------------------------------------------

func rooflineSections(p *Plan) ([]reports.Section, error) {
	f := p.single[0]
	cfg, err := f.config(p.file.Chips[0])
	if err != nil {
		return nil, err
	}
	prompt := max(1, cfg.Prompt)
	prefill := workloads.Lower(cfg.Model.Model, cfg.Quant, cfg.KV, workloads.Work{Phase: workloads.Prefill, Tokens: prompt, Batch: cfg.Batch, Seed: cfg.Seed})
	decode := workloads.Lower(cfg.Model.Model, cfg.Quant, cfg.KV, workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: prompt, Batch: cfg.Batch, Seed: cfg.Seed})
	choice, err := sim.Choose(&cfg) // the unit the simulator runs the model on
	if err != nil {
		return nil, err
	}
	title := fmt.Sprintf("Roofline: %s %s on %s, prompt %d", cfg.Model.ID, cfg.Quant, cfg.Chip.ID, prompt)
	r, err := reports.Roofline(cfg.Chip, choice.Unit.Name, prefill, decode, title)
	if err != nil {
		return nil, err
	}
	return []reports.Section{{
		ID: "roofline", Title: "Roofline: " + p.chipIDs[0],
		Figure: r,
		Caption: fmt.Sprintf("The %s's roofline at %s: its peak, the DRAM roof (bandwidth × sequential efficiency) and the L3 roof; each point is the operators of one kind and role in a prefill of %d tokens (large) or the decode step after it (small), their FLOPs over their bytes. Points left of the ridge are bound by memory: decode's matmuls sit far left, which is why decode speed follows DRAM bandwidth.",
			r.Unit, r.Dtype, prompt),
	}}, nil
}

// --- tokens/s against context -------------------------------------------------

// contextGen is the decode steps each context run measures.
const contextGen = 16

type contextRuns struct {
	ctxs [][]int       // per model: the context lengths within its maximum
	runs [][][]outcome // [model][chip][k]
}

func planContext(p *Plan) error {
	st := &contextRuns{}
	p.state["context"] = st
	for j, f := range p.single {
		cfg, err := f.config(p.file.Chips[0])
		if err != nil {
			return err
		}
		var ctxs []int
		for _, c := range p.file.Contexts {
			if c+contextGen <= cfg.Model.MaxContext {
				ctxs = append(ctxs, c)
			}
		}
		st.ctxs = append(st.ctxs, ctxs)
		st.runs = append(st.runs, make([][]outcome, len(p.file.Chips)))
		for i := range p.file.Chips {
			st.runs[j][i] = make([]outcome, len(ctxs))
			for k, c := range ctxs {
				pf := f
				pf.prompt, pf.gen = c, contextGen
				p.simulate(pf, i, &st.runs[j][i][k])
			}
		}
	}
	return nil
}

func contextSections(p *Plan) ([]reports.Section, error) {
	st := p.state["context"].(*contextRuns)
	d := reports.PlotData{Title: "Decode rate against context length", XLabel: "context (tokens)", XLog: true}
	for j, m := range p.file.Models {
		panel := reports.Panel{YLabel: m.Model + " " + m.Quant + " (tokens/s)", Scale: "decode"}
		for i, chip := range p.chipIDs {
			l := reports.Line{Label: chip}
			for k, c := range st.ctxs[j] {
				if r := st.runs[j][i][k].res; r != nil && r.Decode.TokensPerS != nil {
					l.X, l.Y = append(l.X, float64(c)), append(l.Y, *r.Decode.TokensPerS)
				}
			}
			panel.Lines = append(panel.Lines, l)
		}
		d.Panels = append(d.Panels, panel)
	}
	return []reports.Section{{
		ID: "context", Title: "Decode rate against context length", Figure: d,
		Caption: fmt.Sprintf("Decode tokens/s of %d steps after a prompt of each length, one panel per model, one line per chip: the KV cache each step reads grows with the context, so the rate falls. A chip missing a point could not hold that context.", contextGen),
	}}, nil
}

// --- L3 miss rate against KV size, per policy ---------------------------------

// kvPolicies are the placement policies the KV figure compares.
var kvPolicies = []string{"naive", "stream-weights", "kv-first"}

// kvSizes are the KV-cache sizes of the figure, bytes: 1 to 32 MiB.
var kvSizes = []float64{1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 32 << 20}

const kvGen = 8

type kvRuns struct {
	prompts []int
	runs    [][]outcome // [policy][k]
}

func planKVPolicy(p *Plan) error {
	f := p.single[0]
	cfg, err := f.config(p.file.Chips[0])
	if err != nil {
		return err
	}
	st := &kvRuns{}
	p.state["kv-policy"] = st
	perToken := cfg.Model.KVBytesPerToken(cfg.KV) * float64(cfg.Batch)
	for _, kv := range kvSizes {
		st.prompts = append(st.prompts, max(1, int(math.Round(kv/perToken))))
	}
	st.runs = make([][]outcome, len(kvPolicies))
	for pi, pol := range kvPolicies {
		st.runs[pi] = make([]outcome, len(kvSizes))
		for k, prompt := range st.prompts {
			pf := f
			pf.policy, pf.prompt, pf.gen = pol, prompt, kvGen
			p.simulate(pf, 0, &st.runs[pi][k])
		}
	}
	return nil
}

func kvPolicySections(p *Plan) ([]reports.Section, error) {
	st := p.state["kv-policy"].(*kvRuns)
	m := p.file.Models[0]
	d := reports.PlotData{
		Title:  fmt.Sprintf("KV-cache L3 miss rate by placement policy — %s %s on %s", m.Model, m.Quant, p.chipIDs[0]),
		XLabel: "KV cache (MiB)", XLog: true,
		Panels: []reports.Panel{{YLabel: "KV L3 miss rate"}, {YLabel: "decode (tokens/s)"}},
	}
	for pi, pol := range kvPolicies {
		miss, rate := reports.Line{Label: pol}, reports.Line{Label: pol}
		for k, kv := range kvSizes {
			r := st.runs[pi][k].res
			if r == nil {
				continue
			}
			x := kv / (1 << 20)
			miss.X, miss.Y = append(miss.X, x), append(miss.Y, r.Memory.KVL3MissRate)
			if r.Decode.TokensPerS != nil {
				rate.X, rate.Y = append(rate.X, x), append(rate.Y, *r.Decode.TokensPerS)
			}
		}
		d.Panels[0].Lines = append(d.Panels[0].Lines, miss)
		d.Panels[1].Lines = append(d.Panels[1].Lines, rate)
	}
	var l3 string
	if cfg, err := p.single[0].config(p.file.Chips[0]); err == nil {
		l3 = " The L3 holds " + units.Approx(float64(cfg.Chip.Memory.L3.Size), units.KindBytes) + "."
	}
	return []reports.Section{{
		ID: "kv-policy", Title: "L3 miss rate against KV-cache size, per placement policy", Figure: d,
		Caption: fmt.Sprintf("The share of KV-cache reads that miss the L3, and the decode rate, as the context grows (prompts of %d to %d tokens, %d decode steps each), under each built-in placement policy: naive (everything through the L3), stream-weights (weights bypass the L3) and kv-first (the KV cache gets the L3 first).%s",
			st.prompts[0], st.prompts[len(st.prompts)-1], kvGen, l3),
	}}, nil
}

// --- the sustained run over time ---------------------------------------------

func thermalSections(p *Plan) ([]reports.Section, error) {
	if len(p.file.Scenarios) == 0 || len(p.advice) == 0 {
		return nil, nil
	}
	r := p.adviceResult(p.advice[0], 0)
	if r == nil || p.overTime == nil || p.overTime.Empty() {
		return nil, nil
	}
	d := p.overTime.PlotData(r.Batch, r.Thermal.ThrottleOnsetS, "Over time — "+p.runName())
	onset := "The governor never lowered a clock in this run."
	if o := r.Thermal.ThrottleOnsetS; o != nil {
		onset = fmt.Sprintf("The dashed line marks the throttle onset, %s s in, when the governor first lowered a clock.", numfmt.Value(*o, 0))
	}
	return []reports.Section{{
		ID: "thermal", Title: "Over time: temperature, clock and decode rate", Figure: d,
		Caption: "The session run second by second: every thermal node's temperature, every unit's clock, and the tokens decoded per second (dips are the prefills of new requests). " + onset,
	}}, nil
}

// --- the power cliff ------------------------------------------------------------

// cliffFactors scale the chip's DRAM energy per byte in the power-cliff
// runs.
var cliffFactors = []float64{0.25, 0.5, 0.75, 1, 1.5, 2, 3}

type cliffRuns struct {
	base   float64 // the chip's DRAM energy per byte, J
	runs   []outcome
	starts []*reports.StartPowerMeter // each run's power over its first 10 s
}

func planPowerCliff(p *Plan) error {
	if len(p.file.Scenarios) == 0 {
		return nil
	}
	f := p.advised[0]
	cfg, err := f.config(p.file.Chips[0])
	if err != nil {
		return err
	}
	st := &cliffRuns{base: float64(cfg.Chip.Memory.DRAM.EnergyPerByte), runs: make([]outcome, len(cliffFactors)), starts: make([]*reports.StartPowerMeter, len(cliffFactors))}
	if st.base <= 0 {
		return nil
	}
	p.state["power-cliff"] = st
	for k, x := range cliffFactors {
		pf := f
		pf.sets = append(slices.Clone(f.sets), "memory.dram.energy_per_byte="+units.Format(st.base*x, units.KindEnergy))
		st.starts[k] = &reports.StartPowerMeter{Window: 10}
		st.runs[k].series = st.starts[k]
		p.simulate(pf, 0, &st.runs[k])
	}
	return nil
}

func powerCliffSections(p *Plan) ([]reports.Section, error) {
	st, ok := p.state["power-cliff"].(*cliffRuns)
	if !ok {
		return nil, nil
	}
	var pts []reports.CliffPoint
	for k, rr := range st.runs {
		r := rr.res
		if r == nil {
			continue
		}
		pt := reports.CliffPoint{
			StartPowerW: st.starts[k].Watts(),
			PeakC:       r.Thermal.PeakC, SkinPeakC: r.Thermal.SkinPeakC,
			Throttled: r.Thermal.ThrottleOnsetS != nil,
		}
		perToken := func(rate *float64) *float64 {
			if rate == nil || *rate <= 0 {
				return nil
			}
			v := 1e3 * float64(max(1, r.Batch)) / *rate
			return &v
		}
		pt.FirstMs, pt.SustainedMs = perToken(r.Decode.First10sTokensPerS), perToken(r.Thermal.SustainedTokensPerS)
		pts = append(pts, pt)
	}
	if len(pts) == 0 {
		return nil, nil
	}
	d := reports.PowerCliffPlotData("Power cliff — "+p.runName(), pts)
	return []reports.Section{{
		ID: "power-cliff", Title: "The power cliff: latency and temperature against power", Figure: d,
		Caption: fmt.Sprintf("The same session run %d times with the DRAM's energy per byte scaled from %s× to %s× the chip's %s: the largest share of decode power, and an uncertain one, so the work and its unthrottled speed stay fixed while the power it draws rises. x is the power over the first 10 s, before the phone warms. Below the sustainable level the time per token over the last minute equals that of the first 10 s; past it the governor throttles and the last minute's time per token jumps while the skin sits at its trip.",
			len(cliffFactors), numfmt.Value(cliffFactors[0], 0), numfmt.Value(cliffFactors[len(cliffFactors)-1], 0), units.Approx(st.base, units.KindEnergy)+"/B"),
	}}, nil
}

// --- where the time of a token goes -------------------------------------------

type timeRuns struct {
	full, prefill [][]outcome // [model][chip]
}

func planTimeParts(p *Plan) error {
	st := &timeRuns{}
	p.state["time-per-token"] = st
	for _, f := range p.single {
		if f.gen == 0 {
			return nil
		}
		full, pre := make([]outcome, len(p.file.Chips)), make([]outcome, len(p.file.Chips))
		for i := range p.file.Chips {
			p.simulate(f, i, &full[i])
			pf := f
			pf.gen = 0
			p.simulate(pf, i, &pre[i])
		}
		st.full, st.prefill = append(st.full, full), append(st.prefill, pre)
	}
	return nil
}

func timePartsSections(p *Plan) ([]reports.Section, error) {
	st := p.state["time-per-token"].(*timeRuns)
	if len(st.full) == 0 {
		return nil, nil
	}
	d := reports.StackData{Title: fmt.Sprintf("Where the time of a decode step goes — prompt %d · generate %d", p.file.Prompt, p.file.Gen), Labels: p.chipIDs}
	for _, tp := range reports.TimeParts {
		d.Parts = append(d.Parts, tp.Name)
	}
	for j, m := range p.file.Models {
		panel := reports.StackPanel{Label: m.Model + " " + m.Quant + " (ms per decode step)"}
		for i := range p.chipIDs {
			full, pre := st.full[j][i], st.prefill[j][i]
			if full.res == nil || pre.res == nil {
				panel.Values = append(panel.Values, nil)
				panel.Missing = append(panel.Missing, missingWhy(full.err, pre.err))
				continue
			}
			panel.Values = append(panel.Values, reports.DecodeTimeParts(full.res, pre.res))
			panel.Missing = append(panel.Missing, "")
		}
		d.Panels = append(d.Panels, panel)
	}
	return []reports.Section{{
		ID: "time-per-token", Title: "Where the time of a decode step goes", Figure: d,
		Caption: "The matrix unit's time per decode step split into computing, waiting for memory, driver dispatch, operators that fell back to the CPU, sampling on the CPU and SRAM bank conflicts: the run with the decode minus the same run stopped after its prefill, over the steps. Memory stall dominating means decode is bound by DRAM bandwidth.",
	}}, nil
}

func missingWhy(errs ...error) string {
	for _, err := range errs {
		if err != nil && strings.Contains(err.Error(), "does not fit") {
			return "does not fit"
		}
	}
	return "did not run"
}
