package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/advisor"
	"github.com/edgetwin/edgetwin/hw/units"
)

// phoneAdvice is hand-made advice on three chips, one of which cannot hold
// the model, so that the goldens move only when the writers do.
func phoneAdvice() *advisor.Advice {
	res := func(soc string, ttft, decode float64) advisor.Row {
		r := compareResult(soc, ttft, 1000, decode, 1000/decode, 1.1, 45, 0.68, 0.99)
		return advisor.Row{SoC: soc, Name: soc, Result: r}
	}
	a := &advisor.Advice{
		Model: "llama-3.2-3b", Quant: "Q4_0", KVDtype: "F16", Fidelity: "tile", Prompt: 512, Gen: 128, Batch: 1,
		Objective: advisor.Objective{Expr: "chip.price_usd"},
		Requirements: []advisor.RequirementText{
			{Expr: "ttft_s < 0.5 && decode.tokens_per_s >= 8", Clauses: []string{"ttft_s < 0.5", "decode.tokens_per_s >= 8"}},
			{Expr: "thermal.skin_peak_c < 45", Clauses: []string{"thermal.skin_peak_c < 45"}},
		},
		Kinds: map[string]units.Kind{"chip.memory.dram.bandwidth": units.KindByteRate},
	}
	nullSkin := "requires thermal.skin_peak_c, which is null for %s: not modelled (the thermal model gives no figure for this run)"
	check := func(soc string, ttftMargin, decodeMargin float64) []advisor.Check {
		return []advisor.Check{
			{Requirement: a.Requirements[0].Expr, Pass: ttftMargin > 0 && decodeMargin >= 0, Clauses: []advisor.ClauseCheck{
				{Expr: "ttft_s < 0.5", Pass: ttftMargin > 0, Margin: ptrTo(ttftMargin), Key: "ttft_s"},
				{Expr: "decode.tokens_per_s >= 8", Pass: decodeMargin >= 0, Margin: ptrTo(decodeMargin), Key: "decode.tokens_per_s"},
			}},
			{Requirement: a.Requirements[1].Expr, Reason: strings.ReplaceAll(nullSkin, "%s", soc), Clauses: []advisor.ClauseCheck{
				{Expr: "thermal.skin_peak_c < 45", Reason: strings.ReplaceAll(nullSkin, "%s", soc)},
			}},
		}
	}
	sens := func(bw, seq, peakDecode, peakTTFT float64) []advisor.Elasticity {
		return []advisor.Elasticity{
			{Param: "memory.dram.bandwidth", Label: "DRAM bandwidth", Value: 51e9, Kind: units.KindByteRate, Step: 0.2, Source: "datasheet",
				Effects: []advisor.Effect{{Metric: "decode.tokens_per_s", Elasticity: ptrTo(bw), Change: ptrTo(bw * 0.2)}, {Metric: "ttft_s", Elasticity: ptrTo(-0.1)}}},
			{Param: "memory.dram.seq_efficiency", Label: "DRAM sequential efficiency", Value: 0.7, Kind: units.KindFraction, Step: 0.1, Source: "assumed", Assumed: true,
				Effects: []advisor.Effect{{Metric: "decode.tokens_per_s", Elasticity: ptrTo(seq)}, {Metric: "ttft_s", Elasticity: ptrTo(-0.12)}}},
			{Param: "units.npu.peak.int8", Label: "npu int8 peak", Value: 30e12, Kind: units.KindOpRate, Step: 1, Source: "assumed: nominal", Assumed: true,
				Effects: []advisor.Effect{{Metric: "decode.tokens_per_s", Elasticity: ptrTo(peakDecode)}, {Metric: "ttft_s", Elasticity: ptrTo(peakTTFT)}}},
			{Param: "dma.setup", Label: "DMA set-up", Err: "memory.l3.size: not a whole number of sets"},
		}
	}

	c := res("seed-c", 0.17, 17.7)
	c.Result.Runtime = "none"
	c.Rank, c.Pass, c.PriceUSD, c.Objective = 1, true, 100, ptrTo(100)
	c.Checks = check("seed-c", 0.33, 9.7)
	c.Checks[1] = advisor.Check{Requirement: "thermal.skin_peak_c < 45", Pass: true, Clauses: []advisor.ClauseCheck{
		{Expr: "thermal.skin_peak_c < 45", Pass: true, Margin: ptrTo(19.1), Key: "thermal.skin_peak_c"}}}
	c.Diagnosis = "decode memory-bound, prefill compute-bound: memory stall 77%, compute 20% of the time; DRAM at 68% of peak, MAC array idle 98%; +20% DRAM bandwidth → +19% decode tokens/s, 2× int8 peak → ±0% (TTFT −25%)"
	c.Sensitivity = sens(0.97, 0.98, 0, -0.34)

	g := res("snapdragon-8-gen3", 0.12, 26.7)
	g.Result.Runtime, g.Result.RuntimeMeasured = "llama.cpp-opencl", true
	g.Rank, g.PriceUSD, g.Objective, g.Failed = 2, 200, ptrTo(200), 1
	g.Checks = check("snapdragon-8-gen3", 0.38, 18.7)
	g.Reason = g.Checks[1].Requirement + ": " + g.Checks[1].Reason
	g.Diagnosis = "decode memory-bound: memory stall 79%, compute 16%, dispatch 5% of the time; DRAM at 68% of peak, MAC array idle 98%; +20% DRAM bandwidth → +20% decode tokens/s, 2× int8 peak → +0.3%"
	g.Sensitivity = sens(0.98, 0.98, 0.003, -0.30)

	small := advisor.Row{Rank: 3, SoC: "chips/small.yaml", Name: "Small chip", PriceUSD: 25, Objective: ptrTo(25), Failed: 2,
		Err:    "llama-3.2-3b Q4_0 on chips/small.yaml does not fit: needs 1.98 GB (weights 1.91 GB + KV cache 70 MiB), has 1 GiB",
		Reason: "llama-3.2-3b Q4_0 on chips/small.yaml does not fit: needs 1.98 GB (weights 1.91 GB + KV cache 70 MiB), has 1 GiB"}
	small.Diagnosis = "cannot run: " + small.Err
	small.Checks = []advisor.Check{
		{Requirement: a.Requirements[0].Expr, Reason: "requires decode.tokens_per_s, which is null for chips/small.yaml: the chip did not run", Clauses: []advisor.ClauseCheck{
			{Expr: "ttft_s < 0.5", Reason: "requires ttft_s, which is null for chips/small.yaml: the chip did not run"},
			{Expr: "decode.tokens_per_s >= 8", Reason: "requires decode.tokens_per_s, which is null for chips/small.yaml: the chip did not run"},
		}},
		{Requirement: a.Requirements[1].Expr, Reason: "requires thermal.skin_peak_c, which is null for chips/small.yaml: the chip did not run", Clauses: []advisor.ClauseCheck{
			{Expr: "thermal.skin_peak_c < 45", Reason: "requires thermal.skin_peak_c, which is null for chips/small.yaml: the chip did not run"},
		}},
	}
	a.Ranking = []advisor.Row{c, g, small}
	a.Pareto = advisor.Pareto{
		CostKey: "chip.price_usd", ValueKey: "decode.tokens_per_s",
		Note: "decode tokens/s, as the runs give no sustained rate; that needs a run of 2 minutes or more",
		Points: []advisor.ParetoPoint{
			{SoC: "seed-c", Cost: 100, Value: 17.7, Pass: true, OnFront: true},
			{SoC: "seed-a", Cost: 100, Value: 15.2, Pass: true},
			{SoC: "snapdragon-8-gen3", Cost: 200, Value: 26.7, OnFront: true},
		},
		Left: []string{"chips/small.yaml (did not run)"},
	}
	a.VendorQuestions = []advisor.Question{
		{Question: "What fraction of the DRAM peak does a long sequential read reach?",
			Measurement: "sustained sequential read bandwidth (STREAM-like) from the NPU's DMA", Param: "memory.dram.seq_efficiency",
			Chips: []advisor.QuestionChip{
				{SoC: "seed-c", Path: "memory.dram.seq_efficiency", Value: "70%", Source: "assumed", Metric: "decode.tokens_per_s", Elasticity: 0.98},
				{SoC: "snapdragon-8-gen3", Path: "memory.dram.seq_efficiency", Value: "70%", Source: "assumed", Metric: "decode.tokens_per_s", Elasticity: 0.97},
			}},
		{Question: "What INT8 throughput does the NPU sustain?",
			Measurement: "sustained INT8 TOPS on a 4096×4096 GEMM at nominal clock", Param: "units.*.peak.int8",
			Chips: []advisor.QuestionChip{
				{SoC: "seed-c", Path: "units.npu.peak.int8", Value: "30 TOPS", Source: "assumed: nominal", Metric: "ttft_s", Elasticity: -0.34},
			}},
	}
	w := c
	w.Rank, w.BaselineRank, w.ObjectiveChange = 1, 1, ptrTo(0)
	a.WhatIf = &advisor.WhatIfAdvice{Sets: []string{"memory.dram.seq_efficiency=0.8"}, Ranking: []advisor.Row{w}}
	return a
}

func TestAdviceTableGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteAdvice(&b, phoneAdvice(), Table); err != nil {
		t.Fatal(err)
	}
	golden(t, "advise-phone.table", b.Bytes())
	if bytes.Contains(b.Bytes(), []byte(" \n")) {
		t.Error("trailing spaces")
	}
}

// TestAdviceJSON: the contract's keys; a chip that did not run has the
// result's keys with nulls and its error as metrics.
func TestAdviceJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteAdvice(&b, phoneAdvice(), JSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Ranking []struct {
			SoC       string         `json:"soc"`
			Pass      *bool          `json:"pass"`
			Objective *float64       `json:"objective"`
			Diagnosis *string        `json:"diagnosis"`
			Metrics   map[string]any `json:"metrics"`
		} `json:"ranking"`
		VendorQuestions []map[string]any `json:"vendor_questions"`
		Pareto          map[string]any   `json:"pareto"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Ranking) != 3 || len(doc.VendorQuestions) != 2 || doc.Pareto == nil {
		t.Fatalf("%s", b.Bytes())
	}
	for _, r := range doc.Ranking {
		if r.Pass == nil || r.Diagnosis == nil || r.Metrics == nil || r.Objective == nil {
			t.Errorf("%s lacks a key", r.SoC)
		}
	}
	if doc.Ranking[0].SoC != "seed-c" || !*doc.Ranking[0].Pass || doc.Ranking[0].Metrics["soc"] != "seed-c" {
		t.Errorf("first row: %+v", doc.Ranking[0])
	}
	small := doc.Ranking[2]
	if *small.Pass || small.Metrics["soc"] != "chips/small.yaml" || small.Metrics["ttft_s"] != nil ||
		!strings.Contains(small.Metrics["error"].(string), "does not fit") || small.Metrics["model"] != "llama-2-7b" {
		t.Errorf("the chip that did not run: %v", small.Metrics)
	}
	if err := WriteAdvice(&b, phoneAdvice(), CSV); err == nil {
		t.Error("advice as CSV")
	}
}

// TestParetoPlot: the data (golden CSV) and the figure, every chip
// labelled, written atomically.
func TestParetoPlot(t *testing.T) {
	d := ParetoPlotData(phoneAdvice())
	var b bytes.Buffer
	if err := d.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "advise-pareto.csv", b.Bytes())
	dir := t.TempDir()
	for _, name := range []string{"front.svg", "front.png"} {
		path := filepath.Join(dir, name)
		if err := d.Save(path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) == 0 {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "front.svg" {
			for _, want := range []string{"seed-c", "seed-a", "snapdragon-8-gen3", "price (USD)", "decode (tokens/s)", "Pareto front"} {
				if !bytes.Contains(data, []byte(want)) {
					t.Errorf("the figure lacks %q", want)
				}
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files: a temporary file stayed", len(entries))
	}
	// An empty plane still draws.
	if err := (ParetoPlot{Title: "empty"}).Save(filepath.Join(dir, "empty.svg")); err != nil {
		t.Error(err)
	}
}
