package calibrate

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/workloads"
)

// The public speed measurements (a copy of shared/data/edge_llm_measurements.csv),
// their records and the README that lists the lines not converted; paths
// from the repository root.
const (
	publicCSV     = "examples/public/edge_llm_measurements.csv"
	publicRecords = "examples/public/records.jsonl"
	publicREADME  = "examples/public/README.md"
)

// TestPublicRecords holds examples/public together: its records read
// cleanly, every data line of the CSV is the source of a record or is named
// in the README's "Rows not converted" table (so a new row cannot be
// dropped without a reason), and every record's chip and model load.
func TestPublicRecords(t *testing.T) {
	t.Chdir("..")
	recs, warns, err := ReadFile(publicRecords)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}

	converted := map[int]bool{}
	for _, r := range recs {
		file, line, ok := strings.Cut(r.Source, ":")
		n, err := strconv.Atoi(line)
		if !ok || file != publicCSV || err != nil {
			t.Errorf("%s %s %s: source %q is not %s:LINE", r.SoC, r.Model, r.Kind, r.Source, publicCSV)
			continue
		}
		converted[n] = true
	}
	left := notConverted(t)
	lines := csvLines(t)
	for n := 2; n <= lines; n++ {
		switch {
		case converted[n] && left[n]:
			t.Errorf("%s:%d is converted and also named in %s's Rows not converted", publicCSV, n, publicREADME)
		case !converted[n] && !left[n]:
			t.Errorf("%s:%d is neither the source of a record nor named in %s's Rows not converted", publicCSV, n, publicREADME)
		}
	}
	for n := range left {
		if n < 2 || n > lines {
			t.Errorf("%s names line %d, not a data line of %s (2..%d)", publicREADME, n, publicCSV, lines)
		}
	}

	chips, models := map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		if r.Runtime == "" {
			t.Errorf("%s: no runtime", r.Source)
		}
		if !chips[r.SoC] {
			chips[r.SoC] = true
			if _, err := hw.LoadChip(r.SoC, nil); err != nil {
				t.Errorf("%s: chip: %v", r.Source, err)
			}
		}
		if !models[r.Model] {
			models[r.Model] = true
			if _, err := workloads.LoadModel(r.Model, nil); err != nil {
				t.Errorf("%s: model: %v", r.Source, err)
			}
		}
	}
	t.Logf("%d records from %d of %d data lines; %d lines not converted; %d chips, %d models",
		len(recs), len(converted), lines-1, len(left), len(chips), len(models))
}

// csvLines is the number of lines of the CSV, its header included. No
// field of it spans lines, so a line is a row.
func csvLines(t *testing.T) int {
	data, err := os.ReadFile(publicCSV)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(strings.TrimRight(string(data), "\n"), "\n") + 1
}

// notConverted reads the line numbers in the first column of the table
// under the README's "## Rows not converted" heading.
func notConverted(t *testing.T) map[int]bool {
	f, err := os.Open(publicREADME)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	left := map[int]bool{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			in = line == "## Rows not converted"
			continue
		}
		if !in || !strings.HasPrefix(line, "|") {
			continue
		}
		cell := strings.TrimSpace(strings.Split(line, "|")[1])
		if n, err := strconv.Atoi(cell); err == nil {
			if left[n] {
				t.Errorf("%s names line %d twice", publicREADME, n)
			}
			left[n] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(left) == 0 {
		t.Fatalf("%s: no line numbers under ## Rows not converted", publicREADME)
	}
	return left
}
