package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/hw/thermal"
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

// energy is the energy of a stretch of the run whose counters grew by d
// over seconds: dynamic energy per operation on the unit that ran it and
// per byte at each level it crossed, scaled by the square of the unit's
// voltage against its top operating point, plus every unit's leakage at
// its node's temperature and voltage, and the DRAM's background. It also
// leaves each thermal node's share in e.heat.power (joules) and each
// unit's power in e.unitPower, for stepHeat.
func (e *engine) energy(d counters, seconds float64) energyParts {
	chip := &e.cfg.Chip.SoC
	h := e.heat
	var p energyParts
	_, vu := e.opp(e.unit)
	p.compute = (d.ops-d.fallbackOps)*energyPerOp(e.unit, e.dt)*vu*vu +
		e.activePower(e.unit)*(d.compute+d.stallMem+d.bankConflict)
	p.sram = d.sramBytes * float64(e.unit.SRAMEnergyPerByte) * vu * vu
	h.power[h.nodeOf[e.unit.Name]] += p.compute + p.sram
	if e.host != nil {
		_, vh := e.opp(e.host)
		// One core of the host is busy while it dispatches, samples and
		// runs fallbacks.
		busy := e.activePower(e.host) / float64(max(e.host.Cores, 1)) * (d.dispatch + d.host + d.fallback)
		p.host = d.hostOps*energyPerOp(e.host, dtype.FP32)*vh*vh + busy
		h.power[h.nodeOf[e.host.Name]] += p.host
	}
	// A pipeline stage keeps one core of its unit busy.
	var stage float64
	if u := e.stageUnit; u != nil && d.stage > 0 {
		stage = e.activePower(u) / float64(max(u.Cores, 1)) * d.stage
		p.host += stage
		h.power[h.nodeOf[u.Name]] += stage
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
	h.power[h.pkg] += p.l3 + p.dram + dramStatic + p.selfRefresh + p.floor
	// The display lies under the front glass: its heat is the skin's.
	if sc := e.cfg.Scenario; sc != nil && sc.Screen {
		p.display = float64(chip.Idle.Display) * seconds
		h.power[h.skinOrPackage()] += p.display
	}
	// Storage sits on the board, away from the SoC.
	p.storage = d.storageBytes * float64(chip.Storage.EnergyPerByte)
	h.power[h.board] += p.storage
	clear(e.unitPower)
	share := 1.0
	if gated > 0 {
		share = (awake + gated*float64(chip.Idle.GatedLeakage)) / seconds
	}
	p.static = dramStatic + e.leakage(seconds, share)
	if seconds > 0 {
		e.unitPower[e.unit.Name] += p.compute + p.sram
		if e.host != nil {
			e.unitPower[e.host.Name] += p.host - stage
		}
		if e.stageUnit != nil {
			e.unitPower[e.stageUnit.Name] += stage
		}
		e.unitPower["dram"] = p.dram + dramStatic + p.selfRefresh
		for k := range e.unitPower {
			e.unitPower[k] /= seconds
		}
	}
	return p
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

// leakage adds every unit's leakage over a stretch of seconds to the heat
// of its node (and to e.unitPower, in joules until energy divides), and
// returns the total. Leakage follows temperature within the stretch: it
// is evaluated at the temperatures a first advance predicts halfway
// through (a predictor-corrector step), which keeps stretches much longer
// than a junction's time constant stable. share scales it: the leakage a
// stretch keeps when part of it is power-gated.
func (e *engine) leakage(seconds, share float64) float64 {
	h := e.heat
	chip := &e.cfg.Chip.SoC
	at := h.temps
	if seconds > 0 {
		trial := slices.Clone(h.power)
		for i := range chip.Units {
			u := &chip.Units[i]
			_, v := e.opp(u)
			trial[h.nodeOf[u.Name]] += staticPower(u, h.temps[h.nodeOf[u.Name]]) * v * seconds * share
		}
		for i := range trial {
			trial[i] /= seconds
		}
		end := h.net.Advance(nil, h.temps, trial, seconds)
		at = make(thermal.State, len(end))
		for i := range end {
			at[i] = (h.temps[i] + end[i]) / 2
		}
	}
	var total float64
	for i := range chip.Units {
		u := &chip.Units[i]
		_, v := e.opp(u)
		leak := staticPower(u, at[h.nodeOf[u.Name]]) * v * seconds * share
		total += leak
		h.power[h.nodeOf[u.Name]] += leak
		e.unitPower[u.Name] += leak
	}
	return total
}

// account adds the energy of a stretch of one phase that starts at
// e.clock, keeps the highest power of any stretch (a pass and its
// sampling), and turns the stretch's heat into temperatures.
func (e *engine) account(phase workloads.Phase, d counters, seconds float64) {
	e.accountAs(phase, phase.String(), d, seconds)
}

// accountAs is account with the series labelling the stretch as label.
func (e *engine) accountAs(phase workloads.Phase, label string, d counters, seconds float64) {
	p := e.energy(d, seconds)
	e.st.energy[phase].add(p)
	if seconds > 0 {
		e.st.peakPower = math.Max(e.st.peakPower, p.total()/seconds)
	}
	e.stepHeat(e.clock+seconds, seconds)
	e.record(label, seconds, p.total())
}

// record adds a point to the run's time series: the stretch's end, its
// length, its power (in total and into each node), and every unit's clock
// and node's temperature after it.
func (e *engine) record(label string, seconds, joules float64) {
	n := len(e.st.series)
	if e.overflow == nil && (n == maxSeriesPoints || n == estimateAfter && e.tooManyAhead()) {
		e.overflow = e.tooLong()
		if e.stop != nil {
			e.stop()
		}
	}
	pt := SeriesPoint{Phase: label, EndS: e.clock + seconds, Seconds: seconds, PowerW: ratio(joules, seconds)}
	for i := range e.cfg.Chip.Units {
		pt.ClocksHz = append(pt.ClocksHz, e.clockOf(&e.cfg.Chip.Units[i]))
	}
	pt.TempsC = append(pt.TempsC, e.heat.temps...)
	pt.NodePowerW = append(pt.NodePowerW, e.heat.last...)
	e.st.series = append(e.st.series, pt)
}

// maxSeriesPoints bounds the stretches a run keeps for its series, its
// spread and its sustained rate: about 1 GiB with the steps and bandwidth
// samples beside them (a 40-hour sustained session on the 8 Gen 3 keeps
// 370,000 and peaks at 320 MB). A variable so a test can lower it.
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
	return float64(len(e.st.series))/e.clock*e.stopAt > 2*float64(maxSeriesPoints)
}

// tooLong is the error of a run that reached maxSeriesPoints, or that is
// on course to pass it twice over.
func (e *engine) tooLong() error {
	what := fmt.Sprintf("reached after %.1f h of simulated time", e.clock/3600)
	if len(e.st.series) < maxSeriesPoints {
		what = fmt.Sprintf("about %.3g by the end of its %.4g h at the rate of its first %.3g s", float64(len(e.st.series))/e.clock*e.stopAt, e.stopAt/3600, e.clock)
	}
	at := ""
	if e.cfg.Duration > 0 {
		at = "--duration " + units.Format(e.cfg.Duration, units.KindDuration) + ": "
	}
	return inputErrorf("%sthe run would keep more than %d steps in memory (about 1 GiB), %s; give a shorter --duration (a sustained session settles within minutes; its last-minute rate is what a longer one would report)", at, maxSeriesPoints, what)
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
