package sim

import (
	"fmt"
	"math"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/workloads"
)

// energyParts is where a stretch of the run's energy went, in joules.
type energyParts struct {
	compute, host, sram, l3, dram, storage, static float64
	selfRefresh, floor                             float64 // the DRAM in self-refresh while the SoC rests; the always-on domain
	display                                        float64 // the device's display, on while the scenario keeps it on
}

func (p energyParts) total() float64 {
	return p.compute + p.host + p.sram + p.l3 + p.dram + p.storage + p.static + p.selfRefresh + p.floor + p.display
}

func (p *energyParts) add(q energyParts) {
	p.compute += q.compute
	p.host += q.host
	p.sram += q.sram
	p.l3 += q.l3
	p.dram += q.dram
	p.storage += q.storage
	p.static += q.static
	p.selfRefresh += q.selfRefresh
	p.floor += q.floor
	p.display += q.display
}

// deposit is where a stretch's energy goes as heat: joules into each thermal
// node, and each unit's joules in the order they are summed (the "dram"
// entry is the DRAM's), for the governor's view of power per unit.
type deposit struct {
	node  []float64
	units []unitJoules
}

// unitJoules is one unit's share of a stretch's energy.
type unitJoules struct {
	unit string
	j    float64
}

// energy is the dynamic and background energy of a stretch of the run
// whose counters grew by d over seconds: energy per operation on the unit
// that ran it and per byte at each level it crossed, scaled by the square
// of the unit's voltage against its top operating point, the DRAM's
// background, the always-on floor and the display. It changes nothing: it
// returns the parts, fills out with where they go as heat, and returns the
// share of the stretch the units leak for (less than 1 when part of it is
// power-gated). Leakage follows temperature, so the heat side adds it
// (heat.step).
func (e *engine) energy(d counters, seconds float64, out *deposit) (p energyParts, share float64) {
	chip := &e.cfg.Chip.SoC
	h := e.heat
	node := out.node
	clear(node)
	out.units = out.units[:0]
	_, vu := e.opp(e.unit)
	p.compute = (d.ops-d.fallbackOps-d.sideOps)*energyPerOp(e.unit, e.dt)*vu*vu +
		e.activePower(e.unit)*(d.compute+d.stallMem+d.bankConflict)
	p.sram = d.sramBytes * float64(e.unit.SRAMEnergyPerByte) * vu * vu
	node[h.nodeOf[e.unit.Name]] += p.compute + p.sram
	var side float64
	if e.side != nil {
		// The third unit of a split: its operations, and its active power
		// while it runs its blocks (not while the CPU dispatches to it).
		_, vs := e.opp(e.side)
		side = d.sideOps*energyPerOp(e.side, e.sideDt)*vs*vs + e.activePower(e.side)*(d.side-d.sideDispatch)
		p.compute += side
		node[h.nodeOf[e.side.Name]] += side
	}
	if e.host != nil {
		_, vh := e.opp(e.host)
		// One core of the host is busy while it dispatches and samples (in
		// fp32); the whole CPU, as its runtime's threads, while it runs
		// work off the unit (at the dtype it computes the model's in) or
		// drives a hand-off.
		busy := e.activePower(e.host)/float64(max(e.host.Cores, 1))*(d.dispatch+d.host+d.sideDispatch) + e.activePower(e.host)*(d.fallback-d.side)
		p.host = ((d.hostOps-d.fallbackOps)*energyPerOp(e.host, dtype.FP32)+d.fallbackOps*energyPerOp(e.host, e.hostDt))*vh*vh + busy
		node[h.nodeOf[e.host.Name]] += p.host
	}
	// A pipeline stage keeps one core of its unit busy.
	var stage float64
	if u := e.stageUnit; u != nil && d.stage > 0 {
		stage = e.activePower(u) / float64(max(u.Cores, 1)) * d.stage
		p.host += stage
		node[h.nodeOf[u.Name]] += stage
	}
	var lines float64
	for ph := range d.lines {
		for c := range d.lines[ph] {
			lines += d.lines[ph][c]
		}
	}
	if e.sharesL3 {
		p.l3 = lines * e.line * float64(chip.Memory.L3.EnergyPerByte)
	}
	p.dram = d.dramBytes * float64(chip.Memory.DRAM.EnergyPerByte)
	// Resting, the units are power-gated and the DRAM self-refreshes once
	// the gate delay has passed (race to idle).
	awake, gated := seconds, 0.0
	if e.resting >= 0 {
		gated = min(seconds, max(0, e.resting+seconds-float64(chip.Idle.GateDelay)))
		awake = seconds - gated
	}
	dramStatic := float64(chip.Memory.DRAM.StaticPower) * awake
	p.selfRefresh = float64(chip.Memory.DRAM.SelfRefreshPower) * gated
	p.floor = float64(chip.Idle.Floor) * seconds
	node[h.pkg] += p.l3 + p.dram + dramStatic + p.selfRefresh + p.floor
	// The display lies under the front glass: its heat is the skin's.
	if sc := e.cfg.Scenario; sc != nil && sc.Screen {
		p.display = float64(chip.Idle.Display) * seconds
		node[h.skinOrPackage()] += p.display
	}
	// Storage sits on the board, away from the SoC.
	p.storage = d.storageBytes * float64(chip.Storage.EnergyPerByte)
	node[h.board] += p.storage
	share = 1.0
	if gated > 0 {
		share = (awake + gated*float64(chip.Idle.GatedLeakage)) / seconds
	}
	p.static = dramStatic // the units' leakage is added by the heat side
	if seconds > 0 {
		out.units = append(out.units, unitJoules{e.unit.Name, p.compute - side + p.sram})
		if e.side != nil {
			out.units = append(out.units, unitJoules{e.side.Name, side})
		}
		if e.host != nil {
			out.units = append(out.units, unitJoules{e.host.Name, p.host - stage})
		}
		if e.stageUnit != nil {
			out.units = append(out.units, unitJoules{e.stageUnit.Name, stage})
		}
		out.units = append(out.units, unitJoules{"dram", p.dram + dramStatic + p.selfRefresh})
	}
	return p, share
}

// activePower is what a busy unit draws now beyond its operations' energy:
// its active power at the top operating point scaled by clock × V².
func (e *engine) activePower(u *hw.Unit) float64 {
	f, v := e.opp(u)
	return float64(u.ActivePower) * f / float64(u.Clock) * v * v
}

// energyPerOp is a unit's energy per operation in dt, or in the nearest
// dtype above it that the spec gives (a unit computes narrower types on
// wider datapaths), or the widest it gives.
func energyPerOp(u *hw.Unit, dt dtype.Dtype) float64 {
	if j, ok := u.EnergyPerOp[dt]; ok {
		return float64(j)
	}
	var widest float64
	for _, d := range dtype.All {
		j, ok := u.EnergyPerOp[d]
		if ok && d.AtLeast(dt) {
			return float64(j)
		}
		if ok {
			widest = float64(j)
		}
	}
	return widest
}

// maxLeakageTemp bounds the temperature the leakage model is evaluated
// at: beyond it a real chip has long shut down (critical trips sit near
// 110–125 °C), and the exponential would only feed a runaway.
const maxLeakageTemp = 150.0

// staticPower is a unit's leakage at temperature tempC: its static power
// at the reference temperature, growing exponentially by leakage_per_c.
func staticPower(u *hw.Unit, tempC float64) float64 {
	t := math.Min(tempC, maxLeakageTemp)
	return float64(u.StaticPower) * math.Exp(float64(u.LeakagePerC)*(t-float64(u.LeakageRefTemp)))
}

// advance is the one place the run's clock moves: a stretch of one phase,
// labelled label in the series, starting at e.clock and lasting seconds,
// whose counters grew by d. Its energy is accounted (the highest power of
// any stretch kept), the heat side turns it into temperatures and lets
// the governor poll, the DRAM follows a cap it moved, the series gets the
// stretch, and the clock moves to its end.
func (e *engine) advance(phase workloads.Phase, label string, d counters, seconds float64) {
	p, share := e.energy(d, seconds, &e.deposit)
	leak, moved := e.heat.step(e.clock+seconds, seconds, &e.deposit, share)
	p.static += leak
	e.st.energy[phase].add(p)
	if seconds > 0 {
		w := p.total() / seconds
		e.st.peakPower = math.Max(e.st.peakPower, w)
		if limit := float64(e.cfg.Chip.PMICLimit); limit > 0 && w > limit {
			e.st.overPMIC += seconds
			if w > e.st.worst.watts {
				e.st.worst.watts, e.st.worst.at, e.st.worst.label = w, e.clock, label
			}
		}
	}
	if moved {
		e.dram.SetCapacity(e.dramBW * e.dramLevel())
	}
	e.record(label, seconds, p.total())
	e.clock += seconds
	e.lead = 0
}

// maxSeriesPoints bounds the stretches a run may have. Its series goes to
// its sink, its bandwidth samples to a bounded log and its decode steps to
// the few the spread and the sustained rate read, and their times for the
// percentiles to a summary that stops growing (stepTimes: 8 bytes a step
// up to 8 MiB, then a histogram). A sustained
// session of 385,000 stretches (24 h on the default chip) peaks at 67–75 MB
// with --series, as an hour does, its JSON 0.8 MB against 0.5 MB for the
// hour. The bound keeps a series a caller holds in memory, and the run's
// time, finite. A variable so a test can lower it.
var maxSeriesPoints = 1_200_000

// estimateAfter is how many stretches a timed run simulates before it
// estimates how many it will keep by its end: a few hundred decode steps,
// milliseconds of work.
const estimateAfter = 256

// tooManyAhead reports whether a sustained run, at the rate it has
// kept stretches so far, would keep more than twice maxSeriesPoints by
// its end. Heat only slows the steps later on (a throttled phone runs at
// half its cool rate), so twice the budget is past what any run of that
// length could fit; a run nearer the budget is stopped when it reaches it.
func (e *engine) tooManyAhead() bool {
	// Only a sustained session runs until its end time; a chat ends with
	// its turns, however long the time it is given.
	if sc := e.cfg.Scenario; sc == nil || sc.Kind != workloads.Sustained || e.stopAt <= 0 || e.clock <= 0 {
		return false
	}
	return float64(e.st.points)/e.clock*e.stopAt > 2*float64(maxSeriesPoints)
}

// tooLong is the error of a run that reached maxSeriesPoints, or that is
// on course to pass it twice over.
func (e *engine) tooLong() error {
	what := fmt.Sprintf("reached after %.1f h of simulated time", e.clock/3600)
	if e.st.points < maxSeriesPoints {
		what = fmt.Sprintf("about %.3g by the end of its %.4g h at the rate of its first %.3g s", float64(e.st.points)/e.clock*e.stopAt, e.stopAt/3600, e.clock)
	}
	const msg = "the run would keep more than %d steps in memory (about 1 GiB), %s; give a shorter duration (a sustained session settles within minutes; its last-minute rate is what a longer one would report)"
	if e.cfg.Duration > 0 {
		return spec.FieldErrorf("duration", "%s: "+msg, units.Format(e.cfg.Duration, units.KindDuration), maxSeriesPoints, what)
	}
	return spec.Errorf(msg, maxSeriesPoints, what)
}

// fillEnergy writes the energy figures of the result: totals, per phase,
// per token, per part and per unit, average and peak power.
func (e *engine) fillEnergy(r *Result, total float64) {
	var all energyParts
	for _, p := range e.st.energy {
		all.add(p)
	}
	pre, dec := e.st.energy[workloads.Prefill].total(), e.st.energy[workloads.Decode].total()
	en := Energy{
		TotalJ: all.total(), PrefillJ: pre, DecodeJ: dec, PeakPowerW: e.st.peakPower,
		Parts: EnergyParts{Compute: all.compute, Host: all.host, SRAM: all.sram, L3: all.l3, DRAM: all.dram, Storage: all.storage, Static: all.static,
			SelfRefresh: all.selfRefresh, IdleFloor: all.floor, Display: all.display},
	}
	en.AvgPowerW = ptr(ratio(all.total(), total))
	if limit := float64(e.cfg.Chip.PMICLimit); limit > 0 {
		en.PMICLimitW, en.OverPMICS = limit, e.st.overPMIC
		if w := e.st.worst; w.watts > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s of the run drew more than the PMIC's %s (pmic_limit): the most, %s, in %s at %.1f s",
				units.Approx(e.st.overPMIC, units.KindDuration), units.Approx(limit, units.KindPower), units.Approx(w.watts, units.KindPower), w.label, w.at))
		}
	}
	if n := r.Prefill.Tokens; n > 0 {
		en.PrefillJoulesPerToken = ptr(pre / float64(n))
	}
	if n := r.Decode.Tokens; n > 0 {
		en.DecodeJoulesPerToken = ptr(dec / float64(n))
	}
	// The headline: the energy of a generated token, or of a prompt token
	// when nothing was generated.
	switch {
	case en.DecodeJoulesPerToken != nil:
		en.JoulesPerToken = ptr(*en.DecodeJoulesPerToken)
	case en.PrefillJoulesPerToken != nil:
		en.JoulesPerToken = ptr(*en.PrefillJoulesPerToken)
	default:
		en.JoulesPerToken = ptr(0)
	}
	r.Energy = en
}
