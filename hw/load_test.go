package hw

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/thermal"
	"github.com/edgetwin/edgetwin/hw/units"
)

// minimal is CONTRACT.md's smallest valid chip.
// minimal is CONTRACT.md's smallest chip, shipped as an example, without
// its comment lines (the tests locate errors by line).
var minimal = minimalChip()

func minimalChip() string {
	data, err := os.ReadFile("../examples/chips/minimal.yaml")
	if err != nil {
		panic(err)
	}
	var lines []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "")
}

func TestMinimalChipTakesDefaults(t *testing.T) {
	c, err := Load("min.yaml", []byte(minimal), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := float64(c.Memory.DRAM.Bandwidth); got != 68.3e9 {
		t.Errorf("bandwidth %v, want exactly 68.3e9", got)
	}
	if c.Unit("cpu") == nil {
		t.Fatal("a chip without a CPU must get the default one")
	}
	if c.Memory.L3.Size != 8<<20 || c.Memory.L3.NumSets() != 8192 {
		t.Errorf("default L3 %v with %d sets, want 8 MiB, 16 ways × 64 B × 8192 sets", c.Memory.L3.Size, c.Memory.L3.NumSets())
	}
	sources := map[string]string{}
	for _, p := range c.Provenance {
		sources[p.Path] = p.Source
	}
	for path, want := range map[string]string{
		"memory.dram.bandwidth":      "min.yaml:3",
		"memory.l3.size":             "assumed",
		"units.npu.clock":            "assumed",
		"units.cpu.cores":            "assumed",
		"units.cpu.peak.int8":        "derived: cores × clock × SIMD lanes × SIMD pipes × 2 ops (assumed)",
		"memory.dram.seq_efficiency": "assumed",
	} {
		if sources[path] != want {
			t.Errorf("provenance of %s = %q, want %q", path, sources[path], want)
		}
	}
	// Default CPU: 8 cores × 2.5 GHz × 16 int8 lanes × 2 pipes × 2 ops = 1.28 TOPS.
	if got := float64(c.Unit("cpu").Peak["int8"]); math.Abs(got-1.28e12) > 1 {
		t.Errorf("default CPU int8 peak %v, want 1.28e12", got)
	}
}

func TestDRAMBandwidthFromDataRate(t *testing.T) {
	src := strings.Replace(minimal, "bandwidth: 68.3 GB/s", "data_rate: 8533 MT/s, bus_width: 64", 1)
	c, err := Load("x.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	// 8533e6 transfers/s × 64 bits / 8 = 68.264 GB/s.
	if got := float64(c.Memory.DRAM.Bandwidth); math.Abs(got-68.264e9) > 1 {
		t.Errorf("derived bandwidth %v, want 68.264e9", got)
	}
}

// TestBadChips: every bad input is a one-line *spec.Error naming the file,
// line and field, and saying what is allowed.
func TestBadChips(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // substrings of the message
	}{
		{"unknown field", minimal + "colour: red\n", []string{"x.yaml:6", "colour", "allowed here"}},
		{"duplicate key", minimal + "name: again\n", []string{"x.yaml:6", "duplicate key \"name\"", "line 1"}},
		{"wrong type", strings.Replace(minimal, "capacity: 16 GiB", "capacity: [16]", 1), []string{"x.yaml:3", "memory.dram.capacity", "a list"}},
		{"missing required", strings.Replace(minimal, "name: Example phone SoC\n", "", 1), []string{"x.yaml:1", "missing required field name"}},
		{"missing bandwidth", strings.Replace(minimal, "bandwidth: 68.3 GB/s, ", "", 1), []string{"memory.dram", "bandwidth", "data_rate"}},
		{"NaN", strings.Replace(minimal, "68.3 GB/s", ".nan", 1), []string{"x.yaml:3", "memory.dram.bandwidth"}},
		{"infinite", strings.Replace(minimal, "68.3 GB/s", "1e400 GB/s", 1), []string{"x.yaml:3", "memory.dram.bandwidth"}},
		{"zero size", strings.Replace(minimal, "16 GiB", "0 GiB", 1), []string{"x.yaml:3", "memory.dram.capacity", "positive"}},
		{"negative rate", strings.Replace(minimal, "68.3 GB/s", "-5 GB/s", 1), []string{"x.yaml:3", "memory.dram.bandwidth"}},
		{"zero peak", strings.Replace(minimal, "45 TOPS", "0 TOPS", 1), []string{"x.yaml:5", "units.npu.peak.int8"}},
		{"bad unit", strings.Replace(minimal, "45 TOPS", "45 GHz", 1), []string{"x.yaml:5", "units.npu.peak.int8", "GHz"}},
		{"bad dtype", strings.Replace(minimal, "int8: 45", "int9: 45", 1), []string{"x.yaml:5", "int9", "int8"}},
		{"bad dram type", strings.Replace(minimal, "LPDDR5X", "SDRAM", 1), []string{"x.yaml:3", "memory.dram.type", "LPDDR5X"}},
		{"bad kind", strings.Replace(minimal, "kind: npu", "kind: tpu", 1), []string{"x.yaml:5", "units.npu.kind", "npu, gpu, cpu, dsp"}},
		{"cache geometry", minimal + "  # \n", nil}, // placeholder replaced below
		{"zero clock", strings.Replace(minimal, "peak: {int8: 45 TOPS}", "peak: {int8: 45 TOPS}, clock: 0 GHz", 1), []string{"x.yaml:5", "units.npu.clock", "positive"}},
		{"binary", "\x00\x01\x02name", []string{"x.yaml", "binary"}},
		{"unparsable", "name: [unclosed\n", []string{"x.yaml", "invalid YAML"}},
		{"empty", "", []string{"x.yaml", "empty"}},
		{"not a mapping", "- a\n- b\n", []string{"x.yaml:1", "mapping"}},
		{"overflowing int", strings.Replace(minimal, "kind: npu,", "kind: npu, cores: 99999999999999999999,", 1), []string{"x.yaml:5", "units.npu.cores"}},
		{"bad weight format", strings.Replace(minimal, "kind: npu,", "kind: npu, formats: [INT8, Q4_K_M],", 1), []string{"x.yaml:5", "units.npu.formats", "Q4_K_M", "Q4_K, Q5_K, Q6_K"}}, // a file type, not a storage format
		{"skin limit on a unit the chip lacks", minimal + "governor:\n  kind: skin_limit\n  polling: 100 ms\n  skin: {node: skin, limit: 43 C, units: [gpu]}\n", []string{"x.yaml:9", "governor.skin.units", `no unit "gpu"`}},
		{"negative count", strings.Replace(minimal, "kind: npu,", "kind: npu, cores: -2,", 1), []string{"x.yaml:5", "units.npu.cores", "positive"}},
		{"efficiency by format above 1", strings.Replace(minimal, "kind: npu,", "kind: npu, gemv_efficiency_by: {q4_0: 1.5},", 1), []string{"x.yaml:5", "units.npu.gemv_efficiency_by.q4_0", "(0, 1]"}},
		{"efficiency by bad format", strings.Replace(minimal, "kind: npu,", "kind: npu, gemm_efficiency_by: {Q4_0: 0.5},", 1), []string{"x.yaml:5", "units.npu.gemm_efficiency_by.Q4_0", "lower-case"}},
		{"core of an NPU", strings.Replace(minimal, "kind: npu,", "kind: npu, core: cortex-a76,", 1), []string{"x.yaml:5", "units.npu.core", "a CPU's cores"}},
		{"unknown core", minimal + "  - {name: cpu, kind: cpu, core: cortex-a99}\n", []string{"x.yaml:6", "units.cpu.core", "cortex-a99", "cortex-a76"}},
		{"unknown cluster core", minimal + "  - {name: cpu, kind: cpu, clusters: [{name: big, cores: 4, clock: 2 GHz, core: m1}]}\n", []string{"x.yaml:6", "units.cpu.clusters.big.core", `"m1"`, "apple-p"}},
		{"cluster efficiency above 1", minimal + "  - {name: cpu, kind: cpu, clusters: [{name: big, cores: 4, clock: 2 GHz, gemv_efficiency_by: {q4_0: 2}}]}\n", []string{"x.yaml:6", "units.cpu.clusters.big.gemv_efficiency_by.q4_0", "(0, 1]"}},
		{"barrier of an NPU", strings.Replace(minimal, "kind: npu,", "kind: npu, barrier: 1 us,", 1), []string{"x.yaml:5", "units.npu.barrier", "CPU's"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			if tc.name == "cache geometry" {
				src = strings.Replace(minimal, "memory:\n", "memory:\n  l3: {size: 10 MiB, ways: 12, line: 64 B}\n", 1)
				tc.want = []string{"x.yaml:3", "memory.l3.size", "ways × line"}
			}
			_, err := Load("x.yaml", []byte(src), nil)
			if err == nil {
				t.Fatal("loaded a bad chip")
			}
			if !spec.IsSpecError(err) {
				t.Errorf("error %T is not a *spec.Error", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("message spans lines: %q", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestOPPOutOfOrder(t *testing.T) {
	src := strings.Replace(minimal, "  - {name: npu, kind: npu, peak: {int8: 45 TOPS}}\n", `  - name: npu
    kind: npu
    peak: {int8: 45 TOPS}
    opp:
      - {freq: 1 GHz, volt: 0.8 V}
      - {freq: 0.5 GHz, volt: 0.6 V}
`, 1)
	_, err := Load("x.yaml", []byte(src), nil)
	if err == nil || !strings.Contains(err.Error(), "x.yaml:10:9: field units.npu.opp.1: OPP table out of order") {
		t.Errorf("got %v, want an error at line 10 naming units.npu.opp.1", err)
	}
}

func TestOverrides(t *testing.T) {
	set := func(s string) []spec.Override {
		o, err := spec.ParseOverride(s)
		if err != nil {
			t.Fatal(err)
		}
		return []spec.Override{o}
	}
	c, err := Load("x.yaml", []byte(minimal), set("memory.dram.bandwidth=80GB/s"))
	if err != nil || c.Memory.DRAM.Bandwidth != 80e9 {
		t.Fatalf("override: %v, %v", c, err)
	}
	c, err = Load("x.yaml", []byte(minimal), set("units.npu.peak.int8=60TOPS"))
	if err != nil || c.Unit("npu").Peak["int8"] != 60e12 {
		t.Fatalf("list entry by name: %v", err)
	}
	c, err = Load("x.yaml", []byte(minimal), set("memory.l3.size=4MiB"))
	if err != nil || c.Memory.L3.Size != 4<<20 || c.Memory.L3.Ways != 16 {
		t.Fatalf("override of a defaulted section keeps the other defaults: %v", err)
	}
	for _, bad := range []struct{ set, want string }{
		{"memory.dram.speed=1", `unknown path: memory.dram has no field "speed"; allowed: type, bandwidth`},
		{"units.gpu.clock=1GHz", `has no entry "gpu"; entries: npu`},
		{"memory.dram.bandwidth=fast", `set: field memory.dram.bandwidth: "fast" is not a bandwidth`},
		{"memory.dram.type.x=1", `single value`},
	} {
		_, err := Load("x.yaml", []byte(minimal), set(bad.set))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("--set %s: got %v, want %q", bad.set, err, bad.want)
		}
	}
}

func TestMissingFile(t *testing.T) {
	_, err := LoadFile(filepath.Join(t.TempDir(), "nope.yaml"), nil)
	if err == nil || !strings.Contains(err.Error(), "nope.yaml: cannot read chip file: no such file") {
		t.Errorf("got %v", err)
	}
	_, err = LoadChip("no-such-chip", nil)
	if err == nil || !strings.Contains(err.Error(), "seed-a") {
		t.Errorf("unknown id should list the catalog: %v", err)
	}
}

func TestLoadFileFromDisk(t *testing.T) {
	p := filepath.Join(t.TempDir(), "chip.yaml")
	if err := os.WriteFile(p, []byte(minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadChip(p, nil)
	if err != nil || c.Name != "Example phone SoC" {
		t.Fatalf("%v %v", c, err)
	}
}

func TestOverrideReachesDefaultThermalNetwork(t *testing.T) {
	set, _ := spec.ParseOverride("thermal.nodes.skin.to_ambient=4K/W")
	c, err := Load("x.yaml", []byte(minimal), []spec.Override{set})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range c.Thermal.Nodes {
		if n.Name == "skin" && n.ToAmbient != 4 {
			t.Errorf("skin to ambient %v, want the override", n.ToAmbient)
		}
	}
	for _, p := range c.Provenance {
		if p.Path == "thermal.nodes.skin.to_ambient" && p.Source != "--set" {
			t.Errorf("provenance %+v, want --set", p)
		}
		if p.Path == "thermal.nodes.skin.capacity" && !strings.HasPrefix(p.Source, "assumed: the default phone's") {
			t.Errorf("provenance %+v, want the default phone's citation", p)
		}
	}
}

func TestDefaultGovernorCitations(t *testing.T) {
	// The minimal chip has no GPU: the phone governor's gpu trip is dropped
	// and the skin trip becomes trips.2; its citation must stay the skin's.
	c, err := Load("x.yaml", []byte(minimal), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Provenance {
		if p.Path == "governor.trips.2.temp" && (p.Value != "43 °C" || !strings.Contains(p.Source, "skin")) {
			t.Errorf("%+v: want the skin trip's citation", p)
		}
	}
}

// TestCPUClusters: a CPU given as clusters takes its cores and clock from
// them, derives its peak cluster by cluster, and shares it among threads
// fastest cores first; a core count that contradicts the clusters,
// clusters out of order, or a cluster's core_bandwidth outside the DRAM
// bounds are errors naming the field.
func TestCPUClusters(t *testing.T) {
	const src = `name: clustered
memory:
  dram: {type: LPDDR5X, bandwidth: 60 GB/s, capacity: 8 GiB}
units:
  - name: cpu
    kind: cpu
    clusters:
      - {name: prime, cores: 1, clock: 3 GHz}
      - {name: little, cores: 3, clock: 2 GHz}
`
	c, err := Load("c.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	u := c.Unit("cpu")
	if u.Cores != 4 || u.Clock != 3e9 {
		t.Errorf("cores %d, clock %v; want 4 at 3 GHz", u.Cores, u.Clock)
	}
	// (1 × 3 + 3 × 2) GHz × 16 lanes × 2 pipes × 2 ops = 576 GOPS.
	if got := float64(u.Peak["int8"]); math.Abs(got-576e9) > 1 {
		t.Errorf("int8 peak %g, want 576e9", got)
	}
	for _, tc := range []struct {
		n    int
		want float64
	}{{1, 3.0 / 9}, {2, 5.0 / 9}, {4, 1}, {8, 1}} {
		if got := u.ThreadShare(tc.n); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%d threads: share %g, want %g", tc.n, got, tc.want)
		}
	}
	for _, bad := range []struct{ set, want string }{
		{"units.cpu.cores=6", "not the clusters' 4 cores"},
		{"units.cpu.clusters.little.clock=4GHz", "list clusters fastest first"},
		{"units.cpu.clusters.prime.core_bandwidth=1KB/s", "not a plausible DRAM bandwidth"},
	} {
		ov, err := spec.ParseOverride(bad.set)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Load("c.yaml", []byte(src), []spec.Override{ov}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("--set %s: %v, want %q", bad.set, err, bad.want)
		}
	}
}

// TestDRAMDraw: a unit draws the least of its fabric port and its cores'
// own draw, each cluster's cores at their own core_bandwidth (the unit's
// where the cluster gives none), filled fastest first; neither given,
// nothing caps it.
func TestDRAMDraw(t *testing.T) {
	for _, tc := range []struct {
		u    Unit
		want float64
	}{
		{Unit{Cores: 4, CoreBandwidth: 10e9}, 40e9},
		{Unit{Cores: 4, CoreBandwidth: 10e9, Bandwidth: 25e9}, 25e9},
		{Unit{Cores: 1, CoreBandwidth: 10e9, Bandwidth: 25e9}, 10e9},
		{Unit{Bandwidth: 25e9}, 25e9},
		{Unit{Cores: 8}, 0},
		// Three threads over a 20 GB/s prime core and 10 GB/s (the unit's)
		// big cores: 20 + 2 × 10 = 40 GB/s, under a 35 GB/s port 35.
		{Unit{Cores: 3, CoreBandwidth: 10e9, Clusters: []Cluster{{Name: "prime", Cores: 1, CoreBandwidth: 20e9}, {Name: "big", Cores: 3}}}, 40e9},
		{Unit{Cores: 3, CoreBandwidth: 10e9, Bandwidth: 35e9, Clusters: []Cluster{{Name: "prime", Cores: 1, CoreBandwidth: 20e9}, {Name: "big", Cores: 3}}}, 35e9},
		// One thread stays on the prime core: 20 GB/s, whatever the others.
		{Unit{Cores: 1, Clusters: []Cluster{{Name: "prime", Cores: 1, CoreBandwidth: 20e9}, {Name: "little", Cores: 4}}}, 20e9},
		// A little core with no draw of its own and none from the unit
		// leaves the cores unbounded.
		{Unit{Cores: 2, Clusters: []Cluster{{Name: "prime", Cores: 1, CoreBandwidth: 20e9}, {Name: "little", Cores: 4}}}, 0},
	} {
		if got := tc.u.DRAMDraw(); got != tc.want {
			t.Errorf("%+v: draw %g, want %g", tc.u, got, tc.want)
		}
	}
}

// TestSIMDPipesPerCluster: a cluster's own SIMD pipes weigh its cores in
// the peak and in the threads' share: a 4-pipe prime core at 3 GHz and
// three 2-pipe cores at 2 GHz make (12 + 12) GHz·pipes, so the prime core
// alone is half the CPU.
func TestSIMDPipesPerCluster(t *testing.T) {
	const src = `name: mixed pipes
memory:
  dram: {type: LPDDR5X, bandwidth: 60 GB/s, capacity: 8 GiB}
units:
  - name: cpu
    kind: cpu
    clusters:
      - {name: prime, cores: 1, clock: 3 GHz, simd_pipes: 4}
      - {name: little, cores: 3, clock: 2 GHz}
`
	c, err := Load("c.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	u := c.Unit("cpu")
	// (3 GHz × 4 + 3 × 2 GHz × 2) × 16 lanes × 2 ops = 768 GOPS.
	if got := float64(u.Peak["int8"]); math.Abs(got-768e9) > 1 {
		t.Errorf("int8 peak %g, want 768e9", got)
	}
	if got := u.ThreadShare(1); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("one thread: share %g, want 0.5", got)
	}
}

// TestGEMVByCluster: each cluster's GEMV share weighs by its cores' part
// of the peak of the cores a run uses, clusters filled fastest first: a
// 4-pipe prime core at 3 GHz (12 GHz·pipes) at 20% and three 2-pipe cores
// at 2 GHz (4 GHz·pipes each) at the unit's 10%.
func TestGEMVByCluster(t *testing.T) {
	u := Unit{Kind: CPU, Cores: 4, Clock: 3e9, SIMDPipes: 2, GEMVEfficiency: 0.1, GEMMEfficiency: 0.3,
		Clusters: []Cluster{{Name: "prime", Cores: 1, Clock: 3e9, SIMDPipes: 4, GEMVEfficiencyBy: map[string]units.Fraction{"q4_0": 0.2}}, {Name: "big", Cores: 3, Clock: 2e9}}}
	for _, tc := range []struct {
		cores int
		want  float64
	}{
		{1, 0.2},                            // the prime core alone
		{2, (12*0.2 + 4*0.1) / 16},          // and one big core
		{4, (12*0.2 + 3*4*0.1) / (12 + 12)}, // all
	} {
		u.Cores = tc.cores
		if got := u.Efficiency(1, "q4_0"); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%d cores: GEMV share %g, want %g", tc.cores, got, tc.want)
		}
	}
	// Formats the clusters give nothing for, and GEMMs, take the unit's.
	if got := u.Efficiency(1, "q8_0"); got != 0.1 {
		t.Errorf("q8_0 GEMV share %g, want the unit's 0.1", got)
	}
	if got := u.Efficiency(64, "q4_0"); got != 0.3 {
		t.Errorf("q4_0 GEMM share %g, want the unit's 0.3", got)
	}
}

// TestThermalPackages: every catalog chip names its device, which decides
// the network it is heated by; --set thermal_package moves a chip into
// another device but keeps the governor its file gives; an unknown package
// is an input error that lists the known ones.
func TestThermalPackages(t *testing.T) {
	want := map[string]string{
		"snapdragon-8-gen2": "phone", "snapdragon-8-gen3": "phone", "snapdragon-8-elite": "phone",
		"snapdragon-8-elite-gen5": "phone", "dimensity-9300": "phone", "apple-a17-pro": "phone",
		"apple-m2": "laptop-fanless", "apple-m2-max": "laptop-fan", "apple-m2-ultra": "laptop-fan", "snapdragon-x-elite": "laptop-fan",
		"jetson-orin-nano": "board-fan", "jetson-agx-orin": "board-fan", "raspberry-pi-5": "board-bare", "raspberry-pi-5-16gb": "board-bare",
		"rk3588": "board-heatsink", "rk3576": "board-heatsink", "seed-a": "phone", "seed-b": "phone", "seed-c": "phone",
	}
	for _, id := range ChipIDs() {
		c, err := LoadChip(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.ThermalPackage == "" || c.Heat.Package != want[id] {
			t.Errorf("%s names thermal package %q (heated by %q), want %q", id, c.ThermalPackage, c.Heat.Package, want[id])
		}
		if id == "snapdragon-8-gen3" {
			if !c.Heat.Own {
				t.Errorf("%s gives its own network, reported as the package's", id)
			}
			continue
		}
		pkg, _ := thermal.LookupPackage(want[id])
		if c.Heat.Own || c.Thermal.Ambient != pkg.Spec.Ambient || len(c.Thermal.Nodes) != len(pkg.Spec.Nodes) {
			t.Errorf("%s: heated by %+v, not the %s package's network", id, c.Heat, want[id])
		}
	}
	set := func(s string) []spec.Override {
		o, err := spec.ParseOverride(s)
		if err != nil {
			t.Fatal(err)
		}
		return []spec.Override{o}
	}
	// The Pi 5 with its active cooler: the fan-cooled network, the Pi
	// firmware's 80/85 °C trips.
	pi, err := LoadChip("raspberry-pi-5", set("thermal_package=board-fan"))
	if err != nil {
		t.Fatal(err)
	}
	if pi.Heat.Package != "board-fan" || slices.IndexFunc(pi.Thermal.Nodes, func(n thermal.Node) bool { return n.Kind == thermal.Heatsink }) < 0 {
		t.Errorf("--set thermal_package=board-fan: heated by %+v with nodes %v", pi.Heat, pi.Thermal.Nodes)
	}
	if len(pi.Governor.Trips) != 2 || pi.Governor.Trips[0].Temp != 80 || pi.Governor.Trips[1].Temp != 85 {
		t.Errorf("the Pi's own governor was replaced: %+v", pi.Governor.Trips)
	}
	// Replacing a file's own network, and citing the package's figures.
	sd, err := LoadChip("snapdragon-8-gen3", set("thermal_package=tablet"))
	if err != nil {
		t.Fatal(err)
	}
	if sd.Heat.Own || sd.Heat.Package != "tablet" || sd.Thermal.Nodes[4].Capacity != 380 {
		t.Errorf("--set thermal_package=tablet on a chip with its own network: %+v, nodes %v", sd.Heat, sd.Thermal.Nodes)
	}
	for _, p := range sd.Provenance {
		if p.Path == "thermal.nodes.board.capacity" && !strings.HasPrefix(p.Source, "assumed: the tablet package's") {
			t.Errorf("provenance %+v, want the tablet package's reasoning", p)
		}
	}
	_, err = LoadChip("jetson-agx-orin", set("thermal_package=server"))
	if err == nil || !strings.Contains(err.Error(), "thermal_package") || !strings.Contains(err.Error(), "board-heatsink") {
		t.Errorf("an unknown package: %v, want an error naming the field and the packages", err)
	}
}

// TestAppBudget: every chip's app budget is its device class's share of
// its DRAM, with its source, unless the file or --set gives one; a share
// past 100% is refused.
func TestAppBudget(t *testing.T) {
	set := func(s string) []spec.Override {
		o, err := spec.ParseOverride(s)
		if err != nil {
			t.Fatal(err)
		}
		return []spec.Override{o}
	}
	for id, share := range map[string]float64{"snapdragon-8-gen3": 0.6, "rk3588": 0.9, "apple-m2": 0.75, "jetson-agx-orin": 0.9} {
		c, err := LoadChip(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Memory.AppBudget() / float64(c.Memory.DRAM.Capacity); math.Abs(got-share) > 1e-9 {
			t.Errorf("%s: app budget %.3f of the DRAM, want %.2f", id, got, share)
		}
		for _, p := range c.Provenance {
			if p.Path == "memory.app_share" && p.Source == "" {
				t.Errorf("%s: app share has no source", id)
			}
		}
	}
	c, err := LoadChip("snapdragon-8-gen3", set("memory.app_share=80%"))
	if err != nil || c.Memory.AppShare != 0.8 {
		t.Errorf("--set memory.app_share=80%%: %v, %v", err, c)
	}
	if _, err := LoadChip("snapdragon-8-gen3", set("memory.app_share=120%")); err == nil || !strings.Contains(err.Error(), "at most 100%") {
		t.Errorf("a budget past the capacity: %v, want refused", err)
	}
}

// TestDecodeAtIsWholeDecode checks that a load decoding only the figures
// derive wrote gives the chip a whole second decode gives, for every chip
// of the catalog, as it is and with overrides that reach derived figures.
func TestDecodeAtIsWholeDecode(t *testing.T) {
	setss := [][]spec.Override{
		nil,
		{{Path: "memory.dram.bandwidth", Value: "33 GB/s", Origin: "--set"}},
		{{Path: "thermal_package", Value: "board-fan", Origin: "--set"}, {Path: "memory.swap.kind", Value: "storage", Origin: "--set"}},
	}
	for _, id := range ChipIDs() {
		for _, sets := range setss {
			got, gerr := LoadChip(id, sets)
			decodeWhole = true
			want, werr := LoadChip(id, sets)
			decodeWhole = false
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("%s %v: error %v, a whole decode's %v", id, sets, gerr, werr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %v: the chip differs from a whole decode's", id, sets)
			}
		}
	}
}

// TestStorageReadRate: a read costs about as long whatever its size up to
// tens of KiB, so a 24 KiB read reaches six times the 4 KiB random rate;
// a long one, the sequential rate and no more.
func TestStorageReadRate(t *testing.T) {
	s := Storage{ReadBandwidth: 5e9, RandomReadBandwidth: 400e6}
	for _, c := range []struct{ chunk, want float64 }{{4096, 400e6}, {24576, 2.4e9}, {1 << 20, 5e9}} {
		if got := s.ReadRate(c.chunk); math.Abs(got/c.want-1) > 1e-12 {
			t.Errorf("reads of %g B: %g B/s, want %g", c.chunk, got, c.want)
		}
	}
}
