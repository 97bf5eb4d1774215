package sim

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/workloads"
)

// sustainedRun is a 10-minute sustained session of llama-2-7b Q4_0 on a
// chip (by name, or by its YAML in src), as `simulate --scenario sustained
// --duration 10m` runs it, and its time series.
func sustainedRun(t *testing.T, chip, src string, sets ...string) (*Result, *Series) {
	t.Helper()
	return sustainedUpTo(t, chip, src, 0, sets...)
}

// sustainedUpTo is sustainedRun with the scenario's context limit set to
// limit (0: the model's).
func sustainedUpTo(t *testing.T, chip, src string, limit int, sets ...string) (*Result, *Series) {
	t.Helper()
	sc, err := workloads.LoadScenario("sustained", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := *sc
	s.Duration, s.ContextLimit = units.Seconds(600), limit
	cfg := configFor(t, opts{chip: chip, chipSrc: src, prompt: 512, sets: sets})
	cfg.Scenario = &s
	series := &Series{}
	cfg.Series = series
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Thermal.ThrottleOnsetS == nil || r.Thermal.SustainedTokensPerS == nil {
		t.Fatalf("%s: no throttle onset or no sustained rate in 10 minutes: the test needs a run that throttles", chip)
	}
	return r, series
}

// gpuClocks is the GPU's clock at each point of the series after the
// throttle onset, and those of the last two minutes.
func gpuClocks(t *testing.T, r *Result, s *Series) (after, last2 []float64) {
	t.Helper()
	gpu := -1
	for i, u := range s.Units {
		if u == "gpu" {
			gpu = i
		}
	}
	if gpu < 0 {
		t.Fatal("no gpu in the series")
	}
	end := s.Points[len(s.Points)-1].EndS
	for _, p := range s.Points {
		if p.EndS >= *r.Thermal.ThrottleOnsetS {
			after = append(after, p.ClocksHz[gpu])
		}
		if p.EndS >= end-120 {
			last2 = append(last2, p.ClocksHz[gpu])
		}
	}
	return after, last2
}

// reversals counts the changes of direction of a series of clocks, and
// changes its changes.
func reversals(clocks []float64) (rev, changes int) {
	dir := 0
	for i := 1; i < len(clocks); i++ {
		d := 0
		switch {
		case clocks[i] > clocks[i-1]:
			d = 1
		case clocks[i] < clocks[i-1]:
			d = -1
		}
		if d == 0 {
			continue
		}
		changes++
		if dir != 0 && d != dir {
			rev++
		}
		dir = d
	}
	return rev, changes
}

// TestGovernorSettlesSustained is issue 18's second point seen from a run.
// Before this branch a 10-minute sustained decode on the 8 Gen 3's GPU
// swung it between 0.903 and 0.361 GHz under the step_wise skin trip: 87
// clock changes and ~40 reversals after the 194 s onset, "clock changes
// 93%" of the spread, and the sustained rate moved ±10% with small timing
// changes. The chip file now runs its skin limit as Android does, a
// skin_limit power cap over the kernel's junction zones: the GPU steps down
// once at the onset (measured: 0.903 → 0.768 GHz at 196.7 s, then no
// change) and the rest of the cap is taken from the other units and the
// memory clock. Asserted: the GPU never reaches its bottom OPP after the
// onset, reverses at most once, changes at most twice over the last two
// minutes (the "done when"), and a 1% change of DRAM bandwidth
// either way, a small timing input, moves the sustained rate by less than
// 2% (measured: −0.06% and +0.06%).
func TestGovernorSettlesSustained(t *testing.T) {
	if testing.Short() {
		t.Skip("three simulated 10-minute sessions")
	}
	base, series := sustainedRun(t, "snapdragon-8-gen3", "")
	settled(t, "skin_limit", base, series, 1)
	for _, bw := range []string{"76.032GB/s", "77.568GB/s"} { // 76.8 GB/s ∓ 1%
		r, _ := sustainedRun(t, "snapdragon-8-gen3", "", "memory.dram.bandwidth="+bw)
		a, b := *base.Thermal.SustainedTokensPerS, *r.Thermal.SustainedTokensPerS
		t.Logf("bandwidth %s: sustained %.3f tokens/s (%+.2f%%)", bw, b, 100*(b/a-1))
		if d := b/a - 1; d > 0.02 || d < -0.02 {
			t.Errorf("DRAM bandwidth %s: sustained %.3f tokens/s against %.3f at 76.8 GB/s (%+.1f%%), want within 2%%", bw, b, a, 100*d)
		}
	}
}

// settled checks that after the onset the GPU's clock is a plateau: never
// at its bottom OPP, at most maxRev reversals, at most two changes over
// the last two minutes.
func settled(t *testing.T, name string, r *Result, s *Series, maxRev int) {
	t.Helper()
	after, last2 := gpuClocks(t, r, s)
	rev, _ := reversals(after)
	_, lastChanges := reversals(last2)
	bottom := 0.4 * 903e6 // the GPU's lowest OPP, derived from its 903 MHz clock (0.361 GHz in the series)
	low := after[0]
	for _, c := range after {
		low = min(low, c)
	}
	t.Logf("%s: onset %.1f s, %d reversals after it, %d changes in the last 2 min, lowest %.3f GHz, skin peak %.2f °C, sustained %.3f tokens/s",
		name, *r.Thermal.ThrottleOnsetS, rev, lastChanges, low/1e9, *r.Thermal.SkinPeakC, *r.Thermal.SustainedTokensPerS)
	if low <= bottom*1.001 {
		t.Errorf("%s: after the onset the GPU fell to its bottom OPP (%.3f GHz): the governor swings to the extremes", name, low/1e9)
	}
	if rev > maxRev {
		t.Errorf("%s: the GPU's OPP reversed %d times after the onset, want at most %d (a plateau, not a swing)", name, rev, maxRev)
	}
	if lastChanges > 2 {
		t.Errorf("%s: the GPU's clock changed %d times over the last two minutes, want at most 2", name, lastChanges)
	}
}

// TestStepWiseSkinTripSustained: the 8 Gen 3's file with its skin limit
// run by the kernel's step_wise instead (a 42 °C trip, 2 °C hysteresis,
// read every 7 s), as it was before. step_wise settles on the highest OPP
// the trip sustains only while one step moves the skin by less than the
// hysteresis; at the GPU's upper OPPs a step is ~0.8 W, ~2.4 °C over the
// skin's half-minute response (~3 °C/W, PhoneDefault with the board held),
// so it alternates between two adjacent OPPs at the skin's pace (measured:
// 0.768 GHz from 274 s, 0.632 at 526 s, 0.768 again at 576 s) and never
// swings to the extremes: at most 4 reversals after the onset.
func TestStepWiseSkinTripSustained(t *testing.T) {
	if testing.Short() {
		t.Skip("a simulated 10-minute session")
	}
	data, err := os.ReadFile("../hw/chips/snapdragon-8-gen3.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	a := strings.Index(src, "\ngovernor:\n")
	b := strings.Index(src, "\nsources:\n")
	if a < 0 || b < a {
		t.Fatal("no governor section before the sources in the 8 Gen 3's file")
	}
	src = src[:a] + `
governor:
  kind: step_wise
  polling: 100 ms
  trips:
    - {node: npu, temp: 95 C, hysteresis: 2 C, units: [npu]}
    - {node: cpu, temp: 95 C, hysteresis: 2 C, units: [cpu]}
    - {node: gpu, temp: 95 C, hysteresis: 2 C, units: [gpu]}
    - {node: skin, temp: 42 C, hysteresis: 2 C, polling: 7 s, units: [npu, cpu, gpu, dram]}` + src[b:]
	// The skin controller's citations go with it: a source must name a
	// field the chip has.
	var kept []string
	for _, line := range strings.Split(src, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "governor.skin") {
			kept = append(kept, line)
		}
	}
	src = strings.Join(kept, "\n")
	r, s := sustainedRun(t, "", src)
	settled(t, "step_wise", r, s, 4)
}

// TestSustainedRateIsStable is issue 18's "two runs whose inputs differ by
// 1% in timing give sustained rates within 2%", on the phones where it
// failed: a 1% change of DRAM bandwidth either way moved the A17 Pro's
// sustained rate at a 2048-token context limit by +53% (5.02 → 7.66
// tokens/s: the power share followed what each unit drew under its cap, so
// the unit throttled first stayed throttled, and which that was followed
// the run's history), the 8 Elite's by +2.1% and the Dimensity 9300's by
// +2.2%. Shared by the demand at the top OPP (hw/thermal
// TestShareByDemandAtTop) the settled point is one; measured after: A17
// −0.6/+0.8%, 8 Elite −0.2/+0.1%, Dimensity −0.8/+1.3%.
func TestSustainedRateIsStable(t *testing.T) {
	if testing.Short() {
		t.Skip("nine simulated 10-minute sessions")
	}
	for _, c := range []struct {
		chip  string
		limit int // the scenario's context limit; 0: the model's
	}{
		{"apple-a17-pro", 2048},
		{"snapdragon-8-elite", 0},
		{"dimensity-9300", 2048},
	} {
		rate := func(scale float64) float64 {
			r, _ := sustainedUpTo(t, c.chip, "", c.limit, dramScaled(t, c.chip, scale))
			return *r.Thermal.SustainedTokensPerS
		}
		base := rate(1)
		for _, scale := range []float64{0.99, 1.01} {
			r := rate(scale)
			t.Logf("%s, context limit %d, DRAM ×%g: %.3f tokens/s against %.3f (%+.2f%%)", c.chip, c.limit, scale, r, base, 100*(r/base-1))
			if d := r/base - 1; d > 0.02 || d < -0.02 {
				t.Errorf("%s, context limit %d: DRAM bandwidth ×%g moves the sustained rate %+.1f%% (%.3f against %.3f tokens/s), want within 2%%", c.chip, c.limit, scale, 100*d, r, base)
			}
		}
	}
}

// TestChatIsStable: a chat's think time must not reset the skin
// controller. On the A17 Pro, chat-30 with Llama 3.1 8B (the app holding
// the whole DRAM) read the resting units' draw as what they would draw
// unthrottled, clamped its cap to it, and started the next turn from
// there: turn 25 took 55.2, 75.9 or 57.0 s as DRAM bandwidth went ×1.01,
// ×1, ×0.99, and the session's decode rate moved −3.1%. Held through rest
// (hw/thermal TestSkinControllerHoldsThroughRest), measured after: decode
// −0.27/+0.25%, turn 25 within 1.7%.
func TestChatIsStable(t *testing.T) {
	if testing.Short() {
		t.Skip("three simulated 30-turn chats")
	}
	chat, err := workloads.LoadScenario("chat-30", nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(scale float64) *Result {
		cfg := configFor(t, opts{chip: "apple-a17-pro", model: "llama-3.1-8b", prompt: 512,
			sets: []string{"memory.app_share=100%", dramScaled(t, "apple-a17-pro", scale)}})
		cfg.Scenario = chat
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r.Thermal.ThrottleOnsetS == nil {
			t.Fatal("the chat does not throttle; the test needs it to")
		}
		return r
	}
	base := run(1)
	for _, scale := range []float64{0.99, 1.01} {
		r := run(scale)
		d := *r.Decode.TokensPerS / *base.Decode.TokensPerS - 1
		t25 := r.Turns[24].TotalS/base.Turns[24].TotalS - 1
		t.Logf("DRAM ×%g: decode %+.2f%%, turn 25 %+.2f%%", scale, 100*d, 100*t25)
		if math.Abs(d) > 0.02 || math.Abs(t25) > 0.05 {
			t.Errorf("DRAM ×%g moves the chat's decode rate %+.1f%% and turn 25's time %+.1f%%; want within 2%% and 5%%", scale, 100*d, 100*t25)
		}
	}
}

// dramScaled is the --set that gives chip scale times its own DRAM
// bandwidth: a small change of a timing input.
func dramScaled(t *testing.T, chip string, scale float64) string {
	t.Helper()
	bw := float64(configFor(t, opts{chip: chip}).Chip.Memory.DRAM.Bandwidth)
	return fmt.Sprintf("memory.dram.bandwidth=%gGB/s", bw/1e9*scale)
}
