package thermal

// StepWise is the step_wise governor of the Linux thermal framework
// (drivers/thermal/gov_step_wise.c; Documentation/driver-api/thermal/
// sysfs-api.rst describes trips and hysteresis). Each trip point watches one
// node and throttles its units one OPP step at a time:
//
//   - at or above Temp, while the node is not cooling (its temperature rose
//     or stayed level since the last poll, or this is the first poll), every
//     unit of the trip loses one step, down to OPP 0; a node that is already
//     cooling keeps its caps, as the kernel does for a dropping trend;
//   - between Temp − Hysteresis and Temp, once tripped, caps hold;
//   - at or below Temp − Hysteresis, while the node is not heating, every
//     unit gets one step back per poll, up to its highest OPP.
//
// One difference from the kernel: it moves a cooling device only on a
// rising (throttle) or dropping (release) trend and holds on a level one.
// Here a level reading counts as both "not cooling" and "not heating", so a
// zone parked above its trip keeps being throttled and one parked below
// trip − hysteresis is released; in the simulator, where temperatures are
// exact and a level reading means equilibrium, holding would leave a zone
// throttled (or hot) for ever.
//
// A unit throttled by several trips runs at the lowest of their caps, as a
// cooling device bound to several trips takes the deepest state. StepWise is
// not safe for concurrent use; it holds only what the algorithm remembers
// between polls (throttle depths and the last temperature of each zone).
type StepWise struct {
	polling, passive float64
	units            []string       // sorted, every unit with an OPP table
	top              map[string]int // highest OPP index per unit
	trips            []tripState
	active           bool
}

type tripState struct {
	node        int
	temp, clear float64 // trip and trip − hysteresis, °C
	units       []string
	depth       []int // steps below the top, per unit of the trip
	tripped     bool  // crossed temp and not yet cleared
	prev        float64
	seen        bool
}

// Poll applies one step of the algorithm for temperatures temps (power is
// not used) and returns the caps of every unit. It panics when temps does
// not have one entry per node.
func (s *StepWise) Poll(temps State, _ map[string]float64) Caps {
	s.active = false
	for i := range s.trips {
		t := &s.trips[i]
		if t.node >= len(temps) {
			panic("thermal: StepWise.Poll: temperature state shorter than the network")
		}
		temp := temps[t.node]
		rising := !t.seen || temp > t.prev
		falling := t.seen && temp < t.prev
		t.prev, t.seen = temp, true
		switch {
		case temp >= t.temp:
			t.tripped = true
			if !falling {
				for j, u := range t.units {
					t.depth[j] = min(t.depth[j]+1, s.top[u])
				}
			}
		case t.tripped && temp > t.clear:
			// Inside the hysteresis band: hold.
		default:
			idle := true
			for j := range t.depth {
				if !rising && t.depth[j] > 0 {
					t.depth[j]--
				}
				idle = idle && t.depth[j] == 0
			}
			if idle {
				t.tripped = false
			}
		}
		s.active = s.active || t.tripped
		for _, d := range t.depth {
			s.active = s.active || d > 0
		}
	}
	caps := make(Caps, len(s.units))
	for _, u := range s.units {
		caps[u] = s.top[u]
	}
	for _, t := range s.trips {
		for j, u := range t.units {
			caps[u] = min(caps[u], s.top[u]-t.depth[j])
		}
	}
	return caps
}

// Interval is the passive polling interval while any trip is throttling,
// else the idle one.
func (s *StepWise) Interval() float64 {
	if s.active {
		return s.passive
	}
	return s.polling
}
