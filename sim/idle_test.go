package sim

import (
	"context"
	"math"
	"testing"

	"github.com/edgetwin/edgetwin/workloads"
)

// idlePower is the mean power of a chat's think time, from its series,
// with the screen off unless screen.
func idlePower(t *testing.T, screen bool, sets ...string) float64 {
	t.Helper()
	_, p := chatWith(t, screen, sets...)
	return p
}

// chatWith runs chat-30 on seed-c with the screen on or off and returns
// the result and the mean power of its think time.
func chatWith(t *testing.T, screen bool, sets ...string) (*Result, float64) {
	t.Helper()
	sc, err := workloads.LoadScenario("chat-30", nil)
	if err != nil {
		t.Fatal(err)
	}
	sc.Screen = screen
	cfg := configFor(t, opts{chip: "seed-c", model: "llama-3.2-1b", fidelity: Analytic, sets: sets})
	cfg.Scenario = sc
	series := &Series{}
	cfg.Series = series
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var j, s float64
	for _, p := range series.Points {
		if p.Phase == "idle" {
			j += p.PowerW * p.Seconds
			s += p.Seconds
		}
	}
	if s == 0 {
		t.Fatal("the chat has no think time")
	}
	return r, j / s
}

// TestRaceToIdle: between chat turns the SoC rests: after the 5 ms gate
// delay its units keep 5% of their leakage and the DRAM self-refreshes,
// so think time costs a small fraction of what it cost with nothing
// gated (the run's units leak about 0.45 W warm, the DRAM's background is
// 0.1 W); the always-on floor is paid throughout, so raising it by 0.5 W
// raises the think time's power by about that.
func TestRaceToIdle(t *testing.T) {
	gated := idlePower(t, false)
	awake := idlePower(t, false, "idle.gated_leakage=100%", "memory.dram.self_refresh_power=0.1W")
	if gated > 0.25*awake {
		t.Errorf("think time draws %.3f W gated, %.3f W with nothing gated: want under a quarter", gated, awake)
	}
	floor := idlePower(t, false, "idle.floor=0.53W")
	if d := floor - gated; math.Abs(d-0.5) > 0.02 {
		t.Errorf("a floor 0.5 W higher raised think time's power by %.3f W, want 0.5 (± the leakage its heat adds)", d)
	}
}

// TestScreenOn: with the screen on, the display draws idle.display for
// the whole session, a line of its own (display_j = 1 W × the session's
// seconds on the default phone), and think time costs that much more;
// its heat warms the skin.
func TestScreenOn(t *testing.T) {
	dark, darkIdle := chatWith(t, false)
	lit, litIdle := chatWith(t, true)
	if dark.Energy.Parts.Display != 0 {
		t.Errorf("screen off: display %g J", dark.Energy.Parts.Display)
	}
	if want := 1 * lit.Time.Total; math.Abs(lit.Energy.Parts.Display-want) > 1e-6*want {
		t.Errorf("screen on: display %.3f J, want 1 W × %.3f s", lit.Energy.Parts.Display, lit.Time.Total)
	}
	if d := litIdle - darkIdle; math.Abs(d-1) > 0.02 {
		t.Errorf("think time draws %.3f W more with the screen on, want 1 W (± the leakage its heat adds)", d)
	}
	if *lit.Thermal.SkinPeakC <= *dark.Thermal.SkinPeakC {
		t.Errorf("skin peaks at %.2f °C with the screen on, %.2f °C off", *lit.Thermal.SkinPeakC, *dark.Thermal.SkinPeakC)
	}
}
