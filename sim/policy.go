package sim

import (
	"embed"
	"errors"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/workloads"
)

//go:embed policies/*.yaml
var policyFiles embed.FS

// Policy says where each class of tensor lives and how it moves: a
// placement policy as data, loaded from YAML (`--policy naive|kv-first|FILE`).
type Policy struct {
	Name        string    `yaml:"name" spec:"required"`
	Description string    `yaml:"description,omitempty"`
	Weights     Placement `yaml:"weights" spec:"required"`
	// FFN covers dense FFN and MoE expert weights; when absent they follow
	// Weights. Experts, when present, overrides it for expert weights.
	FFN         *Placement `yaml:"ffn,omitempty"`
	Experts     *Placement `yaml:"experts,omitempty"`
	KV          Placement  `yaml:"kv" spec:"required"`
	Activations Placement  `yaml:"activations" spec:"required"`
	// CPULayers places blocks on the CPU beside the unit, as the
	// cpu-layers setting does (ranges, "0-13"), which overrides it.
	CPULayers string `yaml:"cpu_layers,omitempty"`
	// LayersOn places blocks on a third unit, beside the unit and the
	// CPU, as the layers-on setting does ("gpu=0-13"), which overrides it.
	LayersOn string `yaml:"layers_on,omitempty"`

	cpuLayers Layers     // CPULayers, read
	layersOn  UnitLayers // LayersOn, read
}

// Homes of a tensor class.
const (
	HomeDRAM = "dram" // streams from DRAM, read through the L3 without allocating
	HomeL3   = "l3"   // allocates in the L3 (in its share of the ways, locked if asked)
	HomeSRAM = "sram" // resident in the unit's SRAM up to its share; the rest as HomeL3
)

// KV layouts.
const (
	SeqMajor  = "seq-major"  // [seq, head, dim]: one position's heads together (llama.cpp)
	HeadMajor = "head-major" // [head, seq, dim]: one head's positions together
)

// Placement is the policy for one tensor class.
type Placement struct {
	Home string `yaml:"home" spec:"required,oneof=dram|l3|sram"`
	// SRAM is the share of the unit's SRAM that keeps this class resident
	// (home sram).
	SRAM units.Fraction `yaml:"sram,omitempty"`
	// L3Share is the share of the L3's ways this class may allocate into;
	// 0 means all of them, shared with every other class.
	L3Share units.Fraction `yaml:"l3_share,omitempty"`
	// Lock keeps this class's lines in the L3 once allocated.
	Lock bool `yaml:"lock,omitempty"`
	// Layout of the KV cache in memory.
	Layout string `yaml:"layout,omitempty" spec:"oneof=seq-major|head-major"`
	// Banks: "split" spreads a resident class across the SRAM banks by
	// head, so it never conflicts with streaming tiles; "shared" (the
	// default) lets it share banks with them.
	Banks string `yaml:"banks,omitempty" spec:"oneof=shared|split"`
}

var policies = spec.Catalog{Files: policyFiles, Dir: "policies", Kind: "policy", Field: "policy"}

// PolicyIDs lists the built-in policies.
func PolicyIDs() []string { return policies.IDs() }

// LoadPolicy loads a built-in policy by id, or a policy YAML file.
func LoadPolicy(ref string) (*Policy, error) {
	file, data, _, err := policies.Open(ref)
	if err != nil {
		return nil, err
	}
	return DecodePolicy(file, data)
}

// DecodePolicy reads a policy strictly.
func DecodePolicy(file string, data []byte) (*Policy, error) {
	var p Policy
	doc, err := spec.ParseInto(file, data, &p)
	if err != nil {
		return nil, err
	}
	if p.cpuLayers, err = ParseLayers(p.CPULayers); err != nil {
		return nil, doc.Errorf("cpu_layers", "%s", message(err))
	}
	if p.layersOn, err = ParseUnitLayers(p.LayersOn); err != nil {
		return nil, doc.Errorf("layers_on", "%s", message(err))
	}
	// Activations live in the streaming part of the SRAM (and spill
	// through the L3 past half of it), so their home sram needs no share.
	check := func(name string, pl *Placement) error {
		if pl == nil {
			return nil
		}
		if name == "activations" && pl.Home == HomeSRAM && pl.SRAM == 0 {
			return nil
		}
		if pl.SRAM > 1 || pl.L3Share > 1 {
			return doc.Errorf(name, "sram and l3_share are shares: at most 100%%")
		}
		if pl.Home == HomeSRAM && pl.SRAM == 0 {
			return doc.Errorf(name+".sram", "home sram needs a share of the SRAM, e.g. sram: 50%%")
		}
		if pl.Home != HomeSRAM && pl.SRAM != 0 {
			return doc.Errorf(name+".sram", "only a class whose home is sram reserves SRAM")
		}
		if pl.Home == HomeDRAM && (pl.L3Share != 0 || pl.Lock) {
			return doc.Errorf(name+".home", "a class that streams from DRAM does not allocate in the L3; use home: l3 for l3_share and lock")
		}
		return nil
	}
	// The classes split the SRAM and the L3's ways: shares that add up to
	// more than the whole were once cut silently.
	var sram, l3 float64
	for _, c := range []struct {
		name string
		pl   *Placement
	}{{"weights", &p.Weights}, {"ffn", p.FFN}, {"experts", p.Experts}, {"kv", &p.KV}, {"activations", &p.Activations}} {
		if err := check(c.name, c.pl); err != nil {
			return nil, err
		}
		if c.pl == nil {
			continue
		}
		sram += float64(c.pl.SRAM)
		l3 += float64(c.pl.L3Share)
		const eps = 1e-9
		if sram > 1+eps {
			return nil, doc.Errorf(c.name+".sram", "the classes' SRAM shares add up to %s, more than the whole SRAM: make them at most 100%% together", units.Approx(sram, units.KindFraction))
		}
		if l3 > 1+eps {
			return nil, doc.Errorf(c.name+".l3_share", "the classes' L3 shares add up to %s, more than all the ways: make them at most 100%% together (0 shares all ways)", units.Approx(l3, units.KindFraction))
		}
	}
	if p.KV.Layout == "" {
		p.KV.Layout = SeqMajor
	}
	return &p, nil
}

// Tensor classes as the runtime counts them.
type class uint8

const (
	classWeights class = iota
	classFFN
	classExperts
	classKV
	classActivations
	numClasses
)

// placement returns the policy for a class, following the fall-backs:
// experts → ffn → weights.
func (p *Policy) placement(c class) *Placement {
	switch c {
	case classExperts:
		if p.Experts != nil {
			return p.Experts
		}
		fallthrough
	case classFFN:
		if p.FFN != nil {
			return p.FFN
		}
		return &p.Weights
	case classKV:
		return &p.KV
	case classActivations:
		return &p.Activations
	}
	return &p.Weights
}

// weightClass is the class of an operator's weights.
func weightClass(op *workloads.Op) class {
	switch {
	case op.Expert >= 0:
		return classExperts
	case op.Role == workloads.RoleFFN:
		return classFFN
	}
	return classWeights
}

// message is an error's text without the field a *spec.Error names, for
// an error that a file's own field reports again.
func message(err error) string {
	var se *spec.Error
	if errors.As(err, &se) {
		return se.Msg
	}
	return err.Error()
}
