package sim

import (
	"slices"
	"strings"
	"testing"
)

func TestParseLayers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Layers
		str  string
	}{
		{"", nil, ""},
		{"3", Layers{3}, "3"},
		{"0-3", Layers{0, 1, 2, 3}, "0-3"},
		{" 5, 0-2 ,2-3", Layers{0, 1, 2, 3, 5}, "0-3,5"},
		{"7-7,9", Layers{7, 9}, "7,9"},
	} {
		got, err := ParseLayers(tc.in)
		if err != nil || !slices.Equal(got, tc.want) || got.String() != tc.str {
			t.Errorf("ParseLayers(%q) = %v (%q), %v; want %v (%q)", tc.in, got, got.String(), err, tc.want, tc.str)
		}
	}
	for _, bad := range []string{"a", "-1", "3-1", "1-", ",", "0-65537", "1.5"} {
		if _, err := ParseLayers(bad); err == nil || !strings.Contains(err.Error(), "cpu-layers") {
			t.Errorf("ParseLayers(%q): error %v, want one naming cpu-layers", bad, err)
		}
	}
}

// FuzzParseLayers: any input is read or refused with an error, never a
// panic; what is read is sorted without repeats, within the bound, and
// reads back the same from its String.
func FuzzParseLayers(f *testing.F) {
	for _, s := range []string{"0-13", "0-3,20-27", "5", "", "3-1", "0-65536", " 1 , 2 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLayers(s)
		if err != nil {
			return
		}
		if !slices.IsSorted(l) || len(slices.Compact(slices.Clone(l))) != len(l) {
			t.Fatalf("%q read as %v: not sorted without repeats", s, l)
		}
		if len(l) > 0 && (l[0] < 0 || l[len(l)-1] > maxLayerIndex) {
			t.Fatalf("%q read as %v: out of bounds", s, l)
		}
		back, err := ParseLayers(l.String())
		if err != nil || !slices.Equal(back, l) {
			t.Fatalf("%q read as %v, its String %q reads as %v, %v", s, l, l.String(), back, err)
		}
	})
}

// FuzzParseUnitLayers: a unit's blocks read back as they are written, and
// a bad one is an error naming layers-on, never a panic.
func FuzzParseUnitLayers(f *testing.F) {
	for _, s := range []string{"gpu=0-13", "gpu=5", "", "gpu", "=0-3", "gpu=", "gpu=3-1", "a=b=c", "gpu = 0-3, 7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseUnitLayers(s)
		if err != nil {
			if !strings.Contains(err.Error(), "layers-on") {
				t.Fatalf("%q: error %q does not name layers-on", s, err)
			}
			return
		}
		if len(u.Layers) == 0 {
			if u.String() != "" {
				t.Fatalf("%q read as no blocks, written %q", s, u.String())
			}
			return
		}
		back, err := ParseUnitLayers(u.String())
		if err != nil || back.Unit != u.Unit || !slices.Equal(back.Layers, u.Layers) {
			t.Fatalf("%q read as %+v, its String %q reads as %+v, %v", s, u, u.String(), back, err)
		}
	})
}
