package hw

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var regen = flag.Bool("regen", false, "rewrite golden files")

// TestDefaultsDoc keeps docs/defaults.md, the one documented table of
// assumed figures, equal to the Defaults table the loader applies.
func TestDefaultsDoc(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Defaults\n\n")
	b.WriteString("<!-- Generated from hw.Defaults by `go test ./hw -run TestDefaultsDoc -regen`; do not edit. -->\n\n")
	b.WriteString("Every field a chip file leaves out takes the value below and is reported as `assumed`\n")
	b.WriteString("in a result's `provenance`. `units.{kind}.…` rows apply to every unit of that kind. A chip\n")
	b.WriteString("that names no CPU gets one (`" + DefaultCPU + "`); a CPU without a peak gets one derived from\n")
	b.WriteString("cores × clock × SIMD lanes × SIMD pipes (2 assumed) × 2 ops, and a DRAM without a bandwidth gets\n")
	b.WriteString("data_rate × bus_width. `memory.app_share`, the share of the DRAM one app may hold, is its device\n")
	b.WriteString("class's (from `thermal_package`; `hw.AppShare`): a phone 60%, a tablet or laptop 75%, an in-car\n")
	b.WriteString("module 80%, a dev board 90%, each with its reason in provenance; `memory.swap.kind` likewise (a phone\n")
	b.WriteString("compresses memory, zram at an assumed 1.5 GB/s; a tablet or laptop swaps to storage at half its read\n")
	b.WriteString("bandwidth; a board or module has no swap).\n\n")
	b.WriteString("| field | default | based on |\n| --- | --- | --- |\n")
	for _, d := range Defaults {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", d.Path, d.Value, d.Why)
	}
	const path = "../docs/defaults.md"
	if *regen {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -regen to create it)", err)
	}
	if string(got) != b.String() {
		t.Errorf("%s is out of date with hw.Defaults; run go test ./hw -run TestDefaultsDoc -regen", path)
	}
}
