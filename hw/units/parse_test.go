package units

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

type parseCase struct {
	in   string
	kind Kind
	want float64
}

// parseCases has at least one case for every symbol of unitTable
// (TestParseCoversEveryUnit checks that), plus bare numbers and number forms.
var parseCases = []parseCase{
	{"1 B", KindBytes, 1},
	{"512B", KindBytes, 512},
	{"1.5 KB", KindBytes, 1500},
	{"4 MB", KindBytes, 4e6},
	{"16 GB", KindBytes, 16e9},
	{"2 TB", KindBytes, 2e12},
	{"1 KiB", KindBytes, 1024},
	{"4 MiB", KindBytes, 4194304},
	{"1.5 GiB", KindBytes, 1610612736},
	{"2 TiB", KindBytes, 2199023255552},
	{"0.1 KiB", KindBytes, 102.4},
	{"1024", KindBytes, 1024},

	{"250 ps", KindDuration, 250e-12},
	{"5 ns", KindDuration, 5e-9},
	{"3 us", KindDuration, 3e-6},
	{"3 \u00b5s", KindDuration, 3e-6},
	{"3 \u03bcs", KindDuration, 3e-6},
	{"5 ms", KindDuration, 5e-3},
	{"90s", KindDuration, 90},
	{"1.5 s", KindDuration, 1.5},
	{"2 min", KindDuration, 120},
	{"1.5min", KindDuration, 90},
	{"1.5 h", KindDuration, 5400},
	{"0.1 h", KindDuration, 360},
	{"2.5", KindDuration, 2.5},
	// Go duration syntax.
	{"5m", KindDuration, 300},
	{"1h30m", KindDuration, 5400},
	{"250ms", KindDuration, 0.25},
	{"1m30s", KindDuration, 90},
	{"1.5s", KindDuration, 1.5},
	{"2h45m30.5s", KindDuration, 9930.5},
	{"1\u00b5s", KindDuration, 1e-6},
	{"100ns", KindDuration, 1e-7},
	{"+1h", KindDuration, 3600},
	{".5h", KindDuration, 1800},
	{"1.m", KindDuration, 60},
	{"1h0m0.001s", KindDuration, 3600.001},
	{"0h1m", KindDuration, 60},

	{"50 Hz", KindFrequency, 50},
	{"400 kHz", KindFrequency, 4e5},
	{"933 MHz", KindFrequency, 933e6},
	{"2.4 GHz", KindFrequency, 2.4e9},
	{"1e9", KindFrequency, 1e9},

	{"100 B/s", KindByteRate, 100},
	{"1 KB/s", KindByteRate, 1e3},
	{"500 MB/s", KindByteRate, 5e8},
	{"68.3 GB/s", KindByteRate, 68.3e9},
	{"1.2 TB/s", KindByteRate, 1.2e12},
	{"1 KiB/s", KindByteRate, 1024},
	{"1 MiB/s", KindByteRate, 1 << 20},
	{"25.6 GiB/s", KindByteRate, 25.6 * (1 << 30)},
	{"2 TiB/s", KindByteRate, 2 << 40},
	{"5e10", KindByteRate, 5e10},

	{"10 OPS", KindOpRate, 10},
	{"1 KOPS", KindOpRate, 1e3},
	{"5 MOPS", KindOpRate, 5e6},
	{"500 GOPS", KindOpRate, 5e11},
	{"45 TOPS", KindOpRate, 45e12},
	{"1.2 POPS", KindOpRate, 1.2e15},
	{"3 FLOPS", KindOpRate, 3},
	{"4 KFLOPS", KindOpRate, 4e3},
	{"7 MFLOPS", KindOpRate, 7e6},
	{"900 GFLOPS", KindOpRate, 9e11},
	{"19.5 TFLOPS", KindOpRate, 19.5e12},
	{"1 PFLOPS", KindOpRate, 1e15},
	{"2e12", KindOpRate, 2e12},

	{"5 W", KindPower, 5},
	{"500 mW", KindPower, 0.5},
	{"1.5 kW", KindPower, 1500},
	{"250 uW", KindPower, 250e-6},
	{"250 \u00b5W", KindPower, 250e-6},
	{"250 \u03bcW", KindPower, 250e-6},
	{"3.3", KindPower, 3.3},

	{"1 J", KindEnergy, 1},
	{"2.5 mJ", KindEnergy, 2.5e-3},
	{"3 uJ", KindEnergy, 3e-6},
	{"3 \u00b5J", KindEnergy, 3e-6},
	{"3 \u03bcJ", KindEnergy, 3e-6},
	{"4 nJ", KindEnergy, 4e-9},
	{"0.5 pJ", KindEnergy, 0.5e-12},
	{"20 fJ", KindEnergy, 20e-15},
	{"1.2 kJ", KindEnergy, 1200},
	{"2.5 Wh", KindEnergy, 9000},
	{"0.1 Wh", KindEnergy, 360},
	{"1 mWh", KindEnergy, 3.6},
	{"0.7", KindEnergy, 0.7},

	{"85 C", KindTemperature, 85},
	{"-10 C", KindTemperature, -10},
	{"25 \u00b0C", KindTemperature, 25},
	{"0 degC", KindTemperature, 0},
	{"-40", KindTemperature, -40},
	{"0", KindTemperature, 0},
	{"-0 C", KindTemperature, 0},
	{"105.5 C", KindTemperature, 105.5},

	{"2.1 K/W", KindThermalResistance, 2.1},
	{"0.5 C/W", KindThermalResistance, 0.5},
	{"3 \u00b0C/W", KindThermalResistance, 3},
	{"12", KindThermalResistance, 12},

	{"15 J/K", KindHeatCapacity, 15},
	{"0.8 J/C", KindHeatCapacity, 0.8},
	{"2 J/\u00b0C", KindHeatCapacity, 2},
	{"40", KindHeatCapacity, 40},

	{"6400 MT/s", KindTransferRate, 6.4e9},
	{"16 GT/s", KindTransferRate, 16e9},
	{"1e9 T/s", KindTransferRate, 1e9},
	{"4266", KindTransferRate, 4266},

	{"0.9 V", KindVoltage, 0.9},
	{"750 mV", KindVoltage, 0.75},
	{"1.1", KindVoltage, 1.1},

	{"50%", KindFraction, 0.5},
	{"7 %", KindFraction, 0.07},
	{"100%", KindFraction, 1},
	{"0%", KindFraction, 0},
	{"0.5", KindFraction, 0.5},
	{"0", KindFraction, 0},
	{"-0", KindFraction, 0},
	{"1.5", KindFraction, 1.5},

	// Number forms.
	{".5 GB", KindBytes, 5e8},
	{"+2 KB", KindBytes, 2000},
	{"1e3 B", KindBytes, 1000},
	{"1E3 B", KindBytes, 1000},
	{"5. B", KindBytes, 5},
	{"1.5e-3 s", KindDuration, 1.5e-3},
	{"2.5e+3 ms", KindDuration, 2.5},
	{"  8 MiB  ", KindBytes, 8 << 20},
	{"8\tMiB", KindBytes, 8 << 20},
	{"8  MiB", KindBytes, 8 << 20},
	{"00012 B", KindBytes, 12},
	{"0.000001 TB", KindBytes, 1e6},
	{"123456789012345678901234567890 B", KindBytes, 123456789012345678901234567890},
	{"1e-300 B", KindBytes, 1e-300},
	{"1e-320 B", KindBytes, 1e-320},
	{"1.7976931348623157e308 B", KindBytes, math.MaxFloat64},
	{"1.7976931348623157e296 TB", KindBytes, math.MaxFloat64},
	{"5e-324 s", KindDuration, 5e-324},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		got, err := Parse(tc.in, tc.kind)
		if err != nil {
			t.Errorf("Parse(%q, %v): %v", tc.in, tc.kind, err)
			continue
		}
		if math.Float64bits(got) != math.Float64bits(tc.want) {
			t.Errorf("Parse(%q, %v) = %v (%b), want %v (%b)", tc.in, tc.kind, got, got, tc.want, tc.want)
		}
	}
}

func TestParseCoversEveryUnit(t *testing.T) {
	tested := map[string]bool{}
	for _, tc := range parseCases {
		_, rest, _ := scanNumber(strings.TrimSpace(tc.in))
		tested[strings.TrimSpace(rest)] = true
	}
	for _, u := range unitTable {
		if !tested[u.sym] {
			t.Errorf("unit %q (%v) has no case in parseCases", u.sym, u.kind)
		}
	}
}

type errorCase struct {
	in   string
	kind Kind
	want []string // substrings of the message; "ACCEPTED" stands for kind.Accepted()
}

var errorCases = []errorCase{
	// Empty and not a number.
	{"", KindBytes, []string{"empty size", "ACCEPTED"}},
	{"   ", KindDuration, []string{"empty duration", "ACCEPTED"}},
	{"fast", KindByteRate, []string{`"fast" is not a bandwidth: use a number with B/s, KB/s, MB/s, GB/s or GiB/s (e.g. 68.3 GB/s)`}},
	{"GB", KindBytes, []string{`"GB" is not a size`, "ACCEPTED"}},
	{"NaN", KindBytes, []string{`"NaN" is not a size`, "ACCEPTED"}},
	{"nan", KindTemperature, []string{"is not a temperature", "ACCEPTED"}},
	{"Inf", KindPower, []string{"is not a power", "ACCEPTED"}},
	{"+Inf", KindTemperature, []string{"is not a temperature", "ACCEPTED"}},
	{"-inf C", KindTemperature, []string{"is not a temperature", "ACCEPTED"}},
	{"infinity", KindFraction, []string{"is not a fraction", "ACCEPTED"}},
	{".", KindBytes, []string{"is not a size", "ACCEPTED"}},
	{"-", KindTemperature, []string{"is not a temperature", "ACCEPTED"}},
	{"+ 5 B", KindBytes, []string{"is not a size", "ACCEPTED"}},
	{"--1 C", KindTemperature, []string{"is not a temperature", "ACCEPTED"}},
	// Hex, underscores, broken exponents and trailing junk leave an unknown unit.
	{"0x10 B", KindBytes, []string{`unknown unit "x10 B"`, "ACCEPTED"}},
	{"1_000 B", KindBytes, []string{`unknown unit "_000 B"`, "ACCEPTED"}},
	{"1e B", KindBytes, []string{`unknown unit "e B"`, "ACCEPTED"}},
	{"1e+ B", KindBytes, []string{"unknown unit", "ACCEPTED"}},
	{"1..2 B", KindBytes, []string{"unknown unit", "ACCEPTED"}},
	{"1 2 B", KindBytes, []string{`unknown unit "2 B"`, "ACCEPTED"}},
	{"1.2.3", KindFraction, []string{"unknown unit", "ACCEPTED"}},
	// Unknown units, including case and bits.
	{"5 parsec", KindBytes, []string{`"5 parsec" is not a size: unknown unit "parsec"`, "ACCEPTED"}},
	{"5 gb", KindBytes, []string{`unknown unit "gb"`, "ACCEPTED"}},
	{"5 Gb", KindBytes, []string{`unknown unit "Gb"`, "ACCEPTED"}},
	{"5 kB", KindBytes, []string{`unknown unit "kB"`, "ACCEPTED"}},
	{"10 Gbps", KindByteRate, []string{`unknown unit "Gbps"`, "ACCEPTED"}},
	{"10 GBps", KindByteRate, []string{`unknown unit "GBps"`, "ACCEPTED"}},
	{"10 GB /s", KindByteRate, []string{`unknown unit "GB /s"`, "ACCEPTED"}},
	{"5 ghz", KindFrequency, []string{`unknown unit "ghz"`, "ACCEPTED"}},
	{"5 m", KindDuration, []string{`unknown unit "m"`, "ACCEPTED"}},
	{"5 sec", KindDuration, []string{`unknown unit "sec"`, "ACCEPTED"}},
	{"1h 30m", KindDuration, []string{"is not a duration", "ACCEPTED"}},
	{"1h30", KindDuration, []string{"is not a duration", "ACCEPTED"}},
	{"1e3m", KindDuration, []string{"is not a duration", "ACCEPTED"}},
	{"1d", KindDuration, []string{"is not a duration", "ACCEPTED"}},
	{"5 K", KindTemperature, []string{`unknown unit "K"`, "ACCEPTED"}},
	{"5 w", KindPower, []string{`unknown unit "w"`, "ACCEPTED"}},
	// Units of another dimension.
	{"5 GHz", KindBytes, []string{`"5 GHz": GHz is a frequency, not a size`, "ACCEPTED"}},
	{"5 ms", KindByteRate, []string{"ms is a duration, not a bandwidth", "ACCEPTED"}},
	{"5GHz", KindDuration, []string{"GHz is a frequency, not a duration", "ACCEPTED"}},
	{"1 J", KindPower, []string{"J is an energy, not a power", "ACCEPTED"}},
	{"5 W", KindEnergy, []string{"W is a power, not an energy", "ACCEPTED"}},
	{"10 GB/s", KindBytes, []string{"GB/s is a bandwidth, not a size", "ACCEPTED"}},
	{"16 GB", KindByteRate, []string{"GB is a size, not a bandwidth", "ACCEPTED"}},
	{"50%", KindTemperature, []string{"% is a fraction, not a temperature", "ACCEPTED"}},
	{"2 K/W", KindHeatCapacity, []string{"K/W is a thermal resistance, not a heat capacity", "ACCEPTED"}},
	{"45 TOPS", KindTransferRate, []string{"TOPS is an op rate, not a transfer rate", "ACCEPTED"}},
	{"6400 MT/s", KindFrequency, []string{"MT/s is a transfer rate, not a frequency", "ACCEPTED"}},
	{"1 V", KindPower, []string{"V is a voltage, not a power", "ACCEPTED"}},
	{"1 s", KindFraction, []string{"s is a duration, not a fraction", "ACCEPTED"}},
	{"1 Wh", KindPower, []string{"Wh is an energy, not a power", "ACCEPTED"}},
	// Negative values.
	{"-5 GB", KindBytes, []string{`"-5 GB": a size must be positive`}},
	{"-1 ms", KindDuration, []string{"a duration must not be negative"}},
	{"-1h30m", KindDuration, []string{"a duration must not be negative"}},
	{"-5m", KindDuration, []string{"a duration must not be negative"}},
	{"-2 GHz", KindFrequency, []string{"a frequency must be positive"}},
	{"-1e999 GB", KindBytes, []string{"a size must be positive"}},
	{"-0.1", KindFraction, []string{`"-0.1": a fraction must not be negative`}},
	{"-5%", KindFraction, []string{"a fraction must not be negative"}},
	{"-1e-400", KindFraction, []string{"a fraction must not be negative"}},
	{"-3 K/W", KindThermalResistance, []string{"a thermal resistance must be positive"}},
	// Zero values.
	{"0 B", KindBytes, []string{`"0 B": a size must be positive`}},
	{"0", KindByteRate, []string{"a bandwidth must be positive"}},
	{"0.0 GB/s", KindByteRate, []string{"a bandwidth must be positive"}},
	{"0e5 Hz", KindFrequency, []string{"a frequency must be positive"}},
	{"-0 W", KindPower, []string{"a power must be positive"}},
	{"0 KiB", KindBytes, []string{"a size must be positive"}},
	{"0 V", KindVoltage, []string{"a voltage must be positive"}},
	// Too large, also after scaling by the unit.
	{"1e308 TB", KindBytes, []string{`"1e308 TB" is too large for a size`}},
	{"1e309", KindBytes, []string{"too large for a size"}},
	{"2e308 B", KindBytes, []string{"too large"}},
	{"1e308 TiB", KindBytes, []string{"too large"}},
	{"1e306 h", KindDuration, []string{"too large"}},
	{"1e999999999999999999999 GiB", KindBytes, []string{"too large"}},
	{strings.Repeat("9", 400) + "h", KindDuration, []string{"too large for a duration"}},
	{"1e400 C", KindTemperature, []string{"too large for a temperature"}},
	{"-1e400 C", KindTemperature, []string{"too large for a temperature"}},
	{"1e311 %", KindFraction, []string{"too large for a fraction"}},
	// Too small: a positive quantity that rounds to zero.
	{"1e-400 B", KindBytes, []string{`"1e-400 B" is too small for a size: it rounds to zero`}},
	{"1e-330 KiB", KindBytes, []string{"too small"}},
	{"1e-400 mW", KindPower, []string{"too small"}},
}

func TestParseErrors(t *testing.T) {
	for _, tc := range errorCases {
		v, err := Parse(tc.in, tc.kind)
		if err == nil {
			t.Errorf("Parse(%q, %v) = %v, want an error", tc.in, tc.kind, v)
			continue
		}
		msg := err.Error()
		for _, want := range tc.want {
			if want == "ACCEPTED" {
				want = "use " + tc.kind.Accepted()
			}
			if !strings.Contains(msg, want) {
				t.Errorf("Parse(%q, %v) error %q does not mention %q", tc.in, tc.kind, msg, want)
			}
		}
		if strings.ContainsAny(msg, "\n\r") || msg[0] != strings.ToLower(msg[:1])[0] {
			t.Errorf("Parse(%q, %v) error %q is not one lower-case line", tc.in, tc.kind, msg)
		}
	}
}

func TestParseInvalidKind(t *testing.T) {
	for _, k := range []Kind{0, -1, KindFraction + 1} {
		if _, err := Parse("1", k); err == nil {
			t.Errorf("Parse with Kind %d succeeded", int(k))
		}
	}
}

func TestParseLongInputIsQuotedShort(t *testing.T) {
	in := strings.Repeat("x", 500) + "\u00b5"
	_, err := Parse(in, KindBytes)
	if err == nil || len(err.Error()) > 200 {
		t.Errorf("error for a long input: %v", err)
	}
}

// randDecimal returns a random number text in Go float syntax and its value
// as an exact rational.
func randDecimal(r *rand.Rand) (string, *big.Rat) {
	digits := make([]byte, 1+r.IntN(25))
	for i := range digits {
		digits[i] = byte('0' + r.IntN(10))
	}
	point := r.IntN(len(digits) + 1)
	text := string(digits[:point]) + "." + string(digits[point:])
	exp := r.IntN(61) - 30
	if r.IntN(2) == 0 {
		text += "e" + strconv.Itoa(exp)
	} else {
		exp = 0
	}
	v, ok := new(big.Rat).SetString(string(digits) + "e" + strconv.Itoa(exp-(len(digits)-point)))
	if !ok {
		panic("bad test decimal " + text)
	}
	return text, v
}

// TestParseIsExact checks that every unit rounds only once: Parse equals the
// exact decimal times the exact unit size, rounded to the nearest float64.
// For decimal units it also checks the documented equivalence with
// strconv.ParseFloat of the exponent-shifted text.
func TestParseIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		u := unitTable[r.IntN(len(unitTable))]
		text, val := randDecimal(r)
		if val.Sign() == 0 {
			continue
		}
		in := text + " " + u.sym
		got, err := Parse(in, u.kind)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		size := new(big.Rat).SetInt64(u.mul)
		size.Mul(size, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(u.exp2))))
		p10, _ := new(big.Rat).SetString("1e" + strconv.Itoa(u.exp10))
		size.Mul(size, p10)
		want, _ := new(big.Rat).Mul(val, size).Float64()
		if got != want {
			t.Fatalf("Parse(%q) = %v, want %v", in, got, want)
		}
		if u.mul == 1 && u.exp2 == 0 {
			mant, exp, _ := strings.Cut(text, "e")
			e, _ := strconv.Atoi(exp)
			viaStrconv, _ := strconv.ParseFloat(mant+"e"+strconv.Itoa(e+u.exp10), 64)
			if got != viaStrconv {
				t.Fatalf("Parse(%q) = %v, strconv gives %v", in, got, viaStrconv)
			}
		}
	}
}

// TestGoDurationSyntax checks Go duration syntax against time.ParseDuration
// where that is exact (whole nanoseconds within ±292 years).
func TestGoDurationSyntax(t *testing.T) {
	for _, in := range []string{
		"5m", "1h30m", "250ms", "1m30s", "1.5s", "2h45m30.5s", "1\u00b5s", "1\u03bcs", "100ns",
		"3h0m0.001s", "1.000000001s", "7us", "0.25h", "1h1m1s1ms1us1ns", "2562047h",
		"+15m", "1.5m", ".5s", "90s", "36h",
	} {
		d, err := time.ParseDuration(in)
		if err != nil {
			t.Fatalf("time.ParseDuration(%q): %v", in, err)
		}
		want, _ := big.NewRat(d.Nanoseconds(), 1e9).Float64()
		got, err := Parse(in, KindDuration)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}
