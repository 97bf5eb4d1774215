package thermal

import (
	"math"
	"testing"
)

func phone(t testing.TB) *Network {
	t.Helper()
	net, err := Compile(PhoneDefault())
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// decodePower is P W of LLM decode: 60% NPU, 20% CPU, 20% in the package
// (DRAM and fabric), the split PhoneDefault's documentation uses.
func decodePower(p float64) []float64 { return []float64{0.6 * p, 0.2 * p, 0, 0.2 * p, 0, 0} }

// TestPhoneDocumented keeps the figures in PhoneDefault's comment and the
// package documentation true.
func TestPhoneDocumented(t *testing.T) {
	net := phone(t)
	tau := net.TimeConstants()
	for i, want := range []float64{564, 26.2, 2.03, 0.06} {
		if math.Abs(tau[i]-want) > 0.01*want {
			t.Errorf("time constant %d = %.4g s, documented %g s", i, tau[i], want)
		}
	}
	skin, npu := net.Index("skin"), net.Index("npu")
	for _, c := range []struct{ watts, skin43, skinSteady, npuSteady float64 }{
		{5, 200, 52.8, 75},
		{6, 81, 58.3, 85},
		{7, 51, 63.9, 95},
	} {
		p := decodePower(c.watts)
		tm := net.TimeToReach(net.Ambient(), p, skin, 43)
		st := net.Steady(p)
		if math.Abs(tm-c.skin43) > 1 || math.Abs(st[skin]-c.skinSteady) > 0.05 || math.Abs(st[npu]-c.npuSteady) > 0.5 {
			t.Errorf("%g W: skin at 43 °C after %.1f s (documented %g), steady skin %.2f (%g), npu %.2f (%g)",
				c.watts, tm, c.skin43, st[skin], c.skinSteady, st[npu], c.npuSteady)
		}
	}
	// The target: a phone at ~5–7 W reaches a 43 °C skin within
	// 1–3 minutes; 6 W sits in the middle.
	if tm := net.TimeToReach(net.Ambient(), decodePower(6), skin, 43); tm < 60 || tm > 180 {
		t.Errorf("6 W: skin reaches 43 °C after %.0f s, want 1–3 minutes", tm)
	}
	// Prefill bursts: 80% NPU, 10% CPU, 10% package.
	for _, c := range []struct{ watts, npu95, skin43 float64 }{{10, 17, 27}, {8, 98, 38}} {
		p := []float64{0.8 * c.watts, 0.1 * c.watts, 0, 0.1 * c.watts, 0, 0}
		j := net.TimeToReach(net.Ambient(), p, npu, 95)
		s := net.TimeToReach(net.Ambient(), p, skin, 43)
		if math.Abs(j-c.npu95) > 1 || math.Abs(s-c.skin43) > 1 {
			t.Errorf("%g W burst: NPU at 95 °C after %.1f s (documented %g), skin at 43 °C after %.1f s (documented %g)", c.watts, j, c.npu95, s, c.skin43)
		}
	}
}

func TestPhoneGovernor(t *testing.T) {
	opps := OPPPower{"npu": {0.5, 1}, "cpu": {0.5, 1}, "gpu": {0.5, 1}, "dram": {0.5, 1}}
	if _, err := NewGovernor(PhoneGovernor(), phone(t), opps); err != nil {
		t.Fatal(err)
	}
}

// TestPhoneSources: every figure of the default phone has a source, and
// every source names a field that exists.
func TestPhoneSources(t *testing.T) {
	checkSources(t, "phone", PhoneDefault(), PhoneGovernor(), PhoneSources)
}
