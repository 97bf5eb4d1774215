package dtype

import "testing"

func TestParseAndOrder(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Dtype
		ok   bool
	}{
		{"int8", INT8, true}, {"FP16", FP16, true}, {" bf16 ", BF16, true},
		{"int3", "", false}, {"", "", false},
	} {
		got, err := Parse(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("Parse(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	// The runtime relies on this order to pick a compute type at or above
	// the activation type.
	for i := 1; i < len(All); i++ {
		if All[i].Rank() < All[i-1].Rank() {
			t.Errorf("All is not in ascending precision at %s", All[i])
		}
	}
	if !FP16.AtLeast(INT8) || INT4.AtLeast(INT8) || !BF16.AtLeast(FP16) {
		t.Error("AtLeast disagrees with the documented order")
	}
	if INT4.Bytes() != 0.5 || FP32.Bytes() != 4 {
		t.Error("element sizes wrong")
	}
}
