package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/workloads"
)

// Speculative decoding: a small draft model proposes Len tokens one at a
// time; the model then runs one pass over the last accepted token and
// the Len proposals (a decode pass of Len+1 rows, which reads its weights
// once, as a plain step does) and keeps the proposals up to the first it
// rejects, plus one token of its own. A step of the cycle therefore emits
// between 1 and Len+1 tokens, at the price of Len draft steps and one pass
// a little dearer than a plain step. On a memory-bound unit that price is
// small and the cycle gains; on a compute-bound one it does not.
//
// Acceptance is drawn per drafted token with probability Accept, given the
// tokens before it were accepted (the α of Leviathan, Kalman and Matias,
// "Fast Inference from Transformers via Speculative Decoding", ICML 2023,
// arXiv:2211.17192), from the run's seed, so that the spread of per-token
// latency shows the bursts users see. The expected tokens per cycle are
// (1 − α^(Len+1)) / (1 − α), the same paper's equation 1.
//
// The draft runs on the model's unit, at its quantisation, under the same
// clocks; its weights and KV cache share the DRAM with the model's. Each
// model is simulated with the L3 to itself: the draft's weights do not
// evict the model's KV cache from it (a run whose KV fits the L3 is
// optimistic by that much).

// Defaults of speculative decoding, both assumed (no measurement of the
// pair a user names stands behind them).
const (
	// DefaultDraftLen is the tokens drafted per cycle: assumed, a common
	// setting of llama.cpp's and MLC's speculative modes.
	DefaultDraftLen = 4
	// DefaultDraftAccept is α, the chance a drafted token is accepted:
	// assumed, a middle value (no measurement in shared/data stands
	// behind any pair's α); give --draft-accept, and read the result's
	// curve, for the pair you mean.
	DefaultDraftAccept = 0.6
	// maxDraftLen bounds the drafted tokens per cycle: a verify pass of
	// more rows than this is a prefill, not a decode step.
	maxDraftLen = 64
)

// Draft is speculative decoding's draft model and how it drafts.
type Draft struct {
	Model *workloads.Spec
	// Len is the tokens drafted per cycle (0: DefaultDraftLen).
	Len int
	// Accept is the chance the model accepts a drafted token, given it
	// accepted the ones before it (nil: DefaultDraftAccept).
	Accept *float64
}

// length is the tokens drafted per cycle.
func (d *Draft) length() int {
	if d.Len == 0 {
		return DefaultDraftLen
	}
	return d.Len
}

// accept is α.
func (d *Draft) accept() float64 {
	if d.Accept == nil {
		return DefaultDraftAccept
	}
	return *d.Accept
}

// validate checks the draft against the model it drafts for.
func (d *Draft) validate(c *Config) error {
	switch {
	case d.Model == nil:
		panic("sim: Draft needs a model")
	case d.Len < 0 || d.Len > maxDraftLen:
		return spec.FieldErrorf("draft.len", "%d is not allowed: draft 1 to %d tokens a cycle", d.Len, maxDraftLen)
	case d.Accept != nil && !(*d.Accept >= 0 && *d.Accept <= 1):
		return spec.FieldErrorf("draft.accept", "%g is not allowed: an acceptance rate lies in 0..1", *d.Accept)
	case d.Model.Vocab != c.Model.Vocab:
		return spec.FieldErrorf("draft", "%s cannot draft for %s: its vocabulary has %d tokens, the model's %d; a draft must share the model's tokenizer",
			d.Model.Name, c.Model.Name, d.Model.Vocab, c.Model.Vocab)
	case c.Batch > 1:
		return spec.FieldErrorf("batch", "%d with a draft: speculative decoding is simulated for one sequence; use a batch of 1", c.Batch)
	}
	return nil
}

// ExpectedTokensPerCycle is the mean tokens a speculative cycle emits when
// each of n drafted tokens is accepted with chance alpha given the ones
// before it: (1 − α^(n+1)) / (1 − α), n+1 at α = 1.
func ExpectedTokensPerCycle(alpha float64, n int) float64 {
	if alpha >= 1 {
		return float64(n + 1)
	}
	return (1 - math.Pow(alpha, float64(n+1))) / (1 - alpha)
}

// Speculative is what speculative decoding did over a run.
type Speculative struct {
	Draft string `json:"draft"` // the draft model's id
	// DraftLen is the tokens drafted per cycle and AcceptRate α; each is
	// marked when it is the assumed default.
	DraftLen         int     `json:"draft_len"`
	DraftLenAssumed  bool    `json:"draft_len_assumed"`
	AcceptRate       float64 `json:"accept_rate"`
	AcceptAssumed    bool    `json:"accept_rate_assumed"`
	DraftWeightBytes float64 `json:"draft_weights_bytes"`
	// Cycles ran; TokensPerCycle is what they emitted on average (drawn),
	// ExpectedTokensPerCycle what α gives; AcceptedShare is the drafted
	// tokens accepted over those drafted, the figure llama.cpp prints as
	// its accept rate.
	Cycles                 int     `json:"cycles"`
	TokensPerCycle         float64 `json:"tokens_per_cycle"`
	ExpectedTokensPerCycle float64 `json:"expected_tokens_per_cycle"`
	AcceptedShare          float64 `json:"accepted_share"`
	// DraftStepS is a draft step's mean time, VerifyS a verify pass's and
	// PlainStepS a plain decode step's of the model at the same contexts
	// and clocks (simulated beside the run, not part of it); CycleS is a
	// cycle's mean time, draft steps and verify pass together.
	DraftStepS float64 `json:"draft_step_s"`
	VerifyS    float64 `json:"verify_s"`
	CycleS     float64 `json:"cycle_s"`
	PlainStepS float64 `json:"plain_step_s"`
	// Speedup is the decode rate over plain decoding's at PlainStepS;
	// BreakEvenAccept the α below which speculation is slower than plain
	// decoding (0 when it never is, null when it always is); Curve the
	// speed-up α would give, at these costs.
	Speedup         float64         `json:"speedup"`
	BreakEvenAccept *float64        `json:"break_even_accept_rate"`
	Curve           []SpeedupAtRate `json:"curve"`
}

// SpeedupAtRate is the speed-up of speculative decoding at one acceptance
// rate.
type SpeedupAtRate struct {
	AcceptRate float64 `json:"accept_rate"`
	Speedup    float64 `json:"speedup"`
}

// speculation is the state of a run's speculative decoding.
type speculation struct {
	draft *Draft
	// drafter runs the draft model and plain the model's plain steps
	// (for the speed-up); both share the run's heat, so their clocks are
	// the run's, and account nothing themselves.
	drafter, plain *engine
	rng            *rand.Rand

	cycles, drafted, accepted, emitted int
	draftS, verifyS                    float64
	plainS                             []float64
	verifyMemo                         stepMemo // verify passes simulated in full, as stepMemo keeps decode steps
}

// newSpeculation sets up the draft's engines beside e.
func (e *engine) newSpeculation() (*speculation, error) {
	d := e.cfg.Draft
	side := func(m *workloads.Spec) (*engine, error) {
		c := *e.cfg
		c.Model, c.Draft, c.Trace, c.Series, c.Scenario = m, nil, nil, nil, nil
		if m != e.cfg.Model {
			c.CPULayers, c.LayersOn = nil, UnitLayers{} // the split names the model's blocks; the draft runs on the unit
		}
		s, err := newEngine(&c, e.pol, e.unit, e.dt)
		if err != nil {
			return nil, err
		}
		s.heat = e.heat
		if m == e.cfg.Model {
			// The plain step is the model's without the draft: its weights
			// where that run would keep them (mapped past the budget,
			// streamed, read by neuron), which the draft's own weights may
			// have changed.
			plan, err := checkFit(&c)
			if err != nil {
				return nil, err
			}
			s.mem = plan
		}
		return s, nil
	}
	drafter, err := side(d.Model)
	if err != nil {
		return nil, err
	}
	plain, err := side(e.cfg.Model)
	if err != nil {
		return nil, err
	}
	return &speculation{draft: d, drafter: drafter, plain: plain, verifyMemo: stepMemo{},
		rng: rand.New(rand.NewPCG(e.cfg.Seed, 0x73706563))}, nil // "spec"
}

// sideStep runs one pass of work on a side engine at the run's clocks and
// returns its time and counters, accounting nothing.
func (side *engine) sideStep(name string, w workloads.Work, sample bool) (float64, counters, map[tallyKey]tally) {
	side.dram.SetCapacity(side.dramBW * side.dramLevel())
	side.lead = 0 // a side engine's clock stays at 0: it only measures
	before, fb := side.st.counters, side.st.offUnit.snapshot()
	t := side.pass(name, w)
	if sample {
		t += side.sample()
	}
	return t, side.st.counters.minus(before), side.st.offUnit.delta(fb)
}

// remembered returns the figures of a pass of w on engine x from memo —
// interpolated between passes at the same clocks and nearby contexts, as
// decode steps are (stepMemo) — or nil when the run does not reuse steps
// or the memo has none; the first passes of a turn are always simulated.
func (x *engine) remembered(memo stepMemo, key string, w workloads.Work, index int) *simulated {
	if !x.reuses() || index < warmSteps || x.nearCliff(w.Context) {
		return nil
	}
	s := memo.at(key, w.Context, index, x.crossesEdge)
	if s != nil {
		x.touchKVWrites(w)
	}
	return s
}

// draftStep runs the draft's step of work w (the index-th of the turn) at
// the run's clocks and charges it to the run.
func (e *engine) draftStep(w workloads.Work, index int, name string) float64 {
	d := e.spec.drafter
	key := e.heat.key()
	s := d.remembered(d.memo, key, w, index)
	if s == nil {
		t, delta, fb := d.sideStep("draft", w, true)
		s = &simulated{index: index, seconds: t, delta: delta, fallback: fb}
		if d.reuses() {
			d.memo.add(key, w.Context, s)
		}
	}
	e.charge(workloads.Decode, name, s.seconds, s.delta, s.fallback)
	return s.seconds
}

// verifyStep runs the model's verify pass of work w (the index-th cycle
// of the turn), samples each of its positions, and charges it.
func (e *engine) verifyStep(w workloads.Work, index int, name string) float64 {
	sp := e.spec
	key := e.heat.key()
	if s := e.remembered(sp.verifyMemo, key, w, index); s != nil {
		e.charge(workloads.Decode, name, s.seconds, s.delta, s.fallback)
		return s.seconds
	}
	before, fb := e.st.counters, e.st.offUnit.snapshot()
	t := e.pass(name, w)
	for range w.Tokens {
		t += e.sample()
	}
	delta := e.st.counters.minus(before)
	if e.reuses() {
		sp.verifyMemo.add(key, w.Context, &simulated{index: index, seconds: t, delta: delta, fallback: e.st.offUnit.delta(fb)})
	}
	e.advance(workloads.Decode, workloads.Decode.String(), delta, t)
	return t
}

// prefillDraft runs the draft model over a turn's prompt, so that it has
// the context it drafts from, and accounts it as prefill.
func (e *engine) prefillDraft(w workloads.Work) float64 {
	if e.spec == nil || w.Tokens == 0 {
		return 0
	}
	t, d, fb := e.spec.drafter.sideStep("draft prefill", w, false)
	e.charge(workloads.Prefill, "draft prefill", t, d, fb)
	return t
}

// charge adds a stretch simulated elsewhere — a side engine's pass — to
// the run: its counters, fallbacks, energy, heat and bandwidth sample, and
// the clock.
func (e *engine) charge(phase workloads.Phase, name string, t float64, d counters, fb map[tallyKey]tally) {
	e.st.counters.add(d, 1)
	e.st.offUnit.add(fb)
	e.trace.span("passes", name, "pass", e.clock, e.clock+t, nil)
	e.addSample(BandwidthSample{
		Pass: name, StartS: e.clock, Seconds: t,
		DRAMUtil: ratio(d.dramBytes, float64(e.cfg.Chip.Memory.DRAM.Bandwidth)*t),
		L3Util:   ratio(d.l3HitBytes, e.l3BW*t),
	})
	e.advance(phase, phase.String(), d, t)
}

// speculate decodes gen tokens after base tokens of context in speculative
// cycles and returns each emitted token's time: a cycle's time shared by
// the tokens it emitted.
func (e *engine) speculate(ctx context.Context, base, gen int) ([]float64, error) {
	sp := e.spec
	n := sp.draft.length()
	alpha := sp.draft.accept()
	e.stepBase = base
	steps := make([]float64, 0, gen)
	sp.measurePlain(base)
	for cycle := 0; len(steps) < gen; cycle++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e.traceSettle(e.clock) // the cycles before are in the trace, whole
		at := base + len(steps)
		// The draft proposes n tokens, one step each, from the context
		// the model accepted.
		var draftT float64
		for i := range n {
			w := workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: at + i, Batch: 1, Seed: e.cfg.Seed}
			draftT += e.draftStep(w, cycle*n+i, "draft "+strconv.Itoa(sp.cycles))
		}
		// The model verifies the last accepted token and the n proposals
		// in one pass, and samples at every position.
		w := workloads.Work{Phase: workloads.Decode, Tokens: n + 1, Context: at, Batch: 1, Seed: e.cfg.Seed}
		verify := e.verifyStep(w, cycle, "verify "+strconv.Itoa(sp.cycles))

		ok := 0
		for ok < n && sp.rng.Float64() < alpha {
			ok++
		}
		emit := min(ok+1, gen-len(steps))
		took := draftT + verify
		for range emit {
			steps = append(steps, took/float64(emit))
			e.noteStep(took/float64(emit), at+len(steps)-1, e.heat.key(), true)
		}
		sp.cycles++
		sp.drafted += n
		sp.accepted += ok
		sp.emitted += emit
		sp.draftS += draftT
		sp.verifyS += verify
		if err := e.pauseAfter(len(steps), steps, len(steps)-1); err != nil {
			return nil, err
		}
		if e.stopAt > 0 && e.clock >= e.stopAt {
			break
		}
	}
	sp.measurePlain(base + len(steps))
	return steps, nil
}

// measurePlain times a plain decode step of the model at context ctx, at
// the run's clocks, on the side engine (a step before it warms the L3 as
// the decode before it would).
func (sp *speculation) measurePlain(ctx int) {
	step := func(c int) float64 {
		t, _, _ := sp.plain.sideStep("plain", workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: c, Batch: 1, Seed: sp.plain.cfg.Seed}, true)
		return t
	}
	step(max(ctx-1, 0))
	sp.plainS = append(sp.plainS, step(ctx))
}

// result summarises the run's speculation.
func (sp *speculation) result() *Speculative {
	d := sp.draft
	n := d.length()
	alpha := d.accept()
	r := &Speculative{
		Draft: d.Model.ID, DraftLen: n, DraftLenAssumed: d.Len == 0, AcceptRate: alpha, AcceptAssumed: d.Accept == nil,
		DraftWeightBytes:       d.Model.WeightBytes(sp.drafter.cfg.Quant),
		Cycles:                 sp.cycles,
		ExpectedTokensPerCycle: ExpectedTokensPerCycle(alpha, n),
		PlainStepS:             sum(sp.plainS) / float64(max(len(sp.plainS), 1)),
		Curve:                  []SpeedupAtRate{},
	}
	if sp.cycles == 0 {
		return r
	}
	r.TokensPerCycle = float64(sp.emitted) / float64(sp.cycles)
	r.AcceptedShare = ratio(float64(sp.accepted), float64(sp.drafted))
	r.DraftStepS = sp.draftS / float64(sp.drafted)
	r.VerifyS = sp.verifyS / float64(sp.cycles)
	r.CycleS = (sp.draftS + sp.verifyS) / float64(sp.cycles)
	r.Speedup = ratio(r.PlainStepS*float64(sp.emitted), sp.draftS+sp.verifyS)
	// At these costs a cycle pays off when it emits more than
	// cycle/plain tokens; E(α) rises from 1 at α = 0 to n+1 at α = 1.
	need := ratio(r.CycleS, r.PlainStepS)
	switch {
	case need <= 1:
		r.BreakEvenAccept = ptr(0.0)
	case need < float64(n+1):
		lo, hi := 0.0, 1.0
		for range 60 {
			mid := (lo + hi) / 2
			if ExpectedTokensPerCycle(mid, n) < need {
				lo = mid
			} else {
				hi = mid
			}
		}
		r.BreakEvenAccept = ptr(math.Round(hi*1e4) / 1e4)
	}
	for i := 0; i <= 10; i++ {
		a := float64(i) / 10
		r.Curve = append(r.Curve, SpeedupAtRate{AcceptRate: a, Speedup: ratio(r.PlainStepS*ExpectedTokensPerCycle(a, n), r.CycleS)})
	}
	return r
}
