package sim

import (
	"strings"

	"github.com/edgetwin/edgetwin/hw/units"
)

// KeyKind is the dimension of a result key, read from its name as the
// result's JSON names them: memory.dram_bytes is a size, ttft_s a
// duration, thermal.peak_c a temperature. Rates in 0..1, token rates and
// counts are plain numbers (0).
func KeyKind(key string) units.Kind {
	switch {
	case strings.HasSuffix(key, "_bytes_per_s"):
		return units.KindByteRate
	case strings.HasSuffix(key, "_per_s"):
		return 0
	case strings.HasSuffix(key, "_bytes"):
		return units.KindBytes
	case strings.HasSuffix(key, "_s"), strings.HasSuffix(key, ".seconds"):
		return units.KindDuration
	case strings.HasSuffix(key, "joules_per_token"), strings.HasSuffix(key, "_j"):
		return units.KindEnergy
	case strings.HasSuffix(key, "_w"):
		return units.KindPower
	case strings.HasSuffix(key, "_c"):
		return units.KindTemperature
	}
	return 0
}
