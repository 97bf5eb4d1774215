package thermal

import "github.com/edgetwin/edgetwin/hw/units"

// PhoneDefault is a passive (fanless) 6.1-inch phone of about 170 g, the
// size of a Galaxy S24: three junction hot spots on the SoC die (npu, cpu,
// gpu), the SoC package with its PoP DRAM, the board (PCB, battery, frame,
// display: the bulk of the phone), and the skin, the region of the back
// cover over the SoC where a hand feels the heat. Ambient is 25 °C.
// PhoneSources gives the reasoning or citation of every figure.
//
//	npu, cpu, gpu ──6 K/W── package ──1.5 K/W── skin ──16 K/W── ambient
//	                           │                   │
//	                         8 K/W               9 K/W
//	                           │                   │
//	                         board ──────────────────── 5 K/W ── ambient
//
// Time constants (1/λ of the network): 564 s (the whole phone against the
// air), 26 s (the skin hot spot settling against the package), 2.0 s (the
// package), 60 ms (each junction hot spot). With the power of LLM decode
// (60% NPU, 20% CPU, 20% in the package: DRAM and fabric), from ambient:
//
//	total   skin reaches 43 °C   steady skin   steady NPU junction
//	5 W     200 s                52.8 °C       75 °C
//	6 W      81 s                58.3 °C       85 °C
//	7 W      51 s                63.9 °C       95 °C (after ~37 min)
//
// so at decode power the skin trip throttles first. A prefill burst that
// puts 80% of its power in the NPU (10% CPU, 10% package) reaches a 95 °C
// NPU junction in 17 s at 10 W, before the skin reaches 43 °C (27 s), and
// in 98 s at 8 W, after it (38 s). In steady state the skin hot spot rises
// ~1.7× as much as the board: the skin is far from uniform, hot spots
// forming over the SoC (Xie, Dousti, Pedram, Therminator, ISLPED 2014).
func PhoneDefault() Spec {
	return Spec{
		Ambient: 25,
		Nodes: []Node{
			{Name: "npu", Kind: Junction, Capacity: 0.01},
			{Name: "cpu", Kind: Junction, Capacity: 0.01},
			{Name: "gpu", Kind: Junction, Capacity: 0.01},
			{Name: "package", Kind: Package, Capacity: 2},
			{Name: "board", Kind: Board, Capacity: 135, ToAmbient: 5},
			{Name: "skin", Kind: Skin, Capacity: 6, ToAmbient: 16},
		},
		Links: []Link{
			{A: "npu", B: "package", Resistance: 6},
			{A: "cpu", B: "package", Resistance: 6},
			{A: "gpu", B: "package", Resistance: 6},
			{A: "package", B: "skin", Resistance: 1.5},
			{A: "package", B: "board", Resistance: 8},
			{A: "board", B: "skin", Resistance: 9},
		},
	}
}

// PhoneGovernor is the skin_limit governor for PhoneDefault, as Android
// phones run theirs: step_wise on the junction zones, polled every 100 ms
// (each junction at 95 °C lowers its own unit, as a tsens zone maps to its
// cooling device), under a vendor skin controller that reads the skin
// every 7 s, as thermal HALs read their virtual skin sensor, and holds it
// under 42 °C by capping the power of the NPU, CPU, GPU and DRAM; 2 °C of
// hysteresis everywhere.
func PhoneGovernor() GovernorSpec {
	return GovernorSpec{
		Kind:    SkinLimitKind,
		Polling: units.Seconds(0.1),
		Trips: []Trip{
			{Node: "npu", Temp: 95, Hysteresis: 2, Units: []string{"npu"}},
			{Node: "cpu", Temp: 95, Hysteresis: 2, Units: []string{"cpu"}},
			{Node: "gpu", Temp: 95, Hysteresis: 2, Units: []string{"gpu"}},
		},
		Skin: SkinLimit{Node: "skin", Limit: 42, Hysteresis: 2, Sampling: DefaultSkinSampling, Gain: DefaultSkinGain,
			Units: []string{"npu", "cpu", "gpu", "dram"}},
	}
}

// Citations used below.
const (
	srcS24      = "Samsung Galaxy S24: 147 × 70.6 × 7.6 mm, 168 g (https://en.wikipedia.org/wiki/Samsung_Galaxy_S24)"
	srcHeatCap  = "specific heats at 25 °C: silicon 0.71 J/(g·K) (1.64 J/(cm³·K)), aluminium 0.90, glass ~0.84 (https://en.wikipedia.org/wiki/Table_of_specific_heat_capacities)"
	srcConv     = "natural convection on a vertical plate h ≈ 1.42 (ΔT/L)^0.25 W/(m²·K) (https://www.engineersedge.com/heat_transfer/convection_heat_transfer_coefficients_13855.htm): 4.9 W/(m²·K) at ΔT = 20 K, L = 0.147 m; plus radiation εσ(Ts²+Ta²)(Ts+Ta) ≈ 6.0 W/(m²·K) at ε = 0.9"
	srcSC7280   = "Linux arch/arm64/boot/dts/qcom/sc7280.dtsi, gpuss thermal zones: passive trip 95 °C, hysteresis 2 °C, polling-delay-passive 100 ms (patch 'arm64: dts: qcom: sc7280: Add gpu thermal zone cooling support', 2021)"
	srcSkin     = "skin limit: most people feel heat pain touching surfaces above ~45 °C (Xie, Dousti, Pedram, 'Therminator: a thermal simulator for smartphones producing accurate chip and skin temperature maps', ISLPED 2014); Pixel 5a/4a-5G thermal HAL skin thresholds 41 °C (light) and 45 °C (moderate) (android.googlesource.com/device/google/bramble, commit 614ef46); Pixel 2 thermal-engine skin set points 40–47 °C with 1–3 °C clear (device/google/muskie thermal-engine.conf)"
	srcSkinPoll = "Pixel 10 (mustang) factory image, vendor/etc/thermal_info_config*.json read by the Pixel thermal HAL (hardware/google/pixel/thermal): the VIRTUAL-SKIN sensor has PassiveDelay 7000 ms (its reading interval while throttling), HotHysteresis 1.9 °C, HotThreshold 39/43/45 °C"
	srcSurfaceA = "outer area 2·(147 × 70.6) + 2·7.6·(147 + 70.6) mm² = 0.0241 m², from " + srcS24
)

// PhoneSources gives, for every figure of PhoneDefault and PhoneGovernor
// (keyed by field path as a chip file's sources are), its citation or
// "assumed: " and the reasoning.
var PhoneSources = map[string]string{
	"thermal.ambient": "assumed: 25 °C, room temperature; IEC 62368-1 touch-temperature limits are based on an ambient of 25 °C (IEC 63203-406-1 abstract, https://www.evs.ee/et/pren-iec-63203-406-1-2021)",

	"thermal.nodes.npu.capacity": "assumed: silicon within thermal reach of a ~10 mm² block in ~0.1 s (diffusion length √(αt) ≈ 3 mm in Si), ~6 mm³ of a thinned die: 6 mm³ × 1.64 J/(cm³·K) ≈ 0.01 J/K; " + srcHeatCap,
	"thermal.nodes.cpu.capacity": "assumed: as thermal.nodes.npu.capacity, the big-core cluster being a block of similar size",
	"thermal.nodes.gpu.capacity": "assumed: as thermal.nodes.npu.capacity",

	"thermal.nodes.package.capacity": "assumed: die (~100 mm² × 0.15 mm of Si, 0.025 J/K), substrate, mould and PoP DRAM (~1.5 g at ~0.8 J/(g·K)) and the local shield/TIM: ~2 J/K; " + srcHeatCap,

	"thermal.nodes.board.capacity":   "assumed: the phone's bulk, 168 g at ~0.85 J/(g·K) (battery ~1, glass 0.84, aluminium 0.90, steel 0.5, FR-4 ~1.1) ≈ 143 J/K, less the skin region and package: 135 J/K; mass from " + srcS24 + "; " + srcHeatCap,
	"thermal.nodes.board.to_ambient": "assumed: natural convection plus radiation, h ≈ 10.8 W/(m²·K) (" + srcConv + ") over the 76% of the outer surface not in the skin region (" + srcSurfaceA + "): 1/(10.8 × 0.0183) ≈ 5 K/W",

	"thermal.nodes.skin.capacity":   "assumed: the ~40% of the 0.6 mm glass back cover over the SoC that its graphite sheet spreads heat into, 0.0058 m² × 0.6 mm × 2.5 g/cm³ ≈ 8.7 g at 0.84 J/(g·K) = 7.3 J/K less the part lumped in the board, plus the spreader: ~6 J/K; " + srcHeatCap,
	"thermal.nodes.skin.to_ambient": "assumed: h ≈ 10.8 W/(m²·K) (" + srcConv + ") over 24% of the outer surface, 0.0058 m² (" + srcSurfaceA + "): 1/(10.8 × 0.0058) ≈ 16 K/W; board and skin together give 3.8 K/W, the whole phone's 1/(h·A)",

	"thermal.links.0.resistance": "assumed: spreading from a ~10 mm² NPU block through the thinned die into the package average, chosen so that 3–4 W in the block runs ~20 K above the package",
	"thermal.links.1.resistance": "assumed: as thermal.links.0.resistance, for the CPU big-core cluster",
	"thermal.links.2.resistance": "assumed: as thermal.links.0.resistance, for the GPU",
	"thermal.links.3.resistance": "assumed: package to back cover through TIM, shield can, vapour chamber or graphite stack: 1.5 K/W, so that at 6 W the NPU junction runs ~27 °C above the skin hot spot",
	"thermal.links.4.resistance": "assumed: package into the PCB through its solder balls and on to the rest of the phone, a weaker path than the one to the back cover: 8 K/W",
	"thermal.links.5.resistance": "assumed: lateral spreading from the skin region into the rest of the phone (frame, battery, display), chosen so that the hot spot's steady rise is ~1.7× the board's (the surface is far from uniform); with it 6 W of LLM decode brings the skin to 43 °C in ~80 s",

	"governor.kind":               "a vendor skin controller over the kernel's step_wise junction zones, as Android thermal HALs run (Pixel: hardware/google/pixel/thermal, a VIRTUAL-SKIN sensor with a PID power budget over its cooling devices); Samsung's and Apple's controllers are not public, so assumed alike",
	"governor.polling":            srcSC7280,
	"governor.trips.0.temp":       srcSC7280 + "; Pixel 2 thermal HAL: CPU sensors 95 °C at SEVERE (device/google/taimen thermal_info_config.json)",
	"governor.trips.0.hysteresis": srcSC7280,
	"governor.trips.1.temp":       srcSC7280 + "; Pixel 2 thermal HAL: CPU sensors 95 °C at SEVERE (device/google/taimen thermal_info_config.json)",
	"governor.trips.1.hysteresis": srcSC7280,
	"governor.trips.2.temp":       srcSC7280,
	"governor.trips.2.hysteresis": srcSC7280,
	"governor.skin.node":          "assumed: the skin node of this network, the back over the SoC, stands for the HAL's virtual skin sensor",
	"governor.skin.limit":         "42 °C: a Galaxy S25 Ultra (Snapdragon 8 Elite) running a 4-bit 1.2B model on its CPU throttled when its back reached 42 °C after about 3 minutes, 37 → 19 tokens/s, measured with an IR camera (NexaAI, r/LocalLLM 'What I learned from stress testing LLM on NPU vs CPU on a phone', 2025); " + srcSkin,
	"governor.skin.hysteresis":    "assumed: 2 °C, as the SoC zones; " + srcSkinPoll,
	"governor.skin.sampling":      srcSkinPoll + "; a skin answers a step of power over seconds (the package's 2 s, then the skin's own ~9 s), so a faster reading takes several steps before the first shows",
	"governor.skin.gain":          "assumed: 0.25 W/°C, the power cap's change per reading per °C over the limit (or under limit − hysteresis): this phone's skin rises ~3 °C per watt over the half minute a reading or two takes to show, so it corrects about three quarters of an excess per reading without overshoot",
	"governor.skin.units":         "assumed: a skin limit throttles every heat source it can, the memory clock included (Pixel 2's SKIN-MONITOR caps both CPU clusters and the GPU: device/google/muskie thermal-engine.conf)",
}
