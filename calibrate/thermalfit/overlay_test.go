package thermalfit

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/thermal"
)

var regen = flag.Bool("regen", false, "rewrite the golden files in testdata")

// phoneSeries simulates the chip's network with some of its figures
// changed, 1 s samples for 15 minutes, power stepping every 30 s between
// decode-like (NPU, CPU, package) and idle levels, 0.05 °C of noise on the
// npu, package, board and skin sensors; it writes the measured CSV.
func phoneSeries(t *testing.T, net *thermal.Network) []byte {
	rng := rand.New(rand.NewPCG(3, 5))
	var b bytes.Buffer
	b.WriteString("time_s,power_npu_w,power_cpu_w,power_dram_w,temp_npu_c,temp_package_c,temp_board_c,temp_skin_c\n")
	temps := net.Ambient()
	p := make([]float64, net.Len())
	npu, cpu, pkg := net.Index("npu"), net.Index("cpu"), net.Index("package")
	for i := 0; i <= 900; i++ {
		if i > 0 {
			if (i-1)%30 == 0 {
				w := 6 * rng.Float64()
				p[npu], p[cpu], p[pkg] = 0.6*w, 0.2*w, 0.2*w
			}
			temps = net.Advance(temps, temps, p, 1)
		}
		fmt.Fprintf(&b, "%d,%.6g,%.6g,%.6g", i, p[npu], p[cpu], p[pkg])
		for _, n := range []string{"npu", "package", "board", "skin"} {
			fmt.Fprintf(&b, ",%.4f", temps[net.Index(n)]+0.05*rng.NormFloat64())
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// TestOverlayPathsApply proves the overlay's set: paths are chip paths:
// applied as --set overrides to the catalog chip (hw.LoadChip), they give a
// network whose time constants are the fitted ones. The series comes from
// the chip's network with three figures changed; the fit recovers them.
func TestOverlayPathsApply(t *testing.T) {
	const id = "snapdragon-8-gen3"
	chip, err := hw.LoadChip(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed := map[string]string{
		"thermal.nodes.skin.capacity":    "9 J/K",
		"thermal.links.3.resistance":     "2 K/W",
		"thermal.nodes.board.to_ambient": "4 K/W",
	}
	var sets []spec.Override
	for p, v := range changed {
		sets = append(sets, spec.Override{Path: p, Value: v, Origin: "--set"})
	}
	truthChip, err := hw.LoadChip(id, sets)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := thermal.Compile(*truthChip.Thermal)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadSeries("phone.csv", phoneSeries(t, truth))
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Bind(*chip.Thermal, UnitNodes(&chip.SoC))
	if err != nil {
		t.Fatal(err)
	}
	params, err := SelectParams(*chip.Thermal, []string{"thermal.nodes.skin.capacity", "thermal.links.3.resistance", "thermal.nodes.board.to_ambient", "thermal.nodes.board.capacity"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Fit(context.Background(), *chip.Thermal, d, Options{Params: params, Starts: 2})
	if err != nil {
		t.Fatal(err)
	}
	var ov struct {
		Source string            `yaml:"source"`
		Set    map[string]string `yaml:"set"`
	}
	text := Overlay(r, "test")
	if err := yaml.Unmarshal(text, &ov); err != nil {
		t.Fatalf("overlay is not YAML: %v\n%s", err, text)
	}
	if ov.Source != "test" || len(ov.Set) != len(params) {
		t.Fatalf("overlay source %q, %d set entries for %d parameters:\n%s", ov.Source, len(ov.Set), len(params), text)
	}
	sets = sets[:0]
	for p, v := range ov.Set {
		sets = append(sets, spec.Override{Path: p, Value: v, Origin: "calibrated:test"})
	}
	applied, err := hw.LoadChip(id, sets)
	if err != nil {
		t.Fatalf("the overlay's paths do not apply to %s: %v", id, err)
	}
	net, err := thermal.Compile(*applied.Thermal)
	if err != nil {
		t.Fatal(err)
	}
	got, want := net.TimeConstants(), truth.TimeConstants()
	for k, tc := range r.TimeConstants {
		// Six significant digits in the overlay: τ agrees to 1e-5.
		if math.Abs(got[k]/tc.Value-1) > 1e-5 {
			t.Errorf("τ%d of the chip with the overlay: %.6g s; fitted %.6g s", k+1, got[k], tc.Value)
		}
		// and the fit found the changed network (τ of 60 ms junctions are
		// untouched by these parameters, and 1 s samples cannot see them).
		if want[k] > 1 && math.Abs(tc.Value/want[k]-1) > 0.01 {
			t.Errorf("τ%d fitted %.4g s, the changed network's %.4g s", k+1, tc.Value, want[k])
		}
	}
	for _, p := range r.Params {
		if v, ok := changed[p.Path]; ok {
			t.Logf("%s: changed to %s, fitted %.4g ± %.2g", p.Path, v, p.Value, *p.StdErr)
		}
	}
}

// TestOverlayGolden pins the overlay's text for a hand-made result.
func TestOverlayGolden(t *testing.T) {
	sd := func(v float64) *float64 { return &v }
	r := &Result{
		Params: []Fitted{
			{Path: "thermal.nodes.skin.capacity", Unit: "J/K", Start: 6, Value: 8.98765432, StdErr: sd(0.0213)},
			{Path: "thermal.links.3.resistance", Unit: "K/W", Start: 1.5, Value: 2.0001234, StdErr: sd(0.00123)},
			{Path: "thermal.nodes.gpu.capacity", Unit: "J/K", Start: 0.01, Value: 0.0123},
		},
		TimeConstants: []TimeConstant{{Start: 564.2, Value: 480.1, StdErr: sd(1.2)}, {Start: 26.2, Value: 36.1, StdErr: sd(0.05)}, {Start: 0.06, Value: 0.061}},
		Sensors:       []SensorFit{{Node: "skin", RMSC: 0.0512, WorstC: -0.183, WorstAtS: 120, WorstLine: 122}},
		RMSC:          0.0512, WorstC: 0.183, Rows: 900,
		Warnings: []string{"the series cannot tell apart changes of thermal.nodes.gpu.capacity (their uncertainty is unbounded): fit fewer parameters (--fit) or measure more sensors or power steps"},
	}
	got := Overlay(r, "calibrate thermal: phone.csv (sha256:00) on snapdragon-8-gen3")
	path := filepath.Join("testdata", "overlay.yaml")
	if *regen {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("overlay differs from %s (rerun with -regen if intended):\n%s", path, got)
	}
	if strings.Count(string(got), "\n# Warning:") != 1 {
		t.Error("the warning is not a comment")
	}
}
