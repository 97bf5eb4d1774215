package reports

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/sweep"

	"github.com/edgetwin/edgetwin/hw/units"
)

func f64(v float64) *float64 { return &v }

// kvSweep is a hand-made sweep in the shape `sweep --vary kv=... --vary
// memory.l3.size=...` gives, so the writers' goldens do not move when the
// simulator does. ctx is kv / 49152 B (seed-moe-3b's F16 KV bytes per
// token: 2 × 24 layers × 4 KV heads × 128 × 2 B), rounded. The last point
// did not fit and one point lacks a figure, as a run can.
func kvSweep() *sweep.Result {
	const MiB = 1 << 20
	s := &sweep.Result{
		SoC: "seed-c", Model: "seed-moe-3b", Quant: "Q4_0",
		Fields: []sweep.Field{
			{Name: "kv", Label: "KV cache", Kind: units.KindBytes},
			{Name: "ctx", Label: "context (tokens)", Derived: true},
			{Name: "memory.l3.size", Label: "memory.l3.size", Kind: units.KindBytes},
		},
		Metrics: []string{"memory.kv_l3_miss_rate", "decode.tokens_per_s", "thermal.peak_c"},
	}
	type row struct {
		kv, ctx, l3 float64
		miss, tps   float64
		peak        *float64
		err         string
	}
	for _, r := range []row{
		{1 * MiB, 21, 6 * MiB, 0.05, 84.2, f64(41.5), ""},
		{1 * MiB, 21, 12 * MiB, 0.01, 84.3, nil, ""},
		{4 * MiB, 85, 6 * MiB, 0.62, 83.1, f64(41.75), ""},
		{4 * MiB, 85, 12 * MiB, 0.12, 84.0, f64(41.6), ""},
		{16 * MiB, 341, 6 * MiB, 0.97, 80.9, f64(42), ""},
		{16 * MiB, 341, 12 * MiB, 0, 0, nil, "seed-moe-3b Q4_0 on seed-c does not fit: needs 13 GB, has 12 GiB"},
	} {
		p := sweep.Point{Values: []float64{r.kv, r.ctx, r.l3}, Err: r.err}
		if r.err == "" {
			p.Metrics = []*float64{f64(r.miss), f64(r.tps), r.peak}
		} else {
			p.Metrics = make([]*float64, 3)
		}
		s.Points = append(s.Points, p)
	}
	return s
}

func TestSweepGolden(t *testing.T) {
	for _, f := range []Format{Table, JSON, CSV} {
		var b bytes.Buffer
		if err := WriteSweep(&b, kvSweep(), f); err != nil {
			t.Fatal(err)
		}
		golden(t, "sweep-kv-l3."+string(f), b.Bytes())
	}
}

// TestSweepJSONOrder: the JSON is an array of objects whose keys come in
// column order, with numbers in SI base units and null for no figure.
func TestSweepJSONOrder(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSweep(&b, kvSweep(), JSON); err != nil {
		t.Fatal(err)
	}
	var points []map[string]any
	if err := json.Unmarshal(b.Bytes(), &points); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.Bytes())
	}
	if len(points) != 6 {
		t.Fatalf("%d points, want 6", len(points))
	}
	if got := points[0]["kv"]; got != float64(1<<20) {
		t.Errorf("kv = %v, want 1048576 bytes", got)
	}
	if got, ok := points[1]["thermal.peak_c"]; !ok || got != nil {
		t.Errorf("a missing figure is %v (present %v), want null", got, ok)
	}
	if _, ok := points[0]["error"]; ok {
		t.Error("a point that ran has an error key")
	}
	if !strings.Contains(points[5]["error"].(string), "does not fit") {
		t.Errorf("failed point: %v", points[5])
	}
	first := b.String()[:strings.Index(b.String(), "}")]
	order := []string{`"kv"`, `"ctx"`, `"memory.l3.size"`, `"memory.kv_l3_miss_rate"`, `"decode.tokens_per_s"`, `"thermal.peak_c"`}
	at := -1
	for _, k := range order {
		i := strings.Index(first, k)
		if i < at {
			t.Errorf("key %s out of order in %s", k, first)
		}
		at = i
	}
}

func TestMetricKeys(t *testing.T) {
	keys := MetricKeys()
	for _, want := range []string{"decode.tokens_per_s", "memory.kv_l3_miss_rate", "memory.l3_miss_rate", "ttft_s", "thermal.throttle_onset_s"} {
		if !slices.Contains(keys, want) {
			t.Errorf("MetricKeys lacks %s", want)
		}
	}
	for _, text := range []string{"soc", "model", "compute.dtype", "provenance", "warnings"} {
		if slices.Contains(keys, text) {
			t.Errorf("MetricKeys has %s, which is not a number", text)
		}
	}
}

func TestCheckMetrics(t *testing.T) {
	if err := CheckMetrics([]string{"memory.kv_l3_miss_rate", "decode.tokens_per_s"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		names []string
		want  []string
	}{
		// A key without its section: the full key comes first.
		{[]string{"kv_l3_miss_rate"}, []string{"metrics kv_l3_miss_rate", "closest: memory.kv_l3_miss_rate"}},
		// A typo: the nearest keys by edit distance.
		{[]string{"decode.token_per_s"}, []string{"closest: decode.tokens_per_s"}},
		{[]string{"soc"}, []string{"metrics soc is not a numeric key"}},
		{[]string{"ttft_s", "ttft_s"}, []string{"ttft_s twice"}},
		{[]string{""}, []string{"empty name"}},
	} {
		err := CheckMetrics(tc.names)
		if err == nil {
			t.Errorf("%q: no error", tc.names)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %q lacks %q", tc.names, err, w)
			}
		}
	}
}

// TestMetricKeysHoldOptionalBlocks: the figures of an optional block
// (speculative decoding's, a schedule's) are metrics a sweep may ask for;
// its lists are not.
func TestMetricKeysHoldOptionalBlocks(t *testing.T) {
	keys := MetricKeys()
	for _, k := range []string{"speculative.speedup", "speculative.break_even_accept_rate", "schedule.turns_within_budget", "quality.ppl_delta"} {
		if !slices.Contains(keys, k) {
			t.Errorf("MetricKeys lacks %s", k)
		}
	}
	for _, k := range keys {
		if strings.HasPrefix(k, "speculative.curve") || strings.HasPrefix(k, "turns.") {
			t.Errorf("MetricKeys holds the list entry %s", k)
		}
	}
}
