package thermal

import "math"

// StepWise is the step_wise governor of the Linux thermal framework
// (drivers/thermal/gov_step_wise.c; Documentation/driver-api/thermal/
// sysfs-api.rst describes trips and hysteresis). Each trip point is a zone:
// it watches one node and, each time the zone is read, compares the node's
// temperature with its last reading (the trend) and moves the cooling state
// of its units by at most one step:
//
//   - at or above Temp, unless falling: one OPP step down for every unit of
//     the trip, down to OPP 0 (the first reading counts as rising);
//   - at or below Temp − Hysteresis, unless rising: one OPP step back, up to
//     the highest;
//   - otherwise (above the trip and falling, inside the hysteresis band, or
//     below it and rising): hold.
//
// Holding whenever the trend disagrees is what makes it settle: a step
// down that turns the rise into a fall is not followed by another, nor a
// step back that turns the fall into a rise, so the caps come to rest on
// the highest OPP at which the zone settles below its trip, as long as one
// step moves the zone's settled temperature by less than the hysteresis.
// When a step moves it by more, the caps alternate between the two OPPs
// around the sustainable power at the zone's own thermal period, never
// between the extremes.
//
// The trend has a resolution, TrendResolution: a change smaller than that
// is level, as the kernel sees a sensor that reports in steps of 0.1 °C.
// The kernel holds on a level reading; here a level reading above the trip
// steps down and one below the band steps back, because in the simulator
// a level reading means the zone has settled there, and holding would leave
// it parked above its trip (or throttled below its band) for ever.
//
// A trip may have its own polling interval (a thermal zone's
// polling-delay-passive in the kernel; the thermal HAL's PassiveDelay for a
// skin sensor): a zone whose node answers a step in seconds, as a phone's
// skin does, must be read no faster than that, or it takes several steps
// before the first one shows and overshoots to the bottom OPP. A unit
// throttled by several trips runs at the lowest of their caps, as a cooling
// device bound to several trips takes the deepest state. StepWise is not
// safe for concurrent use; it holds only what the algorithm remembers
// between polls (throttle depths, the last reading and the time to the next
// reading of each zone).
type StepWise struct {
	polling, passive float64
	units            []string       // sorted, every unit with an OPP table
	top              map[string]int // highest OPP index per unit
	trips            []tripState
}

// TrendResolution is the smallest change between two readings of a zone
// that counts as a trend, °C: the 0.1 °C step of Qualcomm's tsens sensors,
// whose newer IP versions report deciCelsius (drivers/thermal/qcom/tsens.c,
// tsens_hw_to_mC: "deciCelsius -> milliCelsius").
const TrendResolution = 0.1

type tripState struct {
	node        int
	temp, clear float64 // trip and trip − hysteresis, °C
	polling     float64 // the zone's own interval, 0 for the governor's
	units       []string
	depth       []int // steps below the top, per unit of the trip
	prev        float64
	seen        bool
	wait        float64 // seconds to the zone's next reading
}

func (t *tripState) throttling() bool {
	for _, d := range t.depth {
		if d > 0 {
			return true
		}
	}
	return false
}

// Poll advances the governor by elapsed seconds, reads every zone that is
// due with temperatures temps (power is not used) and returns the caps of
// every unit. It panics when temps is shorter than the network.
func (s *StepWise) Poll(elapsed float64, temps State, _ map[string]float64) Caps {
	for i := range s.trips {
		t := &s.trips[i]
		if t.node >= len(temps) {
			panic("thermal: StepWise.Poll: temperature state shorter than the network")
		}
		if t.wait -= elapsed; t.wait > 1e-9 {
			continue
		}
		temp := temps[t.node]
		rising := !t.seen || temp > t.prev+TrendResolution
		falling := t.seen && temp < t.prev-TrendResolution
		t.prev, t.seen = temp, true
		switch {
		case temp >= t.temp:
			if !falling {
				for j, u := range t.units {
					t.depth[j] = min(t.depth[j]+1, s.top[u])
				}
			}
		case temp > t.clear:
			// Inside the hysteresis band: hold.
		default:
			if !rising {
				for j := range t.depth {
					t.depth[j] = max(t.depth[j]-1, 0)
				}
			}
		}
		t.wait = s.zoneInterval(t)
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

// zoneInterval is a zone's time between readings: its own polling if it has
// one, else the governor's passive interval while it throttles and the idle
// one otherwise.
func (s *StepWise) zoneInterval(t *tripState) float64 {
	switch {
	case t.polling > 0:
		return t.polling
	case t.throttling():
		return s.passive
	default:
		return s.polling
	}
}

// Interval is the time to the next zone's reading.
func (s *StepWise) Interval() float64 {
	next := math.Inf(1)
	for i := range s.trips {
		next = min(next, s.trips[i].wait)
	}
	return max(next, 0)
}
