package thermalfit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/thermal"
)

// Data is a series tied to a network: per row, the power into every node
// and the temperature of every sensor, in the network's node order.
type Data struct {
	File    string
	Times   []float64   // s
	Lines   []int       // file line of each row
	Power   [][]float64 // per row, W into each node: the mean over the interval ending at the row
	Sensors []int       // the node of each sensor
	Temps   [][]float64 // per row, °C at each sensor
	Ambient []float64   // °C per row
	Nodes   []string    // the network's nodes
}

// Bind ties s to the network net. unitNode maps each unit of the chip to
// the node its heat enters (hw.SoC.ThermalNode); a power column names a node
// or a unit, and columns that land on the same node add up. A temp column
// names a node, a clock column a unit. Without an ambient_c column the
// ambient is the network's. A name the chip does not have is an *Error on
// the header line that lists the names allowed.
func (s *Series) Bind(net thermal.Spec, unitNode map[string]string) (*Data, error) {
	nodes := make([]string, len(net.Nodes))
	for i, n := range net.Nodes {
		nodes[i] = n.Name
	}
	unitNames := make([]string, 0, len(unitNode))
	for u := range unitNode {
		unitNames = append(unitNames, u)
	}
	slices.Sort(unitNames)
	fail := func(col, format string, args ...any) error {
		return &spec.Error{File: s.File, Line: s.Header, Path: col, Msg: fmt.Sprintf(format, args...)}
	}
	rows := len(s.Times)
	d := &Data{File: s.File, Times: s.Times, Lines: s.Lines, Nodes: nodes, Power: make([][]float64, rows), Temps: make([][]float64, rows)}
	for i := range d.Power {
		d.Power[i] = make([]float64, len(nodes))
		d.Temps[i] = make([]float64, len(s.Temps))
	}
	for _, c := range s.Power {
		node := slices.Index(nodes, c.Name)
		if node < 0 {
			if n, ok := unitNode[c.Name]; ok {
				node = slices.Index(nodes, n)
			}
		}
		if node < 0 {
			return nil, fail(c.Column, "no node or unit %q; nodes: %s; units: %s", c.Name, strings.Join(nodes, ", "), strings.Join(unitNames, ", "))
		}
		for i, v := range c.Values {
			d.Power[i][node] += v
		}
	}
	for k, c := range s.Temps {
		node := slices.Index(nodes, c.Name)
		if node < 0 {
			return nil, fail(c.Column, "no node %q: a sensor is read as the temperature of a node of the network; nodes: %s", c.Name, strings.Join(nodes, ", "))
		}
		d.Sensors = append(d.Sensors, node)
		for i, v := range c.Values {
			d.Temps[i][k] = v
		}
	}
	for _, c := range s.Clocks {
		if _, ok := unitNode[c.Name]; !ok {
			return nil, fail(c.Column, "no unit %q; units: %s", c.Name, strings.Join(unitNames, ", "))
		}
	}
	d.Ambient = s.Ambient
	if d.Ambient == nil {
		d.Ambient = make([]float64, rows)
		for i := range d.Ambient {
			d.Ambient[i] = float64(net.Ambient)
		}
	}
	return d, nil
}

// UnitNodes maps each unit of a chip, and "dram", to the node of its
// thermal network that the unit's heat enters, for [Series.Bind].
func UnitNodes(soc *hw.SoC) map[string]string {
	m := map[string]string{"dram": soc.ThermalNode("dram")}
	for _, u := range soc.Units {
		m[u.Name] = soc.ThermalNode(u.Name)
	}
	return m
}
