package cloud

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// smallProfile is a quick profile (analytic runs of a 1B model): a phone
// fleet, one API priced by hand and one GPU, on a network that is never
// offline, so that every figure below can be worked out on paper.
const smallProfile = `name: small
users: 1000
sessions_per_user_per_day: 10
prompt_tokens: 400
answer_tokens: 100
targets: {ttft_p50: 2 s, ttft_p95: 5 s, tokens_per_s: 5}
data_may_leave_device: true
network:
  rtt: {p50: 50 ms, p95: 200 ms}
device:
  model: llama-3.2-1b
  fidelity: analytic
  fleet:
    - {chip: snapdragon-8-gen3, battery: 19 Wh, price_usd: 960, feature_share: 5%}
cloud:
  - name: api
    kind: api
    price: {input: 1, output: 2}
    ttft: 300 ms
    tokens_per_s: 50
  - name: gpu
    kind: gpu
    price_per_hour: 2
    throughput: {prefill: 10000, decode: 1000}
    ttft: 50 ms
    tokens_per_s: 80
`

func loadProfile(t *testing.T, text string) *Profile {
	t.Helper()
	p, err := LoadProfile("profile.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func advise(t *testing.T, p *Profile) *Advice {
	t.Helper()
	a, err := Advise(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func option(t *testing.T, a *Advice, name string) *Option {
	t.Helper()
	for i := range a.Options {
		if a.Options[i].Name == name {
			return &a.Options[i]
		}
	}
	t.Fatalf("no option %s", name)
	return nil
}

func breakEvenOf(t *testing.T, a *Advice, name string) float64 {
	t.Helper()
	for _, ob := range a.BreakEven.Options {
		if ob.Name == name {
			if ob.SessionsPerUserPerDay == nil {
				t.Fatalf("%s: no break-even", name)
			}
			return *ob.SessionsPerUserPerDay
		}
	}
	t.Fatalf("no break-even against %s", name)
	return 0
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

// TestCloudCosts checks the figures against hand calculations.
func TestCloudCosts(t *testing.T) {
	a := advise(t, loadProfile(t, smallProfile))
	// 1000 users × 10 sessions × 30 days.
	if a.SessionsPerMonth != 300000 {
		t.Errorf("sessions a month %g, want 300000", a.SessionsPerMonth)
	}
	// Device: $960 × 5% / 24 months = $2 per user per month.
	if d := option(t, a, "device"); !near(d.MonthlyCostUSD, 2000, 1e-12) {
		t.Errorf("device $%g a month, want $2000", d.MonthlyCostUSD)
	}
	// API: (400 × $1 + 100 × $2) / 1e6 = $0.0006 a session × 300000.
	if c := option(t, a, "api"); !near(c.MonthlyCostUSD, 180, 1e-12) || !near(c.CostPerSessionUSD, 0.0006, 1e-12) {
		t.Errorf("api $%g a month ($%g a session), want $180 ($0.0006)", c.MonthlyCostUSD, c.CostPerSessionUSD)
	}
	// GPU: 400/10000 + 100/1000 = 0.14 GPU-s a session; 300000 sessions in
	// 30 days is 0.116/s, 0.0162 GPU-s/s, × 3 peak → 1 GPU × $2 × 720 h.
	if g := option(t, a, "gpu"); g.GPUs != 1 || !near(g.MonthlyCostUSD, 1440, 1e-12) {
		t.Errorf("gpu: %d GPUs, $%g a month; want 1, $1440", g.GPUs, g.MonthlyCostUSD)
	}
	// Break-even against the API: $2 / (30 days × $0.0006) = 111.1 sessions
	// a day; against the GPU: the $2000 of device shares pays for one GPU
	// ($1440), which carries 86400 / (1000 users × 0.14 × 3) = 205.7.
	if s := breakEvenOf(t, a, "api"); !near(s, 2/(30*0.0006), 1e-9) {
		t.Errorf("break-even against api %g, want %g", s, 2/(30*0.0006))
	}
	if s := breakEvenOf(t, a, "gpu"); !near(s, 86400/(1000*0.14*3), 1e-9) {
		t.Errorf("break-even against gpu %g, want %g", s, 86400/(1000*0.14*3))
	}
	if a.Recommendation != RecommendCloud || a.Recommended != "api" || a.BreakEven.Against != "api" || a.BreakEven.Cheaper != RecommendCloud {
		t.Errorf("recommendation %s (%s), break-even against %s, %s cheaper; want cloud (api), api, cloud",
			a.Recommendation, a.Recommended, a.BreakEven.Against, a.BreakEven.Cheaper)
	}
	// The network adds one RTT (median 50 ms) to the API's 300 ms.
	if c := option(t, a, "api"); !near(*c.TTFTP50, 0.35, 0.02) {
		t.Errorf("api TTFT p50 %g s, want about 0.35 s", *c.TTFTP50)
	}
}

// TestBreakEvenMoves: a dearer cloud breaks even at a lower volume; a
// dearer device at a higher one.
func TestBreakEvenMoves(t *testing.T) {
	base := advise(t, loadProfile(t, smallProfile))
	for _, name := range []string{"api", "gpu"} {
		b0 := breakEvenOf(t, base, name)

		p := loadProfile(t, smallProfile)
		for i := range p.Cloud {
			e := &p.Cloud[i]
			if e.Price != nil {
				e.Price = &TokenPrice{Input: e.Price.Input * 2, Output: e.Price.Output * 2}
			}
			e.PricePerHour *= 2
		}
		if b := breakEvenOf(t, advise(t, p), name); !(b < b0) {
			t.Errorf("%s: the cloud at twice the price breaks even at %g, not below %g", name, b, b0)
		}

		p = loadProfile(t, smallProfile)
		p.Device.Devices[0].PriceUSD *= 2
		if b := breakEvenOf(t, advise(t, p), name); !(b > b0) {
			t.Errorf("%s: the device at twice the price breaks even at %g, not above %g", name, b, b0)
		}

		p = loadProfile(t, smallProfile)
		p.Device.Devices[0].FeatureShare /= 2
		if b := breakEvenOf(t, advise(t, p), name); !(b < b0) {
			t.Errorf("%s: half the feature share breaks even at %g, not below %g", name, b, b0)
		}
	}
}

// TestBreakEvenSide: above the break-even volume the device is cheaper:
// at 250 sessions a day the API bills $4500, the GPU pool needs 2 GPUs
// ($2880), the device shares cost $2000.
func TestBreakEvenSide(t *testing.T) {
	p := loadProfile(t, strings.Replace(smallProfile, "sessions_per_user_per_day: 10", "sessions_per_user_per_day: 250", 1))
	a := advise(t, p)
	if a.BreakEven.Cheaper != RecommendDevice {
		t.Errorf("at 250 sessions a day (break-even 111 against the API, 206 against one GPU) the %s is cheaper, want the device", a.BreakEven.Cheaper)
	}
	if a.Recommendation != RecommendDevice {
		t.Errorf("recommendation %s, want device: %s", a.Recommendation, a.Summary())
	}
}

// TestPrivacyRulesOutTheCloud: data that may not leave the device makes
// every cloud option non-compliant, however cheap.
func TestPrivacyRulesOutTheCloud(t *testing.T) {
	a := advise(t, loadProfile(t, strings.Replace(smallProfile, "data_may_leave_device: true", "data_may_leave_device: false", 1)))
	for _, o := range a.Options {
		cloud := o.Kind != KindDevice
		if o.PrivacyOK == cloud || (cloud && o.Feasible) {
			t.Errorf("%s: privacy_ok %v, feasible %v", o.Name, o.PrivacyOK, o.Feasible)
		}
	}
	if a.Hybrid == nil || a.Hybrid.Option.PrivacyOK || a.Hybrid.Wins {
		t.Errorf("hybrid %+v", a.Hybrid)
	}
	if a.Recommendation != RecommendDevice {
		t.Errorf("recommendation %s, want device", a.Recommendation)
	}
	if !strings.Contains(a.Reasons[1].Answer, "ruled out") {
		t.Errorf("privacy reason: %s", a.Reasons[1].Answer)
	}
}

// TestOfflineShare: the cloud serves only the sessions that find a
// network, and bills only those.
func TestOfflineShare(t *testing.T) {
	a := advise(t, loadProfile(t, strings.Replace(smallProfile, "rtt: {p50: 50 ms, p95: 200 ms}", "rtt: {p50: 50 ms, p95: 200 ms}\n  offline_share: 20%", 1)))
	c := option(t, a, "api")
	if !near(c.Availability, 0.8, 1e-12) || c.OfflineOK || c.Feasible {
		t.Errorf("api: availability %g, offline_ok %v, feasible %v", c.Availability, c.OfflineOK, c.Feasible)
	}
	if !near(c.MonthlyCostUSD, 180*0.8, 1e-12) {
		t.Errorf("api $%g a month, want $144", c.MonthlyCostUSD)
	}
	if d := option(t, a, "device"); d.Availability != 1 || !d.OfflineOK {
		t.Errorf("device: availability %g, offline_ok %v", d.Availability, d.OfflineOK)
	}
}

// hybridProfile is a phone that answers chat quickly (a 1B model through
// llama.cpp's OpenCL backend: about 0.8 s to the first token of a
// 200-token prompt) but takes seconds to prefill documents, on a network offline 3% of the time: the device
// misses the p95 target on documents, the cloud misses the availability
// target, and sending documents to the cloud when online meets both.
const hybridProfile = `name: hybrid
users: 1000
sessions_per_user_per_day: 10
tasks:
  - {name: chat, share: 70%, prompt_tokens: 200, answer_tokens: 100}
  - {name: document, share: 30%, prompt_tokens: 6000, answer_tokens: 200}
targets: {ttft_p50: 1 s, ttft_p95: 2 s, tokens_per_s: 8}
data_may_leave_device: true
network:
  rtt: {p50: 50 ms, p95: 200 ms}
  offline_share: 3%
device:
  model: llama-3.2-1b
  fidelity: analytic
  fleet:
    - {chip: snapdragon-8-gen2, battery: 15 Wh, price_usd: 600, feature_share: 5%}
cloud:
  - catalog: gemini-1.5-flash
`

func TestHybridWins(t *testing.T) {
	a := advise(t, loadProfile(t, hybridProfile))
	if d := option(t, a, "device"); d.Feasible || d.LatencyOK {
		t.Errorf("the device meets the targets: p95 %s", dur(d.TTFTP95))
	}
	if c := option(t, a, "gemini-1.5-flash"); c.Feasible {
		t.Errorf("the cloud meets the targets at %s availability", pct(c.Availability))
	}
	h := a.Hybrid
	if h == nil || !h.Wins || a.Recommendation != RecommendHybrid {
		t.Fatalf("recommendation %s, hybrid %+v", a.Recommendation, h)
	}
	if !slices.Equal(h.CloudTasks, []string{"document"}) {
		t.Errorf("the hybrid sends %v to the cloud, want [document]", h.CloudTasks)
	}
	// Documents online go to the cloud: 30% × 97% of sessions.
	if !near(h.Option.CloudShare, 0.3*0.97, 1e-12) || h.Option.Availability != 1 {
		t.Errorf("hybrid: cloud share %g, availability %g", h.Option.CloudShare, h.Option.Availability)
	}
	if !strings.Contains(h.Rule, "document (6000-token prompts) → gemini-1.5-flash") {
		t.Errorf("rule: %s", h.Rule)
	}
}

// TestDeviceDoesNotFit: a model the device cannot hold makes the device
// option infeasible, with the reason, and leaves the others be.
func TestDeviceDoesNotFit(t *testing.T) {
	text := strings.Replace(smallProfile, "model: llama-3.2-1b", "model: llama-3.1-8b\n  quant: F16", 1)
	text = strings.Replace(text, "chip: snapdragon-8-gen3", "chip: jetson-orin-nano", 1)
	a := advise(t, loadProfile(t, text))
	d := option(t, a, "device")
	if d.Runs || d.Feasible || !strings.Contains(d.Err, "does not fit") {
		t.Fatalf("device: runs %v, feasible %v, err %q", d.Runs, d.Feasible, d.Err)
	}
	if a.Recommendation != RecommendCloud {
		t.Errorf("recommendation %s, want cloud", a.Recommendation)
	}
	if !strings.Contains(a.Reasons[4].Answer, "does not fit") {
		t.Errorf("model size reason: %s", a.Reasons[4].Answer)
	}
}

// TestDevicePagesItsWeights: Qwen2.5-7B at Q8_0 (8.1 GB) on the 8 GiB
// A17 Pro runs only because llama.cpp's Metal backend computes from the
// mapped file, paging what the app may not hold from storage; the model
// size reason says so beside "fits".
func TestDevicePagesItsWeights(t *testing.T) {
	text := strings.Replace(smallProfile, "model: llama-3.2-1b", "model: qwen2.5-7b\n  quant: Q8_0", 1)
	text = strings.Replace(text, "chip: snapdragon-8-gen3", "chip: apple-a17-pro", 1)
	a := advise(t, loadProfile(t, text))
	if d := option(t, a, "device"); !d.Runs {
		t.Fatalf("device: runs %v, err %q", d.Runs, d.Err)
	}
	if r := a.Reasons[4].Answer; !strings.Contains(r, "fits") || !strings.Contains(r, "of its weights paged in from storage every pass") {
		t.Errorf("model size reason: %s", r)
	}
}

// TestCloudSeedDeterminism: the same seed gives the same advice; another
// seed moves the sampled percentiles only.
func TestCloudSeedDeterminism(t *testing.T) {
	p := loadProfile(t, smallProfile)
	a1, _ := Advise(context.Background(), p, 1)
	a2, _ := Advise(context.Background(), p, 1)
	a3, _ := Advise(context.Background(), p, 2)
	c1, c2, c3 := option(t, a1, "api"), option(t, a2, "api"), option(t, a3, "api")
	if *c1.TTFTP95 != *c2.TTFTP95 {
		t.Error("the same seed gave two p95s")
	}
	if *c1.TTFTP95 == *c3.TTFTP95 || c1.MonthlyCostUSD != c3.MonthlyCostUSD {
		t.Errorf("seed 2: p95 %g (seed 1 %g), cost %g (%g)", *c3.TTFTP95, *c1.TTFTP95, c3.MonthlyCostUSD, c1.MonthlyCostUSD)
	}
}

// TestRTTFit: the sampled round trips have the profile's p50 and p95.
func TestRTTFit(t *testing.T) {
	p := loadProfile(t, smallProfile)
	link := newLinkModel(p.Network)
	var rtts []float64
	for _, s := range drawSessions(p, link, 3, 50000) {
		rtts = append(rtts, s.net)
	}
	slices.Sort(rtts)
	if p50, p95 := nearestRank(rtts, 0.5), nearestRank(rtts, 0.95); !near(p50, 0.05, 0.03) || !near(p95, 0.2, 0.03) {
		t.Errorf("p50 %g s, p95 %g s; want 0.05, 0.2", p50, p95)
	}
}

// TestCatalog: every built-in endpoint loads and cites every figure.
func TestCatalog(t *testing.T) {
	ids := EndpointIDs()
	if len(ids) < 5 {
		t.Fatalf("catalog: %v", ids)
	}
	kinds := map[string]bool{}
	for _, id := range ids {
		e, err := LoadEndpoint(id)
		if err != nil {
			t.Fatal(err)
		}
		kinds[e.Kind] = true
		for _, f := range e.figures() {
			src := e.Source(f)
			if len(src) < 20 {
				t.Errorf("%s: %s has no source (%q)", id, f, src)
			}
			if !strings.HasPrefix(src, "assumed") && !strings.ContainsAny(src, "0123456789") {
				t.Errorf("%s: %s's source has no date: %s", id, f, src)
			}
		}
		for k := range e.Sources {
			if !slices.ContainsFunc(e.figures(), func(f string) bool { return f == k || strings.HasPrefix(f, k+".") }) {
				t.Errorf("%s: source for %s, which is no figure", id, k)
			}
		}
	}
	if !kinds[KindAPI] || !kinds[KindGPU] {
		t.Errorf("kinds %v: want api and gpu", kinds)
	}
}

// TestProfileErrors: inconsistent profiles are errors at their field.
func TestProfileErrors(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"tasks and prompt", "prompt_tokens: 400", "prompt_tokens: 400\ntasks: [{name: a, share: 1, prompt_tokens: 1, answer_tokens: 1}]", "profile.yaml:4:16: field prompt_tokens: give prompt_tokens and answer_tokens, or tasks, not both"},
		{"no answer", "answer_tokens: 100\n", "", "field prompt_tokens: missing answer_tokens"},
		{"task shares", "prompt_tokens: 400\nanswer_tokens: 100", "tasks:\n  - {name: a, share: 50%, prompt_tokens: 10, answer_tokens: 10}\n  - {name: b, share: 40%, prompt_tokens: 10, answer_tokens: 10}", "field tasks: the task shares add up to 90%"},
		{"no rtt", "  rtt: {p50: 50 ms, p95: 200 ms}\n", "  jitter: 1 ms\n", "field network.rtt: missing"},
		{"api without price", "    price: {input: 1, output: 2}\n", "", "field cloud.api.kind: an api endpoint needs price"},
		{"gpu with price", "    price_per_hour: 2\n", "    price_per_hour: 2\n    price: {input: 1, output: 1}\n", "field cloud.gpu.price: price is for an api endpoint"},
		{"no ttft", "    ttft: 300 ms\n", "", "field cloud.api.ttft: missing"},
		{"peak below one", "name: small", "name: small\npeak_to_average: 0.5", "field peak_to_average: 0.5 is not allowed"},
		{"feature share", "feature_share: 5%", "feature_share: 105%", "feature_share: 105% is not allowed"},
		{"availability", "tokens_per_s: 5}", "tokens_per_s: 5, availability: 0}", "field targets.availability"},
		{"duplicate names", "  - name: gpu\n", "  - name: api\n", "duplicate entry name \"api\" in cloud (first at line 16)"},
		{"kind", "kind: gpu", "kind: tpu", "field cloud.gpu.kind: \"tpu\" is not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(smallProfile, tc.old, tc.new, 1)
			if text == smallProfile {
				t.Fatalf("%q not found", tc.old)
			}
			_, err := LoadProfile("profile.yaml", []byte(text))
			if err == nil || !spec.IsSpecError(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "profile.yaml") {
				t.Errorf("the error does not name the file: %v", err)
			}
		})
	}
}

// TestCatalogOverride: a profile can take a catalog endpoint and change a
// figure, whose source becomes the profile's line.
func TestCatalogOverride(t *testing.T) {
	text := strings.Replace(smallProfile, "cloud:\n", "cloud:\n  - catalog: gpt-4o-mini\n    price: {input: 0.3, output: 1.2}\n", 1)
	p := loadProfile(t, text)
	e := p.Cloud[0]
	if e.Label != "gpt-4o-mini" || e.Price.Input != 0.3 || e.TokensPerS != 59 {
		t.Fatalf("%+v", e)
	}
	if e.Source("price.input") != "profile.yaml:17" || !strings.Contains(e.Source("tokens_per_s"), "community.openai.com") {
		t.Errorf("sources %v", e.Sources)
	}
}

// TestOneSided: a profile with only a device, or only cloud options, is
// advised without a break-even or a hybrid.
func TestOneSided(t *testing.T) {
	i := strings.Index(smallProfile, "cloud:\n")
	deviceOnly := strings.Replace(smallProfile[:i], "network:\n  rtt: {p50: 50 ms, p95: 200 ms}\n", "", 1)
	a := advise(t, loadProfile(t, deviceOnly))
	if len(a.Options) != 1 || a.Recommendation != RecommendDevice || a.Hybrid != nil || a.BreakEven.Against != "" || a.BreakEven.Note == "" {
		t.Errorf("device only: %d options, %s, hybrid %v, break-even %+v", len(a.Options), a.Recommendation, a.Hybrid, a.BreakEven)
	}
	j := strings.Index(smallProfile, "device:\n")
	cloudOnly := smallProfile[:j] + smallProfile[i:]
	a = advise(t, loadProfile(t, cloudOnly))
	if len(a.Options) != 2 || a.Recommendation != RecommendCloud || a.Hybrid != nil || a.BreakEven.Against != "" {
		t.Errorf("cloud only: %d options, %s, hybrid %v, break-even %+v", len(a.Options), a.Recommendation, a.Hybrid, a.BreakEven)
	}
	for _, r := range a.Reasons {
		if r.Answer == "" {
			t.Errorf("no answer to %s", r.Question)
		}
	}
}

func TestProfileSources(t *testing.T) {
	text := strings.Replace(smallProfile, "    tokens_per_s: 50\n", "    tokens_per_s: 50\n    sources: {price: \"my invoice, 2026-01\", speed: \"?\"}\n", 1)
	if _, err := LoadProfile("profile.yaml", []byte(text)); err == nil || !strings.Contains(err.Error(), "cloud.api.sources.speed: speed is not a figure") {
		t.Fatalf("error %v", err)
	}
	text = strings.Replace(text, `, speed: "?"`, "", 1)
	p := loadProfile(t, text)
	if p.Cloud[0].Source("price.output") != "my invoice, 2026-01" || p.Cloud[0].Source("ttft") != "profile.yaml:19" {
		t.Errorf("%v", p.Cloud[0].Sources)
	}
}
