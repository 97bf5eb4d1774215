package thermal

import (
	"math"

	"github.com/edgetwin/edgetwin/hw/units"
)

// SkinLimit configures the skin_limit governor: a vendor thermal HAL's skin
// controller over the kernel's step_wise junction zones. In YAML:
//
//	governor:
//	  kind: skin_limit
//	  polling: 100 ms
//	  trips:            # the kernel's zones, step_wise, optional
//	    - {node: gpu, temp: 95 C, hysteresis: 2 C, units: [gpu]}
//	  skin:
//	    node: skin
//	    limit: 43 C
//	    hysteresis: 2 C
//	    sampling: 7 s
//	    units: [npu, cpu, gpu]
type SkinLimit struct {
	// Node is the skin node the limit applies to.
	Node string `yaml:"node,omitempty"`
	// Limit is the skin temperature the controller holds the device under.
	Limit units.Celsius `yaml:"limit,omitempty"`
	// Hysteresis: below Limit − Hysteresis the cap rises again, and once
	// it is above what the units draw at their highest OPPs the controller
	// lets go.
	Hysteresis units.Celsius `yaml:"hysteresis,omitempty"`
	// Sampling is the time between readings of the skin (the HAL's
	// PassiveDelay); absent means 7 s.
	Sampling units.Seconds `yaml:"sampling,omitempty"`
	// Gain is how far the power cap moves per reading per °C the skin is
	// above the limit (or below Limit − Hysteresis), W/°C; absent means
	// DefaultSkinGain.
	Gain float64 `yaml:"gain,omitempty" spec:"nonneg"`
	// Units are the units whose OPPs fit the cap ("dram" included when its
	// clock is capped).
	Units []string `yaml:"units,omitempty"`
}

// Defaults of SkinLimit.
const (
	// DefaultSkinSampling is the Pixel thermal HAL's PassiveDelay for its
	// VIRTUAL-SKIN sensor, 7000 ms (a Pixel 10's vendor/etc/
	// thermal_info_config*.json).
	DefaultSkinSampling = 7.0
	// DefaultSkinGain is assumed: a phone's skin rises ~3 °C per watt over
	// the half minute a reading or two takes to show (PhoneDefault: the
	// package and skin with the board held), so 0.25 W/°C corrects about
	// three quarters of an excess per reading, without overshoot.
	DefaultSkinGain = 0.25
)

// SkinController is the skin_limit governor: the kernel's step_wise on the
// junction zones (when the spec has trips) under a vendor-style skin
// controller, as Android phones run them (the thermal HAL reads a skin
// sensor, virtual or real, and caps the power of the SoC's units; the
// kernel keeps its junction trips). Every Sampling seconds the controller
// reads the skin:
//
//   - not engaged: at or above Limit it engages, with the cap at what the
//     units drew over the last interval;
//   - above Limit: the cap falls by Gain × (T − Limit);
//   - below Limit − Hysteresis: the cap rises by Gain × (Limit −
//     Hysteresis − T); once it is above what the units would draw at
//     their highest OPPs, the controller lets go;
//   - in between: the cap holds, so a cap whose OPPs settle the skin inside
//     the band stays where it is.
//
// The cap is shared between the units in proportion to the power each
// would draw at its highest OPP (as power_allocator shares its budget,
// surplus handed on), and each unit
// runs at the highest OPP whose estimated power fits its share, estimated
// at equal activity from what it drew at the OPP it ran at. A unit in both
// a trip and the skin list runs at the lower of the two caps.
type SkinController struct {
	step      *StepWise // the kernel's junction zones; nil when none
	node      int
	limit     float64
	clear     float64
	sampling  float64
	gain      float64
	share     *PowerAllocator // only its budget division and OPP fit
	top       map[string]int
	units     []string // every unit with an OPP table, sorted
	engaged   bool
	cap       float64 // W
	demand    float64 // W: the most the units would draw unthrottled, over the readings since engaging
	wait      float64
	skinCaps  Caps     // the controller's caps, by unit of unitsSkin
	ran       Caps     // the caps of the last poll: what the units ran at since
	unitsSkin []string // the units the cap applies to
}

// PowerCap is the cap in force in watts, +Inf when the controller is not
// engaged.
func (s *SkinController) PowerCap() float64 {
	if !s.engaged {
		return math.Inf(1)
	}
	return s.cap
}

// Interval is the time to the next reading, of the skin or of a junction
// zone.
func (s *SkinController) Interval() float64 {
	next := s.wait
	if s.step != nil {
		next = min(next, s.step.Interval())
	}
	return max(next, 0)
}

// Poll advances the controller by elapsed seconds with temperatures temps
// and the power each unit drew (W by unit name) and returns every unit's
// cap. It panics when temps is shorter than the network.
func (s *SkinController) Poll(elapsed float64, temps State, power map[string]float64) Caps {
	if s.node >= len(temps) {
		panic("thermal: SkinController.Poll: temperature state shorter than the network")
	}
	caps := Caps{}
	for _, u := range s.units {
		caps[u] = s.top[u]
	}
	if s.step != nil {
		caps = s.step.Poll(elapsed, temps, power)
	}
	if s.wait -= elapsed; s.wait <= 1e-9 {
		s.wait = s.sampling
		s.sample(temps[s.node], power)
	}
	for u, c := range s.skinCaps {
		caps[u] = min(caps[u], c)
	}
	clear(s.ran)
	for u, c := range caps {
		s.ran[u] = c
	}
	return caps
}

func (s *SkinController) sample(temp float64, power map[string]float64) {
	// Activity is estimated at the OPP each unit ran at, which a junction
	// zone may have put under the skin's cap.
	a := s.share
	for _, u := range s.unitsSkin {
		a.caps[u] = s.skinCaps[u]
		if c, ok := s.ran[u]; ok {
			a.caps[u] = c
		}
	}
	maxAlloc, total := a.estimate(power) // total: what they drew
	if !s.engaged && temp >= s.limit {
		s.engaged, s.cap, s.demand = true, total, 0
	}
	// What the units would draw unthrottled is the most any reading since
	// engaging showed: a reading while they rest (think time between
	// turns) shows next to nothing, and would otherwise clamp the cap to
	// it, or let go, and the next turn would start from wherever that
	// left it.
	s.demand = math.Max(s.demand, maxAlloc)
	switch {
	case s.engaged && temp > s.limit:
		s.cap -= s.gain * (temp - s.limit)
	case s.engaged && temp < s.clear:
		s.cap += s.gain * (s.clear - temp)
		if s.cap >= s.demand {
			s.engaged = false
		}
	}
	if !s.engaged {
		for _, u := range s.unitsSkin {
			s.skinCaps[u] = s.top[u]
		}
		return
	}
	s.cap = math.Min(math.Max(s.cap, 0), s.demand)
	a.budget = s.cap
	a.fit()
	for _, u := range s.unitsSkin {
		s.skinCaps[u] = a.caps[u]
	}
}
