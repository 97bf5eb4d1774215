package advisor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

// DefaultKVSizes are the KV-cache sizes the L3 question asks about.
var DefaultKVSizes = []float64{4 << 20, 8 << 20, 16 << 20}

// DefaultSustainedFor is how long, in seconds, the sustained run of the
// throttling question lasts.
const DefaultSustainedFor = 300.0

// The built-in scenarios the questions run.
const (
	sustainedScenario = "sustained"
	chatScenario      = "chat-30"
)

// QuestionsRequest is one chip and workload to answer the standard review
// questions for.
type QuestionsRequest struct {
	// SoC is the chip: a catalog id or a file.
	SoC string
	// Load loads the chip with the command's flags (model, quant, prompt,
	// gen, ...); the questions set each run's context and scenario.
	Load Loader
	// KVSizes are the KV-cache sizes of the L3 question, in bytes; nil is
	// DefaultKVSizes.
	KVSizes []float64
	// SustainedFor is the sustained run's length in seconds; 0 is
	// DefaultSustainedFor.
	SustainedFor float64
	// ChatTurns caps the chat's turns; 0 runs the scenario's 30.
	ChatTurns int
	// Each runs work(i) for every i in [0, n), in parallel if it likes,
	// and returns when all are done; nil runs them in order. Work keeps
	// its result by index, so the answers do not depend on the order.
	Each func(n int, work func(i int))
}

// Answers are the standard review questions answered for one chip and
// workload.
type Answers struct {
	SoC, Name, Model, Quant string
	// Unit is the unit that ran the model's matrix work ("" when the model
	// ran nowhere).
	Unit string
	// Notes say what the runs left out or capped (a chat of fewer turns).
	Notes   []string
	Answers []Answer
}

// Answer is one review question and the simulator's answer to it.
type Answer struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	// Answer is the answer in words, with its numbers.
	Answer string `json:"answer"`
	// Metrics are the figures the answer quotes, by result key path (null
	// when the run gives none).
	Metrics map[string]*float64 `json:"metrics"`
	// Provenance lists the spec figures the answer rests on and whether
	// each is cited, assumed, calibrated, set on the command line or
	// given in a user's file.
	Provenance []Figure `json:"provenance"`
	// Err is why the simulator could not answer (the model does not fit).
	Err string `json:"error,omitempty"`
}

// Figure is one spec figure an answer rests on.
type Figure struct {
	Path   string `json:"path"`
	Value  string `json:"value"`
	Basis  string `json:"basis"` // cited, assumed, calibrated, set or given
	Source string `json:"source"`
}

// Bases of a figure.
const (
	BasisCited      = "cited"
	BasisAssumed    = "assumed"
	BasisCalibrated = "calibrated"
	BasisSet        = "set"
	BasisGiven      = "given"
)

// Basis classifies a provenance source: a citation, an assumption (a
// default, or derived from one), a calibrated value, a --set override, or
// a figure given in a user's file without a source (file:line).
func Basis(source string) string {
	s := strings.TrimSpace(source)
	switch {
	case IsAssumed(s):
		return BasisAssumed
	case strings.HasPrefix(s, "calibrated"):
		return BasisCalibrated
	case s == spec.SetOrigin:
		return BasisSet
	case fileLine.MatchString(s):
		return BasisGiven
	}
	return BasisCited
}

// QuestionsPlan is a checked request: its runs are loaded and ready.
type QuestionsPlan struct {
	req  QuestionsRequest
	base sim.Config
	runs []qrun
	npu  *npuAlternative
}

// qrun is one simulation the answers draw on.
type qrun struct {
	id string
	kv float64 // the KV size of an L3 run, bytes
	job
}

// npuAlternative is the run on a passed-over NPU with a weight format it
// reads.
type npuAlternative struct {
	unit, quant, missing string
	runtime              string // the stack that runs quant on unit
}

// Run ids.
const (
	runChat      = "chat"
	runSustained = "sustained"
	runBase      = "base"
	runNPU       = "npu"
	runKV        = "kv-"
)

// PrepareQuestions loads every run of the questions. Every error it
// returns is the user's input: an unknown chip or model, a bad flag.
func PrepareQuestions(req QuestionsRequest) (*QuestionsPlan, error) {
	if req.Load == nil {
		return nil, errors.New("advisor: no loader")
	}
	if req.KVSizes == nil {
		req.KVSizes = DefaultKVSizes
	}
	if req.SustainedFor == 0 {
		req.SustainedFor = DefaultSustainedFor
	}
	if req.SustainedFor < 0 || req.ChatTurns < 0 {
		return nil, fmt.Errorf("the sustained run's length and the chat's turns must be positive")
	}
	base, err := req.Load(req.SoC, nil)
	if err != nil {
		return nil, err
	}
	if base.Scenario != nil {
		return nil, spec.FieldErrorf("scenario", "is not allowed: the questions run their own scenarios (%s, %s)", sustainedScenario, chatScenario)
	}
	if base.Depth > 0 {
		return nil, spec.FieldErrorf("depth", "is not allowed: the questions size their own contexts (the KV runs, the sessions)")
	}
	p := &QuestionsPlan{req: req, base: base}
	// The slowest first, so the others fill the workers around them.
	var chatSets []spec.Override
	if req.ChatTurns > 0 {
		o, err := spec.ParseOverride(fmt.Sprintf("turns=%d", req.ChatTurns))
		if err != nil {
			return nil, err
		}
		chatSets = append(chatSets, o)
	}
	if err := p.add(runChat, func(c *sim.Config) error {
		sc, err := workloads.LoadScenario(chatScenario, chatSets)
		c.Scenario = sc
		return err
	}); err != nil {
		return nil, err
	}
	if err := p.add(runSustained, func(c *sim.Config) error {
		sc, err := workloads.LoadScenario(sustainedScenario, nil)
		c.Scenario, c.Duration = sc, req.SustainedFor
		return err
	}); err != nil {
		return nil, err
	}
	if err := p.add(runBase, nil); err != nil {
		return nil, err
	}
	for _, kv := range req.KVSizes {
		if kv <= 0 {
			return nil, fmt.Errorf("a KV size of %g B is not allowed: give a positive size such as 8MiB", kv)
		}
		if err := p.add(kvRunID(kv), func(c *sim.Config) error {
			c.Prompt = c.Model.ContextForKV(c.KV, c.Batch, kv)
			// Held at that size: decode grows the KV by a token a step,
			// so at most a twentieth of the context's steps run (one at
			// least). 128 steps after a 60-token context would answer for
			// a KV three times the one asked about.
			c.Gen = max(1, min(c.Gen, c.Prompt/kvGrowth))
			return nil
		}); err != nil {
			return nil, err
		}
		p.runs[len(p.runs)-1].kv = kv
	}
	if alt := npuAlternativeFor(base); alt != nil {
		q, err := workloads.ParseQuant(alt.quant)
		if err != nil {
			return nil, err
		}
		p.npu = alt
		if err := p.add(runNPU, func(c *sim.Config) error {
			c.Unit, c.Quant = alt.unit, q
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// kvGrowth bounds how far a KV question's decode grows the KV it asks
// about: by at most 1/kvGrowth of it.
const kvGrowth = 20

func kvRunID(kv float64) string {
	return runKV + strings.ReplaceAll(units.Approx(kv, units.KindBytes), " ", "")
}

// add loads a run's own config and lets change shape it.
func (p *QuestionsPlan) add(id string, change func(*sim.Config) error) error {
	cfg, err := p.req.Load(p.req.SoC, nil)
	if err != nil {
		return err
	}
	if change != nil {
		if err := change(&cfg); err != nil {
			return err
		}
	}
	p.runs = append(p.runs, qrun{id: id, job: job{cfg: cfg}})
	return nil
}

// Runs is the number of simulations the plan makes.
func (p *QuestionsPlan) Runs() int { return len(p.runs) }

// Run simulates every run (through the request's Each) and answers the
// questions. A run's input error (the model does not fit) becomes its
// answers' Err; any other error is returned.
func (p *QuestionsPlan) Run(ctx context.Context) (*Answers, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	each := p.req.Each
	if each == nil {
		each = func(n int, work func(int)) {
			for i := range n {
				work(i)
			}
		}
	}
	each(len(p.runs), func(i int) {
		r := &p.runs[i]
		if ctx.Err() != nil {
			return
		}
		if err := r.run(ctx); err != nil {
			cancel(fmt.Errorf("%s run: %w", r.id, err))
		}
	})
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return p.answer(), nil
}

// run returns the run with id.
func (p *QuestionsPlan) run(id string) *qrun {
	for i := range p.runs {
		if p.runs[i].id == id {
			return &p.runs[i]
		}
	}
	return nil
}

// answer turns the runs into the answers, in the order of the issue's
// questions.
func (p *QuestionsPlan) answer() *Answers {
	b := p.base
	a := &Answers{SoC: b.Chip.ID, Name: b.Chip.Name, Model: b.Model.ID, Quant: b.Quant.String()}
	if r := p.run(runBase).res; r != nil {
		a.Unit = r.Unit
	}
	if p.req.ChatTurns > 0 {
		a.Notes = append(a.Notes, fmt.Sprintf("the chat runs %d turns of %s, not all 30 (--turns)", p.req.ChatTurns, chatScenario))
	}
	for _, r := range p.runs {
		if r.kv > 0 {
			a.Answers = append(a.Answers, p.kvAnswer(r))
		}
	}
	a.Answers = append(a.Answers,
		p.throttleAnswer(),
		p.ttftAnswer(),
		p.speedAnswer(),
		p.chatAnswer(),
		p.coverageAnswer(),
	)
	return a
}
