package workloads

import (
	"embed"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
)

//go:embed scenarios/*.yaml
var scenarioFiles embed.FS

var scenarios = spec.Catalog{Files: scenarioFiles, Dir: "scenarios", Kind: "scenario", Flag: "--scenario"}

// Scenario kinds.
const (
	// Sustained runs requests back to back for Duration: each prefills
	// Prompt tokens and decodes until the context limit.
	Sustained = "sustained"
)

// Scenario is a session to run instead of one prompt.
type Scenario struct {
	Name        string `yaml:"name" spec:"required"`
	Kind        string `yaml:"kind" spec:"required,oneof=sustained"`
	Description string `yaml:"description,omitempty"`
	// Duration is how long the session runs (--duration overrides it).
	Duration units.Seconds `yaml:"duration" spec:"required"`
	// Prompt is each request's prompt, in tokens.
	Prompt int `yaml:"prompt" spec:"required,positive"`
	// ContextLimit is where a request stops decoding; 0 is the model's
	// maximum context.
	ContextLimit int `yaml:"context_limit,omitempty" spec:"nonneg"`
}

// ScenarioIDs lists the built-in scenarios.
func ScenarioIDs() []string { return scenarios.IDs() }

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
	if s.Duration <= 0 {
		return nil, doc.Errorf("duration", "a scenario needs a positive duration, e.g. 5m")
	}
	return &s, nil
}
