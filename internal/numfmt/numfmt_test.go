package numfmt

import (
	"testing"

	"github.com/edgetwin/edgetwin/hw/units"
)

// TestUSD: dollars with cents under $100, whole dollars with separators
// above, two significant digits under a dollar.
func TestUSD(t *testing.T) {
	for v, want := range map[float64]string{0: "$0", 0.00054: "$0.00054", 0.65: "$0.65", 1.666: "$1.67", 786.4: "$786", 55833.3: "$55,833", 1234567: "$1,234,567"} {
		if got := USD(v); got != want {
			t.Errorf("USD(%g) = %s, want %s", v, got, want)
		}
	}
}

// TestNumber: about three significant digits, no trailing zeros,
// separators from a thousand.
func TestNumber(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 26.94: "26.9", 190.2: "190", 0.65: "0.65", 1384: "1,384", 2.5: "2.5", -12345.6: "-12,346", 0.001234: "0.00123"} {
		if got := Number(v); got != want {
			t.Errorf("Number(%g) = %s, want %s", v, got, want)
		}
	}
}

// TestValue: plain numbers whole when whole, else four significant digits
// without trailing zeros; quantities with their unit.
func TestValue(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		kind units.Kind
		want string
	}{
		{16384, 0, "16384"}, // a context length prints whole
		{84.0276, 0, "84.03"},
		{0.90347, 0, "0.9035"},
		{0.05, 0, "0.05"},
		{84.2, 0, "84.2"},
		{12345.6, 0, "12346"},
		{0.0001234, 0, "0.0001234"},
		{3 << 20, units.KindBytes, "3 MiB"},
		{3825065984, units.KindBytes, "3.83 GB"},
		{40e9, units.KindByteRate, "40 GB/s"},
		{0.144, units.KindFraction, "14.4%"},
		{0.99976, units.KindFraction, "99.98%"}, // not 100%
		{1, units.KindFraction, "100%"},
	} {
		if got := Value(tc.v, tc.kind); got != tc.want {
			t.Errorf("Value(%v, %v) = %q, want %q", tc.v, tc.kind, got, tc.want)
		}
	}
}
