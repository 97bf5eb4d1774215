package sim

import (
	"testing"

	"github.com/edgetwin/edgetwin/hw/units"
)

func TestKeyKind(t *testing.T) {
	for key, want := range map[string]units.Kind{
		"memory.dram_bytes":              units.KindBytes,
		"memory.dram_peak_bytes_per_s":   units.KindByteRate,
		"decode.tokens_per_s":            0,
		"ttft_s":                         units.KindDuration,
		"prefill.seconds":                units.KindDuration,
		"energy.joules_per_token":        units.KindEnergy,
		"energy.avg_power_w":             units.KindPower,
		"energy.total_j":                 units.KindEnergy,
		"thermal.peak_c":                 units.KindTemperature,
		"memory.kv_l3_miss_rate":         0,
		"decode.ms_per_token.p50":        0,
		"thermal.sustained_tokens_per_s": 0,
	} {
		if got := KeyKind(key); got != want {
			t.Errorf("KeyKind(%s) = %v, want %v", key, got, want)
		}
	}
}
