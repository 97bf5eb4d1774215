package calibrate

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edgetwin/edgetwin/sim"
)

// appleData is the shared public llama-bench table of the Apple M1 and M2
// families (copied from the project's shared/data; source: llama.cpp discussion 4167).
const appleData = "examples/calibration/llamacpp-apple-m1-m2.json"

var gpuInfo = regexp.MustCompile(`^Apple (M[12])( Pro| Max| Ultra)? \((\d+)-core GPU\)$`)

// appleRecords imports the shared table, each row on the datasheet chip
// file of its GPU variant under examples/calibration/apple/, and splits
// the records into the M1 and the M2 family. It moves the test to the
// repository's root, where the records' paths start.
func appleRecords(t *testing.T) (m1, m2 []Record) {
	t.Chdir("..")
	data, err := os.ReadFile(appleData)
	if err != nil {
		t.Skipf("no public data: %v", err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	// The table is printed one row a block, each opening with "{" alone on
	// its line: a record's source is that line.
	var rowLine []int
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "{" {
			rowLine = append(rowLine, i+1)
		}
	}
	if len(rowLine) != len(rows) {
		t.Fatalf("%d row openings for %d rows", len(rowLine), len(rows))
	}
	groups := map[string][]map[string]any{}
	lines := map[string][]int{}
	var order []string
	for k, r := range rows {
		g, _ := r["gpu_info"].(string)
		m := gpuInfo.FindStringSubmatch(g)
		if m == nil {
			t.Fatalf("unknown gpu_info %q", g)
		}
		file := filepath.Join("examples", "calibration", "apple", fmt.Sprintf("apple-%s%s-%sc.yaml", strings.ToLower(m[1]), strings.ToLower(strings.ReplaceAll(m[2], " ", "-")), m[3]))
		if _, ok := groups[file]; !ok {
			order = append(order, file)
		}
		groups[file] = append(groups[file], r)
		lines[file] = append(lines[file], rowLine[k])
	}
	for _, file := range order {
		part, _ := json.Marshal(groups[file])
		digest, err := DigestFile(file)
		if err != nil {
			t.Fatal(err)
		}
		recs, skips, err := Import(appleData, part, ImportOptions{SoC: file, SoCDigest: digest})
		if err != nil || len(skips) > 0 || len(recs) != len(lines[file]) {
			t.Fatalf("%s: %v %v", file, err, skips)
		}
		for i := range recs {
			recs[i].Source = fmt.Sprintf("%s:%d", appleData, lines[file][i])
		}
		if strings.Contains(file, "apple-m1") {
			m1 = append(m1, recs...)
		} else {
			m2 = append(m2, recs...)
		}
	}
	return m1, m2
}

var regen = flag.Bool("regen", false, "rewrite golden files and the example record files")

// TestAppleRecordFiles keeps examples/calibration/m1.jsonl and m2.jsonl,
// the records the README's commands fit and validate, equal to what the
// importer makes of the public table (go test ./calibrate -run
// TestAppleRecordFiles -regen rewrites them).
func TestAppleRecordFiles(t *testing.T) {
	m1, m2 := appleRecords(t)
	for name, recs := range map[string][]Record{"m1.jsonl": m1, "m2.jsonl": m2} {
		path := filepath.Join("examples", "calibration", name)
		if *regen {
			w, err := Create(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		got, warns, err := ReadFile(path)
		if err != nil || len(warns) > 0 {
			t.Fatalf("%s: %v %v (run with -regen to create it)", path, err, warns)
		}
		if !reflect.DeepEqual(unlocated(got), recs) {
			t.Errorf("%s differs from the import of the public table; run with -regen", path)
		}
	}
}

var m1m2Fidelity = flag.String("m1m2.fidelity", "analytic", "the fidelity TestM1PredictsM2 fits and predicts at (tile: the fit corrects the analytic model by tile runs; minutes)")

// TestM1PredictsM2 is the public-data acceptance of issue 5: fit an overlay
// on the M1 family's llama-bench records (datasheet-level chip files),
// predict the M2 family from its own datasheet-level files plus that
// overlay, and print the table and the MAPE by phase. It holds the issue's
// targets, decode MAPE ≤ 10% and prefill ≤ 15%; at the analytic fidelity
// the twin reaches 6.3% and 3.1% (examples/calibration/README.md).
func TestM1PredictsM2(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 44 records and predicts 46: minutes")
	}
	m1, m2 := appleRecords(t)
	fid := sim.Fidelity(*m1m2Fidelity)
	start := time.Now()
	fit, err := FitRecords(context.Background(), m1, FitOptions{Fidelity: fid, Source: "M1 family, llama.cpp discussion 4167"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fit of %d M1 records at %s fidelity: %s, %d record predictions", len(m1), fid, time.Since(start).Round(time.Second), fit.Runs)
	for _, p := range fit.Params {
		t.Logf("  %-28s %-10s ± %-10s (before %.4g)%s", p.Key(), p.Value, p.Stderr, p.Before, map[bool]string{false: "  not determined", true: ""}[p.Identified || p.Limit])
	}
	v, err := Validate(context.Background(), m2, ValidateOptions{Overlay: fit.Overlay, Fidelity: fid})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| chip | quant | phase | measured t/s | predicted t/s | error |\n| --- | --- | --- | ---: | ---: | ---: |\n")
	for _, p := range v.Points {
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f | %.2f | %+.1f%% |\n", chipLabel(p.SoC), p.Quant, p.Phase, p.Measured, p.Predicted, 100*p.Error)
	}
	for _, ph := range []string{PhasePrefill, PhaseDecode} {
		st := v.Phases[ph]
		fmt.Fprintf(&b, "\n%s MAPE %.1f%% over %d points, worst %+.1f%% (%s %s)", ph, 100*st.MAPE, st.Points, 100*st.Worst.Error, chipLabel(st.Worst.SoC), st.Worst.Quant)
	}
	t.Log("M2 family predicted from the M1 fit:\n" + b.String())
	for _, c := range []struct {
		phase  string
		target float64
	}{{PhaseDecode, 0.10}, {PhasePrefill, 0.15}} {
		if mape := v.MAPE[c.phase]; mape > c.target {
			t.Errorf("%s MAPE %.1f%% misses the issue's target of %.0f%%", c.phase, 100*mape, 100*c.target)
		}
	}
	// What the workflow reaches (session 6: decode 4.1% at analytic, 4.0%
	// at tile, the two fidelities now agreeing), with room: a fit that
	// stays in the basin its defaults start in (GEMV efficiencies unseen)
	// predicted decode at 6.3% (analytic), one that drops a limit from its
	// overlay at 21.4% (tile), and fair-shared DMA transfers at 5.9% (tile).
	guard := map[sim.Fidelity]float64{sim.Analytic: 0.05, sim.Tile: 0.05}
	if g, ok := guard[fid]; ok {
		if mape := v.MAPE[PhaseDecode]; mape > g {
			t.Errorf("decode MAPE %.1f%% at %s: the fit has lost the minimum it found (session 6: analytic 4.1%%, tile 4.0%%)", 100*mape, fid)
		}
	}
}

// TestHoldoutByChipOnAppleData runs validate's leave-one-chip-out on
// real records: three M2-family chips' Q4_0 and Q8_0 results, each chip
// predicted from a fit on the other two. Every point is predicted from
// an overlay that never saw its chip, and the errors stay in the range
// the M1 → M2 table shows.
func TestHoldoutByChipOnAppleData(t *testing.T) {
	if testing.Short() {
		t.Skip("three fits")
	}
	_, m2 := appleRecords(t)
	var recs []Record
	var chips []string
	for _, r := range m2 {
		if r.Quant == "F16" {
			continue
		}
		if !slices.Contains(chips, r.SoC) {
			if len(chips) == 3 {
				continue
			}
			chips = append(chips, r.SoC)
		}
		recs = append(recs, r)
	}
	v, err := Validate(context.Background(), recs, ValidateOptions{Fidelity: sim.Analytic, Holdout: "chip",
		Fit: FitOptions{Params: []string{"gemm_efficiency", "gemv_efficiency", "seq_efficiency"}, Starts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Points) != len(recs) {
		t.Fatalf("%d points for %d records", len(v.Points), len(recs))
	}
	for _, p := range v.Points {
		t.Logf("%s %s %s: measured %.2f, predicted %.2f (%+.1f%%) from the others", chipLabel(p.SoC), p.Quant, p.Phase, p.Measured, p.Predicted, 100*p.Error)
		if p.Group != p.SoC {
			t.Errorf("%s predicted in group %q: want its own chip held out", p.SoC, p.Group)
		}
	}
	for ph, mape := range v.MAPE {
		t.Logf("%s MAPE %.1f%%", ph, 100*mape)
		// The M1 → M2 table's worst point is −16%; a phase's mean over
		// three chips beyond 20% would mean the hold-out fit went wrong.
		if ph != "all" && mape > 0.2 {
			t.Errorf("%s MAPE %.1f%% with each chip held out: want under 20%%", ph, 100*mape)
		}
	}
}
