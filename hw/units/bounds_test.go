package units

import (
	"os"
	"strings"
	"testing"
)

func TestBoundCheck(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		role string
		text string
		want []string // substrings of the message; nil: plausible
	}{
		{KindByteRate, "dram", "85.3", []string{"85.3 read as 85.3 B/s", "DRAM bandwidth", "10 MB/s to 20 TB/s", "85.3 — did you mean 85.3 GB/s?"}},
		{KindByteRate, "dram", "100 B/s", []string{"100 B/s is not a plausible DRAM bandwidth"}},
		{KindByteRate, "dram", "68.3 GB/s", nil},
		{KindByteRate, "dram", "68.3e9", nil}, // a bare number is fine where the base unit is the plausible reading
		{KindFrequency, "", "1612", []string{"1612 — did you mean 1612 MHz?"}},
		{KindFrequency, "", "2.4", []string{"2.4 — did you mean 2.4 GHz?"}},
		{KindFrequency, "", "1.5 GHz", nil},
		{KindBytes, "cache", "64 GiB", []string{"64 GiB is not a plausible cache size", "1 KiB to 4 GiB"}},
		{KindBytes, "cache", "12", []string{"12 — did you mean 12 MiB?"}},
		{KindBytes, "dram", "16", []string{"16 — did you mean 16 GiB?"}},
		{KindDuration, "cost", "1e9 s", []string{"per-operation cost", "0 s to 1 s"}},
		{KindDuration, "cost", "5", []string{"5 — did you mean 5 us?"}},
		{KindDuration, "cost", "0", nil},
		{KindDuration, "", "1000 h", []string{"is not a plausible duration"}},
		{KindTransferRate, "", "6400", []string{"6400 — did you mean 6400 MT/s?"}},
		{KindVoltage, "", "880", []string{"880 — did you mean 880 mV?"}},
		{KindEnergy, "per-op", "20", []string{"20 — did you mean 20 pJ?"}},
		{KindFraction, "per-c", "2", []string{"a bare number is a plain fraction", "2 — did you mean 2%?"}},
		{KindTemperature, "", "400", []string{"not a plausible temperature"}},
		{KindTemperature, "", "-40", nil},
	} {
		b, ok := BoundFor(tc.kind, tc.role)
		if !ok {
			t.Fatalf("no bound for %s/%q", tc.kind, tc.role)
		}
		v, err := Parse(tc.text, tc.kind)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.text, err)
		}
		msg := b.Check(tc.text, v)
		if tc.want == nil {
			if msg != "" {
				t.Errorf("%s %q: refused a plausible value: %s", tc.kind, tc.text, msg)
			}
			continue
		}
		if msg == "" {
			t.Errorf("%s %q: accepted", tc.kind, tc.text)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s %q: message %q lacks %q", tc.kind, tc.text, msg, w)
			}
		}
	}
}

// TestBoundsTable: every row is well formed, roles are unique per kind,
// and docs/bounds.md lists every row with its range.
func TestBoundsTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/bounds.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, b := range Bounds {
		key := b.Kind.String() + "/" + b.Role
		if seen[key] {
			t.Errorf("two rows for %s", key)
		}
		seen[key] = true
		if !(b.Min <= b.Typical && b.Typical <= b.Max) || b.Reason == "" || b.Name == "" {
			t.Errorf("row %s: bad row %+v", key, b)
		}
		role := b.Role
		if role == "" {
			role = "—"
		}
		row := "| " + b.Kind.String() + " | " + role + " | " + b.Range() + " |"
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/bounds.md lacks the row %q", row)
		}
	}
}
