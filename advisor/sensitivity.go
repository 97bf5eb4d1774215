package advisor

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/thermal"
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
	factor float64 // the new value is zero + (old − zero) × factor
	// value is the parameter's figure; zero the point its change scales
	// from: 0, or the ambient for a trip temperature (its headroom above
	// the room is what scales).
	value, zero float64
	// also are paths scaled by the same factor to keep the spec
	// consistent (the L3's set count with its size).
	also []string
}

// parameters lists the parameters a candidate's sensitivity reruns
// change: the DRAM's bandwidth, sequential efficiency and random-access
// penalty, the L3's size and bandwidth, the running unit's peak at its
// compute dtype and its dispatch cost, and the DMA set-up. When heat
// matters to the decision (thermal says so: see Plan.heatMatters) also the
// thermal network's resistances to ambient, the skin trip's temperature
// (its headroom above ambient) and the running unit's active power.
// Parameters the spec lacks (or gives as 0) are left out.
func parameters(specTree map[string]any, r *sim.Result, chip *hw.Chip, thermal bool) []param {
	eff := 1.1
	if v := number(specTree, "memory.dram.seq_efficiency"); v != nil && *v*eff > 1 {
		eff = 0.9 // already near 1: look the other way
	}
	l3 := param{path: "memory.l3.size", label: "L3 size", factor: 2}
	if v := number(specTree, "memory.l3.sets"); v != nil && *v > 0 {
		l3.also = []string{"memory.l3.sets"}
	}
	all := []param{
		{path: "memory.dram.bandwidth", label: "DRAM bandwidth", factor: 1.2, also: []string{"memory.dram.data_rate"}}, // a faster DRAM: its data rate with it, so bandwidth = data rate × bus width holds
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
			p.value = *v
			out = append(out, p)
		}
	}
	if thermal {
		out = append(out, thermalParameters(specTree, r, chip)...)
	}
	return out
}

// thermalParameters are the heat figures a sustained speed or a skin
// temperature hinges on: every node's resistance to ambient (+20%), the
// skin trip's headroom above ambient (+20%) and the active power of the
// unit that ran the model (+20%).
func thermalParameters(specTree map[string]any, r *sim.Result, chip *hw.Chip) []param {
	var out []param
	if chip.Thermal != nil {
		for _, n := range chip.Thermal.Nodes {
			path := "thermal.nodes." + n.Name + ".to_ambient"
			if v := number(specTree, path); v != nil && *v > 0 {
				out = append(out, param{path: path, label: n.Name + " resistance to ambient", factor: 1.2, value: *v})
			}
		}
		amb := float64(chip.Thermal.Ambient)
		for _, i := range skinTrips(chip) {
			if t := chip.Governor.Trips[i]; float64(t.Temp) > amb {
				out = append(out, param{path: fmt.Sprintf("governor.trips.%d.temp", i), label: t.Node + " trip temperature",
					factor: 1.2, value: float64(t.Temp), zero: amb})
			}
		}
		// A skin_limit governor's limit is its skin trip.
		if g := chip.Governor; g != nil && g.Kind == thermal.SkinLimitKind && float64(g.Skin.Limit) > amb {
			out = append(out, param{path: "governor.skin.limit", label: g.Skin.Node + " limit",
				factor: 1.2, value: float64(g.Skin.Limit), zero: amb})
		}
	}
	if r.Unit != "" {
		path := "units." + r.Unit + ".active_power"
		if v := number(specTree, path); v != nil && *v > 0 {
			out = append(out, param{path: path, label: r.Unit + " active power", factor: 1.2, value: *v})
		}
	}
	return out
}

// skinTrips are the indices of the governor's trips on skin nodes.
func skinTrips(chip *hw.Chip) []int {
	if chip.Thermal == nil || chip.Governor == nil {
		return nil
	}
	var out []int
	for i, t := range chip.Governor.Trips {
		for _, n := range chip.Thermal.Nodes {
			if n.Name == t.Node && n.Kind == "skin" {
				out = append(out, i)
			}
		}
	}
	return out
}

// sets are the --set overrides of the rerun, written exactly in the
// field's unit.
func (p param) sets(specTree map[string]any, e *Env) []string {
	out := []string{p.path + "=" + setText(p.zero+(p.value-p.zero)*p.factor, e.Kind(chipKey+"."+p.path))}
	for _, path := range p.also {
		v := number(specTree, path)
		if v == nil || *v == 0 { // a figure the chip does not give
			continue
		}
		nv := *v * p.factor
		if path == "memory.l3.sets" {
			nv = float64(int64(nv))
		}
		out = append(out, path+"="+setText(nv, e.Kind(chipKey+"."+path)))
	}
	return out
}

// setText writes a --set value: in the field's unit when it has one, else
// a plain number (the SI base unit, °C for a temperature).
func setText(v float64, k units.Kind) string {
	if k != 0 {
		return units.Format(v, k)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// elasticity starts the parameter's record: its value and provenance.
func (p param) elasticity(prov []spec.Entry, e *Env) Elasticity {
	step := math.Round((p.factor-1)*1e9) / 1e9 // 0.2, not 0.19999999999999996
	el := Elasticity{Param: p.path, Label: p.label, Step: step, Kind: e.Kind(chipKey + "." + p.path), Value: p.value}
	if el.Kind == 0 && strings.HasSuffix(p.path, ".temp") {
		el.Kind = units.KindTemperature
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

// effects fills the response of the key metrics, and of the decision's
// other metrics (extra), from the baseline and the rerun. A temperature
// (a key ending in _c) changes by its rise above ambient, so that its
// elasticity to a thermal resistance is near 1 as physics has it.
func (el *Elasticity) effects(base, changed *sim.Result, extra []string, ambient float64) {
	bt, err1 := resultTree(base)
	ct, err2 := resultTree(changed)
	if err1 != nil || err2 != nil {
		return
	}
	metrics := slices.Clone(KeyMetrics)
	for _, m := range extra {
		if !slices.Contains(metrics, m) {
			metrics = append(metrics, m)
		}
	}
	for _, m := range metrics {
		b, n := number(bt, m), number(ct, m)
		if b == nil && (strings.HasPrefix(m, "thermal.") || !slices.Contains(KeyMetrics, m)) {
			continue
		}
		ef := Effect{Metric: m, Base: b, New: n}
		zero := 0.0
		if strings.HasSuffix(m, "_c") {
			zero = ambient
		}
		if b != nil && n != nil && *b != zero {
			c := (*n-zero)/(*b-zero) - 1
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
