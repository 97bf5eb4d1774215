package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/workloads"
)

// A run is a session of turns. One prompt (no scenario) is one turn
// without pipeline stages; a single scenario is one turn with them; a
// sustained scenario is turns back to back, each from a fresh context,
// until its time is up; a chat is its turns with think time between them,
// the context growing across turns until the limit truncates or resets it.

// turnSpec is what one turn runs.
type turnSpec struct {
	req              int
	base             int // tokens in the context before the turn
	prompt, gen      int
	cold             bool
	truncated, reset bool
	compressed       bool // the context was compressed to base before the turn
	// summarized says the turn first writes a summary after summarize
	// tokens of context, then prefills the system prompt, the summary and
	// the message from an empty context.
	summarized bool
	summarize  int
}

// session collects what the turns of a run did.
type session struct {
	pass     func(string, workloads.Work) float64
	prefills []float64
	steps    stepTimes // every decode step of every turn, summarised
	turns    []Turn
	ttft     float64 // the first turn's, warm
}

// maxIdleStretch bounds one stretch of think time, so the governor polls
// and the series has points while the chip cools.
const maxIdleStretch = 1.0

// runSession runs the turns of cfg and fills the result's turn figures.
func (e *engine) runSession(ctx context.Context, pass func(string, workloads.Work) float64, r *Result) (*session, error) {
	c := e.cfg
	s := &session{pass: pass}
	sc := c.Scenario
	e.stopAt = c.Duration
	timeUp := func() bool { return e.stopAt > 0 && e.clock >= e.stopAt }
	switch {
	case sc == nil:
		if err := e.turn(ctx, s, turnSpec{base: c.Depth, prompt: c.Prompt, gen: c.Gen}); err != nil {
			return nil, err
		}
	case sc.Kind == workloads.Single:
		if err := e.turn(ctx, s, turnSpec{prompt: c.Prompt, gen: c.Gen, cold: sc.ColdStart}); err != nil {
			return nil, err
		}
	case sc.Kind == workloads.Sustained:
		for req := 0; req == 0 || !timeUp(); req++ {
			if err := e.turn(ctx, s, turnSpec{req: req, prompt: c.Prompt, gen: c.Gen, cold: sc.ColdStart && req == 0}); err != nil {
				return nil, err
			}
		}
	case sc.Kind == workloads.Serve:
		served, err := e.serve(ctx, s)
		if err != nil {
			return nil, err
		}
		r.Serve = served
	case sc.Kind == workloads.Chat:
		rng := rand.New(rand.NewPCG(c.Seed, 0x63686174)) // "chat"
		limit := e.contextLimit()
		base := 0
		for req := 0; req < sc.Turns && (req == 0 || !timeUp()); req++ {
			if req > 0 {
				e.idle(float64(sc.ThinkTime))
			}
			ts := turnSpec{req: req, base: base, cold: sc.ColdStart && req == 0,
				prompt: sc.Length(sc.Prompt, rng.Float64()), gen: sc.Length(sc.Answer, rng.Float64())}
			if base == 0 {
				ts.prompt += sc.SystemPrompt
			}
			if base+ts.prompt+ts.gen > limit {
				switch sc.OnFull {
				case workloads.Reset:
					if base > 0 { // a fresh conversation prefills the system prompt again
						ts.prompt += sc.SystemPrompt
					}
					ts.base, ts.reset = 0, true
				case workloads.Compress:
					ts.base, ts.compressed = max(sc.SystemPrompt, int(float64(sc.Keep)*float64(base))), true
				case workloads.Summarize:
					// The summary is written after the conversation so far,
					// its oldest tokens dropped where it would not fit.
					ts.summarize = max(0, min(base, limit-sc.Summary))
					ts.prompt += sc.SystemPrompt + sc.Summary
					ts.base, ts.summarized = 0, true
				default:
					ts.base, ts.truncated = max(sc.SystemPrompt, limit-ts.prompt-ts.gen), true
				}
				ts.base = min(ts.base, limit-ts.prompt-ts.gen)
				if ts.base < 0 { // the turn alone passes the limit: shorten its answer
					ts.base, ts.gen = 0, max(1, limit-ts.prompt)
				}
			}
			if err := e.turn(ctx, s, ts); err != nil {
				return nil, err
			}
			base = ts.base + ts.prompt + ts.gen
		}
	}
	if sc != nil {
		r.Turns = s.turns
		r.TurnLatency = turnLatency(s.turns)
	}
	return s, nil
}

// judgeBudget marks, under a schedule with a budget, whether turn t kept
// to it, and counts it.
func (e *engine) judgeBudget(t *Turn) {
	if e.sched == nil || e.sched.s.Budget <= 0 {
		return
	}
	within := t.TotalS <= float64(e.sched.s.Budget)
	t.WithinBudget = &within
	e.sched.res.Turns++
	if within {
		e.sched.res.TurnsWithinBudget++
	}
}

// compact moves the kept entries of a compressed KV cache, positions of
// them, into a dense cache: each read and written once through DRAM by the
// CPU. The scores that choose them come from the attention the decode
// computed already. It returns its time.
func (e *engine) compact(positions int) float64 {
	bytes := 2 * float64(positions) * e.cfg.Model.KVBytesPerToken(e.cfg.KV) * float64(e.cfg.runBatch())
	seconds := bytes / e.hostDRAM()
	e.stageUnit = e.host
	e.advance(workloads.Decode, "compress", counters{stage: seconds, dramBytes: bytes}, seconds)
	e.stageUnit = nil
	return seconds
}

// allocate gives seqs fresh contexts their KV cache on demand: every page
// of the cache the runtime allocates for a sequence faulted in and zeroed
// by the CPU, before the prefill can use it. It returns its time.
func (e *engine) allocate(seqs int) float64 {
	c := e.cfg
	bytes := c.Model.KVBytes(c.KV, c.allocated()) * float64(seqs)
	pages := math.Ceil(bytes / hw.PageBytes)
	seconds := pages*float64(c.Chip.Memory.PageFault) + bytes/e.hostDRAM()
	e.stageUnit = e.host
	e.advance(workloads.Prefill, "allocate", counters{stage: seconds, dramBytes: bytes}, seconds)
	e.stageUnit = nil
	return seconds
}

// contextLimit is where a scenario's context stops growing.
func (e *engine) contextLimit() int {
	if sc := e.cfg.Scenario; sc != nil && sc.ContextLimit > 0 {
		return sc.ContextLimit
	}
	return e.cfg.Model.MaxContext
}

// turn runs one request as the user sees it: the model's load on a cold
// start, the input stages, the prefill and the first token's sampling, the
// decode steps, the stages of each streamed token and the output stages.
func (e *engine) turn(ctx context.Context, s *session, ts turnSpec) error {
	c := e.cfg
	t := Turn{Turn: ts.req + 1, StartS: e.clock, Context: ts.base, Prompt: ts.prompt, Answer: ts.gen,
		Cold: ts.cold, Truncated: ts.truncated, Reset: ts.reset, Compressed: ts.compressed, Summarized: ts.summarized}
	stage := func(name string, seconds float64) {
		t.Stages = append(t.Stages, StageTime{Name: name, Seconds: seconds})
	}
	if ts.cold {
		stage("load", e.coldLoad())
	}
	warm := e.clock
	if ts.req > 0 && e.reclaims() {
		stage("reload", e.reload())
	}
	if ts.compressed {
		stage("compress", e.compact(ts.base))
	}
	if ts.summarized {
		steps, err := e.decode(ctx, s.pass, ts.summarize, c.Scenario.Summary)
		if err != nil {
			return err
		}
		stage("summarize", sum(steps))
	}
	if c.Scenario != nil && c.Scenario.Allocation == workloads.OnDemand && ts.base == 0 {
		stage("allocate", e.allocate(c.Batch))
	}
	var stages []workloads.Stage
	if c.Scenario != nil {
		stages = c.Scenario.Stages
	}
	for _, st := range stages {
		if st.When == workloads.StageInput {
			stage(st.Name, e.runStage(st, st.Seconds(ts.prompt), workloads.Prefill))
		}
	}

	work := workloads.Work{Phase: workloads.Prefill, Tokens: ts.prompt, Context: ts.base, Batch: c.runBatch(), Seed: c.Seed + uint64(ts.req)}
	before := e.st.counters
	var prefill float64
	if ts.prompt > 0 {
		prefill = e.prefill(s.pass, requestName("prefill", ts.req, *c), work)
	}
	sample := e.sample()
	e.advance(workloads.Prefill, workloads.Prefill.String(), e.st.counters.minus(before), prefill+sample)
	stage("prefill", prefill)
	stage("sample", sample)
	if e.spec != nil {
		draft := e.prefillDraft(work)
		stage("draft prefill", draft)
		prefill += draft
	}
	s.prefills = append(s.prefills, prefill)

	// Each streamed token passes the token stages before it is on screen;
	// the first token's count towards the time to first token.
	var perToken, overlapped float64
	for _, st := range stages {
		switch {
		case st.When == workloads.StageToken && st.Overlap:
			overlapped += st.Seconds(1)
		case st.When == workloads.StageToken:
			perToken += st.Seconds(1)
		}
	}
	// The first token is on screen once all its stages ran.
	e.runStageTime(perToken+overlapped, workloads.Decode)
	t.TTFTS = e.clock - t.StartS
	if len(s.prefills) == 1 {
		s.ttft = e.clock - warm
	}

	var steps []float64
	if !(e.stopAt > 0 && e.clock >= e.stopAt) {
		if e.sched != nil {
			e.sched.turn = ScheduleState{Turn: ts.req + 1, Context: ts.base + ts.prompt, AnswerTokens: ts.gen, StepS: e.sched.plainStep, TTFTS: t.TTFTS}
			e.sched.startS = t.StartS
		}
		speculative, err := e.pickDecoding()
		if err != nil {
			return err
		}
		t.Speculative = speculative
		e.overlap = overlapped // each sampled token's stages, charged as they run beside the steps
		if overlapped > 0 {
			e.stageUnit = e.host
		}
		if speculative {
			steps, err = e.speculate(ctx, ts.base+ts.prompt, ts.gen)
		} else {
			steps, err = e.decode(ctx, s.pass, ts.base+ts.prompt, ts.gen)
		}
		e.overlap, e.stageUnit = 0, nil
		if err != nil {
			return err
		}
		e.notePace(speculative, steps)
	}
	stage("decode", sum(steps))
	if perToken > 0 {
		// The stages of the streamed tokens run on the CPU between steps;
		// they are charged as one stretch after the decode, and each step's
		// latency carries its share.
		e.runStageTime(perToken*float64(len(steps)), workloads.Decode)
		for i := range steps {
			steps[i] += perToken
		}
	}
	if overlapped > 0 && len(steps) > 0 {
		// The unit began the first step as the first token went to its
		// stages, overlapped before it showed: token i is made at P_i (the
		// steps so far, less that head start) and on screen at S_i =
		// max(P_i, S_i−1) + the overlapped stages. The stream waits for
		// them only where they are longer than a step, and the turn for
		// what the last tokens' leave after the last step.
		var made, shown float64
		for i := range steps {
			made += steps[i]
			next := max(made-overlapped, shown) + overlapped
			steps[i], shown = next-shown, next
		}
		if tail := shown - made; tail > 0 {
			e.advance(workloads.Decode, "stream", counters{}, tail)
		}
	}
	if perToken+overlapped > 0 {
		for _, st := range stages {
			if st.When == workloads.StageToken {
				stage(st.Name, st.Seconds(1)*float64(1+len(steps)))
			}
		}
	}
	for _, x := range steps {
		s.steps.add(x, c.Batch)
	}
	for _, st := range stages {
		if st.When == workloads.StageOutput {
			stage(st.Name, e.runStage(st, st.Seconds(len(steps)), workloads.Decode))
		}
	}
	t.TotalS = e.clock - t.StartS
	e.judgeBudget(&t)
	s.turns = append(s.turns, t)
	return nil
}

// prefill runs a prompt: one pass, or, under a runtime whose prefill
// graph is compiled for a fixed length, whole chunks of it, the last
// padded to the chunk (the padding is counted as wasted tokens). It
// returns the time.
func (e *engine) prefill(pass func(string, workloads.Work) float64, name string, w workloads.Work) float64 {
	chunk := 0
	if rt := e.cfg.Runtime; rt != nil {
		chunk = rt.PrefillChunk
	}
	if chunk == 0 || w.Tokens == 0 {
		return pass(name, w)
	}
	var t float64
	n := (w.Tokens + chunk - 1) / chunk
	for i := range n {
		part := w
		part.Tokens, part.Context = chunk, w.Context+i*chunk
		t += pass(name, part)
	}
	e.st.paddedTokens += n*chunk - w.Tokens
	return t
}

// coldStart is the time to load the model before its first prompt: the
// weights that stay in memory read from storage (those that stay on
// storage are read by the passes), then the unit's runtime initialised.
func coldStart(c *Config, u *hw.Unit, plan memoryPlan) float64 {
	return plan.loaded(c)/float64(c.Chip.Storage.ReadBandwidth) + float64(u.Init)
}

// reclaims reports whether the operating system takes part of the
// weights back between turns (Scenario.Reclaim): the scenario says so and
// the runtime computes from the mapped weights file, whose clean pages
// the OS may drop. A runtime that holds its weights in its own memory
// keeps them (the run says so); a streamed or neuron-loaded model holds
// little of them to take.
func (e *engine) reclaims() bool {
	c := e.cfg
	return c.Scenario != nil && c.Scenario.Reclaim > 0 && c.Runtime != nil && c.Runtime.Mmap && !e.mem.streamed && e.mem.flash == nil
}

// reload reads back from storage the weights the operating system took
// while the user was away: the scenario's share of those resident, faulted
// in before the next prefill at the storage's sequential rate (readahead
// over each layer's pages). It returns its time.
func (e *engine) reload() float64 {
	w := float64(e.cfg.Scenario.Reclaim) * e.mem.loaded(e.cfg)
	t := w / float64(e.cfg.Chip.Storage.ReadBandwidth)
	e.st.storageBytes += w
	e.st.paging += t
	e.advance(workloads.Prefill, "reload", counters{dramBytes: w, storageBytes: w}, t)
	return t
}

// coldLoad runs a cold start: the weights stream from storage into DRAM while
// the host waits, then the host initialises the unit's runtime. It returns
// its time.
func (e *engine) coldLoad() float64 {
	w := e.mem.loaded(e.cfg)
	read := w / float64(e.cfg.Chip.Storage.ReadBandwidth)
	e.advance(workloads.Prefill, "load", counters{dramBytes: w, storageBytes: w}, read)
	init := float64(e.unit.Init)
	e.runStageTimeOn(e.host, init, workloads.Prefill, "load")
	return read + init
}

// runStage runs a pipeline stage for seconds on its unit (the host when it
// names none) and returns its time.
func (e *engine) runStage(st workloads.Stage, seconds float64, phase workloads.Phase) float64 {
	u := e.host
	if st.Unit != "" {
		u = e.cfg.Chip.Unit(st.Unit)
	}
	return e.runStageTimeOn(u, seconds, phase, st.Name)
}

// runStageTime runs host work for seconds.
func (e *engine) runStageTime(seconds float64, phase workloads.Phase) float64 {
	return e.runStageTimeOn(e.host, seconds, phase, phase.String())
}

// runStageTimeOn keeps unit u busy for seconds (one core of a CPU) and
// advances the clock; the series and the PMIC check name the stretch
// label (the stage's name: a tokeniser's burst is a stretch of its own,
// the CPU's power up and the idle unit's down).
func (e *engine) runStageTimeOn(u *hw.Unit, seconds float64, phase workloads.Phase, label string) float64 {
	if seconds <= 0 {
		return 0
	}
	e.stageUnit = u
	e.advance(phase, label, counters{stage: seconds}, seconds)
	e.stageUnit = nil
	return seconds
}

// idle lets the chip rest for seconds — the user reading and typing —
// in stretches the governor polls between.
func (e *engine) idle(seconds float64) { e.idleAs("idle", seconds) }

// idleAs is idle with the series labelling the stretches as label.
func (e *engine) idleAs(label string, seconds float64) {
	defer func() { e.resting = -1 }()
	for e.resting = 0; seconds > 0; {
		dt := min(seconds, maxIdleStretch)
		e.advance(workloads.Decode, label, counters{}, dt)
		e.resting += dt
		seconds -= dt
	}
}

// turnLatency is the spread of the warm turns' user-visible latency.
func turnLatency(turns []Turn) *TurnLatency {
	var ttft, total []float64
	for _, t := range turns {
		if !t.Cold {
			ttft, total = append(ttft, t.TTFTS), append(total, t.TotalS)
		}
	}
	if len(ttft) == 0 {
		return nil
	}
	slices.Sort(ttft)
	slices.Sort(total)
	return &TurnLatency{TTFTP50: percentile(ttft, 0.5), TTFTP95: percentile(ttft, 0.95),
		TotalP50: percentile(total, 0.5), TotalP95: percentile(total, 0.95)}
}
