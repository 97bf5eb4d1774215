package thermal

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
)

// zoneNet is two nodes, npu (index 0) and skin (index 1); governors only
// read temperatures from it, so the figures do not matter.
func zoneNet(t testing.TB) *Network {
	t.Helper()
	net, err := Compile(Spec{Ambient: 25,
		Nodes: []Node{
			{Name: "npu", Kind: Junction, Capacity: 0.01},
			{Name: "skin", Kind: Skin, Capacity: 6, ToAmbient: 10},
		},
		Links: []Link{{A: "npu", B: "skin", Resistance: 5}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// TestStepWiseSequence walks one trip (npu at 95 °C, 2 °C hysteresis, so it
// clears at 93 °C) through a hand-built temperature sequence. The NPU has
// five OPPs (cap 4 is the top).
func TestStepWiseSequence(t *testing.T) {
	gs := GovernorSpec{Kind: StepWiseKind, Polling: 1, PassivePolling: 0.1,
		Trips: []Trip{{Node: "npu", Temp: 95, Hysteresis: 2, Units: []string{"npu"}}}}
	g, err := NewGovernor(gs, zoneNet(t), OPPPower{"npu": {0.1, 0.2, 0.4, 0.7, 1}, "gpu": {0.5, 1}})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		temp     float64
		cap      int
		interval float64
		why      string
	}{
		{90, 4, 1, "below the trip: top OPP, idle polling"},
		{95, 3, 0.1, "reaches the trip: one step down, passive polling"},
		{96, 2, 0.1, "still rising: another step"},
		{95.5, 2, 0.1, "above but cooling: hold"},
		{95.45, 1, 0.1, "above and level to within 0.1 °C: a step"},
		{96, 0, 0.1, "rising: down to OPP 0"},
		{97, 0, 0.1, "never below OPP 0"},
		{94, 0, 0.1, "below the trip, above trip − hysteresis: hold"},
		{93.5, 0, 0.1, "still in the band: hold"},
		{93, 1, 0.1, "at trip − hysteresis and cooling: a step back"},
		{92, 2, 0.1, "cooling: another step back"},
		{92.5, 2, 0.1, "warming below the band: hold"},
		{92.55, 3, 0.1, "level below the band to within 0.1 °C: a step back"},
		{90, 4, 1, "back at the top; idle polling again"},
		{89, 4, 1, "never above the top"},
	}
	for i, s := range steps {
		caps := g.Poll(g.Interval(), State{s.temp, 30}, nil)
		if caps["npu"] != s.cap {
			t.Errorf("poll %d at %g °C: npu cap %d, want %d (%s)", i, s.temp, caps["npu"], s.cap, s.why)
		}
		if caps["gpu"] != 1 {
			t.Errorf("poll %d: gpu, in no trip, capped at %d", i, caps["gpu"])
		}
		if got := g.Interval(); got != s.interval {
			t.Errorf("poll %d: interval %g s, want %g s (%s)", i, got, s.interval, s.why)
		}
	}
}

// TestStepWiseTwoTrips: a unit in two trips runs at the lower cap.
func TestStepWiseTwoTrips(t *testing.T) {
	gs := GovernorSpec{Kind: StepWiseKind, Polling: 0.1, Trips: []Trip{
		{Node: "npu", Temp: 95, Hysteresis: 2, Units: []string{"npu", "dram"}},
		{Node: "skin", Temp: 43, Hysteresis: 2, Units: []string{"npu"}},
	}}
	g, err := NewGovernor(gs, zoneNet(t), OPPPower{"npu": make([]float64, 8), "dram": make([]float64, 4)})
	if err != nil {
		t.Fatal(err)
	}
	// The skin heats for three polls, the junction crosses once, then stays
	// level in its band while the skin keeps heating.
	temps := []State{{90, 43}, {96, 44}, {94, 45}, {94, 46}}
	var caps Caps
	for _, s := range temps {
		caps = g.Poll(g.Interval(), s, nil)
	}
	// Skin trip: four steps (43, 44, 45, 46, all rising) → npu 7−4 = 3.
	// Junction trip: one step (96) → npu 6, dram 2; then holds in its band.
	if caps["npu"] != 3 || caps["dram"] != 2 {
		t.Errorf("caps %v, want npu 3 (the skin trip's, lower than the junction's 6) and dram 2", caps)
	}
	// The skin clears; the junction trip still holds npu one step down.
	for i := range 6 {
		caps = g.Poll(g.Interval(), State{94, 30 - float64(i)}, nil)
	}
	if caps["npu"] != 6 || caps["dram"] != 2 {
		t.Errorf("after the skin cools: caps %v, want npu 6 and dram 2 from the junction trip", caps)
	}
}

// allocator builds a power_allocator on the skin with target 43 °C and
// switch-on at 40 °C (1 °C hysteresis), 2 W sustainable, kernel default
// gains: k_po = 2/3, k_pu = 4/3, k_i = 2/15 W/°C.
func allocator(t testing.TB, npuWeight float64) *PowerAllocator {
	t.Helper()
	on := units.Celsius(40)
	gs := GovernorSpec{Kind: PowerAllocatorKind, Polling: 1, PassivePolling: 0.1, Budget: Budget{
		ControlNode: "skin", SwitchOn: &on, Hysteresis: 1, Target: 43, SustainablePower: 2,
		Units: []Actor{{Name: "npu", Weight: npuWeight}, {Name: "cpu"}},
	}}
	g, err := NewGovernor(gs, zoneNet(t), OPPPower{
		"npu":  {0.1, 0.2, 0.4, 0.7, 1},
		"cpu":  {0.2, 0.5, 1},
		"dram": {0.6, 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g.(*PowerAllocator)
}

func TestPowerAllocatorDefaults(t *testing.T) {
	kpo, kpu, ki, kd := allocator(t, 1).Gains()
	// Kernel defaults with ΔT = 43 − 40 = 3 °C.
	for _, g := range []struct {
		name      string
		got, want float64
	}{{"k_po", kpo, 2.0 / 3}, {"k_pu", kpu, 4.0 / 3}, {"k_i", ki, 4.0 / 30}, {"k_d", kd, 0}} {
		if math.Abs(g.got-g.want) > 1e-12 {
			t.Errorf("%s = %g, want %g", g.name, g.got, g.want)
		}
	}
}

// TestPowerAllocatorThrottles: the skin held 1 °C over the target. Each unit
// draws what it would at full activity on the cap it was given (NPU 4 W and
// CPU 2 W at their top OPPs), as a busy runtime would.
func TestPowerAllocatorThrottles(t *testing.T) {
	g := allocator(t, 1)
	activity := map[string]float64{"npu": 4, "cpu": 2}
	rel := map[string][]float64{"npu": {0.1, 0.2, 0.4, 0.7, 1}, "cpu": {0.2, 0.5, 1}}
	caps := Caps{"npu": 4, "cpu": 2, "dram": 1}
	drawn := func() map[string]float64 {
		p := map[string]float64{}
		for u, a := range activity {
			p[u] = a * rel[u][caps[u]]
		}
		return p
	}
	prevBudget := math.Inf(1)
	for i := range 12 {
		caps = g.Poll(0.1, State{80, 44}, drawn())
		b := g.Budget()
		// e = −1: budget = 2 − 2/3 − (i+1)·2/15 until it clamps at 0.
		want := math.Max(0, 2-2.0/3-float64(i+1)*2/15)
		if math.Abs(b-want) > 1e-9 {
			t.Errorf("poll %d: budget %.6f W, want %.6f W", i, b, want)
		}
		if b > prevBudget {
			t.Errorf("poll %d: budget rose from %g to %g W while the skin stays hot", i, prevBudget, b)
		}
		prevBudget = b
		if caps["dram"] != 1 {
			t.Errorf("poll %d: dram, not in the budget, capped at %d", i, caps["dram"])
		}
		if g.Interval() != 0.1 {
			t.Errorf("poll %d: interval %g s while on, want the passive 0.1 s", i, g.Interval())
		}
	}
	if caps["npu"] != 0 || caps["cpu"] != 0 {
		t.Errorf("after 12 hot polls caps are %v, want npu 0 and cpu 0 (budget 0)", caps)
	}
	// Cooling below switch-on − hysteresis (39 °C): reset, every cap to the top.
	caps = g.Poll(0.1, State{50, 38.5}, drawn())
	if caps["npu"] != 4 || caps["cpu"] != 2 || !math.IsInf(g.Budget(), 1) || g.Interval() != 1 {
		t.Errorf("below switch-on: caps %v, budget %g, interval %g; want the tops, +Inf, 1 s", caps, g.Budget(), g.Interval())
	}
	// Between 39 and 40 °C it stays off (hysteresis) ...
	if caps = g.Poll(0.1, State{50, 39.5}, drawn()); caps["npu"] != 4 || caps["cpu"] != 2 {
		t.Errorf("in the switch-on hysteresis band: caps %v, want the tops", caps)
	}
	// ... and switches on at 40 °C with a fresh integral: budget
	// 2 + 4/3·3 = 6 W, all the 6 W the units can draw: tops.
	if caps = g.Poll(0.1, State{50, 40}, drawn()); caps["npu"] != 4 || caps["cpu"] != 2 || math.Abs(g.Budget()-6) > 1e-9 {
		t.Errorf("at switch-on: caps %v, budget %g W; want the tops and 6 W", caps, g.Budget())
	}
}

// TestPowerAllocatorWeights: at the target the budget is the sustainable
// 2 W. NPU and CPU each draw 2 W at their tops. Equal weights give 1 W each;
// weight 2 on the NPU gives it 4/3 W and the CPU 2/3 W.
func TestPowerAllocatorWeights(t *testing.T) {
	drawn := map[string]float64{"npu": 2, "cpu": 2}
	for _, c := range []struct {
		weight   float64
		npu, cpu int
	}{
		{1, 2, 1}, // npu: 2·rel ≤ 1 → rel ≤ 0.5 → 0.4 (OPP 2); cpu: rel ≤ 0.5 → OPP 1
		{2, 2, 0}, // npu: rel ≤ 2/3 → OPP 2; cpu: 2·rel ≤ 2/3 → rel ≤ 1/3 → OPP 0
	} {
		g := allocator(t, c.weight)
		caps := g.Poll(0.1, State{80, 43}, drawn)
		if caps["npu"] != c.npu || caps["cpu"] != c.cpu {
			t.Errorf("npu weight %g: caps %v, want npu %d cpu %d", c.weight, caps, c.npu, c.cpu)
		}
	}
}

// TestShareByDemandAtTop: the budget is shared by what each unit would
// draw at its highest OPP at the activity it shows, not by what it drew
// under its cap. At the target the budget is the sustainable 2 W; the NPU
// runs at its top and draws 2 W, the CPU was capped at its bottom OPP
// (rel 0.2) and drew 0.4 W, the same activity. Shared by demand at top (2
// and 2 W) each gets 1 W: NPU rel ≤ 0.5 → OPP 2, CPU rel ≤ 0.5 → OPP 1.
// Shared by the power drawn (2 and 0.4 W), the CPU would get 1/3 W and
// stay at its bottom while the NPU rose to OPP 3: a unit once throttled
// would stay throttled, and which one that is would depend on history (an
// A17 Pro's sustained rate moved +53% on a 1% change of DRAM bandwidth).
func TestShareByDemandAtTop(t *testing.T) {
	g := allocator(t, 1)
	g.caps["cpu"] = 0
	caps := g.Poll(0.1, State{80, 43}, map[string]float64{"npu": 2, "cpu": 0.4})
	if caps["npu"] != 2 || caps["cpu"] != 1 {
		t.Errorf("caps %v, want npu 2 and cpu 1 (1 W each)", caps)
	}
}

// TestDivvy: a unit offered more than its maximum gives the surplus to the
// others by their headroom, as the kernel's divvy_up_power.
func TestDivvy(t *testing.T) {
	a := &PowerAllocator{actors: make([]actor, 2), budget: 4,
		maxPower: []float64{1, 5}, weighted: []float64{1, 1}, granted: make([]float64, 2)}
	a.divvy(2)
	// Shares 2 and 2; the first is capped at 1, its 1 W surplus goes to the
	// second (headroom 5 − 2 = 3, the only headroom left).
	if math.Abs(a.granted[0]-1) > 1e-12 || math.Abs(a.granted[1]-3) > 1e-12 {
		t.Errorf("granted %v, want [1 3]", a.granted)
	}
}

func TestIdleUnitKeepsTop(t *testing.T) {
	g := allocator(t, 1)
	caps := g.Poll(0.1, State{80, 50}, map[string]float64{"cpu": 2})
	if caps["npu"] != 4 {
		t.Errorf("an NPU that drew nothing is capped at %d, want its top 4", caps["npu"])
	}
}

func TestNewGovernorErrors(t *testing.T) {
	net := zoneNet(t)
	opps := OPPPower{"npu": {0.5, 1}, "dram": {1}}
	on := units.Celsius(45)
	tests := []struct {
		name, path, msg string
		gs              GovernorSpec
		opps            OPPPower
	}{
		{"bad kind", "governor.kind", "not allowed", GovernorSpec{Kind: "bang_bang", Polling: 1}, opps},
		{"no polling", "governor.polling", "positive", GovernorSpec{Kind: StepWiseKind, Trips: []Trip{{Node: "npu", Temp: 95, Units: []string{"npu"}}}}, opps},
		{"no trips", "governor.trips", "at least one trip", GovernorSpec{Kind: StepWiseKind, Polling: 1}, opps},
		{"unknown node", "governor.trips.0.node", `unknown thermal node "gpu"`, GovernorSpec{Kind: StepWiseKind, Polling: 1, Trips: []Trip{{Node: "gpu", Temp: 95, Units: []string{"npu"}}}}, opps},
		{"unknown unit", "governor.trips.0.units.1", `unknown unit "gpu"`, GovernorSpec{Kind: StepWiseKind, Polling: 1, Trips: []Trip{{Node: "npu", Temp: 95, Units: []string{"npu", "gpu"}}}}, opps},
		{"negative hysteresis", "governor.trips.0.hysteresis", "zero or positive", GovernorSpec{Kind: StepWiseKind, Polling: 1, Trips: []Trip{{Node: "npu", Temp: 95, Hysteresis: -1, Units: []string{"npu"}}}}, opps},
		{"no units", "governor.trips.0.units", "lowers no unit", GovernorSpec{Kind: StepWiseKind, Polling: 1, Trips: []Trip{{Node: "npu", Temp: 95}}}, opps},
		{"decreasing power", "governor", "non-decreasing", GovernorSpec{Kind: StepWiseKind, Polling: 1, Trips: []Trip{{Node: "npu", Temp: 95, Units: []string{"npu"}}}}, OPPPower{"npu": {1, 0.5}}},
		{"ipa without node", "governor.budget.control_node", "control_node", GovernorSpec{Kind: PowerAllocatorKind, Polling: 1, Budget: Budget{Target: 43, SustainablePower: 2, Units: []Actor{{Name: "npu"}}}}, opps},
		{"ipa switch above target", "governor.budget.switch_on", "below the target", GovernorSpec{Kind: PowerAllocatorKind, Polling: 1, Budget: Budget{ControlNode: "skin", SwitchOn: &on, Target: 43, SustainablePower: 2, Units: []Actor{{Name: "npu"}}}}, opps},
		{"ipa no power", "governor.budget.sustainable_power", "positive", GovernorSpec{Kind: PowerAllocatorKind, Polling: 1, Budget: Budget{ControlNode: "skin", Target: 43, Units: []Actor{{Name: "npu"}}}}, opps},
		{"ipa unknown unit", "governor.budget.units.gpu.name", `unknown unit "gpu"`, GovernorSpec{Kind: PowerAllocatorKind, Polling: 1, Budget: Budget{ControlNode: "skin", Target: 43, SustainablePower: 2, Units: []Actor{{Name: "gpu"}}}}, opps},
		{"skin without units", "governor.skin.units", "caps no unit", GovernorSpec{Kind: SkinLimitKind, Polling: 1, Skin: SkinLimit{Node: "skin", Limit: 43}}, opps},
		{"skin unknown node", "governor.skin.node", `unknown thermal node "back"`, GovernorSpec{Kind: SkinLimitKind, Polling: 1, Skin: SkinLimit{Node: "back", Limit: 43, Units: []string{"npu"}}}, opps},
		{"skin unknown unit", "governor.skin.units.0", `unknown unit "gpu"`, GovernorSpec{Kind: SkinLimitKind, Polling: 1, Skin: SkinLimit{Node: "skin", Limit: 43, Units: []string{"gpu"}}}, opps},
		{"skin no limit", "governor.skin.limit", "must be given", GovernorSpec{Kind: SkinLimitKind, Polling: 1, Skin: SkinLimit{Node: "skin", Units: []string{"npu"}}}, opps},
		{"zone polling", "governor.trips.0.polling", "positive and finite", GovernorSpec{Kind: StepWiseKind, Polling: 1, Trips: []Trip{{Node: "npu", Temp: 95, Polling: -1, Units: []string{"npu"}}}}, opps},
		{"ipa with trips", "governor.trips", "belong to step_wise", GovernorSpec{Kind: PowerAllocatorKind, Polling: 1, Trips: []Trip{{Node: "npu", Temp: 95, Units: []string{"npu"}}}, Budget: Budget{ControlNode: "skin", Target: 43, SustainablePower: 2, Units: []Actor{{Name: "npu"}}}}, opps},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewGovernor(tc.gs, net, tc.opps)
			var fe *spec.Error
			if !errors.As(err, &fe) {
				t.Fatalf("NewGovernor = %v, want a *spec.Error at %s", err, tc.path)
			}
			if fe.Path != tc.path || !strings.Contains(fe.Msg, tc.msg) {
				t.Errorf("NewGovernor: %q at %q, want %q at %q", fe.Msg, fe.Path, tc.msg, tc.path)
			}
		})
	}
}

func TestRelativePower(t *testing.T) {
	rel := RelativePower([]units.Hertz{1e9, 2e9}, []units.Volts{0.6, 0.9})
	// 1 GHz·0.36 V² against 2 GHz·0.81 V²: 0.36/1.62.
	if math.Abs(rel[0]-0.36/1.62) > 1e-15 || rel[1] != 1 {
		t.Errorf("RelativePower = %v, want [%g 1]", rel, 0.36/1.62)
	}
}

// TestPhoneThrottles couples the default phone network and governor the way
// sim will: advance exactly between polls, poll with what each unit drew,
// apply caps. With 6 W of decode power scaled by the NPU and CPU caps (f·V²
// of their OPPs), the skin controller must start throttling when it first
// reads the skin at or over its 42 °C limit, and then hold the skin near
// the limit instead of letting it run to its 58 °C steady state.
func TestPhoneThrottles(t *testing.T) {
	net, err := Compile(PhoneDefault())
	if err != nil {
		t.Fatal(err)
	}
	rel := []float64{0.15, 0.3, 0.5, 0.75, 1}
	opps := OPPPower{"npu": rel, "cpu": rel, "gpu": rel, "dram": {0.5, 0.75, 1}}
	gov, err := NewGovernor(PhoneGovernor(), net, opps)
	if err != nil {
		t.Fatal(err)
	}
	skin := net.Index("skin")
	caps := Caps{"npu": 4, "cpu": 4, "gpu": 4, "dram": 2}
	drawn := func() map[string]float64 {
		return map[string]float64{"npu": 3.6 * rel[caps["npu"]], "cpu": 1.2 * rel[caps["cpu"]], "dram": 1.2}
	}
	power := func() []float64 {
		d := drawn()
		return []float64{d["npu"], d["cpu"], 0, d["dram"], 0, 0}
	}
	limit := float64(PhoneGovernor().Skin.Limit)
	onset := net.TimeToReach(net.Ambient(), power(), skin, limit)
	st := net.Ambient()
	now, first, peak := 0.0, math.Inf(1), 0.0
	for now < 600 {
		dt := gov.Interval()
		st = net.Advance(st, st, power(), dt)
		now += dt
		peak = max(peak, st[skin])
		caps = gov.Poll(dt, st, drawn())
		if caps["npu"] < 4 && math.IsInf(first, 1) {
			first = now
		}
	}
	// The skin is read every 7 s (PhoneGovernor), so the first cap comes
	// within 7 s of the crossing, never before it.
	if first < onset || first > onset+7+1e-9 {
		t.Errorf("throttling began at %g s, the skin reaches %g °C at %g s (it is read every 7 s)", first, limit, onset)
	}
	if peak > limit+1.5 || st[skin] < limit-3 || st[skin] > limit+0.5 {
		t.Errorf("skin peaked at %.2f °C and ends at %.2f °C after 10 min; want it held near %g °C", peak, st[skin], limit)
	}
}

// TestStepWiseSettles: a constant load on a first-order zone. The skin of
// zoneNet, 6 J/K and 10 K/W to a 25 °C ambient (the npu junction, 0.01 J/K,
// only passes the heat on), settles at 25 + 10 K/W × P. The unit draws
// 1.5 W at its lowest OPP and 0.15 W more per step up to 3 W at its
// eleventh, so the settled skin runs 40, 41.5, 43, 44.5 … 55 °C: with a trip
// at 44 °C the highest OPP the trip sustains is OPP 2 (43 °C), which lies
// inside the 2 °C band (42–44 °C), and each step moves the settled
// temperature by 1.5 °C, less than the hysteresis. From ambient at the top
// OPP the governor must come down to OPP 2, never below it, and then hold.
// (The trip sits 1 °C above OPP 2's 43 °C: a zone read every 7 s that falls
// towards 43 °C looks level, within 0.1 °C a reading, once it is within
// 0.1 × τ/7 s = 0.86 °C of it, τ = 60 s; above the trip that would step
// once more.)
func TestStepWiseSettles(t *testing.T) {
	net := zoneNet(t)
	gs := GovernorSpec{Kind: StepWiseKind, Polling: 1, Trips: []Trip{
		{Node: "skin", Temp: 44, Hysteresis: 2, Polling: 7, Units: []string{"npu"}}}}
	rel := make([]float64, 11)
	for i := range rel {
		rel[i] = (1.5 + 0.15*float64(i)) / 3
	}
	g, err := NewGovernor(gs, net, OPPPower{"npu": rel})
	if err != nil {
		t.Fatal(err)
	}
	st, caps, now := net.Ambient(), Caps{"npu": 10}, 0.0
	lowest, changes := 10, 0
	for now < 1800 {
		dt := g.Interval()
		st = net.Advance(st, st, []float64{3 * rel[caps["npu"]], 0}, dt)
		now += dt
		next := g.Poll(dt, st, nil)
		if next["npu"] != caps["npu"] && now > 600 {
			changes++
		}
		caps = next
		lowest = min(lowest, caps["npu"])
	}
	if caps["npu"] != 2 || lowest != 2 || changes != 0 {
		t.Errorf("after 30 min: cap %d (lowest %d, %d changes in the last 20 min); want OPP 2 reached without undershoot and held", caps["npu"], lowest, changes)
	}
	// OPP 2 draws 1.8 W: the skin settles at 25 + 10 × 1.8 = 43 °C.
	if skin := st[net.Index("skin")]; math.Abs(skin-43) > 0.01 {
		t.Errorf("skin settled at %.3f °C, want 43 °C", skin)
	}
}

// closedLoop runs governor g against zoneNet with one unit, "npu", drawing
// watts × rel[cap] into the npu junction, from ambient, polling at the
// governor's intervals, for seconds. It returns, per poll after settle
// seconds, the cap, the power drawn and the skin temperature.
func closedLoop(t *testing.T, g Governor, net *Network, watts float64, rel []float64, seconds, settle float64) (caps []int, power, skin []float64) {
	t.Helper()
	st, c, now := net.Ambient(), len(rel)-1, 0.0
	for now < seconds {
		dt := g.Interval()
		p := watts * rel[c]
		st = net.Advance(st, st, []float64{p, 0}, dt)
		now += dt
		c = g.Poll(dt, st, map[string]float64{"npu": p})["npu"]
		if now > settle {
			caps, power, skin = append(caps, c), append(power, watts*rel[c]), append(skin, st[1])
		}
	}
	return caps, power, skin
}

func spread[T int | float64](xs []T) (lo, hi T) {
	lo, hi = xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// TestPowerAllocatorSettles: a constant load on a first-order zone settles,
// at the power and temperature the closed form gives, without a limit
// cycle. zoneNet's skin settles at 25 + 10 K/W × P (the junction only
// passes the heat on; τ = 6 J/K × 10 K/W ≈ 60 s). Below the target the
// kernel's integral does not accumulate (integral cutoff 0 °C), so as long
// as the skin approaches from below the budget is the proportional law
// SustainablePower + k_pu·e, and the steady state solves
//
//	SP + k_pu·e = (43 − e − 25)/10,  e = Target − T,
//	e = (1.8 − SP)/(k_pu + 0.1),
//
// with k_pu = 2·SP/(43 − 40) the kernel default. The unit draws 3.7 W at
// its top OPP and 0.037 W per step (100 OPPs, rel = k/100), so a budget is
// met within 0.037 W: the settled power is within 2% of the closed form
// and the cap moves by at most one OPP after settling.
func TestPowerAllocatorSettles(t *testing.T) {
	rel := make([]float64, 100)
	for k := range rel {
		rel[k] = float64(k+1) / 100
	}
	on := units.Celsius(40)
	for _, c := range []struct {
		sp, power, skin float64
		why             string
	}{
		// k_pu = 1.2: e = 0, the target, the sustainable power exact.
		{1.8, 1.8, 43, "sustainable power equal to what the zone sheds at the target"},
		// k_pu = 1: e = 0.3/1.1 = 0.2727 °C, P = 1.5 + 0.2727 = 1.7727 W.
		{1.5, 1.5 + 0.3/1.1, 43 - 0.3/1.1, "sustainable power 0.3 W short: a proportional offset below the target"},
	} {
		net := zoneNet(t)
		gs := GovernorSpec{Kind: PowerAllocatorKind, Polling: 1, PassivePolling: 0.1, Budget: Budget{
			ControlNode: "skin", SwitchOn: &on, Hysteresis: 1, Target: 43, SustainablePower: units.Watts(c.sp),
			Units: []Actor{{Name: "npu"}}}}
		g, err := NewGovernor(gs, net, OPPPower{"npu": rel})
		if err != nil {
			t.Fatal(err)
		}
		// Ten time constants to settle, five more minutes measured.
		caps, power, skin := closedLoop(t, g, net, 3.7, rel, 900, 600)
		if p := mean(power); math.Abs(p-c.power) > 0.02*c.power {
			t.Errorf("SP %g W (%s): settled power %.4f W, closed form %.4f W", c.sp, c.why, p, c.power)
		}
		if lo, hi := spread(caps); hi-lo > 1 {
			t.Errorf("SP %g W: after settling the cap moves between OPP %d and %d, want at most one step", c.sp, lo, hi)
		}
		// One OPP step is 0.037 W; through 10 K/W over a 60 s time
		// constant, a dither at the 0.1 s poll moves the skin by far less
		// than 0.05 °C.
		if lo, hi := spread(skin); hi-lo > 0.05 || math.Abs(mean(skin)-c.skin) > 0.05 {
			t.Errorf("SP %g W: skin %.3f–%.3f °C after settling, closed form %.3f °C", c.sp, lo, hi, c.skin)
		}
	}
}

// TestPowerAllocatorCoarseOPPs: with four OPPs (1, 2, 3, 4 W) and 1.8 W
// sustainable, no OPP holds the 43 °C target (2 W settles the skin at
// 45 °C, 1 W at 35 °C): the budget dithers between the two OPPs around
// 1.8 W, never reaching OPP 0 or the top once settled, and the skin stays
// within a degree of the target.
func TestPowerAllocatorCoarseOPPs(t *testing.T) {
	net := zoneNet(t)
	on := units.Celsius(40)
	gs := GovernorSpec{Kind: PowerAllocatorKind, Polling: 1, PassivePolling: 0.1, Budget: Budget{
		ControlNode: "skin", SwitchOn: &on, Hysteresis: 1, Target: 43, SustainablePower: 1.8,
		Units: []Actor{{Name: "npu"}}}}
	rel := []float64{0.25, 0.5, 0.75, 1}
	g, err := NewGovernor(gs, net, OPPPower{"npu": rel})
	if err != nil {
		t.Fatal(err)
	}
	caps, power, skin := closedLoop(t, g, net, 4, rel, 1200, 600)
	if lo, hi := spread(caps); lo != 0 || hi != 1 {
		t.Errorf("settled caps between OPP %d and %d, want 0 and 1 (1 and 2 W around 1.8 W)", lo, hi)
	}
	if p := mean(power); math.Abs(p-1.8) > 0.05*1.8 {
		t.Errorf("settled mean power %.3f W, want 1.8 W (what holds 43 °C) within 5%%", p)
	}
	if lo, hi := spread(skin); lo < 42 || hi > 44 {
		t.Errorf("skin %.2f–%.2f °C after settling, want within 1 °C of 43 °C", lo, hi)
	}
}
