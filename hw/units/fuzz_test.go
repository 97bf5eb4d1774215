package units

import (
	"math"
	"strings"
	"testing"
)

// FuzzParse checks, for every kind, that Parse never panics, that what it
// accepts is finite and obeys the sign rules, that Format writes it so that
// it reads back bit for bit, and that errors are single lines.
//
//	go test -run='^$' -fuzz=FuzzParse ./hw/units
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.in)
	}
	for _, tc := range errorCases {
		f.Add(tc.in)
	}
	for _, s := range []string{"1h30m", "-0", "1e-320 KiB", "0.1 h", "1.5e309 mWh", "4 GiB/s", "2147483647"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, k := range allKinds() {
			v, err := Parse(s, k)
			if err != nil {
				msg := err.Error()
				if msg == "" || strings.ContainsAny(msg, "\n\r") {
					t.Fatalf("Parse(%q, %v): bad error message %q", s, k, msg)
				}
				continue
			}
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				t.Fatalf("Parse(%q, %v) = %v", s, k, v)
			case k == KindTemperature && v == 0 && math.Signbit(v):
				t.Fatalf("Parse(%q, %v) = -0", s, k)
			case k.mayBeZero() && (v < 0 || math.Signbit(v)):
				t.Fatalf("Parse(%q, %v) = %v, negative", s, k, v)
			case k != KindTemperature && !k.mayBeZero() && v <= 0:
				t.Fatalf("Parse(%q, %v) = %v, not positive", s, k, v)
			}
			out := Format(v, k)
			back, err := Parse(out, k)
			if err != nil || math.Float64bits(back) != math.Float64bits(v) {
				t.Fatalf("Parse(%q, %v) = %v; Format gives %q, which reads back as %v, %v", s, k, v, out, back, err)
			}
		}
		if n, err := ParseCount(s); err == nil && n <= 0 {
			t.Fatalf("ParseCount(%q) = %d", s, n)
		}
	})
}
