package hw

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// The ids CONTRACT.md promises.
var contractChips = []string{
	"snapdragon-8-gen2", "snapdragon-8-gen3", "snapdragon-8-elite", "dimensity-9300",
	"apple-a17-pro", "apple-m2", "apple-m2-max", "jetson-orin-nano", "jetson-agx-orin",
	"raspberry-pi-5", "rk3588", "seed-a", "seed-b", "seed-c",
	// The further chips the public measurements need (issue 16).
	"rk3576", "snapdragon-8-elite-gen5", "snapdragon-x-elite",
}

func TestCatalogHasContractChips(t *testing.T) {
	have := map[string]bool{}
	for _, id := range ChipIDs() {
		have[id] = true
	}
	for _, id := range contractChips {
		if !have[id] {
			t.Errorf("catalog lacks %s", id)
		}
	}
}

// TestCatalogCitesEveryFigure: every figure a catalog file writes has a
// citation in its sources, and every default it leaves out is "assumed".
func TestCatalogCitesEveryFigure(t *testing.T) {
	for _, id := range ChipIDs() {
		c, err := LoadChip(id, nil)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		for _, p := range c.Provenance {
			if strings.HasPrefix(p.Source, id+".yaml:") {
				t.Errorf("%s: %s = %s has no citation in sources", id, p.Path, p.Value)
			}
		}
		// Citations must point at fields that exist.
		for path := range c.Sources {
			if !provenanceCovers(c.Provenance, path) {
				t.Errorf("%s: sources cites %s, which the chip does not have", id, path)
			}
		}
	}
}

func provenanceCovers(prov []spec.Entry, path string) bool {
	for _, p := range prov {
		if p.Path == path || strings.HasPrefix(p.Path, path+".") {
			return true
		}
	}
	return false
}

// TestCatalogRoundTrips: the file `catalog show` prints loads back to the
// same chip, and so does the chip encoded back to YAML.
func TestCatalogRoundTrips(t *testing.T) {
	for _, id := range ChipIDs() {
		src, _ := ChipSource(id)
		a, err := Load(id+".yaml", src, nil)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		out, err := spec.Encode(&a.SoC)
		if err != nil {
			t.Fatalf("%s: encode: %v", id, err)
		}
		b, err := Load("encoded.yaml", out, nil)
		if err != nil {
			t.Fatalf("%s: encoded form does not load: %v\n%s", id, err, out)
		}
		if !reflect.DeepEqual(a.SoC, b.SoC) {
			t.Errorf("%s: encoded chip differs after loading back:\n%s", id, out)
		}
	}
}

func TestSeedChipsExactFigures(t *testing.T) {
	// The teaching chips' figures are fixed by the course material (issue 2).
	for _, tc := range []struct {
		id                          string
		dram, sram, sramBW, l3, l3B float64
	}{
		{"seed-a", 44e9, 4 << 20, 128e9, 8 << 20, 64e9},
		{"seed-b", 32e9, 2 << 20, 96e9, 6 << 20, 48e9},
		{"seed-c", 51e9, 8 << 20, 192e9, 12 << 20, 80e9},
	} {
		c, err := LoadChip(tc.id, nil)
		if err != nil {
			t.Fatal(err)
		}
		npu := c.Unit("npu")
		got := []float64{float64(c.Memory.DRAM.Bandwidth), float64(npu.SRAM), float64(npu.SRAMBandwidth), float64(c.Memory.L3.Size), float64(c.Memory.L3.Bandwidth)}
		want := []float64{tc.dram, tc.sram, tc.sramBW, tc.l3, tc.l3B}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", tc.id, got, want)
		}
		if c.Memory.DRAM.Type != "LPDDR5" || npu.Peak["int8"] != 30e12 {
			t.Errorf("%s: want LPDDR5 and a nominal 30 TOPS INT8 NPU", tc.id)
		}
	}
}

// armDesign finds Arm core designs in a citation: Cortex-A76, A55, X4,
// A78AE.
var armDesign = regexp.MustCompile(`\b(?:Cortex-)?([AX]\d{1,3}(?:AE)?)\b`)

// designsCited is the number of distinct core designs a CPU's citation
// names.
func designsCited(cite string) int {
	seen := map[string]bool{}
	for _, m := range armDesign.FindAllStringSubmatch(cite, -1) {
		seen[m[1]] = true
	}
	lower := strings.ToLower(cite)
	if strings.Contains(lower, "performance core") && strings.Contains(lower, "efficiency core") {
		seen["apple-p"], seen["apple-e"] = true, true
	}
	return len(seen)
}

// TestCatalogMixedCPUsHaveClusters: a catalog CPU whose citation names more
// than one core design is described as clusters, each with its design, so
// a runtime's share goes by the core that runs (issue 16).
func TestCatalogMixedCPUsHaveClusters(t *testing.T) {
	if n := designsCited("4× Cortex-A76 @ 2.4 GHz + 4× Cortex-A55 @ 1.8 GHz"); n != 2 {
		t.Fatalf("designsCited finds %d designs in the RK3588's layout, want 2", n)
	}
	for _, id := range ChipIDs() {
		c, err := LoadChip(id, nil)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		for i := range c.Units {
			u := &c.Units[i]
			if u.Kind != CPU || designsCited(c.Sources["units."+u.Name]) < 2 {
				continue
			}
			if len(u.Clusters) == 0 {
				t.Errorf("%s: units.%s cites several core designs but has no clusters", id, u.Name)
			}
			for _, cl := range u.Clusters {
				if u.CoreOf(cl) == "" {
					t.Errorf("%s: units.%s.clusters.%s names no core design", id, u.Name, cl.Name)
				}
			}
		}
	}
}
