package sim

import (
	"fmt"
	"maps"
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

// NoRuntime is the runtime a result names when no runtime profile applies:
// the chip file's own figures (and the assumed defaults) alone.
const NoRuntime = "none"

// Choice is what runs a model's matrix work: the unit, the dtype it
// computes in, and the software stack that drives it (nil: none applies).
type Choice struct {
	Unit    *hw.Unit
	Dtype   dtype.Dtype
	Runtime *runtimes.Profile
}

// RuntimeID names the choice's runtime, or NoRuntime.
func (c Choice) RuntimeID() string { return runtimeID(c.Runtime) }

// Choose picks the unit and runtime a run uses, the one rule every
// command follows (simulate, the roofline, the advisor).
//
// With cfg.Runtime given, the unit is the one with the highest peak among
// those it drives (or cfg.Unit, which it must drive), and the runtime must
// read the model's weight formats. runtimes.None picks the unit with the
// highest peak that reads the formats (or cfg.Unit) and applies no
// profile.
//
// Without, the choice is the stack a user of the chip would run for the
// model's format: the first of runtimes.Preference that reads the formats
// and drives a unit that can run them (cfg.Unit, if given), on the
// highest-peak such unit. A vendor's own runtime (Genie on a Snapdragon's
// NPU, Metal on an Apple GPU) is taken as found; a generic one (llama.cpp
// on the CPU, Vulkan) only when no unit that no catalog runtime drives —
// a hypothetical chip's NPU, a teaching chip's — has a higher peak: such a
// unit runs on the chip file's own figures (NoRuntime), as does any
// chip no runtime fits.
//
// cfg.RuntimeSets then apply to the runtime chosen (runtimes.Profile.With):
// they change its figures, not the choice.
func Choose(cfg *Config) (Choice, error) {
	ch, err := choose(cfg)
	if err != nil || len(cfg.RuntimeSets) == 0 {
		return ch, err
	}
	switch {
	case cfg.Runtime == runtimes.None:
		_, err := runtimes.None.With(cfg.RuntimeSets) // says there is nothing to set
		return Choice{}, err
	case ch.Runtime == nil:
		why := fmt.Sprintf("no runtime profile applies to %s on %s (the chip's own figures run it): there is nothing to set; name a runtime", cfg.Model.Name, cfg.Chip.ID)
		return Choice{}, &spec.Error{Field: "set", Path: "runtime." + cfg.RuntimeSets[0].Path, Msg: why}
	}
	if ch.Runtime, err = ch.Runtime.With(cfg.RuntimeSets); err != nil {
		return Choice{}, err
	}
	return ch, nil
}

// choose is Choose before the overrides.
func choose(cfg *Config) (Choice, error) {
	if cfg.Runtime == runtimes.None {
		u, dt, err := pickUnit(cfg)
		return Choice{Unit: u, Dtype: dt}, err
	}
	if cfg.Runtime == nil {
		return chooseDefault(cfg)
	}
	p := cfg.Runtime
	formats := formatNames(cfg)
	if f, unread := p.Unread(formats); unread {
		return Choice{}, spec.FieldErrorf("runtime", "%s cannot run %s: it does not read %s weights (it reads %s); choose another quant or runtime", p.ID, cfg.Quant, f, strings.Join(p.Formats, ", "))
	}
	best, bestDt := bestUnit(cfg, func(u *hw.Unit) bool { return p.Drives(u.Kind, cfg.Chip.Vendor) })
	if best == nil {
		vendors := ""
		if len(p.Vendors) > 0 {
			vendors = " of " + strings.Join(p.Vendors, "/") + " chips"
		}
		which := "no unit of %s (%s) is one it can run at %s"
		if cfg.Unit != "" {
			which = "unit " + cfg.Unit + " of %s (%s) is not one it can run at %s"
		}
		return Choice{}, spec.FieldErrorf("runtime", "%s drives %s units%s; "+which, p.ID, strings.Join(p.Units, "/"), vendors, cfg.Chip.ID, cfg.Chip.Vendor, cfg.Quant.ActDtype(workloads.RoleFFN))
	}
	return Choice{Unit: best, Dtype: bestDt, Runtime: p}, nil
}

// chooseDefault is Choose without a runtime asked for.
func chooseDefault(cfg *Config) (Choice, error) {
	formats := formatNames(cfg)
	undriven, undrivenDt := bestUnit(cfg, func(u *hw.Unit) bool {
		return len(runtimes.Drivers(u.Kind, cfg.Chip.Vendor)) == 0 && cfg.reads(u, formats)
	})
	for _, id := range runtimes.Preference {
		p := runtimes.MustLoad(id)
		if _, unread := p.Unread(formats); unread {
			continue
		}
		u, dt := bestUnit(cfg, func(u *hw.Unit) bool { return p.Drives(u.Kind, cfg.Chip.Vendor) && cfg.reads(u, formats) })
		if u == nil {
			continue
		}
		if p.Generic() && undriven != nil && undriven.Peak[undrivenDt] > u.Peak[dt] {
			break
		}
		return Choice{Unit: u, Dtype: dt, Runtime: p}, nil
	}
	if undriven != nil {
		return Choice{Unit: undriven, Dtype: undrivenDt}, nil
	}
	u, dt, err := pickUnit(cfg)
	return Choice{Unit: u, Dtype: dt}, err
}

// bestUnit returns the unit with the highest peak among those ok accepts
// that can compute the model's activations (only cfg.Unit when given),
// and the dtype it computes in; nil when there is none.
func bestUnit(cfg *Config, ok func(*hw.Unit) bool) (*hw.Unit, dtype.Dtype) {
	act := cfg.Quant.ActDtype(workloads.RoleFFN)
	var best *hw.Unit
	var bestDt dtype.Dtype
	for i := range cfg.Chip.Units {
		u := &cfg.Chip.Units[i]
		if cfg.Unit != "" && u.Name != cfg.Unit || !ok(u) {
			continue
		}
		if dt, can := u.ComputeDtype(act); can && (best == nil || u.Peak[dt] > best.Peak[bestDt]) {
			best, bestDt = u, dt
		}
	}
	return best, bestDt
}

// Unread returns one of formats (weight storage format names) that unit u
// of chip cannot take, if there is one: the one rule for what a unit
// reads. A unit reads the formats its chip file lists for it; a unit whose
// file lists none reads what the catalog runtimes that drive it read (a
// Snapdragon NPU left bare reads what Genie, ExecuTorch-QNN and llama.cpp's
// Hexagon backend read), and a unit no runtime drives reads every format,
// its chip's figures standing for its stack.
func Unread(chip *hw.Chip, u *hw.Unit, formats []string) (string, bool) {
	if len(u.Formats) > 0 {
		for _, f := range formats {
			if !u.ReadsFormat(f) {
				return f, true
			}
		}
		return "", false
	}
	drivers := runtimes.Drivers(u.Kind, chip.Vendor)
	if len(drivers) == 0 {
		return "", false
	}
	for _, f := range formats {
		if !slices.ContainsFunc(drivers, func(p *runtimes.Profile) bool { return slices.Contains(p.Formats, f) }) {
			return f, true
		}
	}
	return "", false
}

// UnitFormats lists what unit u of chip reads, by the rule of Unread; nil
// when it reads every format.
func UnitFormats(chip *hw.Chip, u *hw.Unit) []string {
	if len(u.Formats) > 0 {
		return u.Formats
	}
	var out []string
	for _, p := range runtimes.Drivers(u.Kind, chip.Vendor) {
		for _, f := range p.Formats {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// reads reports whether unit u of the run's chip reads every one of formats.
func (c *Config) reads(u *hw.Unit, formats []string) bool {
	_, unread := Unread(c.Chip, u, formats)
	return !unread
}

func formatNames(cfg *Config) []string {
	var names []string
	for _, f := range cfg.compiled().MatrixFormats() {
		names = append(names, f.Name())
	}
	return names
}

// withRuntime returns chip as the choice's runtime runs it: the runtime's
// efficiencies, dispatch cost and memory share replace the figures the
// chip leaves to the assumed defaults on the unit it drives (a figure the
// chip file gives, a calibration or a --set stays), and a CPU runtime runs
// on threads cores. Every figure it changes is marked in the provenance.
// chip itself is not changed.
func withRuntime(chip *hw.Chip, ch Choice, threads int) *hw.Chip {
	p := ch.Runtime
	if p == nil && threads == 0 {
		return chip
	}
	c := *chip
	c.Units = slices.Clone(chip.Units)
	c.Provenance = slices.Clone(chip.Provenance)
	i := slices.IndexFunc(c.Units, func(u hw.Unit) bool { return u.Name == ch.Unit.Name })
	u := &c.Units[i]
	prefix := "units." + u.Name + "."
	set := func(path, value, source string) {
		j := slices.IndexFunc(c.Provenance, func(e spec.Entry) bool { return e.Path == path })
		e := spec.Entry{Path: path, Value: value, Source: source}
		if j < 0 {
			c.Provenance = append(c.Provenance, e)
		} else {
			c.Provenance[j] = e
		}
	}
	assumed := func(path string) bool {
		j := slices.IndexFunc(c.Provenance, func(e spec.Entry) bool { return e.Path == path })
		return j < 0 || strings.HasPrefix(c.Provenance[j].Source, "assumed")
	}
	if p != nil {
		cite := func(path string) string { return "runtime " + p.ID + ": " + runtimeSource(p, path) }
		applyEff := func(name string, m map[string]units.Fraction, scalar *units.Fraction, by *map[string]units.Fraction) {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				v := m[k]
				path := prefix + name + "_efficiency_by." + k
				if k == runtimes.DefaultKey {
					path = prefix + name + "_efficiency"
				}
				if !assumed(path) {
					continue
				}
				if k == runtimes.DefaultKey {
					*scalar = v
				} else {
					if *by == nil {
						*by = map[string]units.Fraction{}
					}
					(*by)[k] = v
				}
				set(path, v.String(), cite("efficiency."+name+"."+k))
			}
		}
		u.GEMMEfficiencyBy, u.GEMVEfficiencyBy = maps.Clone(u.GEMMEfficiencyBy), maps.Clone(u.GEMVEfficiencyBy)
		// A core design's own shares first, so the pooled ones below fill
		// only what they leave.
		if u.Kind == hw.CPU && len(p.Efficiency.Cores) > 0 {
			applyCores(u, p, prefix, assumed, set, cite)
		}
		applyEff("gemm", p.Efficiency.GEMM, &u.GEMMEfficiency, &u.GEMMEfficiencyBy)
		applyEff("gemv", p.Efficiency.GEMV, &u.GEMVEfficiency, &u.GEMVEfficiencyBy)
		if p.Dispatch > 0 && assumed(prefix+"dispatch") {
			u.Dispatch = p.Dispatch
			set(prefix+"dispatch", p.Dispatch.String(), cite("dispatch"))
		}
		if p.Barrier > 0 && u.Kind == hw.CPU && assumed(prefix+"barrier") {
			u.Barrier = p.Barrier
			set(prefix+"barrier", p.Barrier.String(), cite("barrier"))
		}
		if m := p.Efficiency.Memory; m > 0 && assumed("memory.dram.seq_efficiency") {
			c.Memory.DRAM.SeqEfficiency = m
			set("memory.dram.seq_efficiency", m.String(), cite("efficiency.memory"))
		}
		if threads == 0 {
			threads = p.Threads
		}
	}
	if u.Kind == hw.CPU && threads > 0 && threads < u.Cores {
		share := u.ThreadShare(threads)
		peak := make(map[dtype.Dtype]units.OpsPerSecond, len(u.Peak))
		for dt, v := range u.Peak {
			peak[dt] = units.OpsPerSecond(float64(v) * share)
			set(prefix+"peak."+string(dt), peak[dt].String(), fmt.Sprintf("derived: %d of %d cores' peak, fastest clusters first (threads)", threads, u.Cores))
		}
		u.Peak = peak
		u.Cores = threads
		set(prefix+"cores", strconv.Itoa(threads), "threads")
	}
	return &c
}

// applyCores gives CPU u the runtime's GEMV shares for its cores' design:
// on the unit itself when its cores are alike, else on each cluster whose
// design the profile lists, where the chip leaves the figure (and the
// unit's for that format) assumed.
func applyCores(u *hw.Unit, p *runtimes.Profile, prefix string, assumed func(string) bool, set func(path, value, source string), cite func(string) string) {
	give := func(core, at string, by *map[string]units.Fraction) {
		ce, ok := p.Efficiency.Cores[core]
		if !ok {
			return
		}
		for _, f := range slices.Sorted(maps.Keys(ce.GEMV)) {
			// A figure the chip, a calibration or a --set gives the whole
			// unit stands for its clusters too.
			path := at + "gemv_efficiency_by." + f
			if !assumed(path) || !assumed(prefix+"gemv_efficiency_by."+f) {
				continue
			}
			if *by == nil {
				*by = map[string]units.Fraction{}
			}
			(*by)[f] = ce.GEMV[f]
			set(path, ce.GEMV[f].String(), cite("efficiency.cores."+core+".gemv."+f))
		}
	}
	if len(u.Clusters) == 0 {
		give(u.Core, prefix, &u.GEMVEfficiencyBy)
		return
	}
	u.Clusters = slices.Clone(u.Clusters)
	for i := range u.Clusters {
		c := &u.Clusters[i]
		c.GEMVEfficiencyBy = maps.Clone(c.GEMVEfficiencyBy)
		give(u.CoreOf(*c), prefix+"clusters."+c.Name+".", &c.GEMVEfficiencyBy)
	}
}

// runtimeSource is the citation the profile gives for path (or its nearest
// parent), or what its figures rest on.
func runtimeSource(p *runtimes.Profile, path string) string {
	for q := path; q != ""; {
		if s, ok := p.Sources[q]; ok {
			return s
		}
		i := strings.LastIndexByte(q, '.')
		if i < 0 {
			break
		}
		q = q[:i]
	}
	return p.Basis
}
