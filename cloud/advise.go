package cloud

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/internal/numfmt"
	"github.com/edgetwin/edgetwin/internal/pool"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

// How `advise cloud` judges an option (each rule where it is applied):
//
//   - The device runs every task on every fleet device in the simulator:
//     TTFT without network, decode tokens/s, the energy of the session.
//   - A cloud request waits round_trips × RTT + jitter on the network,
//     RTT lognormal through the profile's p50 and p95 (weak links have
//     their own), jitter uniform on [0, jitter], then the provider's TTFT
//     (+ prompt tokens beyond ttft_prompt_tokens / prefill_tokens_per_s).
//     Offline sessions fail.
//   - TTFT percentiles come from Samples sessions drawn with the
//     seed; availability, streaming rate, energy and cost are exact
//     expectations, so a seed moves only the percentiles.
//   - Costs a month: the device's price × feature share / amortisation
//     months per user; API tokens of the sessions served; whole GPUs for
//     peak_to_average × the mean load, around the clock.
//   - An option is feasible when it runs, keeps the data on the device or
//     may send it, serves the availability target and meets the latency
//     targets; the cheapest feasible option is recommended (ties to the
//     device), else the one closest to feasible.

// Samples is the number of sessions drawn for the latency
// percentiles.
const Samples = 20000

// Advise compares running the profile's sessions on its device fleet
// (each device and task simulated), on each cloud option, and on the best
// hybrid of the two, and recommends one. seed 0 takes the profile's seed.
// An error is not the user's input: a model that does not fit makes the
// device option infeasible, with the reason.
func Advise(ctx context.Context, p *Profile, seed uint64) (*Advice, error) {
	return AdviseWith(ctx, p, seed, sim.Run)
}

// SimRunner runs one simulation, as sim.Run does.
type SimRunner func(context.Context, sim.Config) (*sim.Result, error)

// AdviseWith is Advise with the device runs made by run instead
// of sim.Run: a cache, a calibrated runner, or a test's fixed figures. A
// *spec.Error from run makes the device option infeasible.
func AdviseWith(ctx context.Context, p *Profile, seed uint64, run SimRunner) (*Advice, error) {
	if seed == 0 {
		seed = p.Seed
	}
	a := &Advice{
		Profile: p, Samples: Samples, Seed: seed,
		SessionsPerMonth: float64(p.Users) * p.SessionsPerUserPerDay * p.DaysPerMonth,
	}
	m := &cloudModel{p: p, link: newLinkModel(p.Network), sessionsMonth: a.SessionsPerMonth}
	if p.Device != nil {
		runs, err := runFleet(ctx, p, seed, run)
		if err != nil {
			return nil, err
		}
		m.setRuns(runs)
		for _, r := range runs {
			a.DeviceRuns = append(a.DeviceRuns, r...)
		}
	}
	m.serves = make([][]bool, len(p.Cloud))
	for c := range p.Cloud {
		for _, t := range p.Tasks {
			e := &p.Cloud[c]
			m.serves[c] = append(m.serves[c], e.Context == 0 || t.PromptTokens+t.AnswerTokens <= e.Context)
		}
	}
	m.sessions = drawSessions(p, m.link, seed, Samples)

	if p.Device != nil {
		o := m.evaluate(m.devicePlan())
		o.Name, o.Kind = KindDevice, KindDevice
		a.Options = append(a.Options, o)
	}
	for c := range p.Cloud {
		o := m.evaluate(m.cloudPlan(c))
		o.Name, o.Kind, o.Endpoint = p.Cloud[c].Label, p.Cloud[c].Kind, &p.Cloud[c]
		a.Options = append(a.Options, o)
	}
	a.Hybrid = m.bestHybrid()
	recommend(a)
	a.BreakEven = m.breakEven(a)
	a.Reasons = reasons(a, m)
	return a, nil
}

// --- the device runs -----------------------------------------------------------

// runFleet simulates every fleet device on every task, in parallel, the
// results by index. A model that does not fit stays with its run.
func runFleet(ctx context.Context, p *Profile, seed uint64, run SimRunner) ([][]DeviceRun, error) {
	fl := p.Device
	runs := make([][]DeviceRun, len(fl.Devices))
	type job struct{ d, t int }
	var jobs []job
	for d, dev := range fl.Devices {
		runs[d] = make([]DeviceRun, len(p.Tasks))
		for t, task := range p.Tasks {
			runs[d][t] = DeviceRun{Device: dev.Name, Chip: dev.Chip.ID, Task: task.Name, Prompt: task.PromptTokens, Answer: task.AnswerTokens,
				DRAMBytes: float64(dev.Chip.Memory.DRAM.Capacity), WeightsBytes: fl.Model.WeightBytes(fl.Quant)}
			jobs = append(jobs, job{d, t})
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	pool.ForEach(ctx, io.Discard, "", len(jobs), func(i int) {
		j := jobs[i]
		if err := runOne(ctx, p, fl.Devices[j.d], p.Tasks[j.t], seed, run, &runs[j.d][j.t]); err != nil {
			cancel(err)
		}
	})
	return runs, context.Cause(ctx)
}

// runOne simulates one device on one task. Each run loads its own chip
// and model, so runs share nothing.
func runOne(ctx context.Context, p *Profile, dev FleetDevice, task Task, seed uint64, run SimRunner, r *DeviceRun) error {
	fl := p.Device
	chip, err := hw.LoadChip(dev.ChipRef, nil)
	if err != nil {
		return fmt.Errorf("device %s: %w", dev.Name, err)
	}
	model, err := workloads.LoadModel(fl.ModelRef, nil)
	if err != nil {
		return fmt.Errorf("device model: %w", err)
	}
	chip.ID = dev.Chip.ID
	cfg := sim.Config{Chip: chip, Model: model, Quant: fl.Quant, KV: fl.KV, Prompt: task.PromptTokens, Gen: task.AnswerTokens,
		Batch: 1, Fidelity: fl.Fidelity, Seed: seed}
	res, err := run(ctx, cfg)
	var ie *spec.Error
	switch {
	case errors.As(err, &ie):
		r.Err = spec.OneLine(err.Error())
		return nil
	case err != nil:
		return fmt.Errorf("%s on %s: %w", task.Name, dev.Name, err)
	}
	r.TTFT, r.EnergyJ, r.WeightsBytes, r.PagedBytes = res.TTFT, res.Energy.TotalJ, res.Memory.WeightsBytes, res.Memory.PagedWeightsBytes
	if res.Decode.TokensPerS != nil {
		r.TokensPerS = *res.Decode.TokensPerS
	}
	return nil
}

// --- the model of a deployment -------------------------------------------------

// cloudModel turns a routing plan into what users see and what it costs.
type cloudModel struct {
	p             *Profile
	link          linkModel
	sessionsMonth float64
	runs          [][]DeviceRun // [fleet device][task]
	deviceErr     string        // why the device cannot serve, "" when it can
	serves        [][]bool      // [cloud option][task]: within its context
	sessions      []session
}

func (m *cloudModel) setRuns(runs [][]DeviceRun) {
	m.runs = runs
	for _, rs := range runs {
		for _, r := range rs {
			if r.Err != "" && m.deviceErr == "" {
				m.deviceErr = r.Err
			}
			if r.Err == "" && r.TokensPerS <= 0 && m.deviceErr == "" {
				m.deviceErr = fmt.Sprintf("%s on %s generated no tokens", r.Task, r.Device)
			}
		}
	}
}

// plan routes sessions: to cloud option cloud (-1: none) when their task
// is in toCloud and the network allows, else to the device when device
// is set, else nowhere (the session fails).
type plan struct {
	device      bool
	cloud       int
	toCloud     []bool
	weakToCloud bool
}

func (m *cloudModel) devicePlan() plan {
	return plan{device: true, cloud: -1, toCloud: make([]bool, len(m.p.Tasks))}
}

func (m *cloudModel) cloudPlan(c int) plan {
	pl := plan{cloud: c, toCloud: make([]bool, len(m.p.Tasks)), weakToCloud: true}
	for t := range pl.toCloud {
		pl.toCloud[t] = true
	}
	return pl
}

type where int

const (
	failed where = iota
	onDevice
	onCloud
)

func (m *cloudModel) route(pl plan, task int, s netState) where {
	if pl.cloud >= 0 && pl.toCloud[task] && m.serves[pl.cloud][task] && (s == online || (s == weak && pl.weakToCloud)) {
		return onCloud
	}
	if pl.device {
		return onDevice
	}
	return failed
}

// providerTTFT is the endpoint's time to first token for a prompt, network
// excluded.
func providerTTFT(e *Endpoint, prompt int) float64 {
	t := float64(e.TTFT)
	if e.PrefillRate > 0 {
		ref := e.TTFTPrompt
		if ref == 0 {
			ref = defaultTTFTPrompt
		}
		t += float64(max(0, prompt-ref)) / e.PrefillRate
	}
	return t
}

// apiCost is what an API bills for one session, USD.
func apiCost(e *Endpoint, t Task) float64 {
	return (float64(t.PromptTokens)*e.Price.Input + float64(t.AnswerTokens)*e.Price.Output) / 1e6
}

// gpuSeconds is the GPU time one session takes at the GPU's aggregate
// throughput.
func gpuSeconds(e *Endpoint, t Task) float64 {
	return float64(t.PromptTokens)/e.Throughput.Prefill + float64(t.AnswerTokens)/e.Throughput.Decode
}

// deviceUSDPerUserMonth is the fleet-weighted share of a device's price
// the feature carries, per month of amortisation.
func (m *cloudModel) deviceUSDPerUserMonth() float64 {
	fl := m.p.Device
	if fl == nil {
		return 0
	}
	usd := 0.0
	for _, d := range fl.Devices {
		usd += d.Share * d.PriceUSD * d.FeatureShare
	}
	return usd / fl.AmortisationMonths
}

// cloudMonthly is what cloud option c bills in a month when it serves
// share[t] of the sessions of each task, and the GPUs it provisions.
func (m *cloudModel) cloudMonthly(c int, share []float64) (usd float64, gpus int) {
	e := &m.p.Cloud[c]
	switch e.Kind {
	case KindAPI:
		for t, task := range m.p.Tasks {
			usd += m.sessionsMonth * float64(task.Share) * share[t] * apiCost(e, task)
		}
		return usd, 0
	}
	gpuS := 0.0
	for t, task := range m.p.Tasks {
		gpuS += m.sessionsMonth * float64(task.Share) * share[t] * gpuSeconds(e, task)
	}
	gpus = gpusFor(gpuS/(m.p.DaysPerMonth*86400), m.p.PeakToAverage)
	return float64(gpus) * e.PricePerHour * 24 * m.p.DaysPerMonth, gpus
}

// gpusFor sizes a GPU pool for an average load (GPU-seconds per second)
// at its peak: at least one GPU once there is any load.
func gpusFor(load, peakToAverage float64) int {
	if load <= 0 {
		return 0
	}
	return max(1, int(math.Ceil(load*peakToAverage-1e-9)))
}

// evaluate gives a plan's figures: latency percentiles from the drawn
// sessions; availability, streaming rate, energy and cost as exact
// expectations over tasks, fleet devices and network states.
func (m *cloudModel) evaluate(pl plan) Option {
	p := m.p
	o := Option{Runs: true, OfflineOK: pl.device, PrivacyOK: pl.cloud < 0 || p.DataMayLeaveDevice}
	if pl.device && m.deviceErr != "" {
		o.Runs, o.Err = false, m.deviceErr
	}
	if pl.cloud >= 0 && !slices.Contains(m.serves[pl.cloud], true) {
		o.Runs, o.Err = false, fmt.Sprintf("every task is beyond %s's context of %d tokens", p.Cloud[pl.cloud].Label, p.Cloud[pl.cloud].Context)
	}
	var e *Endpoint
	if pl.cloud >= 0 {
		e = &p.Cloud[pl.cloud]
	}
	ndev := 0
	if p.Device != nil {
		ndev = len(p.Device.Devices)
	}
	energy := make([]float64, ndev)
	cloudShare := make([]float64, len(p.Tasks))
	var served, unserved, tokens, decodeTime float64
	for t, task := range p.Tasks {
		answer := float64(task.AnswerTokens)
		for s := range netStates {
			pr := float64(task.Share) * m.link.share[s]
			if pr == 0 {
				continue
			}
			switch m.route(pl, t, s) {
			case failed:
				unserved += pr
			case onDevice:
				if !o.Runs { // the model does not fit: nothing is served
					unserved += pr
					continue
				}
				served += pr
				for d, dev := range p.Device.Devices {
					r := m.runs[d][t]
					tokens += pr * dev.Share * answer
					decodeTime += pr * dev.Share * answer / r.TokensPerS
					energy[d] += pr * r.EnergyJ
				}
			case onCloud:
				served += pr
				cloudShare[t] += m.link.share[s]
				o.CloudShare += pr
				tokens += pr * answer
				decodeTime += pr * answer / e.TokensPerS
				if p.Device != nil {
					radio := p.Device.RadioPower * (m.link.meanTime(s) + providerTTFT(e, task.PromptTokens) + answer/e.TokensPerS)
					for d := range energy {
						energy[d] += pr * radio
					}
				}
			}
		}
	}
	o.Availability = max(0, 1-unserved) // exact when nothing fails
	if o.Runs && decodeTime > 0 {
		o.TokensPerS = ptrTo(tokens / decodeTime)
	}
	if pl.device {
		o.MonthlyCostUSD = float64(p.Users) * m.deviceUSDPerUserMonth()
	}
	if pl.cloud >= 0 {
		usd, gpus := m.cloudMonthly(pl.cloud, cloudShare)
		o.MonthlyCostUSD += usd
		o.GPUs = gpus
	}
	if served > 0 {
		o.CostPerSessionUSD = o.MonthlyCostUSD / (m.sessionsMonth * served)
	}
	if p.Device != nil && o.Runs {
		for d, dev := range p.Device.Devices {
			o.EnergyPerSessionJ += dev.Share * energy[d]
			if b := p.SessionsPerUserPerDay * energy[d] / dev.Battery; b > o.BatteryPerDay || o.BatteryDevice == "" {
				o.BatteryPerDay, o.BatteryDevice = b, dev.Name
			}
		}
	}
	if o.Runs {
		o.TTFTP50, o.TTFTP95 = m.percentiles(pl, e)
	}
	m.judge(&o, pl)
	return o
}

// percentiles are the p50 and p95 of the time to first token over the
// drawn sessions the plan serves.
func (m *cloudModel) percentiles(pl plan, e *Endpoint) (p50, p95 *float64) {
	ttft := make([]float64, 0, len(m.sessions))
	for _, s := range m.sessions {
		switch m.route(pl, s.task, s.state) {
		case onDevice:
			ttft = append(ttft, m.runs[s.device][s.task].TTFT)
		case onCloud:
			ttft = append(ttft, s.net+providerTTFT(e, m.p.Tasks[s.task].PromptTokens))
		}
	}
	if len(ttft) == 0 {
		return nil, nil
	}
	slices.Sort(ttft)
	return ptrTo(nearestRank(ttft, 0.50)), ptrTo(nearestRank(ttft, 0.95))
}

// nearestRank is the q-quantile of sorted values by the nearest-rank
// method.
func nearestRank(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// judge checks an option against the profile and lists what fails.
func (m *cloudModel) judge(o *Option, pl plan) {
	tg := m.p.Targets
	o.Problems = nil
	if !o.Runs {
		o.Problems = append(o.Problems, "cannot run: "+o.Err)
	}
	if !o.PrivacyOK {
		o.Problems = append(o.Problems, "sends data off the device, which data_may_leave_device: false forbids")
	}
	if avail := float64(*tg.Availability); o.Runs && o.Availability < avail-1e-12 {
		o.Problems = append(o.Problems, fmt.Sprintf("serves %s of sessions, below the %s target%s",
			pct(o.Availability), pct(avail), m.lossCause(pl)))
	}
	o.LatencyOK = o.Runs
	if o.Runs {
		if tg.TTFTP50 != nil && (o.TTFTP50 == nil || *o.TTFTP50 > float64(*tg.TTFTP50)) {
			o.LatencyOK = false
			o.Problems = append(o.Problems, fmt.Sprintf("TTFT p50 %s is above the %s target", dur(o.TTFTP50), dur(ptrTo(float64(*tg.TTFTP50)))))
		}
		if tg.TTFTP95 != nil && (o.TTFTP95 == nil || *o.TTFTP95 > float64(*tg.TTFTP95)) {
			o.LatencyOK = false
			o.Problems = append(o.Problems, fmt.Sprintf("TTFT p95 %s is above the %s target", dur(o.TTFTP95), dur(ptrTo(float64(*tg.TTFTP95)))))
		}
		if tg.TokensPerS > 0 && (o.TokensPerS == nil || *o.TokensPerS < tg.TokensPerS) {
			o.LatencyOK = false
			o.Problems = append(o.Problems, fmt.Sprintf("streams %s tokens/s, below the %s tokens/s target", num(o.TokensPerS), numfmt.Number(tg.TokensPerS)))
		}
	}
	o.Feasible = len(o.Problems) == 0
}

// lossCause says why a plan leaves sessions unserved.
func (m *cloudModel) lossCause(pl plan) string {
	if pl.device {
		return ""
	}
	var parts []string
	if off := m.link.share[offline]; off > 0 {
		parts = append(parts, "offline "+pct(off)+" of the time")
	}
	for t, ok := range m.serves[pl.cloud] {
		if !ok {
			parts = append(parts, fmt.Sprintf("task %s is beyond its context", m.p.Tasks[t].Name))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// --- the hybrid ------------------------------------------------------------------

// bestHybrid tries every plan that sends some tasks to one cloud option
// when online (weak links to the cloud or to the device) and keeps the
// rest, and everything offline, on the device. The best plan is the
// cheapest that meets the profile, else the one with fewest problems.
func (m *cloudModel) bestHybrid() *HybridPlan {
	p := m.p
	if p.Device == nil || m.deviceErr != "" || len(p.Cloud) == 0 || m.link.share[offline] >= 1 {
		return nil
	}
	var best *HybridPlan
	var bestPlan plan
	tried := 0
	n := len(p.Tasks)
	for c := range p.Cloud {
		for mask := 1; mask < 1<<n; mask++ {
			pl := plan{device: true, cloud: c, toCloud: make([]bool, n)}
			ok := true
			for t := range n {
				if mask&(1<<t) != 0 {
					pl.toCloud[t] = true
					ok = ok && m.serves[c][t]
				}
			}
			if !ok {
				continue
			}
			for _, weakToCloud := range []bool{true, false} {
				if weakToCloud == false && m.link.share[weak] == 0 {
					continue
				}
				pl.weakToCloud = weakToCloud
				tried++
				o := m.evaluate(pl)
				if best == nil || better(&o, &best.Option) {
					h := &HybridPlan{Option: o, Cloud: p.Cloud[c].Label, WeakToDevice: !weakToCloud}
					pl.toCloud = slices.Clone(pl.toCloud)
					best, bestPlan = h, pl
				}
			}
		}
	}
	if best == nil {
		return nil
	}
	best.Tried = tried
	best.Option.Name, best.Option.Kind = KindHybrid, KindHybrid
	for t, yes := range bestPlan.toCloud {
		if yes {
			best.CloudTasks = append(best.CloudTasks, p.Tasks[t].Name)
		}
	}
	best.Rule = m.rule(bestPlan)
	return best
}

// rule says a hybrid plan in words.
func (m *cloudModel) rule(pl plan) string {
	p := m.p
	c := p.Cloud[pl.cloud].Label
	var cloudTasks, deviceTasks []string
	for t, yes := range pl.toCloud {
		if yes {
			cloudTasks = append(cloudTasks, describeTask(p.Tasks[t]))
		} else {
			deviceTasks = append(deviceTasks, describeTask(p.Tasks[t]))
		}
	}
	link := "when online (weak links included)"
	if !pl.weakToCloud && m.link.share[weak] > 0 {
		link = "on a good link"
	}
	sent := "every session"
	if len(deviceTasks) > 0 {
		sent = strings.Join(cloudTasks, ", ")
	}
	s := fmt.Sprintf("%s → %s %s", sent, c, link)
	if len(deviceTasks) > 0 {
		s += "; " + strings.Join(deviceTasks, ", ") + " on the device"
	}
	fallback := "offline"
	if !pl.weakToCloud && m.link.share[weak] > 0 {
		fallback = "offline or on a weak link"
	}
	return s + "; the device whenever " + fallback
}

func describeTask(t Task) string {
	if t.Name == "all" {
		return fmt.Sprintf("every session (%d-token prompts)", t.PromptTokens)
	}
	return fmt.Sprintf("%s (%d-token prompts)", t.Name, t.PromptTokens)
}

// better orders options for a recommendation: feasible first; then, among
// feasible ones, cheaper (ties to the device, then the faster p95);
// among infeasible ones, private ones first, then fewer problems, then
// cheaper.
func better(a, b *Option) bool {
	if a.Feasible != b.Feasible {
		return a.Feasible
	}
	if !a.Feasible {
		if a.PrivacyOK != b.PrivacyOK {
			return a.PrivacyOK
		}
		if len(a.Problems) != len(b.Problems) {
			return len(a.Problems) < len(b.Problems)
		}
	}
	if d := a.MonthlyCostUSD - b.MonthlyCostUSD; math.Abs(d) > 1e-9*max(1, math.Abs(a.MonthlyCostUSD)) {
		return d < 0
	}
	if (a.Kind == KindDevice) != (b.Kind == KindDevice) {
		return a.Kind == KindDevice
	}
	if a.TTFTP95 != nil && b.TTFTP95 != nil && *a.TTFTP95 != *b.TTFTP95 {
		return *a.TTFTP95 < *b.TTFTP95
	}
	return a.CloudShare < b.CloudShare
}

// recommend picks the best of the pure options and the hybrid.
func recommend(a *Advice) {
	var best *Option
	for i := range a.Options {
		if best == nil || better(&a.Options[i], best) {
			best = &a.Options[i]
		}
	}
	if a.Hybrid != nil && (best == nil || better(&a.Hybrid.Option, best)) {
		best = &a.Hybrid.Option
		a.Hybrid.Wins = true
	}
	a.Recommended = best.Name
	switch best.Kind {
	case KindDevice:
		a.Recommendation = RecommendDevice
	case KindHybrid:
		a.Recommendation = RecommendHybrid
	default:
		a.Recommendation = RecommendCloud
	}
}

// --- break-even -----------------------------------------------------------------

// breakEven finds, for each cloud option, the sessions per user per day at
// which its bill equals the device's amortised share: the device costs the
// same whatever the volume, the cloud more with every session, so above
// the break-even the device is cheaper.
func (m *cloudModel) breakEven(a *Advice) BreakEven {
	p := m.p
	be := BreakEven{Current: p.SessionsPerUserPerDay, DeviceUSDPerUserMonth: m.deviceUSDPerUserMonth()}
	switch {
	case p.Device == nil:
		be.Note = "the profile has no device: nothing to break even with"
		return be
	case len(p.Cloud) == 0:
		be.Note = "the profile has no cloud option: nothing to break even with"
		return be
	}
	users := float64(p.Users)
	var against *Option
	for i := range a.Options {
		o := &a.Options[i]
		if o.Endpoint == nil {
			continue
		}
		c := slices.IndexFunc(p.Cloud, func(e Endpoint) bool { return e.Label == o.Name })
		ob := OptionBreakEven{Name: o.Name, CloudUSDPerUserMonth: o.MonthlyCostUSD / users}
		served := make([]float64, len(p.Tasks))
		for t := range served {
			if m.serves[c][t] {
				served[t] = m.link.share[online] + m.link.share[weak]
			}
		}
		ob.SessionsPerUserPerDay = m.breakEvenVolume(c, served, be.DeviceUSDPerUserMonth)
		be.Options = append(be.Options, ob)
		if against == nil || o.MonthlyCostUSD < against.MonthlyCostUSD {
			against = o
		}
	}
	if a.Recommendation == RecommendCloud {
		against = &a.Options[slices.IndexFunc(a.Options, func(o Option) bool { return o.Name == a.Recommended })]
	}
	be.Against = against.Name
	for _, ob := range be.Options {
		if ob.Name == be.Against {
			be.SessionsPerUserPerDay = ob.SessionsPerUserPerDay
		}
	}
	be.Cheaper = RecommendCloud
	if a.Options[0].MonthlyCostUSD <= against.MonthlyCostUSD {
		be.Cheaper = RecommendDevice
	}
	if be.SessionsPerUserPerDay == nil {
		be.Note = against.Name + " never costs as much as the device's share"
	}
	return be
}

// breakEvenVolume is the sessions per user per day at which cloud option
// c, serving served[t] of each task's sessions, bills deviceUSD per user
// per month; nil when it never does.
func (m *cloudModel) breakEvenVolume(c int, served []float64, deviceUSD float64) *float64 {
	p := m.p
	e := &p.Cloud[c]
	per := 0.0 // USD (api) or GPU-seconds (gpu) per session, served share included
	for t, task := range p.Tasks {
		switch e.Kind {
		case KindAPI:
			per += float64(task.Share) * served[t] * apiCost(e, task)
		case KindGPU:
			per += float64(task.Share) * served[t] * gpuSeconds(e, task)
		}
	}
	if per <= 0 {
		return nil
	}
	if e.Kind == KindAPI {
		return ptrTo(deviceUSD / (p.DaysPerMonth * per))
	}
	// A GPU pool bills in whole GPUs: the device's share for every user
	// pays for g GPUs, which carry g / peak GPU-seconds per second.
	users := float64(p.Users)
	g := math.Floor(deviceUSD*users/(e.PricePerHour*24*p.DaysPerMonth) + 1e-9)
	if g < 1 {
		return ptrTo(0.0)
	}
	return ptrTo(g * 86400 / (users * per * p.PeakToAverage))
}
