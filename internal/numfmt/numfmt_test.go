package numfmt

import "testing"

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
