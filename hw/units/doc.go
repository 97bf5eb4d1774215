// Package units reads and writes the physical quantities of edgetwin: every
// size, latency, bandwidth, op rate, power, energy, temperature and so on that
// appears in a YAML file or on the command line is a number with a unit.
//
// # Reading
//
// [Parse] reads text as one [Kind] of quantity and returns it in the SI base
// unit (bytes, seconds, hertz, bytes/s, ops/s, watts, joules, °C, K/W, J/K,
// transfers/s, volts, or a plain fraction):
//
//	bw, err := units.Parse("68.3 GB/s", units.KindByteRate) // 6.83e10
//	sz, err := units.Parse("4 MiB", units.KindBytes)        // 4194304
//	t, err := units.Parse("1h30m", units.KindDuration)      // 5400
//
// The text is a number in Go float syntax (1, 1.5, .5, 1e9, +2), optional
// spaces, and a unit symbol; a bare number is in the base unit. Symbols are
// case-sensitive: GB is gigabytes, and bits (Gb, Gbps) are not accepted.
//
//	size                B KB MB GB TB KiB MiB GiB TiB
//	duration            ps ns us µs ms s min h, or Go syntax: 5m 1h30m 250ms
//	frequency           Hz kHz MHz GHz
//	bandwidth           B/s KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s TiB/s
//	op rate             OPS KOPS MOPS GOPS TOPS POPS, FLOPS ... PFLOPS
//	power               uW µW mW W kW
//	energy              fJ pJ nJ uJ µJ mJ J kJ mWh Wh
//	temperature         C °C degC (degrees Celsius)
//	thermal resistance  K/W C/W
//	heat capacity       J/K J/C
//	transfer rate       T/s MT/s GT/s
//	voltage             mV V
//	fraction            a bare number or a percentage: 0.5 or 50%
//
// K, M, G, T and P are powers of 1000; Ki, Mi, Gi and Ti powers of 1024. OPS
// and FLOPS are both operations per second. In Go duration syntax "m" is a
// minute; in the unit form write "min" ("5 m" is an error).
//
// Only a temperature may be negative; only a temperature or a fraction may
// be zero. Empty text, NaN, infinities, values too large for a float64,
// unknown units and units of another dimension ("GHz is a frequency, not a
// size") are errors too. Every error is one line that says what is accepted,
// and leaves the file and line to the caller.
//
// # Exactness
//
// Parse rounds once, from the exact decimal value to the nearest float64.
// A decimal prefix moves the decimal exponent of the text before it is
// converted, so "68.3 GB/s" is the same float64 as the literal 68.3e9, not
// 68.3 × 1e9 in floating point. Binary prefixes, min, h and Wh are applied
// with exact rational arithmetic before rounding.
//
// # Writing
//
// [Format] prints a value with a fitting unit and the shortest number that
// reads back exactly, so Parse(Format(v, k), k) == v, bit for bit, for every
// value Parse can return:
//
//	units.Format(68.3e9, units.KindByteRate) // "68.3 GB/s"
//	units.Format(8<<20, units.KindBytes)     // "8 MiB"
//	units.Format(0.0005, units.KindDuration) // "500 µs"
//
// # Typed quantities
//
// [Bytes], [Seconds], [BytesPerSecond] and the other typed quantities are
// float64 values in the base unit with their own type, so a bandwidth is not
// added to a latency by mistake. They implement [Quantity],
// encoding.TextUnmarshaler (with Parse) and encoding.TextMarshaler (with
// Format), so struct fields of these types read "16 GiB" from YAML, JSON or
// flags, and what they write reads back to the same value.
//
// [ParseCount] reads plain positive counts such as a number of layers.
package units
