package cloud

import (
	"fmt"
	"math"
	"strings"

	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/numfmt"
)

// The five questions architects ask, in the order the reasons answer them.
const (
	QuestionLatency   = "latency"
	QuestionPrivacy   = "privacy"
	QuestionCost      = "cost"
	QuestionNetwork   = "network"
	QuestionModelSize = "model size"
)

// recommended returns the recommended option.
func (a *Advice) recommended() *Option {
	if a.Hybrid != nil && a.Hybrid.Wins {
		return &a.Hybrid.Option
	}
	for i := range a.Options {
		if a.Options[i].Name == a.Recommended {
			return &a.Options[i]
		}
	}
	return nil
}

// Summary says in one sentence why the recommended option was chosen.
func (a *Advice) Summary() string {
	rec := a.recommended()
	all := a.Options
	if a.Hybrid != nil {
		all = append(append([]Option(nil), all...), a.Hybrid.Option)
	}
	var feasible []string
	for _, o := range all {
		if o.Feasible && o.Name != rec.Name {
			feasible = append(feasible, fmt.Sprintf("%s %s", o.Name, numfmt.USD(o.MonthlyCostUSD)))
		}
	}
	switch {
	case !rec.Feasible:
		return fmt.Sprintf("no option meets every target; %s comes closest at %s/month (%s)", rec.Name, numfmt.USD(rec.MonthlyCostUSD), strings.Join(rec.Problems, "; "))
	case len(feasible) == 0:
		return fmt.Sprintf("%s is the only option that meets every target, at %s/month", rec.Name, numfmt.USD(rec.MonthlyCostUSD))
	}
	return fmt.Sprintf("%s meets every target at %s/month, the cheapest of the options that do (also %s)", rec.Name, numfmt.USD(rec.MonthlyCostUSD), strings.Join(feasible, ", "))
}

// reasons answers the five questions with the advice's numbers.
func reasons(a *Advice, m *cloudModel) []Reason {
	return []Reason{
		{QuestionLatency, latencyReason(a)},
		{QuestionPrivacy, privacyReason(a)},
		{QuestionCost, costReason(a)},
		{QuestionNetwork, networkReason(a, m)},
		{QuestionModelSize, modelSizeReason(a)},
	}
}

func latencyReason(a *Advice) string {
	tg := a.Profile.Targets
	var want []string
	if tg.TTFTP50 != nil {
		want = append(want, "TTFT p50 ≤ "+dur(ptrTo(float64(*tg.TTFTP50))))
	}
	if tg.TTFTP95 != nil {
		want = append(want, "p95 ≤ "+dur(ptrTo(float64(*tg.TTFTP95))))
	}
	if tg.TokensPerS > 0 {
		want = append(want, "≥ "+numfmt.Number(tg.TokensPerS)+" tokens/s")
	}
	head := "No latency target."
	if len(want) > 0 {
		head = "Targets " + strings.Join(want, ", ") + "."
	}
	rec := a.recommended()
	verdict := "meets them"
	if !rec.LatencyOK {
		verdict = "misses them"
	}
	if len(want) == 0 {
		verdict = ""
	}
	s := fmt.Sprintf("%s %s: TTFT p50 %s, p95 %s, %s tokens/s", head, rec.Name, dur(rec.TTFTP50), dur(rec.TTFTP95), num(rec.TokensPerS))
	if verdict != "" {
		s += ": " + verdict
	}
	s += "."
	var meet, miss []string
	for _, o := range a.Options {
		if o.Name == rec.Name || !o.Runs {
			continue
		}
		if o.LatencyOK {
			meet = append(meet, fmt.Sprintf("%s (p95 %s)", o.Name, dur(o.TTFTP95)))
		} else if p := firstLatencyProblem(o); p != "" {
			miss = append(miss, fmt.Sprintf("%s (%s)", o.Name, p))
		}
	}
	if len(want) > 0 && len(meet) > 0 {
		s += " Also meet them: " + strings.Join(meet, ", ") + "."
	}
	if len(miss) > 0 {
		s += " Miss them: " + strings.Join(miss, "; ") + "."
	}
	return s
}

func firstLatencyProblem(o Option) string {
	for _, p := range o.Problems {
		if strings.HasPrefix(p, "TTFT") || strings.HasPrefix(p, "streams") {
			return p
		}
	}
	return ""
}

func privacyReason(a *Advice) string {
	p := a.Profile
	if len(p.Cloud) == 0 {
		return "Only the device is considered: no data leaves it."
	}
	if p.DataMayLeaveDevice {
		s := fmt.Sprintf("Data may leave the device: the %d cloud option%s", len(p.Cloud), plural(len(p.Cloud)))
		if p.Device != nil {
			s += " and the device"
		}
		return s + " are all compliant."
	}
	var names []string
	for _, e := range p.Cloud {
		names = append(names, e.Label)
	}
	s := fmt.Sprintf("Data may not leave the device: the %d cloud option%s (%s) and every hybrid plan are ruled out", len(names), plural(len(names)), strings.Join(names, ", "))
	if p.Device != nil {
		s += "; only the device is compliant"
	}
	return s + "."
}

func costReason(a *Advice) string {
	p := a.Profile
	var parts []string
	be := a.BreakEven
	if p.Device != nil {
		d := a.Options[0]
		parts = append(parts, fmt.Sprintf("device %s/month: %s per user (%s of the device price over %s months)",
			numfmt.USD(d.MonthlyCostUSD), numfmt.USD(be.DeviceUSDPerUserMonth), deviceShareText(p), numfmt.Number(p.Device.AmortisationMonths)))
	}
	var cheapest *Option
	for i := range a.Options {
		o := &a.Options[i]
		if o.Endpoint != nil && (cheapest == nil || o.MonthlyCostUSD < cheapest.MonthlyCostUSD) {
			cheapest = o
		}
	}
	if cheapest != nil {
		c := fmt.Sprintf("cheapest cloud %s %s/month (%s per session served", cheapest.Name, numfmt.USD(cheapest.MonthlyCostUSD), numfmt.USD(cheapest.CostPerSessionUSD))
		if cheapest.GPUs > 0 {
			c += fmt.Sprintf(", %d GPU%s for a peak %s× the average", cheapest.GPUs, plural(cheapest.GPUs), numfmt.Number(p.PeakToAverage))
		}
		parts = append(parts, c+")")
	}
	if h := a.Hybrid; h != nil && h.Wins {
		parts = append(parts, fmt.Sprintf("hybrid %s/month (%s of sessions in the cloud)", numfmt.USD(h.Option.MonthlyCostUSD), pct(h.Option.CloudShare)))
	}
	s := strings.Join(parts, "; ") + "."
	switch {
	case be.Against == "":
	case be.SessionsPerUserPerDay == nil:
		s += fmt.Sprintf(" No break-even: %s.", be.Note)
	default:
		s += fmt.Sprintf(" Break-even against %s at %s sessions per user per day (%s a month in all); the profile has %s, so the %s is cheaper now.",
			be.Against, numfmt.Number(*be.SessionsPerUserPerDay), numfmt.Count(*be.SessionsPerUserPerDay*float64(p.Users)*p.DaysPerMonth), numfmt.Number(be.Current), be.Cheaper)
	}
	return s
}

// deviceShareText is the feature's share of the device price, in words.
func deviceShareText(p *Profile) string {
	var parts []string
	for _, d := range p.Device.Devices {
		parts = append(parts, fmt.Sprintf("%s of %s", pct(d.FeatureShare), numfmt.USD(d.PriceUSD)))
	}
	return strings.Join(parts, ", ")
}

func networkReason(a *Advice, m *cloudModel) string {
	p, n := a.Profile, a.Profile.Network
	if len(p.Cloud) == 0 {
		return "No cloud option: the network does not decide anything."
	}
	s := fmt.Sprintf("RTT p50 %s / p95 %s (lognormal)", dur(ptrTo(float64(n.RTT.P50))), dur(ptrTo(float64(n.RTT.P95))))
	if n.Jitter > 0 {
		s += ", jitter up to " + dur(ptrTo(float64(n.Jitter)))
	}
	s += fmt.Sprintf(", %d round trip%s per request", n.RoundTrips, plural(n.RoundTrips))
	if n.Weak != nil && n.Weak.Share > 0 {
		s += fmt.Sprintf("; weak links %s of sessions (RTT p50 %s / p95 %s)", pct(float64(n.Weak.Share)), dur(ptrTo(float64(n.Weak.RTT.P50))), dur(ptrTo(float64(n.Weak.RTT.P95))))
	}
	off := m.link.share[offline]
	s += "; offline " + pct(off) + " of sessions"
	avail := float64(*p.Targets.Availability)
	if off > 0 {
		verb := "meets"
		if 1-off < avail-1e-12 {
			verb = "misses"
		}
		s += fmt.Sprintf(": the cloud alone serves at most %s of sessions, which %s the %s target", pct(1-off), verb, pct(avail))
		if p.Device != nil {
			s += "; the device serves them all"
		}
	}
	s += "."
	if h := a.Hybrid; h != nil {
		verb := "does not win"
		if h.Wins {
			verb = "wins"
		}
		s += fmt.Sprintf(" Best hybrid of %d tried (%s): TTFT p95 %s, %s/month, %s.", h.Tried, h.Rule, dur(h.Option.TTFTP95), numfmt.USD(h.Option.MonthlyCostUSD), verb)
		if !h.Option.Feasible {
			s = strings.TrimSuffix(s, ".") + fmt.Sprintf(" (%s).", strings.Join(h.Option.Problems, "; "))
		}
	}
	return s
}

// pagedOn is the most of the weights any task on the device left on
// storage.
func pagedOn(a *Advice, device string) float64 {
	most := 0.0
	for _, r := range a.DeviceRuns {
		if r.Device == device {
			most = max(most, r.PagedBytes)
		}
	}
	return most
}

func modelSizeReason(a *Advice) string {
	p := a.Profile
	if p.Device == nil {
		return "No device in the profile: the model runs in the cloud whatever its size."
	}
	fl := p.Device
	weights := fl.Model.WeightBytes(fl.Quant)
	s := fmt.Sprintf("%s %s weighs %s", fl.Model.Name, fl.Quant, units.Approx(weights, units.KindBytes))
	var fits, not []string
	firstErr := ""
	for _, d := range fl.Devices {
		c := fmt.Sprintf("%s (%s, %s)", d.Name, d.Chip.ID, units.Approx(float64(d.Chip.Memory.DRAM.Capacity), units.KindBytes))
		if err := runErr(a, d.Name); err != "" {
			not = append(not, c)
			if firstErr == "" {
				firstErr = err
			}
		} else {
			if paged := pagedOn(a, d.Name); paged > 0 {
				c += fmt.Sprintf(" only with %s of its weights paged in from storage every pass", units.Approx(paged, units.KindBytes))
			}
			fits = append(fits, c)
		}
	}
	if len(not) > 0 {
		s += fmt.Sprintf(" and does not fit %s: %s", strings.Join(not, ", "), firstErr)
		if len(fits) > 0 {
			s += "; it fits " + strings.Join(fits, ", ")
		}
		return s + ". The device option cannot run."
	}
	s += " and fits " + strings.Join(fits, ", ")
	d := a.Options[0]
	lo, hi := math.Inf(1), 0.0
	for _, r := range a.DeviceRuns {
		lo, hi = min(lo, r.TokensPerS), max(hi, r.TokensPerS)
	}
	rate := fmt.Sprintf("%s–%s", numfmt.Number(lo), numfmt.Number(hi))
	if numfmt.Number(lo) == numfmt.Number(hi) {
		rate = numfmt.Number(lo)
	}
	s += fmt.Sprintf("; it decodes %s tokens/s", rate)
	if tg := p.Targets.TokensPerS; tg > 0 {
		s += fmt.Sprintf(" (target %s)", numfmt.Number(tg))
	}
	s += fmt.Sprintf(", takes %s a session and %s of a charge a day on %s", units.Approx(d.EnergyPerSessionJ, units.KindEnergy), pct(d.BatteryPerDay), d.BatteryDevice)
	return s + "."
}

func runErr(a *Advice, device string) string {
	for _, r := range a.DeviceRuns {
		if r.Device == device && r.Err != "" {
			return r.Err
		}
	}
	return ""
}

// --- numbers in words ----------------------------------------------------------

func ptrTo[T any](v T) *T { return &v }

// dur prints seconds for people: "71 ms", "1.2 s"; "—" for nil.
func dur(v *float64) string {
	if v == nil {
		return "—"
	}
	return units.Approx(*v, units.KindDuration)
}

// pct prints a share: "75%", "99.5%", "0.91%".
func pct(f float64) string {
	if f == 0 {
		return "0%"
	}
	return units.Approx(f, units.KindFraction)
}

// num prints a rate with three significant figures; "—" for nil.
func num(v *float64) string {
	if v == nil {
		return "—"
	}
	return numfmt.Number(*v)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
