package advisor

import (
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/sim"
)

// Advice is what `edgetwin advise chip` found.
type Advice struct {
	// The workload every candidate ran.
	Model, Quant, KVDtype, Fidelity string
	Prompt, Gen, Batch              int

	Objective    Objective
	Requirements []RequirementText
	// Ranking lists every candidate in rank order: passing chips by the
	// objective (ties broken by spec dominance), then failing ones by the
	// number of requirements they fail, then by the objective.
	Ranking []Row
	Pareto  Pareto
	// VendorQuestions are the assumed parameters the decision hinges on,
	// deduplicated across chips, most influential first.
	VendorQuestions []Question
	// WhatIf is the ranking again with the --what-if figures; nil without.
	WhatIf *WhatIfAdvice
	// Kinds are the quantity kinds of the chip spec's paths
	// (chip.memory.dram.bandwidth is a byte rate), for printing margins.
	Kinds map[string]units.Kind
}

// Objective is what the ranking orders passing chips by.
type Objective struct {
	Expr     string
	Maximize bool
	Default  bool // no --minimize or --maximize was given
}

// RequirementText is a --require expression and its top-level && clauses.
type RequirementText struct {
	Expr    string
	Clauses []string
}

// Row is one candidate.
type Row struct {
	Rank     int
	SoC      string // the chip's id, or its file's path
	Name     string // the chip's name
	PriceUSD float64
	// Pass is true when the chip ran and meets every requirement.
	Pass bool
	// Failed counts the requirements it does not meet.
	Failed int
	// Reason says why it does not pass: the run's error (the model does
	// not fit), or the failed requirements.
	Reason string
	// Err is the run's error when the chip did not run.
	Err       string
	Objective *float64
	// ObjectiveNote says why Objective is nil.
	ObjectiveNote string
	Checks        []Check
	Diagnosis     string
	Sensitivity   []Elasticity
	Result        *sim.Result // nil when the chip did not run
	// BaselineRank and ObjectiveChange compare a what-if row with the
	// baseline ranking.
	BaselineRank    int
	ObjectiveChange *float64

	index int
	env   map[string]any
}

// Check is one requirement on one chip.
type Check struct {
	Requirement string
	Pass        bool
	// Reason says why it fails when it is not simply false: a null metric,
	// an evaluation error.
	Reason  string
	Clauses []ClauseCheck
}

// ClauseCheck is one top-level && clause of a requirement on one chip.
type ClauseCheck struct {
	Expr string
	Pass bool
	// Margin is how far the compared value is on the passing side (b − a
	// for a < b, a − b for a > b), in the unit of Key; negative when the
	// clause fails. Nil when the clause is not a comparison of numbers or
	// reads a null metric.
	Margin *float64
	Key    string
	Reason string
}

// Elasticity is how a candidate's key metrics move with one parameter,
// from one rerun with the parameter changed by Step (0.2 is +20%).
type Elasticity struct {
	Param   string // the --set path: memory.dram.bandwidth
	Label   string // for people: "DRAM bandwidth"
	Value   float64
	Kind    units.Kind
	Step    float64
	Source  string // the figure's provenance
	Assumed bool   // the source is an assumption
	Effects []Effect
	Err     string // why the rerun did not happen or run
}

// Effect is one metric's response to a parameter change.
type Effect struct {
	Metric     string
	Base, New  *float64
	Change     *float64 // New/Base − 1
	Elasticity *float64 // Change / Step
}

// Effect returns the effect on metric, or nil.
func (e Elasticity) Effect(metric string) *Effect {
	for i := range e.Effects {
		if e.Effects[i].Metric == metric {
			return &e.Effects[i]
		}
	}
	return nil
}

// Pareto is the front of price against decode tokens/s.
type Pareto struct {
	CostKey  string // chip.price_usd
	ValueKey string // decode.tokens_per_s
	Note     string
	Points   []ParetoPoint // every chip with a price and a rate, by price
	Left     []string      // chips left out, with why
}

// ParetoPoint is one chip on the price/throughput plane.
type ParetoPoint struct {
	SoC     string
	Cost    float64
	Value   float64
	Pass    bool
	OnFront bool // on the front of the chips that pass: none cheaper is faster
}

// Question is one question for chip vendors: a parameter the decision
// hinges on that is only assumed, and the measurement that settles it.
type Question struct {
	Question    string // "What is ...?"
	Measurement string // what to measure
	Param       string // the parameter, with * for the unit: units.*.dispatch
	Chips       []QuestionChip
}

// QuestionChip is one chip a question applies to.
type QuestionChip struct {
	SoC        string
	Path       string
	Value      string // as the spec gives it
	Source     string
	Metric     string  // the metric that moves most
	Elasticity float64 // of Metric to the parameter
}

// WhatIfAdvice is the ranking rerun with changed figures.
type WhatIfAdvice struct {
	Sets    []string
	Ranking []Row
}
