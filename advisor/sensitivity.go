package advisor

import (
	"math"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/sim"
)

// KeyMetrics are the metrics whose elasticities the advice reports; the
// sustained rate only where a run gives it.
var KeyMetrics = []string{"decode.tokens_per_s", "ttft_s", "thermal.sustained_tokens_per_s"}

// MaterialElasticity is the |elasticity| above which a parameter matters
// to a decision.
const MaterialElasticity = 0.1

// param is one uncertain parameter of a chip and the change a
// sensitivity rerun makes to it.
type param struct {
	path   string  // the --set path, under the chip
	label  string  // for people
	factor float64 // the new value is the old × factor
	// also are paths scaled by the same factor to keep the spec
	// consistent (the L3's set count with its size).
	also []string
}

// parameters lists the parameters a candidate's sensitivity reruns
// change: the DRAM's bandwidth, sequential efficiency and random-access
// penalty, the L3's size and bandwidth, the running unit's peak at its
// compute dtype and its dispatch cost, and the DMA set-up. Parameters the
// spec lacks (or gives as 0) are left out.
func parameters(specTree map[string]any, r *sim.Result) []param {
	eff := 1.1
	if v := number(specTree, "memory.dram.seq_efficiency"); v != nil && *v*eff > 1 {
		eff = 0.9 // already near 1: look the other way
	}
	l3 := param{path: "memory.l3.size", label: "L3 size", factor: 2}
	if v := number(specTree, "memory.l3.sets"); v != nil && *v > 0 {
		l3.also = []string{"memory.l3.sets"}
	}
	all := []param{
		{path: "memory.dram.bandwidth", label: "DRAM bandwidth", factor: 1.2},
		{path: "memory.dram.seq_efficiency", label: "DRAM sequential efficiency", factor: eff},
		{path: "memory.dram.random_penalty", label: "DRAM random-read penalty", factor: 1.2},
		l3,
		{path: "memory.l3.bandwidth", label: "L3 bandwidth", factor: 1.2},
	}
	if r.Unit != "" && r.Compute.Dtype != "" {
		u := "units." + r.Unit
		all = append(all,
			param{path: u + ".peak." + r.Compute.Dtype, label: r.Unit + " " + r.Compute.Dtype + " peak", factor: 2},
			param{path: u + ".dispatch", label: r.Unit + " dispatch cost", factor: 1.2},
		)
	}
	all = append(all, param{path: "dma.setup", label: "DMA set-up", factor: 1.2})
	var out []param
	for _, p := range all {
		if v := number(specTree, p.path); v != nil && *v > 0 {
			out = append(out, p)
		}
	}
	return out
}

// sets are the --set overrides of the rerun, written exactly in the
// field's unit.
func (p param) sets(specTree map[string]any, e *Env) []string {
	var out []string
	for _, path := range append([]string{p.path}, p.also...) {
		v := number(specTree, path)
		if v == nil {
			continue
		}
		nv := *v * p.factor
		if path == "memory.l3.sets" {
			nv = float64(int64(nv))
		}
		var text string
		if k := e.Kind(chipKey + "." + path); k != 0 {
			text = units.Format(nv, k)
		} else {
			text = strconv.FormatFloat(nv, 'f', -1, 64)
		}
		out = append(out, path+"="+text)
	}
	return out
}

// elasticity starts the parameter's record: its value and provenance.
func (p param) elasticity(prov []spec.Entry, specTree map[string]any, e *Env) Elasticity {
	step := math.Round((p.factor-1)*1e9) / 1e9 // 0.2, not 0.19999999999999996
	el := Elasticity{Param: p.path, Label: p.label, Step: step, Kind: e.Kind(chipKey + "." + p.path)}
	if v := number(specTree, p.path); v != nil {
		el.Value = *v
	}
	for _, en := range prov {
		if en.Path == p.path {
			el.Source = en.Source
			el.Assumed = IsAssumed(en.Source)
			break
		}
	}
	return el
}

// effects fills the key metrics' response from the baseline and the
// rerun.
func (el *Elasticity) effects(base, changed *sim.Result) {
	bt, err1 := resultTree(base)
	ct, err2 := resultTree(changed)
	if err1 != nil || err2 != nil {
		return
	}
	for _, m := range KeyMetrics {
		b, n := number(bt, m), number(ct, m)
		if b == nil && strings.HasPrefix(m, "thermal.") {
			continue
		}
		ef := Effect{Metric: m, Base: b, New: n}
		if b != nil && n != nil && *b != 0 {
			c := *n / *b - 1
			ef.Change = &c
			if el.Step != 0 {
				x := c / el.Step
				ef.Elasticity = &x
			}
		}
		el.Effects = append(el.Effects, ef)
	}
}

// IsAssumed reports whether a provenance source marks an assumption: a
// default ("assumed"), a figure the chip file says is assumed
// ("assumed: ..."), or one derived from assumed figures.
func IsAssumed(source string) bool {
	s := strings.ToLower(strings.TrimSpace(source))
	return strings.HasPrefix(s, "assumed") ||
		(strings.HasPrefix(s, "derived") && strings.Contains(s, "assumed"))
}
