package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/advisor"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/pool"
	"github.com/edgetwin/edgetwin/reports"
	"github.com/edgetwin/edgetwin/review"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/sweep"
	"github.com/edgetwin/edgetwin/workloads"
	"github.com/spf13/cobra"
)

func newReport() *cobra.Command {
	var config, out string
	cmd := &cobra.Command{
		Use:   "report --config REVIEW.yaml -o DIR",
		Short: "Write a design-review report from a review file: figures, tables and answers",
		Long: `report runs everything a review file asks for — its chips, models,
workload, scenarios and requirements — on all cores, and writes one folder:

  index.html      the report, self-contained (figures embedded, no network)
  report.md       the same content, with the figures beside it
  ID.svg, ID.png  every figure
  ID.csv          the data behind every figure and table

The folder is built beside DIR under a hidden name and renamed into
place, so a report is never half-written and an interrupted one leaves DIR
as it was; DIR must be new, empty, or an earlier report (holding only the
files its .edgetwin-report marker lists), which is replaced. A folder
holding anything else is refused before anything runs.

The review file (YAML, strict: unknown fields are errors with file:line):

  title: Phone assistant SoC review
  chips: [snapdragon-8-gen3, dimensity-9300]      # catalog ids or chip files
  models: [{model: llama-3.2-3b, quant: Q4_0}]
  workload: {prompt: 512, gen: 128}                # the single-prompt runs
  scenarios: [{scenario: sustained, duration: 2m, set: [context_limit=2048]}]
  set: [thermal.ambient=35C]                       # --set for every run
  requirements: ['ttft_s < 1', 'thermal.sustained_tokens_per_s >= 8']
  maximize: thermal.sustained_tokens_per_s         # or minimize: chip.price_usd
  questions: [best-chip, throttle, 'Can we ship the 7B model?']
  fidelity: tile                                   # analytic, tile or line

Requirements are advise chip's --require expressions, checked under the
first scenario (or the single prompt without one). Questions are ids —
` + questionList() + ` — or free text, listed for the reader.`,
		Example: `  edgetwin report --config examples/review/review.yaml -o review-report`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if config == "" {
				return inputErrorf("--config is required: a review file such as examples/review/review.yaml")
			}
			if out == "" {
				return inputErrorf("-o DIR is required: the folder to write the report into")
			}
			data, err := spec.ReadFile(config, "review")
			if err != nil {
				return inputErr(err)
			}
			rv, err := review.Parse(config, data)
			if err != nil {
				return inputErr(err)
			}
			if err := reports.CheckBundleDir(out); err != nil {
				return inputErr(err)
			}
			p, err := planReview(rv)
			if err != nil {
				return err
			}
			// Ctrl-C or SIGTERM stops the runs and the writing, and the
			// folder being built is removed: -o is left as it was.
			ctx, stop := stopOnSignal(cmd.Context())
			defer stop()
			if err := p.run(ctx, cmd.ErrOrStderr()); err != nil {
				return err
			}
			if err := p.checkRan(); err != nil {
				return err
			}
			b, err := p.bundle()
			if err != nil {
				return err
			}
			if err := reports.WriteBundle(ctx, out, b); err != nil {
				return fmt.Errorf("-o %s: %w", out, err)
			}
			figures := 0
			for _, s := range b.Sections {
				if s.Figure != nil {
					figures++
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s/index.html and report.md: %d sections, %d figures\n", out, len(b.Sections), figures)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&config, "config", "", "the review file (YAML): chips, models, scenarios, requirements, questions")
	fl.StringVarP(&out, "out", "o", "", "the folder to write the report into (new, empty, or an earlier report)")
	return cmd
}

func questionList() string {
	return strings.Join(review.QuestionIDs(), ", ")
}

// runResult is one simulation of a report: its result, or the input error
// that kept it from running (the model does not fit).
type runResult struct {
	res *sim.Result
	err error
}

// reportJob is one unit of a report's work.
type reportJob func(ctx context.Context) error

// reviewPlan is a checked review with everything the report runs and the
// runs' results once run.
type reviewPlan struct {
	rv      *review.File
	chipIDs []string   // the chips' ids as results name them
	single  []runFlags // per model: the single-prompt workload
	// advised are the runs the requirements are checked on: per model,
	// under the first scenario, or the single prompt without one.
	advised []runFlags
	plans   []*advisor.Plan
	advice  []*advisor.Advice
	jobs    []reportJob
	// figures keep their own runs (see reportFigures).
	state map[string]any
}

// reportFigure is one kind of figure (or table) in the report: plan adds
// the runs it needs (nil: it needs only the advice), sections draws it
// from their results, returning none when the review gives it nothing to
// show. To add a figure, write the two functions and list it here.
type reportFigure struct {
	id       string
	plan     func(p *reviewPlan) error
	sections func(p *reviewPlan) ([]reports.Section, error)
}

// reportFigures are the report's figures in reading order.
var reportFigures = []reportFigure{
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

// planReview loads every chip and model of the review, compiles its
// requirements, and lists the runs. Every error it returns is the review
// file's, located in it.
func planReview(rv *review.File) (*reviewPlan, error) {
	p := &reviewPlan{rv: rv, state: map[string]any{}}
	for _, m := range rv.Models {
		f := runFlags{model: m.Model, quant: m.Quant, kv: m.KVDtype, fidelity: rv.Fidelity, prompt: rv.Prompt, gen: rv.Gen, batch: rv.Batch, seed: rv.Seed, sets: slices.Clone(rv.Sets)}
		p.single = append(p.single, f)
		if len(rv.Scenarios) > 0 {
			f = withScenario(f, rv.Scenarios[0])
		}
		p.advised = append(p.advised, f)
	}
	// Every model loads on the first chip, and every chip with the first model.
	for j := range rv.Models {
		if _, err := p.advised[j].config(rv.Chips[0]); err != nil {
			return nil, inputErr(rv.Errorf(fmt.Sprintf("models.%d", j), err))
		}
	}
	for i, c := range rv.Chips {
		cfg, err := p.advised[0].config(c)
		if err != nil {
			return nil, inputErr(rv.Errorf(fmt.Sprintf("chips.%d", i), err))
		}
		p.chipIDs = append(p.chipIDs, cfg.Chip.ID)
	}
	for j, f := range p.advised {
		req := advisor.Request{Candidates: rv.Chips, Load: loaderFor(f), Workers: 1, Objective: rv.Objective, Maximize: rv.Maximize}
		if j == 0 {
			// The requirements, one by one, so an error names its line.
			plain := req
			plain.Objective, plain.Maximize = "", false
			plan, err := advisor.Prepare(plain)
			if err != nil {
				return nil, inputErr(err)
			}
			for i, text := range rv.Requirements {
				if err := plan.Env().CheckRequirement(text); err != nil {
					return nil, inputErr(rv.Errorf(fmt.Sprintf("requirements.%d", i), err))
				}
			}
		}
		req.Requires = rv.Requirements
		// The sensitivity reruns are most of the advice's time: the first
		// model's answer which figures matter; the others skip them.
		req.NoSensitivity = j > 0
		plan, err := advisor.Prepare(req)
		if err != nil {
			field := "minimize"
			if rv.Maximize {
				field = "maximize"
			}
			return nil, inputErr(rv.Errorf(field, err))
		}
		p.plans = append(p.plans, plan)
	}
	// The advice runs first: they are the longest.
	p.advice = make([]*advisor.Advice, len(p.plans))
	for j, plan := range p.plans {
		p.jobs = append(p.jobs, func(ctx context.Context) error {
			a, err := plan.Run(ctx)
			p.advice[j] = a
			return err
		})
	}
	for _, fig := range reportFigures {
		if fig.plan != nil {
			if err := fig.plan(p); err != nil {
				return nil, fmt.Errorf("figure %s: %w", fig.id, err)
			}
		}
	}
	return p, nil
}

// withScenario adds a review scenario to a workload's flags.
func withScenario(f runFlags, s review.Scenario) runFlags {
	f.scenario = s.Scenario
	if s.Duration != nil {
		f.duration = units.Format(float64(*s.Duration), units.KindDuration)
	}
	f.sets = append(slices.Clone(f.sets), s.Sets()...)
	return f
}

// loaderFor loads a chip with f's flags plus extra overrides.
func loaderFor(f runFlags) advisor.Loader {
	return func(chip string, sets []string) (sim.Config, error) {
		pf := f
		pf.sets = append(slices.Clone(f.sets), sets...)
		return pf.config(chip)
	}
}

// simulate adds a job that runs chip under f, changed by edit (nil for
// none), into dst.
func (p *reviewPlan) simulate(f runFlags, chip string, edit func(*sim.Config), dst *runResult) {
	p.jobs = append(p.jobs, func(ctx context.Context) error {
		cfg, err := f.config(chip)
		if err != nil {
			return err
		}
		if edit != nil {
			edit(&cfg)
		}
		r, err := sim.Run(ctx, cfg)
		if err != nil && !sweep.IsPointError(err) {
			return fmt.Errorf("%s on %s: %w", cfg.Model.ID, chip, err)
		}
		dst.res, dst.err = r, err
		return nil
	})
}

// run does every job on all cores, with a progress bar on a terminal.
func (p *reviewPlan) run(ctx context.Context, stderr io.Writer) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	pool.ForEach(ctx, stderr, "report", len(p.jobs), func(i int) {
		if err := p.jobs[i](ctx); err != nil {
			cancel(err)
		}
	})
	return context.Cause(ctx)
}

// checkRan fails, as input, when no chip ran a model's advised workload:
// a report of nothing but reasons is not a report.
func (p *reviewPlan) checkRan() error {
	for j, a := range p.advice {
		if slices.ContainsFunc(a.Ranking, func(r advisor.Row) bool { return r.Result != nil }) || len(a.Ranking) == 0 {
			continue
		}
		first := a.Ranking[0]
		return inputErr(p.rv.Errorf(fmt.Sprintf("models.%d", j), fmt.Errorf("no chip ran %s; the first, %s: %s", p.workloadName(j, true), first.SoC, first.Err)))
	}
	return nil
}

// bundle lays the report out: what ran, the answers, the requirements,
// the figures, the parameters that matter and every assumption.
func (p *reviewPlan) bundle() (*reports.Bundle, error) {
	b := &reports.Bundle{Title: p.rv.Title, Intro: p.intro()}
	if len(p.rv.Questions) > 0 {
		b.Sections = append(b.Sections, p.answers())
	}
	for j, a := range p.advice {
		s := reports.Section{
			ID:    "requirements-" + slug(p.rv.Models[j].Model),
			Title: "Requirements: " + p.workloadName(j, true),
			Table: reports.RequirementsTable(a),
			Text:  []string{"Each requirement's clauses with the margin on the passing side (negative: by how much it fails), checked on every chip; chips that pass rank first, by the objective."},
		}
		if len(p.rv.Requirements) == 0 {
			s.Text = []string{"The review sets no requirements: the chips rank by the objective alone."}
		}
		b.Sections = append(b.Sections, s)
	}
	for _, fig := range reportFigures {
		secs, err := fig.sections(p)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", fig.id, err)
		}
		b.Sections = append(b.Sections, secs...)
	}
	b.Sections = append(b.Sections, p.assumptionSections()...)
	return b, nil
}

func (p *reviewPlan) intro() []string {
	rv := p.rv
	var models []string
	for _, m := range rv.Models {
		models = append(models, m.Model+" "+m.Quant)
	}
	out := []string{
		fmt.Sprintf("Chips: %s. Models: %s (KV cache %s).", strings.Join(p.chipIDs, ", "), strings.Join(models, ", "), rv.Models[0].KVDtype),
		fmt.Sprintf("Single-prompt workload: prompt %d tokens, generate %d, batch %d; %s fidelity, seed %d.", rv.Prompt, rv.Gen, rv.Batch, rv.Fidelity, rv.Seed),
	}
	if len(rv.Scenarios) > 0 {
		var ss []string
		for _, s := range rv.Scenarios {
			l := s.Label()
			if len(s.Set) > 0 {
				l += " (" + strings.Join(s.Set, ", ") + ")"
			}
			ss = append(ss, l)
		}
		out = append(out, "Scenarios: "+strings.Join(ss, "; ")+".")
	}
	if len(rv.Sets) > 0 {
		out = append(out, "Every run with: "+strings.Join(rv.Sets, ", ")+".")
	}
	out = append(out, fmt.Sprintf("Made by edgetwin report from %s. Every figure's data is in the CSV file of the same name; every parameter the runs used, with its source, is in the assumptions at the end.", rv.File))
	return out
}

// workloadName names model j's advised workload: "llama-3.2-3b Q4_0,
// sustained, 2 min".
func (p *reviewPlan) workloadName(j int, advised bool) string {
	m := p.rv.Models[j]
	s := m.Model + " " + m.Quant
	if advised && len(p.rv.Scenarios) > 0 {
		return s + ", " + p.rv.Scenarios[0].Label()
	}
	return fmt.Sprintf("%s, prompt %d · generate %d", s, p.rv.Prompt, p.rv.Gen)
}

// runName names the first chip's run of the first model under the first
// scenario: "llama-3.2-3b Q4_0 on snapdragon-8-gen3, sustained, 2 min".
func (p *reviewPlan) runName() string {
	m := p.rv.Models[0]
	s := m.Model + " " + m.Quant + " on " + p.chipIDs[0]
	if len(p.rv.Scenarios) > 0 {
		s += ", " + p.rv.Scenarios[0].Label()
	}
	return s
}

// adviceResult is chip i's result in advice a, or nil.
func (p *reviewPlan) adviceResult(a *advisor.Advice, i int) *sim.Result {
	for _, r := range a.Ranking {
		if r.SoC == p.chipIDs[i] {
			return r.Result
		}
	}
	return nil
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// --- compare and Pareto: from the advice -------------------------------------

func compareSections(p *reviewPlan) ([]reports.Section, error) {
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
			ID: "compare-" + slug(p.rv.Models[j].Model), Title: "Chips compared: " + p.workloadName(j, true),
			Figure:  d,
			Caption: "Decode and prefill rates, time to first token and the DRAM bandwidth used, one bar per chip, from the runs the requirements are checked on." + scenarioNote(p),
		})
	}
	return out, nil
}

func scenarioNote(p *reviewPlan) string {
	if len(p.rv.Scenarios) == 0 {
		return ""
	}
	return " Under a scenario the rates total the whole session, throttling included."
}

func paretoSections(p *reviewPlan) ([]reports.Section, error) {
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
			ID: "pareto-" + slug(p.rv.Models[j].Model), Title: "Pareto front: " + p.workloadName(j, true),
			Figure: d, Caption: caption,
		})
	}
	return out, nil
}

// --- roofline ---------------------------------------------------------------

func rooflineSections(p *reviewPlan) ([]reports.Section, error) {
	f := p.single[0]
	cfg, err := f.config(p.rv.Chips[0])
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
	ctxs [][]int         // per model: the context lengths within its maximum
	runs [][][]runResult // [model][chip][k]
}

func planContext(p *reviewPlan) error {
	st := &contextRuns{}
	p.state["context"] = st
	for j, f := range p.single {
		cfg, err := f.config(p.rv.Chips[0])
		if err != nil {
			return err
		}
		var ctxs []int
		for _, c := range p.rv.Contexts {
			if c+contextGen <= cfg.Model.MaxContext {
				ctxs = append(ctxs, c)
			}
		}
		st.ctxs = append(st.ctxs, ctxs)
		st.runs = append(st.runs, make([][]runResult, len(p.rv.Chips)))
		for i, chip := range p.rv.Chips {
			st.runs[j][i] = make([]runResult, len(ctxs))
			for k, c := range ctxs {
				pf := f
				pf.prompt, pf.gen = c, contextGen
				p.simulate(pf, chip, nil, &st.runs[j][i][k])
			}
		}
	}
	return nil
}

func contextSections(p *reviewPlan) ([]reports.Section, error) {
	st := p.state["context"].(*contextRuns)
	d := reports.PlotData{Title: "Decode rate against context length", XLabel: "context (tokens)", XLog: true}
	for j, m := range p.rv.Models {
		panel := reports.Panel{YLabel: m.Model + " " + m.Quant + " (tokens/s)"}
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
	runs    [][]runResult // [policy][k]
}

func planKVPolicy(p *reviewPlan) error {
	f := p.single[0]
	cfg, err := f.config(p.rv.Chips[0])
	if err != nil {
		return err
	}
	st := &kvRuns{}
	p.state["kv-policy"] = st
	perToken := cfg.Model.KVBytesPerToken(cfg.KV) * float64(cfg.Batch)
	for _, kv := range kvSizes {
		st.prompts = append(st.prompts, max(1, int(math.Round(kv/perToken))))
	}
	st.runs = make([][]runResult, len(kvPolicies))
	for pi, pol := range kvPolicies {
		st.runs[pi] = make([]runResult, len(kvSizes))
		for k, prompt := range st.prompts {
			pf := f
			pf.policy, pf.prompt, pf.gen = pol, prompt, kvGen
			p.simulate(pf, p.rv.Chips[0], nil, &st.runs[pi][k])
		}
	}
	return nil
}

func kvPolicySections(p *reviewPlan) ([]reports.Section, error) {
	st := p.state["kv-policy"].(*kvRuns)
	m := p.rv.Models[0]
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
	if cfg, err := p.single[0].config(p.rv.Chips[0]); err == nil {
		l3 = " The L3 holds " + units.Approx(float64(cfg.Chip.Memory.L3.Size), units.KindBytes) + "."
	}
	return []reports.Section{{
		ID: "kv-policy", Title: "L3 miss rate against KV-cache size, per placement policy", Figure: d,
		Caption: fmt.Sprintf("The share of KV-cache reads that miss the L3, and the decode rate, as the context grows (prompts of %d to %d tokens, %d decode steps each), under each built-in placement policy: naive (everything through the L3), stream-weights (weights bypass the L3) and kv-first (the KV cache gets the L3 first).%s",
			st.prompts[0], st.prompts[len(st.prompts)-1], kvGen, l3),
	}}, nil
}

// --- the sustained run over time ---------------------------------------------

func thermalSections(p *reviewPlan) ([]reports.Section, error) {
	if len(p.rv.Scenarios) == 0 || len(p.advice) == 0 {
		return nil, nil
	}
	r := p.adviceResult(p.advice[0], 0)
	if r == nil || r.Series == nil || len(r.Series.Points) == 0 {
		return nil, nil
	}
	d := reports.SeriesPlotData(r.Series, r.Batch, r.Thermal.ThrottleOnsetS, "Over time — "+p.runName())
	onset := "The governor never lowered a clock in this run."
	if o := r.Thermal.ThrottleOnsetS; o != nil {
		onset = fmt.Sprintf("The dashed line marks the throttle onset, %s s in, when the governor first lowered a clock.", reports.FormatValue(*o, 0))
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
	base float64 // the chip's DRAM energy per byte, J
	runs []runResult
}

func planPowerCliff(p *reviewPlan) error {
	if len(p.rv.Scenarios) == 0 {
		return nil
	}
	f := p.advised[0]
	cfg, err := f.config(p.rv.Chips[0])
	if err != nil {
		return err
	}
	st := &cliffRuns{base: float64(cfg.Chip.Memory.DRAM.EnergyPerByte), runs: make([]runResult, len(cliffFactors))}
	if st.base <= 0 {
		return nil
	}
	p.state["power-cliff"] = st
	for k, x := range cliffFactors {
		pf := f
		pf.sets = append(slices.Clone(f.sets), "memory.dram.energy_per_byte="+units.Format(st.base*x, units.KindEnergy))
		p.simulate(pf, p.rv.Chips[0], nil, &st.runs[k])
	}
	return nil
}

func powerCliffSections(p *reviewPlan) ([]reports.Section, error) {
	st, ok := p.state["power-cliff"].(*cliffRuns)
	if !ok {
		return nil, nil
	}
	var pts []reports.CliffPoint
	for _, rr := range st.runs {
		r := rr.res
		if r == nil || r.Series == nil {
			continue
		}
		pt := reports.CliffPoint{
			StartPowerW: reports.StartPower(r.Series, 10),
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
			len(cliffFactors), reports.FormatValue(cliffFactors[0], 0), reports.FormatValue(cliffFactors[len(cliffFactors)-1], 0), units.Approx(st.base, units.KindEnergy)+"/B"),
	}}, nil
}

// --- where the time of a token goes -------------------------------------------

type timeRuns struct {
	full, prefill [][]runResult // [model][chip]
}

func planTimeParts(p *reviewPlan) error {
	st := &timeRuns{}
	p.state["time-per-token"] = st
	for _, f := range p.single {
		if f.gen == 0 {
			return nil
		}
		full, pre := make([]runResult, len(p.rv.Chips)), make([]runResult, len(p.rv.Chips))
		for i, chip := range p.rv.Chips {
			p.simulate(f, chip, nil, &full[i])
			pf := f
			pf.gen = 0
			p.simulate(pf, chip, nil, &pre[i])
		}
		st.full, st.prefill = append(st.full, full), append(st.prefill, pre)
	}
	return nil
}

func timePartsSections(p *reviewPlan) ([]reports.Section, error) {
	st := p.state["time-per-token"].(*timeRuns)
	if len(st.full) == 0 {
		return nil, nil
	}
	d := reports.StackData{Title: fmt.Sprintf("Where the time of a decode step goes — prompt %d · generate %d", p.rv.Prompt, p.rv.Gen), Labels: p.chipIDs}
	for _, tp := range reports.TimeParts {
		d.Parts = append(d.Parts, tp.Name)
	}
	for j, m := range p.rv.Models {
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

// --- answers ---------------------------------------------------------------------

func (p *reviewPlan) answers() reports.Section {
	t := &reports.ReportTable{Header: []string{"question", "for", "answer"}}
	for i := range p.rv.Questions {
		id, text := p.rv.Question(i)
		if id == "" {
			t.Rows = append(t.Rows, []string{text, "—", "Not answered automatically (edgetwin answers the ids " + questionList() + "): read it against the figures and tables of this report."})
			continue
		}
		for j, a := range p.advice {
			t.Rows = append(t.Rows, []string{text, p.workloadName(j, true), p.answer(id, a)})
		}
	}
	return reports.Section{
		ID: "answers", Title: "Answers to the review's questions", Table: t,
		Text: []string{"Questions asked by id are answered from the runs below, per model; others are listed for the review to answer from the figures and tables."},
	}
}

// answer answers the question id from advice a.
func (p *reviewPlan) answer(id string, a *advisor.Advice) string {
	switch id {
	case "best-chip":
		return bestChip(a)
	case "requirements":
		var pass []string
		for _, r := range a.Ranking {
			if r.Pass {
				pass = append(pass, r.SoC)
			}
		}
		verb := "meet"
		if len(pass) == 1 {
			verb = "meets"
		}
		s := fmt.Sprintf("%d of %d chips %s every requirement", len(pass), len(a.Ranking), verb)
		if len(pass) > 0 {
			s += ": " + strings.Join(pass, ", ")
		}
		return s + ". Margins are in the requirements table."
	case "bottleneck":
		var ds []string
		for _, r := range a.Ranking {
			ds = append(ds, r.SoC+": "+r.Diagnosis+".")
		}
		return strings.Join(ds, " ")
	case "throttle":
		return p.throttleAnswer(a)
	case "vendor-questions":
		if a != p.advice[0] {
			return "Asked for the first model only: the sensitivity reruns behind the questions run for it alone, to keep the report quick."
		}
		var qs []string
		for k, q := range a.VendorQuestions {
			qs = append(qs, fmt.Sprintf("%d. %s (measure: %s)", k+1, q.Question, q.Measurement))
		}
		if len(qs) == 0 {
			return "None: no assumed figure moves the ranking much."
		}
		return strings.Join(qs, " ")
	}
	panic("report: no answer for question id " + id)
}

func bestChip(a *advisor.Advice) string {
	if len(a.Ranking) == 0 {
		return "No chip ran."
	}
	top := a.Ranking[0]
	obj := a.Objective.Expr + " " + objectiveText(top.Objective)
	if top.Pass {
		return fmt.Sprintf("%s: of the chips that meet every requirement, it has %s (%s).", top.SoC, objectiveWord(a), obj)
	}
	return fmt.Sprintf("None meets every requirement; the closest is %s, which fails: %s.", top.SoC, top.Reason)
}

func objectiveWord(a *advisor.Advice) string {
	if a.Objective.Maximize {
		return "the highest " + a.Objective.Expr
	}
	return "the lowest " + a.Objective.Expr
}

func objectiveText(v *float64) string {
	if v == nil {
		return "has no figure"
	}
	return "= " + reports.FormatValue(*v, 0)
}

func (p *reviewPlan) throttleAnswer(a *advisor.Advice) string {
	if len(p.rv.Scenarios) == 0 {
		return "The review runs no scenario, so nothing runs long enough to heat up; add {scenario: sustained, duration: 2m}."
	}
	var out []string
	for i, chip := range p.chipIDs {
		r := p.adviceResult(a, i)
		if r == nil {
			continue
		}
		th := r.Thermal
		if th.ThrottleOnsetS == nil {
			out = append(out, chip+" does not throttle")
			continue
		}
		s := fmt.Sprintf("%s throttles after %.0f s", chip, *th.ThrottleOnsetS)
		if f, l := r.Decode.First10sTokensPerS, th.SustainedTokensPerS; f != nil && l != nil && *f > 0 {
			s += fmt.Sprintf(", decode falling from %.1f to %.1f tokens/s (%+.0f%%)", *f, *l, 100*(*l / *f - 1))
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "No chip ran."
	}
	return strings.Join(out, "; ") + "."
}

// --- assumptions --------------------------------------------------------------------

func (p *reviewPlan) assumptionSections() []reports.Section {
	var results []*sim.Result
	for _, a := range p.advice {
		for i := range p.chipIDs {
			results = append(results, p.adviceResult(a, i))
		}
	}
	all := reports.Assumptions(results)
	var out []reports.Section
	if len(p.advice) > 0 {
		t := reports.ParametersThatMatter(p.advice[0])
		if len(t.Rows) > 0 {
			out = append(out, reports.Section{
				ID: "parameters", Title: "Parameters that matter",
				Text:  []string{"How much decode tokens/s and TTFT move with each uncertain parameter (elasticity: the relative change of the result over the relative change of the parameter, from a rerun with the parameter changed), for " + p.workloadName(0, true) + ", largest first. An assumed figure with a large elasticity is a question for the vendor."},
				Table: t,
			})
		}
	}
	out = append(out, reports.Section{
		ID: "assumptions", Title: "Assumptions",
		Text:    []string{"Every parameter the runs used, by its source: cited (a datasheet or paper), calibrated (measured), derived (computed from others), assumed (a documented default; see docs/defaults.md), set (an override in the review), file (a user's file). The counts per chip, model and scenario are below; every value with its source is in the folded table and in assumptions-details.csv."},
		Table:   reports.AssumptionCounts(all),
		Details: all,
	})
	return out
}
