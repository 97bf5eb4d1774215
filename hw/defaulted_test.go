package hw

import (
	"reflect"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// stubCal is a calibration that sets one figure on every NPU.
type stubCal struct{ value string }

func (c stubCal) Overrides(s Shape) ([]spec.Override, error) {
	var out []spec.Override
	for _, u := range s.Units {
		if u.Kind == NPU {
			out = append(out, spec.Override{Path: "units." + u.Name + ".gemv_efficiency", Value: c.value, Origin: "calibrated:stub.yaml"})
		}
	}
	return out, nil
}

// forget empties the kept documents, so the next load is done afresh.
func forget() {
	kept.Lock()
	clear(kept.prepared)
	clear(kept.defaulted)
	kept.Unlock()
}

// TestDefaultedMatchesALoad: a load that takes a kept document (the same
// chip and set paths loaded before at other values) is the load done
// afresh, field for field and provenance entry for entry, and so is one
// whose sets the kept documents do not serve (a mapping, a unit's kind, a
// CPU's clusters, the thermal package). A bad value is the same error
// either way.
func TestDefaultedMatchesALoad(t *testing.T) {
	set := func(kv ...string) []spec.Override {
		var o []spec.Override
		for i := 0; i < len(kv); i += 2 {
			o = append(o, spec.Override{Path: kv[i], Value: kv[i+1], Origin: spec.SetOrigin})
		}
		return o
	}
	for _, c := range []struct {
		chip        string
		cal         Calibration
		first, then []spec.Override
		keeps       bool
	}{
		{"seed-c", nil, set("memory.dram.bandwidth", "20GB/s"), set("memory.dram.bandwidth", "119GB/s"), true},
		{"snapdragon-8-gen3", stubCal{"0.4"}, set("memory.l3.ways", "8", "units.npu.clock", "1GHz"), set("memory.l3.ways", "16", "units.npu.clock", "1.2GHz"), true},
		// A path the chip does not give, which the first load creates.
		{"raspberry-pi-5", nil, set("memory.l3.bandwidth", "50GB/s"), set("memory.l3.bandwidth", "70GB/s"), true},
		{"seed-c", nil, set("memory.l3", "{size: 4MiB, ways: 8}"), set("memory.l3", "{size: 8MiB, ways: 16}"), false},
		{"apple-m2", nil, set("thermal_package", "laptop-fanless"), set("thermal_package", "laptop-fan"), false},
		{"seed-c", nil, set("units.npu.kind", "gpu"), set("units.npu.kind", "npu"), false},
	} {
		name := c.chip + " " + c.then[0].Path
		forget()
		if _, err := LoadChipCalibrated(c.chip, c.cal, c.first); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		kept.Lock()
		n := len(kept.defaulted)
		kept.Unlock()
		if keeps := n > 0; keeps != c.keeps {
			t.Errorf("%s: a document kept: %v, want %v", name, keeps, c.keeps)
		}
		warm, errWarm := LoadChipCalibrated(c.chip, c.cal, c.then)
		forget()
		fresh, errFresh := LoadChipCalibrated(c.chip, c.cal, c.then)
		if (errWarm == nil) != (errFresh == nil) || errWarm != nil && errWarm.Error() != errFresh.Error() {
			t.Fatalf("%s: %v from a kept document, %v afresh", name, errWarm, errFresh)
		}
		if errWarm == nil && !reflect.DeepEqual(warm, fresh) {
			t.Errorf("%s: the load from a kept document differs from the load afresh", name)
		}
	}
	// A bad value after a good one: the error a fresh load gives.
	forget()
	if _, err := LoadChipCalibrated("seed-c", nil, set("memory.dram.bandwidth", "20GB/s")); err != nil {
		t.Fatal(err)
	}
	_, warm := LoadChipCalibrated("seed-c", nil, set("memory.dram.bandwidth", "fast"))
	forget()
	_, fresh := LoadChipCalibrated("seed-c", nil, set("memory.dram.bandwidth", "fast"))
	if warm == nil || fresh == nil || warm.Error() != fresh.Error() {
		t.Errorf("a bad value: %v from a kept document, %v afresh", warm, fresh)
	}
}
