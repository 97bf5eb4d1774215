package thermal

import (
	"slices"

	"github.com/edgetwin/edgetwin/hw/units"
)

// Enclosure is a thermal package: the device a chip sits in, as a network and
// the governor that fits it, with the citation or reasoning of every figure.
// A chip names one (thermal_package: board-fan) instead of giving its own
// network; every package has junction nodes npu, cpu and gpu, so that each
// unit of a catalog chip heats its own hot spot.
type Enclosure struct {
	ID       string // what a chip file names: phone, board-fan, …
	Title    string // what a report prints: "fan-cooled dev board"
	Spec     Spec
	Governor GovernorSpec
	// Sources is keyed by field path as PhoneSources is.
	Sources map[string]string
}

// PackageIDs lists the ids of the catalog's enclosures in a fixed order.
func PackageIDs() []string {
	out := make([]string, len(packages))
	for i, p := range packages {
		out[i] = p.ID
	}
	return out
}

// LookupPackage returns the package of that id.
func LookupPackage(id string) (Enclosure, bool) {
	i := slices.IndexFunc(packages, func(p Enclosure) bool { return p.ID == id })
	if i < 0 {
		return Enclosure{}, false
	}
	return packages[i], true
}

// packages is the catalog, phone first: the default of a chip that names
// none.
var packages = []Enclosure{
	{ID: "phone", Title: "passive phone", Spec: PhoneDefault(), Governor: PhoneGovernor(), Sources: PhoneSources},
	tablet(),
	laptopFanless(),
	laptopFan(),
	boardFan(),
	boardHeatsink(),
	boardBare(),
	carCabin(),
}

// dieJunctions are the three hot spots every package has, each with the
// same capacity and resistance into the package node.
func dieJunctions(capacity, resistance float64) ([]Node, []Link) {
	var nodes []Node
	var links []Link
	for _, n := range []string{"npu", "cpu", "gpu"} {
		nodes = append(nodes, Node{Name: n, Kind: Junction, Capacity: units.JoulesPerKelvin(capacity)})
		links = append(links, Link{A: n, B: "package", Resistance: units.KelvinPerWatt(resistance)})
	}
	return nodes, links
}

// junctionTrips is one step_wise trip per junction at temp, lowering that
// junction's own unit.
func junctionTrips(temp, hysteresis float64) []Trip {
	var trips []Trip
	for _, n := range []string{"npu", "cpu", "gpu"} {
		trips = append(trips, Trip{Node: n, Temp: units.Celsius(temp), Hysteresis: units.Celsius(hysteresis), Units: []string{n}})
	}
	return trips
}

// withJunctionSources gives links 0–2 and the three junction capacities
// one source each.
func withJunctionSources(src map[string]string, capacity, resistance string) map[string]string {
	for i, n := range []string{"npu", "cpu", "gpu"} {
		src["thermal.nodes."+n+".capacity"] = capacity
		src["thermal.links."+string(rune('0'+i))+".resistance"] = resistance
	}
	return src
}

// withTripSources gives trips from..from+2 (the junction trips) the same
// temperature and hysteresis source.
func withTripSources(src map[string]string, from int, temp, hysteresis string) map[string]string {
	for i := from; i < from+3; i++ {
		p := "governor.trips." + string(rune('0'+i))
		src[p+".temp"] = temp
		src[p+".hysteresis"] = hysteresis
	}
	return src
}

// Citations the packages share.
const (
	srcAmbient25  = "assumed: 25 °C, room temperature, as the default phone (IEC 62368-1 touch limits are given at 25 °C ambient)"
	srcTegra234   = "Tegra234 (Jetson AGX Orin) thermal zones cpu, gpu, cv0–2, soc0–2, tj: passive sw-throttle trip 99 °C, hysteresis 0, critical sw-shutdown 104.5 °C, polling-delay and polling-delay-passive 1000 ms (Yi-Wei Wang, Jon Hunter, '[PATCH 2/2] arm64: tegra: Add thermal support for Tegra234', linux-tegra, 2023-01-24)"
	srcRK3588     = "Linux arch/arm64/boot/dts/rockchip/rk3588-base.dtsi thermal zones: big-core and little-core passive alert 85 °C, hysteresis 2 °C, polling-delay-passive 100 ms; critical 115 °C (the patch adding the RK3588 thermal zones, linux-rockchip list, 2024)"
	srcPiThrottle = "Raspberry Pi documentation, 'Frequency management and thermal control' (github.com/raspberrypi/documentation, computers/raspberry-pi/frequency-management.adoc): between 80 °C and 85 °C the Arm cores are progressively throttled back; at 85 °C both the Arm cores and the GPU are throttled"
	srcM2Trip     = "M2 MacBook Pro 13\" under a sustained video export reached 108 °C and throttled (Max Tech, reported by Cult of Mac, 'Severe thermal throttling in Apple M2 chip…', 2022; Ars Technica via readof.com: the M2 MacBook Air peaked at 108 °C, 97 °C with thermal pads)"
	srcTouch      = "EN/IEC 62368-1 Table 38 touch-temperature limits for plastic parts run from 48 °C (long contact) to 94 °C (brief contact) (Richard Nute / Scott Xe, emc-pstc list, 'Touch temperature limits for accessible parts', 2021-09-02); a first-degree skin burn starts at a skin temperature of ~44 °C (ibid.)"
	srcSoCTrip95  = "Linux arch/arm64/boot/dts/qcom/sc7280.dtsi, gpuss thermal zones: passive trip 95 °C, hysteresis 2 °C, polling-delay-passive 100 ms"
)

// tablet is an 11-inch tablet around a phone-class SoC: the phone's die
// and package, a larger aluminium back and more mass.
//
//	npu, cpu, gpu ──6── package ──1.2── skin ──5── ambient
//	                       └──6── board ──1.25── ambient
//
// From the package the two branches (6.2 and 7.25 K/W) give 3.342 K/W.
func tablet() Enclosure {
	nodes, links := dieJunctions(0.01, 6)
	return Enclosure{
		ID: "tablet", Title: "passive tablet",
		Spec: Spec{
			Ambient: 25,
			Nodes: append(nodes,
				Node{Name: "package", Kind: Package, Capacity: 3},
				Node{Name: "board", Kind: Board, Capacity: 380, ToAmbient: 1.25},
				Node{Name: "skin", Kind: Skin, Capacity: 15, ToAmbient: 5}),
			Links: append(links,
				Link{A: "package", B: "skin", Resistance: 1.2},
				Link{A: "package", B: "board", Resistance: 6}),
		},
		Governor: GovernorSpec{Kind: StepWiseKind, Polling: 0.1,
			Trips: append(junctionTrips(95, 2), Trip{Node: "skin", Temp: 43, Hysteresis: 2, Polling: 7, Units: []string{"npu", "cpu", "gpu", "dram"}})},
		Sources: withTripSources(withJunctionSources(map[string]string{
			"thermal.ambient":                srcAmbient25,
			"thermal.nodes.package.capacity": "assumed: the phone's 2 J/K and a larger shield and spreader: 3 J/K",
			"thermal.nodes.board.capacity":   "assumed: an 11-inch tablet of ~250 × 180 × 6 mm and ~470 g (the iPad Pro 11-inch class) at ~0.85 J/(g·K), less the skin region: 380 J/K; specific heats as PhoneSources",
			"thermal.nodes.board.to_ambient": "assumed: natural convection plus radiation h ≈ 10.8 W/(m²·K) (as the default phone) over 80% of the ~0.093 m² outer surface: 1/(10.8 × 0.075) ≈ 1.25 K/W",
			"thermal.nodes.skin.capacity":    "assumed: the region of the aluminium back over the SoC, ~20% of it, with its graphite spreader: 15 J/K",
			"thermal.nodes.skin.to_ambient":  "assumed: h ≈ 10.8 W/(m²·K) over 20% of the outer surface, 0.0187 m²: ≈ 5 K/W",
			"thermal.links.3.resistance":     "assumed: package to the aluminium back through TIM and spreader, a little better than the phone's 1.5 K/W: 1.2 K/W",
			"thermal.links.4.resistance":     "assumed: package into the larger PCB and frame: 6 K/W",
			"governor.kind":                  "assumed: step_wise, the Linux default, as the default phone",
			"governor.polling":               srcSoCTrip95,
			"governor.trips.3.temp":          "assumed: 43 °C, the default phone's skin trip (a tablet is held as a phone is); " + srcTouch,
			"governor.trips.3.polling":       "assumed: 7 s, as the default phone; " + srcSkinPoll,
			"governor.trips.3.hysteresis":    "assumed: 2 °C, as the default phone",
			"governor.trips.3.units":         "assumed: a skin limit throttles every heat source, as the default phone",
		}, "assumed: as the default phone's junctions (the same phone-class die)", "assumed: as the default phone's junctions, 6 K/W"),
			0, srcSoCTrip95, srcSoCTrip95),
	}
}

// laptopFanless is a fanless 13-inch aluminium laptop, the M2 MacBook Air:
// the SoC pasted onto the bottom case through graphite, with no heat
// spreader (iFixit's teardown), the rest of the chassis a second path.
//
//	npu, cpu, gpu ──3── package ──2.5── skin ──2.8── ambient
//	                       └──6── board ──0.93── ambient
//
// From the package: 5.3 ∥ 6.93 = 3.003 K/W.
func laptopFanless() Enclosure {
	nodes, links := dieJunctions(0.03, 3)
	return Enclosure{
		ID: "laptop-fanless", Title: "fanless laptop",
		Spec: Spec{
			Ambient: 25,
			Nodes: append(nodes,
				Node{Name: "package", Kind: Package, Capacity: 5},
				Node{Name: "board", Kind: Board, Capacity: 1000, ToAmbient: 0.93},
				Node{Name: "skin", Kind: Skin, Capacity: 80, ToAmbient: 2.8}),
			Links: append(links,
				Link{A: "package", B: "skin", Resistance: 2.5},
				Link{A: "package", B: "board", Resistance: 6}),
		},
		Governor: GovernorSpec{Kind: StepWiseKind, Polling: 0.1,
			Trips: append(junctionTrips(108, 2), Trip{Node: "skin", Temp: 48, Hysteresis: 2, Polling: 7, Units: []string{"npu", "cpu", "gpu", "dram"}})},
		Sources: withTripSources(withJunctionSources(map[string]string{
			"thermal.ambient":                srcAmbient25,
			"thermal.nodes.package.capacity": "assumed: a ~155 mm² die, its substrate and two LPDDR5 packages, graphite tape and paste: 5 J/K",
			"thermal.nodes.board.capacity":   "assumed: a ~1.24 kg 13-inch laptop at ~0.9 J/(g·K) (aluminium 0.90, battery ~1), less the skin region: 1000 J/K; no fan and no heat spreader (iFixit M2 MacBook Air teardown, reported by Digital Trends and Gizmodo, 2022)",
			"thermal.nodes.board.to_ambient": "assumed: h ≈ 10 W/(m²·K) (natural convection plus radiation, as the default phone) over 75% of a ~0.14 m² case (~304 × 215 × 11 mm): 1/(10 × 0.107) ≈ 0.93 K/W",
			"thermal.nodes.skin.capacity":    "assumed: the bottom case and keyboard deck over the SoC, ~25% of the ~1 mm aluminium case (~95 g at 0.90 J/(g·K)), less what the board lumps: 80 J/K",
			"thermal.nodes.skin.to_ambient":  "assumed: h ≈ 10 W/(m²·K) over 25% of the case, 0.036 m²: ≈ 2.8 K/W",
			"thermal.links.3.resistance":     "assumed: paste and graphite from the package to the bottom case with no spreader: 2.5 K/W",
			"thermal.links.4.resistance":     "assumed: package into the logic board and on to the battery and display: 6 K/W",
			"governor.kind":                  "assumed: step_wise, the Linux default; macOS's controller is not public",
			"governor.polling":               "assumed: 100 ms, as the default phone",
			"governor.trips.3.temp":          "assumed: 48 °C on the case, the lowest IEC 62368-1 limit for long contact with plastic (aluminium is held to lower limits; a lap is not a hand); " + srcTouch + "; an M2 MacBook Air's case measured ~50 °C under medium-heavy load (zimengx.netlify.app, 'The Macbook Air throttles a lot')",
			"governor.trips.3.hysteresis":    "assumed: 2 °C, as the default phone",
			"governor.trips.3.polling":       "assumed: 7 s, as the default phone (" + srcSkinPoll + "); the case answers a step of power more slowly still",
			"governor.trips.3.units":         "assumed: a skin limit throttles every heat source, as the default phone",
		}, "assumed: a block of the ~155 mm² M2 die, ~3× a phone block's silicon: 0.03 J/K", "assumed: spreading from a block of a larger die than a phone's: 3 K/W"),
			0, "assumed: 108 °C, where the M2 was seen to throttle; "+srcM2Trip, "assumed: 2 °C, as the default phone"),
	}
}

// laptopFan is a fan-cooled 16-inch laptop, the M2 Max MacBook Pro: a cold
// plate and heat pipes into two fans' fin stacks, the aluminium chassis a
// second path.
//
//	npu, cpu, gpu ──0.5── package ──0.25── heatsink ──0.6── ambient
//	                         └──2── skin ──0.5── ambient
//
// From the package: 0.85 ∥ 2.5 = 0.634 K/W.
func laptopFan() Enclosure {
	nodes, links := dieJunctions(0.05, 0.5)
	return Enclosure{
		ID: "laptop-fan", Title: "fan-cooled laptop",
		Spec: Spec{
			Ambient: 25,
			Nodes: append(nodes,
				Node{Name: "package", Kind: Package, Capacity: 15},
				Node{Name: "heatsink", Kind: Heatsink, Capacity: 150, ToAmbient: 0.6},
				Node{Name: "skin", Kind: Skin, Capacity: 1500, ToAmbient: 0.5}),
			Links: append(links,
				Link{A: "package", B: "heatsink", Resistance: 0.25},
				Link{A: "package", B: "skin", Resistance: 2}),
		},
		Governor: GovernorSpec{Kind: StepWiseKind, Polling: 0.1, Trips: junctionTrips(108, 2)},
		Sources: withTripSources(withJunctionSources(map[string]string{
			"thermal.ambient":                   srcAmbient25,
			"thermal.nodes.package.capacity":    "assumed: a ~500 mm² die, its substrate and four LPDDR5 packages under the cold plate: 15 J/K",
			"thermal.nodes.heatsink.capacity":   "assumed: heat pipes, two fin stacks and fans, ~200 g of copper and aluminium at 0.4–0.9 J/(g·K): 150 J/K",
			"thermal.nodes.heatsink.to_ambient": "assumed: the fin stacks with both fans at the speed they hold under a sustained load, so that 60 W settles the heatsink ~36 °C above ambient: 0.6 K/W; a fan curve is not modelled (a linear network has fixed resistances)",
			"thermal.nodes.skin.capacity":       "assumed: the chassis, battery, logic board and display of a ~2.2 kg 16-inch laptop at ~0.8 J/(g·K), less the heatsink: 1500 J/K",
			"thermal.nodes.skin.to_ambient":     "assumed: h ≈ 10 W/(m²·K) (as the default phone) over a ~0.2 m² case (~356 × 248 × 17 mm): 0.5 K/W",
			"thermal.links.3.resistance":        "assumed: TIM from the package into the cold plate and heat pipes: 0.25 K/W",
			"thermal.links.4.resistance":        "assumed: package into the logic board and on to the case: 2 K/W",
			"governor.kind":                     "assumed: step_wise, the Linux default; macOS's controller is not public",
			"governor.polling":                  "assumed: 100 ms, as the default phone",
		}, "assumed: a block of the ~500 mm² M2 Max die: 0.05 J/K", "assumed: spreading from a GPU block of ~150 mm², a tenth of a phone block's resistance per area: 0.5 K/W"),
			0, "assumed: 108 °C, where the M2 family was seen to throttle; "+srcM2Trip, "assumed: 2 °C, as the default phone"),
	}
}

// boardFan is a dev kit with its stock heatsink and fan: the Jetson AGX
// Orin developer kit, a 60 W (MAXN) module whose thermal transfer plate
// sits under a fan-cooled sink, on a carrier board.
//
//	npu, cpu, gpu ──0.4── package ──0.1── heatsink ──0.6── ambient
//	                         └──5── board ──4── ambient
//
// From the package: 0.7 ∥ 9 = 0.6495 K/W.
func boardFan() Enclosure {
	nodes, links := dieJunctions(0.05, 0.4)
	return Enclosure{
		ID: "board-fan", Title: "fan-cooled dev board",
		Spec: Spec{
			Ambient: 25,
			Nodes: append(nodes,
				Node{Name: "package", Kind: Package, Capacity: 60},
				Node{Name: "heatsink", Kind: Heatsink, Capacity: 400, ToAmbient: 0.6},
				Node{Name: "board", Kind: Board, Capacity: 80, ToAmbient: 4}),
			Links: append(links,
				Link{A: "package", B: "heatsink", Resistance: 0.1},
				Link{A: "package", B: "board", Resistance: 5}),
		},
		Governor: GovernorSpec{Kind: StepWiseKind, Polling: 1, Trips: junctionTrips(99, 0)},
		Sources: withTripSources(withJunctionSources(map[string]string{
			"thermal.ambient":                   srcAmbient25,
			"thermal.nodes.package.capacity":    "assumed: the module with its aluminium thermal transfer plate (~100 × 87 mm, ~70 g at 0.90 J/(g·K)) and the die: 60 J/K",
			"thermal.nodes.heatsink.capacity":   "assumed: the dev kit's finned aluminium sink, ~450 g at 0.90 J/(g·K): 400 J/K",
			"thermal.nodes.heatsink.to_ambient": "assumed: sink and fan at the speed they hold under a sustained load, sized so that the module's 60 W MAXN mode settles ~36 °C above ambient and its junctions below the 99 °C trip: 0.6 K/W; power modes 15/30/50 W and MAXN (60 W) from NVIDIA Jetson Linux Developer Guide, 'Platform Power and Performance' (nvpmodel); a fan curve is not modelled (a linear network has fixed resistances)",
			"thermal.nodes.board.capacity":      "assumed: the carrier board and its I/O, ~90 g at ~0.9 J/(g·K): 80 J/K",
			"thermal.nodes.board.to_ambient":    "assumed: a ~110 × 110 mm carrier board, both faces, h ≈ 10 W/(m²·K): ~4 K/W",
			"thermal.links.3.resistance":        "assumed: TIM between the thermal transfer plate and the sink: 0.1 K/W",
			"thermal.links.4.resistance":        "assumed: module connector and mounting into the carrier board: 5 K/W",
			"governor.kind":                     "assumed: step_wise, the Linux default, on the Tegra234 passive trips",
			"governor.polling":                  srcTegra234,
		}, "assumed: a block of the ~450 mm² Orin die: 0.05 J/K", "assumed: spreading from a GPU block of ~100 mm² into the module's plate: 0.4 K/W"),
			0, srcTegra234, srcTegra234),
	}
}

// boardHeatsink is a single-board computer with a passive finned heatsink
// on its SoC, as RK3588 boards (Radxa Rock 5B, Orange Pi 5) ship or are
// fitted.
//
//	npu, cpu, gpu ──5── package ──1── heatsink ──8── ambient
//	                       └──10── board ──12── ambient
//
// From the package: 9 ∥ 22 = 6.387 K/W.
func boardHeatsink() Enclosure {
	nodes, links := dieJunctions(0.01, 5)
	return Enclosure{
		ID: "board-heatsink", Title: "dev board with a passive heatsink",
		Spec: Spec{
			Ambient: 25,
			Nodes: append(nodes,
				Node{Name: "package", Kind: Package, Capacity: 2},
				Node{Name: "heatsink", Kind: Heatsink, Capacity: 40, ToAmbient: 8},
				Node{Name: "board", Kind: Board, Capacity: 40, ToAmbient: 12}),
			Links: append(links,
				Link{A: "package", B: "heatsink", Resistance: 1},
				Link{A: "package", B: "board", Resistance: 10}),
		},
		Governor: GovernorSpec{Kind: StepWiseKind, Polling: 0.1, Trips: junctionTrips(85, 2)},
		Sources: withTripSources(withJunctionSources(map[string]string{
			"thermal.ambient":                   srcAmbient25,
			"thermal.nodes.package.capacity":    "assumed: as the default phone's package, a flip-chip SoC of similar size: 2 J/K",
			"thermal.nodes.heatsink.capacity":   "assumed: a ~40 × 40 × 10 mm finned aluminium sink, ~45 g at 0.90 J/(g·K): 40 J/K",
			"thermal.nodes.heatsink.to_ambient": "assumed: natural convection from a ~40 × 40 × 10 mm finned sink, 6–12 K/W in small-heatsink datasheets: 8 K/W",
			"thermal.nodes.board.capacity":      "assumed: a ~100 × 72 mm board with its components, ~45 g at ~0.9 J/(g·K): 40 J/K",
			"thermal.nodes.board.to_ambient":    "assumed: both faces of a ~100 × 72 mm board, h ≈ 10 W/(m²·K) less what the parts shade: 12 K/W",
			"thermal.links.3.resistance":        "assumed: a thermal pad between the SoC and the sink: 1 K/W",
			"thermal.links.4.resistance":        "assumed: solder balls into the PCB planes: 10 K/W",
			"governor.kind":                     "assumed: step_wise, the Linux default (the RK3588 device tree prepares its zones for power_allocator)",
			"governor.polling":                  srcRK3588,
		}, "assumed: as the default phone's junctions (a phone-class 8 nm die)", "assumed: a little below the default phone's 6 K/W, the die's lid being bare to the sink: 5 K/W"),
			0, srcRK3588+"; the GPU and NPU zones assumed as the CPU's", srcRK3588),
	}
}

// boardBare is a single-board computer with nothing on its SoC, the
// Raspberry Pi 5 without its active cooler: the SoC's lid sheds a little
// heat to the air, the rest goes into the board's copper planes.
//
//	npu, cpu, gpu ──4── package ──40── ambient
//	                       └──3── board ──9── ambient
//
// From the package: 40 ∥ 12 = 9.231 K/W.
func boardBare() Enclosure {
	nodes, links := dieJunctions(0.01, 4)
	return Enclosure{
		ID: "board-bare", Title: "bare dev board",
		Spec: Spec{
			Ambient: 25,
			Nodes: append(nodes,
				Node{Name: "package", Kind: Package, Capacity: 2, ToAmbient: 40},
				Node{Name: "board", Kind: Board, Capacity: 40, ToAmbient: 9}),
			Links: append(links, Link{A: "package", B: "board", Resistance: 3}),
		},
		Governor: GovernorSpec{Kind: StepWiseKind, Polling: 1, Trips: []Trip{
			{Node: "cpu", Temp: 80, Hysteresis: 2, Units: []string{"cpu"}},
			{Node: "cpu", Temp: 85, Hysteresis: 2, Units: []string{"cpu", "gpu"}},
		}},
		Sources: withJunctionSources(map[string]string{
			"thermal.ambient":                  srcAmbient25,
			"thermal.nodes.package.capacity":   "assumed: as the default phone's package, a lidded flip-chip SoC: 2 J/K",
			"thermal.nodes.package.to_ambient": "assumed: natural convection from a ~17 × 17 mm lid, h ≈ 10 W/(m²·K) with its spreading into the board's air: 40 K/W",
			"thermal.nodes.board.capacity":     "assumed: an 85 × 56 mm board with its components, ~45 g at ~0.9 J/(g·K): 40 J/K",
			"thermal.nodes.board.to_ambient":   "assumed: both faces of an 85 × 56 mm board (0.0095 m²), h ≈ 12 W/(m²·K): ≈ 9 K/W",
			"thermal.links.3.resistance":       "assumed: solder balls into the board's thick copper planes, which the Pi uses as its heat spreader: 3 K/W",
			"governor.kind":                    "assumed: step_wise stands for the Pi firmware's own progressive throttling",
			"governor.polling":                 "assumed: 1 s, the firmware's polling interval is not published",
			"governor.trips.0.temp":            srcPiThrottle,
			"governor.trips.0.hysteresis":      "assumed: 2 °C, as the default phone",
			"governor.trips.1.temp":            srcPiThrottle,
			"governor.trips.1.hysteresis":      "assumed: 2 °C, as the default phone",
			"governor.trips.1.units":           srcPiThrottle,
		}, "assumed: as the default phone's junctions", "assumed: a little below the default phone's 6 K/W for the lidded 16 nm die: 4 K/W"),
	}
}

// carCabin is a fanless in-car module (a head unit or a box behind the
// dashboard) around a phone-class SoC, in a hot cabin: a finned aluminium
// enclosure as its heatsink, the board a second path, nobody's hand on it.
//
//	npu, cpu, gpu ──6── package ──1── heatsink ──4── ambient (65 °C)
//	                       └──8── board ──10── ambient
//
// From the package: 5 ∥ 18 = 3.913 K/W.
func carCabin() Enclosure {
	nodes, links := dieJunctions(0.01, 6)
	return Enclosure{
		ID: "car-cabin", Title: "in-car module in a hot cabin",
		Spec: Spec{
			Ambient: 65,
			Nodes: append(nodes,
				Node{Name: "package", Kind: Package, Capacity: 2},
				Node{Name: "heatsink", Kind: Heatsink, Capacity: 150, ToAmbient: 4},
				Node{Name: "board", Kind: Board, Capacity: 100, ToAmbient: 10}),
			Links: append(links,
				Link{A: "package", B: "heatsink", Resistance: 1},
				Link{A: "package", B: "board", Resistance: 8}),
		},
		Governor: GovernorSpec{Kind: StepWiseKind, Polling: 0.1, Trips: junctionTrips(95, 2)},
		Sources: withTripSources(withJunctionSources(map[string]string{
			"thermal.ambient":                   "assumed: 65 °C, the hot cabin of the edgetwin seeds' brief (issue 18): a car parked in the sun, within the 85 °C ambient of AEC-Q100 grade 3 parts",
			"thermal.nodes.package.capacity":    "assumed: as the default phone's package: 2 J/K",
			"thermal.nodes.heatsink.capacity":   "assumed: a finned aluminium enclosure of ~170 g at 0.90 J/(g·K): 150 J/K",
			"thermal.nodes.heatsink.to_ambient": "assumed: natural convection from a ~0.025 m² finned enclosure in still cabin air, h ≈ 10 W/(m²·K): 4 K/W",
			"thermal.nodes.board.capacity":      "assumed: the module's boards and connectors, ~110 g: 100 J/K",
			"thermal.nodes.board.to_ambient":    "assumed: the boards through the enclosure's other walls: 10 K/W",
			"thermal.links.3.resistance":        "assumed: a gap pad from the SoC to the enclosure: 1 K/W",
			"thermal.links.4.resistance":        "assumed: as the default phone's package to board: 8 K/W",
			"governor.kind":                     "assumed: step_wise, the Linux default",
			"governor.polling":                  srcSoCTrip95,
		}, "assumed: as the default phone's junctions (the seeds' phone-class die)", "assumed: as the default phone's junctions, 6 K/W"),
			0, srcSoCTrip95, srcSoCTrip95),
	}
}
