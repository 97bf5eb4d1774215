package units

import (
	"encoding"
	"fmt"
	"math"
)

// Quantity is implemented by every typed quantity (Bytes, Seconds, ...), and
// by pointers to them. A decoder can use it to parse a field of any
// quantity type: Parse(text, q.Kind()).
type Quantity interface {
	Kind() Kind
	String() string
}

// The typed quantities below are float64 values in the SI base unit of their
// Kind, so that a bandwidth cannot be added to a latency by mistake. Convert
// with float64(q) for arithmetic across dimensions. Each reads and writes
// itself as text with Parse and Format, so it works in YAML, JSON and flags.

func unmarshalText[T ~float64](q *T, text []byte, k Kind) error {
	v, err := Parse(string(text), k)
	if err != nil {
		return err
	}
	*q = T(v)
	return nil
}

func marshalText(v float64, k Kind) ([]byte, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("cannot write %s %v as text", withArticle(k.String()), v)
	}
	return []byte(Format(v, k)), nil
}

// Bytes is a size in bytes. It prints like "16 GiB".
type Bytes float64

// Kind returns KindBytes.
func (Bytes) Kind() Kind { return KindBytes }

// String formats b with Format.
func (b Bytes) String() string { return Format(float64(b), KindBytes) }

// MarshalText writes b with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (b Bytes) MarshalText() ([]byte, error) { return marshalText(float64(b), KindBytes) }

// UnmarshalText parses text with Parse; on error b is unchanged.
func (b *Bytes) UnmarshalText(text []byte) error { return unmarshalText(b, text, KindBytes) }

// Seconds is a duration in seconds. It prints like "250 ms".
type Seconds float64

// Kind returns KindDuration.
func (Seconds) Kind() Kind { return KindDuration }

// String formats s with Format.
func (s Seconds) String() string { return Format(float64(s), KindDuration) }

// MarshalText writes s with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (s Seconds) MarshalText() ([]byte, error) { return marshalText(float64(s), KindDuration) }

// UnmarshalText parses text with Parse; on error s is unchanged.
func (s *Seconds) UnmarshalText(text []byte) error { return unmarshalText(s, text, KindDuration) }

// Hertz is a frequency in hertz. It prints like "1.5 GHz".
type Hertz float64

// Kind returns KindFrequency.
func (Hertz) Kind() Kind { return KindFrequency }

// String formats h with Format.
func (h Hertz) String() string { return Format(float64(h), KindFrequency) }

// MarshalText writes h with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (h Hertz) MarshalText() ([]byte, error) { return marshalText(float64(h), KindFrequency) }

// UnmarshalText parses text with Parse; on error h is unchanged.
func (h *Hertz) UnmarshalText(text []byte) error { return unmarshalText(h, text, KindFrequency) }

// BytesPerSecond is a bandwidth in bytes per second. It prints like "68.3 GB/s".
type BytesPerSecond float64

// Kind returns KindByteRate.
func (BytesPerSecond) Kind() Kind { return KindByteRate }

// String formats b with Format.
func (b BytesPerSecond) String() string { return Format(float64(b), KindByteRate) }

// MarshalText writes b with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (b BytesPerSecond) MarshalText() ([]byte, error) { return marshalText(float64(b), KindByteRate) }

// UnmarshalText parses text with Parse; on error b is unchanged.
func (b *BytesPerSecond) UnmarshalText(text []byte) error {
	return unmarshalText(b, text, KindByteRate)
}

// OpsPerSecond is an op rate in operations per second (OPS and FLOPS alike). It prints like "45 TOPS".
type OpsPerSecond float64

// Kind returns KindOpRate.
func (OpsPerSecond) Kind() Kind { return KindOpRate }

// String formats o with Format.
func (o OpsPerSecond) String() string { return Format(float64(o), KindOpRate) }

// MarshalText writes o with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (o OpsPerSecond) MarshalText() ([]byte, error) { return marshalText(float64(o), KindOpRate) }

// UnmarshalText parses text with Parse; on error o is unchanged.
func (o *OpsPerSecond) UnmarshalText(text []byte) error { return unmarshalText(o, text, KindOpRate) }

// Watts is a power in watts. It prints like "500 mW".
type Watts float64

// Kind returns KindPower.
func (Watts) Kind() Kind { return KindPower }

// String formats w with Format.
func (w Watts) String() string { return Format(float64(w), KindPower) }

// MarshalText writes w with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (w Watts) MarshalText() ([]byte, error) { return marshalText(float64(w), KindPower) }

// UnmarshalText parses text with Parse; on error w is unchanged.
func (w *Watts) UnmarshalText(text []byte) error { return unmarshalText(w, text, KindPower) }

// Joules is an energy in joules. It prints like "2.5 mJ".
type Joules float64

// Kind returns KindEnergy.
func (Joules) Kind() Kind { return KindEnergy }

// String formats j with Format.
func (j Joules) String() string { return Format(float64(j), KindEnergy) }

// MarshalText writes j with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (j Joules) MarshalText() ([]byte, error) { return marshalText(float64(j), KindEnergy) }

// UnmarshalText parses text with Parse; on error j is unchanged.
func (j *Joules) UnmarshalText(text []byte) error { return unmarshalText(j, text, KindEnergy) }

// Celsius is a temperature in degrees Celsius; it may be zero or negative. It prints like "85 °C".
type Celsius float64

// Kind returns KindTemperature.
func (Celsius) Kind() Kind { return KindTemperature }

// String formats c with Format.
func (c Celsius) String() string { return Format(float64(c), KindTemperature) }

// MarshalText writes c with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (c Celsius) MarshalText() ([]byte, error) { return marshalText(float64(c), KindTemperature) }

// UnmarshalText parses text with Parse; on error c is unchanged.
func (c *Celsius) UnmarshalText(text []byte) error { return unmarshalText(c, text, KindTemperature) }

// KelvinPerWatt is a thermal resistance in kelvin per watt. It prints like "2.1 K/W".
type KelvinPerWatt float64

// Kind returns KindThermalResistance.
func (KelvinPerWatt) Kind() Kind { return KindThermalResistance }

// String formats k with Format.
func (k KelvinPerWatt) String() string { return Format(float64(k), KindThermalResistance) }

// MarshalText writes k with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (k KelvinPerWatt) MarshalText() ([]byte, error) {
	return marshalText(float64(k), KindThermalResistance)
}

// UnmarshalText parses text with Parse; on error k is unchanged.
func (k *KelvinPerWatt) UnmarshalText(text []byte) error {
	return unmarshalText(k, text, KindThermalResistance)
}

// JoulesPerKelvin is a heat capacity in joules per kelvin. It prints like "15 J/K".
type JoulesPerKelvin float64

// Kind returns KindHeatCapacity.
func (JoulesPerKelvin) Kind() Kind { return KindHeatCapacity }

// String formats j with Format.
func (j JoulesPerKelvin) String() string { return Format(float64(j), KindHeatCapacity) }

// MarshalText writes j with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (j JoulesPerKelvin) MarshalText() ([]byte, error) {
	return marshalText(float64(j), KindHeatCapacity)
}

// UnmarshalText parses text with Parse; on error j is unchanged.
func (j *JoulesPerKelvin) UnmarshalText(text []byte) error {
	return unmarshalText(j, text, KindHeatCapacity)
}

// TransfersPerSecond is a transfer rate in transfers per second. It prints like "6.4 GT/s".
type TransfersPerSecond float64

// Kind returns KindTransferRate.
func (TransfersPerSecond) Kind() Kind { return KindTransferRate }

// String formats t with Format.
func (t TransfersPerSecond) String() string { return Format(float64(t), KindTransferRate) }

// MarshalText writes t with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (t TransfersPerSecond) MarshalText() ([]byte, error) {
	return marshalText(float64(t), KindTransferRate)
}

// UnmarshalText parses text with Parse; on error t is unchanged.
func (t *TransfersPerSecond) UnmarshalText(text []byte) error {
	return unmarshalText(t, text, KindTransferRate)
}

// Volts is a voltage in volts. It prints like "900 mV".
type Volts float64

// Kind returns KindVoltage.
func (Volts) Kind() Kind { return KindVoltage }

// String formats v with Format.
func (v Volts) String() string { return Format(float64(v), KindVoltage) }

// MarshalText writes v with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (v Volts) MarshalText() ([]byte, error) { return marshalText(float64(v), KindVoltage) }

// UnmarshalText parses text with Parse; on error v is unchanged.
func (v *Volts) UnmarshalText(text []byte) error { return unmarshalText(v, text, KindVoltage) }

// Fraction is a dimensionless fraction (0.5 is 50%); it may be zero. It prints like "50%".
type Fraction float64

// Kind returns KindFraction.
func (Fraction) Kind() Kind { return KindFraction }

// String formats f with Format.
func (f Fraction) String() string { return Format(float64(f), KindFraction) }

// MarshalText writes f with Format; Parse reads the text back exactly.
// NaN and infinities are errors.
func (f Fraction) MarshalText() ([]byte, error) { return marshalText(float64(f), KindFraction) }

// UnmarshalText parses text with Parse; on error f is unchanged.
func (f *Fraction) UnmarshalText(text []byte) error { return unmarshalText(f, text, KindFraction) }

// Every typed quantity is a Quantity and a text (un)marshaler.
var _ = []interface {
	Quantity
	encoding.TextMarshaler
	encoding.TextUnmarshaler
}{
	new(Bytes), new(Seconds), new(Hertz), new(BytesPerSecond), new(OpsPerSecond),
	new(Watts), new(Joules), new(Celsius), new(KelvinPerWatt), new(JoulesPerKelvin),
	new(TransfersPerSecond), new(Volts), new(Fraction),
}
