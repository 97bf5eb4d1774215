package cloud

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

// Profile is a checked deployment profile for `advise cloud`: who
// uses the feature and how much, what they need, where the data may go,
// the network they are on, the device fleet and the cloud options. Every
// default it took is listed in Assumed.
type Profile struct {
	File                  string
	Name                  string
	Users                 int
	SessionsPerUserPerDay float64
	DaysPerMonth          float64
	// Tasks split the sessions by kind of request; a profile with one
	// prompt and answer length has one task, "all".
	Tasks              []Task
	Targets            Targets
	DataMayLeaveDevice bool
	Network            Network
	Device             *Fleet // nil: the profile has no device option
	Cloud              []Endpoint
	// PeakToAverage sizes self-hosted GPUs for the peak hour.
	PeakToAverage float64
	Seed          uint64
	Assumed       []string
}

// Task is one kind of session: its share of all sessions and its lengths.
type Task struct {
	Name         string         `yaml:"name" spec:"required"`
	Share        units.Fraction `yaml:"share" spec:"required"`
	PromptTokens int            `yaml:"prompt_tokens" spec:"required,positive"`
	AnswerTokens int            `yaml:"answer_tokens" spec:"required,positive"`
}

// Targets are what a session must achieve. Nil or zero targets are not
// checked, except Availability, which defaults to 99%.
type Targets struct {
	TTFTP50      *units.Seconds  `yaml:"ttft_p50,omitempty"`
	TTFTP95      *units.Seconds  `yaml:"ttft_p95,omitempty"`
	TokensPerS   float64         `yaml:"tokens_per_s,omitempty" spec:"nonneg"`
	Availability *units.Fraction `yaml:"availability,omitempty"`
}

// Network is what sits between the device and the cloud. The round-trip
// time is lognormal, fitted to its p50 and p95; each request also waits a
// jitter drawn uniformly from [0, Jitter]. OfflineShare of sessions find
// no network at all; Weak.Share find a weak link with its own RTT.
type Network struct {
	RTT          *RTT           `yaml:"rtt,omitempty"`
	Jitter       units.Seconds  `yaml:"jitter,omitempty"`
	RoundTrips   int            `yaml:"round_trips,omitempty" spec:"nonneg"`
	OfflineShare units.Fraction `yaml:"offline_share,omitempty"`
	Weak         *WeakLink      `yaml:"weak,omitempty"`
}

// RTT is a round-trip time distribution given by two percentiles.
type RTT struct {
	P50 units.Seconds `yaml:"p50" spec:"required"`
	P95 units.Seconds `yaml:"p95" spec:"required"`
}

// WeakLink is the share of sessions on a weak link and its RTT.
type WeakLink struct {
	Share units.Fraction `yaml:"share" spec:"required"`
	RTT   RTT            `yaml:"rtt" spec:"required"`
}

// Fleet is the devices the feature would run on, with the model they
// would run.
type Fleet struct {
	ModelRef string // as resolved: a catalog id or a path
	Model    *workloads.Spec
	Quant    workloads.Quant
	KV       workloads.KVFormat
	Fidelity sim.Fidelity
	// AmortisationMonths spreads each device's attributable cost.
	AmortisationMonths float64
	// RadioPower is what the device's modem draws while a cloud session
	// is in flight.
	RadioPower float64 // W
	Devices    []FleetDevice
}

// FleetDevice is one kind of device and its share of the users.
type FleetDevice struct {
	Name     string
	ChipRef  string // as resolved: a catalog id or a path
	Chip     *hw.Chip
	Share    float64
	Battery  float64 // J
	PriceUSD float64
	// FeatureShare is the part of the device's price the feature carries.
	FeatureShare float64
}

// Defaults of a profile, each reported in Assumed when taken.
const (
	defaultDaysPerMonth       = 30
	defaultAvailability       = 0.99
	defaultRoundTrips         = 1 // a kept-alive HTTPS connection: the request up, the first token down
	defaultAmortisationMonths = 24
	defaultRadioPower         = 1.0 // W: an order of magnitude for a phone modem sending and receiving
	defaultPeakToAverage      = 3
	defaultCloudSeed          = 1
	maxTasks                  = 8
)

// --- the file ----------------------------------------------------------------

type profileFile struct {
	Name                  string         `yaml:"name" spec:"required"`
	Users                 int            `yaml:"users" spec:"required,positive"`
	SessionsPerUserPerDay float64        `yaml:"sessions_per_user_per_day" spec:"required,positive"`
	DaysPerMonth          float64        `yaml:"days_per_month,omitempty" spec:"nonneg"`
	PromptTokens          int            `yaml:"prompt_tokens,omitempty" spec:"positive"`
	AnswerTokens          int            `yaml:"answer_tokens,omitempty" spec:"positive"`
	Tasks                 []Task         `yaml:"tasks,omitempty"`
	Targets               Targets        `yaml:"targets" spec:"required"`
	DataMayLeaveDevice    bool           `yaml:"data_may_leave_device" spec:"required"`
	Network               Network        `yaml:"network,omitempty"`
	Device                *deviceFile    `yaml:"device,omitempty"`
	Cloud                 []endpointFile `yaml:"cloud,omitempty"`
	PeakToAverage         float64        `yaml:"peak_to_average,omitempty" spec:"nonneg"`
	Seed                  uint64         `yaml:"seed,omitempty"`
}

type deviceFile struct {
	Model              string        `yaml:"model" spec:"required"`
	Quant              string        `yaml:"quant,omitempty"`
	KVDtype            string        `yaml:"kv_dtype,omitempty"`
	Fidelity           string        `yaml:"fidelity,omitempty" spec:"oneof=analytic|tile|line"`
	AmortisationMonths float64       `yaml:"amortisation_months,omitempty" spec:"nonneg"`
	RadioPower         *units.Watts  `yaml:"radio_power,omitempty"`
	Fleet              []fleetDevice `yaml:"fleet" spec:"required"`
}

type fleetDevice struct {
	Name         string          `yaml:"name,omitempty"`
	Chip         string          `yaml:"chip" spec:"required"`
	Share        *units.Fraction `yaml:"share,omitempty"`
	Battery      units.Joules    `yaml:"battery" spec:"required"`
	PriceUSD     float64         `yaml:"price_usd" spec:"required,nonneg"`
	FeatureShare units.Fraction  `yaml:"feature_share" spec:"required"`
}

// endpointFile is a profile's cloud entry: a catalog id, with any figure
// overridden, or an endpoint of its own.
type endpointFile struct {
	Catalog      string            `yaml:"catalog,omitempty"`
	Name         *string           `yaml:"name,omitempty"`
	Kind         *string           `yaml:"kind,omitempty" spec:"oneof=api|gpu"`
	Model        *string           `yaml:"model,omitempty"`
	Price        *TokenPrice       `yaml:"price,omitempty"`
	PricePerHour *float64          `yaml:"price_per_hour,omitempty" spec:"positive"`
	Throughput   *GPUThroughput    `yaml:"throughput,omitempty"`
	TTFT         *units.Seconds    `yaml:"ttft,omitempty"`
	TTFTPrompt   *int              `yaml:"ttft_prompt_tokens,omitempty" spec:"nonneg"`
	PrefillRate  *float64          `yaml:"prefill_tokens_per_s,omitempty" spec:"nonneg"`
	TokensPerS   *float64          `yaml:"tokens_per_s,omitempty" spec:"positive"`
	Context      *int              `yaml:"context,omitempty" spec:"nonneg"`
	Sources      map[string]string `yaml:"sources,omitempty"`
}

// LoadProfile reads a deployment profile strictly, loads the chips,
// the model and the catalog endpoints it names, and checks that it holds
// together. Every error is the user's input and names the file, line and
// field (chip and model files named in it are read relative to it).
func LoadProfile(file string, data []byte) (*Profile, error) {
	var f profileFile
	doc, err := spec.ParseInto(file, data, &f)
	if err != nil {
		return nil, err
	}
	p := &Profile{
		File: file, Name: f.Name, Users: f.Users, SessionsPerUserPerDay: f.SessionsPerUserPerDay,
		DaysPerMonth: f.DaysPerMonth, Targets: f.Targets, DataMayLeaveDevice: f.DataMayLeaveDevice,
		Network: f.Network, PeakToAverage: f.PeakToAverage, Seed: f.Seed,
	}
	l := profileLoader{doc: doc, p: p, dir: filepath.Dir(file)}
	for _, step := range []func(*profileFile) error{l.volume, l.tasks, l.targets, l.network, l.device, l.cloud} {
		if err := step(&f); err != nil {
			return nil, err
		}
	}
	if p.Device == nil && len(p.Cloud) == 0 {
		return nil, &spec.Error{File: file, Msg: "no device and no cloud option: give device (the fleet and the model), cloud (endpoints), or both"}
	}
	return p, nil
}

type profileLoader struct {
	doc *spec.Doc
	p   *Profile
	dir string
}

func (l *profileLoader) assume(what string) { l.p.Assumed = append(l.p.Assumed, what) }

func (l *profileLoader) volume(f *profileFile) error {
	p := l.p
	switch {
	case f.DaysPerMonth == 0:
		p.DaysPerMonth = defaultDaysPerMonth
		l.assume(fmt.Sprintf("days_per_month: %d", defaultDaysPerMonth))
	case f.DaysPerMonth > 31:
		return l.doc.Errorf("days_per_month", "%g is not allowed: a month has at most 31 days", f.DaysPerMonth)
	}
	switch {
	case f.PeakToAverage == 0:
		p.PeakToAverage = defaultPeakToAverage
		if hasKind(f.Cloud, KindGPU) {
			l.assume(fmt.Sprintf("peak_to_average: %d (self-hosted GPUs are sized for the peak hour)", defaultPeakToAverage))
		}
	case f.PeakToAverage < 1:
		return l.doc.Errorf("peak_to_average", "%g is not allowed: the peak load is at least the average (1 or more)", f.PeakToAverage)
	}
	if f.Seed == 0 {
		p.Seed = defaultCloudSeed
	}
	return nil
}

// hasKind reports whether a profile's cloud entries name a kind; catalog
// entries are read for theirs.
func hasKind(entries []endpointFile, kind string) bool {
	for _, e := range entries {
		if e.Kind != nil && *e.Kind == kind {
			return true
		}
		if e.Catalog != "" {
			if ep, err := LoadEndpoint(e.Catalog); err == nil && ep.Kind == kind {
				return true
			}
		}
	}
	return false
}

func (l *profileLoader) tasks(f *profileFile) error {
	d := l.doc
	short := f.PromptTokens > 0 || f.AnswerTokens > 0
	switch {
	case short && len(f.Tasks) > 0:
		field := "prompt_tokens"
		if f.PromptTokens == 0 {
			field = "answer_tokens"
		}
		return d.Errorf(field, "give prompt_tokens and answer_tokens, or tasks, not both")
	case len(f.Tasks) == 0 && !short:
		return &spec.Error{File: d.File, Path: "prompt_tokens", Msg: "missing prompt_tokens and answer_tokens (or tasks: a list of {name, share, prompt_tokens, answer_tokens})"}
	case len(f.Tasks) == 0 && f.PromptTokens == 0:
		return d.Errorf("answer_tokens", "missing prompt_tokens beside answer_tokens")
	case len(f.Tasks) == 0 && f.AnswerTokens == 0:
		return d.Errorf("prompt_tokens", "missing answer_tokens beside prompt_tokens")
	case short:
		l.p.Tasks = []Task{{Name: "all", Share: 1, PromptTokens: f.PromptTokens, AnswerTokens: f.AnswerTokens}}
		return nil
	}
	if len(f.Tasks) > maxTasks {
		return d.Errorf("tasks", "%d tasks: at most %d (the hybrid plan tries every split of them)", len(f.Tasks), maxTasks)
	}
	sum := 0.0
	var names []string
	for _, t := range f.Tasks {
		path := "tasks." + t.Name
		if slices.Contains(names, t.Name) {
			return d.Errorf(path, "task %q named twice", t.Name)
		}
		names = append(names, t.Name)
		if t.Share > 1 {
			return d.Errorf(path+".share", "%s is not allowed: a share is between 0 and 100%%", t.Share)
		}
		sum += float64(t.Share)
	}
	if math.Abs(sum-1) > 1e-6 {
		return d.Errorf("tasks", "the task shares add up to %s; they must add up to 100%%", units.Approx(sum, units.KindFraction))
	}
	l.p.Tasks = f.Tasks
	return nil
}

func (l *profileLoader) targets(f *profileFile) error {
	t := &l.p.Targets
	for i, v := range []*units.Seconds{t.TTFTP50, t.TTFTP95} {
		if v != nil && *v <= 0 {
			return l.doc.Errorf([]string{"targets.ttft_p50", "targets.ttft_p95"}[i], "%s is not allowed: a time to first token takes more than 0 s", v)
		}
	}
	if t.TTFTP50 != nil && t.TTFTP95 != nil && *t.TTFTP95 < *t.TTFTP50 {
		return l.doc.Errorf("targets.ttft_p95", "%s is below ttft_p50 %s: the 95th percentile cannot be faster than the median", t.TTFTP95, t.TTFTP50)
	}
	if t.Availability == nil {
		a := units.Fraction(defaultAvailability)
		t.Availability = &a
		l.assume("targets.availability: 99%")
	} else if *t.Availability > 1 || *t.Availability == 0 {
		return l.doc.Errorf("targets.availability", "%s is not allowed: a share of sessions between 0 (exclusive) and 100%%", t.Availability)
	}
	return nil
}

func (l *profileLoader) network(f *profileFile) error {
	d, n := l.doc, &l.p.Network
	if n.RTT == nil {
		if len(f.Cloud) > 0 {
			return &spec.Error{File: d.File, Path: "network.rtt", Msg: "missing: cloud options need the round-trip time, e.g. rtt: {p50: 60 ms, p95: 250 ms}"}
		}
	} else if err := checkRTT(d, "network.rtt", *n.RTT); err != nil {
		return err
	}
	if n.RoundTrips == 0 {
		n.RoundTrips = defaultRoundTrips
		if len(f.Cloud) > 0 {
			l.assume("network.round_trips: 1 (a kept-alive connection: no TCP or TLS handshake per request)")
		}
	}
	if n.OfflineShare > 1 {
		return d.Errorf("network.offline_share", "%s is not allowed: a share of sessions is between 0 and 100%%", n.OfflineShare)
	}
	if n.Weak != nil {
		if n.Weak.Share > 1 {
			return d.Errorf("network.weak.share", "%s is not allowed: a share of sessions is between 0 and 100%%", n.Weak.Share)
		}
		if n.OfflineShare+n.Weak.Share > 1+1e-9 {
			return d.Errorf("network.weak.share", "%s weak plus %s offline is more than 100%% of sessions", n.Weak.Share, n.OfflineShare)
		}
		if err := checkRTT(d, "network.weak.rtt", n.Weak.RTT); err != nil {
			return err
		}
	}
	return nil
}

func checkRTT(d *spec.Doc, path string, r RTT) error {
	if r.P50 <= 0 {
		return d.Errorf(path+".p50", "%s is not allowed: a round trip takes more than 0 s", r.P50)
	}
	if r.P95 < r.P50 {
		return d.Errorf(path+".p95", "%s is below p50 %s: the 95th percentile cannot be faster than the median", r.P95, r.P50)
	}
	return nil
}

func (l *profileLoader) device(f *profileFile) error {
	if f.Device == nil {
		return nil
	}
	d, df := l.doc, f.Device
	fl := &Fleet{AmortisationMonths: df.AmortisationMonths, RadioPower: defaultRadioPower}
	if fl.AmortisationMonths == 0 {
		fl.AmortisationMonths = defaultAmortisationMonths
		l.assume(fmt.Sprintf("device.amortisation_months: %d", defaultAmortisationMonths))
	}
	if df.RadioPower != nil {
		fl.RadioPower = float64(*df.RadioPower)
	} else if len(f.Cloud) > 0 {
		l.assume("device.radio_power: 1 W (the modem while a cloud session is in flight; an order of magnitude, not a measurement)")
	}
	var err error
	quant := df.Quant
	if quant == "" {
		quant = "Q4_0"
		l.assume("device.quant: Q4_0")
	}
	if fl.Quant, err = workloads.ParseQuant(quant); err != nil {
		return d.Errorf("device.quant", "%v", err)
	}
	kv := df.KVDtype
	if kv == "" {
		kv = "F16"
	}
	if fl.KV, err = workloads.ParseKVFormat(kv); err != nil {
		return d.Errorf("device.kv_dtype", "%v", err)
	}
	fl.Fidelity = sim.Tile
	if df.Fidelity != "" {
		fl.Fidelity = sim.Fidelity(df.Fidelity)
	}
	fl.ModelRef = l.resolve(df.Model, workloads.ModelIDs())
	if fl.Model, err = workloads.LoadModel(fl.ModelRef, nil); err != nil {
		return d.Errorf("device.model", "%s", spec.OneLine(err.Error()))
	}
	for _, t := range l.p.Tasks {
		if ctx := t.PromptTokens + t.AnswerTokens; ctx > fl.Model.MaxContext {
			path := "prompt_tokens"
			if len(f.Tasks) > 0 {
				path = "tasks." + t.Name + ".prompt_tokens"
			}
			return d.Errorf(path, "%d prompt + %d answer tokens = %d is beyond %s's context of %d tokens", t.PromptTokens, t.AnswerTokens, ctx, fl.Model.Name, fl.Model.MaxContext)
		}
	}
	if len(df.Fleet) == 0 {
		return d.Errorf("device.fleet", "an empty fleet: list the devices, e.g. - {chip: snapdragon-8-gen3, battery: 17 Wh, price_usd: 800, feature_share: 5%%}")
	}
	sum := 0.0
	var names []string
	for i, fd := range df.Fleet {
		name := fd.Name
		if name == "" {
			name = fd.Chip
		}
		path := "device.fleet." + strconv.Itoa(i)
		if fd.Name != "" {
			path = "device.fleet." + fd.Name
		}
		if slices.Contains(names, name) {
			return d.Errorf(path, "the fleet lists %s twice; give each entry its own name", name)
		}
		names = append(names, name)
		share := 1.0
		switch {
		case fd.Share != nil:
			share = float64(*fd.Share)
			if share > 1 {
				return d.Errorf(path+".share", "%s is not allowed: a share of users is between 0 and 100%%", fd.Share)
			}
		case len(df.Fleet) > 1:
			return &spec.Error{File: d.File, Line: d.Line(path + ".chip"), Path: path + ".share", Msg: "missing: with more than one device each needs its share of the users"}
		}
		if fd.FeatureShare > 1 {
			return d.Errorf(path+".feature_share", "%s is not allowed: the share of the device's price is between 0 and 100%%", fd.FeatureShare)
		}
		ref := l.resolve(fd.Chip, hw.ChipIDs())
		chip, err := hw.LoadChip(ref, nil)
		if err != nil {
			return d.Errorf(path+".chip", "%s", spec.OneLine(err.Error()))
		}
		sum += share
		fl.Devices = append(fl.Devices, FleetDevice{
			Name: name, ChipRef: ref, Chip: chip, Share: share, Battery: float64(fd.Battery),
			PriceUSD: fd.PriceUSD, FeatureShare: float64(fd.FeatureShare),
		})
	}
	if math.Abs(sum-1) > 1e-6 {
		return d.Errorf("device.fleet", "the fleet's shares add up to %s; they must add up to 100%%", units.Approx(sum, units.KindFraction))
	}
	l.p.Device = fl
	return nil
}

// resolve reads a chip or model reference that is not a catalog id
// relative to the profile's folder.
func (l *profileLoader) resolve(ref string, ids []string) string {
	return spec.Relative(l.dir, ref, ids)
}

func (l *profileLoader) cloud(f *profileFile) error {
	d := l.doc
	var names []string
	for i, ef := range f.Cloud {
		path := "cloud." + strconv.Itoa(i)
		if ef.Name != nil {
			path = "cloud." + *ef.Name
		}
		e, err := l.endpoint(path, ef)
		if err != nil {
			return err
		}
		if slices.Contains(names, e.Label) || e.Label == KindDevice || e.Label == KindHybrid {
			return d.Errorf(path, "two options are named %q; give this one a name of its own", e.Label)
		}
		names = append(names, e.Label)
		l.p.Cloud = append(l.p.Cloud, *e)
	}
	return nil
}

// endpoint resolves one cloud entry: the catalog's figures with the
// profile's on top, each figure keeping its source.
func (l *profileLoader) endpoint(path string, ef endpointFile) (*Endpoint, error) {
	d := l.doc
	e := &Endpoint{Sources: map[string]string{}}
	if ef.Catalog != "" {
		base, err := LoadEndpoint(ef.Catalog)
		if err != nil {
			return nil, d.Errorf(path+".catalog", "no built-in cloud endpoint %q; known: %s", ef.Catalog, strings.Join(EndpointIDs(), ", "))
		}
		*e = *base
		e.Sources = map[string]string{}
		for _, fig := range base.figures() {
			e.Sources[fig] = base.Source(fig)
		}
		e.Label = ef.Catalog
	} else {
		switch {
		case ef.Name == nil:
			return nil, d.Errorf(path, "a cloud option needs catalog: ID (one of %s) or its own name, kind and figures", strings.Join(EndpointIDs(), ", "))
		case ef.Kind == nil:
			return nil, &spec.Error{File: d.File, Line: d.Line(path + ".name"), Path: path + ".kind", Msg: "missing: api (priced per token) or gpu (priced per hour)"}
		case ef.TTFT == nil:
			return nil, &spec.Error{File: d.File, Line: d.Line(path + ".name"), Path: path + ".ttft", Msg: "missing: the provider's time to first token, network excluded (e.g. 400 ms)"}
		case ef.TokensPerS == nil:
			return nil, &spec.Error{File: d.File, Line: d.Line(path + ".name"), Path: path + ".tokens_per_s", Msg: "missing: the streaming rate of one answer, tokens/s"}
		}
	}
	own := func(field string) string {
		if c, ok := ef.Sources[field]; ok {
			return c
		}
		return fmt.Sprintf("%s:%d", d.File, d.Line(path+"."+field))
	}
	set := func(field string, apply func()) {
		apply()
		e.Sources[field] = own(field)
	}
	if ef.Name != nil {
		e.Label = *ef.Name
		if ef.Catalog == "" {
			e.Name = *ef.Name
		}
	}
	if ef.Kind != nil {
		if ef.Catalog != "" && *ef.Kind != e.Kind {
			return nil, d.Errorf(path+".kind", "%s is a %s endpoint; kind cannot change it", ef.Catalog, e.Kind)
		}
		e.Kind = *ef.Kind
	}
	if ef.Model != nil {
		e.Model = *ef.Model
	}
	if ef.Price != nil {
		e.Price = ef.Price
		e.Sources["price.input"], e.Sources["price.output"] = own("price.input"), own("price.output")
	}
	if ef.PricePerHour != nil {
		set("price_per_hour", func() { e.PricePerHour = *ef.PricePerHour })
	}
	if ef.Throughput != nil {
		e.Throughput = ef.Throughput
		e.Sources["throughput.prefill"], e.Sources["throughput.decode"] = own("throughput.prefill"), own("throughput.decode")
	}
	if ef.TTFT != nil {
		set("ttft", func() { e.TTFT = *ef.TTFT })
	}
	if ef.TTFTPrompt != nil {
		set("ttft_prompt_tokens", func() { e.TTFTPrompt = *ef.TTFTPrompt })
	}
	if ef.PrefillRate != nil {
		set("prefill_tokens_per_s", func() { e.PrefillRate = *ef.PrefillRate })
	}
	if ef.TokensPerS != nil {
		set("tokens_per_s", func() { e.TokensPerS = *ef.TokensPerS })
	}
	if ef.Context != nil {
		set("context", func() { e.Context = *ef.Context })
	}
	if err := e.check(d, path); err != nil {
		return nil, err
	}
	// The profile's own citations: for its figures, or to re-cite the
	// catalog's.
	figs := e.figures()
	for k, v := range ef.Sources {
		var hit []string
		for _, f := range figs {
			if f == k || strings.HasPrefix(f, k+".") {
				hit = append(hit, f)
			}
		}
		if len(hit) == 0 {
			return nil, d.Errorf(path+".sources."+k, "%s is not a figure of this endpoint; its figures: %s", k, strings.Join(figs, ", "))
		}
		for _, f := range hit {
			e.Sources[f] = v
		}
	}
	return e, nil
}
