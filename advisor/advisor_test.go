package advisor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

// TestFront: the front of hand-made points, by rising cost.
func TestFront(t *testing.T) {
	pts := []ParetoInput{
		{Cost: 100, Value: 10}, // 0: on the front (cheapest)
		{Cost: 150, Value: 9},  // 1: dominated by 0
		{Cost: 200, Value: 20}, // 2: on the front
		{Cost: 200, Value: 15}, // 3: dominated by 2 (same cost, slower)
		{Cost: 300, Value: 20}, // 4: dominated by 2 (dearer, as fast)
		{Cost: 400, Value: 30}, // 5: on the front
		{Cost: 100, Value: 10}, // 6: equal to 0: both on the front
		{Cost: 50, Value: 1},   // 7: on the front (cheapest of all)
	}
	got := Front(pts)
	want := []int{7, 0, 6, 2, 5}
	if !slices.Equal(got, want) {
		t.Errorf("Front = %v, want %v", got, want)
	}
	if f := Front(nil); len(f) != 0 {
		t.Errorf("Front(nil) = %v", f)
	}
	if f := Front([]ParetoInput{{Cost: 1, Value: 1}}); !slices.Equal(f, []int{0}) {
		t.Errorf("one point: %v", f)
	}
}

func TestDominates(t *testing.T) {
	a := map[string]float64{"memory.dram.bandwidth": 60e9, "memory.l3.size": 8 << 20, "peak.int8": 30e12}
	b := map[string]float64{"memory.dram.bandwidth": 51e9, "memory.l3.size": 8 << 20, "peak.int8": 30e12}
	c := map[string]float64{"memory.dram.bandwidth": 80e9, "memory.l3.size": 4 << 20, "peak.int8": 30e12}
	switch {
	case !Dominates(a, b):
		t.Error("more bandwidth, the rest equal, does not dominate")
	case Dominates(b, a):
		t.Error("less bandwidth dominates")
	case Dominates(a, a):
		t.Error("a chip dominates itself")
	case Dominates(c, b) || Dominates(b, c):
		t.Error("a trade-off dominates")
	}
	// A dtype one chip lacks counts as 0.
	d := map[string]float64{"memory.dram.bandwidth": 51e9, "memory.l3.size": 8 << 20, "peak.int8": 30e12, "peak.int4": 60e12}
	if !Dominates(d, b) || Dominates(b, d) {
		t.Error("an extra int4 peak does not dominate")
	}
}

// testEnv compiles against the keys of a result and seed-c's spec.
func testEnv(t *testing.T) (*Env, map[string]any) {
	t.Helper()
	chip, err := hw.LoadChip("seed-c", nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]units.Kind{}
	s := specTree(chip, kinds)
	return newEnv([]map[string]any{s}, kinds), s
}

func TestSpecTree(t *testing.T) {
	e, s := testEnv(t)
	for path, want := range map[string]float64{
		"memory.dram.bandwidth": 51e9,
		"memory.l3.size":        12 << 20,
		"units.npu.peak.int8":   30e12,
		"units.npu.clock":       1e9,
		"price_usd":             100,
	} {
		if v := number(s, path); v == nil || *v != want {
			t.Errorf("chip.%s = %v, want %v", path, v, want)
		}
	}
	if v, _ := lookup(s, "memory.dram.type"); v != "LPDDR5" {
		t.Errorf("chip.memory.dram.type = %v", v)
	}
	if _, ok := lookup(s, "sources"); ok {
		t.Error("the sources map is in the environment")
	}
	if k := e.Kind("chip.memory.dram.bandwidth"); k != units.KindByteRate {
		t.Errorf("kind of chip.memory.dram.bandwidth = %v", k)
	}
	for _, name := range []string{"decode.tokens_per_s", "ttft_s", "thermal.skin_peak_c", "chip.price_usd", "chip.units.npu.peak.int8", "memory.dram_bw_util", "decode"} {
		if !e.Known(name) {
			t.Errorf("%s is not a known name", name)
		}
	}
	if e.Known("provenance") || e.Known("fallbacks") {
		t.Error("lists are names")
	}
}

// TestCompileErrors: a misspelt metric names the close name, a syntax
// error says so with the column, a number where a condition is wanted says
// so; nothing panics.
func TestCompileErrors(t *testing.T) {
	e, _ := testEnv(t)
	for _, tc := range []struct {
		req, want string
	}{
		{"decode.token_per_s > 8", "did you mean decode.tokens_per_s"},
		{"ttft < 0.5", "ttft_s"},
		{"chip.memory.dram.bandwith > 5e10", "chip.memory.dram.bandwidth"},
		{"chip.prise_usd < 100", "chip.price_usd"},
		{"tokens_per_s > 3", "decode.tokens_per_s"},
		{"ttft_s < ", "syntax error at column"},
		{"ttft_s <<< 3", "syntax error"},
		{"(ttft_s < 3", "syntax error"},
		{"ttft_s + 1", "is a number, not a condition"},
		{"soc < 3", "mismatched types"},
		{"", "empty"},
	} {
		_, err := e.compileRequirement(tc.req)
		if err == nil {
			t.Errorf("%q compiles", tc.req)
			continue
		}
		var ie *spec.Error
		if !strings.Contains(err.Error(), tc.want) || !errors.As(err, &ie) || ie.Field != "require" {
			t.Errorf("%q: %v; want an input error in the requirement saying %q", tc.req, err, tc.want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: the message spans lines: %q", tc.req, err)
		}
	}
	if _, err := e.compileObjective("--minimize", "ttft_s < 3"); err == nil || !strings.Contains(err.Error(), "not a number") {
		t.Errorf("a condition as objective: %v", err)
	}
	for _, ok := range []string{
		"ttft_s < 0.5 && decode.tokens_per_s >= 8",
		"chip.units.npu.peak.int8 >= 20e12 and chip.memory.dram.bandwidth > 40e9",
		"chip.units['npu'].peak.int8 > 1",
		"let r = decode.tokens_per_s; r > 3 && r < 100",
		"max(ttft_s, 0.1) < 1",
		"soc == 'seed-c' || ttft_s < 0.1",
	} {
		if _, err := e.compileRequirement(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestReferences(t *testing.T) {
	e, _ := testEnv(t)
	r, err := e.compileRequirement("ttft_s < 0.5 && decode.tokens_per_s >= 8 && chip.units['npu'].peak.int8 > 1 && max(ttft_s, 1) > 0")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"chip.units.npu.peak.int8", "decode.tokens_per_s", "ttft_s"}
	if !slices.Equal(r.Refs, want) {
		t.Errorf("refs %v, want %v", r.Refs, want)
	}
	if len(r.Clauses) != 4 {
		t.Fatalf("%d clauses", len(r.Clauses))
	}
	if c := r.Clauses[1]; c.Op != ">=" || c.Key != "decode.tokens_per_s" || !slices.Equal(c.Refs, []string{"decode.tokens_per_s"}) {
		t.Errorf("clause 2: %+v", c)
	}
}

// TestChecks: margins per clause, a null metric fails with the reason, a
// chip the spec lacks a figure for fails saying so.
func TestChecks(t *testing.T) {
	e, s := testEnv(t)
	r := &sim.Result{SoC: "seed-c", TTFT: 0.2}
	r.Decode.TokensPerS = ptr(12)
	tree, err := resultTree(r)
	if err != nil {
		t.Fatal(err)
	}
	env := env(tree, s)
	req, err := e.compileRequirement("ttft_s < 0.5 && decode.tokens_per_s >= 15 && thermal.sustained_tokens_per_s >= 8")
	if err != nil {
		t.Fatal(err)
	}
	c := checkRequirement(req, env, "seed-c", "")
	if c.Pass || !strings.Contains(c.Reason, "requires thermal.sustained_tokens_per_s, which is null for seed-c") || !strings.Contains(c.Reason, "not modelled") {
		t.Errorf("check: %+v", c)
	}
	cl := c.Clauses
	if len(cl) != 3 {
		t.Fatalf("%d clauses", len(cl))
	}
	if !cl[0].Pass || cl[0].Margin == nil || fmt.Sprintf("%.3f", *cl[0].Margin) != "0.300" {
		t.Errorf("ttft clause: %+v", cl[0])
	}
	if cl[1].Pass || cl[1].Margin == nil || *cl[1].Margin != -3 {
		t.Errorf("decode clause: %+v", cl[1])
	}
	if cl[2].Pass || cl[2].Margin != nil || !strings.Contains(cl[2].Reason, "null") {
		t.Errorf("null clause: %+v", cl[2])
	}

	req, _ = e.compileRequirement("chip.units.gpu.peak.fp16 > 1")
	if req != nil {
		t.Fatal("chip.units.gpu is a name although no candidate has a GPU")
	}
	req, err = e.compileRequirement("8 <= decode.tokens_per_s")
	if err != nil {
		t.Fatal(err)
	}
	c = checkRequirement(req, env, "seed-c", "")
	if !c.Pass || c.Clauses[0].Margin == nil || *c.Clauses[0].Margin != 4 {
		t.Errorf("metric on the right: %+v", c.Clauses[0])
	}
}

func ptr(v float64) *float64 { return &v }

// TestRank: passing chips by the objective, ties to the dominating spec,
// then failing ones by failures; ranks from 1.
func TestRank(t *testing.T) {
	spec := func(bw float64) map[string]any {
		return map[string]any{"memory": map[string]any{"dram": map[string]any{"bandwidth": bw, "capacity": 8e9}}}
	}
	specs := []map[string]any{spec(50e9), spec(60e9), spec(70e9), spec(40e9), spec(90e9)}
	rows := []Row{
		{SoC: "a", Pass: true, Objective: ptr(10), index: 0},
		{SoC: "b", Pass: true, Objective: ptr(10), index: 1}, // ties with a, dominates it
		{SoC: "c", Pass: false, Failed: 1, Objective: ptr(30), index: 2},
		{SoC: "d", Pass: true, Objective: ptr(12), index: 3},
		{SoC: "e", Pass: false, Failed: 2, Objective: ptr(50), index: 4},
	}
	p := &Plan{req: Request{Maximize: true}}
	got := p.rank(rows, specs)
	var order []string
	for i, r := range got {
		order = append(order, r.SoC)
		if r.Rank != i+1 {
			t.Errorf("%s has rank %d at %d", r.SoC, r.Rank, i)
		}
	}
	if want := []string{"d", "b", "a", "c", "e"}; !slices.Equal(order, want) {
		t.Errorf("maximize: %v, want %v", order, want)
	}
	p.req.Maximize = false
	got = p.rank(rows, specs)
	order = order[:0]
	for _, r := range got {
		order = append(order, r.SoC)
	}
	if want := []string{"b", "a", "d", "c", "e"}; !slices.Equal(order, want) {
		t.Errorf("minimize: %v, want %v", order, want)
	}
}

// TestIsAssumed reads the provenance sources.
func TestIsAssumed(t *testing.T) {
	for src, want := range map[string]bool{
		"assumed":                          true,
		"assumed: a 12 GiB phone":          true,
		"derived: cores × clock (assumed)": true,
		"derived: data_rate × bus_width":   false,
		"--set":                            false,
		"calibrated:fit.yaml":              false,
		"Qualcomm spec list":               false,
	} {
		if IsAssumed(src) != want {
			t.Errorf("IsAssumed(%q) = %v", src, !want)
		}
	}
}

func TestParseWhatIf(t *testing.T) {
	for in, want := range map[string]WhatIf{
		"memory.dram.bandwidth=80GB/s":           {Set: "memory.dram.bandwidth=80GB/s"},
		" seed-c : units.npu.peak.int8 = 40TOPS": {Chip: "seed-c", Set: "units.npu.peak.int8=40TOPS"},
	} {
		got, err := ParseWhatIf(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"memory.dram.bandwidth", "=3", "x=", ":a=1", "seed-c:=1"} {
		if _, err := ParseWhatIf(bad); err == nil {
			t.Errorf("%q parses", bad)
		}
	}
}

// loader loads catalog chips with a small analytic workload.
func loader(t *testing.T, model string) Loader {
	t.Helper()
	return func(chip string, sets []string) (sim.Config, error) {
		var chipSets, modelSets []spec.Override
		for _, s := range sets {
			o, err := spec.ParseOverride(s)
			if err != nil {
				return sim.Config{}, err
			}
			if p, ok := strings.CutPrefix(o.Path, "model."); ok {
				o.Path = p
				modelSets = append(modelSets, o)
			} else {
				chipSets = append(chipSets, o)
			}
		}
		c, err := hw.LoadChip(chip, chipSets)
		if err != nil {
			return sim.Config{}, err
		}
		m, err := workloads.LoadModel(model, modelSets)
		if err != nil {
			return sim.Config{}, err
		}
		q, _ := workloads.ParseQuant("Q4_0")
		kv, _ := workloads.ParseKVFormat("F16")
		return sim.Config{Chip: c, Model: m, Quant: q, KV: kv, Prompt: 32, Gen: 4, Batch: 1, Fidelity: sim.Analytic, Seed: 1}, nil
	}
}

// TestAdvise: an end-to-end advice on the teaching chips: every chip ran
// and has a diagnosis with numbers and elasticities; the sensitivity
// reruns give the DRAM bandwidth's elasticity of a memory-bound decode
// near 1; the seq_efficiency (assumed on every seed chip) becomes a
// vendor question.
func TestAdvise(t *testing.T) {
	p, err := Prepare(Request{
		Candidates: []string{"seed-a", "seed-b", "seed-c"},
		Requires:   []string{"ttft_s < 10 && decode.tokens_per_s > 1"},
		Load:       loader(t, "seed-moe-3b"),
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Ranking) != 3 || a.Objective.Expr != DefaultObjective || !a.Objective.Maximize {
		t.Fatalf("advice: %+v", a)
	}
	for i, r := range a.Ranking {
		if !r.Pass || r.Objective == nil || r.Rank != i+1 {
			t.Errorf("%s: pass %v, objective %v, rank %d (%s)", r.SoC, r.Pass, r.Objective, r.Rank, r.Reason)
		}
		if i > 0 && *r.Objective > *a.Ranking[i-1].Objective {
			t.Errorf("%s ranks below a slower chip", r.SoC)
		}
		if !strings.Contains(r.Diagnosis, "DRAM at") || !strings.Contains(r.Diagnosis, "+20% DRAM bandwidth →") {
			t.Errorf("%s: diagnosis %q", r.SoC, r.Diagnosis)
		}
		var bw *Elasticity
		for k := range r.Sensitivity {
			if r.Sensitivity[k].Param == "memory.dram.bandwidth" {
				bw = &r.Sensitivity[k]
			}
		}
		if bw == nil || bw.Effect("decode.tokens_per_s") == nil || bw.Effect("decode.tokens_per_s").Elasticity == nil {
			t.Errorf("%s: no DRAM bandwidth elasticity: %+v", r.SoC, r.Sensitivity)
		} else if e := *bw.Effect("decode.tokens_per_s").Elasticity; e < 0.3 || e > 1.1 {
			t.Errorf("%s: elasticity of decode tokens/s to DRAM bandwidth %.2f", r.SoC, e)
		}
	}
	found := false
	for _, q := range a.VendorQuestions {
		if q.Param == "memory.dram.seq_efficiency" && strings.Contains(q.Measurement, "STREAM") {
			found = len(q.Chips) == 3
		}
	}
	if !found {
		t.Errorf("no vendor question on the DRAM's sequential efficiency for all three chips: %+v", a.VendorQuestions)
	}
}

// TestParetoFrontOfThePassing: the price/throughput front is drawn through
// the chips a buyer can choose. A cheap fast chip that fails a requirement
// would dominate the others; it stays on the plane (a cross in the
// figure) but off the front, and the passing chip it would have hidden is
// on it. Before, the front ran through the failing chip.
func TestParetoFrontOfThePassing(t *testing.T) {
	row := func(soc string, price, rate float64, pass bool) Row {
		return Row{SoC: soc, PriceUSD: price, Pass: pass, Result: &sim.Result{},
			env: map[string]any{"decode": map[string]any{"tokens_per_s": rate}}}
	}
	p := pareto([]Row{
		row("cheap-fast-fails", 100, 30, false),
		row("mid", 150, 20, true),
		row("dear-faster", 300, 40, true),
		row("dear-slow", 300, 10, true),
	})
	on := map[string]bool{}
	for _, pt := range p.Points {
		on[pt.SoC] = pt.OnFront
	}
	want := map[string]bool{"cheap-fast-fails": false, "mid": true, "dear-faster": true, "dear-slow": false}
	if !maps.Equal(on, want) || len(p.Points) != 4 {
		t.Errorf("on the front: %v, want %v (every chip on the plane)", on, want)
	}
}
