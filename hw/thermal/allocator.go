package thermal

import "math"

// PowerAllocator is the power_allocator governor of the Linux thermal
// framework, Arm's Intelligent Power Allocation (drivers/thermal/
// gov_power_allocator.c; Documentation/driver-api/thermal/
// power_allocator.rst). Each poll:
//
//  1. Below SwitchOn − Hysteresis (after having switched on) or below
//     SwitchOn (before), the controller resets and every unit gets its
//     highest OPP.
//  2. Otherwise a PID controller on e = Target − T gives a budget,
//     SustainablePower + k_p·e + k_i·Σe + k_d·Δe/Δt, clamped to
//     [0, the power the units would draw at their highest OPPs]. As in the
//     kernel, Σe sums one error per poll, and only while e is below the
//     integral cutoff and the integral term stays within that maximum.
//  3. The budget is divided between the units in proportion to weight ×
//     the power each would draw at its highest OPP at the activity it
//     shows; a unit offered more than its maximum gives the surplus back,
//     shared among the others by how far each is below its own maximum
//     (the kernel's divvy_up_power). The kernel weighs the power a unit
//     requests at its current state instead, which after a cap is the
//     capped power: a unit throttled once is granted less and stays
//     throttled, and which unit that is follows the run's history (an A17
//     Pro's sustained rate moved +53% on a 1% change of DRAM bandwidth).
//     Sharing the demand at the top leaves one settled point
//     (TestShareByDemandAtTop).
//  4. A unit's power at another OPP is estimated at equal activity: it drew
//     P at its current cap c, so it would draw P·rel[k]/rel[c] at OPP k. Its
//     new cap is the highest OPP whose estimate fits its share (OPP 0 when
//     none does); a unit that drew nothing keeps its highest OPP.
//
// The current OPP of a unit is taken to be the cap this governor last
// gave it. Units with an OPP table that are not in the budget keep their
// highest OPP. PowerAllocator is not safe for concurrent use.
type PowerAllocator struct {
	polling, passive float64
	node             int
	hasSwitch        bool
	switchOn, hyst   float64
	target           float64
	sustainable      float64
	kpo, kpu, ki, kd float64
	cutoff           float64
	actors           []actor
	others           []string // units with OPP tables outside the budget
	top              map[string]int
	caps             Caps // the caps in force, by unit

	on       bool
	integral float64 // Σ e, °C·polls
	prevErr  float64
	havePrev bool
	budget   float64
	// Scratch per actor, reused across polls.
	activity, maxPower, weighted, granted []float64
	totalWeighted                         float64
}

type actor struct {
	name   string
	weight float64
	rel    []float64
}

// Budget is the power budget of the last poll in watts, or +Inf when the
// controller is switched off (no limit).
func (a *PowerAllocator) Budget() float64 {
	if !a.on {
		return math.Inf(1)
	}
	return a.budget
}

// Gains returns k_po, k_pu, k_i and k_d after defaults.
func (a *PowerAllocator) Gains() (kpo, kpu, ki, kd float64) { return a.kpo, a.kpu, a.ki, a.kd }

// Interval is the passive polling interval while the controller is on, else
// the idle one.
func (a *PowerAllocator) Interval() float64 {
	if a.on {
		return a.passive
	}
	return a.polling
}

// Poll runs one step of the controller elapsed seconds after the last, for
// temperatures temps and the power each unit drew over that interval (W by unit name), and returns the
// caps of every unit. It panics when temps is shorter than the network.
func (a *PowerAllocator) Poll(elapsed float64, temps State, power map[string]float64) Caps {
	if a.node >= len(temps) {
		panic("thermal: PowerAllocator.Poll: temperature state shorter than the network")
	}
	dt := elapsed // the interval that ended with this poll
	temp := temps[a.node]
	switch {
	case !a.hasSwitch:
		a.on = true
	case a.on && temp < a.switchOn-a.hyst:
		a.on = false
	case !a.on && temp >= a.switchOn:
		a.on = true
	}
	if !a.on {
		a.integral, a.prevErr, a.havePrev = 0, 0, false
		for u, top := range a.top {
			a.caps[u] = top
		}
		return a.copyCaps()
	}
	maxAlloc, _ := a.estimate(power)

	e := a.target - temp
	kp := a.kpu
	if e < 0 {
		kp = a.kpo
	}
	p := kp * e
	i := a.ki * a.integral
	if e < a.cutoff {
		if next := i + a.ki*e; math.Abs(next) < maxAlloc {
			i = next
			a.integral += e
		}
	}
	var d float64
	if a.havePrev && dt > 0 {
		d = a.kd * (e - a.prevErr) / dt
	}
	a.prevErr, a.havePrev = e, true
	a.budget = math.Min(math.Max(a.sustainable+p+i+d, 0), maxAlloc)

	a.fit()
	for _, u := range a.others {
		a.caps[u] = a.top[u]
	}
	return a.copyCaps()
}

// estimate works out, from the power each actor drew at the cap it was
// given, its activity, the power it would draw at its highest OPP and its
// weighted demand (weight × that power); it returns what the actors could
// draw unthrottled and what they drew.
func (a *PowerAllocator) estimate(power map[string]float64) (maxAlloc, drawn float64) {
	n := len(a.actors)
	if len(a.activity) != n {
		a.activity = make([]float64, n)
		a.maxPower = make([]float64, n)
		a.weighted = make([]float64, n)
		a.granted = make([]float64, n)
	}
	var totalWeighted float64
	for i, ac := range a.actors {
		pw := power[ac.name]
		if !(pw > 0) {
			pw = 0
		}
		rel := ac.rel[a.caps[ac.name]]
		switch {
		case pw == 0:
			a.activity[i] = 0
		case rel > 0:
			a.activity[i] = pw / rel
		default: // a unit drawing power at an OPP its table calls free
			a.activity[i] = pw
		}
		a.maxPower[i] = a.activity[i] * ac.rel[len(ac.rel)-1]
		a.weighted[i] = ac.weight * a.maxPower[i]
		maxAlloc += a.maxPower[i]
		totalWeighted += a.weighted[i]
		drawn += pw
	}
	a.totalWeighted = totalWeighted
	return maxAlloc, drawn
}

// fit shares a.budget between the actors and caps each at its highest OPP
// whose estimated power fits its share.
func (a *PowerAllocator) fit() {
	a.divvy(a.totalWeighted)
	for i, ac := range a.actors {
		top := len(ac.rel) - 1
		if a.activity[i] == 0 {
			a.caps[ac.name] = top
			continue
		}
		c := 0
		for k := top; k > 0; k-- {
			if a.activity[i]*ac.rel[k] <= a.granted[i]*(1+1e-12) {
				c = k
				break
			}
		}
		a.caps[ac.name] = c
	}
}

// divvy shares the budget as the kernel's divvy_up_power does.
func (a *PowerAllocator) divvy(totalWeighted float64) {
	var extra, headroom float64
	for i := range a.actors {
		g := 0.0
		if totalWeighted > 0 {
			g = a.budget * a.weighted[i] / totalWeighted
		}
		if g > a.maxPower[i] {
			extra += g - a.maxPower[i]
			g = a.maxPower[i]
		}
		a.granted[i] = g
		headroom += a.maxPower[i] - g
	}
	if extra == 0 || headroom == 0 {
		return
	}
	extra = math.Min(extra, headroom)
	for i := range a.actors {
		a.granted[i] += extra * (a.maxPower[i] - a.granted[i]) / headroom
	}
}

func (a *PowerAllocator) copyCaps() Caps {
	c := make(Caps, len(a.caps))
	for u, v := range a.caps {
		c[u] = v
	}
	return c
}
