package probe

import (
	"math"
	"os"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// TestInspectLinux reads a Raspberry-Pi-like root under testdata: an
// arm64 /proc/cpuinfo without a model name (the Hardware line names it),
// four caches, four cores with cpufreq, and three thermal zones of which
// two share a type and one cannot be read.
func TestInspectLinux(t *testing.T) {
	h := Host{OS: "linux", Arch: "arm64", Cores: 4}
	inspectLinux(&h, os.DirFS("testdata/linux-arm64"))
	want := Host{
		OS: "linux", Arch: "arm64", Cores: 4,
		Kernel: "6.6.51+rpt-rpi-2712",
		CPU:    "BCM2712 test board",
		// cpufreq is kHz: 1500000 kHz is 1.5 GHz; cpu3's 1800000 is the fastest now.
		ClockMinHz: 1.5e9, ClockMaxHz: 2.4e9, ClockHz: 1.8e9, ClockSource: "sysfs cpufreq",
		Caches: []Cache{
			{Level: 1, Type: "Data", Bytes: 64 << 10, Ways: 4, Line: 64, SharedBy: 1},
			{Level: 1, Type: "Instruction", Bytes: 64 << 10, Ways: 4, Line: 64, SharedBy: 1},
			{Level: 2, Type: "Unified", Bytes: 512 << 10, Ways: 8, Line: 64, SharedBy: 1},
			{Level: 3, Type: "Unified", Bytes: 2 << 20, Ways: 16, Line: 64, SharedBy: 4},
		},
		SIMD:        []string{"asimd", "asimddp", "asimdhp", "fphp"},
		SIMDBits:    128,
		MemoryBytes: 8245340 << 10,
		Thermal:     []Zone{{"cpu-thermal", 51.35}, {"cpu-thermal.1", 49}},
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("inspectLinux\n got %+v\nwant %+v", h, want)
	}
	if got := h.LLC(); got.Level != 3 || got.Bytes != 2<<20 {
		t.Errorf("LLC = %+v, want the 2 MiB level 3", got)
	}
}

// TestInspectLinuxEmpty: a root with nothing in it still gives a Host,
// saying what is missing.
func TestInspectLinuxEmpty(t *testing.T) {
	h := Host{OS: "linux", Arch: "amd64", Cores: 2}
	inspectLinux(&h, os.DirFS(t.TempDir()))
	if len(h.Missing) != 5 || h.CPU != "" || h.Caches != nil || h.LLC().Bytes != 0 {
		t.Errorf("empty root: %+v", h)
	}
}

func TestInspectThisHost(t *testing.T) {
	h := Inspect()
	if h.OS != runtime.GOOS || h.Arch != runtime.GOARCH || h.Cores != runtime.NumCPU() {
		t.Errorf("Inspect = %+v", h)
	}
	if runtime.GOOS == "linux" && (h.MemoryBytes <= 0 || h.Kernel == "") {
		t.Errorf("on Linux, memory and kernel must be read: %+v", h)
	}
}

func TestParseCPUInfo(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       CPUInfo
	}{
		{"x86", "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\ncpu MHz\t\t: 2100.000\nflags\t\t: fpu sse sse2 avx avx2 fma avx512f avx512_vnni foo\n\nprocessor\t: 1\nmodel name\t: other\nflags\t\t: sse2\n",
			CPUInfo{Model: "Intel(R) Xeon(R) Processor", MHz: 2100, SIMD: []string{"avx", "avx2", "avx512_vnni", "avx512f", "fma", "sse2"}}},
		{"old arm", "Processor\t: ARMv7 Processor rev 4 (v7l)\nFeatures\t: half thumb neon vfpv4\nHardware\t: BCM2835\n",
			CPUInfo{Model: "ARMv7 Processor rev 4 (v7l)", SIMD: []string{"neon"}}},
		{"no flags", "Hardware : board\ncpu MHz : -5\n", CPUInfo{Model: "board"}},
		{"empty", "", CPUInfo{}},
	} {
		if got := ParseCPUInfo(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if got := simdBits("amd64", []string{"avx2", "sse2"}); got != 256 {
		t.Errorf("simdBits(avx2) = %d, want 256", got)
	}
	if got := simdBits("arm64", nil); got != 128 {
		t.Errorf("simdBits(arm64, none) = %d, want 128 (NEON is part of arm64)", got)
	}
}

func TestParseSysfsValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"48K", 48 << 10, true}, {"307200K\n", 300 << 20, true}, {"32M", 32 << 20, true}, {"1G", 1 << 30, true},
		{"512", 512, true}, {"", 0, false}, {"K", 0, false}, {"-4K", 0, false}, {"0K", 0, false}, {"4T", 0, false},
		{"99999999999999999K", 0, false},
	} {
		got, ok := ParseSize(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		in   string
		want int
	}{{"0", 1}, {"0-3", 4}, {"0-3,6,8-9\n", 7}, {"", 0}, {"3-1", 0}, {"a", 0}, {"0-", 0}} {
		if got := ParseCPUList(tc.in); got != tc.want {
			t.Errorf("ParseCPUList(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"MemTotal:       24684092 kB\nMemFree: 1 kB\n", 24684092 << 10},
		{"MemFree: 1 kB\nMemTotal: 1000\n", 1000},
		{"MemTotal: lots kB\n", 0}, {"MemTotal:\n", 0}, {"", 0},
	} {
		if got := ParseMemTotal(tc.in); got != tc.want {
			t.Errorf("ParseMemTotal(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestReadSensors(t *testing.T) {
	rd := readSensors(os.DirFS("testdata/linux-arm64"))
	if rd.clockHz != 1.8e9 || rd.temps["cpu-thermal"] != 51.35 || len(rd.temps) != 2 {
		t.Errorf("readSensors = %+v", rd)
	}
	// Without cpufreq the clock is /proc/cpuinfo's highest cpu MHz.
	if got := maxCPUMHz("cpu MHz : 800.0\ncpu MHz : 2100.5\n"); got != 2100.5 {
		t.Errorf("maxCPUMHz = %v", got)
	}
}

// TestSamplerFolds checks what a sustained run's conditions say: the mean,
// lowest and highest clock, each zone's hottest reading, and the hottest
// zone at the start.
func TestSamplerFolds(t *testing.T) {
	readings := []reading{
		{clockHz: 2e9, temps: map[string]float64{"a": 40, "b": 45}},
		{clockHz: 1e9, temps: map[string]float64{"a": 60, "b": 44}},
		{clockHz: 3e9, temps: map[string]float64{"a": 50}},
	}
	i := 0
	s := startSampler(func() reading { rd := readings[min(i, len(readings)-1)]; i++; return rd })
	// Let the ticker fire at least twice more.
	for {
		s.mu.Lock()
		n := len(s.all)
		s.mu.Unlock()
		if n >= 3 {
			break
		}
		<-time.After(sampleEvery)
	}
	var r runner
	c := r.conditions(reading{})
	n := s.finish(&c)
	if n < 3 {
		t.Fatalf("%d readings", n)
	}
	if c.Clocks["cpu.min"] != 1e9 || c.Clocks["cpu.max"] != 3e9 || c.Temps["a"] != 60 || c.Temps["b"] != 45 || *c.StartTempC != 45 {
		t.Errorf("folded conditions %+v (start %v)", c, *c.StartTempC)
	}
	// The first three readings, then the last repeated.
	if want := (6e9 + float64(n-3)*3e9) / float64(n); math.Abs(c.Clocks["cpu"]-want) > 1 {
		t.Errorf("mean clock %v over %d readings, want %v", c.Clocks["cpu"], n, want)
	}
}
