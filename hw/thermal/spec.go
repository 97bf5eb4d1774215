package thermal

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
)

// Node kinds. A junction is a hot spot on the die (an NPU, CPU cluster or
// GPU); package is the SoC package with its PoP DRAM (or a module's heat
// spreader); board the PCB and what is bolted to it (battery, frame,
// display); skin the outer surface a hand touches; heatsink a finned sink,
// with or without a fan, that nobody holds. The kind does not change the
// physics; it says which node a report calls the junction or the skin.
const (
	Junction = "junction"
	Package  = "package"
	Board    = "board"
	Skin     = "skin"
	Heatsink = "heatsink"
)

// Kinds lists the accepted node kinds.
var Kinds = []string{Junction, Package, Board, Skin, Heatsink}

// Spec is a thermal RC network as a chip file describes it: nodes with heat
// capacities, thermal resistances between nodes and from nodes to ambient
// air, and the ambient temperature. The chip keeps the map from heat sources
// (units, DRAM) to nodes.
//
// In YAML:
//
//	ambient: 25 C
//	nodes:
//	  - {name: soc,  kind: junction, capacity: 2 J/K}
//	  - {name: skin, kind: skin,     capacity: 20 J/K, to_ambient: 8 K/W}
//	links:
//	  - {a: soc, b: skin, resistance: 4 K/W}
type Spec struct {
	Ambient units.Celsius `yaml:"ambient" spec:"required"`
	Nodes   []Node        `yaml:"nodes" spec:"required"`
	Links   []Link        `yaml:"links,omitempty"`
}

// Node is one lumped body: its heat capacity and, when it touches the air,
// its resistance to ambient. ToAmbient 0 (or absent) means no direct path.
type Node struct {
	Name      string                `yaml:"name" spec:"required"`
	Kind      string                `yaml:"kind" spec:"required,oneof=junction|package|board|skin|heatsink"`
	Capacity  units.JoulesPerKelvin `yaml:"capacity" spec:"required"`
	ToAmbient units.KelvinPerWatt   `yaml:"to_ambient,omitempty"`
}

// Link is a thermal resistance between two nodes. Parallel paths between the
// same pair are one link: 1/R = Σ 1/Rᵢ.
type Link struct {
	A          string              `yaml:"a" spec:"required"`
	B          string              `yaml:"b" spec:"required"`
	Resistance units.KelvinPerWatt `yaml:"resistance" spec:"required"`
}

// fieldErr is a problem in a Spec or GovernorSpec, as a *spec.Error
// located by its dotted field path in the chip file: list entries that
// have a name are addressed by it (thermal.nodes.skin.capacity), the
// others by index (thermal.links.2.b), as hw/spec addresses them. Paths of
// a Spec start at "thermal", those of a GovernorSpec at "governor"; a
// caller that nests them elsewhere rewrites that first segment, and adds
// file and line with spec.Doc.Errorf(e.Path, "%s", e.Msg).
func fieldErr(path, format string, args ...any) *spec.Error {
	return &spec.Error{Path: path, Msg: fmt.Sprintf(format, args...)}
}

var nodeName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// Validate checks what the network needs to be physical: at least one node,
// unique lower-case names, known kinds, positive finite heat capacities and
// resistances, links between two different known nodes (one link per pair),
// and a path from every node to ambient — without one, a heated node has
// nowhere to put its heat and its temperature grows without bound. It
// returns the first problem as a *spec.Error.
func (s Spec) Validate() error {
	const root = "thermal"
	if !finite(float64(s.Ambient)) {
		return fieldErr(root+".ambient", "ambient temperature must be finite, got %v", float64(s.Ambient))
	}
	if len(s.Nodes) == 0 {
		return fieldErr(root+".nodes", "the network has no nodes; give at least one, e.g. {name: soc, kind: junction, capacity: 2 J/K, to_ambient: 10 K/W}")
	}
	index := make(map[string]int, len(s.Nodes))
	for i, n := range s.Nodes {
		p := nodePath(n.Name, i)
		switch {
		case n.Name == "":
			return fieldErr(p+".name", "node %d has no name", i)
		case !nodeName.MatchString(n.Name):
			return fieldErr(p+".name", "node name %q must be lower case letters, digits, _ or -, starting with a letter", n.Name)
		}
		if j, dup := index[n.Name]; dup {
			return fieldErr(p+".name", "duplicate node name %q (entries %d and %d); node names must be unique", n.Name, j, i)
		}
		index[n.Name] = i
		if !oneOf(n.Kind, Kinds) {
			return fieldErr(p+".kind", "kind %q is not allowed: use one of %s", n.Kind, strings.Join(Kinds, ", "))
		}
		if c := float64(n.Capacity); !(c > 0) || math.IsInf(c, 0) {
			return fieldErr(p+".capacity", "heat capacity must be positive and finite (e.g. 2 J/K), got %v", c)
		}
		if r := float64(n.ToAmbient); !(r >= 0) || math.IsInf(r, 0) {
			return fieldErr(p+".to_ambient", "resistance to ambient must be positive and finite (e.g. 8 K/W), or absent for no direct path; got %v", r)
		}
	}
	pairs := make(map[[2]int]int, len(s.Links))
	adj := make([][]int, len(s.Nodes))
	for i, l := range s.Links {
		p := root + ".links." + strconv.Itoa(i)
		a, ok := index[l.A]
		if !ok {
			return fieldErr(p+".a", "unknown node %q; nodes are %s", l.A, strings.Join(names(s.Nodes), ", "))
		}
		b, ok := index[l.B]
		if !ok {
			return fieldErr(p+".b", "unknown node %q; nodes are %s", l.B, strings.Join(names(s.Nodes), ", "))
		}
		if a == b {
			return fieldErr(p+".b", "link from %q to itself; a link joins two different nodes", l.A)
		}
		if r := float64(l.Resistance); !(r > 0) || math.IsInf(r, 0) {
			return fieldErr(p+".resistance", "resistance must be positive and finite (e.g. 4 K/W), got %v", r)
		}
		key := [2]int{min(a, b), max(a, b)}
		if j, dup := pairs[key]; dup {
			return fieldErr(p, "second link between %q and %q (the first is links.%d); combine parallel paths into one resistance, 1/R = 1/R1 + 1/R2", l.A, l.B, j)
		}
		pairs[key] = i
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	// Breadth-first search from the nodes that touch the air.
	reached := make([]bool, len(s.Nodes))
	var queue []int
	for i, n := range s.Nodes {
		if n.ToAmbient > 0 {
			reached[i] = true
			queue = append(queue, i)
		}
	}
	if len(queue) == 0 {
		return fieldErr(root+".nodes", "no node has a path to ambient: give at least one node a to_ambient resistance (the skin, e.g. to_ambient: 8 K/W), or temperatures grow without bound")
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range adj[v] {
			if !reached[w] {
				reached[w] = true
				queue = append(queue, w)
			}
		}
	}
	for i, n := range s.Nodes {
		if !reached[i] {
			return fieldErr(nodePath(n.Name, i), "node %q has no path to ambient: link it to a node that has one, or give it a to_ambient resistance; otherwise its temperature grows without bound", n.Name)
		}
	}
	return nil
}

// nodePath addresses node i by name, as hw/spec does, or by index when it
// has none.
func nodePath(name string, i int) string {
	if name == "" {
		return "thermal.nodes." + strconv.Itoa(i)
	}
	return "thermal.nodes." + name
}

func names(nodes []Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Name
	}
	return out
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
