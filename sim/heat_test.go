package sim

import (
	"context"
	"fmt"
	"testing"

	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/workloads"
)

// TestHeatByPackage is issue 18's first point seen from a run: the device a
// chip names heats it. A Jetson AGX Orin on its fan-cooled dev kit decodes
// llama-2-7b Q4_0 for a minute without throttling (the issue measured a
// 157 ms onset when it was heated as a phone); an M2 Max in a fan-cooled
// laptop runs a sustained session for two minutes with its skin below
// 45 °C (it reached 47.6 °C and throttled at 19 s as a phone). The result
// says which package heated it.
func TestHeatByPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("three simulated minutes")
	}
	sustained, err := workloads.LoadScenario("sustained", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		chip, pkg string
		seconds   float64
	}{
		{"jetson-agx-orin", "board-fan", 60},
		{"apple-m2-max", "laptop-fan", 120},
	} {
		cfg := configFor(t, opts{chip: c.chip, prompt: 512})
		s := *sustained
		s.Duration = units.Seconds(c.seconds)
		cfg.Scenario = &s
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		th := r.Thermal
		skin := "none"
		if th.SkinPeakC != nil {
			skin = fmt.Sprintf("%.1f °C", *th.SkinPeakC)
		}
		t.Logf("%s (%s): %.0f s, junction %.1f °C, skin %s, %.2f W", c.chip, th.Device, r.Decode.Seconds+r.Prefill.Seconds, *th.PeakC, skin, *r.Energy.AvgPowerW)
		if th.Package != c.pkg || th.Device == "" || th.AmbientC != 25 {
			t.Errorf("%s: heated by %q (%q, %g °C), want the %s package at 25 °C", c.chip, th.Package, th.Device, th.AmbientC, c.pkg)
		}
		if th.ThrottleOnsetS != nil {
			t.Errorf("%s: throttled at %.1f s in its %s", c.chip, *th.ThrottleOnsetS, th.Device)
		}
		if th.SkinPeakC != nil && *th.SkinPeakC >= 45 {
			t.Errorf("%s: skin reached %.1f °C within %g s, want below 45 °C", c.chip, *th.SkinPeakC, c.seconds)
		}
		if r.Decode.Seconds+r.Prefill.Seconds < 0.8*c.seconds {
			t.Errorf("%s: only %.0f s of work in a %g s session", c.chip, r.Decode.Seconds+r.Prefill.Seconds, c.seconds)
		}
	}
}
