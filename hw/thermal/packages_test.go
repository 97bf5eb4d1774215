package thermal

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestPackageClosedForm puts a constant 10 W step into the GPU junction of
// each package and lets it settle. At steady state all 10 W leave through
// the package node, the other junctions (dead ends) sit at the package's
// temperature, and the GPU runs at ambient + 10 W × (R_gpu→package +
// R_package→ambient), the second term the series/parallel sum of the
// branches drawn in each package's comment:
//
//	tablet          6   + (1.2+5)∥(6+1.25)     = 6   + 6.2·7.25/13.45  = 9.34201 K/W
//	laptop-fanless  3   + (2.5+2.8)∥(6+0.93)   = 3   + 5.3·6.93/12.23  = 6.00319 K/W
//	laptop-fan      0.5 + (0.25+0.6)∥(2+0.5)   = 0.5 + 0.85·2.5/3.35   = 1.13433 K/W
//	board-fan       0.4 + (0.1+0.6)∥(5+4)      = 0.4 + 0.7·9/9.7       = 1.04948 K/W
//	board-heatsink  5   + (1+8)∥(10+12)        = 5   + 9·22/31         = 11.38710 K/W
//	board-bare      4   + 40∥(3+9)             = 4   + 40·12/52        = 13.23077 K/W
//	car-cabin       6   + (1+4)∥(8+10)         = 6   + 5·18/23         = 9.91304 K/W
//
// The phone's skin–board link closes a loop, so its package resistance is
// nodal analysis rather than a sum: with 1 W into the package and rises
// p, s, b above ambient,
//
//	(p−s)/1.5 + (p−b)/8          = 1
//	(s−p)/1.5 + (s−b)/9 + s/16   = 0
//	(b−p)/8   + (b−s)/9 + b/5    = 0
//
// give p = 6.45464, s = 5.55274, b = 3.26477 K/W (so 6 W of decode puts
// the skin at 25 + 6 × 5.55274 = 58.3 °C, as PhoneDefault documents), and
// the GPU runs at 6 + 6.45464 = 12.45464 K/W.
func TestPackageClosedForm(t *testing.T) {
	const watts = 10.0
	for _, c := range []struct {
		id             string
		ambient, rj, r float64 // °C; K/W junction to package; K/W package to ambient
	}{
		{"phone", 25, 6, 6.45464},
		{"tablet", 25, 6, 6.2 * 7.25 / 13.45},
		{"laptop-fanless", 25, 3, 5.3 * 6.93 / 12.23},
		{"laptop-fan", 25, 0.5, 0.85 * 2.5 / 3.35},
		{"board-fan", 25, 0.4, 0.7 * 9 / 9.7},
		{"board-heatsink", 25, 5, 9.0 * 22 / 31},
		{"board-bare", 25, 4, 40.0 * 12 / 52},
		{"car-cabin", 65, 6, 5.0 * 18 / 23},
	} {
		pkg, ok := LookupPackage(c.id)
		if !ok {
			t.Fatalf("no package %q", c.id)
		}
		net, err := Compile(pkg.Spec)
		if err != nil {
			t.Fatalf("%s: %v", c.id, err)
		}
		p := make([]float64, net.Len())
		p[net.Index("gpu")] = watts
		wantPkg := c.ambient + watts*c.r
		wantGPU := wantPkg + watts*c.rj
		// The step through the network itself, for ten of its slowest
		// time constants (e^-10 of the start is left), and the closed form.
		slow := net.TimeConstants()[0]
		end := net.Advance(nil, net.Ambient(), p, 10*slow)
		steady := net.Steady(p)
		for _, got := range []State{end, steady} {
			if g := got[net.Index("gpu")]; math.Abs(g-wantGPU) > 1e-3*wantGPU {
				t.Errorf("%s: GPU junction settles at %.4f °C, closed form %.4f °C", c.id, g, wantGPU)
			}
			if g := got[net.Index("package")]; math.Abs(g-wantPkg) > 1e-3*wantPkg {
				t.Errorf("%s: package settles at %.4f °C, closed form %.4f °C", c.id, g, wantPkg)
			}
			if g := got[net.Index("npu")]; math.Abs(g-wantPkg) > 1e-3*wantPkg {
				t.Errorf("%s: the unheated NPU junction settles at %.4f °C, not the package's %.4f °C", c.id, g, wantPkg)
			}
		}
	}
}

// TestPackages: every package compiles, its governor builds for a chip
// with every unit, its ambient is the documented one, and every figure has
// a source that names a field of the package.
func TestPackages(t *testing.T) {
	if ids := PackageIDs(); strings.Join(ids, ",") != "phone,tablet,laptop-fanless,laptop-fan,board-fan,board-heatsink,board-bare,car-cabin" {
		t.Errorf("packages %v", ids)
	}
	opps := OPPPower{"npu": {0.5, 1}, "cpu": {0.5, 1}, "gpu": {0.5, 1}, "dram": {0.5, 1}}
	for _, id := range PackageIDs() {
		pkg, _ := LookupPackage(id)
		net, err := Compile(pkg.Spec)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if _, err := NewGovernor(pkg.Governor, net, opps); err != nil {
			t.Errorf("%s: %v", id, err)
		}
		for _, n := range []string{"npu", "cpu", "gpu", "package"} {
			if net.Index(n) < 0 {
				t.Errorf("%s: no %s node; every package has the three junctions and the package", id, n)
			}
		}
		checkSources(t, id, pkg.Spec, pkg.Governor, pkg.Sources)
	}
}

// checkSources: every figure has a source, every source names a field
// that exists, and every source is "assumed: …" or a citation.
func checkSources(t *testing.T, id string, s Spec, g GovernorSpec, sources map[string]string) {
	t.Helper()
	need := []string{"thermal.ambient", "governor.kind", "governor.polling"}
	for _, n := range s.Nodes {
		need = append(need, "thermal.nodes."+n.Name+".capacity")
		if n.ToAmbient > 0 {
			need = append(need, "thermal.nodes."+n.Name+".to_ambient")
		}
	}
	for i := range s.Links {
		need = append(need, "thermal.links."+strconv.Itoa(i)+".resistance")
	}
	for i := range g.Trips {
		p := "governor.trips." + strconv.Itoa(i)
		need = append(need, p+".temp", p+".hysteresis")
		if g.Trips[i].Polling > 0 {
			need = append(need, p+".polling")
		}
	}
	if g.Kind == SkinLimitKind {
		need = append(need, "governor.skin.node", "governor.skin.limit", "governor.skin.hysteresis", "governor.skin.sampling", "governor.skin.gain")
	}
	exists := map[string]bool{"governor.skin.units": g.Kind == SkinLimitKind}
	for _, p := range need {
		exists[p] = true
		if src := sources[p]; strings.TrimSpace(src) == "" {
			t.Errorf("%s: no source for %s", id, p)
		}
	}
	for i := range g.Trips {
		exists["governor.trips."+strconv.Itoa(i)+".units"] = true
	}
	for p, src := range sources {
		if !exists[p] {
			t.Errorf("%s: a source for %q, which is not a field of the package", id, p)
		}
		if !strings.HasPrefix(src, "assumed: ") && !strings.ContainsAny(src, "(/") {
			t.Errorf("%s: %s: source %q is neither \"assumed: …\" nor a citation", id, p, src)
		}
	}
}
