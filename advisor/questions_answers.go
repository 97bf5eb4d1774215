package advisor

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/thermal"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/numfmt"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

var fileLine = regexp.MustCompile(`^\S+:\d+$`)

// chatEnds is how many turns at each end of a chat its first and last
// decode rates average over.
const chatEnds = 3

// stableChange is the largest change of the decode rate from the first
// turns to the last that the chat answer calls stable.
const stableChange = 0.1

// unitPrefix stands for the running unit in figure prefixes; dtPrefix for
// its compute dtype.
const (
	unitPrefix = "{unit}"
	dtPrefix   = "{dt}"
)

// figures picks the spec figures under the prefixes (a path or a parent
// of paths) from the config's provenance, in provenance order. {unit} and
// {dt} are the unit that ran the model and its compute dtype; prefixes
// naming them are left out when the model ran nowhere.
func (p *QuestionsPlan) figures(prefixes ...string) []Figure {
	unit, dt := "", ""
	if r := p.run(runBase).res; r != nil {
		unit, dt = r.Unit, r.Compute.Dtype
	}
	var want []string
	for _, pre := range prefixes {
		if (strings.Contains(pre, unitPrefix) && unit == "") || (strings.Contains(pre, dtPrefix) && dt == "") {
			continue
		}
		want = append(want, strings.NewReplacer(unitPrefix, unit, dtPrefix, dt).Replace(pre))
	}
	var out []Figure
	for _, e := range provenanceOf(p.base) {
		for _, w := range want {
			if e.Path == w || strings.HasPrefix(e.Path, w+".") {
				out = append(out, Figure{Path: e.Path, Value: e.Value, Basis: Basis(e.Source), Source: e.Source})
				break
			}
		}
	}
	return out
}

func provenanceOf(c sim.Config) []spec.Entry {
	return append(slices.Clone(c.Chip.Provenance), c.Model.Provenance...)
}

// unanswered is the answer of a question whose run did not happen.
func unanswered(id, question string, r *qrun, prov []Figure) Answer {
	msg := "the run did not happen"
	if r != nil && r.err != nil {
		msg = spec.OneLine(r.err.Error())
	}
	return Answer{ID: id, Question: question, Answer: "cannot be answered: " + msg,
		Metrics: map[string]*float64{}, Provenance: prov, Err: msg}
}

func val(v float64) *float64 { return &v }

// kvAnswer answers the L3 question at one KV size.
func (p *QuestionsPlan) kvAnswer(r qrun) Answer {
	size := units.Approx(r.kv, units.KindBytes)
	id := "l3-miss-kv-" + strings.ReplaceAll(size, " ", "")
	q := fmt.Sprintf("What is the L3 miss rate with %s of KV cache?", size)
	prov := p.figures("memory.l3", "policy", "units.{unit}.sram", "model.layers", "model.kv_heads", "model.heads", "model.hidden")
	if r.res == nil {
		return unanswered(id, q, &r, prov)
	}
	res, l3 := r.res, r.cfg.Chip.Memory.L3
	m := map[string]*float64{
		"kv_bytes":                        val(r.kv),
		"context_tokens":                  val(float64(r.cfg.Prompt)),
		"memory.l3_miss_rate":             val(res.Memory.L3MissRate),
		"memory.kv_l3_miss_rate":          val(res.Memory.KVL3MissRate),
		"memory.decode.l3_miss_rate":      val(res.Memory.Decode.L3MissRate),
		"memory.decode.kv_l3_miss_rate":   val(res.Memory.Decode.KVL3MissRate),
		"decode.tokens_per_s":             res.Decode.TokensPerS,
		"memory.l3_size_bytes":            val(float64(l3.Size)),
		"memory.kv_bytes_per_token":       val(r.cfg.Model.KVBytesPerToken(r.cfg.KV)),
		"memory.kv_resident_bytes":        val(res.Memory.KVResidentBytes),
		"memory.decode.dram_bytes":        val(res.Memory.Decode.DRAMBytes),
		"decode.tokens":                   val(float64(res.Decode.Tokens)),
		"prefill.tokens":                  val(float64(res.Prefill.Tokens)),
		"memory.l3_miss_rate_by_class.kv": val(res.Memory.L3MissRateOf.KV),
	}
	grown := percent(float64(res.Decode.Tokens) / float64(max(1, r.cfg.Prompt)))
	text := fmt.Sprintf("With %s of KV (a context of %d tokens at %s a token; %d decode steps grow it by %s), decode misses the L3 on %s of its accesses and %s of its KV reads (whole run %s, KV %s), in a %s %d-way %s L3 under the %s policy",
		size, r.cfg.Prompt, units.Approx(r.cfg.Model.KVBytesPerToken(r.cfg.KV), units.KindBytes), res.Decode.Tokens, grown,
		percent(res.Memory.Decode.L3MissRate), percent(res.Memory.Decode.KVL3MissRate),
		percent(res.Memory.L3MissRate), percent(res.Memory.KVL3MissRate),
		units.Approx(float64(l3.Size), units.KindBytes), l3.Ways, strings.ToUpper(l3.Replacement), res.Policy)
	if res.Memory.KVResidentBytes > 0 {
		text += fmt.Sprintf("; %s of the KV stays in the %s's SRAM", units.Approx(res.Memory.KVResidentBytes, units.KindBytes), res.Unit)
	}
	if res.Decode.TokensPerS != nil {
		text += fmt.Sprintf("; decode runs at %s tokens/s", numfmt.Number(*res.Decode.TokensPerS))
	}
	if res.Fidelity == string(sim.Analytic) {
		text += " (the analytic fidelity estimates L3 hits from each tensor class's footprint; the tile fidelity simulates the L3)"
	}
	return Answer{ID: id, Question: q, Answer: text + ".", Metrics: m, Provenance: prov}
}

// throttleAnswer answers "when does it throttle, and how fast is it then?"
// from the sustained run.
func (p *QuestionsPlan) throttleAnswer() Answer {
	r := p.run(runSustained)
	dur := units.Approx(p.req.SustainedFor, units.KindDuration)
	id, q := "throttle", fmt.Sprintf("When does it throttle, and what speed does it sustain over %s of decode?", dur)
	prov := p.figures("thermal", "governor", "units.{unit}.active_power", "units.{unit}.static_power", "units.{unit}.leakage_per_c",
		"units.{unit}.opp", "units.{unit}.clock", "units.{unit}.energy_per_op.{dt}", "memory.dram.energy_per_byte", "memory.dram.levels", "memory.dram.bandwidth")
	if r.res == nil {
		return unanswered(id, q, r, prov)
	}
	res, th := r.res, r.res.Thermal
	m := map[string]*float64{
		"thermal.throttle_onset_s":       th.ThrottleOnsetS,
		"thermal.sustained_tokens_per_s": th.SustainedTokensPerS,
		"decode.first_10s_tokens_per_s":  res.Decode.First10sTokensPerS,
		"decode.tokens_per_s":            res.Decode.TokensPerS,
		"thermal.skin_peak_c":            th.SkinPeakC,
		"thermal.peak_c":                 th.PeakC,
		"duration_s":                     val(p.req.SustainedFor),
		"energy.avg_power_w":             res.Energy.AvgPowerW,
	}
	text := fmt.Sprintf("Decoding flat out for %s (%s, %s ambient): %s", dur, sustainedScenario, ambient(r.cfg.Chip), Throttling(r.cfg.Chip, res))
	return Answer{ID: id, Question: q, Answer: text + ".", Metrics: m, Provenance: prov}
}

// Throttling answers "does it throttle, when, and what does that cost?"
// for a run of chip, in words without a capital or a full stop: when the
// governor first lowers a clock and which trips the run reached, the
// decode rate over the first 10 s against the last minute's, and the
// peak temperatures and mean power. The questions' sustained run and a
// review's scenario runs both answer with it.
func Throttling(chip *hw.Chip, res *sim.Result) string {
	th := res.Thermal
	var b strings.Builder
	if th.ThrottleOnsetS != nil {
		fmt.Fprintf(&b, "the governor first lowers a clock after %s", units.Approx(*th.ThrottleOnsetS, units.KindDuration))
		if trips := tripsReached(chip, th); len(trips) > 0 {
			fmt.Fprintf(&b, " (%s reached)", strings.Join(trips, ", "))
		}
	} else {
		b.WriteString("the governor never lowers a clock")
	}
	if f := res.Decode.First10sTokensPerS; f != nil {
		fmt.Fprintf(&b, "; decode runs at %s tokens/s over its first 10 s", numfmt.Number(*f))
		if s := th.SustainedTokensPerS; s != nil {
			fmt.Fprintf(&b, " and %s tokens/s over the last minute (%s)", numfmt.Number(*s), signedPercent(*s / *f - 1))
		}
	}
	switch s, f := th.SustainedTokensPerS, res.Decode.First10sTokensPerS; {
	case s == nil:
		b.WriteString("; no sustained rate (the run is shorter than 2 minutes)")
	case th.ThrottleOnsetS == nil && f != nil && *s / *f - 1 < -stableChange:
		b.WriteString(", the drop being the growing context, not heat")
	}
	if th.SkinPeakC != nil {
		fmt.Fprintf(&b, "; skin peaks at %.1f °C", *th.SkinPeakC)
	}
	if th.PeakC != nil {
		fmt.Fprintf(&b, ", junction at %.1f °C", *th.PeakC)
	}
	if pw := res.Energy.AvgPowerW; pw != nil {
		fmt.Fprintf(&b, ", drawing %.1f W on average", *pw)
	}
	return b.String()
}

// ambient prints the chip's ambient temperature.
func ambient(c *hw.Chip) string {
	if c.Thermal == nil {
		return "default"
	}
	return fmt.Sprintf("%.0f °C", float64(c.Thermal.Ambient))
}

// tripsReached names the governor's trips whose node's peak reached
// their temperature: "the skin trip at 42 °C". Nodes other than the
// hottest junction and skin have no peak in the result and are left out.
func tripsReached(c *hw.Chip, th sim.Thermal) []string {
	if c.Thermal == nil || c.Governor == nil {
		return nil
	}
	var out []string
	if g := c.Governor; g.Kind == thermal.SkinLimitKind && th.SkinPeakC != nil && *th.SkinPeakC >= float64(g.Skin.Limit) {
		out = append(out, fmt.Sprintf("the %s limit at %.0f °C", g.Skin.Node, float64(g.Skin.Limit)))
	}
	for _, t := range c.Governor.Trips {
		for _, n := range c.Thermal.Nodes {
			if n.Name != t.Node {
				continue
			}
			peak := th.PeakC
			if n.Kind == "skin" {
				peak = th.SkinPeakC
			} else if n.Kind != "junction" {
				peak = nil
			}
			if text := fmt.Sprintf("the %s trip at %.0f °C", t.Node, float64(t.Temp)); peak != nil && *peak >= float64(t.Temp) && !slices.Contains(out, text) {
				out = append(out, text)
			}
		}
	}
	return out
}

// ttftAnswer answers "how long to the first token, cold and warm?".
func (p *QuestionsPlan) ttftAnswer() Answer {
	r := p.run(runBase)
	id, q := "ttft", "What is the time to first token, cold and warm?"
	prov := p.figures("storage.read_bandwidth", "units.{unit}.init", "units.{unit}.peak.{dt}", "units.{unit}.gemm_efficiency",
		"units.{unit}.dispatch", "units.{unit}.clock", "memory.dram.bandwidth", "memory.dram.seq_efficiency")
	if r.res == nil {
		return unanswered(id, q, r, prov)
	}
	res := r.res
	m := map[string]*float64{
		"ttft_s":               val(res.TTFT),
		"ttft_cold_s":          val(res.TTFTColdS),
		"cold_start_s":         val(res.ColdStartS),
		"prefill.tokens":       val(float64(res.Prefill.Tokens)),
		"prefill.tokens_per_s": res.Prefill.TokensPerS,
		"memory.weights_bytes": val(res.Memory.WeightsBytes),
	}
	text := fmt.Sprintf("For a %d-token prompt: %s warm (prefill and the first token's sampling); %s cold, of which %s loads the model (%s of weights from storage at %s, and the %s runtime's start-up)",
		res.Prompt, secs(res.TTFT), secs(res.TTFTColdS), secs(res.ColdStartS), units.Approx(res.Memory.WeightsBytes, units.KindBytes),
		units.Approx(float64(r.cfg.Chip.Storage.ReadBandwidth), units.KindByteRate), res.Unit)
	return Answer{ID: id, Question: q, Answer: text + ".", Metrics: m, Provenance: prov}
}

// speedAnswer answers "how fast are prefill and decode, each?".
func (p *QuestionsPlan) speedAnswer() Answer {
	r := p.run(runBase)
	id, q := "speed", "How fast are prefill and decode, each on its own?"
	prov := p.figures("units.{unit}.peak.{dt}", "units.{unit}.gemm_efficiency", "units.{unit}.gemv_efficiency", "units.{unit}.dispatch",
		"units.{unit}.clock", "units.{unit}.mac", "memory.dram.bandwidth", "memory.dram.seq_efficiency", "memory.l3.size", "memory.l3.bandwidth")
	if r.res == nil {
		return unanswered(id, q, r, prov)
	}
	res := r.res
	m := map[string]*float64{
		"prefill.tokens_per_s":    res.Prefill.TokensPerS,
		"decode.tokens_per_s":     res.Decode.TokensPerS,
		"decode.ms_per_token.p50": res.Decode.MsPerToken.P50,
		"decode.ms_per_token.p99": res.Decode.MsPerToken.P99,
		"memory.dram_bw_util":     val(res.Memory.DRAMBWUtil),
		"compute.mac_util":        val(res.Compute.MACUtil),
	}
	var parts []string
	if v := res.Prefill.TokensPerS; v != nil {
		parts = append(parts, fmt.Sprintf("prefill %s tokens/s (%d tokens in %s)", numfmt.Number(*v), res.Prefill.Tokens, secs(res.Prefill.Seconds)))
	}
	if v := res.Decode.TokensPerS; v != nil {
		d := fmt.Sprintf("decode %s tokens/s", numfmt.Number(*v))
		if p50, p99 := res.Decode.MsPerToken.P50, res.Decode.MsPerToken.P99; p50 != nil && p99 != nil {
			d += fmt.Sprintf(" (%.1f ms a token at p50, %.1f ms at p99)", *p50, *p99)
		}
		parts = append(parts, d)
	}
	text := fmt.Sprintf("On the %s at %s: %s. %s", res.Unit, strings.ToUpper(res.Compute.Dtype), strings.Join(parts, "; "),
		capitalise(diagnose(res, nil, nil)))
	return Answer{ID: id, Question: q, Answer: text + ".", Metrics: m, Provenance: prov}
}

// chatAnswer answers "is a 30-turn chat stable?" from the chat run.
func (p *QuestionsPlan) chatAnswer() Answer {
	r := p.run(runChat)
	id := "chat-stability"
	q := fmt.Sprintf("How stable is a %d-turn chat: first-token and answer latency, and the decode rate of the first turns against the last?", r.cfg.Scenario.Turns)
	prov := append(p.figures("memory.dram.bandwidth", "memory.dram.seq_efficiency", "memory.l3", "units.{unit}.peak.{dt}",
		"units.{unit}.gemv_efficiency", "units.{unit}.active_power", "thermal", "governor"),
		Figure{Path: "scenario." + chatScenario, Value: r.cfg.Scenario.Description, Basis: BasisAssumed,
			Source: "assumed: the turn lengths are LMSYS-Chat-1M's means (Zheng et al. 2023); the think time and pipeline stage costs are assumed (workloads/scenarios/chat-30.yaml)"})
	if r.res == nil {
		return unanswered(id, q, r, prov)
	}
	res := r.res
	turns := res.Turns
	// The ends never overlap: a chat of 4 turns compares 2 with 2, one
	// of a single turn nothing.
	ends := min(chatEnds, len(turns)/2)
	var first, last *float64
	if ends > 0 {
		first, last = decodeRate(turns[:ends]), decodeRate(turns[len(turns)-ends:])
	}
	m := map[string]*float64{
		"turns":                           val(float64(len(turns))),
		"turn_latency.ttft_p50_s":         nil,
		"turn_latency.ttft_p95_s":         nil,
		"turn_latency.total_p50_s":        nil,
		"turn_latency.total_p95_s":        nil,
		"turns.first.decode_tokens_per_s": first,
		"turns.last.decode_tokens_per_s":  last,
		"thermal.throttle_onset_s":        res.Thermal.ThrottleOnsetS,
		"thermal.skin_peak_c":             res.Thermal.SkinPeakC,
	}
	var b strings.Builder
	var end sim.Turn
	if len(turns) > 0 {
		end = turns[len(turns)-1]
		m["session_s"] = val(end.StartS + end.TotalS)
		m["turns.last.context"] = val(float64(end.Context))
	}
	fmt.Fprintf(&b, "Over %d turns (%s, the context reaching %d tokens", len(turns), units.Approx(end.StartS+end.TotalS, units.KindDuration), end.Context)
	if n := truncatedTurns(turns); n > 0 {
		fmt.Fprintf(&b, ", truncated %d times", n)
	}
	b.WriteString(")")
	if tl := res.TurnLatency; tl != nil {
		m["turn_latency.ttft_p50_s"], m["turn_latency.ttft_p95_s"] = val(tl.TTFTP50), val(tl.TTFTP95)
		m["turn_latency.total_p50_s"], m["turn_latency.total_p95_s"] = val(tl.TotalP50), val(tl.TotalP95)
		fmt.Fprintf(&b, ": first token %s at p50, %s at p95; whole answer %s at p50, %s at p95 (warm turns)",
			secs(tl.TTFTP50), secs(tl.TTFTP95), secs(tl.TotalP50), secs(tl.TotalP95))
	}
	if len(turns) > 0 && turns[0].Cold {
		fmt.Fprintf(&b, "; the cold first turn shows its first token after %s", secs(turns[0].TTFTS))
	}
	if first != nil && last != nil {
		change := *last / *first - 1
		m["turns.decode_change"] = val(change)
		verdict := "stable"
		if math.Abs(change) > stableChange {
			verdict = "not stable"
		}
		fmt.Fprintf(&b, "; decode %s tokens/s over the first %d turns, %s over the last %d (%s): %s", numfmt.Number(*first), ends,
			numfmt.Number(*last), ends, signedPercent(change), verdict)
		if math.Abs(change) > stableChange {
			var why []string
			if end.Context > turns[0].Context+turns[0].Prompt {
				why = append(why, "a longer context to read each step")
			}
			if res.Thermal.ThrottleOnsetS != nil {
				why = append(why, fmt.Sprintf("throttling from %s", units.Approx(*res.Thermal.ThrottleOnsetS, units.KindDuration)))
			}
			if len(why) > 0 {
				b.WriteString(" (" + strings.Join(why, " and ") + ")")
			}
		}
	}
	return Answer{ID: id, Question: q, Answer: b.String() + ".", Metrics: m, Provenance: prov}
}

// decodeRate is the answer tokens over the decode time of turns.
func decodeRate(turns []sim.Turn) *float64 {
	var tokens, seconds float64
	for _, t := range turns {
		for _, s := range t.Stages {
			if s.Name == "decode" {
				seconds += s.Seconds
				tokens += float64(t.Answer)
			}
		}
	}
	if tokens == 0 || seconds == 0 {
		return nil
	}
	return val(tokens / seconds)
}

func truncatedTurns(turns []sim.Turn) int {
	n := 0
	for _, t := range turns {
		if t.Truncated || t.Reset {
			n++
		}
	}
	return n
}

// coverageAnswer answers "which operators does the NPU run, and which
// fall back to the CPU?", and which unit ran the model and why.
func (p *QuestionsPlan) coverageAnswer() Answer {
	r := p.run(runBase)
	id, q := "npu-coverage", "Which operators does the NPU run, which fall back to the CPU, and which unit runs the model?"
	chip := p.base.Chip
	var prefixes []string
	for _, u := range chip.Units {
		prefixes = append(prefixes, "units."+u.Name+".formats", "units."+u.Name+".ops")
		if u.Kind == hw.NPU {
			prefixes = append(prefixes, "units."+u.Name+".peak")
		}
	}
	prov := append(p.figures(append(prefixes, "units.{unit}.peak", "units.{unit}.fallback_sync")...), p.opsFigures()...)
	if r.res == nil {
		return unanswered(id, q, r, prov)
	}
	res := r.res
	m := map[string]*float64{
		"fallbacks":       val(float64(len(res.Fallbacks))),
		"time.fallback_s": val(res.Time.Fallback),
	}
	var sentences []string
	ran := chip.Unit(res.Unit)
	why := "the unit asked for with --unit"
	switch {
	case p.base.Unit != "":
	case res.Runtime == sim.NoRuntime:
		why = fmt.Sprintf("the fastest unit that reads %s (%s at %s)", strings.Join(formatsOf(p.base.Model.Model, p.base.Quant), " and "),
			peakText(ran, res.Compute.Dtype), res.Compute.Dtype)
	case p.base.Runtime != nil:
		why = fmt.Sprintf("the fastest unit %s drives (%s at %s)", res.Runtime, peakText(ran, res.Compute.Dtype), res.Compute.Dtype)
	default:
		why = fmt.Sprintf("%s drives it, the stack a user of %s runs for %s weights (%s at %s)", res.Runtime, chip.ID,
			strings.Join(formatsOf(p.base.Model.Model, p.base.Quant), " and "), peakText(ran, res.Compute.Dtype), res.Compute.Dtype)
	}
	name := res.Unit
	if ran.Kind != res.Unit {
		name += " (" + ran.Kind + ")"
	}
	sentences = append(sentences, fmt.Sprintf("The %s runs the model's matrix work: %s", name, why))
	var npus []*hw.Unit
	for i := range chip.Units {
		if chip.Units[i].Kind == hw.NPU {
			npus = append(npus, &chip.Units[i])
		}
	}
	switch {
	case len(npus) == 0:
		sentences = append(sentences, chip.ID+" has no NPU")
	case ran.Kind == hw.NPU:
		sentences = append(sentences, coverage(ran, res))
	}
	for _, u := range npus {
		if u.Name == res.Unit {
			continue
		}
		sentences = append(sentences, fmt.Sprintf("The %s is passed over: %s", u.Name, passedOver(u, ran, p.base, res)))
	}
	if alt := p.run(runNPU); alt != nil {
		m["npu.decode.tokens_per_s"] = nil
		switch {
		case alt.res != nil:
			a := alt.res
			m["npu.decode.tokens_per_s"] = a.Decode.TokensPerS
			m["npu.ttft_s"] = val(a.TTFT)
			m["npu.fallbacks"] = val(float64(len(a.Fallbacks)))
			s := fmt.Sprintf("With %s weights, which it reads, the %s would run it through %s", p.npu.quant, p.npu.unit, p.npu.runtime)
			if a.Decode.TokensPerS != nil && res.Decode.TokensPerS != nil {
				s += fmt.Sprintf(": decode %s tokens/s against %s now, TTFT %s against %s", numfmt.Number(*a.Decode.TokensPerS), numfmt.Number(*res.Decode.TokensPerS), secs(a.TTFT), secs(res.TTFT))
			}
			sentences = append(sentences, s+"; "+coverage(chip.Unit(p.npu.unit), a))
		case alt.err != nil:
			sentences = append(sentences, fmt.Sprintf("With %s weights the %s cannot run it either: %s", p.npu.quant, p.npu.unit, spec.OneLine(alt.err.Error())))
		}
	}
	for i := range sentences {
		sentences[i] = capitalise(sentences[i])
	}
	return Answer{ID: id, Question: q, Answer: strings.Join(sentences, ". ") + ".", Metrics: m, Provenance: prov}
}

// opsFigures marks the units whose spec lists no ops: they are assumed to
// run every operator kind.
func (p *QuestionsPlan) opsFigures() []Figure {
	var out []Figure
	for _, u := range p.base.Chip.Units {
		if len(u.Ops) == 0 && u.Kind != hw.CPU {
			out = append(out, Figure{Path: "units." + u.Name + ".ops", Value: "(not given)", Basis: BasisAssumed,
				Source: "assumed: a unit whose spec lists no ops runs every operator kind (" + strings.Join(hw.Operators, ", ") + ")"})
		}
	}
	return out
}

// coverage says which operator kinds unit u runs and which fell back.
func coverage(u *hw.Unit, res *sim.Result) string {
	var runs []string
	for _, op := range hw.Operators {
		if u.Supports(op) {
			runs = append(runs, op)
		}
	}
	s := fmt.Sprintf("the %s runs %d of the %d operator kinds (%s)", u.Name, len(runs), len(hw.Operators), strings.Join(runs, ", "))
	if len(u.Ops) == 0 {
		s = fmt.Sprintf("the %s's spec lists no ops, so it is taken to run all %d operator kinds", u.Name, len(hw.Operators))
	}
	if len(res.Fallbacks) == 0 {
		return s + "; nothing falls back to the CPU"
	}
	// What the unit could run may still have gone to the CPU: its
	// runtime's cpu_ops, or the blocks a layer split placed there.
	var why []string
	if res.CPULayers != "" {
		why = append(why, "blocks "+res.CPULayers+" placed on the CPU")
	}
	if unit, blocks, ok := strings.Cut(res.LayersOn, "="); ok {
		why = append(why, "blocks "+blocks+" placed on the "+unit)
	}
	if rt, err := runtimes.Load(res.Runtime); err == nil && len(rt.CPUOps) > 0 {
		why = append(why, res.Runtime+" leaving "+strings.Join(rt.CPUOps, " and ")+" to the CPU")
	}
	// The operators each unit off u ran, the units in the order they
	// first ran.
	var units []string
	byUnit := map[string][]string{}
	for _, f := range res.Fallbacks {
		if _, ok := byUnit[f.Unit]; !ok {
			units = append(units, f.Unit)
		}
		byUnit[f.Unit] = append(byUnit[f.Unit], fmt.Sprintf("%s (%d calls, %s)", f.Op, f.Count, secs(f.Seconds)))
	}
	var ran []string
	for _, name := range units {
		ran = append(ran, "on the "+name+": "+strings.Join(byUnit[name], ", "))
	}
	s += "; these ran off it"
	if len(why) > 0 {
		s += " (" + strings.Join(why, "; ") + ")"
	}
	return s + ", " + strings.Join(ran, "; ")
}

// passedOver says why unit u of c's chip did not run the model of c that
// ran on ran.
func passedOver(u, ran *hw.Unit, c sim.Config, res *sim.Result) string {
	q := c.Quant
	if missing := unreadFormats(c.Chip, u, c.Model.Model, q); len(missing) > 0 {
		return fmt.Sprintf("its formats (%s) lack %s, which the model's weights are stored in", strings.Join(sim.UnitFormats(c.Chip, u), ", "), strings.Join(missing, " and "))
	}
	dt, ok := u.ComputeDtype(q.ActDtype(workloads.RoleFFN))
	if !ok {
		return fmt.Sprintf("it has no peak at %s or above (its peaks: %s)", q.ActDtype(workloads.RoleFFN), peaks(u))
	}
	if u.Peak[dt] > ran.Peak[dtype.Dtype(res.Compute.Dtype)] && res.Runtime != sim.NoRuntime && c.Unit == "" {
		alt := runtimes.Default(u.Kind, c.Chip.Vendor, formatsOf(c.Model.Model, q))
		if c.Runtime != nil {
			return fmt.Sprintf("%s does not drive it", res.Runtime)
		}
		if alt != nil {
			return fmt.Sprintf("%s reads %s weights on it (%s at %s), but a user of %s runs %s for them (--runtime %s runs it there)",
				alt.ID, q, peakText(u, string(dt)), dt, c.Chip.ID, res.Runtime, alt.ID)
		}
	}
	return fmt.Sprintf("its %s peak (%s) is below the %s's %s (%s)", dt, peakText(u, string(dt)),
		ran.Name, peakText(ran, res.Compute.Dtype), res.Compute.Dtype)
}

// peakText prints a unit's peak at dt: TOPS for integers, TFLOPS for
// floating point.
func peakText(u *hw.Unit, dt string) string {
	s := units.Approx(float64(u.Peak[dtype.Dtype(dt)]), units.KindOpRate)
	if strings.HasPrefix(dt, "fp") || strings.HasPrefix(dt, "bf") {
		s = strings.Replace(s, "OPS", "FLOPS", 1)
	}
	return s
}

func peaks(u *hw.Unit) string {
	var out []string
	for _, dt := range slices.Sorted(maps.Keys(u.Peak)) {
		out = append(out, string(dt))
	}
	return strings.Join(out, ", ")
}

// formatsOf lists the formats m's matrices are stored in under q, without
// repeats (Model.MatrixFormats: Q4_K and Q6_K for a Q4_K_M Llama).
func formatsOf(m workloads.Model, q workloads.Quant) []string {
	var out []string
	for _, f := range m.MatrixFormats(q) {
		if !slices.Contains(out, f.Name()) { // INT4 and INT4@g128 are one name
			out = append(out, f.Name())
		}
	}
	return out
}

// unreadFormats lists the formats of m's matrices under q that unit u of
// chip does not read (sim.Unread's rule).
func unreadFormats(chip *hw.Chip, u *hw.Unit, m workloads.Model, q workloads.Quant) []string {
	var out []string
	for _, f := range formatsOf(m, q) {
		if _, unread := sim.Unread(chip, u, []string{f}); unread {
			out = append(out, f)
		}
	}
	return out
}

// npuAlternatives are the quantisations tried, in order, on an NPU that
// does not read the model's: the 4-bit ones for a model of 4 bits a weight
// or fewer, else the 8-bit and 16-bit ones first.
var npuAlternatives = map[bool][]string{
	true:  {"INT4", "W4A16", "INT8", "F16"},
	false: {"INT8", "F16", "INT4", "W4A16"},
}

// npuAlternativeFor finds the chip's first NPU when the run of c passes
// it over (its formats do not hold the model's, or the stack a user runs
// for them drives another unit), and a quantisation that its own stack
// would run there; nil when there is none, or when --unit or --runtime
// chose.
func npuAlternativeFor(c sim.Config) *npuAlternative {
	if c.Unit != "" || c.Runtime != nil {
		return nil
	}
	ch, err := sim.Choose(&c)
	if err != nil || ch.Unit.Kind == hw.NPU {
		return nil
	}
	for i := range c.Chip.Units {
		u := &c.Chip.Units[i]
		if u.Kind != hw.NPU {
			continue
		}
		missing := unreadFormats(c.Chip, u, c.Model.Model, c.Quant)
		// 4 bits or fewer a weight, scales included up to Q4_1's 5: Q4_0,
		// Q4_K, IQ4_XS, but also Q3_K and Q2_K, whose names lack a 4.
		fourBit := 8*c.Quant.BytesPerWeight(workloads.RoleFFN) <= 5
		for _, name := range npuAlternatives[fourBit] {
			q, err := workloads.ParseQuant(name)
			if err != nil {
				continue
			}
			alt := c
			alt.Quant = q
			if ch, err := sim.Choose(&alt); err == nil && ch.Unit.Name == u.Name {
				return &npuAlternative{unit: u.Name, quant: q.String(), missing: strings.Join(missing, ", "), runtime: ch.RuntimeID()}
			}
		}
		return nil
	}
	return nil
}

// secs prints seconds for people: "2.07 s", "340 ms".
func secs(s float64) string { return units.Approx(s, units.KindDuration) }

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
