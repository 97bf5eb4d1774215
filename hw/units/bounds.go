package units

import (
	"fmt"
	"math"
	"strings"
)

// Bound is the plausible range of one kind of quantity in one role: a
// value outside it is a typing mistake (a bare number read in base units,
// a wrong prefix), not an unusual chip. The ranges are deliberately wide:
// they reach from microcontrollers to datacenter accelerators.
type Bound struct {
	Kind Kind
	// Role refines the kind ("dram", "cache", "cost", …); "" is the kind's
	// default, which every field of that kind without a role takes.
	Role string
	// Name is what the quantity is called in messages, e.g. "DRAM bandwidth".
	Name string
	// Min and Max are inclusive, in base units.
	Min, Max float64
	// Typical is a value in the middle of real use; a hint picks the unit
	// that puts a bare number nearest to it.
	Typical float64
	// Reason says where the limits come from (docs/bounds.md prints it).
	Reason string
}

// Bounds is the table of plausible ranges, one row per kind and role. A
// kind without a default row (fractions: their fields check their own
// ranges) is bounded only in the roles it lists. It
// is the one place the limits live; docs/bounds.md lists it with the
// reason for each row (a test keeps the two in step).
var Bounds = []Bound{
	{KindBytes, "", "size", 1, 1 << 50, 1 << 20,
		"1 B to 1 PiB: anything a chip file sizes, from a byte to the largest memory pools"},
	{KindBytes, "dram", "DRAM capacity", 64 << 10, 64 << 40, 16 << 30,
		"64 KiB (a microcontroller's PSRAM) to 64 TiB (a large server's DRAM)"},
	{KindBytes, "cache", "cache size", 1 << 10, 4 << 30, 8 << 20,
		"1 KiB to 4 GiB: the largest last-level caches (AMD 3D V-Cache EPYC, 1.1 GiB; MI300X Infinity Cache, 256 MiB) are well under it"},
	{KindBytes, "sram", "unit SRAM", 256, 64 << 30, 4 << 20,
		"256 B (a DSP's scratchpad) to 64 GiB (wafer-scale engines carry 44 GB on chip)"},
	{KindBytes, "line", "cache line or DRAM row", 4, 64 << 10, 64,
		"4 B to 64 KiB: cache lines are 32–128 B, DRAM rows (pages) 1–8 KiB"},

	{KindDuration, "", "duration", 0, 30 * 24 * 3600, 60,
		"0 to 30 days: sessions, think times, polling; simulated time is int64 picoseconds and ends at about 106 days"},
	{KindDuration, "cost", "per-operation cost", 0, 1, 10e-6,
		"0 to 1 s: latencies, dispatch, DMA set-up and hand-off costs are nanoseconds to milliseconds; a second per operation is already absurd"},
	{KindDuration, "init", "initialisation time", 0, 3600, 1,
		"0 to 1 h: loading or compiling a model's graph takes seconds to minutes"},

	{KindFrequency, "", "clock", 100e3, 10e9, 1e9,
		"100 kHz to 10 GHz: the slowest microcontroller clock worth simulating to beyond any shipping CPU"},

	{KindByteRate, "", "bandwidth", 1e3, 1e18, 100e9,
		"1 KB/s to 1 EB/s: any data path of a chip"},
	{KindByteRate, "dram", "DRAM bandwidth", 10e6, 20e12, 50e9,
		"10 MB/s (a microcontroller's QSPI PSRAM) to 20 TB/s (beyond an 8-stack HBM3e accelerator's 8 TB/s)"},
	{KindByteRate, "onchip", "on-chip bandwidth", 10e6, 1e18, 1e12,
		"10 MB/s to 1 EB/s: SRAM and cache ports, up to wafer-scale engines' 21 PB/s"},
	{KindByteRate, "storage", "storage bandwidth", 100e3, 1e12, 2e9,
		"100 KB/s (SPI flash) to 1 TB/s (a striped NVMe array)"},

	{KindOpRate, "", "op rate", 1e6, 1e18, 10e12,
		"1 MOPS (a small microcontroller) to 1 EOPS (beyond a wafer-scale engine's 125 PFLOPS)"},

	{KindPower, "", "power", 1e-6, 10e3, 1,
		"1 µW (a sleeping microcontroller) to 10 kW (beyond a datacenter accelerator's 1 kW)"},

	{KindEnergy, "", "energy", 1e-18, 1e8, 1,
		"1 aJ to 100 MJ: per-op energies to large batteries (a laptop's 100 Wh is 360 kJ)"},
	{KindEnergy, "per-op", "energy per operation or byte", 1e-18, 1e-6, 10e-12,
		"1 aJ to 1 µJ: an op costs femto- to picojoules, a DRAM byte picojoules to a nanojoule"},

	{KindTemperature, "", "temperature", -60, 150, 45,
		"−60 °C to 150 °C: automotive cold start to beyond every junction limit (125 °C)"},

	{KindThermalResistance, "", "thermal resistance", 1e-3, 1e4, 5,
		"0.001 K/W (a cold plate) to 10 000 K/W (a bare die in still air is under 1000)"},

	{KindHeatCapacity, "", "heat capacity", 1e-5, 1e6, 10,
		"10 µJ/K (a hot spot) to 1 MJ/K (a large server's heat sinks are kJ/K)"},

	{KindTransferRate, "", "transfer rate", 1e6, 100e9, 6.4e9,
		"1 MT/s to 100 GT/s: memory interfaces run at hundreds of MT/s (LPDDR4 on a microcontroller) to 32 GT/s (GDDR7)"},

	{KindVoltage, "", "voltage", 0.1, 5, 0.8,
		"0.1 V to 5 V: near-threshold logic to 5 V microcontroller rails"},

	{KindFraction, "per-c", "fraction per °C", 0, 0.5, 0.02,
		"0 to 50% per °C: leakage grows by a few per cent per degree"},
}

// BoundFor returns the row of Bounds for kind k and role, falling back on
// the kind's default row for an unknown or empty role.
func BoundFor(k Kind, role string) (Bound, bool) {
	var def Bound
	found := false
	for _, b := range Bounds {
		if b.Kind != k {
			continue
		}
		if b.Role == role {
			return b, true
		}
		if b.Role == "" {
			def, found = b, true
		}
	}
	return def, found
}

// HasRole reports whether some row of Bounds has role, so a decoder can
// refuse a misspelt role in a struct tag.
func HasRole(role string) bool {
	for _, b := range Bounds {
		if b.Role == role {
			return true
		}
	}
	return false
}

// Check reports, as a one-line message, why v (the value text reads as) is
// not plausible for b, or "" when it is. When text is a bare number it
// names the unit that would make it plausible: "85.3 — did you mean
// 85.3 GB/s?".
func (b Bound) Check(text string, v float64) string {
	if math.IsNaN(v) || (v >= b.Min && v <= b.Max) {
		return ""
	}
	t := strings.TrimSpace(text)
	msg := fmt.Sprintf("%s is not a plausible %s: allowed %s (see docs/bounds.md)", Format(v, b.Kind), b.Name, b.Range())
	if n, rest, ok := scanNumber(t); ok && rest == "" {
		base := "in " + baseUnit(b.Kind).sym
		if b.Kind == KindFraction {
			base = "a plain fraction"
		}
		msg = fmt.Sprintf("%s read as %s (a bare number is %s) is not a plausible %s: allowed %s (see docs/bounds.md)",
			t, Format(v, b.Kind), base, b.Name, b.Range())
		if u := b.hint(n); u != nil {
			sep := " "
			if u.flags&tight != 0 {
				sep = ""
			}
			msg += fmt.Sprintf("; %s — did you mean %s%s%s?", t, t, sep, u.sym)
		}
	}
	return msg
}

// Range renders [Min, Max] for messages: "10 MB/s to 20 TB/s".
func (b Bound) Range() string {
	return Format(b.Min, b.Kind) + " to " + Format(b.Max, b.Kind)
}

// hint is the unit of b's kind that puts the bare number n inside the
// bounds nearest to Typical (on a log scale), or nil. Sizes take binary
// prefixes, everything else decimal ones.
func (b Bound) hint(n number) *unit {
	var best *unit
	bestDist := math.Inf(1)
	for i := range unitTable {
		u := &unitTable[i]
		if u.kind != b.Kind || u.flags&listed == 0 || u.mul != 1 || u.factor == 1 {
			continue
		}
		if (b.Kind == KindBytes) != (u.exp2 > 0) {
			continue
		}
		v := u.value(n)
		if v < b.Min || v > b.Max || v <= 0 {
			continue
		}
		typ := b.Typical
		if typ <= 0 {
			typ = 1
		}
		if d := math.Abs(math.Log(v / typ)); d < bestDist {
			best, bestDist = u, d
		}
	}
	return best
}
