package sim

import (
	"strconv"
	"strings"
	"testing"
)

// TestPMICLimitIsChecked: a chip that gives its supply's limit has every
// stretch of a run checked against it. Below the run's peak power, the
// stretches above it are counted and the worst is named; above the peak,
// none is; a chip that gives none is not checked.
func TestPMICLimitIsChecked(t *testing.T) {
	o := opts{chipSrc: minimalChip, model: "llama-3.2-1b", prompt: 64, gen: 16, fidelity: Analytic}
	plain := simulate(t, o)
	peak := plain.Energy.PeakPowerW
	if plain.Energy.PMICLimitW != 0 || plain.Energy.OverPMICS != 0 {
		t.Errorf("no limit given, yet limit %g W and %g s over it", plain.Energy.PMICLimitW, plain.Energy.OverPMICS)
	}
	for _, tc := range []struct {
		limit float64
		over  bool
	}{{peak * 0.999, true}, {peak * 1.001, false}} {
		o.chipSrc = minimalChip + "pmic_limit: " + formatW(tc.limit) + "\n"
		r := simulate(t, o)
		warned := false
		for _, w := range r.Warnings {
			warned = warned || strings.Contains(w, "drew more than the PMIC's")
		}
		if got := r.Energy.OverPMICS > 0; got != tc.over || warned != tc.over || r.Energy.PMICLimitW == 0 {
			t.Errorf("limit %.4f W against a peak of %.4f W: %g s over it, warned %v; want over %v", tc.limit, peak, r.Energy.OverPMICS, warned, tc.over)
		}
		if tc.over && r.Energy.OverPMICS > r.Time.Total {
			t.Errorf("%g s over the limit in a run of %g s", r.Energy.OverPMICS, r.Time.Total)
		}
	}
}

func formatW(w float64) string { return strconv.FormatFloat(w, 'f', 6, 64) + " W" }
