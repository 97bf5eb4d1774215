package sim

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/cache"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/workloads"
)

// runWith simulates with an explicit policy (a built-in id or YAML text).
func runWith(t *testing.T, o opts, policy string, fidelity Fidelity) *Result {
	t.Helper()
	return simulateWith(t, o, policy, fidelity, Shortcuts{})
}

// runExact is runWith at tile fidelity with the shortcuts exact names off.
func runExact(t *testing.T, o opts, policy string, exact Shortcuts) *Result {
	t.Helper()
	return simulateWith(t, o, policy, Tile, exact)
}

func simulateWith(t testing.TB, o opts, policy string, fidelity Fidelity, exact Shortcuts) *Result {
	t.Helper()
	var pol *Policy
	var err error
	if strings.Contains(policy, "\n") {
		pol, err = DecodePolicy("policy.yaml", []byte(policy))
	} else {
		pol, err = LoadPolicy(policy)
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, o)
	cfg.Policy, cfg.Fidelity, cfg.Exact = pol, fidelity, exact
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// seed-moe-3b keeps 2·24·4·128·2 = 49152 bytes of F16 KV per token.
const moeKVPerToken = 49152

func ctxFor(kvBytes int) int { return kvBytes / moeKVPerToken }

func TestUnsupportedOperatorFallsBackToCPU(t *testing.T) {
	noRoPE := minimalChip[:strings.Index(minimalChip, "  - {name: npu")] +
		"  - {name: npu, kind: npu, peak: {int8: 45 TOPS}, ops: [embed, norm, matmul, attention, activation, residual, router]}\n"
	o := opts{chipSrc: noRoPE, prompt: 32, gen: 4}
	with := runWith(t, o, "stream-weights", Tile)
	o.chipSrc = minimalChip
	without := runWith(t, o, "stream-weights", Tile)
	if len(without.Fallbacks) != 0 {
		t.Fatalf("a unit that runs every operator fell back: %+v", without.Fallbacks)
	}
	if len(with.Fallbacks) != 1 || with.Fallbacks[0].Op != "rope" || with.Fallbacks[0].Unit != "cpu" {
		t.Fatalf("fallbacks %+v, want rope on the cpu", with.Fallbacks)
	}
	f := with.Fallbacks[0]
	// One RoPE per layer per pass: 32 layers × (1 prefill + 4 decode steps).
	if f.Count != 32*5 || f.Seconds <= 0 {
		t.Errorf("rope fallback %+v, want 160 runs with a cost", f)
	}
	// Each RoPE is a segment of its own: the unit hands it q and k, the
	// CPU hands them back rotated — (32 prompt + 4 decoded) rows × 32
	// layers × (q + k) fp16 elements each way.
	m := configFor(t, o).Model
	qk := float64(m.HeadDimension()*(m.Heads+m.KVHeads)) * 2
	want := []Boundary{{From: "npu", To: "cpu", Count: 160, CopyBytes: 36 * 32 * qk}, {From: "cpu", To: "npu", Count: 160, CopyBytes: 36 * 32 * qk}}
	if len(with.Boundaries) != 2 {
		t.Fatalf("boundaries %+v, want %+v", with.Boundaries, want)
	}
	for i, b := range with.Boundaries {
		w := want[i]
		if b.From != w.From || b.To != w.To || b.Count != w.Count || b.CopyBytes != w.CopyBytes || b.Seconds <= 0 {
			t.Errorf("boundary %+v, want %+v and a cost", b, w)
		}
	}
	if with.Decode.Seconds <= without.Decode.Seconds {
		t.Errorf("falling back made decode no slower: %.4f s vs %.4f s", with.Decode.Seconds, without.Decode.Seconds)
	}
	if with.Compute.StallFallback <= 0 {
		t.Error("the unit's wait for fallbacks is not counted")
	}
}

func TestPinnedKVThatFitsStopsMissing(t *testing.T) {
	// 2 MiB of KV on seed-c: kv-first keeps it in half of the 8 MiB SRAM,
	// so the decode steps touch no KV in the L3 at all.
	o := opts{chip: "seed-c", model: "seed-moe-3b", prompt: ctxFor(2 << 20), gen: 4}
	r := runWith(t, o, "kv-first", Tile)
	if r.Memory.Decode.KVL3MissRate != 0 || r.Memory.KVResidentBytes == 0 {
		t.Errorf("kv-first with 2 MiB KV: decode KV miss rate %.3f, resident %v", r.Memory.Decode.KVL3MissRate, r.Memory.KVResidentBytes)
	}
	// The same KV in an L3 that weights stream past (stream-weights) hits
	// after its first touch. Each decode step at context L reads L+1
	// positions and writes 1 new one, a first touch: 1/(L+2) ≈ 2.3% of the
	// KV accesses at L ≈ 42 must miss, and nothing else.
	r = runWith(t, o, "stream-weights", Tile)
	if r.Memory.Decode.KVL3MissRate > 0.03 {
		t.Errorf("stream-weights with 2 MiB KV in a 12 MiB L3: decode KV miss rate %.3f", r.Memory.Decode.KVL3MissRate)
	}
	// Under naive, the weight stream evicts it every step.
	r = runWith(t, o, "naive", Tile)
	if r.Memory.Decode.KVL3MissRate < 0.5 {
		t.Errorf("naive: decode KV miss rate %.3f, want the weight stream to evict the KV", r.Memory.Decode.KVL3MissRate)
	}
}

func TestKVLayoutChangesTime(t *testing.T) {
	pol := func(layout string) string {
		return "name: " + layout + "\nweights: {home: dram}\nkv: {home: dram, layout: " + layout + "}\nactivations: {home: sram}\n"
	}
	o := opts{chipSrc: minimalChip, prompt: 1024, gen: 4}
	seq := runWith(t, o, pol(SeqMajor), Tile)
	head := runWith(t, o, pol(HeadMajor), Tile)
	// llama-2-7b has 32 KV heads of 128 F16 elements: in head-major the new
	// token's K and V are 64 runs of 256 B per layer, each in its own DRAM
	// row (rows are 2 KiB; heads are 1028 positions × 256 B apart), and a
	// tile of positions is read as 32 runs: both cost row misses that the
	// seq-major layout does not pay.
	if head.Decode.Seconds <= seq.Decode.Seconds {
		t.Errorf("head-major decode %.5f s, seq-major %.5f s: the scattered layout must cost more", head.Decode.Seconds, seq.Decode.Seconds)
	}
	if head.Memory.DRAMBytes != seq.Memory.DRAMBytes {
		t.Errorf("layout changed the bytes moved (%v vs %v), not just their pattern", head.Memory.DRAMBytes, seq.Memory.DRAMBytes)
	}
}

func TestDoubleBufferingNeedsSRAM(t *testing.T) {
	// Pinning KV in 99% of a 4 MiB SRAM leaves room for one tile at most:
	// DMA and compute stop overlapping.
	hog := "name: hog\nweights: {home: dram}\nkv: {home: sram, sram: 97%}\nactivations: {home: sram}\n"
	o := opts{chipSrc: minimalChip, prompt: 1024, gen: 4}
	r := runWith(t, o, hog, Tile)
	if r.Memory.DMABuffers != 1 {
		t.Fatalf("%d DMA buffers with 3%% of SRAM free, want 1", r.Memory.DMABuffers)
	}
	base := runWith(t, o, "stream-weights", Tile)
	if base.Memory.DMABuffers != 2 {
		t.Fatalf("%d DMA buffers, want double buffering", base.Memory.DMABuffers)
	}
}

func TestFewerDMAChannelsNeverFaster(t *testing.T) {
	prev := math.Inf(1)
	for _, ch := range []string{"1", "2", "4", "8"} {
		r := runWith(t, opts{chip: "seed-c", model: "seed-moe-3b", prompt: 64, gen: 4, sets: []string{"dma.channels=" + ch}}, "naive", Tile)
		if r.Decode.Seconds > prev*(1+1e-9) {
			t.Errorf("%s DMA channels: decode %.6f s, slower than with fewer", ch, r.Decode.Seconds)
		}
		prev = r.Decode.Seconds
	}
}

func TestHealthFlagsMemoryBoundDecode(t *testing.T) {
	r := runWith(t, opts{chipSrc: minimalChip, prompt: 0, gen: 8}, "stream-weights", Tile)
	flags := map[string]Health{}
	for _, h := range r.Health {
		flags[h.Counter] = h
	}
	if flags["stall_mem"].OK || flags["mac_util"].OK {
		t.Errorf("batch-1 decode must be flagged memory-stalled and under-utilised: %+v", r.Health)
	}
	if !flags["stall_issue"].OK {
		t.Errorf("dispatch is a few percent of a 7B decode step: %+v", flags["stall_issue"])
	}
	if len(r.Units) < 2 || r.Units[0].Name != "npu" {
		t.Errorf("unit counters %+v", r.Units)
	}
}

// TestLineFidelityShortRun: the cache-line-exact run of issue 3 finishes
// quickly and agrees with tile fidelity on the miss rates.
func TestLineFidelityShortRun(t *testing.T) {
	o := opts{chip: "seed-c", model: "seed-moe-3b", prompt: 64, gen: 4, sets: []string{"memory.l3.size=3MiB"}}
	line := runWith(t, o, "naive", Line)
	tile := runWith(t, o, "naive", Tile)
	if line.Memory.L3BlockBytes != 64 || tile.Memory.L3BlockBytes <= 64 {
		t.Fatalf("blocks: line %v, tile %v", line.Memory.L3BlockBytes, tile.Memory.L3BlockBytes)
	}
	for _, m := range [][2]float64{{line.Memory.L3MissRate, tile.Memory.L3MissRate}, {line.Memory.KVL3MissRate, tile.Memory.KVL3MissRate}} {
		if math.Abs(m[0]-m[1]) > 0.03 {
			t.Errorf("line %.4f vs tile %.4f miss rate", m[0], m[1])
		}
	}
}

func TestPolicyFiles(t *testing.T) {
	for _, id := range PolicyIDs() {
		if _, err := LoadPolicy(id); err != nil {
			t.Errorf("built-in %s: %v", id, err)
		}
	}
	dir := t.TempDir()
	for _, tc := range []struct{ src, want string }{
		{"name: x\nweights: {home: disk}\nkv: {home: l3}\nactivations: {home: sram}\n", "p.yaml:2:17: field weights.home: \"disk\" is not allowed: use one of dram, l3, sram"},
		{"name: x\nweights: {home: dram, lock: true}\nkv: {home: l3}\nactivations: {home: sram}\n", "p.yaml:2:17: field weights.home: a class that streams from DRAM"},
		{"name: x\nweights: {home: l3}\nkv: {home: sram}\nactivations: {home: sram}\n", "field kv.sram: home sram needs a share"},
		{"name: x\nweights: {home: l3}\nkv: {home: l3, l3_share: 150%}\nactivations: {home: sram}\n", "at most 100%"},
		{"name: x\nweights: {home: l3}\nactivations: {home: sram}\n", "missing required field kv"},
	} {
		p := filepath.Join(dir, "p.yaml")
		if err := os.WriteFile(p, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadPolicy(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
	if _, err := LoadPolicy("bogus"); err == nil || !strings.Contains(err.Error(), "kv-first") {
		t.Errorf("unknown id should list the built-ins: %v", err)
	}
}

func TestOperatorVocabularyMatchesLower(t *testing.T) {
	// hw.Operators is what a unit's `ops` may list; it must name exactly the
	// kinds Lower emits, or a chip could never fall back (or always would).
	m, _ := workloads.LoadModel("seed-moe-3b", nil)
	kinds := map[string]bool{}
	for _, ph := range []workloads.Work{{Phase: workloads.Prefill, Tokens: 8, Batch: 1}, {Phase: workloads.Decode, Tokens: 1, Context: 8, Batch: 1}} {
		for _, op := range workloads.Lower(m.Model, workloads.Quant{}, workloads.KVFormat{}, ph) {
			kinds[string(op.Kind)] = true
		}
	}
	for _, k := range hw.Operators {
		if !kinds[k] {
			t.Errorf("hw.Operators lists %q, which Lower never emits", k)
		}
		delete(kinds, k)
	}
	for k := range kinds {
		t.Errorf("Lower emits %q, which hw.Operators lacks", k)
	}
}

// TestStepReuse: simulating one decode step in eight and interpolating the
// rest changes the results by under 1%.
func TestStepReuse(t *testing.T) {
	for _, c := range []struct {
		o      opts
		policy string
	}{
		{opts{chip: "seed-c", model: "seed-moe-3b", prompt: ctxFor(8 << 20), gen: 64}, "naive"},
		{opts{chip: "seed-c", model: "seed-moe-3b", prompt: ctxFor(8 << 20), gen: 64}, "kv-first"},
		{opts{chip: "seed-c", model: "seed-moe-3b", prompt: ctxFor(11 << 20), gen: 64}, "stream-weights"}, // crosses the 12 MiB L3
		{opts{chipSrc: minimalChip, prompt: 256, gen: 40}, "stream-weights"},
	} {
		reused := runWith(t, c.o, c.policy, Tile)
		exact := runExact(t, c.o, c.policy, Shortcuts{StepReuse: true})
		within1Percent(t, c.o.model+" "+c.policy+", with reuse and without", []closeness{
			{"decode tokens/s", *reused.Decode.TokensPerS, *exact.Decode.TokensPerS, false},
			{"p99 ms/token", *reused.Decode.MsPerToken.P99, *exact.Decode.MsPerToken.P99, false},
			{"DRAM bytes", reused.Memory.DRAMBytes, exact.Memory.DRAMBytes, false},
			{"KV L3 miss rate", reused.Memory.KVL3MissRate, exact.Memory.KVL3MissRate, true},
			{"L3 miss rate", reused.Memory.L3MissRate, exact.Memory.L3MissRate, true},
		})
	}
}

// TestStepMemoUnderThrottling: a session whose governor moves the clocks
// every few seconds reuses remembered steps at equal clocks; the result
// stays within 1% of simulating every step.
func TestStepMemoUnderThrottling(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates every decode step of 40 s")
	}
	sc := &workloads.Scenario{Name: "hot", Kind: workloads.Sustained, Duration: 40, Prompt: 512}
	run := func(exact bool) *Result {
		// A skin limit at 30 °C throttles within seconds; read every 100 ms
		// instead of the chip's 7 s, it moves the clocks every few seconds.
		cfg := configFor(t, opts{chip: "snapdragon-8-gen3", unit: "gpu", sets: []string{"governor.skin.limit=30C", "governor.skin.sampling=100ms"}, runtime: runtimes.None})
		cfg.Scenario, cfg.Exact.StepReuse = sc, exact
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	memo, exact := run(false), run(true)
	if exact.Thermal.ThrottleOnsetS == nil || *exact.Thermal.ThrottleOnsetS > 20 {
		t.Fatalf("throttle onset %v s: the test needs clocks that move", exact.Thermal.ThrottleOnsetS)
	}
	within1Percent(t, "memo against every step", []closeness{
		{"decode tokens/s", *memo.Decode.TokensPerS, *exact.Decode.TokensPerS, false},
		{"p50 ms/token", *memo.Decode.MsPerToken.P50, *exact.Decode.MsPerToken.P50, false},
		{"energy", memo.Energy.TotalJ, exact.Energy.TotalJ, false},
		{"DRAM bytes", memo.Memory.DRAMBytes, exact.Memory.DRAMBytes, false},
		{"skin peak", *memo.Thermal.SkinPeakC, *exact.Thermal.SkinPeakC, false},
	})
}

func TestL3WayPartitions(t *testing.T) {
	kvFirst, _ := LoadPolicy("kv-first")
	reqs, free := l3Requests(kvFirst, 12)
	// KV gets round(67% × 12) = 8 ways, locked; FFN and experts the next
	// round(33% × 12) = 4; nothing is left for the rest, which streams.
	if reqs[classKV].Ways != 0x0FF || !reqs[classKV].Lock || reqs[classExperts].Ways != 0xF00 || reqs[classFFN].Ways != 0xF00 {
		t.Errorf("kv-first ways: kv %#x experts %#x ffn %#x", reqs[classKV].Ways, reqs[classExperts].Ways, reqs[classFFN].Ways)
	}
	if free != 0 || reqs[classActivations].Allocate || reqs[classWeights].Allocate {
		t.Errorf("with every way reserved, other classes must not allocate: free %#x, %+v", free, reqs)
	}
	naive, _ := LoadPolicy("naive")
	reqs, free = l3Requests(naive, 12)
	if free != 0xFFF || reqs[classKV].Ways != 0xFFF || !reqs[classWeights].Allocate {
		t.Errorf("naive shares all 12 ways: %+v", reqs)
	}
}

func TestSRAMBankConflicts(t *testing.T) {
	// Resident KV sharing banks with streamed tiles: on 16 banks two
	// streams run at 1 − 1/32 of the bandwidth, so reading 1 MiB of each
	// takes 2 MiB / bw × 32/31.
	c, err := hw.LoadChip("seed-c", []spec.Override{{Path: "units.npu.sram_banks", Value: "16", Origin: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := DecodePolicy("p.yaml", []byte("name: s\nweights: {home: dram}\nkv: {home: sram, sram: 50%}\nactivations: {home: sram}\n"))
	split, _ := DecodePolicy("p.yaml", []byte("name: s\nweights: {home: dram}\nkv: {home: sram, sram: 50%, banks: split}\nactivations: {home: sram}\n"))
	model, _ := workloads.LoadModel("seed-moe-3b", nil)
	cfg := Config{Chip: c, Model: model, Prompt: 100, Gen: 1, Batch: 1}
	npu := c.Unit("npu")
	bw := float64(npu.SRAMBandwidth)
	attn := workloads.Op{Kind: workloads.KindResidual} // no compute to speak of: the SRAM bound shows
	const mib = 1 << 20
	e := &engine{cfg: &cfg, pol: shared, unit: npu, vdt: "fp16"}
	got, conflict := e.computeSeconds(&attn, mib, mib, e.clockOf(e.unit))
	if want := 2 * mib / bw * 32 / 31; math.Abs(got-want) > 1e-15 {
		t.Errorf("shared banks: %g s, want %g", got, want)
	}
	if want := 2 * mib / bw / 31; math.Abs(conflict-want) > 1e-15 {
		t.Errorf("shared banks: %g s of bank conflicts, want %g", conflict, want)
	}
	e = &engine{cfg: &cfg, pol: split, unit: npu, vdt: "fp16"}
	// Split half and half: each stream reads 1 MiB at half the bandwidth.
	if got, conflict := e.computeSeconds(&attn, mib, mib, e.clockOf(e.unit)); math.Abs(got-mib/(bw/2)) > 1e-15 || conflict != 0 {
		t.Errorf("split banks: %g s with %g s of conflicts, want %g s and none", got, conflict, mib/(bw/2))
	}
}

// FuzzDecodePolicy: no policy file makes the loader panic; every failure
// is a one-line error naming the file.
func FuzzDecodePolicy(f *testing.F) {
	for _, id := range PolicyIDs() {
		data, _ := policyFiles.ReadFile("policies/" + id + ".yaml")
		f.Add(data)
	}
	f.Add([]byte("name: x\nweights: {home: sram}\nkv: {home: l3, l3_share: 2}\nactivations: {home: sram}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePolicy("p.yaml", data)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "p.yaml") || strings.Contains(msg, "\n") {
				t.Fatalf("bad error %q", msg)
			}
			return
		}
		if _, free := l3Requests(p, 12); free > cache.Ways(0, 12) {
			t.Fatalf("ways beyond the cache: %#x", free)
		}
	})
}

func TestEnergyAddsUpAndFollowsTheBytes(t *testing.T) {
	var prev float64
	for _, q := range []string{"Q4_0", "Q8_0", "F16"} {
		r := runWith(t, opts{chip: "seed-c", model: "llama-3.2-1b", quant: q, prompt: 64, gen: 8}, "stream-weights", Tile)
		en := r.Energy
		if en.JoulesPerToken == nil || en.AvgPowerW == nil {
			t.Fatal("energy keys must never be null")
		}
		p := en.Parts
		if sum := p.Compute + p.Host + p.SRAM + p.L3 + p.DRAM + p.Static + p.SelfRefresh + p.IdleFloor; math.Abs(sum-en.TotalJ) > 1e-9*en.TotalJ {
			t.Errorf("parts sum to %g J, total %g J", sum, en.TotalJ)
		}
		if math.Abs(en.PrefillJ+en.DecodeJ-en.TotalJ) > 1e-9*en.TotalJ {
			t.Errorf("phases sum to %g J, total %g J", en.PrefillJ+en.DecodeJ, en.TotalJ)
		}
		// DRAM energy is the bytes moved times 30 pJ/B (the default).
		if want := r.Memory.DRAMBytes * 30e-12; math.Abs(p.DRAM-want) > 1e-6*want {
			t.Errorf("DRAM energy %g J, want %g J", p.DRAM, want)
		}
		// Static energy is every unit's leakage plus the DRAM's background
		// for the whole run: seed-c has an NPU (0.15 W) and the default CPU
		// (0.3 W) leaking 2% more per °C above 25 °C, and 0.1 W of DRAM
		// standby; the units are never hotter than the hottest junction.
		lo := 0.55 * r.Time.Total
		hi := (0.1 + 0.45*math.Exp(0.02*(*r.Thermal.PeakC-25))) * r.Time.Total
		if p.Static < lo || p.Static > hi {
			t.Errorf("static energy %g J, want between %g and %g J", p.Static, lo, hi)
		}
		// Decode is memory-bound: more bytes per weight cost more per token.
		if *en.JoulesPerToken <= prev {
			t.Errorf("%s: %.4f J/token, not above the narrower format's %.4f", q, *en.JoulesPerToken, prev)
		}
		prev = *en.JoulesPerToken
	}
}

func TestDRAMAccessPatterns(t *testing.T) {
	c := configFor(t, opts{chipSrc: minimalChip, prompt: 1, gen: 1})
	e := &engine{cfg: &c, rowSize: 2048, rowMiss: (4 - 1) * randomRun} // random_penalty 4, 2 KiB rows
	const mib = 1 << 20
	for _, tc := range []struct {
		name        string
		run, stride float64
		want        float64
	}{
		{"sequential", 0, 0, mib},
		// Random 4 KiB reads (each in its own row) take random_penalty
		// times as long as sequential ones: 256 runs × (4096 + 3 × 4096).
		{"random 4 KiB", 4096, 1 << 20, 4 * mib},
		// 256 B runs 1 KiB apart stay within an open 2 KiB row: no row
		// misses, and 256 B is a whole burst.
		{"strided within a row", 256, 1024, mib},
		// 100 B runs are moved as one 256 B burst each, in their own rows.
		{"short scattered runs", 100, 8192, float64(mib) / 100 * (256 + 3*4096)},
	} {
		if got := e.dramCost(span{run: tc.run, stride: tc.stride}, mib); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("%s: %g bytes of transfer, want %g", tc.name, got, tc.want)
		}
	}
}

// TestHeatThrottles is issue 4's acceptance: llama-2-7b Q4_0 on the
// Snapdragon 8 Gen 3 phone, five minutes back to back. The skin trips
// between 10 s and 2 min and the sustained rate falls clearly below the
// first 10 s; a bigger batch draws more power and throttles earlier; the
// same phone on a large heat sink never throttles.
func TestHeatThrottles(t *testing.T) {
	if testing.Short() {
		t.Skip("five simulated minutes, three times over")
	}
	sustained, err := workloads.LoadScenario("sustained", nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(batch int, sets ...string) *Result {
		// The phone's whole 12 GiB: batch 4 at 4096 tokens of context
		// holds 8 GiB of KV cache, past the share one app may hold.
		cfg := configFor(t, opts{chip: "snapdragon-8-gen3", unit: "gpu", prompt: 512, batch: batch, sets: append(sets, "memory.app_share=100%"), runtime: runtimes.None})
		cfg.Scenario = sustained
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var onsets []float64
	for _, batch := range []int{1, 2, 4} {
		r := run(batch)
		th := r.Thermal
		if th.ThrottleOnsetS == nil || *th.ThrottleOnsetS < 10 || *th.ThrottleOnsetS > 120 {
			t.Fatalf("batch %d: throttle onset %v s, want between 10 s and 2 min", batch, th.ThrottleOnsetS)
		}
		first, sus := *r.Decode.First10sTokensPerS, *th.SustainedTokensPerS
		t.Logf("batch %d: onset %.1f s, decode %.1f → %.1f tokens/s, skin %.1f °C, %.2f W", batch, *th.ThrottleOnsetS, first, sus, *th.SkinPeakC, *r.Energy.AvgPowerW)
		if sus >= 0.8*first {
			t.Errorf("batch %d: sustained %.2f tokens/s, first 10 s %.2f: want clearly slower", batch, sus, first)
		}
		onsets = append(onsets, *th.ThrottleOnsetS)
	}
	// The skin controller reads the skin every 7 s, so onsets of loads
	// within a few per cent of each other land on the same reading or the
	// next: each is no later than the last by more than one reading, and
	// batch 4 is earlier than batch 1.
	const reading = 7.0
	if !(onsets[2] < onsets[0] && onsets[1] <= onsets[0]+reading && onsets[2] <= onsets[1]+reading) {
		t.Errorf("onsets at batch 1, 2, 4: %v s; want each no later than the last by more than %g s, and batch 4 earlier than batch 1", onsets, reading)
	}
	// A large heat sink: every path to ambient at 0.5 K/W and ten times
	// the board's heat capacity.
	cool := run(1, "thermal.nodes.skin.to_ambient=0.5K/W", "thermal.nodes.board.to_ambient=0.5K/W", "thermal.nodes.board.capacity=1350J/K")
	if cool.Thermal.ThrottleOnsetS != nil {
		t.Errorf("with a heat sink the chip throttled at %v s", *cool.Thermal.ThrottleOnsetS)
	}
	if cool.Thermal.SustainedTokensPerS == nil || *cool.Thermal.SustainedTokensPerS < 0.7**cool.Decode.First10sTokensPerS {
		t.Errorf("with a heat sink sustained %v tokens/s against %v in the first 10 s: only context growth should slow it", cool.Thermal.SustainedTokensPerS, *cool.Decode.First10sTokensPerS)
	}
}

// TestUnitWeightFormats: a unit whose kernels do not read the model's
// weight format is passed over, and naming it is an input error; among the
// units that read it, the stack a user runs for the format decides.
func TestUnitWeightFormats(t *testing.T) {
	for _, c := range []struct {
		quant, unit, want, runtime string
	}{
		{"Q4_0", "", "gpu", "llama.cpp-opencl"},     // the NPU reads Q4_0 only through the Hexagon backend, later in the order
		{"INT4", "", "npu", "genie"},                // Genie runs the NPU's own INT4
		{"Q4_0", "cpu", "cpu", "llama.cpp-cpu"},     // --unit picks the unit, the order its runtime
		{"Q4_0", "npu", "npu", "llama.cpp-hexagon"}, // the one stack that reads GGUF on it
		{"Q4_K_M", "", "gpu", "llama.cpp-vulkan"},   // no stack reads K-quants on the NPU, nor does the OpenCL backend
	} {
		cfg := configFor(t, opts{chip: "snapdragon-8-gen3", quant: c.quant, prompt: 8, gen: 2, unit: c.unit})
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r.Unit != c.want || r.Runtime != c.runtime {
			t.Errorf("%s with --unit %q ran on %s via %s, want %s via %s", c.quant, c.unit, r.Unit, r.Runtime, c.want, c.runtime)
		}
	}
	cfg := configFor(t, opts{chip: "snapdragon-8-gen3", quant: "Q4_K_M", prompt: 8, gen: 2, unit: "npu"})
	_, err := Run(context.Background(), cfg)
	var ie *spec.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "do not read Q4_K") || !strings.Contains(err.Error(), "W4A16") {
		t.Errorf("--unit npu with Q4_K_M: %v, want an input error naming the format and what the unit reads", err)
	}
}

// TestUnitWeightFormatsOfAMix: a llama.cpp file type stores matrices in
// several formats (Q4_K_M: Q4_K, and Q6_K for some attn_v, ffn_down and
// the output matrix); a unit runs it only if it reads them all.
func TestUnitWeightFormatsOfAMix(t *testing.T) {
	for _, c := range []struct {
		formats, quant, unit string
		want                 string // the unit it ran on, or the error
	}{
		{"[Q4_0, Q8_0, F16]", "Q4_K_M", "", "gpu"},
		{"[Q4_0, Q8_0, F16]", "Q4_K_M", "npu", "do not read Q4_K weights"},
		{"[Q4_K, Q6_K]", "Q4_K_M", "", "npu"},
		{"[Q4_K]", "Q4_K_M", "npu", "do not read Q6_K weights"},
		{"[Q4_K]", "Q4_K_M,output=Q4_K", "npu", "do not read Q6_K weights"}, // attn_v and ffn_down of some layers
		{"[Q4_K, Q6_K]", "Q4_K_M,attn=Q8_0", "", "gpu"},
		{"[Q5_K, Q6_K]", "Q5_K_M", "", "npu"},
		{"[Q4_0, Q6_K]", "Q4_0", "", "npu"},
		{"[Q4_0]", "Q4_0", "npu", "do not read Q6_K weights"}, // the output matrix
	} {
		// The unit rule alone: the chip's own figures, no runtime's formats.
		cfg := configFor(t, opts{chip: "snapdragon-8-gen3", quant: c.quant, prompt: 8, gen: 2, sets: []string{"units.npu.formats=" + c.formats}, runtime: runtimes.None})
		cfg.Unit = c.unit
		r, err := Run(context.Background(), cfg)
		got := ""
		switch {
		case err != nil:
			got = err.Error()
		default:
			got = r.Unit
		}
		if !strings.Contains(got, c.want) || (err == nil) != (c.unit == "") {
			t.Errorf("npu formats %s, %s, --unit %q: %s; want %s", c.formats, c.quant, c.unit, got, c.want)
		}
	}
}

// TestEfficiencyByFormatOfAMix: each matmul takes the efficiency of the
// format its own weights are stored in. A slow q6_k kernel slows Q4_K_M,
// whose attn_v and ffn_down are Q6_K in half the layers, far more than
// Q4_0, whose only Q6_K is the output matrix, and Q8_0 not at all.
func TestEfficiencyByFormatOfAMix(t *testing.T) {
	slowdown := map[string]float64{}
	for _, q := range []string{"Q4_K_M", "Q4_0", "Q8_0"} {
		o := opts{chipSrc: minimalChip, quant: q, prompt: 16, gen: 4, fidelity: Analytic}
		base := simulate(t, o)
		o.sets = []string{"units.npu.gemv_efficiency_by={q6_k: 0.01}"}
		slow := simulate(t, o)
		slowdown[q] = *base.Decode.TokensPerS / *slow.Decode.TokensPerS
	}
	t.Logf("decode slowdown with a 1%% efficient q6_k GEMV: %v", slowdown)
	if slowdown["Q8_0"] != 1 || slowdown["Q4_0"] <= 1 || slowdown["Q4_K_M"] < 2*slowdown["Q4_0"] {
		t.Errorf("slowdowns %v: want none for Q8_0, some for Q4_0 and much more for Q4_K_M", slowdown)
	}
}

func TestSustainedSession(t *testing.T) {
	sc := &workloads.Scenario{Name: "short", Kind: workloads.Sustained, Duration: 5, Prompt: 64, ContextLimit: 128}
	cfg := configFor(t, opts{chip: "seed-c", model: "seed-moe-3b"})
	cfg.Scenario = sc
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Each request prefills 64 tokens and decodes 64 more (to the limit of
	// 128) in well under a second, so 5 s hold several, back to back.
	if r.Requests < 3 || r.Time.Total < 5 || r.Scenario != "short" {
		t.Fatalf("%d requests over %.2f s, want several filling 5 s", r.Requests, r.Time.Total)
	}
	if r.Prefill.Tokens != 64*r.Requests {
		t.Errorf("prefill tokens %d, want 64 per request", r.Prefill.Tokens)
	}
	// Every request but the last decodes to the limit.
	if r.Decode.Tokens < 64*(r.Requests-1) || r.Decode.Tokens > 64*r.Requests {
		t.Errorf("%d decode tokens for %d requests of 64", r.Decode.Tokens, r.Requests)
	}
	if r.TTFT >= r.Prefill.Seconds {
		t.Errorf("ttft %.4f s must be the first request's, not the session's %.4f s", r.TTFT, r.Prefill.Seconds)
	}
}

// TestKVScanBypass: skipping the lookups of a KV that a pass scans many
// times over its ways changes the results by under 1%.
func TestKVScanBypass(t *testing.T) {
	for _, c := range []struct {
		o      opts
		policy string
	}{
		// llama-2-7b keeps 512 KiB of KV per token: 1024 tokens are 512 MiB
		// a decode step, 64 times the 8 MiB L3.
		{opts{chipSrc: minimalChip, prompt: 1024, gen: 24}, "stream-weights"},
		{opts{chipSrc: minimalChip, prompt: 1024, gen: 24}, "naive"},
		// seed-moe-3b at 2048 tokens: 96 MiB a step against a 12 MiB L3.
		{opts{chip: "seed-c", model: "seed-moe-3b", prompt: 2048, gen: 24}, "stream-weights"},
	} {
		fast := runWith(t, c.o, c.policy, Tile)
		full := runExact(t, c.o, c.policy, Shortcuts{ScanBypass: true})
		within1Percent(t, c.o.model+" "+c.policy+", with the bypass and without", []closeness{
			{"decode tokens/s", *fast.Decode.TokensPerS, *full.Decode.TokensPerS, false},
			{"TTFT", fast.TTFT, full.TTFT, false},
			{"DRAM bytes", fast.Memory.DRAMBytes, full.Memory.DRAMBytes, false},
			{"KV L3 miss rate", fast.Memory.KVL3MissRate, full.Memory.KVL3MissRate, true},
			{"L3 miss rate", fast.Memory.L3MissRate, full.Memory.L3MissRate, true},
		})
	}
}

// TestWeightScanBypass: under the naive policy every weight of a decode
// step streams through the L3 ways it shares with the KV cache, under
// kv-first the FFN's and experts' through their third of them, far more
// than they hold, so a run whose steps skip those lookups (weightScans)
// agrees with the same run looking them all up — dense and MoE, a short
// context so that the KV scan bypass stays out of it. The steps are
// bypassed only where the rule says: not for a class that does not
// allocate (the dense weights under stream-weights and kv-first), nor for
// a batch, whose GEMM may read a weight twice in a step.
func TestWeightScanBypass(t *testing.T) {
	for _, c := range []struct {
		o      opts
		policy string
	}{
		// llama-2-7b's 3.8 GB a step through an 8 MiB L3; 32 tokens of its
		// KV are 16 MiB a step, under the KV bypass's 4 × 8 MiB.
		{opts{chipSrc: minimalChip, prompt: 16, gen: 16}, "naive"},
		{opts{chip: "seed-c", model: "seed-moe-3b", prompt: 16, gen: 16}, "naive"},
		{opts{chip: "seed-c", model: "seed-moe-3b", prompt: 16, gen: 16}, "kv-first"},
		{opts{chip: "apple-a17-pro", model: "llama-3.2-3b", prompt: 16, gen: 16}, "naive"},
		{opts{chip: "apple-a17-pro", model: "llama-3.2-3b", prompt: 16, gen: 16}, "kv-first"},
	} {
		o := c.o
		fast := runWith(t, o, c.policy, Tile)
		full := runExact(t, o, c.policy, Shortcuts{ScanBypass: true})
		within1Percent(t, o.chip+" "+o.model+" "+c.policy+", weights bypassed and looked up", []closeness{
			{"decode tokens/s", *fast.Decode.TokensPerS, *full.Decode.TokensPerS, false},
			{"DRAM bytes", fast.Memory.DRAMBytes, full.Memory.DRAMBytes, false},
			{"energy", fast.Energy.TotalJ, full.Energy.TotalJ, false},
			{"KV L3 miss rate", fast.Memory.KVL3MissRate, full.Memory.KVL3MissRate, true},
			{"L3 miss rate", fast.Memory.L3MissRate, full.Memory.L3MissRate, true},
		})
	}
	step := workloads.Work{Phase: workloads.Decode, Tokens: 1, Batch: 1, Context: 64}
	all := [numClasses]bool{classWeights: true, classFFN: true, classExperts: true}
	for _, c := range []struct {
		policy string
		work   workloads.Work
		want   [numClasses]bool
	}{
		{"naive", step, all},
		{"stream-weights", step, [numClasses]bool{}},
		// The FFN's third of the ways, the dense weights not in the L3.
		{"kv-first", step, [numClasses]bool{classFFN: true, classExperts: true}},
		{"naive", workloads.Work{Phase: workloads.Decode, Tokens: 1, Batch: 2, Context: 64}, [numClasses]bool{}},
		{"naive", workloads.Work{Phase: workloads.Prefill, Tokens: 64, Batch: 1}, [numClasses]bool{}},
	} {
		pol, err := LoadPolicy(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		cfg := configFor(t, opts{chipSrc: minimalChip, prompt: 64, gen: 1})
		cfg.Policy, cfg.Fidelity = pol, Tile
		u, dt, err := pickUnit(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		e, err := newEngine(&cfg, pol, u, dt)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.weightScans(c.work, e.lower(c.work)); got != c.want {
			t.Errorf("%s, %v: weight scan %v, want %v", c.policy, c.work, got, c.want)
		}
	}
}

// TestSpillBypass: a run whose spilled activations skip the L3 where
// they cannot hit (spill.go) agrees with the same run looking every block
// up, on the cases where prefills spill most. Each block counted a miss
// had at most spillMissChance (0.5%) of hitting, and blocks are only part
// of all accesses, so an L3 miss rate may move by at most half a point
// (absolute); times, energy and DRAM bytes are held to 1%.
func TestSpillBypass(t *testing.T) {
	chat, err := workloads.LoadScenario("chat-30", nil)
	if err != nil {
		t.Fatal(err)
	}
	chat.Duration = 120 // two minutes: several turns, the context growing
	for _, c := range []struct {
		name     string
		o        opts
		scenario *workloads.Scenario
	}{
		// The default run: a 512-token prompt spills 7.5–32 MiB an
		// operator through the 8 Elite's 8 MiB L3.
		{"default", opts{chip: "snapdragon-8-elite", prompt: 512, gen: 16}, nil},
		// A quarter of that L3: reach 3.5 MiB, nearly every spill a scan.
		{"2 MiB L3", opts{chip: "snapdragon-8-elite", prompt: 512, gen: 16, sets: []string{"memory.l3.size=2MiB"}}, nil},
		// A long prompt on another chip and model: Llama 3.2 1B's spills
		// of 2,048 tokens through the 8 Gen 3's L3.
		{"long prompt", opts{chip: "snapdragon-8-gen3", model: "llama-3.2-1b", prompt: 2048, gen: 16}, nil},
		// Llama 3.2 1B at 600 tokens: spills either side of the reach,
		// scans between looked-up spills. Without emptying the ways a scan
		// starts, its activations miss 0.6 points less often than looked
		// up (measured).
		{"spills about the reach", opts{chip: "snapdragon-8-elite", model: "llama-3.2-1b", prompt: 600, gen: 16}, nil},
		// Sessions: prompts replayed (sustained: three requests in 40 s)
		// and a chat whose context grows turn by turn.
		{"sustained", opts{chip: "snapdragon-8-elite"}, &workloads.Scenario{Name: "s", Kind: workloads.Sustained, Duration: 40, Prompt: 512, ContextLimit: 544}},
		{"chat, 2 MiB L3", opts{chip: "snapdragon-8-elite", sets: []string{"memory.l3.size=2MiB"}}, chat},
	} {
		run := func(exact Shortcuts) *Result {
			cfg := configFor(t, c.o)
			cfg.Fidelity, cfg.Exact, cfg.Scenario = Tile, exact, c.scenario
			r, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		fast, full := run(Shortcuts{}), run(Shortcuts{SpillBypass: true})
		if fast.Memory.L3MissRateOf.Activations == full.Memory.L3MissRateOf.Activations {
			t.Errorf("%s: the bypass was not taken (activations miss %v either way)", c.name, full.Memory.L3MissRateOf.Activations)
		}
		for _, m := range []struct {
			closeness
			tol float64
		}{
			{closeness{"TTFT", fast.TTFT, full.TTFT, false}, 0.01},
			{closeness{"decode tokens/s", *fast.Decode.TokensPerS, *full.Decode.TokensPerS, false}, 0.01},
			{closeness{"energy", fast.Energy.TotalJ, full.Energy.TotalJ, false}, 0.01},
			{closeness{"DRAM bytes", fast.Memory.DRAMBytes, full.Memory.DRAMBytes, false}, 0.01},
			{closeness{"L3 miss rate", fast.Memory.L3MissRate, full.Memory.L3MissRate, true}, spillMissChance},
			{closeness{"prefill L3 miss rate", fast.Memory.Prefill.L3MissRate, full.Memory.Prefill.L3MissRate, true}, spillMissChance},
			{closeness{"activations L3 miss rate", fast.Memory.L3MissRateOf.Activations, full.Memory.L3MissRateOf.Activations, true}, spillMissChance},
			{closeness{"KV L3 miss rate", fast.Memory.KVL3MissRate, full.Memory.KVL3MissRate, true}, spillMissChance},
		} {
			d := math.Abs(m.got - m.want)
			if !m.absolute {
				d /= m.want
			}
			t.Logf("%s: %s %.6g bypassed, %.6g looked up (%.3g apart)", c.name, m.name, m.got, m.want, d)
			if d > m.tol {
				t.Errorf("%s: %s %.6g bypassed, %.6g looked up: %.3g apart, allowed %.3g", c.name, m.name, m.got, m.want, d, m.tol)
			}
		}
	}
}

// closeness is one figure from two runs that must agree: relatively, or
// absolutely for rates in 0..1 (one percentage point).
type closeness struct {
	name      string
	got, want float64
	absolute  bool
}

// within1Percent reports every figure whose two runs differ by more than 1%.
func within1Percent(t *testing.T, label string, cs []closeness) {
	t.Helper()
	for _, m := range cs {
		d := math.Abs(m.got - m.want)
		if !m.absolute {
			d /= m.want
		}
		if d > 0.01 {
			t.Errorf("%s: %s %.5g vs %.5g (%.2f%%)", label, m.name, m.got, m.want, d*100)
		}
	}
}

// TestSpillReach: the reach in ways' sizes for common way counts, from
// the Poisson tail (spillReach): with 16 ways, a set that took 1.78 × 16
// = 28.5 blocks on average took fewer than 16 with a chance under 0.5%.
func TestSpillReach(t *testing.T) {
	for _, c := range []struct {
		ways int
		want float64
	}{{8, 2.156}, {12, 1.906}, {16, 1.781}, {20, 1.672}} {
		if got := spillReach(1, c.ways); math.Abs(got-c.want) > 1.0/64 {
			t.Errorf("%d ways: reach %.4g × the ways' size, want %.4g", c.ways, got, c.want)
		}
		if p := poissonBelow(spillReach(1, c.ways)*float64(c.ways), c.ways); p > spillMissChance {
			t.Errorf("%d ways: a block at the reach hits with chance %.3g, above %g", c.ways, p, spillMissChance)
		}
	}
}

// TestSpillScan: which tiles of a pass's spills are scans, by hand. Ways
// of 8 MiB at 16 ways reach 14.25 MiB (1.78 × 8 MiB); spills in MiB, one
// tile a MiB.
func TestSpillScan(t *testing.T) {
	e := &engine{spillReach: spillReach(8, 16)}
	var seen []float64
	for _, c := range []struct {
		spill  float64
		lo, hi int
		why    string
	}{
		{20, 0, 0, "the first spill of a pass: nothing earlier to be sure of"},
		{4, 0, 0, "[0, 4) was last read by the 20 MiB spill, but 4 MiB cannot sweep the L3"},
		{32, 4, 20, "[0, 4) read by the 4 MiB spill since; [4, 20) by the 20; [20, 32) never this pass"},
		{7.5, 0, 0, "7.5 MiB cannot sweep the L3"},
		{20, 0, 0, "[8, 20) last read by the 32 MiB spill, but 12 MiB cannot sweep the L3"},
		{32, 0, 32, "all of it last read by a 32 MiB spill or the 20 after it"},
		{7.5, 0, 0, "7.5 MiB cannot sweep the L3"},
		{24, 8, 24, "[0, 7.5) read by the 7.5 MiB spill; tile 7 straddles; [8, 24) by the 32"},
	} {
		var lo, hi int
		seen, lo, hi = e.spillScan(seen, c.spill, int(c.spill))
		if lo != c.lo || hi != c.hi {
			t.Errorf("spill of %g MiB: scan tiles [%d, %d), want [%d, %d): %s", c.spill, lo, hi, c.lo, c.hi, c.why)
		}
	}
}
