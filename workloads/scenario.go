package workloads

import (
	"embed"
	"math"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
)

//go:embed scenarios/*.yaml
var scenarioFiles embed.FS

var scenarios = spec.Catalog{Files: scenarioFiles, Dir: "scenarios", Kind: "scenario", Field: "scenario"}

// Scenario kinds.
const (
	// Single runs one request: its prompt and answer, with the pipeline
	// stages around them.
	Single = "single"
	// Chat runs Turns of a conversation: each user message is prefilled
	// after the context so far and answered, with ThinkTime between turns;
	// the context grows across turns until ContextLimit, where OnFull
	// truncates or resets it.
	Chat = "chat"
	// Sustained runs requests back to back for Duration: each prefills
	// Prompt tokens and decodes until the context limit.
	Sustained = "sustained"
	// Serve has requests arrive on their own, at Rate a second on average
	// (a Poisson process from the run's seed) for Duration, each a fresh
	// context of Prompt tokens answered with Answer; they wait for the
	// device, which serves them one at a time or in batches as the
	// schedule's batching says.
	Serve = "serve"
)

// What a chat does when the next turn would not fit the context limit.
const (
	// Truncate drops the oldest turns, keeping the system prompt, until
	// the next turn fits (llama.cpp's context shift: no recomputation).
	Truncate = "truncate"
	// Reset starts a fresh conversation: the system prompt is prefilled
	// again.
	Reset = "reset"
	// Compress keeps the Keep share of the context that the runtime
	// scores as most attended (the heavy hitters, as H2O and SnapKV choose
	// them) beside the system prompt, and compacts the kept KV entries:
	// no recomputation, a copy of what stays.
	Compress = "compress"
	// Summarize has the model write a summary of Summary tokens of the
	// conversation so far; the next turn starts a fresh context from the
	// system prompt and that summary, prefilled with the message.
	Summarize = "summarize"
)

// How an app holds the KV cache of a fresh context.
const (
	Pool     = "pool"      // allocated once, reused by every request
	OnDemand = "on_demand" // allocated for each fresh context
)

// When a pipeline stage runs.
const (
	StageInput  = "input"  // before the prefill, on the user's message
	StageToken  = "token"  // after each generated token (detokenise, stream to the screen)
	StageOutput = "output" // once, after the answer
)

// Scenario is a session to run instead of one prompt.
type Scenario struct {
	Name        string `yaml:"name" spec:"required"`
	Kind        string `yaml:"kind" spec:"required,oneof=single|chat|sustained|serve"`
	Description string `yaml:"description,omitempty"`
	// Duration is how long the session runs (--duration overrides it);
	// required for sustained, an upper bound for chat and single; for
	// serve, how long requests arrive.
	Duration units.Seconds `yaml:"duration,omitempty"`
	// Prompt is each request's prompt, or each user message of a chat, in
	// tokens (a mean when Spread is set).
	Prompt int `yaml:"prompt" spec:"required,positive"`
	// Answer is the tokens generated per request or turn (a mean when
	// Spread is set); sustained requests decode to the context limit.
	Answer int `yaml:"answer,omitempty" spec:"nonneg"`
	// ContextLimit is where the context stops growing; 0 is the model's
	// maximum context.
	ContextLimit int `yaml:"context_limit,omitempty" spec:"nonneg"`

	// Rate is a serve scenario's requests a second, on average.
	Rate float64 `yaml:"rate,omitempty" spec:"nonneg"`

	// Turns is the number of user messages of a chat.
	Turns int `yaml:"turns,omitempty" spec:"nonneg"`
	// SystemPrompt is prefilled once, before the first message, and kept
	// when the context is truncated.
	SystemPrompt int `yaml:"system_prompt,omitempty" spec:"nonneg"`
	// ThinkTime is the pause between an answer and the next message: the
	// user reads and types. The chip idles and cools.
	ThinkTime units.Seconds `yaml:"think_time,omitempty"`
	// Spread draws each message and answer length uniformly within ±Spread
	// of its mean, from the run's seed.
	Spread units.Fraction `yaml:"spread,omitempty"`
	// OnFull is what a chat does when the next turn would pass the
	// context limit: truncate (default), reset, compress or summarize.
	OnFull string `yaml:"on_full,omitempty" spec:"oneof=truncate|reset|compress|summarize"`
	// Keep is the share of the context a compress keeps (0 < Keep < 1).
	Keep units.Fraction `yaml:"keep,omitempty"`
	// Summary is the tokens of a summarize's summary.
	Summary int `yaml:"summary,omitempty" spec:"nonneg"`
	// ColdStart makes the first request load the model: its weights read
	// from storage and the unit's runtime initialised.
	ColdStart bool `yaml:"cold_start,omitempty"`
	// Allocation is how the app holds the KV cache a fresh context needs:
	// pool (the default: allocated once, at load, and reused) or on_demand
	// (allocated for each fresh context — a new llama.cpp context a
	// request, an NPU runtime's tensors an inference — each page faulted
	// in and zeroed before the prefill).
	Allocation string `yaml:"allocation,omitempty" spec:"oneof=pool|on_demand"`
	// Reclaim is the share of the app's mapped weights the operating
	// system takes back between a chat's turns, for the other apps the
	// user opens while reading and typing: a mapped model's pages are
	// clean file pages, the first an OS drops under memory pressure. The
	// next turn reads them back from storage before its prefill. 0: the
	// page cache keeps them.
	Reclaim units.Fraction `yaml:"reclaim,omitempty"`
	// Screen keeps the device's display on for the whole session (the
	// user reads the answers): it draws the chip's idle.display and heats
	// the skin, and its energy is a line of its own.
	Screen bool `yaml:"screen,omitempty"`
	// Stages are the steps around the model that the user waits for.
	Stages []Stage `yaml:"stages,omitempty"`
}

// Stage is one step of the pipeline around the model — capture,
// pre-processing, tokenisation, detokenisation, rendering — with its cost.
type Stage struct {
	Name string `yaml:"name" spec:"required"`
	// When is input (before the prefill), token (after each generated
	// token) or output (once, after the answer).
	When string `yaml:"when" spec:"required,oneof=input|token|output"`
	// Fixed is paid once each time the stage runs; PerToken for each
	// token of the user's message (input stages) or of the answer (output
	// stages); token stages pay Fixed + PerToken per generated token.
	Fixed    units.Seconds `yaml:"fixed,omitempty"`
	PerToken units.Seconds `yaml:"per_token,omitempty"`
	// Unit is the chip's unit it runs on; empty is the CPU.
	Unit string `yaml:"unit,omitempty"`
	// Overlap says a token stage runs on a thread of its own (an app's UI
	// thread detokenising and rendering) while the unit computes the next
	// token, instead of between the steps: the stream waits for it only
	// where it is longer than a step.
	Overlap bool `yaml:"overlap,omitempty"`
}

// Seconds is the stage's time for a run over tokens tokens.
func (s Stage) Seconds(tokens int) float64 {
	return float64(s.Fixed) + float64(s.PerToken)*float64(tokens)
}

// Length draws a length around mean within ±Spread from u in [0, 1): at
// least 1 token.
func (s *Scenario) Length(mean int, u float64) int {
	if s.Spread == 0 || mean == 0 {
		return mean
	}
	f := 1 + float64(s.Spread)*(2*u-1)
	return max(1, int(math.Round(float64(mean)*f)))
}

// checkOnFull holds Keep and Summary to the OnFull that reads them.
func (s *Scenario) checkOnFull(doc *spec.Doc) error {
	switch {
	case s.OnFull == Compress && (s.Keep <= 0 || s.Keep >= 1):
		return doc.Errorf("keep", "on_full: compress needs the share of the context it keeps, above 0 and below 1 (e.g. 0.5); got %v", float64(s.Keep))
	case s.OnFull != Compress && s.Keep != 0:
		return doc.Errorf("keep", "keep is the share an on_full: compress keeps; this chat's on_full is %s", s.OnFull)
	case s.OnFull == Summarize && s.Summary == 0:
		return doc.Errorf("summary", "on_full: summarize needs the tokens of its summary, e.g. 256")
	case s.OnFull != Summarize && s.Summary != 0:
		return doc.Errorf("summary", "summary is the length an on_full: summarize writes; this chat's on_full is %s", s.OnFull)
	case s.OnFull == Summarize && s.ContextLimit > 0 && s.SystemPrompt+s.Summary+s.Prompt >= s.ContextLimit:
		return doc.Errorf("summary", "a summary of %d tokens after the %d-token system prompt leaves no room for a %d-token message in the %d-token context limit", s.Summary, s.SystemPrompt, s.Prompt, s.ContextLimit)
	}
	return nil
}

// ScenarioIDs lists the built-in scenarios.
func ScenarioIDs() []string { return scenarios.IDs() }

// MaxTurns bounds a chat's turns and a serve scenario's requests: past it
// a conversation is no longer one user's, and a run would outgrow the
// memory it may keep (a turn of the result each).
const MaxTurns = 10000

// LoadScenario loads a built-in scenario by id or a scenario YAML file;
// overrides address its fields without the "scenario." prefix.
func LoadScenario(ref string, sets []spec.Override) (*Scenario, error) {
	file, data, _, err := scenarios.Open(ref)
	if err != nil {
		return nil, err
	}
	doc, err := spec.Parse(file, data)
	if err != nil {
		return nil, err
	}
	if err := doc.Apply(sets, &Scenario{}); err != nil {
		return nil, err
	}
	var s Scenario
	if err := doc.Decode(&s); err != nil {
		return nil, err
	}
	switch {
	case s.Duration < 0:
		return nil, doc.Errorf("duration", "%s is not allowed: give a positive duration, e.g. 5m", s.Duration)
	case (s.Kind == Sustained || s.Kind == Serve) && s.Duration == 0:
		return nil, doc.Errorf("duration", "a %s scenario needs a positive duration, e.g. 5m", s.Kind)
	case s.Kind == Serve && s.Rate == 0:
		return nil, doc.Errorf("rate", "a serve scenario needs the requests a second that arrive, e.g. 0.2")
	case s.Kind != Serve && s.Rate != 0:
		return nil, doc.Errorf("rate", "rate is a serve scenario's arrivals; this scenario is %s", s.Kind)
	case s.Kind == Serve && (s.Turns != 0 || s.ThinkTime != 0 || s.SystemPrompt != 0 || s.OnFull != "" || len(s.Stages) > 0):
		return nil, doc.Errorf("kind", "a serve scenario's requests are fresh contexts of prompt and answer tokens: turns, think_time, system_prompt, on_full and stages are a chat's or a single request's")
	case s.Kind == Serve && s.Rate*float64(s.Duration) > MaxTurns:
		return nil, doc.Errorf("rate", "%g requests a second for %s is %.0f requests: at most %d a run", s.Rate, s.Duration, s.Rate*float64(s.Duration), MaxTurns)
	case s.Kind == Chat && s.Turns == 0:
		return nil, doc.Errorf("turns", "a chat needs its number of turns, e.g. 30")
	case s.Turns > MaxTurns:
		return nil, doc.Errorf("turns", "%d turns is not a plausible chat: at most %d (chat-30's thirty is a long conversation; many users' requests are a sustained scenario)", s.Turns, MaxTurns)
	case s.Kind != Sustained && s.Answer == 0:
		return nil, doc.Errorf("answer", "a %s scenario needs the tokens of each answer, e.g. 200", s.Kind)
	case s.ThinkTime < 0:
		return nil, doc.Errorf("think_time", "%s is not allowed: must be 0 or more", s.ThinkTime)
	case s.Reclaim < 0 || s.Reclaim > 1:
		return nil, doc.Errorf("reclaim", "%v is not allowed: a share of the mapped weights, 0 to 100%%", s.Reclaim)
	case s.Reclaim > 0 && s.Kind != Chat:
		return nil, doc.Errorf("reclaim", "the operating system takes pages back between a chat's turns, while the user reads and types; this scenario is %s", s.Kind)
	case s.Spread < 0 || s.Spread >= 1:
		return nil, doc.Errorf("spread", "%v is not allowed: must be in [0, 1)", float64(s.Spread))
	}
	if s.OnFull == "" && s.Kind != Serve {
		s.OnFull = Truncate
	}
	if s.Allocation == "" {
		s.Allocation = Pool
	}
	if err := s.checkOnFull(doc); err != nil {
		return nil, err
	}
	for _, st := range s.Stages {
		if st.Fixed < 0 || st.PerToken < 0 {
			return nil, doc.Errorf("stages."+st.Name, "stage %s: times must be 0 or more", st.Name)
		}
		if st.Overlap && st.When != StageToken {
			return nil, doc.Errorf("stages."+st.Name, "stage %s: only a token stage overlaps the next step; an %s stage runs once, before or after the model", st.Name, st.When)
		}
	}
	return &s, nil
}
