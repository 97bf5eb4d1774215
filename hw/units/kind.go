package units

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Kind is the physical dimension of a quantity. The zero Kind is not a valid
// dimension; Parse rejects it.
type Kind int

// The dimensions edgetwin knows. Each comment lists the unit symbols Parse
// accepts; a bare number is in the SI base unit named in Parse.
const (
	KindBytes             Kind = iota + 1 // B KB MB GB TB KiB MiB GiB TiB
	KindDuration                          // ps ns us µs ms s min h, and Go durations such as 1h30m
	KindFrequency                         // Hz kHz MHz GHz
	KindByteRate                          // B/s KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s TiB/s
	KindOpRate                            // OPS KOPS MOPS GOPS TOPS POPS, and the same with FLOPS
	KindPower                             // W mW kW uW µW
	KindEnergy                            // J mJ uJ µJ nJ pJ fJ kJ Wh mWh
	KindTemperature                       // C °C degC (degrees Celsius; may be zero or negative)
	KindThermalResistance                 // K/W C/W
	KindHeatCapacity                      // J/K J/C
	KindTransferRate                      // T/s MT/s GT/s
	KindVoltage                           // V mV
	KindFraction                          // a bare number or a percentage (may be zero)
)

// kindInfo describes one Kind for messages.
type kindInfo struct {
	name     string // what the quantity is called in messages
	example  string // a typical value, shown in Accepted
	extra    string // appended to Accepted after the example
	accepted string // built by init from the unit table
}

var kinds = [...]kindInfo{
	KindBytes:             {name: "size", example: "16 GiB"},
	KindDuration:          {name: "duration", example: "250 ms", extra: ", or a Go duration such as 1h30m"},
	KindFrequency:         {name: "frequency", example: "1.5 GHz"},
	KindByteRate:          {name: "bandwidth", example: "68.3 GB/s"},
	KindOpRate:            {name: "op rate", example: "45 TOPS"},
	KindPower:             {name: "power", example: "5 W"},
	KindEnergy:            {name: "energy", example: "2.5 mJ"},
	KindTemperature:       {name: "temperature", example: "85 C"},
	KindThermalResistance: {name: "thermal resistance", example: "2.1 K/W"},
	KindHeatCapacity:      {name: "heat capacity", example: "15 J/K"},
	KindTransferRate:      {name: "transfer rate", example: "6400 MT/s"},
	KindVoltage:           {name: "voltage", example: "0.9 V"},
	KindFraction:          {name: "fraction", example: "50%", extra: ", or a plain number such as 0.5"},
}

func (k Kind) valid() bool { return k >= KindBytes && k <= KindFraction }

// String returns the name of the dimension as messages use it, e.g.
// "bandwidth" for KindByteRate.
func (k Kind) String() string {
	if !k.valid() {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kinds[k].name
}

// Accepted returns a short phrase listing the accepted forms, for error
// messages, e.g. for KindByteRate
// "a number with B/s, KB/s, MB/s, GB/s or GiB/s (e.g. 68.3 GB/s)".
// It returns "" for an invalid Kind.
func (k Kind) Accepted() string {
	if !k.valid() {
		return ""
	}
	return kinds[k].accepted
}

// WithArticle is the dimension's name after its article, as messages say
// it: "a size", "an energy".
func (k Kind) WithArticle() string { return withArticle(k.String()) }

// withArticle returns "a size", "an energy", ...
func withArticle(name string) string {
	if name != "" && strings.IndexByte("aeiou", name[0]) >= 0 {
		return "an " + name
	}
	return "a " + name
}

// Unit flags.
const (
	printed = 1 << iota // Format may choose this symbol
	listed              // Accepted lists this symbol
	tight               // no space between number and symbol ("50%")
)

// unit is one accepted symbol: it stands for mul × 10^exp10 × 2^exp2 base
// units. Decimal prefixes set exp10, binary prefixes exp2, and the few units
// that are not powers of ten or two (min, h, Wh) set mul.
type unit struct {
	sym   string
	kind  Kind
	mul   int64
	exp10 int
	exp2  int
	flags int

	factor float64 // the size of the unit in base units, for ordering
}

const (
	micro = "\u00b5" // µ MICRO SIGN, which Format prints
	mu    = "\u03bc" // μ GREEK SMALL LETTER MU, also accepted
)

// unitTable drives both Parse and Format. Symbols are case-sensitive and
// unique across all kinds, so a symbol of the wrong kind can be named in an
// error. Within a kind, listed symbols appear in Accepted in table order.
var unitTable = []unit{
	{sym: "B", kind: KindBytes, mul: 1, flags: printed | listed},
	{sym: "KB", kind: KindBytes, mul: 1, exp10: 3, flags: printed | listed},
	{sym: "MB", kind: KindBytes, mul: 1, exp10: 6, flags: printed | listed},
	{sym: "GB", kind: KindBytes, mul: 1, exp10: 9, flags: printed | listed},
	{sym: "TB", kind: KindBytes, mul: 1, exp10: 12, flags: printed | listed},
	{sym: "KiB", kind: KindBytes, mul: 1, exp2: 10, flags: printed | listed},
	{sym: "MiB", kind: KindBytes, mul: 1, exp2: 20, flags: printed | listed},
	{sym: "GiB", kind: KindBytes, mul: 1, exp2: 30, flags: printed | listed},
	{sym: "TiB", kind: KindBytes, mul: 1, exp2: 40, flags: printed | listed},

	{sym: "ps", kind: KindDuration, mul: 1, exp10: -12, flags: printed | listed},
	{sym: "ns", kind: KindDuration, mul: 1, exp10: -9, flags: printed | listed},
	{sym: "us", kind: KindDuration, mul: 1, exp10: -6, flags: listed},
	{sym: micro + "s", kind: KindDuration, mul: 1, exp10: -6, flags: printed},
	{sym: mu + "s", kind: KindDuration, mul: 1, exp10: -6},
	{sym: "ms", kind: KindDuration, mul: 1, exp10: -3, flags: printed | listed},
	{sym: "s", kind: KindDuration, mul: 1, flags: printed | listed},
	{sym: "min", kind: KindDuration, mul: 60, flags: printed | listed},
	{sym: "h", kind: KindDuration, mul: 3600, flags: printed | listed},

	{sym: "Hz", kind: KindFrequency, mul: 1, flags: printed | listed},
	{sym: "kHz", kind: KindFrequency, mul: 1, exp10: 3, flags: printed | listed},
	{sym: "MHz", kind: KindFrequency, mul: 1, exp10: 6, flags: printed | listed},
	{sym: "GHz", kind: KindFrequency, mul: 1, exp10: 9, flags: printed | listed},

	{sym: "B/s", kind: KindByteRate, mul: 1, flags: printed | listed},
	{sym: "KB/s", kind: KindByteRate, mul: 1, exp10: 3, flags: printed | listed},
	{sym: "MB/s", kind: KindByteRate, mul: 1, exp10: 6, flags: printed | listed},
	{sym: "GB/s", kind: KindByteRate, mul: 1, exp10: 9, flags: printed | listed},
	{sym: "TB/s", kind: KindByteRate, mul: 1, exp10: 12, flags: printed},
	{sym: "KiB/s", kind: KindByteRate, mul: 1, exp2: 10, flags: printed},
	{sym: "MiB/s", kind: KindByteRate, mul: 1, exp2: 20, flags: printed},
	{sym: "GiB/s", kind: KindByteRate, mul: 1, exp2: 30, flags: printed | listed},
	{sym: "TiB/s", kind: KindByteRate, mul: 1, exp2: 40, flags: printed},

	{sym: "OPS", kind: KindOpRate, mul: 1, flags: printed | listed},
	{sym: "KOPS", kind: KindOpRate, mul: 1, exp10: 3, flags: printed},
	{sym: "MOPS", kind: KindOpRate, mul: 1, exp10: 6, flags: printed},
	{sym: "GOPS", kind: KindOpRate, mul: 1, exp10: 9, flags: printed | listed},
	{sym: "TOPS", kind: KindOpRate, mul: 1, exp10: 12, flags: printed | listed},
	{sym: "POPS", kind: KindOpRate, mul: 1, exp10: 15, flags: printed},
	{sym: "FLOPS", kind: KindOpRate, mul: 1, flags: listed},
	{sym: "KFLOPS", kind: KindOpRate, mul: 1, exp10: 3},
	{sym: "MFLOPS", kind: KindOpRate, mul: 1, exp10: 6},
	{sym: "GFLOPS", kind: KindOpRate, mul: 1, exp10: 9, flags: listed},
	{sym: "TFLOPS", kind: KindOpRate, mul: 1, exp10: 12, flags: listed},
	{sym: "PFLOPS", kind: KindOpRate, mul: 1, exp10: 15},

	{sym: "uW", kind: KindPower, mul: 1, exp10: -6, flags: listed},
	{sym: micro + "W", kind: KindPower, mul: 1, exp10: -6, flags: printed},
	{sym: mu + "W", kind: KindPower, mul: 1, exp10: -6},
	{sym: "mW", kind: KindPower, mul: 1, exp10: -3, flags: printed | listed},
	{sym: "W", kind: KindPower, mul: 1, flags: printed | listed},
	{sym: "kW", kind: KindPower, mul: 1, exp10: 3, flags: printed | listed},

	{sym: "fJ", kind: KindEnergy, mul: 1, exp10: -15, flags: printed | listed},
	{sym: "pJ", kind: KindEnergy, mul: 1, exp10: -12, flags: printed | listed},
	{sym: "nJ", kind: KindEnergy, mul: 1, exp10: -9, flags: printed | listed},
	{sym: "uJ", kind: KindEnergy, mul: 1, exp10: -6, flags: listed},
	{sym: micro + "J", kind: KindEnergy, mul: 1, exp10: -6, flags: printed},
	{sym: mu + "J", kind: KindEnergy, mul: 1, exp10: -6},
	{sym: "mJ", kind: KindEnergy, mul: 1, exp10: -3, flags: printed | listed},
	{sym: "J", kind: KindEnergy, mul: 1, flags: printed | listed},
	{sym: "kJ", kind: KindEnergy, mul: 1, exp10: 3, flags: printed | listed},
	{sym: "mWh", kind: KindEnergy, mul: 3600, exp10: -3, flags: listed},
	{sym: "Wh", kind: KindEnergy, mul: 3600, flags: listed},

	{sym: "C", kind: KindTemperature, mul: 1, flags: listed},
	{sym: "\u00b0C", kind: KindTemperature, mul: 1, flags: printed | listed},
	{sym: "degC", kind: KindTemperature, mul: 1, flags: listed},

	{sym: "K/W", kind: KindThermalResistance, mul: 1, flags: printed | listed},
	{sym: "C/W", kind: KindThermalResistance, mul: 1, flags: listed},
	{sym: "\u00b0C/W", kind: KindThermalResistance, mul: 1},

	{sym: "J/K", kind: KindHeatCapacity, mul: 1, flags: printed | listed},
	{sym: "J/C", kind: KindHeatCapacity, mul: 1, flags: listed},
	{sym: "J/\u00b0C", kind: KindHeatCapacity, mul: 1},

	{sym: "T/s", kind: KindTransferRate, mul: 1, flags: printed | listed},
	{sym: "MT/s", kind: KindTransferRate, mul: 1, exp10: 6, flags: printed | listed},
	{sym: "GT/s", kind: KindTransferRate, mul: 1, exp10: 9, flags: printed | listed},

	{sym: "mV", kind: KindVoltage, mul: 1, exp10: -3, flags: printed | listed},
	{sym: "V", kind: KindVoltage, mul: 1, flags: printed | listed},

	{sym: "%", kind: KindFraction, mul: 1, exp10: -2, flags: printed | listed | tight},
}

var (
	bySymbol = map[string]*unit{}
	// printable holds, per kind, the units Format may choose, smallest first.
	printable [len(kinds)][]*unit
)

func init() {
	var lists [len(kinds)][]string
	for i := range unitTable {
		u := &unitTable[i]
		if _, dup := bySymbol[u.sym]; dup || !u.kind.valid() || u.mul < 1 || u.exp2 < 0 {
			panic("units: bad unit table entry " + u.sym)
		}
		bySymbol[u.sym] = u
		u.factor = float64(u.mul) * pow10f(u.exp10) * float64(uint64(1)<<u.exp2)
		if u.flags&printed != 0 {
			printable[u.kind] = append(printable[u.kind], u)
		}
		if u.flags&listed != 0 {
			lists[u.kind] = append(lists[u.kind], u.sym)
		}
	}
	for k := KindBytes; k.valid(); k++ {
		sort.SliceStable(printable[k], func(i, j int) bool {
			return printable[k][i].factor < printable[k][j].factor
		})
		// Format falls back on the smallest printable unit, which must
		// render every value: a decimal one.
		if len(printable[k]) == 0 || len(lists[k]) == 0 || printable[k][0].mul != 1 || printable[k][0].exp2 != 0 {
			panic("units: bad units for " + k.String())
		}
		syms := lists[k]
		list := syms[0]
		if n := len(syms); n > 1 {
			list = strings.Join(syms[:n-1], ", ") + " or " + syms[n-1]
		}
		info := &kinds[k]
		info.accepted = "a number with " + list + " (e.g. " + info.example + ")" + info.extra
	}
}

// pow10f returns 10^e rounded to float64 (exactly as Parse would read "1e<e>").
func pow10f(e int) float64 {
	f, _ := strconv.ParseFloat("1e"+strconv.Itoa(e), 64)
	return f
}
