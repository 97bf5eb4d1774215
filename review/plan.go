package review

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/advisor"
	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/internal/pool"
	"github.com/edgetwin/edgetwin/reports"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/sweep"
)

// Plan is a checked review with every run its report needs, ready to run:
// the advice per model (requirements, ranking, sensitivities) and each
// figure's own runs.
type Plan struct {
	file    *File
	chipIDs []string   // the chips' ids as results name them
	chips   []*hw.Chip // the chips as the first model's advised runs load them
	single  []run      // per model: the single-prompt workload
	// advised are the runs the requirements are checked on: per model,
	// under the first scenario, or the single prompt without one.
	advised []run
	plans   []*advisor.Plan
	advice  []*advisor.Advice
	// overTime is the first chip's advised run of the first model over
	// time, as the thermal figure draws it (nil without a scenario).
	overTime *reports.SeriesPlot
	jobs     []job
	// prefills are shared by every run of the review, the advice's too:
	// the same chip and model's first prefill recurs (sim.FirstPrefills).
	prefills *sim.FirstPrefills
	// figures keep their own runs (see figures).
	state map[string]any
}

// job is one unit of a review's work.
type job func(ctx context.Context) error

// outcome is one simulation of a review: its result, or the input error
// that kept it from running (the model does not fit).
type outcome struct {
	res *sim.Result
	err error
	// series, when set, receives the run's time series.
	series sim.SeriesSink
}

// Prepare loads every chip and model of the review, compiles its
// requirements and objective, and lists the runs. Every error it returns
// is the review file's, located in it (hw/spec's error).
func Prepare(f *File) (*Plan, error) {
	p := &Plan{file: f, state: map[string]any{}, prefills: new(sim.FirstPrefills)}
	for _, m := range f.Models {
		r := run{model: m.Model, quant: m.Quant, kv: m.KVDtype, fidelity: f.Fidelity, prompt: f.Prompt, gen: f.Gen, batch: f.Batch, seed: f.Seed, sets: slices.Clone(f.Sets)}
		p.single = append(p.single, r)
		if len(f.Scenarios) > 0 {
			r = r.withScenario(f.Scenarios[0])
		}
		p.advised = append(p.advised, r)
	}
	// Every chip loads with the first model, and every model on the first
	// chip; an error goes to the entry that caused it: the chip, the model,
	// or the set: entry a chip or model refused.
	for i, c := range f.Chips {
		cfg, err := p.advised[0].config(c)
		if err != nil {
			return nil, f.locate(fmt.Sprintf("chips.%d", i), "models.0", err)
		}
		p.chipIDs = append(p.chipIDs, cfg.Chip.ID)
		p.chips = append(p.chips, cfg.Chip)
	}
	for j := range f.Models {
		if _, err := p.advised[j].config(f.Chips[0]); err != nil {
			return nil, f.locate("chips.0", fmt.Sprintf("models.%d", j), err)
		}
	}
	for j, r := range p.advised {
		req := advisor.Request{Candidates: f.Chips, Load: r.loader(), Workers: 1, Objective: f.Objective, Maximize: f.Maximize, Prefills: p.prefills}
		if j == 0 {
			// The requirements, one by one, so an error names its line.
			plain := req
			plain.Objective, plain.Maximize = "", false
			plan, err := advisor.Prepare(plain)
			if err != nil {
				return nil, f.Errorf("chips", err)
			}
			for i, text := range f.Requirements {
				if err := plan.Env().CheckRequirement(text); err != nil {
					return nil, f.Errorf(fmt.Sprintf("requirements.%d", i), err)
				}
			}
		}
		req.Requires = f.Requirements
		// The sensitivity reruns are most of the advice's time: the first
		// model's answer which figures matter; the others skip them.
		req.NoSensitivity = j > 0
		if j == 0 && len(f.Scenarios) > 0 {
			p.overTime = reports.NewSeriesPlot()
			req.Series = p.overTime
		}
		plan, err := advisor.Prepare(req)
		if err != nil {
			field := "minimize"
			if f.Maximize {
				field = "maximize"
			}
			return nil, f.Errorf(field, err)
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
	for _, fig := range figures {
		if fig.plan != nil {
			if err := fig.plan(p); err != nil {
				return nil, f.Errorf("chips.0", fmt.Errorf("figure %s: %w", fig.id, err))
			}
		}
	}
	return p, nil
}

// Run does every job on all cores (internal/pool, with a progress bar on
// progress when it is a terminal) and lays the report out as a bundle:
// what ran, the answers, the requirements, the figures, the parameters
// that matter and every assumption. A model that no chip ran is the
// review file's error, located at the model.
func (p *Plan) Run(ctx context.Context, progress io.Writer) (*reports.Bundle, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	pool.ForEach(ctx, progress, "report", len(p.jobs), func(i int) {
		if err := p.jobs[i](ctx); err != nil {
			cancel(err)
		}
	})
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	if err := p.checkRan(); err != nil {
		return nil, err
	}
	return p.bundle()
}

// simulate adds a job that runs r on chip i of the review into dst.
func (p *Plan) simulate(r run, i int, dst *outcome) {
	chip := p.file.Chips[i]
	p.jobs = append(p.jobs, func(ctx context.Context) error {
		cfg, err := r.config(chip)
		if err != nil {
			return p.file.Errorf(fmt.Sprintf("chips.%d", i), err)
		}
		cfg.Series, cfg.Prefills = dst.series, p.prefills
		res, err := sim.Run(ctx, cfg)
		if err != nil && !sweep.IsPointError(err) {
			return fmt.Errorf("%s on %s: %w", cfg.Model.ID, chip, err)
		}
		dst.res, dst.err = res, err
		return nil
	})
}

// checkRan fails, as input, when no chip ran a model's advised workload:
// a report of nothing but reasons is not a report.
func (p *Plan) checkRan() error {
	for j, a := range p.advice {
		if slices.ContainsFunc(a.Ranking, func(r advisor.Row) bool { return r.Result != nil }) || len(a.Ranking) == 0 {
			continue
		}
		first := a.Ranking[0]
		return p.file.Errorf(fmt.Sprintf("models.%d", j), fmt.Errorf("no chip ran %s; the first, %s: %s", p.workloadName(j, true), first.SoC, first.Err))
	}
	return nil
}

// bundle lays the report out.
func (p *Plan) bundle() (*reports.Bundle, error) {
	b := &reports.Bundle{Title: p.file.Title, Intro: p.intro()}
	if len(p.file.Questions) > 0 {
		b.Sections = append(b.Sections, p.answers())
	}
	for j, a := range p.advice {
		s := reports.Section{
			ID:    "requirements-" + slug(p.file.Models[j].Model),
			Title: "Requirements: " + p.workloadName(j, true),
			Table: reports.RequirementsTable(a),
			Text:  []string{"Each requirement's clauses with the margin on the passing side (negative: by how much it fails), checked on every chip; chips that pass rank first, by the objective."},
		}
		if len(p.file.Requirements) == 0 {
			s.Text = []string{"The review sets no requirements: the chips rank by the objective alone."}
		}
		b.Sections = append(b.Sections, s)
	}
	for _, fig := range figures {
		secs, err := fig.sections(p)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", fig.id, err)
		}
		b.Sections = append(b.Sections, secs...)
	}
	b.Sections = append(b.Sections, p.assumptionSections()...)
	return b, nil
}

func (p *Plan) intro() []string {
	f := p.file
	var models []string
	for _, m := range f.Models {
		models = append(models, m.Model+" "+m.Quant)
	}
	out := []string{
		fmt.Sprintf("Chips: %s. Models: %s (KV cache %s).", strings.Join(p.chipIDs, ", "), strings.Join(models, ", "), f.Models[0].KVDtype),
		fmt.Sprintf("Single-prompt workload: prompt %d tokens, generate %d, batch %d; %s fidelity, seed %d.", f.Prompt, f.Gen, f.Batch, f.Fidelity, f.Seed),
	}
	if len(f.Scenarios) > 0 {
		var ss []string
		for _, s := range f.Scenarios {
			ss = append(ss, s.labelWithSets())
		}
		out = append(out, "Scenarios: "+strings.Join(ss, "; ")+".")
	}
	if len(f.Sets) > 0 {
		out = append(out, "Every run with: "+strings.Join(f.Sets, ", ")+".")
	}
	out = append(out, fmt.Sprintf("Made by edgetwin report from %s. Every figure's data is in the CSV file of the same name; every parameter the runs used, with its source, is in the assumptions at the end.", f.File))
	return out
}

// labelWithSets is the scenario's label with its overrides: "chat-30
// (turns=10)".
func (s Scenario) labelWithSets() string {
	if len(s.Set) == 0 {
		return s.Label()
	}
	return s.Label() + " (" + strings.Join(s.Set, ", ") + ")"
}

// workloadName names model j's advised workload: "llama-3.2-3b Q4_0,
// sustained, 2 min".
func (p *Plan) workloadName(j int, advised bool) string {
	m := p.file.Models[j]
	s := m.Model + " " + m.Quant
	if advised && len(p.file.Scenarios) > 0 {
		return s + ", " + p.file.Scenarios[0].Label()
	}
	return fmt.Sprintf("%s, prompt %d · generate %d", s, p.file.Prompt, p.file.Gen)
}

// runName names the first chip's run of the first model under the first
// scenario: "llama-3.2-3b Q4_0 on snapdragon-8-gen3, sustained, 2 min".
func (p *Plan) runName() string {
	m := p.file.Models[0]
	s := m.Model + " " + m.Quant + " on " + p.chipIDs[0]
	if len(p.file.Scenarios) > 0 {
		s += ", " + p.file.Scenarios[0].Label()
	}
	return s
}

// adviceResult is chip i's result in advice a, or nil.
func (p *Plan) adviceResult(a *advisor.Advice, i int) *sim.Result {
	for _, r := range a.Ranking {
		if r.SoC == p.chipIDs[i] {
			return r.Result
		}
	}
	return nil
}

// slug makes a section id of a name: "llama-3.2-3b" → "llama-3-2-3b".
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

// assumptionSections are the parameters that matter (the first model's
// sensitivities) and every parameter the advised runs used.
func (p *Plan) assumptionSections() []reports.Section {
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
