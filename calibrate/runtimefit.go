package calibrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/runtimes"
)

// forRuntime keeps the records of one runtime and the parameters a
// runtime carries, and loads the runtime bare (its measured figures set
// aside) under the id the records name it by.
func forRuntime(recs []Record, names []string, id string) ([]Record, []string, map[string]*runtimes.Profile, error) {
	p, err := runtimes.Load(id)
	if err != nil {
		return nil, nil, nil, err
	}
	var keep []Record
	for _, r := range recs {
		if r.Runtime == id {
			keep = append(keep, r)
		}
	}
	if len(keep) == 0 {
		return nil, nil, nil, spec.FieldErrorf("runtime", "%s: no record names that runtime (a record's \"runtime\" field)", id)
	}
	var params []string
	for _, n := range names {
		if slices.Contains(RuntimeParams, n) {
			params = append(params, n)
		}
	}
	if len(params) == 0 {
		return nil, nil, nil, spec.FieldErrorf("params", "names none of the figures a runtime's fit (%s) fits (%s)", id, strings.Join(RuntimeParams, ", "))
	}
	return keep, params, map[string]*runtimes.Profile{id: p.Bare()}, nil
}

// Profile is the runtime profile a FitOptions.Runtime fit gives: the
// runtime as the records ran it, with the fitted figures as its
// efficiencies (by weight format, the pooled figure as `default`), its
// dispatch cost and its memory share, each cited to records (the records
// file), and a basis saying how many records on which chips they rest
// on. A figure the records do not determine is left out, and the chip's
// own figure stands for it. Profile returns nil for a fit of no runtime.
func (f *Fit) Profile(records string) *runtimes.Profile {
	if f.Runtime == nil {
		return nil
	}
	p := *f.Runtime
	p.Sources = map[string]string{}
	for k, v := range f.Runtime.Sources {
		if !strings.HasPrefix(k, "efficiency") && k != "dispatch" && k != "barrier" {
			p.Sources[k] = v
		}
	}
	kind := f.mainKind()
	cite := fmt.Sprintf("calibrated: %s, edgetwin calibrate fit --runtime %s", records, p.ID)
	memory := map[string]FitParam{}
	for _, fp := range f.Params {
		if !fp.Identified && !fp.Limit {
			continue
		}
		note := ""
		if fp.Stderr != "" {
			note = ", stderr " + fp.Stderr
		}
		switch {
		case fp.Pooled && fp.Dtype != "":
			note += ", pooled over the core designs fitted"
		case fp.Pooled:
			note += ", pooled over the formats fitted"
		}
		switch fp.Param.Param {
		case "gemm_efficiency", "gemv_efficiency":
			if fp.UnitKind != kind {
				continue
			}
			if fp.Core != "" {
				if p.Efficiency.Cores == nil {
					p.Efficiency.Cores = map[string]runtimes.CoreEfficiency{}
				}
				ce := p.Efficiency.Cores[fp.Core]
				if ce.GEMV == nil {
					ce.GEMV = map[string]units.Fraction{}
				}
				ce.GEMV[fp.Dtype] = units.Fraction(fp.value)
				p.Efficiency.Cores[fp.Core] = ce
				p.Sources["efficiency.cores."+fp.Core+".gemv."+fp.Dtype] = cite + note
				continue
			}
			key := runtimes.DefaultKey
			if fp.Dtype != "" {
				key = fp.Dtype
			}
			m := &p.Efficiency.GEMM
			name := "gemm"
			if fp.Param.Param == "gemv_efficiency" {
				m, name = &p.Efficiency.GEMV, "gemv"
			}
			if *m == nil {
				*m = map[string]units.Fraction{}
			}
			(*m)[key] = units.Fraction(fp.value)
			p.Sources["efficiency."+name+"."+key] = cite + note
		case "dispatch":
			if fp.UnitKind == kind {
				p.Dispatch = units.Seconds(fp.value)
				p.Sources["dispatch"] = cite + note
			}
		case "barrier":
			if fp.UnitKind == kind {
				p.Barrier = units.Seconds(fp.value)
				p.Sources["barrier"] = cite + note
			}
		case "seq_efficiency":
			memory[fp.Memory] = fp
		}
	}
	// One memory share: the pooled one when the records span DRAM types.
	if fp, ok := memory[""]; ok || len(memory) == 1 {
		if !ok {
			for _, v := range memory {
				fp = v
			}
		}
		p.Efficiency.Memory = units.Fraction(fp.value)
		p.Sources["efficiency.memory"] = cite + ", seq_efficiency"
	}
	p.Basis = f.basis()
	return &p
}

// mainKind is the unit kind most of the fit's records ran on.
func (f *Fit) mainKind() string {
	count := map[string]int{}
	best := ""
	for _, fp := range f.Params {
		if fp.UnitKind != "" {
			count[fp.UnitKind]++
			if best == "" || count[fp.UnitKind] > count[best] {
				best = fp.UnitKind
			}
		}
	}
	return best
}

// basis says what a runtime fit rests on: its records, by kind, and the
// chips and models they were measured on.
func (f *Fit) basis() string {
	var chips, models []string
	kinds := map[Kind]int{}
	for _, r := range f.Residuals {
		if c := chipLabel(r.Record.SoC); !slices.Contains(chips, c) {
			chips = append(chips, c)
		}
		if !slices.Contains(models, r.Record.Model) {
			models = append(models, r.Record.Model)
		}
		kinds[r.Record.Kind]++
	}
	slices.Sort(chips)
	var parts []string
	for _, k := range Kinds() {
		if n := kinds[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return fmt.Sprintf("fitted on %d records (%s) of %s on %s (%s)", len(f.Residuals), strings.Join(parts, ", "),
		plural(len(models), "model", "models"), plural(len(chips), "chip", "chips"), strings.Join(chips, ", "))
}
