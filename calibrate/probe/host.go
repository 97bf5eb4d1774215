package probe

import (
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Host describes the machine a probe ran on: what the OS says of its CPU,
// caches, memory and sensors. Figures the OS does not expose are zero or
// empty; Missing says which and why.
type Host struct {
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	Kernel string `json:"kernel,omitempty"` // the kernel's release ("6.8.0-45-generic")
	// CPU is the processor's model name (or the board's, on Arm boards
	// whose /proc/cpuinfo has none).
	CPU   string `json:"cpu,omitempty"`
	Cores int    `json:"cores"` // logical CPUs the probe may use
	// ClockMinHz and ClockMaxHz are the lowest and highest clocks any core
	// may run at (cpufreq's cpuinfo_min/max_freq); ClockHz is the clock
	// seen when the host was inspected (the highest core's). ClockSource
	// says where they came from.
	ClockMinHz  float64 `json:"clock_min_hz,omitempty"`
	ClockMaxHz  float64 `json:"clock_max_hz,omitempty"`
	ClockHz     float64 `json:"clock_hz,omitempty"`
	ClockSource string  `json:"clock_source,omitempty"`
	// Caches are cpu0's caches, innermost first.
	Caches []Cache `json:"caches,omitempty"`
	// SIMD lists the vector features the CPU reports (a subset of its
	// flags: sse2 … avx512_vnni, asimd, asimddp, sve, i8mm, …) and
	// SIMDBits the widest vector among them.
	SIMD        []string `json:"simd,omitempty"`
	SIMDBits    int      `json:"simd_bits,omitempty"`
	MemoryBytes int64    `json:"memory_bytes,omitempty"`
	// Thermal lists the thermal zones with their temperature at inspection.
	Thermal []Zone `json:"thermal,omitempty"`
	// Missing names what could not be read, with the reason.
	Missing []string `json:"missing,omitempty"`
}

// Cache is one CPU cache level as sysfs describes it.
type Cache struct {
	Level int    `json:"level"`
	Type  string `json:"type"` // Data, Instruction, Unified
	Bytes int64  `json:"bytes"`
	Ways  int    `json:"ways,omitempty"`
	Line  int    `json:"line,omitempty"`
	// SharedBy is how many logical CPUs share this cache.
	SharedBy int `json:"shared_by,omitempty"`
}

// Zone is one thermal zone and its temperature in °C.
type Zone struct {
	Name  string  `json:"name"` // the zone's type ("x86_pkg_temp", "cpu-thermal")
	TempC float64 `json:"temp_c"`
}

// LLC is the last-level cache (the largest data or unified cache), or the
// zero Cache when none is known.
func (h Host) LLC() Cache {
	var best Cache
	for _, c := range h.Caches {
		if c.Type != "Instruction" && c.Bytes > best.Bytes {
			best = c
		}
	}
	return best
}

// Inspect describes the machine it runs on. On Linux it reads /proc and
// /sys; elsewhere it says what it could not read in Missing.
func Inspect() Host {
	h := Host{OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU()}
	if runtime.GOOS == "linux" || runtime.GOOS == "android" {
		inspectLinux(&h, os.DirFS("/"))
	} else {
		inspectOther(&h)
	}
	return h
}

// inspectLinux fills h from a Linux root file system (os.DirFS("/"), or
// a copy under testdata).
func inspectLinux(h *Host, root fs.FS) {
	if b, err := fs.ReadFile(root, "proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := fs.ReadFile(root, "proc/cpuinfo"); err == nil {
		ci := ParseCPUInfo(string(b))
		h.CPU = ci.Model
		h.SIMD = ci.SIMD
		h.SIMDBits = simdBits(h.Arch, ci.SIMD)
		if ci.MHz > 0 {
			h.ClockHz, h.ClockSource = ci.MHz*1e6, "/proc/cpuinfo cpu MHz"
		}
	} else {
		h.Missing = append(h.Missing, "cpu model and SIMD flags: "+err.Error())
	}
	if h.CPU == "" {
		if b, err := fs.ReadFile(root, "proc/device-tree/model"); err == nil {
			h.CPU = strings.TrimRight(string(b), "\x00\n")
		}
	}
	if b, err := fs.ReadFile(root, "proc/meminfo"); err == nil {
		h.MemoryBytes = ParseMemTotal(string(b))
	}
	if h.MemoryBytes == 0 {
		h.Missing = append(h.Missing, "memory size: /proc/meminfo has no MemTotal")
	}
	h.Caches = readCaches(root)
	if len(h.Caches) == 0 {
		h.Missing = append(h.Missing, "caches: no /sys/devices/system/cpu/cpu0/cache/index*")
	}
	if lo, hi, cur, ok := readCPUFreq(root); ok {
		h.ClockMinHz, h.ClockMaxHz, h.ClockHz, h.ClockSource = lo, hi, cur, "sysfs cpufreq"
	} else {
		h.Missing = append(h.Missing, "clock range: no /sys/devices/system/cpu/cpu*/cpufreq (a VM, or no cpufreq driver)")
	}
	h.Thermal = readZones(root)
	if len(h.Thermal) == 0 {
		h.Missing = append(h.Missing, "temperatures: no /sys/class/thermal/thermal_zone*")
	}
}

// CPUInfo is what /proc/cpuinfo says of the first processor.
type CPUInfo struct {
	Model string
	MHz   float64
	SIMD  []string // the vector features among its flags, sorted
}

// simdFlags are the vector features Host.SIMD keeps, with the vector width
// each implies; 0 means an extension of a width given elsewhere.
var simdFlags = map[string]int{
	"sse2": 128, "ssse3": 128, "sse4_1": 128, "sse4_2": 128, "avx": 256, "avx2": 256, "fma": 0, "f16c": 0,
	"avx_vnni": 0, "avx512f": 512, "avx512bw": 0, "avx512vl": 0, "avx512_vnni": 0, "avx512_bf16": 0,
	"avx512_fp16": 0, "amx_int8": 0, "amx_bf16": 0,
	"asimd": 128, "asimddp": 0, "asimdhp": 0, "fphp": 0, "i8mm": 0, "bf16": 0, "sve": 128, "sve2": 128,
	"neon": 128,
}

// ParseCPUInfo reads /proc/cpuinfo: the model name ("model name" on x86,
// "Processor" or "Hardware" on older Arm kernels), the clock ("cpu MHz",
// x86 only) and the vector features among "flags" or "Features". It never
// fails; what it cannot find stays empty.
func ParseCPUInfo(text string) CPUInfo {
	var ci CPUInfo
	var hardware string
	for line := range strings.Lines(text) {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "model name", "Processor":
			if ci.Model == "" {
				ci.Model = val
			}
		case "Hardware":
			hardware = val
		case "cpu MHz":
			if ci.MHz == 0 {
				if f, err := strconv.ParseFloat(val, 64); err == nil && f > 0 && f < 1e6 {
					ci.MHz = f
				}
			}
		case "flags", "Features":
			if ci.SIMD != nil {
				continue
			}
			ci.SIMD = []string{}
			for _, f := range strings.Fields(val) {
				if _, ok := simdFlags[f]; ok && !slices.Contains(ci.SIMD, f) {
					ci.SIMD = append(ci.SIMD, f)
				}
			}
			slices.Sort(ci.SIMD)
		}
	}
	if ci.Model == "" {
		ci.Model = hardware
	}
	if len(ci.SIMD) == 0 {
		ci.SIMD = nil
	}
	return ci
}

// simdBits is the widest vector among flags; arm64 always has 128-bit
// NEON, and SVE's length is not in /proc/cpuinfo, so 128 is what is known.
func simdBits(arch string, flags []string) int {
	bits := 0
	for _, f := range flags {
		bits = max(bits, simdFlags[f])
	}
	if bits == 0 && (arch == "arm64" || arch == "amd64") {
		bits = 128 // NEON and SSE2 are part of both ISAs
	}
	return bits
}

// ParseMemTotal is MemTotal of /proc/meminfo in bytes, or 0.
func ParseMemTotal(text string) int64 {
	for line := range strings.Lines(text) {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n <= 0 || n > 1<<50 {
			return 0
		}
		if len(f) > 1 && strings.EqualFold(f[1], "kB") {
			return n << 10
		}
		return n
	}
	return 0
}

// ParseSize reads a sysfs cache size ("48K", "2048K", "32M", "512"), in
// bytes; ok is false when it is not one.
func ParseSize(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<50)/mult {
		return 0, false
	}
	return n * mult, true
}

// ParseCPUList counts the CPUs of a sysfs list ("0-3,6,8-9" is 7); 0
// when it is not one.
func ParseCPUList(s string) int {
	n := 0
	for part := range strings.SplitSeq(strings.TrimSpace(s), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return 0
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b-a > 1<<16 {
				return 0
			}
		}
		n += b - a + 1
	}
	return n
}

func readCaches(root fs.FS) []Cache {
	dirs, _ := fs.Glob(root, "sys/devices/system/cpu/cpu0/cache/index*")
	var out []Cache
	for _, d := range dirs {
		get := func(name string) string {
			b, _ := fs.ReadFile(root, path.Join(d, name))
			return strings.TrimSpace(string(b))
		}
		level, err := strconv.Atoi(get("level"))
		size, ok := ParseSize(get("size"))
		if err != nil || !ok || level <= 0 {
			continue
		}
		c := Cache{Level: level, Type: get("type"), Bytes: size}
		c.Ways, _ = strconv.Atoi(get("ways_of_associativity"))
		c.Line, _ = strconv.Atoi(get("coherency_line_size"))
		c.SharedBy = ParseCPUList(get("shared_cpu_list"))
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b Cache) int {
		if a.Level != b.Level {
			return a.Level - b.Level
		}
		return strings.Compare(a.Type, b.Type)
	})
	return out
}

// readKHz reads a cpufreq file (kHz) as Hz.
func readKHz(root fs.FS, name string) float64 {
	b, err := fs.ReadFile(root, name)
	if err != nil {
		return 0
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil || v <= 0 {
		return 0
	}
	return v * 1e3
}

// readCPUFreq is the lowest minimum, highest maximum and highest current
// clock over all cores with cpufreq.
func readCPUFreq(root fs.FS) (lo, hi, cur float64, ok bool) {
	dirs, _ := fs.Glob(root, "sys/devices/system/cpu/cpu[0-9]*/cpufreq")
	for _, d := range dirs {
		mn, mx := readKHz(root, d+"/cpuinfo_min_freq"), readKHz(root, d+"/cpuinfo_max_freq")
		if mx == 0 {
			continue
		}
		ok = true
		if lo == 0 || (mn > 0 && mn < lo) {
			lo = mn
		}
		hi = max(hi, mx)
		cur = max(cur, readKHz(root, d+"/scaling_cur_freq"))
	}
	return lo, hi, cur, ok
}

func readZones(root fs.FS) []Zone {
	dirs, _ := fs.Glob(root, "sys/class/thermal/thermal_zone*")
	var out []Zone
	for _, d := range dirs {
		name, err := fs.ReadFile(root, d+"/type")
		if err != nil {
			continue
		}
		b, err := fs.ReadFile(root, d+"/temp")
		if err != nil {
			continue
		}
		milli, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err != nil || milli < -273150 || milli > 1e6 {
			continue
		}
		out = append(out, Zone{Name: zoneName(out, strings.TrimSpace(string(name))), TempC: milli / 1000})
	}
	return out
}

// zoneName makes a zone's type unique among zones already read, since
// several zones may share one ("cpu-thermal", "cpu-thermal.1").
func zoneName(seen []Zone, name string) string {
	if name == "" {
		name = "zone"
	}
	out := name
	for i := 1; slices.ContainsFunc(seen, func(z Zone) bool { return z.Name == out }); i++ {
		out = name + "." + strconv.Itoa(i)
	}
	return out
}
