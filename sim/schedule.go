package sim

import (
	"embed"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

//go:embed schedules/*.yaml
var scheduleFiles embed.FS

// Schedule is a scheduling policy as data (`--schedule ID|FILE`): rules
// with expr conditions over the run's state that pause decoding or pick
// how a turn decodes. Rules are tried in order; the first whose condition
// holds acts.
//
// An idle rule is tried after every decode step (or speculative cycle):
// it inserts an idle window, during which the chip draws its idle power
// and cools, and the token's latency carries it. A decode rule is tried
// when a turn starts decoding and picks plain or speculative decoding for
// the turn; a turn no decode rule picks for decodes as the flags say.
type Schedule struct {
	Name        string `yaml:"name" spec:"required"`
	Description string `yaml:"description,omitempty"`
	// Budget is the time a turn's whole answer may take (time to first
	// token and decode), for budget_s and time_left_s and the share of
	// turns within it; 0: none.
	Budget units.Seconds `yaml:"budget,omitempty"`
	// Batching is how a serve scenario's requests share the unit; without
	// it they are served one at a time, in order of arrival.
	Batching *Batching `yaml:"batching,omitempty"`
	Rules    []Rule    `yaml:"rules,omitempty"`

	file  string
	conds []*vm.Program
}

// Batching modes.
const (
	// Continuous batching (iteration-level, as llama.cpp's server slots
	// and MLC's engine do it): a request that arrives while a slot is free
	// is prefilled at the next step's boundary and joins the batch; each
	// leaves when its answer is done.
	Continuous = "continuous"
	// Static batching: the requests waiting when the unit is free, up to
	// Max, after the first has waited at most Wait, are prefilled
	// together (padded to the longest prompt) and decode together until
	// the longest answer is done; arrivals meanwhile wait.
	Static = "static"
)

// Batching is a schedule's policy for requests that arrive on their own.
type Batching struct {
	// Max is the most sequences decoded together: the runtime's parallel
	// slots (llama.cpp server's --parallel) or its largest compiled batch.
	Max  int    `yaml:"max" spec:"required,positive"`
	Mode string `yaml:"mode" spec:"required,oneof=continuous|static"`
	// Wait is how long, under static batching, the first waiting request
	// waits for others to join it.
	Wait units.Seconds `yaml:"wait,omitempty"`
}

// maxBatching bounds Batching.Max: past it the batch is a datacentre's,
// and its KV slots would not fit an edge device.
const maxBatching = 256

// Rule is one rule of a schedule: a condition and one action.
type Rule struct {
	// When is an expr condition over ScheduleState's fields.
	When string `yaml:"when" spec:"required"`
	// Idle pauses decoding for this long.
	Idle units.Seconds `yaml:"idle,omitempty"`
	// Decode picks the turn's decoding: plain or speculative.
	Decode string `yaml:"decode,omitempty" spec:"oneof=plain|speculative"`
}

// ScheduleState is what a schedule's conditions see.
type ScheduleState struct {
	TimeS        float64 `expr:"time_s"`        // seconds of the run so far
	Turn         int     `expr:"turn"`          // the turn, from 1
	Context      int     `expr:"context"`       // tokens in the KV cache
	Tokens       int     `expr:"tokens"`        // tokens this turn has decoded
	AnswerTokens int     `expr:"answer_tokens"` // tokens this turn's answer has
	StepS        float64 `expr:"step_s"`        // a plain decode step's time at the last turn's end (0 before the first)
	TTFTS        float64 `expr:"ttft_s"`        // this turn's time to first token
	TurnS        float64 `expr:"turn_s"`        // seconds since the turn began
	BudgetS      float64 `expr:"budget_s"`      // the schedule's budget (0: none)
	TimeLeftS    float64 `expr:"time_left_s"`   // budget_s − turn_s (0 without a budget)
	PowerW       float64 `expr:"power_w"`       // the SoC's power over the last second
	JunctionC    float64 `expr:"junction_c"`    // hottest junction
	SkinC        float64 `expr:"skin_c"`        // hottest skin node (the junction's where there is none)
}

// maxScheduleIdle bounds one idle window: a rule that pauses longer is a
// typo, and would make a run of a few tokens last hours.
const maxScheduleIdle = 60.0

var schedules = spec.Catalog{Files: scheduleFiles, Dir: "schedules", Kind: "schedule", Field: "schedule"}

// ScheduleIDs lists the built-in schedules.
func ScheduleIDs() []string { return schedules.IDs() }

// LoadSchedule loads a built-in schedule by id, or a schedule YAML file,
// and compiles its conditions.
func LoadSchedule(ref string) (*Schedule, error) {
	file, data, _, err := schedules.Open(ref)
	if err != nil {
		return nil, err
	}
	return DecodeSchedule(file, data)
}

// DecodeSchedule reads a schedule strictly and compiles every condition,
// so that a bad one is an error, with its line, before anything runs.
func DecodeSchedule(file string, data []byte) (*Schedule, error) {
	var s Schedule
	doc, err := spec.ParseInto(file, data, &s)
	if err != nil {
		return nil, err
	}
	if s.Budget < 0 {
		return nil, doc.Errorf("budget", "a budget is a positive duration, e.g. budget: 4s")
	}
	if len(s.Rules) == 0 && s.Batching == nil {
		return nil, doc.Errorf("rules", "a schedule needs at least one rule, or a batching policy")
	}
	if b := s.Batching; b != nil {
		switch {
		case b.Max > maxBatching:
			return nil, doc.Errorf("batching.max", "%d sequences is not an edge device's batch: at most %d", b.Max, maxBatching)
		case b.Wait < 0 || b.Wait > maxScheduleIdle:
			return nil, doc.Errorf("batching.wait", "%s is not allowed: a request waits 0 to %g s for others", b.Wait, maxScheduleIdle)
		case b.Mode == Continuous && b.Wait != 0:
			return nil, doc.Errorf("batching.wait", "continuous batching admits a request at the next step; wait is static batching's")
		}
	}
	for i, r := range s.Rules {
		at := fmt.Sprintf("rules.%d", i)
		switch {
		case (r.Idle != 0) == (r.Decode != ""):
			return nil, doc.Errorf(at, "a rule takes one action: idle: DURATION or decode: plain|speculative")
		case r.Idle < 0 || r.Idle > maxScheduleIdle:
			return nil, doc.Errorf(at+".idle", "%s is not allowed: an idle window lasts more than 0 and at most %g s", units.Seconds(r.Idle), maxScheduleIdle)
		}
		prog, err := expr.Compile(r.When, expr.Env(ScheduleState{}), expr.AsBool())
		if err != nil {
			return nil, doc.Errorf(at+".when", "%s; a condition sees %s", firstLine(err.Error()), strings.Join(scheduleNames(), ", "))
		}
		s.conds = append(s.conds, prog)
	}
	s.file = file
	return &s, nil
}

// scheduleNames are the names a condition may use: ScheduleState's expr
// tags, in field order.
func scheduleNames() []string {
	t := reflect.TypeFor[ScheduleState]()
	names := make([]string, t.NumField())
	for i := range names {
		names[i] = t.Field(i).Tag.Get("expr")
	}
	return names
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// pauses reports whether the schedule has idle rules (tried every step).
func (s *Schedule) pauses() bool {
	if s == nil {
		return false
	}
	for _, r := range s.Rules {
		if r.Idle > 0 {
			return true
		}
	}
	return false
}

// picksDecoding reports whether a rule picks how a turn decodes.
func (s *Schedule) picksDecoding() bool {
	return s != nil && slices.ContainsFunc(s.Rules, func(r Rule) bool { return r.Decode != "" })
}

// picksSpeculative reports whether a rule picks speculative decoding.
func (s *Schedule) picksSpeculative() bool {
	for _, r := range s.Rules {
		if r.Decode == "speculative" {
			return true
		}
	}
	return false
}

// first returns the first rule whose condition holds in st among those
// keep selects, or nil.
func (s *Schedule) first(st ScheduleState, keep func(Rule) bool) (*Rule, error) {
	for i := range s.Rules {
		if !keep(s.Rules[i]) {
			continue
		}
		v, err := expr.Run(s.conds[i], st)
		if err != nil {
			return nil, spec.Errorf("%s: rules[%d].when %q: %v", s.file, i, s.Rules[i].When, err)
		}
		if v.(bool) {
			return &s.Rules[i], nil
		}
	}
	return nil, nil
}

// ScheduleResult is what a schedule did over a run.
type ScheduleResult struct {
	Name string `json:"name"`
	// BudgetS is the turn budget (0: none); TurnsWithinBudget the turns
	// whose answer took at most that, of Turns.
	BudgetS           float64 `json:"budget_s"`
	Turns             int     `json:"turns"`
	TurnsWithinBudget int     `json:"turns_within_budget"`
	// IdleWindows the schedule inserted, IdleS their total.
	IdleWindows int     `json:"idle_windows"`
	IdleS       float64 `json:"idle_s"`
	// SpeculativeTurns is how many turns decoded speculatively.
	SpeculativeTurns int `json:"speculative_turns"`
}

// scheduler is a run's schedule at work.
type scheduler struct {
	s      *Schedule
	res    ScheduleResult
	turn   ScheduleState // the current turn's figures
	startS float64       // the current turn's start
	// plainStep is the last plain decode step's time: a turn's step_s.
	plainStep float64
}

// notePace keeps the pace of plain decoding after a turn's decode: its
// last step, or the plain step measured beside a speculative one.
func (e *engine) notePace(speculative bool, steps []float64) {
	switch {
	case e.sched == nil:
	case speculative && len(e.spec.plainS) > 0:
		e.sched.plainStep = e.spec.plainS[len(e.spec.plainS)-1]
	case !speculative && len(steps) > 0:
		e.sched.plainStep = steps[len(steps)-1]
	}
}

// state is what the conditions see now.
func (e *engine) scheduleState() ScheduleState {
	st := e.sched.turn
	st.TimeS = e.clock
	st.TurnS = e.clock - e.sched.startS
	st.BudgetS = float64(e.sched.s.Budget)
	if st.BudgetS > 0 {
		st.TimeLeftS = st.BudgetS - st.TurnS
	}
	st.PowerW = e.recentPower()
	h := e.heat
	for _, i := range h.junction {
		st.JunctionC = math.Max(st.JunctionC, h.temps[i])
	}
	st.SkinC = st.JunctionC
	if len(h.skin) > 0 {
		st.SkinC = math.Inf(-1)
		for _, i := range h.skin {
			st.SkinC = math.Max(st.SkinC, h.temps[i])
		}
	}
	return st
}

// pickDecoding applies the schedule's decode rules at the start of a
// turn's decode and reports whether it decodes speculatively.
func (e *engine) pickDecoding() (bool, error) {
	spec := e.spec != nil
	if e.sched == nil {
		return spec, nil
	}
	r, err := e.sched.s.first(e.scheduleState(), func(r Rule) bool { return r.Decode != "" })
	if err != nil {
		return false, err
	}
	if r != nil {
		spec = r.Decode == "speculative"
	}
	if spec {
		e.sched.res.SpeculativeTurns++
	}
	return spec, nil
}

// pause applies the schedule's idle rules after a decode step and returns
// the idle time it inserted.
func (e *engine) pause(tokens int, step float64) (float64, error) {
	if e.sched == nil || !e.sched.s.pauses() {
		return 0, nil
	}
	e.sched.turn.Tokens, e.sched.turn.StepS = tokens, step
	r, err := e.sched.s.first(e.scheduleState(), func(r Rule) bool { return r.Idle > 0 })
	if err != nil || r == nil {
		return 0, err
	}
	d := float64(r.Idle)
	e.idleAs("schedule idle", d)
	e.sched.res.IdleWindows++
	e.sched.res.IdleS += d
	return d, nil
}
