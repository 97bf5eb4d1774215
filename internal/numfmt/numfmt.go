package numfmt

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/units"
)

// Number prints a figure with about three significant digits and no
// trailing zeros, with thousands separators from 1000 up: 26.9, 190, 0.65,
// 1,384.
func Number(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return Count(v)
	case a >= 100 || a == 0:
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	case a >= 10:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
	case a >= 1:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// USD prints dollars: "$12,500", "$786", "$1.67", "$0.00054".
func USD(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return "$" + Count(v)
	case a >= 1:
		return fmt.Sprintf("$%.2f", v)
	case a == 0:
		return "$0"
	}
	return "$" + strconv.FormatFloat(v, 'f', max(2, 1-int(math.Floor(math.Log10(math.Abs(v))))), 64)
}

// Count prints a whole number with thousands separators.
func Count(v float64) string {
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Value prints v for people: a quantity of kind k with units.Approx;
// a plain number whole when it is whole (a context of 16384 tokens), else
// to four significant digits without trailing zeros, and without an
// exponent from 0.001 up.
func Value(v float64, k units.Kind) string {
	a := math.Abs(v)
	switch {
	case k == units.KindFraction && v > 0.99 && v < 1:
		// A share just short of all of it keeps the digits that say so:
		// a 99.98% miss rate is not a 100% one.
		return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(100*v, 'f', 2, 64), "0"), ".") + "%"
	case k != 0:
		return units.Approx(v, k)
	case v == math.Trunc(v) && a < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a < 1e-3 || a >= 1e15:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	decimals := max(0, 3-int(math.Floor(math.Log10(a))))
	t := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(t, ".") {
		t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
	}
	return t
}
