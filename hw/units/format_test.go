package units

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		kind Kind
		want string
	}{
		{8388608, KindBytes, "8 MiB"},
		{12 << 20, KindBytes, "12 MiB"},
		{16 << 30, KindBytes, "16 GiB"},
		{1536, KindBytes, "1.5 KiB"},
		{1 << 40, KindBytes, "1 TiB"},
		{3825065984, KindBytes, "3.825065984 GB"},
		{1000, KindBytes, "1 KB"},
		{1500, KindBytes, "1.5 KB"},
		{512, KindBytes, "512 B"},
		{0.5, KindBytes, "0.5 B"},
		{2e12, KindBytes, "2 TB"},
		{1e30, KindBytes, "1e18 TB"},
		{0, KindBytes, "0 B"},
		{68.3e9, KindByteRate, "68.3 GB/s"},
		{25.6 * (1 << 30), KindByteRate, "25.6 GiB/s"},
		{1e9, KindFrequency, "1 GHz"},
		{933e6, KindFrequency, "933 MHz"},
		{45e12, KindOpRate, "45 TOPS"},
		{1.5e15, KindOpRate, "1.5 POPS"},
		{0.002, KindDuration, "2 ms"},
		{0.0005, KindDuration, "500 \u00b5s"},
		{1e-12, KindDuration, "1 ps"},
		{1.5, KindDuration, "1.5 s"},
		{100, KindDuration, "100 s"},
		{90, KindDuration, "90 s"},
		{150, KindDuration, "2.5 min"},
		{5400, KindDuration, "90 min"},
		{7200, KindDuration, "2 h"},
		{86400, KindDuration, "24 h"},
		{1e6, KindDuration, "1000000 s"},
		{1.0 / 3, KindDuration, "333.3333333333333 ms"},
		{1e-20, KindDuration, "1e-8 ps"},
		{0, KindDuration, "0 s"},
		{0.5, KindPower, "500 mW"},
		{250e-6, KindPower, "250 \u00b5W"},
		{3.6, KindEnergy, "3.6 J"},
		{9000, KindEnergy, "9 kJ"},
		{20e-15, KindEnergy, "20 fJ"},
		{85, KindTemperature, "85 \u00b0C"},
		{-10, KindTemperature, "-10 \u00b0C"},
		{0, KindTemperature, "0 \u00b0C"},
		{0.25, KindTemperature, "0.25 \u00b0C"},
		{2.1, KindThermalResistance, "2.1 K/W"},
		{15, KindHeatCapacity, "15 J/K"},
		{6.4e9, KindTransferRate, "6.4 GT/s"},
		{0.9, KindVoltage, "900 mV"},
		{1.1, KindVoltage, "1.1 V"},
		{0.5, KindFraction, "50%"},
		{1, KindFraction, "100%"},
		{0, KindFraction, "0%"},
		{0.001, KindFraction, "0.1%"},
		{-5, KindBytes, "-5 B"},
		{math.NaN(), KindBytes, "NaN B"},
		{math.Inf(1), KindDuration, "+Inf s"},
		{math.Inf(-1), KindFraction, "-Inf%"},
		{1.5, Kind(0), "1.5"},
	} {
		if got := Format(tc.v, tc.kind); got != tc.want {
			t.Errorf("Format(%v, %v) = %q, want %q", tc.v, tc.kind, got, tc.want)
		}
	}
}

// roundTripValues returns hand-picked awkward values and random ones, all
// positive and finite.
func roundTripValues() []float64 {
	vs := []float64{
		1, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 3825065984, 1e-12, 1e-300, 1e-320,
		math.SmallestNonzeroFloat64, math.MaxFloat64, 2.2250738585072014e-308,
		68.3e9, 8 << 20, 12 << 20, 1 << 40, 1 << 50, 1e15, 1e21, 1e-7, 123456789.123,
		0.999999999, 59.999999, 60, 3600, 5400, 1.5, math.Nextafter(60, 100),
		math.Nextafter(3600, 0), 86400 * 365.25, 1e300 * 3600, 1023, 1025, 999.5,
		0.7, 33.33, 1e-6, 1e-9, 0.0005, 4096, 25.6 * (1 << 30), math.Pi, math.E,
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		// Any finite positive float64.
		v := math.Float64frombits(r.Uint64() &^ (1 << 63))
		if !math.IsInf(v, 0) && !math.IsNaN(v) && v != 0 {
			vs = append(vs, v)
		}
		// Typical magnitudes, human-looking and not.
		vs = append(vs, float64(1+r.IntN(100000))*math.Pow10(r.IntN(40)-20))
		vs = append(vs, r.Float64()*math.Pow10(r.IntN(40)-20))
		vs = append(vs, float64(1+r.IntN(4096))*float64(uint64(1)<<(10*r.IntN(5))))
		vs = append(vs, float64(1+r.IntN(10000))*60)
	}
	return vs
}

func allKinds() []Kind {
	var ks []Kind
	for k := KindBytes; k.valid(); k++ {
		ks = append(ks, k)
	}
	return ks
}

func TestRoundTrip(t *testing.T) {
	vs := roundTripValues()
	for _, k := range allKinds() {
		for _, v := range vs {
			checkRoundTrip(t, v, k)
			if k == KindTemperature {
				checkRoundTrip(t, -v, k)
			}
		}
		if k == KindTemperature || k == KindFraction {
			checkRoundTrip(t, 0, k)
		}
	}
}

func checkRoundTrip(t *testing.T, v float64, k Kind) {
	t.Helper()
	s := Format(v, k)
	got, err := Parse(s, k)
	if err != nil {
		t.Fatalf("Parse(Format(%v, %v) = %q): %v", v, k, s, err)
	}
	if math.Float64bits(got) != math.Float64bits(v) {
		t.Fatalf("Parse(Format(%v, %v) = %q) = %v", v, k, s, got)
	}
}

// TestFormatIsReadable checks that Format keeps numbers short: where a
// prefixed unit fits, the integer part needs at most four digits.
func TestFormatIsReadable(t *testing.T) {
	for _, k := range allKinds() {
		for _, v := range []float64{1e-13, 3e-10, 7e-7, 0.01, 1, 7, 42, 999, 1234, 65536, 1e6 + 1, 3.3e9, 7.7e12, 1.2e15} {
			covered := false
			for _, u := range printable[k] {
				// min and h are used only when exact and shorter.
				covered = covered || u.mul == 1 && u.factor <= v && v < u.factor*1000
			}
			if !covered {
				continue
			}
			s := Format(v, k)
			num, _, _ := strings.Cut(s, " ")
			intPart, _, _ := strings.Cut(num, ".")
			if len(intPart) > 4 || strings.Contains(num, "e") {
				t.Errorf("Format(%v, %v) = %q is hard to read", v, k, s)
			}
		}
	}
}

func TestKindNamesAndAccepted(t *testing.T) {
	names := map[Kind]string{
		KindBytes: "size", KindDuration: "duration", KindFrequency: "frequency",
		KindByteRate: "bandwidth", KindOpRate: "op rate", KindPower: "power",
		KindEnergy: "energy", KindTemperature: "temperature",
		KindThermalResistance: "thermal resistance", KindHeatCapacity: "heat capacity",
		KindTransferRate: "transfer rate", KindVoltage: "voltage", KindFraction: "fraction",
	}
	if len(names) != len(allKinds()) {
		t.Fatalf("%d kinds, %d names", len(allKinds()), len(names))
	}
	for k, want := range names {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), k.String(), want)
		}
		acc := k.Accepted()
		if !strings.HasPrefix(acc, "a number with ") {
			t.Errorf("%v.Accepted() = %q", k, acc)
		}
		// The example in the phrase must itself be accepted.
		_, after, _ := strings.Cut(acc, "(e.g. ")
		example, _, _ := strings.Cut(after, ")")
		if _, err := Parse(example, k); err != nil {
			t.Errorf("%v.Accepted() example %q does not parse: %v", k, example, err)
		}
		for _, u := range unitTable {
			if u.kind == k && u.flags&listed != 0 && !strings.Contains(acc, u.sym) {
				t.Errorf("%v.Accepted() = %q misses %s", k, acc, u.sym)
			}
		}
	}
	if got := KindByteRate.Accepted(); got != "a number with B/s, KB/s, MB/s, GB/s or GiB/s (e.g. 68.3 GB/s)" {
		t.Errorf("KindByteRate.Accepted() = %q", got)
	}
	if Kind(0).String() != "Kind(0)" || Kind(99).Accepted() != "" {
		t.Error("invalid kinds are not named as such")
	}
}

func TestTypedQuantities(t *testing.T) {
	for _, tc := range []struct {
		q    Quantity
		kind Kind
		text string
	}{
		{Bytes(8 << 20), KindBytes, "8 MiB"},
		{Seconds(0.002), KindDuration, "2 ms"},
		{Hertz(2.4e9), KindFrequency, "2.4 GHz"},
		{BytesPerSecond(68.3e9), KindByteRate, "68.3 GB/s"},
		{OpsPerSecond(45e12), KindOpRate, "45 TOPS"},
		{Watts(0.5), KindPower, "500 mW"},
		{Joules(2.5e-3), KindEnergy, "2.5 mJ"},
		{Celsius(-10), KindTemperature, "-10 \u00b0C"},
		{KelvinPerWatt(2.1), KindThermalResistance, "2.1 K/W"},
		{JoulesPerKelvin(15), KindHeatCapacity, "15 J/K"},
		{TransfersPerSecond(6.4e9), KindTransferRate, "6.4 GT/s"},
		{Volts(0.75), KindVoltage, "750 mV"},
		{Fraction(0.5), KindFraction, "50%"},
	} {
		if tc.q.Kind() != tc.kind {
			t.Errorf("%T.Kind() = %v, want %v", tc.q, tc.q.Kind(), tc.kind)
		}
		if tc.q.String() != tc.text {
			t.Errorf("%T(%v).String() = %q, want %q", tc.q, float64val(tc.q), tc.q.String(), tc.text)
		}
		text, err := tc.q.(interface{ MarshalText() ([]byte, error) }).MarshalText()
		if err != nil || string(text) != tc.text {
			t.Errorf("%T.MarshalText() = %q, %v; want %q", tc.q, text, err, tc.text)
		}
		// Unmarshal into a fresh value of the same type.
		p := reflect.New(reflect.TypeOf(tc.q))
		u := p.Interface().(interface{ UnmarshalText([]byte) error })
		if err := u.UnmarshalText(text); err != nil || p.Elem().Interface() != tc.q {
			t.Errorf("%T.UnmarshalText(%q) = %v, %v", tc.q, text, p.Elem().Interface(), err)
		}
		// A bad text is an error and leaves the value alone.
		if err := u.UnmarshalText([]byte("lots")); err == nil || p.Elem().Interface() != tc.q {
			t.Errorf("%T.UnmarshalText(\"lots\") = %v, %v", tc.q, p.Elem().Interface(), err)
		}
		// NaN cannot be written.
		nan := reflect.New(reflect.TypeOf(tc.q)).Elem()
		nan.SetFloat(math.NaN())
		if _, err := nan.Interface().(interface{ MarshalText() ([]byte, error) }).MarshalText(); err == nil {
			t.Errorf("%T.MarshalText(NaN) succeeded", tc.q)
		}
	}
}

func float64val(q Quantity) float64 { return reflect.ValueOf(q).Float() }

func TestJSON(t *testing.T) {
	type chip struct {
		DRAM  Bytes          `json:"dram"`
		BW    BytesPerSecond `json:"bw"`
		TjMax Celsius        `json:"tj_max"`
	}
	in := chip{DRAM: 16 << 30, BW: 68.3e9, TjMax: 105}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"dram":"16 GiB","bw":"68.3 GB/s","tj_max":"105 °C"}`; string(data) != want {
		t.Errorf("json.Marshal = %s, want %s", data, want)
	}
	var out chip
	if err := json.Unmarshal(data, &out); err != nil || out != in {
		t.Errorf("json.Unmarshal = %+v, %v", out, err)
	}
	err = json.Unmarshal([]byte(`{"dram":"16 GHz"}`), &out)
	if err == nil || !strings.Contains(err.Error(), "GHz is a frequency, not a size") {
		t.Errorf("json.Unmarshal of a frequency as size: %v", err)
	}
}

func TestParseCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"32", 32}, {"+7", 7}, {" 12 ", 12}, {"1", 1}, {"007", 7}, {"2147483647", 2147483647},
	} {
		got, err := ParseCount(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", "empty count: use a positive whole number"},
		{"0", `"0": a count must be positive`},
		{"000", "must be positive"},
		{"-3", `"-3": a count must be positive`},
		{"1.5", `"1.5" is not a count: use a positive whole number`},
		{"1e3", "is not a count"},
		{"abc", "is not a count"},
		{"0x10", "is not a count"},
		{"1_000", "is not a count"},
		{"+", "is not a count"},
		{"-", "is not a count"},
		{"+-1", "is not a count"},
		{"3 layers", "is not a count"},
		{"2147483648", "too large for a count (at most 2147483647)"},
		{"99999999999999999999999", "too large for a count"},
	} {
		got, err := ParseCount(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseCount(%q) = %d, %v; want error containing %q", tc.in, got, err, tc.want)
		}
	}
}

func TestApprox(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		k    Kind
		want string
	}{
		{16 << 30, KindBytes, "16 GiB"},          // exact and short: as Format
		{3825065984, KindBytes, "3.83 GB"},       // llama-2-7b Q4_0, rounded to 3 digits
		{520866854124.9572, KindBytes, "521 GB"}, // a traffic total
		{68.3e9, KindByteRate, "68.3 GB/s"},      // short already
		{0.0123456, KindDuration, "12.3 ms"},     // rounded
		{1234, KindBytes, "1.23 KB"},             // rounded to three digits
		{9142272, KindBytes, "9.14 MB"},          // 8928 KiB exactly, but four digits
		{41.75, KindTemperature, "41.8 °C"},      // no binary rounding residue
	} {
		if got := Approx(tc.v, tc.k); got != tc.want {
			t.Errorf("Approx(%v, %v) = %q, want %q", tc.v, tc.k, got, tc.want)
		}
	}
}
