package sim

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/workloads"
)

// TestKeyKind: each suffix of the key space reads as its dimension.
func TestKeyKind(t *testing.T) {
	for key, want := range map[string]units.Kind{
		"memory.dram_bytes":               units.KindBytes,
		"memory.dram_peak_bytes_per_s":    units.KindByteRate,
		"decode.tokens_per_s":             0,
		"ttft_s":                          units.KindDuration,
		"prefill.seconds":                 units.KindDuration,
		"energy.joules_per_token":         units.KindEnergy,
		"energy.avg_power_w":              units.KindPower,
		"energy.total_j":                  units.KindEnergy,
		"thermal.peak_c":                  units.KindTemperature,
		"memory.kv_l3_miss_rate":          units.KindFraction,
		"memory.l3_miss_rate_by_class.kv": units.KindFraction,
		"compute.mac_util":                units.KindFraction,
		"compute.stall_mem":               units.KindFraction,
		"speculative.accept_rate":         units.KindFraction,
		"decode.ms_per_token.p50":         0,
		"thermal.sustained_tokens_per_s":  0,
	} {
		if got := KeyKind(key); got != want {
			t.Errorf("KeyKind(%s) = %v, want %v", key, got, want)
		}
	}
}

// TestMetricIsTheJSONs: every number of a result's JSON — a dense run, an
// MoE run, a session with its thermal figures, a speculative run — reads
// the same through Metric; every null reads nil; a key the JSON does not
// have is an error.
func TestMetricIsTheJSONs(t *testing.T) {
	sc, err := workloads.LoadScenario("sustained", nil)
	if err != nil {
		t.Fatal(err)
	}
	session := configFor(t, opts{chip: "seed-c", model: "llama-3.2-1b", fidelity: Analytic})
	session.Scenario, session.Duration = sc, 130
	runs := []*Result{
		simulate(t, opts{chip: "snapdragon-8-gen3", model: "llama-3.2-1b", prompt: 32, gen: 8, fidelity: Analytic}),
		simulate(t, opts{chip: "seed-c", model: "seed-moe-3b", prompt: 32, gen: 8}),
	}
	r, err := Run(context.Background(), session)
	if err != nil {
		t.Fatal(err)
	}
	runs = append(runs, r)
	for _, r := range runs {
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		n := 0
		var walk func(prefix string, v any)
		walk = func(prefix string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					key := k
					if prefix != "" {
						key = prefix + "." + k
					}
					walk(key, e)
				}
			case float64:
				n++
				if got, err := r.Metric(prefix); err != nil || got == nil || *got != x {
					t.Errorf("%s: Metric gives %v, %v; the JSON %v", prefix, got, err, x)
				}
			case nil:
				if got, err := r.Metric(prefix); err != nil || got != nil {
					t.Errorf("%s: Metric gives %v, %v; the JSON null", prefix, got, err)
				}
			}
		}
		walk("", doc)
		if n < 80 {
			t.Errorf("%s: only %d numbers compared", r.SoC, n)
		}
	}
	for _, key := range []string{"decode.no_such", "speculative.speedup", "soc", "units.0.mac_util", "nope"} {
		if v, err := runs[0].Metric(key); err == nil {
			t.Errorf("%s: %v, want an error", key, v)
		}
	}
}

// TestKeyLabel: keys read as an architect titles a column.
func TestKeyLabel(t *testing.T) {
	for key, want := range map[string]string{
		"memory.decode.kv_l3_miss_rate":  "KV L3 miss rate, decode",
		"memory.l3_miss_rate":            "L3 miss rate",
		"decode.tokens_per_s":            "decode tokens/s",
		"prefill.tokens_per_s":           "prefill tokens/s",
		"ttft_s":                         "TTFT",
		"memory.dram_bw_util":            "DRAM bandwidth utilisation",
		"compute.tops_eff":               "TOPS effective",
		"compute.mac_util":               "MAC utilisation",
		"thermal.sustained_tokens_per_s": "sustained tokens/s",
		"thermal.skin_peak_c":            "skin peak temperature",
		"thermal.peak_c":                 "peak temperature",
		"energy.joules_per_token":        "joules/token",
		"memory.dram_bytes":              "DRAM bytes",
		"decode.ms_per_token.p99":        "decode ms/token p99",
	} {
		if got := KeyLabel(key); got != want {
			t.Errorf("KeyLabel(%s) = %q, want %q", key, got, want)
		}
	}
}
