package dtype

import (
	"fmt"
	"strings"
)

// Dtype is the name of an element type as written in chip and model files
// (the keys of a unit's `peak` map).
type Dtype string

// The element types a unit's peak may be given for.
const (
	INT4  Dtype = "int4"
	INT8  Dtype = "int8"
	INT16 Dtype = "int16"
	FP8   Dtype = "fp8"
	FP16  Dtype = "fp16"
	BF16  Dtype = "bf16"
	FP32  Dtype = "fp32"
)

// All lists every dtype in ascending precision, the order used wherever
// dtypes are printed or iterated.
var All = []Dtype{INT4, INT8, FP8, INT16, FP16, BF16, FP32}

var ranks = map[Dtype]int{INT4: 1, INT8: 2, FP8: 3, INT16: 4, FP16: 5, BF16: 5, FP32: 6}

var bits = map[Dtype]int{INT4: 4, INT8: 8, FP8: 8, INT16: 16, FP16: 16, BF16: 16, FP32: 32}

// Parse returns the dtype named s (case-insensitive), or an error listing the
// accepted names.
func Parse(s string) (Dtype, error) {
	d := Dtype(strings.ToLower(strings.TrimSpace(s)))
	if _, ok := ranks[d]; !ok {
		return "", fmt.Errorf("%q is not a dtype: use one of %s", s, Names())
	}
	return d, nil
}

// Names lists the accepted dtype names, for error messages.
func Names() string {
	names := make([]string, len(All))
	for i, d := range All {
		names[i] = string(d)
	}
	return strings.Join(names, ", ")
}

// Valid reports whether d is a known dtype.
func (d Dtype) Valid() bool { _, ok := ranks[d]; return ok }

// Rank orders dtypes by precision; unknown dtypes rank 0.
func (d Dtype) Rank() int { return ranks[d] }

// AtLeast reports whether d is as precise as o or more.
func (d Dtype) AtLeast(o Dtype) bool { return d.Rank() >= o.Rank() }

// Bits is the storage width of one element.
func (d Dtype) Bits() int { return bits[d] }

// Bytes is the storage size of one element (0.5 for INT4).
func (d Dtype) Bytes() float64 { return float64(bits[d]) / 8 }

// Float reports whether d is a floating-point type.
func (d Dtype) Float() bool { return strings.HasPrefix(string(d), "fp") || d == BF16 }

// UnmarshalText parses a dtype name, so dtypes can key YAML maps.
func (d *Dtype) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
