package thermalfit

import (
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/thermal"
	"github.com/edgetwin/edgetwin/hw/units"
)

// Param is one figure of the network that can be fitted, addressed by its
// path in a chip file — the path `simulate --set` takes: a node's heat
// capacity (thermal.nodes.<name>.capacity) or resistance to ambient
// (thermal.nodes.<name>.to_ambient, where the node has one), or a link's
// resistance (thermal.links.<index>.resistance; links have no name).
type Param struct {
	Path string
	Kind units.Kind // units.KindHeatCapacity or units.KindThermalResistance
	node int        // index into Spec.Nodes, or -1
	link int        // index into Spec.Links, or -1
}

// Unit is the symbol of the parameter's values: "J/K" or "K/W".
func (p Param) Unit() string {
	if p.Kind == units.KindHeatCapacity {
		return "J/K"
	}
	return "K/W"
}

func (p Param) get(s thermal.Spec) float64 {
	switch {
	case p.link >= 0:
		return float64(s.Links[p.link].Resistance)
	case p.Kind == units.KindHeatCapacity:
		return float64(s.Nodes[p.node].Capacity)
	default:
		return float64(s.Nodes[p.node].ToAmbient)
	}
}

func (p Param) set(s *thermal.Spec, v float64) {
	switch {
	case p.link >= 0:
		s.Links[p.link].Resistance = units.KelvinPerWatt(v)
	case p.Kind == units.KindHeatCapacity:
		s.Nodes[p.node].Capacity = units.JoulesPerKelvin(v)
	default:
		s.Nodes[p.node].ToAmbient = units.KelvinPerWatt(v)
	}
}

// AllParams lists every figure of net that can be fitted: each node's
// capacity and resistance to ambient (where it has one), then each link's
// resistance, in file order.
func AllParams(net thermal.Spec) []Param {
	var ps []Param
	for i, n := range net.Nodes {
		ps = append(ps, Param{Path: "thermal.nodes." + n.Name + ".capacity", Kind: units.KindHeatCapacity, node: i, link: -1})
		if n.ToAmbient > 0 {
			ps = append(ps, Param{Path: "thermal.nodes." + n.Name + ".to_ambient", Kind: units.KindThermalResistance, node: i, link: -1})
		}
	}
	for i := range net.Links {
		ps = append(ps, Param{Path: "thermal.links." + strconv.Itoa(i) + ".resistance", Kind: units.KindThermalResistance, node: -1, link: i})
	}
	return ps
}

// SelectParams picks the parameters named by which: "all" (or nothing),
// "r" (every resistance), "c" (every capacity), or parameter paths, mixed
// freely ("c,thermal.links.3.resistance"). The result is in [AllParams]
// order, each parameter once. Anything else is an error that lists what is
// allowed.
func SelectParams(net thermal.Spec, which []string) ([]Param, error) {
	all := AllParams(net)
	if len(which) == 0 {
		return all, nil
	}
	pick := make([]bool, len(all))
	for _, w := range which {
		w = strings.TrimSpace(w)
		matched := false
		for i, p := range all {
			if w == "all" || w == p.Path ||
				(w == "r" && p.Kind == units.KindThermalResistance) ||
				(w == "c" && p.Kind == units.KindHeatCapacity) {
				pick[i], matched = true, true
			}
		}
		if !matched {
			paths := make([]string, len(all))
			for i, p := range all {
				paths[i] = p.Path
			}
			return nil, spec.FieldErrorf("fit", "%q: no such parameter; allowed: all, r (every resistance), c (every capacity), or paths: %s", w, strings.Join(paths, ", "))
		}
	}
	var ps []Param
	for i, p := range all {
		if pick[i] {
			ps = append(ps, p)
		}
	}
	return ps, nil
}

// cloneSpec copies s deeply enough for set to change it.
func cloneSpec(s thermal.Spec) thermal.Spec {
	s.Nodes = slices.Clone(s.Nodes)
	s.Links = slices.Clone(s.Links)
	return s
}
