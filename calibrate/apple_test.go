package calibrate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// appleData is the shared public llama-bench table of the Apple M1 and M2
// families (copied from the project's shared/data; source: llama.cpp discussion 4167).
const appleData = "../examples/calibration/llamacpp-apple-m1-m2.json"

var gpuInfo = regexp.MustCompile(`^Apple (M[12])( Pro| Max| Ultra)? \((\d+)-core GPU\)$`)

// appleRecords imports the shared table, each row on the datasheet chip
// file of its GPU variant under examples/calibration/apple/, and splits
// the records into the M1 and the M2 family.
func appleRecords(t testing.TB) (m1, m2 []Record) {
	data, err := os.ReadFile(appleData)
	if err != nil {
		t.Skipf("no public data: %v", err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	groups := map[string][]map[string]any{}
	var order []string
	for _, r := range rows {
		g, _ := r["gpu_info"].(string)
		m := gpuInfo.FindStringSubmatch(g)
		if m == nil {
			t.Fatalf("unknown gpu_info %q", g)
		}
		file := filepath.Join("..", "examples", "calibration", "apple", fmt.Sprintf("apple-%s%s-%sc.yaml", strings.ToLower(m[1]), strings.ToLower(strings.ReplaceAll(m[2], " ", "-")), m[3]))
		if _, ok := groups[file]; !ok {
			order = append(order, file)
		}
		groups[file] = append(groups[file], r)
	}
	for _, file := range order {
		part, _ := json.Marshal(groups[file])
		recs, skips, err := Import(appleData, part, ImportOptions{SoC: file})
		if err != nil || len(skips) > 0 {
			t.Fatalf("%s: %v %v", file, err, skips)
		}
		if strings.Contains(file, "apple-m1") {
			m1 = append(m1, recs...)
		} else {
			m2 = append(m2, recs...)
		}
	}
	return m1, m2
}
