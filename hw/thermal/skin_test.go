package thermal

import (
	"math"
	"testing"
)

// TestSkinControllerSequence walks the skin_limit governor through a
// hand-built sequence on zoneNet (npu junction, skin): limit 43 °C,
// hysteresis 2 °C (the cap rises below 41 °C), a reading every second,
// gain 0.5 W/°C, the NPU's four OPPs drawing 1, 2, 3, 4 W at full
// activity; a step_wise zone on the NPU junction at 95 °C underneath.
func TestSkinControllerSequence(t *testing.T) {
	gs := GovernorSpec{Kind: SkinLimitKind, Polling: 0.1,
		Trips: []Trip{{Node: "npu", Temp: 95, Hysteresis: 2, Units: []string{"npu"}}},
		Skin:  SkinLimit{Node: "skin", Limit: 43, Hysteresis: 2, Sampling: 1, Gain: 0.5, Units: []string{"npu"}}}
	g, err := NewGovernor(gs, zoneNet(t), OPPPower{"npu": {0.25, 0.5, 0.75, 1}, "dram": {0.5, 1}})
	if err != nil {
		t.Fatal(err)
	}
	sc := g.(*SkinController)
	steps := []struct {
		elapsed, junction, skin, drew float64
		cap                           int
		powerCap                      float64
		why                           string
	}{
		{1, 60, 42, 4, 3, math.Inf(1), "below the limit: not engaged, top OPP"},
		{1, 60, 44, 4, 2, 3.5, "1 °C over: engages at the 4 W drawn, less 0.5 W; 3 W fits"},
		{1, 60, 45, 3, 1, 2.5, "2 °C over: 1 W less; activity 3 W / 0.75 = 4 W, so 2 W fits"},
		{1, 60, 42, 2, 1, 2.5, "in the band (41–43 °C): the cap holds"},
		{0.5, 60, 50, 2, 1, 2.5, "half a second: the skin is not read yet"},
		{0.5, 60, 40, 2, 2, 3, "1 °C under 41 °C: 0.5 W more; 3 W fits"},
		{0.1, 96, 40, 3, 2, 3, "the junction zone reaches 95 °C: one step down, to the skin's OPP 2"},
		{0.1, 97, 40, 3, 1, 3, "still rising: the junction zone takes the NPU under the skin's cap"},
		{0.8, 90, 40, 2, 2, 3.5, "1 °C under 41 °C: 3.5 W; the NPU drew 2 W at OPP 1 (the junction zone's), so its activity is 2/0.5 = 4 W and 3 W fits; the junction zone, below 93 °C and falling, gives one step back, to OPP 2"},
		{1, 80, 35, 3, 3, math.Inf(1), "6 °C under: 6.5 W, above the 3/0.75 = 4 W the NPU can draw: let go; the junction zone gives its last step back"},
	}
	for i, s := range steps {
		caps := g.Poll(s.elapsed, State{s.junction, s.skin}, map[string]float64{"npu": s.drew})
		if caps["npu"] != s.cap || math.Abs(sc.PowerCap()-s.powerCap) > 1e-12 && !math.IsInf(s.powerCap, 1) || math.IsInf(s.powerCap, 1) != math.IsInf(sc.PowerCap(), 1) {
			t.Errorf("step %d: npu cap %d, power cap %g W; want %d and %g W (%s)", i, caps["npu"], sc.PowerCap(), s.cap, s.powerCap, s.why)
		}
		if caps["dram"] != 1 {
			t.Errorf("step %d: dram, in no list, capped at %d", i, caps["dram"])
		}
	}
}

// TestSkinControllerSettles couples the default phone network to a
// skin_limit governor the way sim does, with a GPU decode of constant
// activity: 4 W into the GPU junction at its top OPP, f·V² lower at the
// others (0.903, 0.768, 0.632, 0.497, 0.361 GHz at 0.85 → 0.6 V, the 8 Gen 3
// GPU's table), and 1.2 W of DRAM and fabric into the package. At the top
// OPP the skin would settle at 25 + 4 × 5.55 + 1.2 × 5.55 = 53.9 °C
// (TestPackageClosedForm: 5.55274 K/W from the package or a junction to
// the skin), so the 43 °C limit must hold it. After the onset the cap must
// settle: in the last five minutes of twenty the GPU's OPP changes at most
// twice, the skin never passes 43.5 °C and stays above 40 °C.
func TestSkinControllerSettles(t *testing.T) {
	net, err := Compile(PhoneDefault())
	if err != nil {
		t.Fatal(err)
	}
	freq := []float64{0.361, 0.497, 0.632, 0.768, 0.903}
	volt := []float64{0.6, 0.65, 0.72, 0.78, 0.85}
	rel := make([]float64, len(freq))
	for i := range freq {
		rel[i] = freq[i] * volt[i] * volt[i] / (0.903 * 0.85 * 0.85)
	}
	gs := GovernorSpec{Kind: SkinLimitKind, Polling: 0.1,
		Skin: SkinLimit{Node: "skin", Limit: 43, Hysteresis: 2, Units: []string{"gpu"}}}
	g, err := NewGovernor(gs, net, OPPPower{"gpu": rel})
	if err != nil {
		t.Fatal(err)
	}
	gpu, pkg, skin := net.Index("gpu"), net.Index("package"), net.Index("skin")
	st, c, now := net.Ambient(), len(rel)-1, 0.0
	changes, lastC := 0, c
	hi, lo := math.Inf(-1), math.Inf(1)
	for now < 1200 {
		dt := max(g.Interval(), 0.25) // a decode step ends every 0.25 s
		p := make([]float64, net.Len())
		p[gpu], p[pkg] = 4*rel[c], 1.2
		st = net.Advance(st, st, p, dt)
		now += dt
		c = g.Poll(dt, st, map[string]float64{"gpu": p[gpu]})["gpu"]
		if now > 900 {
			if c != lastC {
				changes++
			}
			hi, lo = max(hi, st[skin]), min(lo, st[skin])
		}
		lastC = c
	}
	t.Logf("settled at OPP %d; last 5 min: %d changes, skin %.2f–%.2f °C", c, changes, lo, hi)
	if changes > 2 || hi > 43.5 || lo < 40 {
		t.Errorf("last 5 min: %d GPU OPP changes, skin %.2f–%.2f °C; want at most 2 changes and the skin within 40–43.5 °C", changes, lo, hi)
	}
	if c == len(rel)-1 || c == 0 {
		t.Errorf("settled at OPP %d: want a plateau between the extremes (the top overheats; the bottom, 1.0 W at the GPU, holds the skin %.1f °C under the limit)", c, 43-25-(4*rel[0]+1.2)*5.55274)
	}
}

// TestSkinControllerHoldsThroughRest: a reading while the units rest
// (think time between a chat's turns) shows next to nothing drawn, which
// says nothing of what they would draw unthrottled. The cap holds through
// it, and the next turn starts from it. Before, the cap was clamped to the
// resting draw (or let go), so the next turn started from wherever that
// left it, and an A17 Pro's chat-30 turn took 55 or 76 s on a 1% change of
// DRAM bandwidth. On TestSkinControllerSequence's set-up:
func TestSkinControllerHoldsThroughRest(t *testing.T) {
	gs := GovernorSpec{Kind: SkinLimitKind, Polling: 0.1,
		Skin: SkinLimit{Node: "skin", Limit: 43, Hysteresis: 2, Sampling: 1, Gain: 0.5, Units: []string{"npu"}}}
	g, err := NewGovernor(gs, zoneNet(t), OPPPower{"npu": {0.25, 0.5, 0.75, 1}, "dram": {0.5, 1}})
	if err != nil {
		t.Fatal(err)
	}
	sc := g.(*SkinController)
	for i, s := range []struct {
		skin, drew float64
		cap        int
		powerCap   float64
		why        string
	}{
		{44, 4, 2, 3.5, "1 °C over: engages at 4 W, less 0.5 W; 3 W fits"},
		{42, 0.05, 3, 3.5, "resting, in the band: the cap holds at 3.5 W (the resting NPU fits under it anywhere)"},
		{42, 3, 3, 3.5, "back at work at its top OPP, 3 W: the held cap lets it stay"},
		{45, 3, 2, 2.5, "2 °C over: 1 W less; activity 3 W, so 2.25 W fits"},
		{40, 0.05, 3, 3, "resting and 1 °C under 41 °C: 0.5 W more, below the 4 W it would draw unthrottled: held"},
		{38, 0.05, 3, math.Inf(1), "3 °C under: 4.5 W, past the 4 W: let go"},
	} {
		caps := g.Poll(1, State{60, s.skin}, map[string]float64{"npu": s.drew})
		if caps["npu"] != s.cap || math.IsInf(s.powerCap, 1) != math.IsInf(sc.PowerCap(), 1) || !math.IsInf(s.powerCap, 1) && math.Abs(sc.PowerCap()-s.powerCap) > 1e-12 {
			t.Errorf("step %d: npu cap %d, power cap %g W; want %d and %g W (%s)", i, caps["npu"], sc.PowerCap(), s.cap, s.powerCap, s.why)
		}
	}
}
