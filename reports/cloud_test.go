package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/cloud"
	"github.com/edgetwin/edgetwin/sim"
)

// fixedRuns stands in for the simulator, so that the goldens move only
// when the advisor or the writers do: a prefill of 4000 tokens/s on the
// newer chip and 2500 on the older, 26 and 22 decode tokens/s, 2 mJ per
// prompt token and 90 mJ per generated one.
func fixedRuns(_ context.Context, cfg sim.Config) (*sim.Result, error) {
	prefill, decode := 4000.0, 26.0
	if cfg.Chip.ID != "snapdragon-8-gen3" {
		prefill, decode = 2500, 22
	}
	r := &sim.Result{SoC: cfg.Chip.ID, Prompt: cfg.Prompt, Gen: cfg.Gen}
	r.TTFT = 0.02 + float64(cfg.Prompt)/prefill
	r.Decode.TokensPerS = &decode
	r.Energy.TotalJ = 0.002*float64(cfg.Prompt) + 0.09*float64(cfg.Gen)
	r.Memory.WeightsBytes = cfg.Model.WeightBytes(cfg.Quant)
	return r, nil
}

func offlineAssistantAdvice(t *testing.T) *cloud.Advice {
	t.Helper()
	file := filepath.Join("testdata", "cloud-offline-assistant.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cloud.LoadProfile(file, data)
	if err != nil {
		t.Fatal(err)
	}
	a, err := cloud.AdviseWith(context.Background(), p, 0, fixedRuns)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestCloudGolden: the table and the JSON of the offline assistant.
func TestCloudGolden(t *testing.T) {
	a := offlineAssistantAdvice(t)
	for _, f := range []Format{Table, JSON} {
		var b bytes.Buffer
		if err := WriteCloudAdvice(&b, a, f); err != nil {
			t.Fatal(err)
		}
		golden(t, "cloud-offline-assistant."+string(f), b.Bytes())
	}
	if err := WriteCloudAdvice(&bytes.Buffer{}, a, CSV); err == nil {
		t.Error("CSV accepted")
	}
}

// TestCloudJSONContract: the keys CONTRACT.md promises.
func TestCloudJSONContract(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCloudAdvice(&b, offlineAssistantAdvice(t), JSON); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"options", "break_even", "recommendation", "reasons"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("no %s", k)
		}
	}
	if doc["recommendation"] != "device" {
		t.Errorf("recommendation %v", doc["recommendation"])
	}
	for _, o := range doc["options"].([]any) {
		m := o.(map[string]any)
		for _, k := range []string{"name", "ttft_p50_s", "ttft_p95_s", "monthly_cost_usd", "privacy_ok", "offline_ok"} {
			if _, ok := m[k]; !ok {
				t.Errorf("option %v has no %s", m["name"], k)
			}
		}
	}
}

func TestCollapseSources(t *testing.T) {
	got := collapseSources(map[string]string{
		"price.input": "a", "price.output": "a", "throughput.prefill": "b", "throughput.decode": "c", "ttft": "d",
	})
	var keys []string
	for _, kv := range got {
		keys = append(keys, kv[0])
	}
	if strings.Join(keys, " ") != "price throughput.decode throughput.prefill ttft" {
		t.Errorf("%v", got)
	}
}
