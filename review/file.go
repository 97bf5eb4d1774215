package review

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/workloads"
)

// File is a checked review file: what `edgetwin report` simulates and
// the questions its report answers. Chip, model and scenario files named
// in it are resolved relative to the file.
//
//	title: Phone assistant SoC review
//	chips: [snapdragon-8-gen3, dimensity-9300, ./my-chip.yaml]
//	models:
//	  - {model: llama-3.2-3b, quant: Q4_0}
//	workload: {prompt: 512, gen: 128}
//	scenarios:
//	  - {scenario: sustained, duration: 2m, set: [context_limit=2048]}
//	set: [thermal.ambient=35C]
//	requirements: ['ttft_s < 1', 'thermal.sustained_tokens_per_s >= 8']
//	maximize: thermal.sustained_tokens_per_s  # or minimize: chip.price_usd
//	questions: [best-chip, throttle, 'What about a 4-bit KV cache?']
//	contexts: [128, 256, 512, 1024, 2048]    # the decode-rate figure's
type File struct {
	// File is the review file's path; Title its title.
	File  string
	Title string
	// Chips and Models as given, file references made relative to the
	// working directory.
	Chips  []string
	Models []Model
	// Prompt, Gen and Batch are the single-prompt workload.
	Prompt, Gen, Batch int
	// Scenarios are the sessions every chip runs; the first is the one
	// the requirements are checked under.
	Scenarios []Scenario
	// Sets are --set overrides for every run (chip paths unprefixed,
	// model. and scenario. prefixes for the others).
	Sets []string
	// Requirements are advise chip's --require expressions, checked under
	// the first scenario (or the single prompt without one).
	Requirements []string
	// Objective ranks the chips that pass (advise chip's --maximize or
	// --minimize); "" is the advisor's default.
	Objective string
	Maximize  bool
	// Questions are question ids (KnownQuestions) or free text.
	Questions []string
	// Fidelity and Seed are every run's (tile and 1 when not given).
	Fidelity string
	Seed     uint64
	// Contexts are the context lengths of the decode-rate figure, in
	// tokens, ascending.
	Contexts []int

	doc *spec.Doc
}

// Model is one model under review and its quantisation.
type Model struct {
	// Model is a catalog id or a model file; Quant its weight
	// quantisation (Q4_0 when not given) and KVDtype its KV cache's
	// element type (F16 when not given).
	Model   string `yaml:"model" spec:"required"`
	Quant   string `yaml:"quant,omitempty"`
	KVDtype string `yaml:"kv_dtype,omitempty"`
}

// Scenario is a session the chips run: a scenario id or file, how
// long, and overrides of its fields (PATH=VALUE, scenario paths without
// the scenario. prefix).
type Scenario struct {
	// Scenario is a catalog id or a scenario file, Duration how long it
	// runs (nil: the scenario's own), Set its overrides.
	Scenario string         `yaml:"scenario" spec:"required"`
	Duration *units.Seconds `yaml:"duration,omitempty"`
	Set      []string       `yaml:"set,omitempty"`
}

// Label names the scenario in titles: "sustained, 2 min".
func (s Scenario) Label() string {
	if s.Duration == nil {
		return s.Scenario
	}
	return s.Scenario + ", " + units.Approx(float64(*s.Duration), units.KindDuration)
}

// Sets are the scenario's overrides as --set values.
func (s Scenario) Sets() []string {
	out := make([]string, len(s.Set))
	for i, v := range s.Set {
		out[i] = "scenario." + v
	}
	return out
}

// Load reads the scenario with its overrides, as its runs see it.
func (s Scenario) Load() (*workloads.Scenario, error) {
	return workloads.LoadScenario(s.Scenario, mustOverrides(s.Set))
}

type reviewFile struct {
	Title        string         `yaml:"title" spec:"required"`
	Chips        []string       `yaml:"chips" spec:"required"`
	Models       []Model        `yaml:"models" spec:"required"`
	Workload     reviewWorkload `yaml:"workload,omitempty"`
	Scenarios    []Scenario     `yaml:"scenarios,omitempty"`
	Set          []string       `yaml:"set,omitempty"`
	Requirements []string       `yaml:"requirements,omitempty"`
	Maximize     string         `yaml:"maximize,omitempty"`
	Minimize     string         `yaml:"minimize,omitempty"`
	Questions    []string       `yaml:"questions,omitempty"`
	Fidelity     string         `yaml:"fidelity,omitempty" spec:"oneof=analytic|tile|line"`
	Seed         uint64         `yaml:"seed,omitempty"`
	Contexts     []int          `yaml:"contexts,omitempty"`
}

type reviewWorkload struct {
	Prompt *int `yaml:"prompt,omitempty" spec:"nonneg"`
	Gen    *int `yaml:"gen,omitempty" spec:"nonneg"`
	Batch  *int `yaml:"batch,omitempty" spec:"positive"`
}

// Review defaults: simulate's.
const (
	reviewPrompt   = 512
	reviewGen      = 128
	reviewFidelity = "tile"
	maxReviewChips = 16
)

// defaultContexts are the context lengths of the decode-rate figure when
// a review gives none: prefills of 4096 tokens cost seconds each at tile
// fidelity, so the default stops at 2048.
var defaultContexts = []int{128, 256, 512, 1024, 2048}

// KnownQuestions are the questions a review can ask by id, with what
// each asks; any other text is asked as written, for the reader to answer
// from the figures.
var KnownQuestions = []struct{ ID, Text string }{
	{"best-chip", "Which chip should we choose?"},
	{"requirements", "Which chips meet every requirement, and by how much?"},
	{"bottleneck", "What limits each chip?"},
	{"throttle", "Does it throttle, when, and what does that cost?"},
	{"vendor-questions", "What must we ask the vendors before deciding?"},
}

// Parse reads a review file strictly: unknown fields, duplicate keys, a
// chip or model named twice, a bad quantisation, scenario or --set value
// are errors naming the file, line and field (hw/spec's error).
func Parse(file string, data []byte) (*File, error) {
	var f reviewFile
	doc, err := spec.ParseInto(file, data, &f)
	if err != nil {
		return nil, err
	}
	r := &File{
		File: file, Title: strings.TrimSpace(f.Title), Prompt: reviewPrompt, Gen: reviewGen, Batch: 1,
		Sets: f.Set, Requirements: f.Requirements, Questions: f.Questions, Fidelity: f.Fidelity, Seed: f.Seed, doc: doc,
	}
	if r.Title == "" {
		return nil, doc.Errorf("title", "the title is empty; give the review a name")
	}
	if r.Fidelity == "" {
		r.Fidelity = reviewFidelity
	}
	if r.Seed == 0 {
		r.Seed = 1
	}
	if w := f.Workload; w.Prompt != nil {
		r.Prompt = *w.Prompt
	}
	if w := f.Workload; w.Gen != nil {
		r.Gen = *w.Gen
	}
	if w := f.Workload; w.Batch != nil {
		r.Batch = *w.Batch
	}
	dir := filepath.Dir(file)
	if len(f.Chips) == 0 || len(f.Chips) > maxReviewChips {
		return nil, doc.Errorf("chips", "list 1 to %d chips: catalog ids (edgetwin catalog) or chip files", maxReviewChips)
	}
	for i, c := range f.Chips {
		c = strings.TrimSpace(c)
		path := "chips." + strconv.Itoa(i)
		if c == "" {
			return nil, doc.Errorf(path, "an empty chip; give a catalog id (edgetwin catalog) or a chip file")
		}
		c = spec.Relative(dir, c, hw.ChipIDs())
		if slices.Contains(r.Chips, c) {
			return nil, doc.Errorf(path, "%s is listed twice", c)
		}
		r.Chips = append(r.Chips, c)
	}
	if len(f.Models) == 0 {
		return nil, doc.Errorf("models", "list at least one model, e.g. - {model: llama-3.2-3b, quant: Q4_0}")
	}
	for i, m := range f.Models {
		path := "models." + strconv.Itoa(i)
		m.Model = spec.Relative(dir, strings.TrimSpace(m.Model), workloads.ModelIDs())
		if m.Quant == "" {
			m.Quant = "Q4_0"
		}
		if m.KVDtype == "" {
			m.KVDtype = "F16"
		}
		if _, err := workloads.ParseQuant(m.Quant); err != nil {
			return nil, doc.Errorf(path+".quant", "%v", err)
		}
		if _, err := workloads.ParseKVFormat(m.KVDtype); err != nil {
			return nil, doc.Errorf(path+".kv_dtype", "%v", err)
		}
		if slices.Contains(r.Models, m) {
			return nil, doc.Errorf(path, "%s %s is listed twice", m.Model, m.Quant)
		}
		r.Models = append(r.Models, m)
	}
	for i, s := range f.Scenarios {
		path := "scenarios." + strconv.Itoa(i)
		s.Scenario = spec.Relative(dir, strings.TrimSpace(s.Scenario), workloads.ScenarioIDs())
		if s.Duration != nil && *s.Duration <= 0 {
			return nil, doc.Errorf(path+".duration", "a scenario runs for a positive duration, e.g. 2m")
		}
		for j, set := range s.Set {
			o, err := spec.ParseOverride(set)
			if err != nil {
				return nil, doc.Errorf(path+".set."+strconv.Itoa(j), "%s; give a scenario field as PATH=VALUE, e.g. context_limit=2048", spec.Bare(err))
			}
			if strings.HasPrefix(o.Path, "scenario.") {
				return nil, doc.Errorf(path+".set."+strconv.Itoa(j), "write %s without the scenario. prefix: these overrides are the scenario's own", o.Path)
			}
		}
		if _, err := s.Load(); err != nil {
			return nil, doc.Errorf(path, "%s", spec.Bare(err))
		}
		r.Scenarios = append(r.Scenarios, s)
	}
	for i, set := range f.Set {
		if _, err := spec.ParseOverride(set); err != nil {
			return nil, doc.Errorf("set."+strconv.Itoa(i), "%s; give PATH=VALUE, e.g. thermal.ambient=35C", spec.Bare(err))
		}
	}
	switch {
	case f.Maximize != "" && f.Minimize != "":
		return nil, doc.Errorf("minimize", "maximize and minimize both given: rank by one objective")
	case f.Maximize != "":
		r.Objective, r.Maximize = f.Maximize, true
	case f.Minimize != "":
		r.Objective = f.Minimize
	}
	r.Contexts = f.Contexts
	if len(r.Contexts) == 0 {
		r.Contexts = defaultContexts
	}
	for i, c := range r.Contexts {
		if c <= 0 || (i > 0 && c <= r.Contexts[i-1]) {
			return nil, doc.Errorf("contexts."+strconv.Itoa(i), "%d is not allowed: list context lengths in tokens, above 0 and ascending, e.g. [256, 512, 1024]", c)
		}
	}
	for i, q := range f.Questions {
		if strings.TrimSpace(q) == "" {
			return nil, doc.Errorf("questions."+strconv.Itoa(i), "an empty question; ask in words or by id: %s", strings.Join(QuestionIDs(), ", "))
		}
	}
	for i, req := range f.Requirements {
		if strings.TrimSpace(req) == "" {
			return nil, doc.Errorf("requirements."+strconv.Itoa(i), "an empty requirement; write an expression such as 'ttft_s < 1'")
		}
	}
	return r, nil
}

// mustOverrides parses overrides already checked by ParseOverride.
func mustOverrides(sets []string) []spec.Override {
	var out []spec.Override
	for _, s := range sets {
		o, err := spec.ParseOverride(s)
		if err != nil {
			panic("review: an override that parsed once does not parse: " + err.Error())
		}
		out = append(out, o)
	}
	return out
}

// QuestionIDs are the ids of KnownQuestions, in order.
func QuestionIDs() []string {
	var ids []string
	for _, q := range KnownQuestions {
		ids = append(ids, q.ID)
	}
	return ids
}

// Errorf returns an error located at a field of the review file (path as
// in spec paths: chips.2, requirements.0), for problems found after
// loading: a chip that does not load, a requirement that does not
// compile.
//
// The review's entry is where the user gave the value, so a problem a
// package below names by its setting (spec.Error's Field: "require",
// "soc") is told without that name: the entry's path says where it is.
func (r *File) Errorf(path string, err error) error {
	return r.doc.Errorf(path, "%s", spec.OneLine(spec.Bare(err)))
}

// locate places an error of loading a run at the review's entry that
// caused it: a value of set: the chip or model refused (at that entry,
// naming its field), else the chip entry for a chip that did not load and
// the model entry for anything else.
func (r *File) locate(chip, model string, err error) error {
	var se *spec.Error
	if errors.As(err, &se) && se.File == "" && se.Field == "set" {
		for i, s := range r.Sets {
			o, perr := spec.ParseOverride(s)
			if perr == nil && (o.Path == se.Path || strings.HasSuffix(o.Path, "."+se.Path)) {
				return r.doc.Errorf("set."+strconv.Itoa(i), "%s: %s", o.Path, spec.OneLine(se.Msg))
			}
		}
	}
	var le loadErr
	if errors.As(err, &le) && le.what == "chip" {
		return r.Errorf(chip, err)
	}
	return r.Errorf(model, err)
}

// Question is a question of the review with its text: a known id's, or
// the question as written (ID "").
func (r *File) Question(i int) (id, text string) {
	q := strings.TrimSpace(r.Questions[i])
	for _, k := range KnownQuestions {
		if k.ID == q {
			return k.ID, k.Text
		}
	}
	return "", q
}

// String names the review for messages: "review.yaml (Phone SoC review)".
func (r *File) String() string { return fmt.Sprintf("%s (%s)", r.File, r.Title) }
