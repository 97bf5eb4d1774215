package probe

import (
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/edgetwin/edgetwin/calibrate"
)

// reading is one look at the sensors: the fastest core's clock and every
// thermal zone's temperature.
type reading struct {
	clockHz float64
	temps   map[string]float64
}

// sampleSensors reads the clocks (cpufreq, else /proc/cpuinfo's cpu MHz)
// and thermal zones; off Linux it reads nothing.
func sampleSensors() reading {
	if runtime.GOOS != "linux" && runtime.GOOS != "android" {
		return reading{}
	}
	return readSensors(os.DirFS("/"))
}

func readSensors(root fs.FS) reading {
	var rd reading
	if _, _, cur, ok := readCPUFreq(root); ok && cur > 0 {
		rd.clockHz = cur
	} else if b, err := fs.ReadFile(root, "proc/cpuinfo"); err == nil {
		rd.clockHz = maxCPUMHz(string(b)) * 1e6
	}
	for _, z := range readZones(root) {
		if rd.temps == nil {
			rd.temps = map[string]float64{}
		}
		rd.temps[z.Name] = z.TempC
	}
	return rd
}

// maxCPUMHz is the highest "cpu MHz" over all processors of /proc/cpuinfo.
func maxCPUMHz(text string) float64 {
	var best float64
	for line := range strings.Lines(text) {
		if rest, ok := strings.CutPrefix(line, "cpu MHz"); ok {
			ci := ParseCPUInfo("cpu MHz" + rest)
			best = max(best, ci.MHz)
		}
	}
	return best
}

// conditions are a record's conditions from one reading.
func (r *runner) conditions(rd reading) calibrate.Conditions {
	tool, build := toolVersion()
	c := calibrate.Conditions{OS: strings.TrimSpace(r.host.OS + " " + r.host.Kernel), ToolVersion: tool, Build: build}
	if rd.clockHz > 0 {
		c.Clocks = map[string]float64{"cpu": rd.clockHz}
	}
	if len(rd.temps) > 0 {
		c.Temps = rd.temps
		hottest := hottestOf(rd.temps)
		c.StartTempC = &hottest
	}
	return c
}

func hottestOf(temps map[string]float64) float64 {
	first, h := true, 0.0
	for _, t := range temps {
		if first || t > h {
			h, first = t, false
		}
	}
	return h
}

// sampler reads the sensors every interval while a sustained measurement
// runs, so its record can say how the clocks and temperatures moved.
type sampler struct {
	stop chan struct{}
	done sync.WaitGroup
	mu   sync.Mutex
	all  []reading
}

// sampleEvery is how often a sampler reads the sensors.
const sampleEvery = 250 * time.Millisecond

func startSampler(read func() reading) *sampler {
	s := &sampler{stop: make(chan struct{})}
	s.all = append(s.all, read())
	s.done.Go(func() {
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				rd := read()
				s.mu.Lock()
				s.all = append(s.all, rd)
				s.mu.Unlock()
			}
		}
	})
	return s
}

// finish stops the sampler and folds its readings into conditions: the
// clock's mean ("cpu"), lowest ("cpu.min") and highest ("cpu.max") over
// the run, each zone's highest temperature, and the hottest zone at the
// start. It returns how many readings were taken.
func (s *sampler) finish(c *calibrate.Conditions) int {
	close(s.stop)
	s.done.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var sum, lo, hi float64
	n := 0
	temps := map[string]float64{}
	for _, rd := range s.all {
		if rd.clockHz > 0 {
			if n == 0 || rd.clockHz < lo {
				lo = rd.clockHz
			}
			hi = max(hi, rd.clockHz)
			sum += rd.clockHz
			n++
		}
		for z, t := range rd.temps {
			if old, ok := temps[z]; !ok || t > old {
				temps[z] = t
			}
		}
	}
	c.Clocks = nil
	if n > 0 {
		c.Clocks = map[string]float64{"cpu": sum / float64(n), "cpu.min": lo, "cpu.max": hi}
	}
	c.Temps, c.StartTempC = nil, nil
	if len(temps) > 0 {
		c.Temps = temps
	}
	if start := s.all[0].temps; len(start) > 0 {
		h := hottestOf(start)
		c.StartTempC = &h
	}
	return len(s.all)
}
