package units

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Parse reads s as a quantity of kind k and returns its value in the SI base
// unit of k: bytes, seconds, hertz, bytes/s, ops/s, watts, joules, °C, K/W,
// J/K, transfers/s, volts, or a plain fraction.
//
// s is a number in Go float syntax (1, 1.5, .5, 1e9, +2; no hex, no
// underscores, no Inf or NaN), optional spaces, and a case-sensitive unit
// symbol of kind k; a bare number is in the base unit. Durations may also be
// written in Go's time.ParseDuration syntax ("5m", "1h30m"). Surrounding
// white space is ignored.
//
// The result is the float64 nearest to the exact value that s denotes:
// "68.3 GB/s" is exactly 68.3e9. Zero and negative values are errors, except
// that a temperature may be zero or negative and a fraction may be zero.
// Errors are single lines without file or line; those about the form of s
// say which forms are accepted (see Kind.Accepted).
func Parse(s string, k Kind) (float64, error) {
	if !k.valid() {
		return 0, fmt.Errorf("unknown quantity kind %d", int(k))
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty %s: use %s", k, k.Accepted())
	}
	v, neg, nonzero, err := parseValue(t, k)
	if err != nil {
		return 0, err
	}
	switch {
	case k.mayBeZero() && neg && nonzero:
		return 0, fmt.Errorf("%s: %s must not be negative", quote(t), withArticle(k.String()))
	case !k.mayBeZero() && k != KindTemperature && (neg || !nonzero):
		return 0, fmt.Errorf("%s: %s must be positive", quote(t), withArticle(k.String()))
	case math.IsInf(v, 0):
		return 0, fmt.Errorf("%s is too large for %s", quote(t), withArticle(k.String()))
	case v == 0 && nonzero && !k.mayBeZero() && k != KindTemperature:
		return 0, fmt.Errorf("%s is too small for %s: it rounds to zero", quote(t), withArticle(k.String()))
	}
	if v == 0 {
		v = 0 // drop the sign of -0
	}
	return v, nil
}

// mayBeZero reports whether a quantity of kind k may be zero: a fraction,
// or a duration (a cost that is absent). Sizes, rates, peaks, clocks and
// the rest must be positive.
func (k Kind) mayBeZero() bool { return k == KindFraction || k == KindDuration }

// parseValue converts t (non-empty, trimmed) to base units of k. It also
// reports whether t was written with a minus sign and whether any digit of
// the number is non-zero, for the sign rules.
func parseValue(t string, k Kind) (v float64, neg, nonzero bool, err error) {
	n, rest, ok := scanNumber(t)
	sym := strings.TrimLeft(rest, " \t")
	if ok {
		if sym == "" {
			return n.shifted(0), n.neg, !n.zero, nil
		}
		if u := bySymbol[sym]; u != nil && u.kind == k {
			return u.value(n), n.neg, !n.zero, nil
		}
	}
	if k == KindDuration {
		if v, neg, nonzero, ok := parseGoDuration(t); ok {
			return v, neg, nonzero, nil
		}
	}
	switch u := bySymbol[sym]; {
	case !ok:
		err = fmt.Errorf("%s is not %s: use %s", quote(t), withArticle(k.String()), k.Accepted())
	case u != nil:
		err = fmt.Errorf("%s: %s is %s, not %s; use %s", quote(t), sym,
			withArticle(u.kind.String()), withArticle(k.String()), k.Accepted())
	default:
		err = fmt.Errorf("%s is not %s: unknown unit %s; use %s", quote(t), withArticle(k.String()),
			quote(sym), k.Accepted())
	}
	return 0, false, false, err
}

// number is a decimal number as written: digits × 10^exp, with a sign.
type number struct {
	neg    bool
	digits string // mantissa digits, integer and fraction part, without the point
	exp    int    // value = digits × 10^exp
	zero   bool   // every digit is 0
}

// maxExp bounds the exponent we keep; larger ones are saturated, which
// changes nothing since 10^±maxExp is far outside float64 either way.
const maxExp = 1_000_000_000

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitsPrefix(s string) int {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// scanNumber reads a number in Go float syntax (decimal only) from the
// start of s and returns it with the rest of s.
func scanNumber(s string) (n number, rest string, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		n.neg = s[i] == '-'
		i++
	}
	j := i + digitsPrefix(s[i:])
	intPart, frac := s[i:j], ""
	if j < len(s) && s[j] == '.' {
		f := j + 1
		j = f + digitsPrefix(s[f:])
		frac = s[f:j]
	}
	if intPart == "" && frac == "" {
		return number{}, s, false
	}
	n.digits = intPart + frac
	n.exp = -len(frac)
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		e := j + 1
		eneg := false
		if e < len(s) && (s[e] == '+' || s[e] == '-') {
			eneg = s[e] == '-'
			e++
		}
		if d := digitsPrefix(s[e:]); d > 0 {
			x := 0
			for _, c := range []byte(s[e : e+d]) {
				if x < maxExp {
					x = x*10 + int(c-'0')
				}
			}
			if eneg {
				x = -x
			}
			n.exp += x
			j = e + d
		}
	}
	n.zero = strings.Trim(n.digits, "0") == ""
	return n, s[j:], true
}

// shifted returns n × 10^shift rounded once to float64: the decimal exponent
// is moved in the text and strconv rounds the exact decimal.
func (n number) shifted(shift int) float64 {
	// Syntax is ours and valid; a range error leaves ±Inf or 0 in f.
	f, _ := strconv.ParseFloat(n.digits+"e"+strconv.Itoa(n.exp+shift), 64)
	if n.neg {
		f = -f
	}
	return f
}

// ratio returns digits × 10^e exactly.
func ratio(digits string, e int) *big.Rat {
	num, _ := new(big.Int).SetString(digits, 10)
	den := big.NewInt(1)
	if e >= 0 {
		num.Mul(num, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil))
	} else {
		den.Exp(big.NewInt(10), big.NewInt(int64(-e)), nil)
	}
	return new(big.Rat).SetFrac(num, den)
}

// value converts n, a number of unit u, to base units, rounding once.
// Decimal units shift the exponent of the text and let strconv round; the
// others (binary prefixes, min, h, Wh) compute the exact product with
// math/big and round that.
func (u *unit) value(n number) float64 {
	if u.mul == 1 && u.exp2 == 0 {
		return n.shifted(u.exp10)
	}
	var f float64
	d := strings.TrimLeft(n.digits, "0")
	e := n.exp + u.exp10
	// 10^mag <= |n × 10^exp10| < 10^(mag+1), and 1 <= mul × 2^exp2 < 2^41,
	// so outside these bounds the rounded result is surely ±Inf or 0; the
	// bounds also keep the exact arithmetic small.
	switch mag := len(d) - 1 + e; {
	case d == "" || mag < -360:
		f = 0
	case mag > 330:
		f = math.Inf(1)
	default:
		r := ratio(d, e)
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(u.mul), uint(u.exp2))))
		f, _ = r.Float64()
	}
	if n.neg {
		f = -f
	}
	return f
}

// goDurationUnits are the units of Go's time.ParseDuration, as mul × 10^exp10 s.
var goDurationUnits = map[string]struct {
	mul   int64
	exp10 int
}{
	"ns": {1, -9}, "us": {1, -6}, micro + "s": {1, -6}, mu + "s": {1, -6},
	"ms": {1, -3}, "s": {1, 0}, "m": {60, 0}, "h": {3600, 0},
}

// parseGoDuration reads Go duration syntax, [-+]?([0-9]*(\.[0-9]*)?unit)+,
// exactly (without time.Duration's nanosecond rounding and ±292-year limit).
// It has no exponents, so the exact sum stays as small as the input.
func parseGoDuration(s string) (v float64, neg, nonzero, ok bool) {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false, false, false
	}
	sum := new(big.Rat)
	inf := false
	for s != "" {
		i := digitsPrefix(s)
		intPart, frac := s[:i], ""
		if i < len(s) && s[i] == '.' {
			f := i + 1
			i = f + digitsPrefix(s[f:])
			frac = s[f:i]
		}
		if intPart == "" && frac == "" {
			return 0, false, false, false
		}
		s = s[i:]
		j := 0
		for j < len(s) && s[j] != '.' && !isDigit(s[j]) {
			j++
		}
		u, known := goDurationUnits[s[:j]]
		if !known {
			return 0, false, false, false
		}
		s = s[j:]
		d := strings.TrimLeft(intPart+frac, "0")
		if d == "" {
			continue
		}
		nonzero = true
		if len(d)-len(frac)+u.exp10 > 330 { // this segment alone overflows
			inf = true
			continue
		}
		r := ratio(d, u.exp10-len(frac))
		sum.Add(sum, r.Mul(r, new(big.Rat).SetInt64(u.mul)))
	}
	v, _ = sum.Float64()
	if inf {
		v = math.Inf(1)
	}
	if neg {
		v = -v
	}
	return v, neg, nonzero, true
}

// quote quotes s for a message, shortened if long.
func quote(s string) string {
	const limit = 60
	if len(s) > limit {
		i := limit
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "..."
	}
	return strconv.Quote(s)
}

// ParseCount reads s as a positive whole number, such as a layer count on
// the command line. Zero, negative, fractional and non-numeric values, and
// values above 2147483647 (the int32 range), are errors.
func ParseCount(s string) (int, error) {
	t := strings.TrimSpace(s)
	d := strings.TrimPrefix(t, "+")
	neg := false
	if len(d) == len(t) {
		d, neg = strings.CutPrefix(t, "-")
	}
	const use = "use a positive whole number (e.g. 32)"
	switch {
	case t == "":
		return 0, errors.New("empty count: " + use)
	case d == "" || digitsPrefix(d) != len(d):
		return 0, fmt.Errorf("%s is not a count: %s", quote(t), use)
	case neg || strings.Trim(d, "0") == "":
		return 0, fmt.Errorf("%s: a count must be positive", quote(t))
	}
	n, err := strconv.ParseInt(d, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%s is too large for a count (at most %d)", quote(t), math.MaxInt32)
	}
	return int(n), nil
}
