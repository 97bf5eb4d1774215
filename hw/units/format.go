package units

import (
	"math"
	"strconv"
	"strings"
)

// Format prints v, a value of kind k in its SI base unit, with a fitting
// unit: 68.3e9 bandwidth prints "68.3 GB/s", 8388608 bytes "8 MiB",
// 0.0005 s "500 µs", 0.5 as a fraction "50%".
//
// The number is the shortest decimal that reads back exactly, so
// Parse(Format(v, k), k) == v for every finite v that Parse can return.
// Among the units no larger than |v|, Format picks the one whose number has
// the fewest significant digits plus integer digits beyond three, and the
// larger unit on a tie. So 3825065984 bytes print as "3.825065984 GB" rather
// than "3735416 KiB", a size that is a small multiple of a binary unit prints
// with KiB, MiB, GiB or TiB ("12 MiB"), and durations of a minute or more
// print as min or h when that is exact and shorter ("90 min", "2 h").
//
// Format does not check the sign rules of Parse. It prints zero, NaN and
// ±Inf with the base unit ("0 s", "NaN B", "+Inf W"; fractions use %).
// For an invalid Kind it prints the bare number.
func Format(v float64, k Kind) string {
	num := strconv.FormatFloat(v, 'g', -1, 64)
	if !k.valid() {
		return num
	}
	a := math.Abs(v)
	if a == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		if a == 0 {
			num = "0"
		}
		return join(num, baseUnit(k))
	}
	units := printable[k]
	var best *unit
	bestCost := 0
	for _, u := range units {
		if u.factor > a && best != nil {
			break // units are sorted by size; keep the smallest only as a fallback
		}
		s, cost, ok := u.render(a)
		if !ok {
			continue
		}
		if best == nil || u.factor > a || cost <= bestCost {
			best, num, bestCost = u, s, cost
		}
	}
	if v < 0 {
		num = "-" + num
	}
	return join(num, best)
}

// baseUnit returns the printable unit of size 1 (B, s, ...), or the smallest
// printable unit if there is none (% for fractions).
func baseUnit(k Kind) *unit {
	for _, u := range printable[k] {
		if u.factor == 1 {
			return u
		}
	}
	return printable[k][0]
}

func join(num string, u *unit) string {
	if u.flags&tight != 0 {
		return num + u.sym
	}
	return num + " " + u.sym
}

// render writes a >= 0 as a number of unit u, exactly: reading the result
// with u gives back a. It also returns how hard the number is to read: its
// significant digits, plus its integer digits beyond three.
func (u *unit) render(a float64) (s string, cost int, ok bool) {
	switch {
	case u.mul == 1 && u.exp2 == 0:
		// Shift the decimal point of a's shortest decimal.
		d, e := shortest(a)
		return decimal(d, e-u.exp10), readCost(d, e-u.exp10), true
	case u.mul == 1:
		// Dividing by a power of two is exact unless it leaves the normal range.
		x := math.Ldexp(a, -u.exp2)
		if math.Ldexp(x, u.exp2) != a {
			return "", 0, false
		}
		d, e := shortest(x)
		return decimal(d, e), readCost(d, e), true
	default:
		// min, h, Wh: divide, and keep the result only if it reads back.
		d, e := shortest(a / u.factor)
		s = decimal(d, e)
		n, rest, ok := scanNumber(s)
		if !ok || rest != "" || u.value(n) != a {
			return "", 0, false
		}
		return s, readCost(d, e), true
	}
}

func readCost(d string, e int) int { return len(d) + max(0, e-2) }

// shortest returns the shortest decimal that reads back as a >= 0, as
// digits d (no trailing zeros unless a is 0) and exponent e, meaning
// d[0].d[1:] × 10^e.
func shortest(a float64) (d string, e int) {
	mant, exp, _ := strings.Cut(strconv.FormatFloat(a, 'e', -1, 64), "e")
	e, _ = strconv.Atoi(exp)
	return strings.Replace(mant, ".", "", 1), e
}

// decimal writes d[0].d[1:] × 10^e in plain notation, or in e-notation when
// that would need many zeros.
func decimal(d string, e int) string {
	switch {
	case d == "0":
		return "0"
	case e < -7 || e >= 16:
		s := d[:1]
		if len(d) > 1 {
			s += "." + d[1:]
		}
		return s + "e" + strconv.Itoa(e)
	case e < 0:
		return "0." + strings.Repeat("0", -e-1) + d
	case len(d) <= e+1:
		return d + strings.Repeat("0", e+1-len(d))
	default:
		return d[:e+1] + "." + d[e+1:]
	}
}

// Approx prints v for people rather than for parsing: as Format does when
// that needs at most three significant digits ("16 GiB", "68.3 GB/s"),
// else rounded to three ("3.83 GB" for 3825065984 bytes).
func Approx(v float64, k Kind) string {
	s := Format(v, k)
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 || sigDigits(s) <= 3 {
		return s
	}
	// Round through decimal text, so 41.75 becomes 41.8 and not the
	// nearest binary neighbour of 41.75 × 10 / 10.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return Format(r, k)
}

// sigDigits counts the significant digits of the number that starts s.
func sigDigits(s string) int {
	n, started := 0, false
	for _, c := range s {
		switch {
		case c >= '1' && c <= '9', c == '0' && started:
			n++
			started = true
		case c == '.' || c == '-' || c == '0':
		default:
			return n
		}
	}
	return n
}
