package probe

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/hw/units"
)

// chipFile collects a chip file's fields in order, each with its source.
type chipFile struct {
	lines   []string // the YAML body
	sources [][2]string
}

func (c *chipFile) line(format string, args ...any) {
	c.lines = append(c.lines, fmt.Sprintf(format, args...))
}

// field writes "indent key: value" and cites path.
func (c *chipFile) field(indent, key, value, path, source string) {
	c.line("%s%s: %s", indent, key, value)
	c.sources = append(c.sources, [2]string{path, source})
}

// sig4 rounds a measured figure to 4 significant digits: more would only
// repeat noise.
func sig4(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// EmitSoC writes a chip file (SoC YAML) for host from its description and
// the probe's records, with a source for every figure: one CPU unit (cores,
// clock, SIMD width from the OS; peaks derived as cores × clock × SIMD
// lanes × 2 ops, marked assumed; GEMV and GEMM efficiencies measured), the
// last-level cache from sysfs, and DRAM whose bandwidth is the measured
// sequential plateau on all threads, with its latency and random-read
// penalty when measured. It needs at least the bandwidth records.
func EmitSoC(host Host, recs []calibrate.Record) ([]byte, error) {
	bw, set, threads, ok := plateau(recs, host.LLC().Bytes)
	if !ok {
		return nil, errors.New("probe: EmitSoC needs the bandwidth step's records (the DRAM bandwidth is the measured plateau)")
	}
	var c chipFile
	name := host.CPU
	if name == "" {
		name = host.OS + "/" + host.Arch + " host"
	}
	c.line("# Written by edgetwin-probe %s from its measurements of this host.", Version)
	c.field("", "name", strconv.Quote(name+" (probed)"), "name", "probe:host (the CPU model the OS reports)")
	c.line("memory:")
	c.line("  dram:")
	dt, why := dramType(host)
	c.field("    ", "type", dt, "memory.dram.type", "assumed: "+why)
	c.field("    ", "bandwidth", units.BytesPerSecond(sig4(bw)).String(), "memory.dram.bandwidth",
		fmt.Sprintf("probe:bandwidth (the measured plateau: median of the sequential reads on %d threads of working sets beyond the LLC, up to %s)", threads, mib(set)))
	c.field("    ", "seq_efficiency", "1", "memory.dram.seq_efficiency", "assumed: the bandwidth above is already what a long sequential stream achieves")
	if host.MemoryBytes > 0 {
		c.field("    ", "capacity", units.Bytes(host.MemoryBytes).String(), "memory.dram.capacity", osSource(host, "/proc/meminfo MemTotal", "sysctl hw.memsize"))
	} else {
		c.field("    ", "capacity", "8 GiB", "memory.dram.capacity", "assumed: 8 GiB, the host did not report its memory")
	}
	if lat, ok := largest(recs, calibrate.KindLatency, "pointer_chase"); ok {
		c.field("    ", "latency", units.Seconds(sig4(lat.Value)).String(), "memory.dram.latency",
			fmt.Sprintf("probe:latency (dependent loads over %s, the largest working set)", mib(lat.Shape.Bytes)))
	}
	if p, ok := randomPenalty(recs); ok {
		c.field("    ", "random_penalty", strconv.FormatFloat(sig4(p), 'g', -1, 64), "memory.dram.random_penalty",
			"probe:random_read (sequential_4k ÷ random_4k throughput)")
	}
	if llc := host.LLC(); llc.Bytes > 0 {
		src := osSource(host, fmt.Sprintf("sysfs /sys/devices/system/cpu/cpu0/cache (level %d)", llc.Level), "sysctl hw.l3cachesize or hw.l2cachesize")
		if knee, ok := bandwidthKnee(recs); ok && knee < llc.Bytes/2 {
			src = fmt.Sprintf("probe:bandwidth (one thread reads at least %.1f× the DRAM plateau up to %s and not beyond: the share of the %s LLC the OS reports (%s) that this machine gets, as on a VM sharing its socket)",
				kneeFactor, mib(knee), mib(llc.Bytes), src)
			llc.Bytes = knee
		}
		emitLLC(&c, llc, recs, src)
	}
	emitCPU(&c, host, recs)
	c.line("sources:")
	for _, s := range c.sources {
		c.line("  %s: %s", s[0], strconv.Quote(s[1]))
	}
	return []byte(strings.Join(c.lines, "\n") + "\n"), nil
}

// kneeFactor is how much faster than DRAM a working set must stream for
// bandwidthKnee to count it as cached.
const kneeFactor = 1.6

// bandwidthKnee is the largest working set one thread still reads at
// kneeFactor times the bandwidth of the largest sets (DRAM): the cache
// the machine actually gets, which on a shared host can be far less than
// the LLC the OS reports.
func bandwidthKnee(recs []calibrate.Record) (int64, bool) {
	type point struct {
		set int64
		bw  float64
	}
	var pts []point
	for _, r := range recs {
		if r.Kind == calibrate.KindBandwidth && r.Threads == 1 && r.Unit == calibrate.UnitBytesPerSecond && r.Shape.Bytes > 0 {
			pts = append(pts, point{r.Shape.Bytes, r.Value})
		}
	}
	if len(pts) < 4 {
		return 0, false
	}
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.set, b.set) })
	dram := pts[len(pts)-1].bw
	for i := len(pts) - 1; i >= 0; i-- {
		if pts[i].bw >= kneeFactor*dram {
			if i == len(pts)-1 {
				return 0, false
			}
			return pts[i].set, true
		}
	}
	return 0, false
}

// osSource names where a figure came from on Linux or on macOS.
func osSource(h Host, linux, darwin string) string {
	if h.OS == "darwin" {
		return darwin
	}
	return linux
}

// plateau is the DRAM bandwidth the records show: the median of the
// sequential-read records on the most threads at working sets beyond llc
// (bytes; 0 when unknown, when the three largest sets count), with the
// largest of those sets and the thread count, for the source.
func plateau(recs []calibrate.Record, llc int64) (bw float64, set int64, threads int, ok bool) {
	var bws []calibrate.Record
	for _, r := range recs {
		if r.Kind == calibrate.KindBandwidth && r.Unit == calibrate.UnitBytesPerSecond {
			bws = append(bws, r)
			threads = max(threads, r.Threads)
		}
	}
	var sets []int64
	for _, r := range bws {
		if r.Threads == threads && !slices.Contains(sets, r.Shape.Bytes) {
			sets = append(sets, r.Shape.Bytes)
		}
	}
	slices.Sort(sets)
	if len(sets) == 0 {
		return 0, 0, 0, false
	}
	from := sets[max(0, len(sets)-3)]
	if llc > 0 && sets[len(sets)-1] > llc {
		from = sets[slices.IndexFunc(sets, func(n int64) bool { return n > llc })]
	}
	var s sample
	for _, r := range bws {
		if r.Threads == threads && r.Shape.Bytes >= from {
			s = append(s, r.Value)
		}
	}
	return s.median(), sets[len(sets)-1], threads, true
}

// largest is the record of a kind and kernel at the largest working set.
func largest(recs []calibrate.Record, kind calibrate.Kind, kernel string) (calibrate.Record, bool) {
	var best calibrate.Record
	found := false
	for _, r := range recs {
		if r.Kind == kind && r.Kernel == kernel && (!found || r.Shape.Bytes > best.Shape.Bytes) {
			best, found = r, true
		}
	}
	return best, found
}

// randomPenalty is how many times slower random 4 KiB reads ran than
// sequential ones, at least 1.
func randomPenalty(recs []calibrate.Record) (float64, bool) {
	seq, ok1 := largest(recs, calibrate.KindRandomRead, "sequential_4k")
	rnd, ok2 := largest(recs, calibrate.KindRandomRead, "random_4k")
	if !ok1 || !ok2 {
		return 0, false
	}
	return max(1, seq.Value/rnd.Value), true
}

// dramType guesses the memory's type, which the OS does not report
// without privileges (dmidecode): always assumed.
func dramType(h Host) (string, string) {
	switch {
	case h.OS == "darwin" && h.Arch == "arm64":
		return "LPDDR5", "LPDDR5, as Apple's M-series packages (the OS does not report the type)"
	case h.Arch == "arm64" || h.Arch == "arm":
		return "LPDDR4X", "LPDDR4X, the usual memory of Arm boards (the OS does not report the type)"
	case slices.Contains(h.SIMD, "avx512f"):
		return "DDR5", "DDR5, the memory of current AVX-512 servers (the OS does not report the type)"
	}
	return "DDR4", "DDR4 (the OS does not report the type)"
}

// emitLLC writes the last-level cache: its size, ways and line from sysfs
// (ways and line assumed when missing or inconsistent with the size), and
// its latency when the latency curve has a point inside it.
func emitLLC(c *chipFile, llc Cache, recs []calibrate.Record, src string) {
	ways, waysSrc := llc.Ways, src
	line, lineSrc := llc.Line, src
	if line <= 0 {
		line, lineSrc = 64, "assumed: 64 B, the usual cache line"
	}
	if ways <= 0 || llc.Bytes%int64(ways*line) != 0 {
		ways, waysSrc = 16, "assumed: 16 ways (the OS gave none that divides the size)"
		if llc.Bytes%int64(ways*line) != 0 {
			ways = 1
			waysSrc = "assumed: direct-mapped, the only associativity that divides the size"
		}
	}
	c.line("  l3:")
	c.field("    ", "size", units.Bytes(llc.Bytes).String(), "memory.l3.size", src)
	c.field("    ", "ways", strconv.Itoa(ways), "memory.l3.ways", waysSrc)
	c.field("    ", "line", units.Bytes(line).String(), "memory.l3.line", lineSrc)
	// The latency at the largest working set within half the LLC.
	var in calibrate.Record
	for _, r := range recs {
		if r.Kind == calibrate.KindLatency && r.Shape.Bytes <= llc.Bytes/2 && r.Shape.Bytes > in.Shape.Bytes {
			in = r
		}
	}
	if in.Value > 0 {
		c.field("    ", "latency", units.Seconds(sig4(in.Value)).String(), "memory.l3.latency",
			fmt.Sprintf("probe:latency (dependent loads over %s, within the LLC)", mib(in.Shape.Bytes)))
	}
}

// emitCPU writes the one compute unit: the host's CPU.
func emitCPU(c *chipFile, h Host, recs []calibrate.Record) {
	cores := max(1, h.Cores)
	clock, clockSrc := h.ClockMaxHz, "sysfs cpufreq cpuinfo_max_freq (the fastest core)"
	if clock <= 0 && h.ClockHz > 0 {
		clock, clockSrc = h.ClockHz, h.ClockSource+" (the clock when inspected)"
	}
	if clock <= 0 {
		clock, clockSrc = 2e9, "assumed: 2 GHz, the OS reported no clock"
	}
	bits, bitsSrc := h.SIMDBits, "/proc/cpuinfo flags: the widest vector extension ("+strings.Join(h.SIMD, " ")+")"
	if bits <= 0 {
		bits, bitsSrc = 128, "assumed: 128-bit vectors (NEON, SSE2), the OS reported no SIMD flags"
	}
	c.line("units:")
	c.line("  - name: cpu")
	c.field("    ", "kind", "cpu", "units.cpu.kind", "probe:host")
	c.field("    ", "cores", strconv.Itoa(cores), "units.cpu.cores", "the logical CPUs the OS gives the probe (Go runtime.NumCPU)")
	c.field("    ", "clock", units.Hertz(sig4(clock)).String(), "units.cpu.clock", clockSrc)
	c.field("    ", "simd_bits", strconv.Itoa(bits), "units.cpu.simd_bits", bitsSrc)
	c.line("    peak:")
	peakSrc := "derived: cores × clock × SIMD lanes × 2 ops (one fused multiply-add per lane per cycle, assumed)"
	peaks := map[string]float64{}
	for _, p := range []struct {
		dtype string
		bits  int
	}{{"int8", 8}, {"fp16", 16}, {"fp32", 32}} {
		v := float64(cores) * clock * float64(bits/p.bits) * 2
		peaks[p.dtype] = v
		c.field("      ", p.dtype, units.OpsPerSecond(sig4(v)).String(), "units.cpu.peak."+p.dtype, peakSrc)
	}
	if l2 := perCoreL2(h); l2 > 0 {
		c.field("    ", "sram", units.Bytes(l2*int64(cores)).String(), "units.cpu.sram", osSource(h, "sysfs cpu0 cache level 2", "sysctl hw.l2cachesize")+" × cores: the L2 as the working set")
	}
	for _, e := range []struct {
		key, step, dtype string
	}{
		{"gemv_efficiency", "gemv-q4_0", "int8"},
		{"gemm_efficiency", "gemm-q8_0", "int8"},
	} {
		r, ok := fastest(recs, "probe:"+e.step)
		if !ok {
			continue
		}
		eff := min(1, r.Value/peaks[e.dtype])
		c.field("    ", e.key, strconv.FormatFloat(sig4(eff), 'g', -1, 64), "units.cpu."+e.key,
			fmt.Sprintf("probe:%s (%.4g ops/s measured on %d threads, %d×%d×%d, ÷ the derived %s peak; the probe's pure-Go kernels, not llama.cpp's SIMD ones)", e.step, r.Value, r.Threads, r.Shape.M, r.Shape.N, r.Shape.K, e.dtype))
	}
}

// fastest is the record of a probe step with the highest value.
func fastest(recs []calibrate.Record, source string) (calibrate.Record, bool) {
	var best calibrate.Record
	for _, r := range recs {
		if r.Source == source && r.Value > best.Value {
			best = r
		}
	}
	return best, best.Value > 0
}

// perCoreL2 is the L2 one core has: the level-2 cache's size divided by the
// cores that share it.
func perCoreL2(h Host) int64 {
	for _, c := range h.Caches {
		if c.Level == 2 && c.Type != "Instruction" {
			return c.Bytes / int64(max(1, c.SharedBy))
		}
	}
	return 0
}
