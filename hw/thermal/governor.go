package thermal

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/units"
)

// Governor kinds, named as the Linux thermal framework names them.
const (
	StepWiseKind       = "step_wise"
	PowerAllocatorKind = "power_allocator"
	// SkinLimitKind is not the kernel's: a vendor thermal HAL's skin
	// controller over the kernel's step_wise junction zones.
	SkinLimitKind = "skin_limit"
)

// GovernorSpec describes the DVFS thermal governor of a chip: which
// algorithm, how often it runs, and its thermal zones. In YAML:
//
//	governor:
//	  kind: step_wise
//	  polling: 100 ms
//	  trips:
//	    - {node: npu, temp: 95 C, hysteresis: 2 C, units: [npu]}
//	    - {node: skin, temp: 43 C, hysteresis: 2 C, units: [npu, cpu, gpu, dram]}
//
//	governor:
//	  kind: power_allocator
//	  polling: 1 s
//	  passive_polling: 100 ms
//	  budget:
//	    control_node: skin
//	    switch_on: 39 C
//	    target: 43 C
//	    sustainable_power: 3 W
//	    units: [{name: npu, weight: 1}, {name: gpu}, {name: cpu}]
type GovernorSpec struct {
	// Kind is step_wise, power_allocator or skin_limit.
	Kind string `yaml:"kind" spec:"required,oneof=step_wise|power_allocator|skin_limit"`
	// Polling is the interval between polls while no zone is throttling
	// (the kernel's polling-delay).
	Polling units.Seconds `yaml:"polling" spec:"required"`
	// PassivePolling is the interval while a zone throttles (the kernel's
	// polling-delay-passive); absent means Polling.
	PassivePolling units.Seconds `yaml:"passive_polling,omitempty"`
	// Trips are the step_wise trip points.
	Trips []Trip `yaml:"trips,omitempty"`
	// Budget configures power_allocator.
	Budget Budget `yaml:"budget,omitempty"`
	// Skin configures skin_limit (whose trips are step_wise zones).
	Skin SkinLimit `yaml:"skin,omitempty"`
}

// Trip is one step_wise trip point, a thermal zone: at or above Temp, each
// poll at which the node is heating lowers the allowed OPP of Units by one
// step; below Temp − Hysteresis, each poll at which it is cooling gives one
// step back; otherwise the caps hold.
type Trip struct {
	Node       string        `yaml:"node" spec:"required"`
	Temp       units.Celsius `yaml:"temp" spec:"required"`
	Hysteresis units.Celsius `yaml:"hysteresis,omitempty"`
	// Polling is the zone's own interval between readings, idle or
	// throttling; absent means the governor's polling and passive_polling.
	Polling units.Seconds `yaml:"polling,omitempty"`
	// Units are the names of the units whose OPP the trip lowers; "dram"
	// caps the memory clock when the chip gives DRAM an OPP table.
	Units []string `yaml:"units" spec:"required"`
}

// Budget configures the power_allocator governor (Linux's Intelligent Power
// Allocation, Documentation/driver-api/thermal/power_allocator.rst). A PID
// controller on ControlNode's temperature sets a power budget,
//
//	budget = SustainablePower + k_p·e + k_i·Σe + k_d·Δe/Δt,  e = Target − T,
//
// clamped to [0, what the units would draw at their highest OPPs]; k_p is
// KPo when the node overshoots the target and KPu when it undershoots. The
// budget is shared between Units in proportion to weight × the power each
// draws, and each unit's cap is its highest OPP whose estimated power fits
// its share.
//
// Zero gains take the kernel's defaults (drivers/thermal/
// gov_power_allocator.c, estimate_pid_constants): with
// ΔT = Target − SwitchOn (Target itself when there is no switch-on trip,
// as in the kernel), KPo = SustainablePower/ΔT, KPu = 2·SustainablePower/ΔT,
// KI = KPu/10 and KD = 0. IntegralCutoff defaults to 0 °C as in the kernel:
// errors accumulate only while the node is above the target.
type Budget struct {
	ControlNode string `yaml:"control_node,omitempty"`
	// SwitchOn is the temperature at which the controller starts; below
	// SwitchOn − Hysteresis it resets and every cap returns to the top.
	// Absent means always on.
	SwitchOn   *units.Celsius `yaml:"switch_on,omitempty"`
	Hysteresis units.Celsius  `yaml:"hysteresis,omitempty"`
	// Target is the temperature the controller holds (the kernel's
	// "desired temperature", the last passive trip).
	Target units.Celsius `yaml:"target,omitempty"`
	// SustainablePower is the heat the device can shed at Target in steady
	// state; the kernel documentation quotes ~2 W for a 4" phone.
	SustainablePower units.Watts `yaml:"sustainable_power,omitempty"`
	// Gains in W/°C (KI in W/°C per poll, as the kernel sums errors per
	// poll; KD in W·s/°C, the derivative being per second).
	KPo            float64       `yaml:"k_po,omitempty" spec:"nonneg"`
	KPu            float64       `yaml:"k_pu,omitempty" spec:"nonneg"`
	KI             float64       `yaml:"k_i,omitempty" spec:"nonneg"`
	KD             float64       `yaml:"k_d,omitempty" spec:"nonneg"`
	IntegralCutoff units.Celsius `yaml:"integral_cutoff,omitempty"`
	// Units are the power actors the budget is shared between.
	Units []Actor `yaml:"units,omitempty"`
}

// Actor is a unit the power allocator controls, with its weight (default 1;
// a higher weight gets a larger share, as the kernel's cooling-device
// "contribution").
type Actor struct {
	Name   string  `yaml:"name" spec:"required"`
	Weight float64 `yaml:"weight,omitempty" spec:"nonneg"`
}

// Caps is the highest OPP index each unit may run at: 0 is its lowest
// operating point, len(OPP table)−1 its highest. A Governor returns a cap for
// every unit it was given an OPP table for; the runtime maps caps to clocks
// and voltages through each unit's table.
type Caps map[string]int

// Governor is a thermal governor as a pure state machine. The caller polls
// it once Interval() seconds of simulated time have passed (it may be
// later: the simulator polls at the end of a stretch) with the time since
// the last poll, the current node temperatures and the power each unit drew
// over that time (W, by unit name; a unit not in the map drew nothing), and
// applies the caps it returns until the next poll. It holds no clock: the
// same sequence of polls gives the same caps.
type Governor interface {
	// Poll is called elapsed seconds after the previous poll (after the
	// start for the first): at or after Interval(), never before.
	Poll(elapsed float64, temps State, power map[string]float64) Caps
	// Interval is the time to the next poll, in seconds: the passive
	// polling interval while a zone is throttling, else the idle one
	// (for step_wise, the next zone's, zones having their own).
	Interval() float64
}

// OPPPower is, per unit name, the relative power of the unit at each of its
// operating points, lowest first, at equal activity: f·V² for a clock f at
// voltage V (see RelativePower), or any table of watts in the same
// proportion. step_wise only uses the number of points; power_allocator
// uses the ratios to estimate what a unit would draw at another OPP.
type OPPPower map[string][]float64

// RelativePower returns f·V² for each operating point, normalised to 1 at
// the highest: dynamic power at equal switching activity (P = α C V² f).
// It panics when the slices differ in length.
func RelativePower(freq []units.Hertz, volt []units.Volts) []float64 {
	if len(freq) != len(volt) {
		panic("thermal: RelativePower needs one voltage per frequency")
	}
	rel := make([]float64, len(freq))
	for i := range freq {
		rel[i] = float64(freq[i]) * float64(volt[i]) * float64(volt[i])
	}
	if len(rel) > 0 && rel[len(rel)-1] > 0 {
		top := rel[len(rel)-1]
		for i := range rel {
			rel[i] /= top
		}
	}
	return rel
}

// Validate checks what a GovernorSpec needs on its own: a known kind,
// positive polling intervals, finite temperatures, non-negative hysteresis,
// and for each kind its own fields. NewGovernor also checks the names
// against the network and the units.
func (gs GovernorSpec) Validate() error {
	const root = "governor"
	if !oneOf(gs.Kind, []string{StepWiseKind, PowerAllocatorKind, SkinLimitKind}) {
		return fieldErr(root+".kind", "governor kind %q is not allowed: use step_wise, power_allocator or skin_limit", gs.Kind)
	}
	if p := float64(gs.Polling); !(p > 0) || math.IsInf(p, 0) {
		return fieldErr(root+".polling", "polling interval must be positive and finite (e.g. 100 ms), got %v", p)
	}
	if p := float64(gs.PassivePolling); !(p >= 0) || math.IsInf(p, 0) {
		return fieldErr(root+".passive_polling", "passive polling interval must be positive and finite (e.g. 100 ms), got %v", p)
	}
	if gs.Kind == StepWiseKind && len(gs.Trips) == 0 {
		return fieldErr(root+".trips", "a step_wise governor needs at least one trip, e.g. {node: skin, temp: 43 C, hysteresis: 2 C, units: [cpu]}")
	}
	switch gs.Kind {
	case StepWiseKind, SkinLimitKind:
		for i, t := range gs.Trips {
			p := root + ".trips." + strconv.Itoa(i)
			if t.Node == "" {
				return fieldErr(p+".node", "trip %d names no node", i)
			}
			if !finite(float64(t.Temp)) {
				return fieldErr(p+".temp", "trip temperature must be finite, got %v", float64(t.Temp))
			}
			if h := float64(t.Hysteresis); !(h >= 0) || math.IsInf(h, 0) {
				return fieldErr(p+".hysteresis", "hysteresis must be zero or positive (e.g. 2 C), got %v", h)
			}
			if q := float64(t.Polling); !(q >= 0) || math.IsInf(q, 0) {
				return fieldErr(p+".polling", "a zone's polling interval must be positive and finite (e.g. 7 s), got %v", q)
			}
			if q := float64(t.Polling); !(q >= 0) || math.IsInf(q, 0) {
				return fieldErr(p+".polling", "a zone's polling interval must be positive and finite (e.g. 7 s), got %v", q)
			}
			if len(t.Units) == 0 {
				return fieldErr(p+".units", "trip %d lowers no unit; list the units it throttles, e.g. [npu, gpu]", i)
			}
		}
		if gs.Kind == SkinLimitKind {
			if err := gs.Skin.validate(root + ".skin"); err != nil {
				return err
			}
		}
	case PowerAllocatorKind:
		b := gs.Budget
		p := root + ".budget"
		if len(gs.Trips) > 0 {
			return fieldErr(root+".trips", "trips belong to step_wise; a power_allocator uses budget.switch_on and budget.target")
		}
		if b.ControlNode == "" {
			return fieldErr(p+".control_node", "a power_allocator needs the node whose temperature it controls, e.g. control_node: skin")
		}
		if !finite(float64(b.Target)) {
			return fieldErr(p+".target", "target temperature must be finite, got %v", float64(b.Target))
		}
		if b.SwitchOn != nil {
			if !finite(float64(*b.SwitchOn)) || *b.SwitchOn >= b.Target {
				return fieldErr(p+".switch_on", "switch-on temperature must be below the target (%v), got %v", float64(b.Target), float64(*b.SwitchOn))
			}
		} else if b.Target <= 0 && (b.KPo == 0 || b.KPu == 0 || b.KI == 0) {
			return fieldErr(p+".target", "a target at or below 0 °C without switch_on leaves the default gains undefined (the kernel divides by target − switch-on, taking switch-on as 0 °C when there is none); give switch_on or all of k_po, k_pu and k_i")
		}
		if h := float64(b.Hysteresis); !(h >= 0) || math.IsInf(h, 0) {
			return fieldErr(p+".hysteresis", "hysteresis must be zero or positive (e.g. 2 C), got %v", h)
		}
		if sp := float64(b.SustainablePower); !(sp > 0) || math.IsInf(sp, 0) {
			return fieldErr(p+".sustainable_power", "sustainable power must be positive and finite (e.g. 3 W): the heat the device sheds at the target temperature")
		}
		for _, g := range []struct {
			name string
			v    float64
		}{{"k_po", b.KPo}, {"k_pu", b.KPu}, {"k_i", b.KI}, {"k_d", b.KD}} {
			if !(g.v >= 0) || math.IsInf(g.v, 0) {
				return fieldErr(p+"."+g.name, "gain must be zero (the kernel default) or positive and finite, got %v", g.v)
			}
		}
		if !finite(float64(b.IntegralCutoff)) {
			return fieldErr(p+".integral_cutoff", "integral cutoff must be finite, got %v", float64(b.IntegralCutoff))
		}
		if len(b.Units) == 0 {
			return fieldErr(p+".units", "a power_allocator needs the units it shares the budget between, e.g. [{name: npu}, {name: gpu}]")
		}
		seen := map[string]bool{}
		for i, a := range b.Units {
			ap := p + ".units." + entry(a.Name, i)
			if a.Name == "" {
				return fieldErr(ap+".name", "unit %d has no name", i)
			}
			if seen[a.Name] {
				return fieldErr(ap+".name", "unit %q is listed twice", a.Name)
			}
			seen[a.Name] = true
			if !(a.Weight >= 0) || math.IsInf(a.Weight, 0) {
				return fieldErr(ap+".weight", "weight must be zero (meaning 1) or positive and finite, got %v", a.Weight)
			}
		}
	}
	return nil
}

func (sk SkinLimit) validate(p string) error {
	if sk.Node == "" {
		return fieldErr(p+".node", "a skin_limit governor needs the skin node it limits, e.g. node: skin")
	}
	if !finite(float64(sk.Limit)) || sk.Limit == 0 {
		return fieldErr(p+".limit", "a skin limit must be given and finite (e.g. 43 C), got %v", float64(sk.Limit))
	}
	if h := float64(sk.Hysteresis); !(h >= 0) || math.IsInf(h, 0) {
		return fieldErr(p+".hysteresis", "hysteresis must be zero or positive (e.g. 2 C), got %v", h)
	}
	if q := float64(sk.Sampling); !(q >= 0) || math.IsInf(q, 0) {
		return fieldErr(p+".sampling", "sampling interval must be positive and finite (e.g. 7 s), got %v", q)
	}
	if !(sk.Gain >= 0) || math.IsInf(sk.Gain, 0) {
		return fieldErr(p+".gain", "gain must be zero (the default, %g W/°C) or positive and finite, got %v", DefaultSkinGain, sk.Gain)
	}
	if len(sk.Units) == 0 {
		return fieldErr(p+".units", "a skin limit caps no unit; list the units whose power it caps, e.g. [npu, cpu, gpu]")
	}
	return nil
}

func entry(name string, i int) string {
	if name == "" {
		return strconv.Itoa(i)
	}
	return name
}

// NewGovernor builds the governor gs describes for network net and the
// units in opps (relative power per OPP, lowest first; every unit a trip or
// the budget names must have a table, "dram" included when it is capped).
// Errors are *spec.Error.
func NewGovernor(gs GovernorSpec, net *Network, opps OPPPower) (Governor, error) {
	if err := gs.Validate(); err != nil {
		return nil, err
	}
	unitNames := make([]string, 0, len(opps))
	for u, t := range opps {
		unitNames = append(unitNames, u)
		if len(t) == 0 {
			return nil, fieldErr("governor", "unit %q has an empty OPP table", u)
		}
		for i, r := range t {
			if !(r >= 0) || math.IsInf(r, 0) || (i > 0 && r < t[i-1]) {
				return nil, fieldErr("governor", "unit %q: relative power per OPP must be finite, non-negative and non-decreasing, got %v", u, t)
			}
		}
	}
	sort.Strings(unitNames)
	known := func(path, u string) error {
		if _, ok := opps[u]; !ok {
			return fieldErr(path, "unknown unit %q; units with OPP tables: %s", u, strings.Join(unitNames, ", "))
		}
		return nil
	}
	node := func(path, name string) (int, error) {
		i := net.Index(name)
		if i < 0 {
			return 0, fieldErr(path, "unknown thermal node %q; nodes are %s", name, strings.Join(net.names, ", "))
		}
		return i, nil
	}
	polling := float64(gs.Polling)
	passive := float64(gs.PassivePolling)
	if passive == 0 {
		passive = polling
	}
	switch gs.Kind {
	case StepWiseKind:
		sw := &StepWise{polling: polling, passive: passive, units: unitNames, top: map[string]int{}}
		for _, u := range unitNames {
			sw.top[u] = len(opps[u]) - 1
		}
		for i, t := range gs.Trips {
			p := "governor.trips." + strconv.Itoa(i)
			ni, err := node(p+".node", t.Node)
			if err != nil {
				return nil, err
			}
			ts := tripState{node: ni, temp: float64(t.Temp), clear: float64(t.Temp - t.Hysteresis), polling: float64(t.Polling)}
			for j, u := range t.Units {
				if err := known(p+".units."+strconv.Itoa(j), u); err != nil {
					return nil, err
				}
				if slices.Contains(ts.units, u) {
					return nil, fieldErr(p+".units."+strconv.Itoa(j), "unit %q is listed twice", u)
				}
				ts.units = append(ts.units, u)
			}
			ts.depth = make([]int, len(ts.units))
			ts.wait = sw.zoneInterval(&ts)
			sw.trips = append(sw.trips, ts)
		}
		return sw, nil
	case SkinLimitKind:
		sk := gs.Skin
		ni, err := node("governor.skin.node", sk.Node)
		if err != nil {
			return nil, err
		}
		sc := &SkinController{node: ni, limit: float64(sk.Limit), clear: float64(sk.Limit - sk.Hysteresis),
			sampling: float64(sk.Sampling), gain: sk.Gain, top: map[string]int{}, units: unitNames, skinCaps: Caps{}, ran: Caps{}}
		if sc.sampling == 0 {
			sc.sampling = DefaultSkinSampling
		}
		if sc.gain == 0 {
			sc.gain = DefaultSkinGain
		}
		sc.wait = sc.sampling
		sc.share = &PowerAllocator{caps: Caps{}}
		for _, u := range unitNames {
			sc.top[u] = len(opps[u]) - 1
		}
		for i, u := range sk.Units {
			p := "governor.skin.units." + strconv.Itoa(i)
			if err := known(p, u); err != nil {
				return nil, err
			}
			if slices.Contains(sc.unitsSkin, u) {
				return nil, fieldErr(p, "unit %q is listed twice", u)
			}
			sc.unitsSkin = append(sc.unitsSkin, u)
			sc.skinCaps[u] = sc.top[u]
			sc.share.actors = append(sc.share.actors, actor{name: u, weight: 1, rel: slices.Clone(opps[u])})
		}
		if len(gs.Trips) > 0 {
			steps := gs
			steps.Kind = StepWiseKind
			g, err := NewGovernor(steps, net, opps)
			if err != nil {
				return nil, err
			}
			sc.step = g.(*StepWise)
		}
		return sc, nil
	default:
		b := gs.Budget
		ni, err := node("governor.budget.control_node", b.ControlNode)
		if err != nil {
			return nil, err
		}
		pa := &PowerAllocator{
			polling: polling, passive: passive, node: ni,
			target: float64(b.Target), hyst: float64(b.Hysteresis),
			sustainable: float64(b.SustainablePower),
			kpo:         b.KPo, kpu: b.KPu, ki: b.KI, kd: b.KD,
			cutoff: float64(b.IntegralCutoff),
			others: unitNames,
			top:    map[string]int{},
			caps:   Caps{},
		}
		for _, u := range unitNames {
			pa.top[u] = len(opps[u]) - 1
			pa.caps[u] = pa.top[u]
		}
		threshold := float64(b.Target)
		if b.SwitchOn != nil {
			pa.hasSwitch, pa.switchOn = true, float64(*b.SwitchOn)
			threshold -= pa.switchOn
		}
		if pa.kpo == 0 {
			pa.kpo = pa.sustainable / threshold
		}
		if pa.kpu == 0 {
			pa.kpu = 2 * pa.sustainable / threshold
		}
		if pa.ki == 0 {
			pa.ki = pa.kpu / 10
		}
		for i, a := range b.Units {
			if err := known("governor.budget.units."+entry(a.Name, i)+".name", a.Name); err != nil {
				return nil, err
			}
			w := a.Weight
			if w == 0 {
				w = 1
			}
			pa.actors = append(pa.actors, actor{name: a.Name, weight: w, rel: slices.Clone(opps[a.Name])})
		}
		pa.others = slices.DeleteFunc(slices.Clone(unitNames), func(u string) bool {
			return slices.ContainsFunc(pa.actors, func(a actor) bool { return a.name == u })
		})
		return pa, nil
	}
}
