package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/workloads"
)

// Fidelity is how much detail a run simulates: the name of a preset of
// Options.
type Fidelity string

// The fidelities.
const (
	Analytic Fidelity = "analytic" // a roofline per operator
	Tile     Fidelity = "tile"     // the event simulation, L3 tracked in blocks
	Line     Fidelity = "line"     // the event simulation, L3 tracked line by line
)

// Options are what a fidelity simulates.
type Options struct {
	// Events runs passes on the event kernel with the L3 simulated;
	// without, the arithmetic pipe follows the same stream and the L3 is
	// estimated per class.
	Events bool
	// Lines tracks the simulated L3 line by line rather than in
	// cache.TileGeometry's blocks.
	Lines bool
	// shortcuts are the shortcuts it may take (a bit per shortcut); each
	// is still switched off by Config.Exact.
	shortcuts uint8
}

// Options gives the preset the fidelity names: analytic is the
// arithmetic pipe with step reuse; tile the event simulation in blocks
// with every shortcut; line, the exact reference, the event simulation
// line by line with none.
func (f Fidelity) Options() Options {
	switch f {
	case Analytic:
		return Options{shortcuts: 1 << stepReuse}
	case Line:
		return Options{Events: true, Lines: true}
	}
	return Options{Events: true, shortcuts: 1<<leap | 1<<prefillReplay | 1<<scanBypass | 1<<spillBypass | 1<<stepReuse | 1<<layerReplay}
}

// Shortcuts names the ways a run skips work while keeping its answer, each
// to the tolerance its test holds it to. A field set to true switches that
// shortcut off: the run does the work in full. Which shortcuts a fidelity
// takes at all is its Options'.
type Shortcuts struct {
	// Leap: an operator's settled middle tiles are skipped over, whole
	// periods at a time (tile fidelity; exact to a part in 10⁹).
	Leap bool
	// PrefillReplay: a prefill pass of work already seen replays its
	// recorded L3 lookups (tile fidelity; exact).
	PrefillReplay bool
	// ScanBypass: a decode step's KV or weight scan that cannot hit skips
	// the L3 (tile fidelity; within 1%).
	ScanBypass bool
	// SpillBypass: spilled activations last read far more than their L3
	// ways hold ago skip the L3 (tile fidelity; within 1%).
	SpillBypass bool
	// StepReuse: decode steps between simulated ones are interpolated
	// (tile and analytic; within 1%).
	StepReuse bool
	// LayerReplay: a prefill's layer that begins with the L3 as the one
	// before began and plans alike takes that layer's hits (tile
	// fidelity; within 0.1%).
	LayerReplay bool
}

// shortcut is one of the shortcuts Shortcuts names.
type shortcut int

const (
	leap shortcut = iota
	prefillReplay
	scanBypass
	stepReuse
	spillBypass
	layerReplay
)

// off reports whether x switches shortcut s off.
func (x Shortcuts) off(s shortcut) bool {
	return [...]bool{leap: x.Leap, prefillReplay: x.PrefillReplay, scanBypass: x.ScanBypass, stepReuse: x.StepReuse, spillBypass: x.SpillBypass, layerReplay: x.LayerReplay}[s]
}

// takes reports whether the run takes shortcut s: its fidelity's options
// allow it and Exact does not switch it off (and decode steps are reused
// only where each step's weight traffic lies on a line through its
// neighbours').
func (c *Config) takes(s shortcut) bool {
	if c.Fidelity.Options().shortcuts&(1<<s) == 0 || c.Exact.off(s) {
		return false
	}
	return s != stepReuse || !c.routesUnionPerStep()
}

// routesUnionPerStep reports whether each decode step reads its own
// union of experts: an MoE decode of several sequences, whose routing is
// drawn per step and per sequence, so a step's weight traffic does not lie
// on a line through its neighbours' and decode steps are not
// interpolated (TestMetamorphic found reuse 1.7% off seed-b's MoE at
// batch 2). One sequence always reads its top-k.
func (c *Config) routesUnionPerStep() bool {
	m := c.Model.MoE
	return m != nil && c.runBatch() > 1 && m.Active < m.Experts
}

// runBatch is the batch the passes compute: the run's, or the next larger
// one its runtime's graphs are compiled for (runtimes.Profile.Batches), the
// extra sequences computed, held in the KV cache and thrown away. Only the
// run's own sequences are sampled and counted.
func (c *Config) runBatch() int { return c.compiledBatch(c.Batch) }

// compiledBatch is the batch n sequences run as: the smallest of the
// runtime's compiled batch sizes that holds them, or n.
func (c *Config) compiledBatch(n int) int {
	if c.Runtime != nil {
		for _, b := range c.Runtime.Batches {
			if b >= n {
				return b
			}
		}
	}
	return n
}

// ParseFidelity reads a fidelity's name.
func ParseFidelity(s string) (Fidelity, error) {
	switch f := Fidelity(s); f {
	case Analytic, Tile, Line:
		return f, nil
	}
	return "", spec.FieldErrorf("fidelity", "%q is not allowed: use analytic, tile or line", s)
}

// Config is one simulation's inputs.
type Config struct {
	Chip  *hw.Chip
	Model *workloads.Spec
	Quant workloads.Quant
	KV    workloads.KVFormat
	Unit  string // the unit that runs the matrix work; "" picks the fastest
	// Runtime is the software stack that runs the model (nil: the one a
	// user of the chip would run for the model's formats, see Choose);
	// Threads the CPU threads it uses (0: the runtime's default).
	Runtime *runtimes.Profile
	Threads int
	// RuntimeSets override figures of the runtime the run uses, given or
	// chosen (--set runtime.context=32768; paths without the prefix).
	RuntimeSets []spec.Override
	// CPULayers are the blocks the CPU runs instead of the unit, a layer
	// split (handoff.go); none: the unit runs every block it supports.
	CPULayers Layers
	// LayersOn are blocks a third unit runs, beside the run's unit and
	// the CPU: a GPU beside an NPU.
	LayersOn UnitLayers
	Policy   *Policy // tensor placement; nil takes the chip's (memory policy)
	Prompt   int     // prefill tokens per sequence
	Depth    int     // tokens in the KV cache before the prompt (a follow-up request, llama-bench -d): attended to, not prefilled
	Gen      int     // decoded tokens per sequence
	Batch    int     // concurrent sequences
	Fidelity Fidelity
	Seed     uint64
	// NoSampling times the forward passes alone, drawing no token from the
	// logits: what llama-bench's tests measure (they decode without a
	// sampler). A run to predict such a measurement sets it.
	NoSampling bool
	// Trace, when set, receives the run's timeline (tile and line
	// fidelities).
	Trace *Trace
	// Series, when set, receives the run's time series, point by point
	// as the run produces them; the run keeps none of it.
	Series SeriesSink
	// Prefills, when set, shares the L3 outcome of the first prefill with
	// the other runs given the same (see FirstPrefills); the results are
	// those of runs without it.
	Prefills *FirstPrefills
	// Scenario, when set, runs a session instead of one prompt: Prompt and
	// Gen become each request's, and Duration (or the scenario's) bounds it.
	Scenario *workloads.Scenario
	Duration float64 // seconds; 0 takes the scenario's
	// Draft, when set, decodes speculatively with a draft model.
	Draft *Draft
	// Schedule, when set, is the scheduling policy: pauses and the
	// decoding of each turn by rules over the run's state.
	Schedule *Schedule

	// Exact switches shortcuts off, one by one (the zero value takes every
	// shortcut the fidelity allows).
	Exact Shortcuts

	graph *compiled // the model compiled, kept for the run (Config.compiled)
	// cpuRuntime is the runtime whose figures the CPU runs the model's
	// operators at beside the unit (resolve); nil: the chip's own.
	cpuRuntime *runtimes.Profile
	// sideRuntime is the runtime the unit of LayersOn runs its blocks at.
	sideRuntime *runtimes.Profile
}

// compiled is a model compiled under one quantisation and KV format, with
// what it was compiled from.
type compiled struct {
	spec  *workloads.Spec
	quant workloads.Quant
	kv    workloads.KVFormat
	g     *workloads.Graph
}

// compiled is the run's model compiled under its quantisation and KV
// format: built on first use and kept while the config names the same
// model, quantisation and KV format, so that choosing the unit, sizing
// the footprint and every pass share one weight table.
func (c *Config) compiled() *workloads.Graph {
	if g := c.graph; g != nil && g.spec == c.Model && g.quant == c.Quant && g.kv == c.KV {
		return g.g
	}
	c.graph = &compiled{spec: c.Model, quant: c.Quant, kv: c.KV, g: workloads.Compile(c.Model.Model, c.Quant, c.KV)}
	return c.graph.g
}

// pickUnit returns the unit that runs the model's matrix work and the dtype
// it computes in: the named one, or the one with the highest peak at its
// compute dtype.
func pickUnit(c *Config) (*hw.Unit, dtype.Dtype, error) {
	act := c.Quant.ActDtype(workloads.RoleFFN)
	formats := formatNames(c)
	if c.Unit != "" {
		u := c.Chip.Unit(c.Unit)
		if u == nil {
			return nil, "", spec.FieldErrorf("unit", "%q: %s has no such unit; units: %s", c.Unit, c.Chip.ID, strings.Join(c.Chip.UnitNames(), ", "))
		}
		dt, ok := u.ComputeDtype(act)
		if !ok {
			return nil, "", spec.FieldErrorf("unit", "%s cannot run %s: it has no peak at %s or above", u.Name, c.Quant, act)
		}
		if f, ok := Unread(c.Chip, u, formats); ok {
			return nil, "", spec.FieldErrorf("unit", "%s cannot run %s: its kernels do not read %s weights (it reads %s); choose another quant or unit", u.Name, c.Quant, f, strings.Join(UnitFormats(c.Chip, u), ", "))
		}
		return u, dt, nil
	}
	best, bestDt := bestUnit(c, func(u *hw.Unit) bool { return c.reads(u, formats) })
	if best == nil {
		return nil, "", spec.Errorf("no unit of %s can run %s (activations %s; a unit needs a peak at or above them and to read the weight formats)", c.Chip.ID, c.Quant, act)
	}
	return best, bestDt, nil
}

// Footprint is what a run keeps in DRAM.
type Footprint struct {
	Weights, KV float64 // bytes
	// Draft is a speculative draft model's weights and KV cache.
	Draft float64
}

// Total is weights plus KV cache, the draft's included.
func (f Footprint) Total() float64 { return f.Weights + f.KV + f.Draft }

func footprint(c *Config) Footprint {
	f := Footprint{
		Weights: c.compiled().WeightBytes(),
		KV:      c.Model.KVBytes(c.KV, c.allocated()) * float64(c.runBatch()),
	}
	if d := c.Draft; d != nil {
		f.Draft = d.Model.WeightBytes(c.Quant) + d.Model.KVBytes(c.KV, c.allocated())
	}
	return f
}

// context is the most tokens a sequence's KV cache holds: the depth, the
// prompt and the generated tokens.
func (c *Config) context() int { return c.Depth + c.Prompt + c.Gen }

// allocated is the KV cache a sequence holds in memory, in tokens: its
// context, or the runtime's preallocated context when that is larger
// (Genie's models are compiled for 4096 tokens).
func (c *Config) allocated() int {
	n := c.context()
	if c.Runtime != nil && c.Runtime.Context > n {
		n = c.Runtime.Context
	}
	if b := c.kvBlock(); b > 0 {
		n = (n + b - 1) / b * b // whole blocks
	}
	return n
}

// kvBlock is the tokens of one block of a paged KV cache, or 0 when the
// cache is one contiguous buffer (runtimes.Profile.KVBlock).
func (c *Config) kvBlock() int {
	if c.Runtime == nil {
		return 0
	}
	return c.Runtime.KVBlock
}

// memoryPlan is where a run's bytes live when they pass the app's budget.
type memoryPlan struct {
	// paged is the share of the weights left on storage (a runtime that
	// maps them, or streams them all: streamed).
	paged    float64
	streamed bool
	// flash is the runtime's sparse FFN loading; nil when it has none.
	flash *flashFFN
	// kvRoom is the KV cache (all layers) that fits the budget beside the
	// weights when the rest swaps; 0 when the KV cache never swaps.
	kvRoom float64
}

// onStorage is the bytes of the weights that live on storage: the share
// mapped or streamed, or the FFN's uncached share.
func (p memoryPlan) onStorage(f Footprint) float64 {
	if p.flash != nil {
		return p.flash.stored()
	}
	return p.paged * f.Weights
}

// loaded is the bytes a cold start reads into memory: the weights (and
// draft) but those that live on storage.
func (p memoryPlan) loaded(c *Config) float64 {
	f := footprint(c)
	return f.Weights + f.Draft - p.onStorage(f)
}

// checkFit rejects a model the chip's DRAM cannot hold, or the app's
// budget of it. A runtime that maps its weights (mmap) runs past the
// budget with the weights that do not fit left on storage; a KV cache
// that grows past the budget beside weights that fit swaps, where the
// device swaps. A model larger than the DRAM itself is refused unless the
// runtime streams its layers, holding only two blocks' weights, or reads
// its FFN by active neuron (flash_ffn), holding the rest. The plan says
// which.
func checkFit(c *Config) (memoryPlan, error) {
	f := footprint(c)
	has := float64(c.Chip.Memory.DRAM.Capacity)
	budget := c.Chip.Memory.AppBudget()
	draft := ""
	if f.Draft > 0 {
		draft = " + draft " + c.Draft.Model.Name + " " + units.Approx(f.Draft, units.KindBytes)
	}
	if rt := c.Runtime; rt != nil && rt.StreamLayers {
		// Two blocks' weights (the one computing, the next loading) beside
		// the KV cache.
		held := 2*f.Weights/float64(c.Model.Layers) + f.KV + f.Draft
		if held > budget {
			return memoryPlan{}, spec.Errorf("%s %s on %s does not fit even streamed: two blocks' weights and the KV cache need %s, the app budget is %s (memory.app_share)%s",
				c.Model.Name, c.Quant, c.Chip.ID, units.Approx(held, units.KindBytes), units.Approx(budget, units.KindBytes), contextHint(c, budget-2*f.Weights/float64(c.Model.Layers)-f.Draft))
		}
		return memoryPlan{paged: 1, streamed: true}, nil
	}
	if rt := c.Runtime; rt != nil && rt.FlashFFN != nil {
		fl, err := newFlashFFN(c)
		if err != nil {
			return memoryPlan{}, err
		}
		// The FFN's cached share beside everything else.
		stored := fl.stored()
		if held := f.Total() - stored; held > budget {
			return memoryPlan{}, spec.Errorf("%s %s on %s does not fit even with its FFN on storage: the other weights, the %s of the FFN held in DRAM and the KV cache need %s, the app budget is %s (memory.app_share)%s",
				c.Model.Name, c.Quant, c.Chip.ID, fl.Cached, units.Approx(held, units.KindBytes), units.Approx(budget, units.KindBytes), contextHint(c, budget-f.Weights+stored-f.Draft))
		}
		return memoryPlan{flash: fl}, nil
	}
	if f.Total() > has {
		// Mapped, such a model would page most of its weights in every
		// pass; the contract refuses it.
		return memoryPlan{}, spec.Errorf("%s %s on %s does not fit: needs %s (weights %s + KV cache %s%s), has %s%s",
			c.Model.Name, c.Quant, c.Chip.ID, units.Approx(f.Total(), units.KindBytes), units.Approx(f.Weights, units.KindBytes), units.Approx(f.KV, units.KindBytes), draft, units.Approx(has, units.KindBytes), contextHint(c, budget-f.Weights-f.Draft))
	}
	if f.Total() <= budget {
		return memoryPlan{}, nil
	}
	if sw := c.Chip.Memory.Swap; sw.Kind != "none" && f.Weights+f.Draft < budget {
		return memoryPlan{kvRoom: budget - f.Weights - f.Draft}, nil
	}
	if rt := c.Runtime; rt != nil && rt.Mmap && f.KV+f.Draft < budget {
		return memoryPlan{paged: (f.Total() - budget) / f.Weights}, nil
	}
	how := "no runtime profile maps the weights"
	if c.Runtime != nil && c.Runtime != runtimes.None {
		how = c.Runtime.ID + " reads its weights into memory (no mmap)"
	}
	if c.Chip.Memory.Swap.Kind == "none" {
		how += ", and the device has no swap (memory.swap.kind)"
	}
	return memoryPlan{}, spec.Errorf("%s %s on %s does not fit: needs %s (weights %s + KV cache %s%s), has %s, the app budget of the %s (memory.app_share: %s); %s%s",
		c.Model.Name, c.Quant, c.Chip.ID, units.Approx(f.Total(), units.KindBytes), units.Approx(f.Weights, units.KindBytes), units.Approx(f.KV, units.KindBytes), draft,
		units.Approx(budget, units.KindBytes), units.Approx(has, units.KindBytes), budgetBasis(c), how, contextHint(c, budget-f.Weights-f.Draft))
}

// budgetBasis says what the chip's app budget is: its share of the DRAM
// and where that comes from.
func budgetBasis(c *Config) string {
	share := fmt.Sprintf("%.0f%% of it", 100*float64(c.Chip.Memory.AppShare))
	for _, p := range c.Chip.Provenance {
		if p.Path != "memory.app_share" {
			continue
		}
		why, assumed := strings.CutPrefix(p.Source, "assumed: ")
		if i := strings.IndexAny(why, ":—"); i > 0 {
			why = strings.TrimSpace(why[:i])
		}
		if assumed {
			why += ", assumed"
		}
		return share + ", " + why
	}
	return share
}

// contextHint says, for a scenario whose KV does not fit, how far its
// context grows and the limit that would fit the room left beside the
// weights (a multiple of 512 tokens); "" otherwise.
func contextHint(c *Config, room float64) string {
	sc := c.Scenario
	perToken := c.Model.KVBytesPerToken(c.KV) * float64(c.runBatch())
	if sc == nil {
		// One prompt: say which settings sized the KV cache and how much
		// of it would fit, when it is what does not fit.
		if float64(c.allocated())*perToken <= room {
			return ""
		}
		var parts []string
		for _, p := range []struct {
			field string
			n     int
		}{{"depth", c.Depth}, {"prompt", c.Prompt}, {"gen", c.Gen}} {
			if p.n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", p.field, p.n))
			}
		}
		sized := strings.Join(parts, " + ")
		if rt := c.Runtime; rt != nil && rt.Context > c.context() {
			sized = fmt.Sprintf("%s preallocates its context of %d; the run needs %d: %s", rt.ID, rt.Context, c.context(), sized)
		}
		batch := ""
		if b := c.runBatch(); b > 1 {
			batch = fmt.Sprintf(" for each of the batch's %d sequences", b)
		}
		return fmt.Sprintf("; the KV cache holds %d tokens (%s)%s: %d fit beside the weights",
			c.allocated(), sized, batch, max(0, int(room/perToken)))
	}
	grows := fmt.Sprintf("; the %s scenario's context grows to %d tokens", sc.Name, c.context())
	if sc.ContextLimit == 0 {
		grows += " (the model's trained maximum, as the scenario sets no context_limit)"
	}
	fits := int(room/perToken) / 512 * 512
	if fits <= sc.Prompt+sc.SystemPrompt {
		return grows + "; even its first prompt leaves no room: choose a smaller model or quant"
	}
	return grows + fmt.Sprintf(": cap it with scenario.context_limit=%d, which fits", fits)
}

// validateServe checks a serve scenario against the rest of the run and
// sizes its KV slots: one a sequence the schedule's batching decodes
// together, each holding the longest request.
func (c *Config) validateServe(limit int) error {
	sc := c.Scenario
	slots := 1
	if s := c.Schedule; s != nil {
		if s.Batching != nil {
			slots = s.Batching.Max
		}
		if s.picksDecoding() {
			return spec.FieldErrorf("schedule", "%s picks each turn's decoding; the requests of serve scenario %s decode together, plainly", s.Name, sc.Name)
		}
	}
	switch {
	case c.Draft != nil:
		return spec.FieldErrorf("draft", "speculative decoding of a batch of requests is not modelled: give serve scenario %s without a draft", sc.Name)
	case sc.Rate*c.Duration > workloads.MaxTurns:
		return spec.FieldErrorf("duration", "%s of serve scenario %s at %g requests a second is %.0f requests: at most %d a run", units.Seconds(c.Duration), sc.Name, sc.Rate, sc.Rate*c.Duration, workloads.MaxTurns)
	case c.Batch != 1 && c.Batch != slots:
		return spec.FieldErrorf("batch", "%d with serve scenario %s: its batch is the schedule's batching.max (%d here); give the batching in the schedule", c.Batch, sc.Name, slots)
	}
	longest := func(n int) int { return int(math.Ceil(float64(n) * (1 + float64(sc.Spread)))) }
	c.Prompt, c.Gen, c.Batch = longest(sc.Prompt), longest(sc.Answer), slots
	if c.Prompt+c.Gen > limit {
		return spec.Errorf("scenario %s: a request of up to %d + %d tokens passes the context limit of %d", sc.Name, c.Prompt, c.Gen, limit)
	}
	return nil
}

func (c *Config) validate() error {
	switch {
	case c.Chip == nil || c.Model == nil:
		panic("sim: Config needs a chip and a model")
	case c.Prompt < 0:
		return spec.FieldErrorf("prompt", "%d is not allowed: must be 0 or more", c.Prompt)
	case c.Gen < 0:
		return spec.FieldErrorf("gen", "%d is not allowed: must be 0 or more", c.Gen)
	case c.Batch < 1:
		return spec.FieldErrorf("batch", "%d is not allowed: must be 1 or more", c.Batch)
	case c.Threads < 0:
		return spec.FieldErrorf("threads", "%d is not allowed: must be 1 or more (0: the runtime's default)", c.Threads)
	case c.Depth < 0:
		return spec.FieldErrorf("depth", "%d is not allowed: must be 0 or more", c.Depth)
	case c.Depth > 0 && c.Scenario != nil:
		return spec.FieldErrorf("depth", "%d with scenario %s: a scenario sets its own context; give one or the other", c.Depth, c.Scenario.Name)
	}
	if c.Fidelity == "" {
		c.Fidelity = Tile
	}
	if sc := c.Scenario; sc != nil {
		if c.Duration == 0 {
			c.Duration = float64(sc.Duration)
		}
		limit := sc.ContextLimit
		if limit == 0 {
			limit = c.Model.MaxContext
		}
		first := sc.Prompt + sc.SystemPrompt
		if first >= limit {
			return spec.Errorf("scenario %s: a prompt of %d tokens leaves nothing to decode before the context limit of %d", sc.Name, first, limit)
		}
		// Prompt and Gen size the KV cache: a session's context grows up
		// to the limit; a single request holds its prompt and answer.
		c.Prompt, c.Gen = first, limit-first
		switch sc.Kind {
		case workloads.Single:
			c.Gen = sc.Answer
		case workloads.Chat: // the longest conversation the turns can hold
			most := float64(sc.SystemPrompt) + float64(sc.Turns*(sc.Prompt+sc.Answer))*(1+float64(sc.Spread))
			c.Gen = min(limit, int(math.Ceil(most))) - first
		case workloads.Serve: // a slot holds the longest request
			if err := c.validateServe(limit); err != nil {
				return err
			}
		}
		for _, st := range sc.Stages {
			if st.Unit != "" && c.Chip.Unit(st.Unit) == nil {
				return spec.Errorf("scenario %s: stage %s runs on unit %q, which %s does not have; units: %s", sc.Name, st.Name, st.Unit, c.Chip.ID, strings.Join(c.Chip.UnitNames(), ", "))
			}
		}
	}
	if c.Draft != nil {
		if err := c.Draft.validate(c); err != nil {
			return err
		}
	}
	if s := c.Schedule; s != nil && s.picksSpeculative() && c.Draft == nil {
		return spec.FieldErrorf("schedule", "%s picks speculative decoding for some turns: give the draft model (draft)", s.Name)
	}
	if c.Duration < 0 {
		return spec.FieldErrorf("duration", "%g s is not allowed: must be positive", c.Duration)
	}
	if c.Policy == nil {
		p, err := LoadPolicy(c.Chip.Policy)
		if err != nil {
			// The chip file named it: say so there, not as a setting.
			var se *spec.Error
			if c.Chip.PolicyLine > 0 && errors.As(err, &se) && se.File == "" && se.Field == "policy" {
				e := *se
				e.File, e.Line, e.Path, e.Field = c.Chip.ID, c.Chip.PolicyLine, "policy", ""
				return &e
			}
			return err
		}
		c.Policy = p
	}
	// A layer split given as a setting overrides the placement file's.
	fromPolicy := len(c.CPULayers) == 0 && len(c.Policy.cpuLayers) > 0
	if fromPolicy {
		c.CPULayers = c.Policy.cpuLayers
	}
	if n := len(c.CPULayers); n > 0 && c.CPULayers[n-1] >= c.Model.Layers {
		msg := fmt.Sprintf("block %d is not allowed: %s has %d blocks, 0-%d", c.CPULayers[n-1], c.Model.Name, c.Model.Layers, c.Model.Layers-1)
		if fromPolicy {
			return spec.Errorf("policy %s: cpu_layers: %s", c.Policy.Name, msg)
		}
		return spec.FieldErrorf("cpu-layers", "%s", msg)
	}
	return c.validateLayersOn()
}

// validateLayersOn checks the third unit of a layer split: a unit of the
// chip other than its CPU, blocks of the model, none of them the CPU's.
func (c *Config) validateLayersOn() error {
	fromPolicy := len(c.LayersOn.Layers) == 0 && len(c.Policy.layersOn.Layers) > 0
	if fromPolicy {
		c.LayersOn = c.Policy.layersOn
	}
	on := c.LayersOn
	if len(on.Layers) == 0 {
		return nil
	}
	fail := func(format string, args ...any) error {
		if fromPolicy {
			return spec.Errorf("policy %s: layers_on: %s", c.Policy.Name, fmt.Sprintf(format, args...))
		}
		return spec.FieldErrorf("layers-on", format, args...)
	}
	u := c.Chip.Unit(on.Unit)
	switch {
	case u == nil:
		return fail("unit %q is not one of %s's: %s", on.Unit, c.Chip.ID, strings.Join(c.Chip.UnitNames(), ", "))
	case u.Kind == hw.CPU:
		return fail("%s is the CPU: its blocks are cpu-layers", on.Unit)
	case on.Layers[len(on.Layers)-1] >= c.Model.Layers:
		return fail("block %d is not allowed: %s has %d blocks, 0-%d", on.Layers[len(on.Layers)-1], c.Model.Name, c.Model.Layers, c.Model.Layers-1)
	}
	for _, l := range on.Layers {
		if slices.Contains(c.CPULayers, l) {
			return fail("block %d is placed on the CPU too (cpu-layers %s): a block runs on one unit", l, c.CPULayers)
		}
	}
	return nil
}

// provenance joins the chip's and the model's provenance.
func provenance(c *Config) []spec.Entry {
	out := append([]spec.Entry(nil), c.Chip.Provenance...)
	out = append(out, c.Model.Provenance...)
	if host := hostCPU(c.Chip); host != nil && !c.NoSampling {
		cycles, source := samplerCycles(host)
		out = append(out, spec.Entry{Path: "sampling.cycles_per_logit", Value: strconv.FormatFloat(cycles, 'g', -1, 64), Source: source})
	}
	if d := c.Draft; d != nil {
		given := func(assumed bool) string {
			if assumed {
				return "assumed"
			}
			return "given"
		}
		out = append(out,
			spec.Entry{Path: "draft.len", Value: strconv.Itoa(d.length()), Source: given(d.Len == 0)},
			spec.Entry{Path: "draft.accept_rate", Value: strconv.FormatFloat(d.accept(), 'g', -1, 64), Source: given(d.Accept == nil)})
	}
	return out
}
