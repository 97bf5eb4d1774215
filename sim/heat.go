package sim

import (
	"fmt"
	"math"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/thermal"
	"github.com/edgetwin/edgetwin/hw/units"
)

// heat is the run's thermal state: the chip's RC network and its node
// temperatures, the governor and the operating-point caps it sets, and
// what the result reports (peaks, the throttle onset).
type heat struct {
	net      *thermal.Network
	units    []hw.Unit // the chip's, whose leakage heats their nodes
	temps    thermal.State
	trial    []float64          // scratch: the predictor's watts per node
	mid      thermal.State      // scratch: the predictor's temperatures
	power    map[string]float64 // watts per unit and "dram" over the stretch the governor polls after
	leak     []float64          // scratch: each unit's leakage over the stretch, in joules
	last     []float64          // watts per node over the last stretch, for the series
	gov      thermal.Governor
	caps     thermal.Caps
	nodeOf   map[string]int // unit name → node its heat enters
	node     []int          // the node of units[i]
	pkg      int            // the package node: L3 and DRAM interface power
	board    int            // the board node (the package if none): storage power
	nextPoll float64        // run time of the governor's next poll
	lastPoll float64        // run time of its last poll (0 before the first)
	junction []int          // nodes of kind junction (all nodes if none)
	skin     []int
	peakJ    float64
	peakSkin float64
	onset    *float64 // run time the governor first lowered a cap
	changes  int      // how many polls changed a cap
	order    []string // the units and "dram", in a fixed order for key
	capsKey  string   // key, while keyed: the caps have not moved since
	keyed    bool
}

// governing reports whether the governor has lowered a clock in this run:
// from then on it may move them at any poll.
func (h *heat) governing() bool { return h != nil && h.onset != nil }

// key names the current operating-point caps: runs of a step under equal
// keys run at equal clocks.
func (h *heat) key() string {
	if h == nil {
		return ""
	}
	if h.keyed {
		return h.capsKey
	}
	b := make([]byte, 0, 2*len(h.order))
	for _, name := range h.order {
		c := h.caps[name]
		b = append(b, byte(c), byte(c>>8))
	}
	h.capsKey, h.keyed = string(b), true
	return h.capsKey
}

func newHeat(chip *hw.SoC) (*heat, error) {
	net, err := thermal.Compile(*chip.Thermal)
	if err != nil {
		return nil, err
	}
	h := &heat{net: net, units: chip.Units, temps: net.Ambient(), trial: make([]float64, net.Len()), mid: make(thermal.State, net.Len()),
		power: map[string]float64{}, last: make([]float64, net.Len()), nodeOf: map[string]int{}, caps: thermal.Caps{}}
	opps := thermal.OPPPower{}
	for _, u := range chip.Units {
		h.nodeOf[u.Name] = net.Index(chip.ThermalNode(u.Name))
		h.node = append(h.node, h.nodeOf[u.Name])
		h.leak = append(h.leak, 0)
		freqs, volts := make([]units.Hertz, len(u.OPP)), make([]units.Volts, len(u.OPP))
		for i, o := range u.OPP {
			freqs[i], volts[i] = o.Freq, o.Volt
		}
		opps[u.Name] = thermal.RelativePower(freqs, volts)
		h.caps[u.Name] = len(u.OPP) - 1 // every unit starts at its highest
		h.order = append(h.order, u.Name)
	}
	var levels []float64
	for _, l := range chip.Memory.DRAM.Levels {
		levels = append(levels, float64(l))
	}
	opps["dram"] = levels
	h.caps["dram"] = len(levels) - 1
	h.order = append(h.order, "dram")
	h.pkg = net.Index(chip.ThermalNode("package"))
	h.board = h.pkg
	for i, k := range net.Kinds() {
		switch k {
		case thermal.Junction:
			h.junction = append(h.junction, i)
		case thermal.Skin:
			h.skin = append(h.skin, i)
		case thermal.Board:
			h.board = i
		}
	}
	if len(h.junction) == 0 {
		for i := range net.Len() {
			h.junction = append(h.junction, i)
		}
	}
	if h.gov, err = thermal.NewGovernor(*chip.Governor, net, opps); err != nil {
		return nil, err
	}
	h.nextPoll = h.gov.Interval()
	h.peakJ, h.peakSkin = math.Inf(-1), math.Inf(-1)
	h.track()
	return h, nil
}

// track updates the peak temperatures.
func (h *heat) track() {
	for _, i := range h.junction {
		h.peakJ = math.Max(h.peakJ, h.temps[i])
	}
	for _, i := range h.skin {
		h.peakSkin = math.Max(h.peakSkin, h.temps[i])
	}
}

// temp is the temperature of a unit's node.
func (h *heat) temp(unit string) float64 { return h.temps[h.nodeOf[unit]] }

// opp is a unit's current operating point (its highest when it has no
// table: Clock at nominal voltage): its clock and its voltage as a share
// of the top operating point's.
func (h *heat) opp(u *hw.Unit) (freq, voltScale float64) {
	if len(u.OPP) == 0 || h == nil {
		return float64(u.Clock), 1
	}
	top := u.OPP[len(u.OPP)-1]
	o := u.OPP[min(h.caps[u.Name], len(u.OPP)-1)]
	return float64(o.Freq) * float64(u.Clock) / float64(top.Freq), float64(o.Volt) / float64(top.Volt)
}

// opp is a unit's current operating point.
func (e *engine) opp(u *hw.Unit) (freq, voltScale float64) { return e.heat.opp(u) }

// clockOf is the clock a unit runs at now.
func (e *engine) clockOf(u *hw.Unit) float64 {
	f, _ := e.opp(u)
	return f
}

// step is the heat side of a stretch of the run that ends at end and
// lasts seconds, into whose nodes in.node joules of dynamic energy went:
// it adds every unit's leakage at its node's temperature and voltage
// (scaled by share, the part of the stretch the units are not
// power-gated), advances the temperatures, lets the governor poll if its
// interval has passed and applies the caps it sets. It returns the
// leakage in joules and whether a cap moved. in.node is left in watts.
//
// Leakage follows temperature within the stretch: it is evaluated at the
// temperatures a first advance predicts halfway through (a
// predictor-corrector step), which keeps stretches much longer than a
// junction's time constant stable.
func (h *heat) step(end, seconds float64, in *deposit, share float64) (leak float64, moved bool) {
	at := h.temps
	if seconds > 0 {
		copy(h.trial, in.node)
		for i := range h.units {
			u := &h.units[i]
			_, v := h.opp(u)
			h.trial[h.node[i]] += staticPower(u, h.temps[h.node[i]]) * v * seconds * share
		}
		for i := range h.trial {
			h.trial[i] /= seconds
		}
		half := h.net.Advance(h.mid, h.temps, h.trial, seconds)
		for i := range half {
			half[i] = (h.temps[i] + half[i]) / 2
		}
		at = half
	}
	for i := range h.units {
		u := &h.units[i]
		_, v := h.opp(u)
		l := staticPower(u, at[h.node[i]]) * v * seconds * share
		leak += l
		in.node[h.node[i]] += l
		h.leak[i] = l
	}
	if end >= h.nextPoll { // the governor sees this stretch's watts
		clear(h.power)
		for i := range h.units {
			h.power[h.units[i].Name] += h.leak[i]
		}
		if seconds > 0 {
			for _, uj := range in.units {
				h.power[uj.unit] += uj.j
			}
			for k := range h.power {
				h.power[k] /= seconds
			}
		}
	}
	if seconds > 0 {
		for i := range in.node {
			in.node[i] /= seconds
		}
		h.net.Advance(h.temps, h.temps, in.node, seconds)
		h.track()
		copy(h.last, in.node)
	} else {
		clear(h.last)
	}
	if end < h.nextPoll {
		return leak, false
	}
	caps := h.gov.Poll(end-h.lastPoll, h.temps, h.power)
	h.lastPoll = end
	h.nextPoll = end + h.gov.Interval()
	lowered, changed := false, false
	for k, v := range caps {
		lowered = lowered || v < h.caps[k]
		changed = changed || v != h.caps[k]
		h.caps[k] = v
	}
	if changed {
		h.changes++
		h.keyed = false
	}
	if lowered && h.onset == nil {
		h.onset = ptr(end)
	}
	return leak, changed
}

// dramLevel is the share of the DRAM's bandwidth the governor allows.
func (e *engine) dramLevel() float64 {
	levels := e.cfg.Chip.Memory.DRAM.Levels
	if len(levels) == 0 {
		return 1
	}
	return float64(levels[min(e.heat.caps["dram"], len(levels)-1)])
}

// sustainedWindow is the decoding at the end of a run over which
// thermal.sustained_tokens_per_s is measured, and minSustainedRun the
// shortest run that has one.
const (
	sustainedWindow = 60.0
	minSustainedRun = 120.0
)

// criticalTemp is where phones' critical trips shut the device down.
const criticalTemp = 125.0

// fillThermal writes the thermal figures of the result.
func (e *engine) fillThermal(r *Result, total float64) {
	h := e.heat
	if h.peakJ > criticalTemp {
		r.Warnings = append(r.Warnings, fmt.Sprintf("a junction reached %.0f °C, past the %.0f °C where a device shuts down: leakage outgrows what the thermal network removes (thermal runaway); check static_power, leakage_per_c and the network", h.peakJ, criticalTemp))
	}
	hs := e.cfg.Chip.Heat
	r.Thermal = Thermal{Package: hs.Package, Device: hs.Title, AmbientC: float64(hs.Ambient), AmbientAssumed: hs.AmbientAssumed,
		PeakC: ptr(h.peakJ), ThrottleOnsetS: h.onset}
	if len(h.skin) > 0 {
		r.Thermal.SkinPeakC = ptr(h.peakSkin)
	}
	if tail := e.steps.tail; total >= minSustainedRun && len(tail) > 0 {
		// The last minute of decoding: a session's think time between
		// answers is not part of it.
		n, busy := 0, 0.0
		for i := len(tail) - 1; i >= 0 && busy+tail[i] <= sustainedWindow; i-- {
			busy += tail[i]
			n += e.steps.tailToks[i]
		}
		if n > 0 {
			r.Thermal.SustainedTokensPerS = ptr(float64(n) / busy)
		}
	}
	for i := range e.cfg.Chip.Units {
		u := &e.cfg.Chip.Units[i]
		r.Thermal.FinalClocks = append(r.Thermal.FinalClocks, UnitClock{Unit: u.Name, Hz: e.clockOf(u)})
	}
}

// skinOrPackage is the node the display's heat enters: the first skin
// node, or the package on a network without one.
func (h *heat) skinOrPackage() int {
	if len(h.skin) > 0 {
		return h.skin[0]
	}
	return h.pkg
}
