package des

import (
	"math"
	"strconv"
)

// Time is simulated time in integer picoseconds. It is used both for
// instants (Sim.Now) and for durations (Sim.After); the zero instant is
// the start of the simulation. An int64 of picoseconds spans about ±106
// days, far beyond any inference run.
type Time int64

// Units of simulated time.
const (
	Picosecond  Time = 1
	Nanosecond       = 1000 * Picosecond
	Microsecond      = 1000 * Nanosecond
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
)

// MaxTime is the largest representable instant. It stands for "never":
// Seconds saturates to it and Link uses it for transfers that make no
// progress.
const MaxTime Time = math.MaxInt64

// Seconds converts s seconds to Time, rounding to the nearest picosecond
// (halves away from zero). Values beyond the range of Time saturate to
// MaxTime or to the most negative Time. Seconds panics if s is NaN, which
// is always a bug in the caller's model.
func Seconds(s float64) Time {
	ps := math.Round(s * 1e12)
	switch {
	case ps >= 0x1p63:
		return MaxTime
	case ps <= -0x1p63:
		return math.MinInt64
	case ps != ps:
		panic("des: Seconds(NaN)")
	}
	return Time(ps)
}

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / 1e12 }

// units lists the display units of String from largest to smallest,
// with the number of decimal digits one unit spans in picoseconds.
var units = [...]struct {
	size   Time
	name   string
	digits int
}{
	{Second, "s", 12},
	{Millisecond, "ms", 9},
	{Microsecond, "µs", 6},
	{Nanosecond, "ns", 3},
	{Picosecond, "ps", 0},
}

// String formats t exactly in the largest unit that is not greater than
// |t|, with trailing zeros trimmed: "0 s", "750 ps", "1.5 ms",
// "2.000000000001 s".
func (t Time) String() string {
	if t == 0 {
		return "0 s"
	}
	var buf [32]byte
	b := buf[:0]
	u := uint64(t)
	if t < 0 {
		b = append(b, '-')
		u = -u // also right for math.MinInt64
	}
	i := 0
	for uint64(units[i].size) > u {
		i++
	}
	unit := units[i]
	size := uint64(unit.size)
	b = strconv.AppendUint(b, u/size, 10)
	if frac := u % size; frac != 0 {
		b = append(b, '.')
		for range unit.digits {
			b = append(b, '0')
		}
		for j := len(b) - 1; frac != 0; j-- {
			b[j] = byte('0' + frac%10)
			frac /= 10
		}
		for b[len(b)-1] == '0' { // stops at frac's last non-zero digit
			b = b[:len(b)-1]
		}
	}
	b = append(b, ' ')
	b = append(b, unit.name...)
	return string(b)
}
