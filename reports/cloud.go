package reports

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/cloud"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/numfmt"
)

// WriteCloudAdvice prints the advice of `edgetwin advise cloud` as a table
// or JSON (CSV has no room for it).
func WriteCloudAdvice(w io.Writer, a *cloud.Advice, f Format) error {
	switch f {
	case JSON:
		return WriteJSON(w, cloudJSON(a))
	case CSV:
		return fmt.Errorf("cloud advice has no CSV form: use table or json")
	}
	return CloudTable(w, a)
}

// --- JSON -------------------------------------------------------------------------

type cloudDoc struct {
	Profile               string           `json:"profile"`
	Name                  string           `json:"name"`
	Users                 int              `json:"users"`
	SessionsPerUserPerDay float64          `json:"sessions_per_user_per_day"`
	DaysPerMonth          float64          `json:"days_per_month"`
	SessionsPerMonth      float64          `json:"sessions_per_month"`
	Tasks                 []cloudTaskDoc   `json:"tasks"`
	Targets               cloudTargetsDoc  `json:"targets"`
	DataMayLeaveDevice    bool             `json:"data_may_leave_device"`
	Seed                  uint64           `json:"seed"`
	Samples               int              `json:"samples"`
	Options               []cloudOptionDoc `json:"options"`
	DeviceRuns            []deviceRunDoc   `json:"device_runs"`
	BreakEven             breakEvenDoc     `json:"break_even"`
	Hybrid                *hybridDoc       `json:"hybrid"`
	Recommendation        string           `json:"recommendation"`
	Recommended           string           `json:"recommended_option"`
	Summary               string           `json:"summary"`
	Reasons               []reasonDoc      `json:"reasons"`
	Assumed               []string         `json:"assumed"`
}

type cloudTaskDoc struct {
	Name         string  `json:"name"`
	Share        float64 `json:"share"`
	PromptTokens int     `json:"prompt_tokens"`
	AnswerTokens int     `json:"answer_tokens"`
}

type cloudTargetsDoc struct {
	TTFTP50      *float64 `json:"ttft_p50_s"`
	TTFTP95      *float64 `json:"ttft_p95_s"`
	TokensPerS   *float64 `json:"tokens_per_s"`
	Availability float64  `json:"availability"`
}

type cloudOptionDoc struct {
	Name              string       `json:"name"`
	Kind              string       `json:"kind"`
	TTFTP50           *float64     `json:"ttft_p50_s"`
	TTFTP95           *float64     `json:"ttft_p95_s"`
	TokensPerS        *float64     `json:"tokens_per_s"`
	MonthlyCostUSD    float64      `json:"monthly_cost_usd"`
	CostPerSessionUSD float64      `json:"cost_per_session_usd"`
	EnergyPerSessionJ *float64     `json:"energy_per_session_j"`
	BatteryPerDay     *float64     `json:"battery_share_per_day"`
	BatteryDevice     string       `json:"battery_device,omitempty"`
	Availability      float64      `json:"availability"`
	CloudShare        float64      `json:"cloud_share"`
	OfflineOK         bool         `json:"offline_ok"`
	PrivacyOK         bool         `json:"privacy_ok"`
	LatencyOK         bool         `json:"latency_ok"`
	Runs              bool         `json:"runs"`
	Feasible          bool         `json:"feasible"`
	Error             string       `json:"error,omitempty"`
	Problems          []string     `json:"problems"`
	GPUs              int          `json:"gpus,omitempty"`
	Endpoint          *endpointDoc `json:"endpoint,omitempty"`
}

type endpointDoc struct {
	Catalog       string            `json:"catalog,omitempty"`
	Name          string            `json:"name"`
	Model         string            `json:"model,omitempty"`
	InputPerMTok  *float64          `json:"price_input_usd_per_mtok,omitempty"`
	OutputPerMTok *float64          `json:"price_output_usd_per_mtok,omitempty"`
	PricePerHour  *float64          `json:"price_usd_per_gpu_hour,omitempty"`
	Prefill       *float64          `json:"gpu_prefill_tokens_per_s,omitempty"`
	Decode        *float64          `json:"gpu_decode_tokens_per_s,omitempty"`
	TTFT          float64           `json:"ttft_s"`
	TokensPerS    float64           `json:"tokens_per_s"`
	Context       int               `json:"context,omitempty"`
	Sources       map[string]string `json:"sources"`
}

type deviceRunDoc struct {
	Device       string   `json:"device"`
	Chip         string   `json:"chip"`
	Task         string   `json:"task"`
	Prompt       int      `json:"prompt_tokens"`
	Answer       int      `json:"answer_tokens"`
	TTFT         *float64 `json:"ttft_s"`
	TokensPerS   *float64 `json:"tokens_per_s"`
	EnergyJ      *float64 `json:"energy_j"`
	WeightsBytes float64  `json:"weights_bytes"`
	DRAMBytes    float64  `json:"dram_bytes"`
	Error        string   `json:"error,omitempty"`
}

type breakEvenDoc struct {
	Unit                  string               `json:"unit"`
	DeviceUSDPerUserMonth float64              `json:"device_usd_per_user_month"`
	Against               string               `json:"against,omitempty"`
	SessionsPerUserPerDay *float64             `json:"sessions_per_user_per_day"`
	SessionsPerMonth      *float64             `json:"sessions_per_month"`
	Current               float64              `json:"current_sessions_per_user_per_day"`
	Cheaper               string               `json:"cheaper_now,omitempty"`
	Note                  string               `json:"note,omitempty"`
	Options               []optionBreakEvenDoc `json:"options"`
}

type optionBreakEvenDoc struct {
	Name                  string   `json:"name"`
	CloudUSDPerUserMonth  float64  `json:"cloud_usd_per_user_month"`
	SessionsPerUserPerDay *float64 `json:"sessions_per_user_per_day"`
}

type hybridDoc struct {
	Rule         string         `json:"rule"`
	Cloud        string         `json:"cloud"`
	CloudTasks   []string       `json:"cloud_tasks"`
	WeakToDevice bool           `json:"weak_links_to_device"`
	Wins         bool           `json:"wins"`
	Tried        int            `json:"plans_tried"`
	Option       cloudOptionDoc `json:"figures"`
}

type reasonDoc struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

func cloudJSON(a *cloud.Advice) *cloudDoc {
	p := a.Profile
	d := &cloudDoc{
		Profile: p.File, Name: p.Name, Users: p.Users, SessionsPerUserPerDay: p.SessionsPerUserPerDay, DaysPerMonth: p.DaysPerMonth,
		SessionsPerMonth: a.SessionsPerMonth, DataMayLeaveDevice: p.DataMayLeaveDevice, Seed: a.Seed, Samples: a.Samples,
		Recommendation: a.Recommendation, Recommended: a.Recommended, Summary: a.Summary(),
		Tasks: []cloudTaskDoc{}, Options: []cloudOptionDoc{}, DeviceRuns: []deviceRunDoc{}, Reasons: []reasonDoc{},
		Assumed: append([]string{}, p.Assumed...),
	}
	for _, t := range p.Tasks {
		d.Tasks = append(d.Tasks, cloudTaskDoc{Name: t.Name, Share: float64(t.Share), PromptTokens: t.PromptTokens, AnswerTokens: t.AnswerTokens})
	}
	tg := p.Targets
	if tg.TTFTP50 != nil {
		d.Targets.TTFTP50 = ptrTo(float64(*tg.TTFTP50))
	}
	if tg.TTFTP95 != nil {
		d.Targets.TTFTP95 = ptrTo(float64(*tg.TTFTP95))
	}
	if tg.TokensPerS > 0 {
		d.Targets.TokensPerS = ptrTo(tg.TokensPerS)
	}
	d.Targets.Availability = float64(*tg.Availability)
	for _, o := range a.Options {
		d.Options = append(d.Options, optionDoc(p, o))
	}
	for _, r := range a.DeviceRuns {
		rd := deviceRunDoc{Device: r.Device, Chip: r.Chip, Task: r.Task, Prompt: r.Prompt, Answer: r.Answer,
			WeightsBytes: r.WeightsBytes, DRAMBytes: r.DRAMBytes, Error: r.Err}
		if r.Err == "" {
			rd.TTFT, rd.TokensPerS, rd.EnergyJ = ptrTo(r.TTFT), ptrTo(r.TokensPerS), ptrTo(r.EnergyJ)
		}
		d.DeviceRuns = append(d.DeviceRuns, rd)
	}
	be := a.BreakEven
	d.BreakEven = breakEvenDoc{Unit: "sessions per user per day", DeviceUSDPerUserMonth: be.DeviceUSDPerUserMonth, Against: be.Against,
		SessionsPerUserPerDay: be.SessionsPerUserPerDay, Current: be.Current, Cheaper: be.Cheaper, Note: be.Note, Options: []optionBreakEvenDoc{}}
	if be.SessionsPerUserPerDay != nil {
		d.BreakEven.SessionsPerMonth = ptrTo(*be.SessionsPerUserPerDay * float64(p.Users) * p.DaysPerMonth)
	}
	for _, ob := range be.Options {
		d.BreakEven.Options = append(d.BreakEven.Options, optionBreakEvenDoc{Name: ob.Name, CloudUSDPerUserMonth: ob.CloudUSDPerUserMonth, SessionsPerUserPerDay: ob.SessionsPerUserPerDay})
	}
	if h := a.Hybrid; h != nil {
		d.Hybrid = &hybridDoc{Rule: h.Rule, Cloud: h.Cloud, CloudTasks: append([]string{}, h.CloudTasks...), WeakToDevice: h.WeakToDevice,
			Wins: h.Wins, Tried: h.Tried, Option: optionDoc(p, h.Option)}
	}
	for _, r := range a.Reasons {
		d.Reasons = append(d.Reasons, reasonDoc{Question: r.Question, Answer: r.Answer})
	}
	return d
}

func optionDoc(p *cloud.Profile, o cloud.Option) cloudOptionDoc {
	od := cloudOptionDoc{
		Name: o.Name, Kind: o.Kind, TTFTP50: o.TTFTP50, TTFTP95: o.TTFTP95, TokensPerS: o.TokensPerS,
		MonthlyCostUSD: o.MonthlyCostUSD, CostPerSessionUSD: o.CostPerSessionUSD, Availability: o.Availability, CloudShare: o.CloudShare,
		OfflineOK: o.OfflineOK, PrivacyOK: o.PrivacyOK, LatencyOK: o.LatencyOK, Runs: o.Runs, Feasible: o.Feasible,
		Error: o.Err, Problems: append([]string{}, o.Problems...), GPUs: o.GPUs,
	}
	if p.Device != nil && o.Runs {
		od.EnergyPerSessionJ, od.BatteryPerDay, od.BatteryDevice = ptrTo(o.EnergyPerSessionJ), ptrTo(o.BatteryPerDay), o.BatteryDevice
	}
	if e := o.Endpoint; e != nil {
		ed := &endpointDoc{Catalog: e.ID, Name: e.Name, Model: e.Model, TTFT: float64(e.TTFT), TokensPerS: e.TokensPerS, Context: e.Context, Sources: map[string]string{}}
		if e.Price != nil {
			ed.InputPerMTok, ed.OutputPerMTok = ptrTo(e.Price.Input), ptrTo(e.Price.Output)
		}
		if e.Kind == cloud.KindGPU {
			ed.PricePerHour, ed.Prefill, ed.Decode = ptrTo(e.PricePerHour), ptrTo(e.Throughput.Prefill), ptrTo(e.Throughput.Decode)
		}
		for k, v := range e.Sources {
			ed.Sources[k] = v
		}
		od.Endpoint = ed
	}
	return od
}

// --- table ------------------------------------------------------------------------

// CloudTable prints the advice for people: the profile, one row per option
// (and the best hybrid), why each infeasible option fails, the break-even
// volume, the recommendation with its reasons along the five questions,
// the device runs, the assumptions and every catalog figure's source.
func CloudTable(w io.Writer, a *cloud.Advice) error {
	p := a.Profile
	fmt.Fprintf(w, "%s — %s users × %s sessions a day = %s sessions a month\n",
		p.Name, numfmt.Count(float64(p.Users)), numfmt.Number(p.SessionsPerUserPerDay), numfmt.Count(a.SessionsPerMonth))
	fmt.Fprintf(w, "Workload: %s\n", workloadText(p))
	fmt.Fprintf(w, "Targets: %s · data may leave the device: %s\n", targetsText(p), yesNo(p.DataMayLeaveDevice))
	fmt.Fprintf(w, "Network: %s · TTFT percentiles from %s sampled sessions, seed %d\n", networkText(p), numfmt.Count(float64(a.Samples)), a.Seed)
	fmt.Fprintln(w)

	cells := [][]string{{"option", "kind", "TTFT p50", "TTFT p95", "tokens/s", "$/month", "$/session", "energy/session", "battery/day", "served", "offline", "private", "feasible"}}
	rows := a.Options
	if a.Hybrid != nil {
		rows = append(append([]cloud.Option(nil), rows...), a.Hybrid.Option)
	}
	for _, o := range rows {
		name := o.Name
		if o.Name == a.Recommended {
			name += " ◀"
		}
		energy, battery := "—", "—"
		if p.Device != nil && o.Runs {
			energy = units.Approx(o.EnergyPerSessionJ, units.KindEnergy)
			battery = shareText(o.BatteryPerDay)
		}
		cells = append(cells, []string{
			name, o.Kind, durText(o.TTFTP50), durText(o.TTFTP95), rateText(o.TokensPerS),
			numfmt.USD(o.MonthlyCostUSD), numfmt.USD(o.CostPerSessionUSD), energy, battery, shareText(o.Availability),
			tick(o.OfflineOK), tick(o.PrivacyOK), tick(o.Feasible),
		})
	}
	if err := writeCells(w, cells, map[int]bool{0: true, 1: true, 10: true, 11: true, 12: true}); err != nil {
		return err
	}

	var why [][]string
	for _, o := range rows {
		if len(o.Problems) > 0 {
			why = append(why, []string{o.Name, strings.Join(o.Problems, "; ")})
		}
	}
	if len(why) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Why not:")
		indentCells(w, why)
	}

	fmt.Fprintln(w)
	breakEvenText(w, a)
	if h := a.Hybrid; h != nil {
		verdict := "does not win"
		if h.Wins {
			verdict = "wins"
		}
		fmt.Fprintf(w, "Hybrid: best of %d plans tried — %s; %s\n", h.Tried, h.Rule, verdict)
	}

	fmt.Fprintln(w)
	fmt.Fprintf(w, "Recommendation: %s (%s) — %s\n", strings.ToUpper(a.Recommendation), a.Recommended, a.Summary())
	var rs [][]string
	for _, r := range a.Reasons {
		rs = append(rs, []string{r.Question, r.Answer})
	}
	indentCells(w, rs)

	if len(a.DeviceRuns) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Device runs (%s %s, %s fidelity):\n", p.Device.Model.Name, p.Device.Quant, p.Device.Fidelity)
		dc := [][]string{{"device", "chip", "task", "prompt", "answer", "TTFT", "tokens/s", "energy"}}
		for _, r := range a.DeviceRuns {
			if r.Err != "" {
				dc = append(dc, []string{r.Device, r.Chip, r.Task, strconv.Itoa(r.Prompt), strconv.Itoa(r.Answer), "does not run", "", ""})
				continue
			}
			dc = append(dc, []string{r.Device, r.Chip, r.Task, strconv.Itoa(r.Prompt), strconv.Itoa(r.Answer),
				durText(&r.TTFT), rateText(&r.TokensPerS), units.Approx(r.EnergyJ, units.KindEnergy)})
		}
		if err := writeCellsIndented(w, dc, map[int]bool{0: true, 1: true, 2: true}); err != nil {
			return err
		}
	}
	if len(p.Assumed) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Assumed:")
		for _, s := range p.Assumed {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	sourcesText(w, p)
	return nil
}

func workloadText(p *cloud.Profile) string {
	var parts []string
	for _, t := range p.Tasks {
		if t.Name == "all" && len(p.Tasks) == 1 {
			parts = append(parts, fmt.Sprintf("%d-token prompts, %d-token answers", t.PromptTokens, t.AnswerTokens))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (%d → %d tokens)", t.Name, shareText(float64(t.Share)), t.PromptTokens, t.AnswerTokens))
	}
	s := strings.Join(parts, ", ")
	if fl := p.Device; fl != nil {
		var devs []string
		for _, d := range fl.Devices {
			devs = append(devs, fmt.Sprintf("%s %s (%s)", d.Name, shareText(d.Share), d.Chip.ID))
		}
		s += fmt.Sprintf(" · device: %s %s on %s", fl.Model.Name, fl.Quant, strings.Join(devs, ", "))
	}
	return s
}

func targetsText(p *cloud.Profile) string {
	tg := p.Targets
	var parts []string
	if tg.TTFTP50 != nil {
		parts = append(parts, "TTFT p50 ≤ "+units.Approx(float64(*tg.TTFTP50), units.KindDuration))
	}
	if tg.TTFTP95 != nil {
		parts = append(parts, "p95 ≤ "+units.Approx(float64(*tg.TTFTP95), units.KindDuration))
	}
	if tg.TokensPerS > 0 {
		parts = append(parts, "≥ "+numfmt.Number(tg.TokensPerS)+" tokens/s")
	}
	parts = append(parts, "served ≥ "+shareText(float64(*tg.Availability)))
	return strings.Join(parts, ", ")
}

func networkText(p *cloud.Profile) string {
	n := p.Network
	if n.RTT == nil {
		return "not used (no cloud option)"
	}
	s := fmt.Sprintf("RTT p50 %s / p95 %s", units.Approx(float64(n.RTT.P50), units.KindDuration), units.Approx(float64(n.RTT.P95), units.KindDuration))
	if n.Jitter > 0 {
		s += ", jitter ≤ " + units.Approx(float64(n.Jitter), units.KindDuration)
	}
	s += fmt.Sprintf(", %d round trip", n.RoundTrips)
	if n.RoundTrips != 1 {
		s += "s"
	}
	if n.Weak != nil {
		s += fmt.Sprintf("; weak %s (p50 %s / p95 %s)", shareText(float64(n.Weak.Share)),
			units.Approx(float64(n.Weak.RTT.P50), units.KindDuration), units.Approx(float64(n.Weak.RTT.P95), units.KindDuration))
	}
	return s + "; offline " + shareText(float64(n.OfflineShare))
}

func breakEvenText(w io.Writer, a *cloud.Advice) {
	be, p := a.BreakEven, a.Profile
	if be.Against == "" {
		fmt.Fprintf(w, "Break-even: none — %s\n", be.Note)
		return
	}
	head := fmt.Sprintf("Break-even: the device's share costs %s per user per month", numfmt.USD(be.DeviceUSDPerUserMonth))
	if be.SessionsPerUserPerDay == nil {
		fmt.Fprintf(w, "%s; %s — the %s is cheaper now\n", head, be.Note, be.Cheaper)
	} else {
		fmt.Fprintf(w, "%s, as much as %s at %s sessions per user per day (%s a month); the profile has %s — the %s is cheaper now\n",
			head, be.Against, numfmt.Number(*be.SessionsPerUserPerDay), numfmt.Count(*be.SessionsPerUserPerDay*float64(p.Users)*p.DaysPerMonth), numfmt.Number(be.Current), be.Cheaper)
	}
	var parts []string
	for _, ob := range be.Options {
		v := "never"
		if ob.SessionsPerUserPerDay != nil {
			v = numfmt.Number(*ob.SessionsPerUserPerDay)
		}
		parts = append(parts, fmt.Sprintf("%s %s", ob.Name, v))
	}
	fmt.Fprintf(w, "  sessions per user per day above which the device is cheaper: %s\n", strings.Join(parts, " · "))
}

func sourcesText(w io.Writer, p *cloud.Profile) {
	if len(p.Cloud) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Sources of the cloud figures:")
	for _, e := range p.Cloud {
		title := e.Label
		if e.Name != e.Label {
			title += " — " + e.Name
		}
		fmt.Fprintf(w, "  %s\n", title)
		for _, kv := range collapseSources(e.Sources) {
			fmt.Fprintf(w, "    %-20s %s\n", kv[0], kv[1])
		}
	}
}

// collapseSources lists an endpoint's citations by field, sorted, with
// fields that share a parent and a citation (price.input, price.output)
// written once under the parent (price).
func collapseSources(sources map[string]string) [][2]string {
	byParent := map[string][]string{}
	for k := range sources {
		if i := strings.LastIndexByte(k, '.'); i > 0 {
			byParent[k[:i]] = append(byParent[k[:i]], k)
		}
	}
	out := map[string]string{}
	for k, v := range sources {
		out[k] = v
	}
	for parent, kids := range byParent {
		same := len(kids) > 1
		for _, k := range kids {
			same = same && sources[k] == sources[kids[0]]
		}
		if same {
			for _, k := range kids {
				delete(out, k)
			}
			out[parent] = sources[kids[0]]
		}
	}
	keys := make([]string, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var rows [][2]string
	for _, k := range keys {
		rows = append(rows, [2]string{k, out[k]})
	}
	return rows
}

// indentCells prints label/text pairs two spaces in, the labels padded.
func indentCells(w io.Writer, rows [][]string) {
	width := 0
	for _, r := range rows {
		width = max(width, len([]rune(r[0])))
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %s  %s\n", pad(r[0], width), r[1])
	}
}

// writeCellsIndented is writeCells two spaces in.
func writeCellsIndented(w io.Writer, cells [][]string, left map[int]bool) error {
	var b strings.Builder
	if err := writeCells(&b, cells, left); err != nil {
		return err
	}
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if line != "" {
			fmt.Fprint(w, "  "+line)
		}
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func durText(v *float64) string {
	if v == nil {
		return "—"
	}
	return units.Approx(*v, units.KindDuration)
}

func rateText(v *float64) string {
	if v == nil {
		return "—"
	}
	return numfmt.Number(*v)
}

func shareText(f float64) string {
	if f == 0 {
		return "0%"
	}
	return units.Approx(f, units.KindFraction)
}
