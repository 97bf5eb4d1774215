package reports

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/sim"
)

// WriteSimulate prints one simulation result in format f.
func WriteSimulate(w io.Writer, r *sim.Result, f Format) error {
	switch f {
	case JSON:
		return WriteJSON(w, r)
	case CSV:
		return WriteCSV(w, r)
	}
	return SimulateTable(w, r)
}

// afterDepth is " after N tokens of context" for a run with a depth, else "".
func afterDepth(depth int) string {
	if depth == 0 {
		return ""
	}
	return fmt.Sprintf(" after %d tokens of context", depth)
}

// viaRuntime is " via RUNTIME" (with its thread count when one was asked
// for), or, when no runtime profile applied, says the chip file's figures
// stood for the stack.
func viaRuntime(r *sim.Result) string {
	if r.Runtime == "" || r.Runtime == sim.NoRuntime {
		return " on the chip file's own figures (no runtime profile)"
	}
	if r.Threads > 0 {
		return fmt.Sprintf(" via %s, %d threads", r.Runtime, r.Threads)
	}
	return " via " + r.Runtime
}

// SimulateTable prints what an architect reads first: latency and rates,
// how much of the chip's compute and bandwidth the run used, and where the
// time went.
func SimulateTable(w io.Writer, r *sim.Result) error {
	fmt.Fprintf(w, "%s %s on %s — %s unit (%s)%s, %s placement, %s fidelity\n", r.Model, r.Quant, r.SoC, r.Unit, r.Compute.Dtype, viaRuntime(r), r.Policy, r.Fidelity)
	batch := fmt.Sprint(r.Batch)
	if r.CompiledBatch > r.Batch {
		pad, verb := r.CompiledBatch-r.Batch, "are"
		if pad == 1 {
			verb = "is"
		}
		batch += fmt.Sprintf(" (run as %d by %s's compiled graphs: %d of the %d sequences %s padding)", r.CompiledBatch, r.Runtime, pad, r.CompiledBatch, verb)
	}
	kv := r.KVDtype
	if r.KVBlock > 0 {
		kv += fmt.Sprintf(" in %d-token blocks", r.KVBlock)
	}
	if r.Serve != nil {
		slots := "slots"
		if r.Batch == 1 {
			slots = "slot"
		}
		fmt.Fprintf(w, "requests of up to %d + %d tokens · %s %s · KV cache %s\n", r.Prompt, r.Gen, batch, slots, kv)
	} else {
		fmt.Fprintf(w, "prompt %d%s · generate %d · batch %s · KV cache %s\n", r.Prompt, afterDepth(r.Depth), r.Gen, batch, kv)
	}
	if r.RuntimeBasis != "" {
		fmt.Fprintf(w, "runtime figures: %s\n", r.RuntimeBasis)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(label, format string, args ...any) {
		fmt.Fprintf(tw, "  %s\t%s\n", label, fmt.Sprintf(format, args...))
	}

	if r.TurnLatency != nil {
		// A session: the headline is the first turn's, the turns line
		// the later turns' (their prompts are short, their context long).
		row("time to first token", "%s warm · %s cold, the first turn's %d-token prompt (loading the model takes %s)", seconds(r.TTFT), seconds(r.TTFTColdS), r.Turns[0].Prompt, seconds(r.ColdStartS))
	} else {
		row("time to first token", "%s warm · %s cold (loading the model takes %s)", seconds(r.TTFT), seconds(r.TTFTColdS), seconds(r.ColdStartS))
	}
	padded := ""
	if n := r.Prefill.PaddedTokens; n > 0 {
		padded = fmt.Sprintf("; %d padding tokens computed by %s's fixed-length prefill graph", n, r.Runtime)
	}
	row("prefill", "%s   (%d tokens in %s%s)", rate(r.Prefill.TokensPerS), r.Prefill.Tokens, seconds(r.Prefill.Seconds), padded)
	d := r.Decode
	row("decode", "%s   (%d tokens in %s)", rate(d.TokensPerS), d.Tokens, seconds(d.Seconds))
	if d.MsPerToken.P50 != nil {
		row("per token", "%.1f ms p50 · %.1f ms p99", *d.MsPerToken.P50, *d.MsPerToken.P99)
		if sp := d.Spread; sp.StdMs > 0 {
			row("spread", "σ %.2f ms: context growth %s · clock changes %s · other (MoE routing, fallbacks, cache) %s",
				sp.StdMs, pct(sp.ContextShare), pct(sp.ClockShare), pct(sp.OtherShare))
		}
	}
	if q := r.Quality; q.PPLDelta != nil {
		row("quality", "%s adds %+.4f to %s's perplexity (%s)", r.Quant, *q.PPLDelta, q.Reference, "llama.cpp's quantize table")
	}
	if sp := r.Speculative; sp != nil {
		assumed := func(yes bool) string {
			if yes {
				return " (assumed)"
			}
			return ""
		}
		breakEven := "never pays off at these costs"
		if sp.BreakEvenAccept != nil {
			breakEven = fmt.Sprintf("pays off above α %.2f", *sp.BreakEvenAccept)
		}
		row("speculative", "draft %s, %d tokens%s a cycle at α %.2f%s · %.2f tokens a cycle · %.2f× plain decoding, %s",
			sp.Draft, sp.DraftLen, assumed(sp.DraftLenAssumed), sp.AcceptRate, assumed(sp.AcceptAssumed), sp.TokensPerCycle, sp.Speedup, breakEven)
	}
	if s := r.Schedule; s != nil {
		parts := []string{}
		if s.BudgetS > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d turns within %s", s.TurnsWithinBudget, s.Turns, seconds(s.BudgetS)))
		}
		if s.IdleWindows > 0 {
			parts = append(parts, fmt.Sprintf("%d pauses, %s idle", s.IdleWindows, seconds(s.IdleS)))
		}
		if r.Speculative != nil {
			parts = append(parts, fmt.Sprintf("%d turns speculative", s.SpeculativeTurns))
		}
		if len(parts) == 0 && r.Serve != nil {
			parts = append(parts, "batches the requests (serving)")
		}
		if len(parts) == 0 {
			parts = append(parts, "no rule acted")
		}
		row("schedule", "%s: %s", s.Name, strings.Join(parts, " · "))
	}
	if v := r.Serve; v != nil {
		row("serving", "%s · %d of %d requests served (%.3g a second arrived) · mean batch %.2f · unit busy %s · queue %s p50, %s p99",
			v.Describe(), v.Served, v.Arrived, v.RatePerS, v.MeanBatch, pct(v.BusyShare), secondsOr(v.QueueS.P50), secondsOr(v.QueueS.P99))
	}
	c := r.Compute
	row("effective compute", "%.2f TOPS of %.1f TOPS %s peak (MAC utilisation %s)", c.TOPSEff, c.PeakTOPS, c.Dtype, pct(c.MACUtil))
	m := r.Memory
	row("DRAM", "%s moved · %s of %s peak", units.Approx(m.DRAMBytes, units.KindBytes), pct(m.DRAMBWUtil), units.Approx(m.DRAMPeak, units.KindByteRate))
	if m.L3AccessBytes > 0 {
		row("L3 miss rate", "%s of all accesses · %s of KV-cache accesses (decode: %s, KV %s)",
			pct(m.L3MissRate), pct(m.KVL3MissRate), pct(m.Decode.L3MissRate), pct(m.Decode.KVL3MissRate))
	} else {
		// Nothing went through the L3: the unit does not share it, or the
		// CPU beside it ran the whole model. A 0% miss rate would read as
		// every access hitting.
		row("L3 miss rate", "no accesses through the L3")
	}
	if m.KVResidentBytes > 0 {
		row("KV in SRAM", "%s of %s kept resident", units.Approx(m.KVResidentBytes, units.KindBytes), units.Approx(m.KVBytes, units.KindBytes))
	}
	t := r.Time
	if t.Total > 0 {
		paging := ""
		if t.Paging > 0 {
			paging = " · paging and swap " + pct(t.Paging/t.Total)
		}
		row("where time went", "compute %s · memory stall %s · dispatch %s · fallback %s · host %s%s",
			pct(t.Compute/t.Total), pct(t.MemoryStall/t.Total), pct(t.Dispatch/t.Total), pct(t.Fallback/t.Total), pct(t.Host/t.Total), paging)
	}
	if len(r.Fallbacks) > 0 {
		var split []string
		if unit, blocks, ok := strings.Cut(r.LayersOn, "="); ok {
			split = append(split, fmt.Sprintf("%s on the %s", blockNames(blocks), unit))
		}
		if r.CPULayers != "" {
			cpu := "CPU"
			for _, u := range r.Units {
				if u.Kind == hw.CPU {
					cpu = u.Name
				}
			}
			split = append(split, fmt.Sprintf("%s on the %s", blockNames(r.CPULayers), cpu))
		}
		if len(split) > 0 {
			row("layer split", "%s, the rest on %s", strings.Join(split, ", "), r.Unit)
		}
		// The operators each unit off the run's ran, the costliest first,
		// the units in the order they first ran.
		fs := slices.Clone(r.Fallbacks)
		slices.SortStableFunc(fs, func(a, b sim.Fallback) int { return cmp.Compare(b.Seconds, a.Seconds) })
		var offUnits []string
		for _, f := range r.Fallbacks {
			if !slices.Contains(offUnits, f.Unit) {
				offUnits = append(offUnits, f.Unit)
			}
		}
		third, _, _ := strings.Cut(r.LayersOn, "=")
		for _, u := range offUnits {
			at := "the chip's own figures"
			switch {
			case u == third && r.LayersOnRuntime != "":
				at = r.LayersOnRuntime + "'s figures"
			case u != third && r.CPURuntime != "":
				at = r.CPURuntime + "'s figures"
			}
			var parts []string
			for _, f := range fs {
				if f.Unit == u {
					parts = append(parts, fmt.Sprintf("%s ×%d %s", f.Op, f.Count, seconds(f.Seconds)))
				}
			}
			row("on "+u, "%s (at %s)", strings.Join(parts, " · "), at)
		}
	}
	for _, b := range r.Boundaries {
		row("hand-off", "%s → %s ×%d: %s copied, %s", b.From, b.To, b.Count, units.Approx(b.CopyBytes, units.KindBytes), seconds(b.Seconds))
	}
	var flags []string
	for _, h := range r.Health {
		mark := "ok"
		if !h.OK {
			mark = "FLAG"
		}
		flags = append(flags, fmt.Sprintf("%s %s (%s %s)", h.Counter, pct(h.Value), mark, h.Threshold))
	}
	if len(flags) > 0 {
		row("profiler", "%s", strings.Join(flags, " · "))
	}
	if en := r.Energy; en.JoulesPerToken != nil && en.AvgPowerW != nil {
		pp := en.Parts
		display := ""
		if pp.Display > 0 {
			display = ", display " + pct(ratio(pp.Display, en.TotalJ))
		}
		row("energy", "%.3g J/token · %.2f W average, %.2f W peak · DRAM %s, static %s, compute %s%s of %.3g J",
			*en.JoulesPerToken, *en.AvgPowerW, en.PeakPowerW,
			pct(ratio(pp.DRAM, en.TotalJ)), pct(ratio(pp.Static, en.TotalJ)), pct(ratio(pp.Compute, en.TotalJ)), display, en.TotalJ)
	}
	if th := r.Thermal; th.PeakC != nil {
		skin, onset := "", "no throttling"
		if th.SkinPeakC != nil {
			skin = fmt.Sprintf(", skin %.1f °C", *th.SkinPeakC)
		}
		if th.ThrottleOnsetS != nil {
			onset = fmt.Sprintf("throttles at %s", seconds(*th.ThrottleOnsetS))
		}
		ambient := "ambient"
		if th.AmbientAssumed {
			ambient = "assumed ambient"
		}
		device := ""
		if th.Device != "" {
			device = fmt.Sprintf(" (%s, %s %.0f °C)", th.Device, ambient, th.AmbientC)
		}
		row("heat", "junction peak %.1f °C%s%s · %s", *th.PeakC, skin, device, onset)
		if th.SustainedTokensPerS != nil {
			row("sustained", "%s over the last minute (first 10 s: %s)", rate(th.SustainedTokensPerS), rate(d.First10sTokensPerS))
		}
	}
	if l := r.TurnLatency; l != nil {
		warm := 0
		for _, t := range r.Turns {
			if !t.Cold {
				warm++
			}
		}
		row("turns", "%d · first token %s p50, %s p95 · whole answer %s p50, %s p95 (the %d turns without a cold start)",
			len(r.Turns), seconds(l.TTFTP50), seconds(l.TTFTP95), seconds(l.TotalP50), seconds(l.TotalP95), warm)
	}
	if m.SwappedKVBytes > 0 {
		row("footprint", "weights %s + KV cache %s, past the app budget of %s: up to %s of the KV cache in swap", units.Approx(m.WeightsBytes, units.KindBytes), units.Approx(m.KVBytes, units.KindBytes), units.Approx(m.AppBudget, units.KindBytes), units.Approx(m.SwappedKVBytes, units.KindBytes))
	} else if fl := m.FlashFFN; fl != nil {
		row("footprint", "weights %s + KV cache %s, %s of the FFN's on storage: a token reads the %s of active neurons DRAM lacks, %s reads at %s", units.Approx(m.WeightsBytes, units.KindBytes), units.Approx(m.KVBytes, units.KindBytes), units.Approx(fl.StoredBytes, units.KindBytes),
			units.Approx(fl.FreshBytesPerToken, units.KindBytes), units.Approx(fl.ReadBytes, units.KindBytes), units.Approx(fl.ReadRate, units.KindByteRate))
	} else if m.PagedWeightsBytes > 0 && m.PagedWeightsBytes >= m.WeightsBytes {
		row("footprint", "weights %s on storage, streamed every pass (two blocks in memory) + KV cache %s", units.Approx(m.WeightsBytes, units.KindBytes), units.Approx(m.KVBytes, units.KindBytes))
	} else if m.PagedWeightsBytes > 0 {
		row("footprint", "weights %s + KV cache %s, past the app budget of %s: %s of the weights page in from storage", units.Approx(m.WeightsBytes, units.KindBytes), units.Approx(m.KVBytes, units.KindBytes), units.Approx(m.AppBudget, units.KindBytes), units.Approx(m.PagedWeightsBytes, units.KindBytes))
	} else if sp := r.Speculative; sp != nil {
		row("footprint", "weights %s + KV cache %s + draft %s", units.Approx(m.WeightsBytes, units.KindBytes), units.Approx(m.KVBytes, units.KindBytes), units.Approx(sp.DraftWeightBytes, units.KindBytes))
	} else {
		row("footprint", "weights %s + KV cache %s", units.Approx(m.WeightsBytes, units.KindBytes), units.Approx(m.KVBytes, units.KindBytes))
	}
	assumed := 0
	for _, p := range r.Provenance {
		if strings.HasPrefix(p.Source, "assumed") || strings.Contains(p.Source, "(assumed)") {
			assumed++
		}
	}
	row("inputs", "%d figures, %d of them assumed (see --format json: provenance)", len(r.Provenance), assumed)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Turns) > 0 {
		if err := turnTable(w, r.Turns, r.Serve != nil); err != nil {
			return err
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "\nwarning: %s\n", warn)
	}
	return nil
}

func seconds(s float64) string {
	switch {
	case s == 0:
		return "0 s"
	case s < 1:
		return fmt.Sprintf("%.1f ms", s*1e3)
	}
	return fmt.Sprintf("%.2f s", s)
}

// blockNames names a layer set: "block 27", "blocks 0-13".
func blockNames(set string) string {
	if strings.ContainsAny(set, ",-") {
		return "blocks " + set
	}
	return "block " + set
}

// secondsOr is seconds for a figure that may be missing.
func secondsOr(v *float64) string {
	if v == nil {
		return "—"
	}
	return seconds(*v)
}

func rate(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f tokens/s", *v)
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// maxTurnRows bounds the turn table: a long session's turns are in the
// JSON (turns), the table shows the first of them.
const maxTurnRows = 100

// turnTable prints each turn as the user saw it, stage by stage: one
// column per stage, in the order they ran (a stage first seen in a later
// turn, as a reload or a compress, goes before the stages it ran before);
// requests, for a serve scenario's.
func turnTable(w io.Writer, turns []sim.Turn, requests bool) error {
	var names []string
	for _, t := range turns {
		for i, st := range t.Stages {
			if slices.Contains(names, st.Name) {
				continue
			}
			at := len(names)
			for _, next := range t.Stages[i+1:] {
				if j := slices.Index(names, next.Name); j >= 0 {
					at = j
					break
				}
			}
			names = slices.Insert(names, at, st.Name)
		}
	}
	what := "turn"
	if requests {
		what = "request"
	}
	fmt.Fprintf(w, "\nper %s, as the user sees it (seconds)\n", what)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tcontext\tprompt\tanswer\t%s\tfirst token\twhole\t\n", what, strings.Join(names, "\t"))
	for i, t := range turns {
		if i == maxTurnRows {
			fmt.Fprintf(tw, "… %d more\t\t\t\t%s\t\t\t\n", len(turns)-i, strings.Repeat("\t", len(names)-1))
			break
		}
		cells := make([]string, len(names))
		for i := range cells {
			cells[i] = "-"
		}
		for _, st := range t.Stages {
			cells[slices.Index(names, st.Name)] = fmt.Sprintf("%.3f", st.Seconds)
		}
		note := ""
		switch {
		case t.Cold:
			note = " cold"
		case t.Truncated:
			note = " truncated"
		case t.Reset:
			note = " reset"
		case t.Compressed:
			note = " compressed"
		case t.Summarized:
			note = " summarized"
		}
		fmt.Fprintf(tw, "%d%s\t%d\t%d\t%d\t%s\t%.3f\t%.3f\t\n", t.Turn, note, t.Context, t.Prompt, t.Answer, strings.Join(cells, "\t"), t.TTFTS, t.TotalS)
	}
	return tw.Flush()
}
