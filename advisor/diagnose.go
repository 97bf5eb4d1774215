package advisor

import (
	"fmt"
	"math"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/sim"
)

// diagnose says in one line what limits a run and what would help, with
// numbers: "decode memory-bound, prefill compute-bound: memory stall 77%,
// compute 20% of the time; DRAM at 68% of peak, MAC array idle 98%; +20%
// DRAM bandwidth → +19% decode tokens/s, 2× int8 peak → ±0% (TTFT −25%)".
//
// What bounds each phase comes from the sensitivity reruns where there are
// some (the parameter whose change moves the phase's rate most: DRAM
// bandwidth, the unit's peak or its dispatch cost), else from where the
// run's time went.
func diagnose(r *sim.Result, runErr error, sens []Elasticity) string {
	if r == nil {
		if runErr == nil {
			return "did not run"
		}
		return "cannot run: " + spec.OneLine(runErr.Error())
	}
	t := r.Time
	total := t.Total
	if total <= 0 {
		total = t.Compute + t.MemoryStall + t.Dispatch + t.Fallback + t.Host + t.BankConflict
	}
	if total <= 0 {
		return "nothing ran"
	}
	shares := []struct {
		what, bound string
		s           float64
	}{
		{"memory stall", "memory-bound", t.MemoryStall / total},
		{"compute", "compute-bound", t.Compute / total},
		{"dispatch", "dispatch-bound", t.Dispatch / total},
		{"CPU fallbacks", "fallback-bound", t.Fallback / total},
		{"SRAM bank conflicts", "bank-conflict-bound", t.BankConflict / total},
		{"host sampling", "host-bound", t.Host / total},
	}
	top := 0
	for i, s := range shares {
		if s.s > shares[top].s {
			top = i
		}
	}

	var b strings.Builder
	var bounds []string
	if r.Decode.TokensPerS != nil {
		if bd := boundBy(sens, "decode.tokens_per_s"); bd != "" {
			bounds = append(bounds, "decode "+bd)
		}
	}
	if r.Prefill.Tokens > 0 {
		if bd := boundBy(sens, "ttft_s"); bd != "" {
			bounds = append(bounds, "prefill "+bd)
		}
	}
	if len(bounds) == 0 {
		bounds = []string{shares[top].bound}
	}
	b.WriteString(strings.Join(bounds, ", "))
	b.WriteString(": ")
	var parts []string
	for i, s := range shares {
		if i == top || s.s >= 0.05 {
			parts = append(parts, fmt.Sprintf("%s %s", s.what, percent(s.s)))
		}
	}
	b.WriteString(strings.Join(parts, ", "))
	b.WriteString(" of the time")
	if n := len(r.Fallbacks); n > 0 {
		count := 0
		for _, f := range r.Fallbacks {
			count += f.Count
		}
		fmt.Fprintf(&b, " (%d operator kinds, %d calls on the CPU)", n, count)
	}
	array := "MAC array"
	for _, u := range r.Units {
		if u.Name == r.Unit && u.Kind != "npu" {
			array = strings.ToUpper(u.Kind) + " ALUs"
		}
	}
	fmt.Fprintf(&b, "; DRAM at %s of peak, %s idle %s", percent(r.Memory.DRAMBWUtil), array, percent(1-r.Compute.MACUtil))
	if tree, err := resultTree(r); err == nil {
		if v := number(tree, "thermal.throttle_onset_s"); v != nil {
			fmt.Fprintf(&b, "; the governor throttles after %.0f s", *v)
		}
	}

	metric, name := "decode.tokens_per_s", "decode tokens/s"
	if r.Decode.TokensPerS == nil {
		metric, name = "ttft_s", "TTFT"
	}
	var whatIfs []string
	for _, e := range sens {
		var what string
		switch {
		case e.Param == "memory.dram.bandwidth":
			what = fmt.Sprintf("+%.0f%% DRAM bandwidth", e.Step*100)
		case isPeak(e.Param):
			dt := e.Param[strings.LastIndexByte(e.Param, '.')+1:]
			what = fmt.Sprintf("%s× %s peak", trimFloat(1+e.Step), dt)
		default:
			continue
		}
		ef := e.Effect(metric)
		if ef == nil || ef.Change == nil {
			continue
		}
		s := fmt.Sprintf("%s → %s", what, signedPercent(*ef.Change))
		if len(whatIfs) == 0 {
			s += " " + name
		}
		if metric != "ttft_s" && r.Prefill.Tokens > 0 {
			if tf := e.Effect("ttft_s"); tf != nil && tf.Change != nil && math.Abs(*tf.Change) >= 0.05 {
				s += fmt.Sprintf(" (TTFT %s)", signedPercent(*tf.Change))
			}
		}
		whatIfs = append(whatIfs, s)
	}
	if len(whatIfs) > 0 {
		b.WriteString("; ")
		b.WriteString(strings.Join(whatIfs, ", "))
	}
	return b.String()
}

func isPeak(path string) bool {
	return strings.HasPrefix(path, "units.") && strings.Contains(path, ".peak.")
}

// boundBy names what bounds a metric: the kind of parameter (DRAM
// bandwidth, the unit's peak, its dispatch cost) whose rerun moved it
// most, by |elasticity|; "" when none moved it by 0.05 of its own change.
func boundBy(sens []Elasticity, metric string) string {
	best, bound := 0.05, ""
	for _, e := range sens {
		var kind string
		switch {
		case e.Param == "memory.dram.bandwidth":
			kind = "memory-bound"
		case isPeak(e.Param):
			kind = "compute-bound"
		case strings.HasPrefix(e.Param, "units.") && strings.HasSuffix(e.Param, ".dispatch"):
			kind = "dispatch-bound"
		default:
			continue
		}
		ef := e.Effect(metric)
		if ef == nil || ef.Elasticity == nil {
			continue
		}
		if a := math.Abs(*ef.Elasticity); a > best {
			best, bound = a, kind
		}
	}
	return bound
}

// percent prints a share in 0..1 as a whole percentage ("68%"), or to
// one decimal below 1% ("0.4%").
func percent(f float64) string {
	p := f * 100
	if p != 0 && math.Abs(p) < 1 {
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

// signedPercent prints a relative change with its sign: "+17%", "−0.4%",
// "±0%".
func signedPercent(f float64) string {
	p := f * 100
	var s string
	if p != 0 && math.Abs(p) < 1 {
		s = fmt.Sprintf("%+.1f%%", p)
	} else {
		s = fmt.Sprintf("%+.0f%%", p)
	}
	switch s {
	case "-0%", "+0%", "-0.0%", "+0.0%":
		return "±0%"
	}
	return strings.Replace(s, "-", "−", 1)
}

func trimFloat(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}
