package reports

import (
	"bytes"
	"slices"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/internal/numfmt"
	"github.com/edgetwin/edgetwin/sim"
)

func TestSourceKind(t *testing.T) {
	for _, tc := range []struct{ source, want string }{
		{"assumed", SourceAssumed},
		{"assumed: nominal", SourceAssumed},
		{"derived: peak / clock (clock assumed)", SourceAssumed},
		{"derived: bandwidth × efficiency", SourceDerived},
		{"calibrated:fit.yaml", SourceCalibrated},
		{"--set", SourceSet},
		{"chips/mine.yaml:12", SourceFile},
		{"https://www.qualcomm.com/...", SourceCited},
		{"Samsung Galaxy S24 spec sheet", SourceCited},
	} {
		if got := SourceKind(tc.source); got != tc.want {
			t.Errorf("SourceKind(%q) = %s, want %s", tc.source, got, tc.want)
		}
	}
}

// TestAssumptions: chip paths once per chip, model paths once per model
// however many chips ran it, and chips that did not run left out.
func TestAssumptions(t *testing.T) {
	res := func(soc, model string) *sim.Result {
		return &sim.Result{SoC: soc, Model: model, Provenance: []spec.Entry{
			{Path: "memory.dram.bandwidth", Value: "51 GB/s", Source: "datasheet"},
			{Path: "dma.setup", Value: "500 ns", Source: "assumed"},
			{Path: "model.layers", Value: "24", Source: "https://hf.co/config.json"},
		}}
	}
	all := Assumptions([]*sim.Result{res("seed-a", "m"), nil, res("seed-b", "m")})
	var got [][]string
	for _, r := range all.Rows {
		got = append(got, []string{r[0], r[1], r[3]})
	}
	want := [][]string{
		{"seed-a", "memory.dram.bandwidth", "cited"}, {"seed-a", "dma.setup", "assumed"}, {"m", "model.layers", "cited"},
		{"seed-b", "memory.dram.bandwidth", "cited"}, {"seed-b", "dma.setup", "assumed"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("rows %q, want %q", got, want)
	}
	counts := AssumptionCounts(all)
	if !slices.Equal(counts.Rows[0], []string{"seed-a", "1", "0", "0", "1", "0", "0"}) || !slices.Equal(counts.Rows[1], []string{"m", "1", "0", "0", "0", "0", "0"}) {
		t.Errorf("counts %q", counts.Rows)
	}
}

// TestRequirementsTable: the ranking with one column per clause and its
// margin, FAIL and the reason for chips that fail.
func TestRequirementsTable(t *testing.T) {
	var b bytes.Buffer
	if err := RequirementsTable(phoneAdvice()).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report-requirements.csv", b.Bytes())
}

// TestParametersThatMatter: the largest elasticity first, failed reruns
// left out, values in their units.
func TestParametersThatMatter(t *testing.T) {
	tab := ParametersThatMatter(phoneAdvice())
	if len(tab.Rows) == 0 {
		t.Fatal("no rows")
	}
	var b bytes.Buffer
	if err := tab.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report-parameters.csv", b.Bytes())
	for _, r := range tab.Rows {
		if r[1] == "dma.setup" {
			t.Errorf("a failed rerun is listed: %q", r)
		}
	}
}

func TestRoundTo(t *testing.T) {
	for _, tc := range []struct{ v, want float64 }{{0.126, 0.13}, {-0.004, 0}, {-0.127, -0.13}, {2, 2}} {
		got := roundTo(tc.v, 2)
		if got != tc.want || (got == 0 && numfmt.Value(got, 0) != "0") {
			t.Errorf("roundTo(%v) = %v (%s), want %v", tc.v, got, numfmt.Value(got, 0), tc.want)
		}
	}
}
