package hw

import (
	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/hw/thermal"
	"github.com/edgetwin/edgetwin/hw/units"
	"slices"
)

// SoC is a chip as the simulator sees it. Field paths (memory.dram.bandwidth,
// units.npu.peak.int8) are the YAML paths of CONTRACT.md.
type SoC struct {
	Name     string  `yaml:"name" spec:"required"`
	Vendor   string  `yaml:"vendor,omitempty"`
	Process  string  `yaml:"process,omitempty"`
	PriceUSD float64 `yaml:"price_usd,omitempty" spec:"nonneg"`
	Memory   Memory  `yaml:"memory" spec:"required"`
	Units    []Unit  `yaml:"units" spec:"required"`
	Storage  Storage `yaml:"storage,omitempty"`
	// Policy names the placement policy the chip's runtime uses by default
	// (a built-in id such as naive or kv-first, or a file).
	Policy string `yaml:"policy,omitempty"`
	DMA    DMA    `yaml:"dma,omitempty"`
	// Idle is what the SoC draws when it has nothing to do: units are
	// power-gated after a delay, and an always-on floor remains.
	Idle Idle `yaml:"idle,omitempty"`
	// PMICLimit is the most power the SoC's supply delivers at once (its
	// PMIC's rails); a stretch of a run that draws more is reported. Zero:
	// not checked (no catalog chip publishes one).
	PMICLimit units.Watts `yaml:"pmic_limit,omitempty"`
	// ThermalPackage names the device class the chip sits in, a package of
	// hw/thermal's catalog (phone, tablet, laptop-fanless, laptop-fan,
	// board-fan, board-heatsink, board-bare, car-cabin); its network and
	// governor fill Thermal and Governor where the file gives none.
	ThermalPackage string `yaml:"thermal_package,omitempty"`
	// Thermal is the chip's thermal RC network in its device, and Governor
	// the DVFS governor that reads it; absent, the named package's are
	// assumed, or the passive phone's (hw/thermal.PhoneDefault and
	// PhoneGovernor).
	Thermal  *thermal.Spec         `yaml:"thermal,omitempty"`
	Governor *thermal.GovernorSpec `yaml:"governor,omitempty"`
	Sources  map[string]string     `yaml:"sources,omitempty"`
}

// Memory is the hierarchy shared by all units: LPDDR and the last-level
// (system) cache in front of it.
type Memory struct {
	DRAM DRAM  `yaml:"dram" spec:"required"`
	L3   Cache `yaml:"l3,omitempty"`
	// AppShare is the share of the DRAM one app may hold (the rest is the
	// operating system's and the other apps'): by default its device
	// class's (AppShare).
	AppShare units.Fraction `yaml:"app_share,omitempty"`
	// Swap is where memory past the app's budget goes: compressed RAM
	// (zram, iOS's compressor), a swap file on storage, or nowhere.
	Swap Swap `yaml:"swap,omitempty"`
	// PageFault is what the operating system takes to give an app a
	// fresh 4 KiB page at its first touch (the fault, the allocation and
	// the mapping; the zeroing is charged apart, as DRAM writes): what a
	// buffer allocated on demand costs before it is used.
	PageFault units.Seconds `yaml:"page_fault,omitempty"`
}

// PageBytes is the page the operating system maps memory in.
const PageBytes = 4096

// Swap is the operating system's answer to an app past its budget.
type Swap struct {
	Kind string `yaml:"kind,omitempty" spec:"oneof=zram|storage|none"`
	// Bandwidth is the rate pages come back at (decompression for zram,
	// page-ins for a swap file).
	Bandwidth units.BytesPerSecond `yaml:"bandwidth,omitempty"`
}

// AppBudget is the DRAM one app may hold, in bytes.
func (m Memory) AppBudget() float64 { return float64(m.DRAM.Capacity) * float64(m.AppShare) }

// DRAM is the main memory. Bandwidth is the peak; when it is not given it is
// data_rate × bus_width.
type DRAM struct {
	Type      string                   `yaml:"type" spec:"required,oneof=LPDDR4|LPDDR4X|LPDDR5|LPDDR5X|LPDDR5T|DDR4|DDR5|GDDR6|HBM2|HBM3"`
	Bandwidth units.BytesPerSecond     `yaml:"bandwidth,omitempty" spec:"bound=dram"`
	Capacity  units.Bytes              `yaml:"capacity" spec:"bound=dram,required"`
	DataRate  units.TransfersPerSecond `yaml:"data_rate,omitempty"`
	BusWidth  int                      `yaml:"bus_width,omitempty" spec:"positive"` // bits
	// BandwidthDiffers says why Bandwidth differs on purpose from
	// data_rate × bus_width (a controller that runs the bus below its
	// rated speed, a peak quoted with fewer channels populated). Without
	// it a bandwidth more than 10% away from that product is an error.
	BandwidthDiffers string `yaml:"bandwidth_differs,omitempty"`
	// SeqEfficiency is the fraction of peak a long sequential stream achieves.
	SeqEfficiency units.Fraction `yaml:"seq_efficiency,omitempty"`
	// RandomPenalty is how many times slower random 4 KiB reads run than
	// sequential ones.
	RandomPenalty float64       `yaml:"random_penalty,omitempty" spec:"positive"`
	Latency       units.Seconds `yaml:"latency,omitempty" spec:"bound=cost"`
	// RowSize is the DRAM page: accesses within an open row are row hits.
	RowSize units.Bytes `yaml:"row_size,omitempty" spec:"bound=line"`
	// EnergyPerByte is the energy of moving one byte between DRAM and the
	// SoC (array, I/O and controller); StaticPower the background power
	// (refresh, standby) while the run lasts.
	EnergyPerByte units.Joules `yaml:"energy_per_byte,omitempty" spec:"bound=per-op"`
	StaticPower   units.Watts  `yaml:"static_power,omitempty"`
	// SelfRefreshPower is what the DRAM draws once the SoC idles and it
	// holds its contents in self-refresh.
	SelfRefreshPower units.Watts `yaml:"self_refresh_power,omitempty"`
	// Levels are the shares of Bandwidth the memory clock can be capped
	// to, ascending: the DRAM's operating points as the governor sees them.
	Levels []units.Fraction `yaml:"levels,omitempty"`
}

// Cache is a set-associative cache. Size must equal ways × line × sets.
type Cache struct {
	Size      units.Bytes          `yaml:"size,omitempty" spec:"bound=cache"`
	Ways      int                  `yaml:"ways,omitempty" spec:"positive"`
	Line      units.Bytes          `yaml:"line,omitempty" spec:"bound=line"`
	Sets      int                  `yaml:"sets,omitempty" spec:"positive"`
	Bandwidth units.BytesPerSecond `yaml:"bandwidth,omitempty" spec:"bound=onchip"`
	Latency   units.Seconds        `yaml:"latency,omitempty" spec:"bound=cost"`
	// SharedBy names the units that allocate in this cache; empty means all.
	SharedBy []string `yaml:"shared_by,omitempty"`
	// Replacement is the replacement policy: lru, srrip (scan-resistant)
	// or brrip (thrash-resistant).
	Replacement string `yaml:"replacement,omitempty" spec:"oneof=lru|srrip|brrip"`
	// EnergyPerByte is the energy of one byte read from or written to the
	// cache.
	EnergyPerByte units.Joules `yaml:"energy_per_byte,omitempty" spec:"bound=per-op"`
}

// Shares reports whether unit name allocates in the cache.
func (c Cache) Shares(name string) bool {
	if len(c.SharedBy) == 0 {
		return true
	}
	for _, n := range c.SharedBy {
		if n == name {
			return true
		}
	}
	return false
}

// NumSets is size / (ways × line), the number of sets.
func (c Cache) NumSets() int {
	return int(float64(c.Size) / (float64(c.Ways) * float64(c.Line)))
}

// Unit kinds.
const (
	NPU = "npu"
	GPU = "gpu"
	CPU = "cpu"
	DSP = "dsp"
)

// Unit is one compute engine: an NPU's MAC array, a GPU, the CPU cluster
// or a DSP.
type Unit struct {
	Name string `yaml:"name" spec:"required"`
	Kind string `yaml:"kind" spec:"required,oneof=npu|gpu|cpu|dsp"`
	// Peak is the datasheet rate per dtype at Clock. A CPU without a peak
	// gets one from Σ cores × clock × SIMD pipes × SIMD lanes × 2 ops.
	Peak  map[dtype.Dtype]units.OpsPerSecond `yaml:"peak,omitempty"`
	Clock units.Hertz                        `yaml:"clock,omitempty"`
	// OPP is the table of operating points, ascending in frequency.
	OPP           []OPP                `yaml:"opp,omitempty"`
	SRAM          units.Bytes          `yaml:"sram,omitempty" spec:"bound=sram"`
	SRAMBandwidth units.BytesPerSecond `yaml:"sram_bandwidth,omitempty" spec:"bound=onchip"`
	SRAMBanks     int                  `yaml:"sram_banks,omitempty" spec:"positive"`
	MAC           MACArray             `yaml:"mac,omitempty"`
	Cores         int                  `yaml:"cores,omitempty" spec:"positive"`
	SIMDBits      int                  `yaml:"simd_bits,omitempty" spec:"positive"`
	// SIMDPipes is the SIMD pipes of a core, each doing a multiply-add per
	// lane per cycle (two on a Cortex-A76 or A720, four on a Cortex-X4 or
	// an Apple P-core); a cluster may give its own.
	SIMDPipes int `yaml:"simd_pipes,omitempty" spec:"positive"`
	// Clusters are a CPU's core clusters (prime, performance, efficiency),
	// fastest first; threads fill them in that order. Cores and Clock
	// default to their sum and the first cluster's clock. Empty: Cores
	// alike at Clock.
	Clusters []Cluster `yaml:"clusters,omitempty"`
	// Core is the design of a CPU's cores (one of CoreFamilies: cortex-a76,
	// apple-p, …): a runtime's kernels reach a share of the peak of their
	// own on each design, and chips share designs (the RK3588's A76 is the
	// Pi 5's). A cluster may give its own. Empty: not known, and a
	// runtime's share pooled over the designs it was fitted on applies.
	Core string `yaml:"core,omitempty"`
	// Barrier is what each thread past the first adds to every operator a
	// CPU runs: a per-op runtime's threads meet at a barrier after each
	// operator, each arrival an atomic add on one shared counter, so the
	// arrivals queue. 0: none beyond Dispatch.
	Barrier units.Seconds `yaml:"barrier,omitempty" spec:"bound=cost"`
	// CoreBandwidth is the most one core draws from DRAM: the cache-line
	// misses it keeps in flight over the memory latency. A run on n cores
	// draws at most n × CoreBandwidth; a cluster may give its own.
	CoreBandwidth units.BytesPerSecond `yaml:"core_bandwidth,omitempty" spec:"bound=dram"`
	// Bandwidth is the most the unit draws from DRAM through its port of
	// the fabric, whatever its cores; 0: the whole DRAM bandwidth.
	Bandwidth units.BytesPerSecond `yaml:"bandwidth,omitempty" spec:"bound=dram"`
	// GEMMEfficiency and GEMVEfficiency are the fractions of the modelled
	// compute rate that matrix-matrix and matrix-vector kernels reach.
	GEMMEfficiency units.Fraction `yaml:"gemm_efficiency,omitempty"`
	GEMVEfficiency units.Fraction `yaml:"gemv_efficiency,omitempty"`
	// GEMMEfficiencyBy and GEMVEfficiencyBy override those for weights
	// stored in a given format (keys are lower-case storage formats: q4_0,
	// q8_0, q4_k, q6_k, f16, int4 …): unpacking a block format costs a
	// kernel more than reading fp16. Each matmul goes by the format its own
	// weights are stored in, so a mix like Q4_K_M reads both q4_k and q6_k.
	// A format not listed takes the scalar. Calibration overlays fill them.
	GEMMEfficiencyBy map[string]units.Fraction `yaml:"gemm_efficiency_by,omitempty"`
	GEMVEfficiencyBy map[string]units.Fraction `yaml:"gemv_efficiency_by,omitempty"`
	// Dispatch is the fixed driver cost per dispatched operator (a kernel
	// launch on a GPU).
	Dispatch units.Seconds `yaml:"dispatch,omitempty" spec:"bound=cost"`
	// Ops lists the operators the unit runs (see Operators); empty means
	// all. An operator it lacks falls back to the CPU.
	Ops []string `yaml:"ops,omitempty"`
	// Formats are the weight storage formats the unit's matrix kernels
	// read (WeightFormats names); empty means every format. An NPU whose
	// runtime takes its own quantised layouts (per-channel INT8/INT4,
	// W4A16) but not GGUF blocks lists those, and a model stored as Q4_0
	// then runs elsewhere.
	Formats []string `yaml:"formats,omitempty"`
	// Init is the unit's runtime initialisation on a cold start: driver
	// and context creation, loading or compiling the model's graph or
	// kernels, before the first prompt can run.
	Init units.Seconds `yaml:"init,omitempty" spec:"bound=init"`
	// FallbackSync is the cost of handing an operator to the CPU and back:
	// interrupt, cache maintenance and wake-up, paid once per fallback.
	FallbackSync units.Seconds `yaml:"fallback_sync,omitempty" spec:"bound=cost"`
	// EnergyPerOp is the dynamic energy of one operation (half a MAC) per
	// dtype at the nominal clock's voltage, operand delivery included.
	EnergyPerOp map[dtype.Dtype]units.Joules `yaml:"energy_per_op,omitempty" spec:"bound=per-op"`
	// SRAMEnergyPerByte is the energy of one byte read from or written to
	// the unit's SRAM.
	SRAMEnergyPerByte units.Joules `yaml:"sram_energy_per_byte,omitempty" spec:"bound=per-op"`
	// ActivePower is what the unit draws while it is busy — computing or
	// stalled waiting for memory — beyond the energy of its operations:
	// clock tree, pipelines, schedulers and load/store machinery, which
	// toggle whether or not an operation is useful. It is given at the top
	// operating point with every core busy, and scales with clock × V².
	// This is why a memory-bound decode still heats the unit running it.
	ActivePower units.Watts `yaml:"active_power,omitempty"`
	// StaticPower is the unit's leakage at its nominal voltage and
	// LeakageRefTemp; it grows by LeakagePerC (a fraction per °C,
	// exponentially) with temperature and in proportion to voltage.
	StaticPower    units.Watts    `yaml:"static_power,omitempty"`
	LeakagePerC    units.Fraction `yaml:"leakage_per_c,omitempty" spec:"bound=per-c"`
	LeakageRefTemp units.Celsius  `yaml:"leakage_ref_temp,omitempty"`
}

// WeightFormats is the vocabulary of weight storage formats a unit's
// `formats` may list: the names workloads.ParseQuant gives its formats.
var WeightFormats = []string{"F16", "BF16", "F32", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "IQ4_NL", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "IQ4_XS", "INT8", "INT4", "W4A16"}

// ReadsFormat reports whether the unit's kernels read weights stored in
// format (a WeightFormats name).
func (u *Unit) ReadsFormat(format string) bool {
	return len(u.Formats) == 0 || slices.Contains(u.Formats, format)
}

// Operators is the vocabulary of operator kinds a unit's `ops` may list;
// it is the set of kinds workloads.Lower emits.
var Operators = []string{"embed", "norm", "matmul", "rope", "attention", "activation", "residual", "router"}

// Supports reports whether the unit runs operator kind op.
func (u *Unit) Supports(op string) bool {
	if len(u.Ops) == 0 {
		return true
	}
	for _, o := range u.Ops {
		if o == op {
			return true
		}
	}
	return false
}

// Cluster is a group of like cores of a CPU at one clock.
type Cluster struct {
	Name  string      `yaml:"name" spec:"required"`
	Cores int         `yaml:"cores" spec:"required,positive"`
	Clock units.Hertz `yaml:"clock" spec:"required"`
	// SIMDPipes overrides the unit's SIMD pipes for this cluster's cores.
	SIMDPipes int `yaml:"simd_pipes,omitempty" spec:"positive"`
	// CoreBandwidth overrides the unit's per-core DRAM draw for this
	// cluster's cores: a big core keeps more misses in flight than a
	// little one.
	CoreBandwidth units.BytesPerSecond `yaml:"core_bandwidth,omitempty" spec:"bound=dram"`
	// Core is the design of the cluster's cores (CoreFamilies), the unit's
	// when the cluster gives none.
	Core string `yaml:"core,omitempty"`
	// GEMVEfficiencyBy is the share of its cores' peak a GEMV on weights
	// of a format reaches on this cluster (keys as the unit's); a format
	// not listed takes the unit's figure. A runtime profile fills it from
	// its figures for the cluster's core design.
	GEMVEfficiencyBy map[string]units.Fraction `yaml:"gemv_efficiency_by,omitempty"`
}

// CoreFamilies is the vocabulary of CPU core designs a unit's or a
// cluster's `core` may name: Arm's Cortex designs by their names, Apple's
// performance and efficiency cores of the M1 generation on (apple-p,
// apple-e), Qualcomm's Oryon.
var CoreFamilies = []string{
	"cortex-a53", "cortex-a55", "cortex-a72", "cortex-a76", "cortex-a78ae",
	"cortex-a510", "cortex-a520", "cortex-a710", "cortex-a715", "cortex-a720",
	"cortex-x3", "cortex-x4", "apple-p", "apple-e", "oryon",
}

// CoreOf is the core design of cluster c of the unit: its own, else the
// unit's.
func (u *Unit) CoreOf(c Cluster) string {
	if c.Core != "" {
		return c.Core
	}
	return u.Core
}

// OpCost is what the unit pays for each operator it is handed: its
// Dispatch and, on a CPU running on more than one core, Barrier for each
// core past the first.
func (u *Unit) OpCost() units.Seconds {
	if u.Kind != CPU || u.Cores <= 1 {
		return u.Dispatch
	}
	return u.Dispatch + u.Barrier*units.Seconds(u.Cores-1)
}

// coreBandwidth is the DRAM draw of one of the cluster's cores, the
// unit's when the cluster gives none.
func (c Cluster) coreBandwidth(u *Unit) float64 {
	if c.CoreBandwidth > 0 {
		return float64(c.CoreBandwidth)
	}
	return float64(u.CoreBandwidth)
}

// pipes is the SIMD pipes of the cluster's cores, the unit's when the
// cluster gives none.
func (c Cluster) pipes(u *Unit) float64 {
	if c.SIMDPipes > 0 {
		return float64(c.SIMDPipes)
	}
	return float64(max(u.SIMDPipes, 1))
}

// CoreRate is the sum over the unit's cores of clock × SIMD pipes (Hz),
// the figure its peak goes with: Cores × Clock × SIMDPipes without
// clusters.
func (u *Unit) CoreRate() float64 {
	if len(u.Clusters) == 0 {
		return float64(u.Cores) * float64(u.Clock) * float64(max(u.SIMDPipes, 1))
	}
	r := 0.0
	for _, c := range u.Clusters {
		r += float64(c.Cores) * float64(c.Clock) * c.pipes(u)
	}
	return r
}

// ThreadShare is the share of the unit's peak that n of its cores reach,
// filling the clusters in order (a core's rate goes with its clock and
// SIMD pipes); n/Cores when the unit has no clusters, 1 for n ≥ Cores.
func (u *Unit) ThreadShare(n int) float64 {
	if n >= u.Cores || u.Cores == 0 {
		return 1
	}
	if len(u.Clusters) == 0 {
		return float64(n) / float64(u.Cores)
	}
	var used float64
	left := n
	for _, c := range u.Clusters {
		k := min(left, c.Cores)
		used += float64(k) * float64(c.Clock) * c.pipes(u)
		left -= k
	}
	return used / u.CoreRate()
}

// DRAMDraw is the most the unit draws from DRAM: the least of Bandwidth
// and its cores' own draw that the chip gives; 0 when it gives neither.
// The cores' draw is Cores × CoreBandwidth, or with clusters the sum over
// the first Cores cores, filling the clusters fastest first as threads do
// (a cluster's core_bandwidth, else the unit's); a core with neither
// leaves the cores' draw unbounded.
func (u *Unit) DRAMDraw() float64 {
	draw := u.coresDraw()
	if b := float64(u.Bandwidth); b > 0 && (draw == 0 || b < draw) {
		draw = b
	}
	return draw
}

// coresDraw is what the unit's Cores cores draw from DRAM together; 0
// when some core's draw is not given.
func (u *Unit) coresDraw() float64 {
	if u.Cores <= 0 {
		return 0
	}
	if len(u.Clusters) == 0 {
		return float64(u.Cores) * float64(u.CoreBandwidth)
	}
	draw := 0.0
	left := u.Cores
	for _, c := range u.Clusters {
		if left == 0 {
			break
		}
		k := min(left, c.Cores)
		bw := c.coreBandwidth(u)
		if bw <= 0 {
			return 0
		}
		draw += float64(k) * bw
		left -= k
	}
	return draw
}

// OPP is one operating point: a clock and the voltage it needs.
type OPP struct {
	Freq units.Hertz `yaml:"freq" spec:"required"`
	Volt units.Volts `yaml:"volt" spec:"required"`
}

// Dataflows of a MAC array.
const (
	WeightStationary = "weight-stationary"
	OutputStationary = "output-stationary"
)

// MACArray is the shape of an NPU's systolic array: Rows is the reduction
// depth a weight tile spans; the columns follow from the peak and clock.
type MACArray struct {
	Rows     int    `yaml:"rows,omitempty" spec:"positive"`
	Dataflow string `yaml:"dataflow,omitempty" spec:"oneof=weight-stationary|output-stationary"`
}

// Idle is how a SoC rests between requests (race to idle).
type Idle struct {
	// GateDelay is how long an idle unit waits before it is power-gated;
	// GatedLeakage the share of its leakage a gated unit keeps (retention).
	GateDelay    units.Seconds  `yaml:"gate_delay,omitempty" spec:"bound=cost"`
	GatedLeakage units.Fraction `yaml:"gated_leakage,omitempty"`
	// Floor is the always-on domain's power (PMIC, always-on processor,
	// clocks), drawn whether the SoC works or rests.
	Floor units.Watts `yaml:"floor,omitempty"`
	// Display is what the device's display draws while a scenario keeps
	// it on (screen: true), whatever the SoC does; by default its device
	// class's (DisplayPower). Its heat goes into the skin.
	Display units.Watts `yaml:"display,omitempty"`
}

// Storage is where weights live before they are loaded (UFS, NVMe, SD).
// ReadBandwidth is its sequential read (loading a model, readahead
// through a layer); RandomReadBandwidth the throughput of 4 KiB random
// reads at a deep queue (IOPS × 4 KiB), which reads of scattered rows
// reach in proportion to their size, up to the sequential rate.
type Storage struct {
	ReadBandwidth       units.BytesPerSecond `yaml:"read_bandwidth,omitempty" spec:"bound=storage"`
	RandomReadBandwidth units.BytesPerSecond `yaml:"random_read_bandwidth,omitempty" spec:"bound=storage"`
	EnergyPerByte       units.Joules         `yaml:"energy_per_byte,omitempty" spec:"bound=per-op"`
}

// ReadRate is the rate reads of chunk bytes each reach: the 4 KiB random
// rate scaled by the chunk's size (a read costs about as long whatever
// its size up to a few tens of KiB), at most the sequential rate.
func (s Storage) ReadRate(chunk float64) float64 {
	return min(float64(s.ReadBandwidth), float64(s.RandomReadBandwidth)*chunk/4096)
}

// DMA is the engine that moves tiles between DRAM, the L3 and SRAM.
type DMA struct {
	Channels int           `yaml:"channels,omitempty" spec:"positive"`
	Setup    units.Seconds `yaml:"setup,omitempty" spec:"bound=cost"`
	MaxBurst units.Bytes   `yaml:"max_burst,omitempty"`
}

// Unit returns the unit named name, or nil.
func (s *SoC) Unit(name string) *Unit {
	for i := range s.Units {
		if s.Units[i].Name == name {
			return &s.Units[i]
		}
	}
	return nil
}

// UnitNames lists the units in file order.
func (s *SoC) UnitNames() []string {
	names := make([]string, len(s.Units))
	for i, u := range s.Units {
		names[i] = u.Name
	}
	return names
}

// ThermalNode is the node of the thermal network a unit's heat enters: the
// node of the same name, else the package.
func (s *SoC) ThermalNode(unit string) string {
	if s.Thermal == nil {
		return ""
	}
	pkg := ""
	for _, n := range s.Thermal.Nodes {
		if n.Name == unit {
			return unit
		}
		if n.Kind == thermal.Package && pkg == "" {
			pkg = n.Name
		}
	}
	if pkg == "" && len(s.Thermal.Nodes) > 0 {
		pkg = s.Thermal.Nodes[0].Name
	}
	return pkg
}
