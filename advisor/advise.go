package advisor

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/edgetwin/edgetwin/hw/spec"
	hwspec "github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/sim"
)

// Loader loads the simulation config of one chip with the command's flags
// plus extra PATH=VALUE overrides (chip paths unprefixed, model paths as
// model.PATH), as --set reads them. Every config it returns is the
// caller's own: runs share nothing.
type Loader func(chip string, sets []string) (sim.Config, error)

// Request is what to advise on.
type Request struct {
	// Candidates are chip references (catalog ids or files), in order.
	Candidates []string
	// Requires are --require expressions; a chip passes when all hold.
	Requires []string
	// Objective is the --minimize or --maximize expression; "" is
	// DefaultObjective, maximised.
	Objective string
	Maximize  bool
	// WhatIf reruns the ranking with changed figures.
	WhatIf []WhatIf
	Load   Loader
	// Workers bounds the parallel runs; 0 is runtime.GOMAXPROCS(0).
	Workers int
	// NoSensitivity skips the sensitivity reruns (about eight per chip):
	// no elasticities, no vendor questions, and diagnoses without the
	// what-a-faster-chip-gives clause.
	NoSensitivity bool
	// Series, when set, receives the time series of the first candidate's
	// run (a review draws it); the other runs keep none.
	Series sim.SeriesSink
	// Prefills, when set, shares the runs' first prefills with runs
	// outside the advice (a review's own); nil: the advice's runs share
	// theirs among themselves.
	Prefills *sim.FirstPrefills
}

// DefaultObjective is what a request without an objective maximises.
const DefaultObjective = "decode.tokens_per_s"

// WhatIf is one --what-if override: a --set PATH=VALUE, for every
// candidate or for one (Chip).
type WhatIf struct {
	Chip string // "" for every candidate
	Set  string // PATH=VALUE
}

// String writes the what-if as given: [CHIP:]PATH=VALUE.
func (w WhatIf) String() string {
	if w.Chip == "" {
		return w.Set
	}
	return w.Chip + ":" + w.Set
}

// ParseWhatIf reads a --what-if value: PATH=VALUE, or CHIP:PATH=VALUE for
// one candidate.
func ParseWhatIf(s string) (WhatIf, error) {
	lhs, value, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(lhs) == "" || strings.TrimSpace(value) == "" {
		return WhatIf{}, spec.FieldErrorf("what_if", "%q is not PATH=VALUE or CHIP:PATH=VALUE (e.g. memory.dram.bandwidth=80GB/s, seed-c:units.npu.peak.int8=40TOPS)", s)
	}
	w := WhatIf{Set: strings.TrimSpace(lhs) + "=" + strings.TrimSpace(value)}
	if chip, path, ok := strings.Cut(lhs, ":"); ok {
		chip, path = strings.TrimSpace(chip), strings.TrimSpace(path)
		if chip == "" || path == "" {
			return WhatIf{}, spec.FieldErrorf("what_if", "%q: CHIP:PATH=VALUE needs both a chip and a path", s)
		}
		w = WhatIf{Chip: chip, Set: path + "=" + strings.TrimSpace(value)}
	}
	return w, nil
}

// Plan is a checked request: every candidate loads, every expression
// compiles. Run it for the advice.
type Plan struct {
	req        Request
	env        *Env
	requires   []*Requirement
	objective  *Expr
	cfgs       []sim.Config     // the candidates' baseline configs
	whatIfCfgs []sim.Config     // nil without --what-if
	specs      []map[string]any // the candidates' spec trees
	whatSpecs  []map[string]any
	template   map[string]any
}

// Prepare loads every candidate, with and without the what-ifs, and
// compiles the expressions against their keys. Every error it returns is
// the user's input.
func Prepare(req Request) (*Plan, error) {
	if len(req.Candidates) == 0 {
		return nil, spec.FieldErrorf("candidates", "is empty: give chip ids or files, or leave it out for the whole catalog")
	}
	if req.Load == nil {
		return nil, errors.New("advisor: no loader")
	}
	p := &Plan{req: req, template: resultTemplate()}
	kinds := map[string]units.Kind{}
	for _, ref := range req.Candidates {
		cfg, err := req.Load(ref, nil)
		if err != nil {
			return nil, wrapChip(ref, err)
		}
		p.cfgs = append(p.cfgs, cfg)
		p.specs = append(p.specs, specTree(cfg.Chip, kinds))
	}
	for _, w := range req.WhatIf {
		if w.Chip != "" && !slices.Contains(req.Candidates, w.Chip) {
			return nil, spec.FieldErrorf("what_if", "%s: %s is not a candidate; candidates: %s", w, w.Chip, strings.Join(req.Candidates, ", "))
		}
	}
	if len(req.WhatIf) > 0 {
		for _, ref := range req.Candidates {
			cfg, err := req.Load(ref, p.whatIfSets(ref))
			if err != nil {
				return nil, fieldWrap("what_if", "on "+ref, err)
			}
			p.whatIfCfgs = append(p.whatIfCfgs, cfg)
			p.whatSpecs = append(p.whatSpecs, specTree(cfg.Chip, kinds))
		}
	}
	p.env = newEnv(append(slices.Clone(p.specs), p.whatSpecs...), kinds)
	for _, text := range req.Requires {
		r, err := p.env.compileRequirement(text)
		if err != nil {
			return nil, err
		}
		p.requires = append(p.requires, r)
	}
	field, text := "maximize", req.Objective
	if !req.Maximize {
		field = "minimize"
	}
	if text == "" {
		field, text, p.req.Maximize = "maximize", DefaultObjective, true
	}
	obj, err := p.env.compileObjective(field, text)
	if err != nil {
		return nil, err
	}
	p.objective = obj
	return p, nil
}

// wrapChip names the chip in a load error unless the error does; a chip
// that is no catalog id nor file is one of the candidates.
func wrapChip(ref string, err error) error {
	if re := spec.Refield(err, "soc", "candidates"); re != err {
		return re
	}
	if strings.Contains(err.Error(), ref) {
		return err
	}
	return fieldWrap("candidates", ref, err)
}

// fieldWrap is err, from loading what the setting field gives (a chip,
// "on" a chip), as an error in that setting when it is the user's input.
func fieldWrap(field, what string, err error) error {
	if !spec.IsUserInput(err) {
		return fmt.Errorf("%s %s: %w", field, what, err)
	}
	return spec.FieldErrorf(field, "%s: %s", what, spec.Bare(err))
}

// whatIfSets are the what-if overrides that apply to chip ref.
func (p *Plan) whatIfSets(ref string) []string {
	var sets []string
	for _, w := range p.req.WhatIf {
		if w.Chip == "" || w.Chip == ref {
			sets = append(sets, w.Set)
		}
	}
	return sets
}

// Env is the plan's expression environment.
func (p *Plan) Env() *Env { return p.env }

// job is one simulation of the advice: a candidate's baseline, its run
// under the what-ifs, or one of its sensitivity reruns.
type job struct {
	cfg sim.Config
	res *sim.Result
	err error // the run's input error (the model does not fit)
}

// run simulates the job. The run's input error (the model does not fit)
// stays with the job; any other error is returned.
func (j *job) run(ctx context.Context) error {
	r, err := sim.Run(ctx, j.cfg)
	var ie *spec.Error
	switch {
	case err == nil:
		j.res = r
	case errors.As(err, &ie):
		j.err = err
	default:
		return err
	}
	return nil
}

// Run simulates every candidate (in parallel, results by index, so the
// advice does not depend on the parallelism), then its sensitivity reruns,
// and ranks, diagnoses and questions the results. An error is not the
// user's input (those are the chips' own: they keep their rows).
func (p *Plan) Run(ctx context.Context) (*Advice, error) {
	n := len(p.cfgs)
	jobs := make([]job, 0, 2*n)
	// The reruns change one figure of a chip: most leave its first
	// prefill's L3 lookups as the baseline's, which they share.
	prefills := p.req.Prefills
	if prefills == nil {
		prefills = new(sim.FirstPrefills)
	}
	for i, c := range p.cfgs {
		if i == 0 {
			c.Series = p.req.Series
		}
		c.Prefills = prefills
		jobs = append(jobs, job{cfg: c})
	}
	for _, c := range p.whatIfCfgs {
		c.Prefills = prefills
		jobs = append(jobs, job{cfg: c})
	}
	if err := p.runAll(ctx, jobs); err != nil {
		return nil, err
	}
	base := jobs[:n]
	var what []job
	if len(p.whatIfCfgs) > 0 {
		what = jobs[n:]
	}

	// Sensitivity: every candidate that ran, every parameter it has.
	var sens []job
	var owners []sensOwner
	for i, j := range base {
		if j.res == nil || p.req.NoSensitivity {
			continue
		}
		for _, prm := range parameters(p.specs[i], j.res, p.cfgs[i].Chip, p.heatMatters(j.res)) {
			sets := prm.sets(p.specs[i], p.env)
			cfg, err := p.req.Load(p.req.Candidates[i], sets)
			if err != nil {
				owners = append(owners, sensOwner{chip: i, param: prm, loadErr: err})
				continue
			}
			cfg.Unit = j.res.Unit // the same unit, so that a faster peak elsewhere does not move the work
			cfg.Prefills = prefills
			owners = append(owners, sensOwner{chip: i, param: prm, job: len(sens)})
			sens = append(sens, job{cfg: cfg})
		}
	}
	if err := p.runAll(ctx, sens); err != nil {
		return nil, err
	}

	a := &Advice{
		Model: p.cfgs[0].Model.ID, Quant: p.cfgs[0].Quant.String(), KVDtype: p.cfgs[0].KV.String(),
		Fidelity: string(p.cfgs[0].Fidelity), Prompt: p.cfgs[0].Prompt, Gen: p.cfgs[0].Gen, Batch: p.cfgs[0].Batch,
		Objective: Objective{Expr: p.objective.Text, Maximize: p.req.Maximize, Default: p.req.Objective == ""},
		Kinds:     p.env.kinds,
	}
	for _, r := range p.requires {
		ra := RequirementText{Expr: r.Text}
		for _, c := range r.Clauses {
			ra.Clauses = append(ra.Clauses, c.Text)
		}
		a.Requirements = append(a.Requirements, ra)
	}
	rows := make([]Row, n)
	for i := range base {
		rows[i] = p.row(i, base[i], p.specs[i])
	}
	for _, o := range owners {
		e := o.param.elasticity(p.cfgs[o.chip].Chip.Provenance, p.env)
		if o.loadErr != nil {
			e.Err = hwspec.OneLine(o.loadErr.Error())
		} else {
			s := sens[o.job]
			if s.err != nil {
				e.Err = hwspec.OneLine(s.err.Error())
			} else {
				e.effects(base[o.chip].res, s.res, p.decisionMetrics(), ambientOf(p.cfgs[o.chip]))
			}
		}
		rows[o.chip].Sensitivity = append(rows[o.chip].Sensitivity, e)
	}
	for i := range rows {
		rows[i].Diagnosis = diagnose(base[i].res, base[i].err, rows[i].Sensitivity)
	}
	a.Ranking = p.rank(rows, p.specs)
	a.Pareto = pareto(a.Ranking)
	a.VendorQuestions = vendorQuestions(a.Ranking, p.specs, p.req.Candidates)
	if what != nil {
		wrows := make([]Row, n)
		for i := range what {
			wrows[i] = p.row(i, what[i], p.whatSpecs[i])
			wrows[i].Diagnosis = diagnose(what[i].res, what[i].err, nil)
		}
		ranked := p.rank(wrows, p.whatSpecs)
		for k := range ranked {
			for _, b := range a.Ranking {
				if b.SoC == ranked[k].SoC {
					ranked[k].BaselineRank = b.Rank
					if b.Objective != nil && ranked[k].Objective != nil {
						d := *ranked[k].Objective - *b.Objective
						ranked[k].ObjectiveChange = &d
					}
				}
			}
		}
		a.WhatIf = &WhatIfAdvice{Ranking: ranked}
		for _, w := range p.req.WhatIf {
			a.WhatIf.Sets = append(a.WhatIf.Sets, w.String())
		}
	}
	return a, nil
}

// decisionMetrics are the result keys the requirements and the objective
// read, in order: the sensitivity reruns report their response too.
func (p *Plan) decisionMetrics() []string {
	var out []string
	add := func(refs []string) {
		for _, r := range refs {
			if !strings.HasPrefix(r, chipKey+".") && !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	for _, r := range p.requires {
		add(r.Refs)
	}
	add(p.objective.Refs)
	return out
}

// heatLongRun is how long, in seconds, a run must last for heat to matter
// when it did not throttle: a phone's skin takes minutes to warm.
const heatLongRun = 60.0

// heatMatters reports whether the decision can hinge on thermal figures:
// the run throttled or gives a sustained rate, or it lasted a minute or
// more and the requirements or the objective read a thermal metric. A
// prompt of a few seconds warms nothing a thermal figure would change.
func (p *Plan) heatMatters(r *sim.Result) bool {
	if r.Thermal.ThrottleOnsetS != nil || r.Thermal.SustainedTokensPerS != nil {
		return true
	}
	return r.Time.Total >= heatLongRun &&
		slices.ContainsFunc(p.decisionMetrics(), func(m string) bool { return strings.HasPrefix(m, "thermal.") })
}

// ambientOf is the chip's ambient temperature, °C (0 without a network).
func ambientOf(c sim.Config) float64 {
	if c.Chip.Thermal == nil {
		return 0
	}
	return float64(c.Chip.Thermal.Ambient)
}

type sensOwner struct {
	chip    int
	param   param
	job     int
	loadErr error
}

// runAll runs the jobs on the plan's workers. A job's input error (the
// model does not fit) stays with the job; any other error stops the runs.
func (p *Plan) runAll(ctx context.Context, jobs []job) error {
	if len(jobs) == 0 {
		return nil
	}
	workers := p.req.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for i := range next {
				if err := jobs[i].run(ctx); err != nil {
					cancel(fmt.Errorf("%s: %w", jobs[i].cfg.Chip.ID, err))
				}
			}
		})
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// row checks one candidate's run against the requirements and evaluates
// the objective.
func (p *Plan) row(i int, j job, spec map[string]any) Row {
	cfg := j.cfg
	r := Row{SoC: cfg.Chip.ID, Name: cfg.Chip.Name, PriceUSD: cfg.Chip.PriceUSD, Result: j.res, index: i}
	var tree map[string]any
	if j.res != nil {
		var err error
		if tree, err = resultTree(j.res); err != nil {
			tree = nullTree(p.template, cfg.Chip.ID, cfg.Model.ID, cfg.Quant.String())
		}
	} else {
		tree = nullTree(p.template, cfg.Chip.ID, cfg.Model.ID, cfg.Quant.String())
		r.Err = hwspec.OneLine(j.err.Error())
	}
	e := env(tree, spec)
	r.env = e
	r.Pass = j.res != nil
	for _, req := range p.requires {
		c := checkRequirement(req, e, cfg.Chip.ID, r.Err)
		if !c.Pass {
			r.Pass = false
			r.Failed++
		}
		r.Checks = append(r.Checks, c)
	}
	if ns := nulls(p.objective.Refs, e); len(ns) > 0 {
		r.ObjectiveNote = nullReason(ns[0], cfg.Chip.ID, r.Err)
	} else if v, err := runFloat(p.objective.prog, e); err != nil {
		r.ObjectiveNote = "the objective " + err.Error()
	} else {
		r.Objective = &v
	}
	switch {
	case r.Err != "":
		r.Reason = r.Err
	case !r.Pass:
		var parts []string
		for _, c := range r.Checks {
			if !c.Pass {
				parts = append(parts, c.failure())
			}
		}
		r.Reason = strings.Join(parts, "; ")
	}
	return r
}

// checkRequirement evaluates a requirement and each of its clauses on one
// chip's environment.
func checkRequirement(req *Requirement, e map[string]any, chip, runErr string) Check {
	c := Check{Requirement: req.Text}
	if ns := nulls(req.Refs, e); len(ns) > 0 {
		c.Reason = nullReason(ns[0], chip, runErr)
	} else if ok, err := runBool(req.prog, e); err != nil {
		c.Reason = "cannot be evaluated: " + err.Error()
	} else {
		c.Pass = ok
	}
	for _, cl := range req.Clauses {
		cc := ClauseCheck{Expr: cl.Text, Key: cl.Key}
		if ns := nulls(cl.Refs, e); len(ns) > 0 {
			cc.Reason = nullReason(ns[0], chip, runErr)
			c.Clauses = append(c.Clauses, cc)
			continue
		}
		ok, err := runBool(cl.prog, e)
		if err != nil {
			cc.Reason = "cannot be evaluated: " + err.Error()
		}
		cc.Pass = ok
		if cl.left != nil {
			l, err1 := runFloat(cl.left, e)
			r, err2 := runFloat(cl.right, e)
			if err1 == nil && err2 == nil {
				m := r - l
				if cl.Op == ">" || cl.Op == ">=" {
					m = l - r
				}
				cc.Margin = &m
			}
		}
		c.Clauses = append(c.Clauses, cc)
	}
	return c
}

// failure says in one phrase why a requirement failed.
func (c Check) failure() string {
	if c.Reason != "" {
		return c.Requirement + ": " + c.Reason
	}
	var failed []string
	for _, cl := range c.Clauses {
		if !cl.Pass {
			failed = append(failed, cl.Expr)
		}
	}
	switch {
	case len(failed) == 0 || len(c.Clauses) == 1:
		return c.Requirement + " is false"
	case len(failed) == 1:
		return failed[0] + " is false"
	}
	return strings.Join(failed, " and ") + " are false"
}

// nullReason says why a path has no value for a chip.
func nullReason(path, chip, runErr string) string {
	head := fmt.Sprintf("requires %s, which is null for %s", path, chip)
	switch {
	case strings.HasPrefix(path, chipKey+"."):
		return fmt.Sprintf("requires %s, which %s's spec does not have", path, chip)
	case runErr != "":
		return head + ": the chip did not run"
	case path == "thermal.sustained_tokens_per_s":
		return head + ": not modelled for this run (a sustained rate needs a run of 2 minutes or more)"
	case path == "thermal.throttle_onset_s":
		return head + ": the governor lowered no clock in this run"
	case strings.HasPrefix(path, "thermal."):
		return head + ": not modelled (the thermal model gives no figure for this run)"
	}
	return head + ": the run gives no figure for it"
}
