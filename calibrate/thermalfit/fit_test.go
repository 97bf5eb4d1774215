package thermalfit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/edgetwin/edgetwin/hw/thermal"
)

// threeNode is the known network the fit tests recover: a die hot spot, a
// package and a case that touches the air, in a chain. Its time constants
// are 462 s, 11.2 s and 3.09 s (printed by the test with -v).
func threeNode() thermal.Spec {
	return thermal.Spec{
		Ambient: 25,
		Nodes: []thermal.Node{
			{Name: "die", Kind: thermal.Junction, Capacity: 2},
			{Name: "pkg", Kind: thermal.Package, Capacity: 10},
			{Name: "case", Kind: thermal.Skin, Capacity: 80, ToAmbient: 5},
		},
		Links: []thermal.Link{
			{A: "die", B: "pkg", Resistance: 2},
			{A: "pkg", B: "case", Resistance: 1},
		},
	}
}

// synthCSV simulates spec exactly for seconds at a 1 s sample, the power
// stepping every 40 s to a new level (0.5–5 W into the die, 0–1 W into the
// package), and writes the series as a measured CSV with Gaussian noise of
// noise °C on every sensor, from a fixed seed. sensors names the nodes that
// have one.
func synthCSV(t testing.TB, spec thermal.Spec, seconds int, noise float64, sensors []string) []byte {
	net, err := thermal.Compile(spec)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	b.WriteString("# synthetic: a known three-node network, 1 s samples\ntime_s,power_die_w,power_pkg_w")
	for _, s := range sensors {
		b.WriteString(",temp_" + s + "_c")
	}
	b.WriteString("\n")
	temps := net.Ambient()
	p := make([]float64, net.Len())
	for i := 0; i <= seconds; i++ {
		if i > 0 {
			if (i-1)%40 == 0 {
				p[0], p[1] = 0.5+4.5*rng.Float64(), rng.Float64()
			}
			temps = net.Advance(temps, temps, p, 1)
		}
		fmt.Fprintf(&b, "%d,%.6g,%.6g", i, p[0], p[1])
		for _, s := range sensors {
			fmt.Fprintf(&b, ",%.4f", temps[net.Index(s)]+noise*rng.NormFloat64())
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// scaled multiplies every capacity and resistance of s by the factors, in
// AllParams order, cycling through them.
func scaled(s thermal.Spec, factors ...float64) thermal.Spec {
	out := cloneSpec(s)
	for j, p := range AllParams(s) {
		p.set(&out, p.get(s)*factors[j%len(factors)])
	}
	return out
}

func fitSynthetic(t *testing.T, start thermal.Spec, sensors []string, opt Options) *Result {
	t.Helper()
	data := synthCSV(t, threeNode(), 1200, 0.1, sensors)
	s, err := ReadSeries("synthetic.csv", data)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Bind(start, nil)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	r, err := Fit(context.Background(), start, d, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fit of %d parameters to %d rows: %v, %d evaluations", len(r.Params), r.Rows, time.Since(began).Round(time.Millisecond), r.Evaluations)
	return r
}

// checkRecovered checks the fitted time constants against the true
// network's within 5%, and every fitted value within 4σ of the truth (the
// uncertainties mean what they say).
func checkRecovered(t *testing.T, r *Result) {
	t.Helper()
	truth, _ := thermal.Compile(threeNode())
	want := truth.TimeConstants()
	for k, tc := range r.TimeConstants {
		sd := math.NaN()
		if tc.StdErr != nil {
			sd = *tc.StdErr
		}
		t.Logf("τ%d: true %.4g s, start %.4g s, fitted %.4g ± %.2g s (%+.2f%%)", k, want[k], tc.Start, tc.Value, sd, 100*(tc.Value/want[k]-1))
		if math.Abs(tc.Value/want[k]-1) > 0.05 {
			t.Errorf("time constant %d: fitted %.4g s, true %.4g s: more than 5%% off", k, tc.Value, want[k])
		}
	}
	spec := threeNode()
	for _, p := range r.Params {
		var truthV float64
		for _, q := range AllParams(spec) {
			if q.Path == p.Path {
				truthV = q.get(spec)
			}
		}
		if p.StdErr == nil {
			t.Errorf("%s: no uncertainty, though every node has a sensor", p.Path)
			continue
		}
		t.Logf("%s: true %g, fitted %.4g ± %.2g", p.Path, truthV, p.Value, *p.StdErr)
		if math.Abs(p.Value-truthV) > 4**p.StdErr {
			t.Errorf("%s: fitted %.4g ± %.2g, true %g: more than 4σ off", p.Path, p.Value, *p.StdErr, truthV)
		}
	}
	// Noise of 0.1 °C, so the residuals' RMS is 0.1 °C when the model is right.
	if r.RMSC < 0.09 || r.RMSC > 0.11 {
		t.Errorf("RMS residual %.4f °C; the noise is 0.1 °C", r.RMSC)
	}
}

func TestFitRecoversTimeConstants(t *testing.T) {
	// A starting guess within ×1.5 of the truth, some values high, some low.
	r := fitSynthetic(t, scaled(threeNode(), 1.5, 1/1.5, 1.3), []string{"die", "pkg", "case"}, Options{})
	checkRecovered(t, r)
}

func TestFitConvergesFromThreeTimesOff(t *testing.T) {
	for _, c := range []struct {
		name    string
		factors []float64
	}{
		{"all ×3", []float64{3}},
		{"all ÷3", []float64{1.0 / 3}},
		{"mixed", []float64{3, 1.0 / 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// One optimiser run, from the wrong start alone.
			checkRecovered(t, fitSynthetic(t, scaled(threeNode(), c.factors...), []string{"die", "pkg", "case"}, Options{Starts: 1}))
		})
	}
}

// TestFitWithoutEverySensor fits the chain with the package unmeasured:
// its start comes from the heat balance and is refined with the rest, and
// the time constants still come back within 5%.
func TestFitWithoutEverySensor(t *testing.T) {
	r := fitSynthetic(t, scaled(threeNode(), 1.5, 1/1.5, 1.3), []string{"die", "case"}, Options{})
	truth, _ := thermal.Compile(threeNode())
	for k, tc := range r.TimeConstants {
		want := truth.TimeConstants()[k]
		t.Logf("τ%d: true %.4g s, fitted %.4g s (%+.2f%%)", k, want, tc.Value, 100*(tc.Value/want-1))
		if math.Abs(tc.Value/want-1) > 0.05 {
			t.Errorf("time constant %d: fitted %.4g s, true %.4g s", k, tc.Value, want)
		}
	}
	if len(r.Sensors) != 2 || r.Sensors[1].Node != "case" {
		t.Errorf("sensors %+v", r.Sensors)
	}
}
