package advisor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

// sustainedLoader loads chips as loader does, running the sustained
// scenario for five minutes with extra --set overrides of its own. Two
// minutes (the shortest run with a sustained rate) is too short since the
// governor settles on a plateau: the skin trip then alternates between two
// adjacent NPU OPPs at the skin's pace, and which of them the last minute of
// a 2-minute run falls in does not depend on the heat the phone sheds.
func sustainedLoader(t *testing.T, own ...string) Loader {
	base := loader(t, "seed-moe-3b")
	return func(chip string, sets []string) (sim.Config, error) {
		c, err := base(chip, append(slices.Clone(own), sets...))
		if err != nil {
			return c, err
		}
		if c.Scenario, err = workloads.LoadScenario("sustained", nil); err != nil {
			return c, err
		}
		c.Duration, c.Unit = 300, "npu"
		return c, nil
	}
}

// TestThermalVendorQuestion: seed-c has no thermal network of its own, so
// it takes the default phone's, every figure assumed, and its skin
// controller. With its NPU slowed to a few TOPS (so that decode is
// compute-bound and a lower clock slows it) and drawing 6 W while busy (so
// that the skin limit throttles it within the five minutes), both set, a
// requirement on the sustained rate hinges on the skin limit's headroom
// over ambient: +20% of it gives the sustained rate a material elasticity
// (0.86: 14.2 → 16.6 tokens/s, as the controller holds the skin at its
// limit and the power the phone sheds grows with the headroom), and the
// thermal vendor question fires. The skin's resistance to ambient matters
// less within five minutes (−0.07: the board and the skin's own mass still
// take much of the heat), but a higher one never speeds the phone up. The
// peak, set and not assumed, gets no question.
func TestThermalVendorQuestion(t *testing.T) {
	if testing.Short() {
		t.Skip("five-minute sustained runs")
	}
	hot := []string{"units.npu.active_power=6W", "units.npu.peak.int4=2TOPS", "units.npu.peak.int8=1TOPS", "units.npu.peak.fp16=0.5TFLOPS"}
	advise := func(t *testing.T, own ...string) *Advice {
		return adviseFor(t, Request{
			Candidates: []string{"seed-c"},
			Requires:   []string{"thermal.sustained_tokens_per_s >= 10"},
			Load:       sustainedLoader(t, own...),
		})
	}
	// The question that asks about param, alone or with others (the
	// board's and the skin's resistances share one).
	question := func(a *Advice, param string) *Question {
		for i, q := range a.VendorQuestions {
			if q.Param == param || slices.ContainsFunc(q.Chips, func(c QuestionChip) bool { return c.Path == param }) {
				return &a.VendorQuestions[i]
			}
		}
		return nil
	}

	a := advise(t, hot...)
	r := a.Ranking[0]
	if r.Result == nil || r.Result.Thermal.ThrottleOnsetS == nil || r.Result.Thermal.SustainedTokensPerS == nil {
		t.Fatalf("seed-c at 6 W should throttle and give a sustained rate: %+v", r.Result.Thermal)
	}
	find := func(param string) *Elasticity {
		for k, e := range r.Sensitivity {
			if e.Param == param {
				return &r.Sensitivity[k]
			}
		}
		return nil
	}
	limit := find("governor.skin.limit")
	if limit == nil || !limit.Assumed {
		t.Fatalf("no assumed skin limit among the parameters: %+v", r.Sensitivity)
	}
	if ef := limit.Effect("thermal.sustained_tokens_per_s"); ef == nil || ef.Elasticity == nil || *ef.Elasticity < MaterialElasticity {
		t.Fatalf("elasticity of the sustained rate to the skin limit's headroom: %s", effectText(ef))
	}
	q := question(a, "governor.skin.limit")
	if q == nil || !strings.Contains(q.Measurement, "skin and junction temperatures and the NPU clock over 5 minutes of decode at 25 °C ambient") {
		t.Fatalf("no vendor question on the skin limit: %+v", a.VendorQuestions)
	}
	if i := slices.IndexFunc(q.Chips, func(c QuestionChip) bool { return c.Path == "governor.skin.limit" }); q.Chips[i].Metric != "thermal.sustained_tokens_per_s" {
		t.Errorf("the question's metric is %s, want the sustained rate", q.Chips[i].Metric)
	}
	skin := find("thermal.nodes.skin.to_ambient")
	if skin == nil || !skin.Assumed {
		t.Fatalf("no assumed skin resistance among the parameters: %+v", r.Sensitivity)
	}
	if ef := skin.Effect("thermal.sustained_tokens_per_s"); ef == nil || ef.Elasticity == nil || *ef.Elasticity >= 0 {
		t.Errorf("a skin that sheds heat worse gives the sustained rate %s; want it lower", effectText(ef))
	}

	// The NPU's peak is set, not assumed: however much it matters, no
	// question asks about it.
	if q := question(a, "units.*.peak.int8"); q != nil {
		t.Errorf("a peak given on the command line is asked about: %+v", q)
	}
}

// TestNoThermalParametersWhenCool: a short prompt does not pay for
// thermal reruns, whether or not its requirements read a thermal metric:
// a few seconds warm nothing a thermal figure would change.
func TestNoThermalParametersWhenCool(t *testing.T) {
	for _, require := range []string{"decode.tokens_per_s > 1", "thermal.skin_peak_c < 45"} {
		a := adviseFor(t, Request{
			Candidates: []string{"seed-c"},
			Requires:   []string{require},
			Load:       loader(t, "seed-moe-3b"),
		})
		for _, e := range a.Ranking[0].Sensitivity {
			if strings.HasPrefix(e.Param, "thermal.") || strings.HasPrefix(e.Param, "governor.") || strings.HasSuffix(e.Param, ".active_power") {
				t.Errorf("--require %q: thermal parameter %s rerun for a cool single prompt", require, e.Param)
			}
		}
	}
}

// effectText prints an effect's figures, not their pointers.
func effectText(e *Effect) string {
	if e == nil {
		return "none"
	}
	f := func(v *float64) string {
		if v == nil {
			return "null"
		}
		return strconv.FormatFloat(*v, 'g', 4, 64)
	}
	return fmt.Sprintf("%s: %s → %s (elasticity %s)", e.Metric, f(e.Base), f(e.New), f(e.Elasticity))
}

// TestSensitivityKeepsTheDRAMConsistent: the DRAM-bandwidth rerun of a
// chip that gives its data rate scales the rate with it, so the rerun is
// not refused for contradicting data_rate × bus_width (it was, on every
// Snapdragon of the catalog); a chip without a data rate is left as it is.
func TestSensitivityKeepsTheDRAMConsistent(t *testing.T) {
	a := adviseFor(t, Request{Candidates: []string{"snapdragon-8-elite", "rk3588"}, Load: loader(t, "llama-3.2-1b")})
	for _, r := range a.Ranking {
		found := false
		for _, e := range r.Sensitivity {
			if e.Param != "memory.dram.bandwidth" {
				continue
			}
			found = true
			if e.Err != "" {
				t.Errorf("%s: the DRAM-bandwidth rerun failed: %s", r.SoC, e.Err)
			} else if ef := e.Effect("decode.tokens_per_s"); ef == nil || ef.Elasticity == nil || *ef.Elasticity <= 0 {
				t.Errorf("%s: more DRAM bandwidth gives decode %s", r.SoC, effectText(ef))
			}
		}
		if !found {
			t.Errorf("%s: no DRAM-bandwidth rerun", r.SoC)
		}
	}
}
