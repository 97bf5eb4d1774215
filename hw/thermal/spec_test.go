package thermal

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
)

func TestValidate(t *testing.T) {
	ok := func() Spec {
		return Spec{Ambient: 25,
			Nodes: []Node{
				{Name: "die", Kind: Junction, Capacity: 1},
				{Name: "case", Kind: Skin, Capacity: 20, ToAmbient: 8},
			},
			Links: []Link{{A: "die", B: "case", Resistance: 3}},
		}
	}
	tests := []struct {
		name, path, msg string
		edit            func(*Spec)
	}{
		{"valid", "", "", func(*Spec) {}},
		{"no nodes", "thermal.nodes", "no nodes", func(s *Spec) { s.Nodes, s.Links = nil, nil }},
		{"disconnected", "thermal.nodes.die", "no path to ambient", func(s *Spec) { s.Links = nil }},
		{"no ambient path at all", "thermal.nodes", "no node has a path to ambient", func(s *Spec) { s.Nodes[1].ToAmbient = 0 }},
		{"island of two", "thermal.nodes.a", "no path to ambient", func(s *Spec) {
			s.Nodes = append(s.Nodes, Node{Name: "a", Kind: Board, Capacity: 1}, Node{Name: "b", Kind: Board, Capacity: 1})
			s.Links = append(s.Links, Link{A: "a", B: "b", Resistance: 1})
		}},
		{"unknown link node", "thermal.links.0.b", `unknown node "cpu"`, func(s *Spec) { s.Links[0].B = "cpu" }},
		{"unknown link node a", "thermal.links.0.a", `unknown node "x"`, func(s *Spec) { s.Links[0].A = "x" }},
		{"self link", "thermal.links.1.b", "to itself", func(s *Spec) {
			s.Links = append(s.Links, Link{A: "die", B: "die", Resistance: 1})
		}},
		{"duplicate link", "thermal.links.1", "second link", func(s *Spec) {
			s.Links = append(s.Links, Link{A: "case", B: "die", Resistance: 1})
		}},
		{"duplicate names", "thermal.nodes.die.name", `duplicate node name "die"`, func(s *Spec) { s.Nodes[1].Name = "die" }},
		{"empty name", "thermal.nodes.0.name", "no name", func(s *Spec) { s.Nodes[0].Name = "" }},
		{"bad name", "thermal.nodes.Die.name", "lower case", func(s *Spec) { s.Nodes[0].Name = "Die" }},
		{"zero capacity", "thermal.nodes.die.capacity", "must be positive", func(s *Spec) { s.Nodes[0].Capacity = 0 }},
		{"negative capacity", "thermal.nodes.die.capacity", "must be positive", func(s *Spec) { s.Nodes[0].Capacity = -1 }},
		{"infinite capacity", "thermal.nodes.die.capacity", "finite", func(s *Spec) { s.Nodes[0].Capacity = units.JoulesPerKelvin(math.Inf(1)) }},
		{"negative to_ambient", "thermal.nodes.case.to_ambient", "positive", func(s *Spec) { s.Nodes[1].ToAmbient = -8 }},
		{"zero resistance", "thermal.links.0.resistance", "must be positive", func(s *Spec) { s.Links[0].Resistance = 0 }},
		{"bad kind", "thermal.nodes.die.kind", `kind "hotspot"`, func(s *Spec) { s.Nodes[0].Kind = "hotspot" }},
		{"NaN ambient", "thermal.ambient", "finite", func(s *Spec) { s.Ambient = units.Celsius(math.NaN()) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ok()
			tc.edit(&s)
			err := s.Validate()
			if tc.path == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var fe *spec.Error
			if !errors.As(err, &fe) {
				t.Fatalf("Validate() = %v, want a *spec.Error at %s", err, tc.path)
			}
			if fe.Path != tc.path || !strings.Contains(fe.Msg, tc.msg) {
				t.Errorf("Validate() = %q at %q, want %q in a message at %q", fe.Msg, fe.Path, tc.msg, tc.path)
			}
			if _, err := Compile(s); err == nil {
				t.Errorf("Compile accepted a spec Validate rejects")
			}
		})
	}
}

// TestYAML decodes a network and a governor strictly with hw/spec, as the
// chip loader will: quantities with units, field names as documented.
func TestYAML(t *testing.T) {
	const text = `
thermal:
  ambient: 25 C
  nodes:
    - {name: npu, kind: junction, capacity: 0.01 J/K}
    - {name: skin, kind: skin, capacity: 6 J/K, to_ambient: 16 K/W}
  links:
    - {a: npu, b: skin, resistance: 7.5 K/W}
governor:
  kind: power_allocator
  polling: 1 s
  passive_polling: 100 ms
  budget:
    control_node: skin
    switch_on: 40 C
    hysteresis: 1 C
    target: 43 C
    sustainable_power: 2500 mW
    units: [{name: npu, weight: 2}]
`
	var chip struct {
		Thermal  Spec         `yaml:"thermal"`
		Governor GovernorSpec `yaml:"governor"`
	}
	doc, err := spec.Parse("chip.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Decode(&chip); err != nil {
		t.Fatal(err)
	}
	if chip.Thermal.Nodes[0].Capacity != 0.01 || chip.Thermal.Nodes[1].ToAmbient != 16 || chip.Thermal.Links[0].Resistance != 7.5 {
		t.Errorf("decoded network %+v", chip.Thermal)
	}
	net, err := Compile(chip.Thermal)
	if err != nil {
		t.Fatal(err)
	}
	b := chip.Governor.Budget
	if b.SwitchOn == nil || *b.SwitchOn != 40 || b.SustainablePower != 2.5 || chip.Governor.PassivePolling != 0.1 || b.Units[0].Weight != 2 {
		t.Errorf("decoded governor %+v", chip.Governor)
	}
	if _, err := NewGovernor(chip.Governor, net, OPPPower{"npu": {0.2, 0.5, 1}}); err != nil {
		t.Fatal(err)
	}
	// An unknown field is an error with file and line, from hw/spec.
	bad, _ := spec.Parse("chip.yaml", []byte("thermal:\n  ambient: 25 C\n  nodes: []\n  fans: 2\n"))
	var other struct {
		Thermal Spec `yaml:"thermal"`
	}
	if err := bad.Decode(&other); err == nil || !strings.Contains(err.Error(), "chip.yaml:4") {
		t.Errorf("unknown field: %v", err)
	}
	// A FieldError's path finds its line in the document.
	chip.Thermal.Links[0].B = "cpu"
	var fe *spec.Error
	if !errors.As(chip.Thermal.Validate(), &fe) {
		t.Fatal("Validate accepted an unknown link node")
	}
	if line := doc.Line(fe.Path); line != 8 { // the text starts with a newline
		t.Errorf("%s is at line %d of the document, want 8", fe.Path, line)
	}
}
