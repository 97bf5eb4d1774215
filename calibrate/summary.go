package calibrate

import (
	"fmt"
	"strings"
)

// summaryMaxSkips is how many skips ImportCommandSummary lists one by one.
const summaryMaxSkips = 20

// ImportCommandSummary is what `edgetwin calibrate import` prints after
// importing: one line counting rows and records by kind, then one indented
// line per skipped row (at most 20, then how many more) with its reason:
//
//	12 rows → 6 prefill, 4 decode records; 2 rows skipped:
//	  row 7 (bench.json:130): mixed pp+tg test: edgetwin needs them separate …
//	  row 9 (bench.json:170): no catalog model with 13015864320 parameters (within 1%); give --model
//
// Skips that are not rows (a JSON array not closed) are listed but not
// counted as rows. The text depends only on its arguments.
func ImportCommandSummary(records []Record, skipped []Skip) string {
	skippedRows := 0
	for _, s := range skipped {
		if s.Row > 0 {
			skippedRows++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s → ", plural(len(records)+skippedRows, "row", "rows"))

	counts := map[Kind]int{}
	var other []string
	for _, r := range records {
		counts[r.Kind]++
	}
	var parts []string
	for _, k := range Kinds() {
		if n := counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
			delete(counts, k)
		}
	}
	for _, k := range sortedKeys(counts) {
		other = append(other, fmt.Sprintf("%d %s", counts[k], k))
	}
	parts = append(parts, other...)
	switch {
	case len(records) == 0:
		b.WriteString("no records")
	case len(records) == 1:
		b.WriteString(strings.Join(parts, ", ") + " record")
	default:
		b.WriteString(strings.Join(parts, ", ") + " records")
	}

	switch {
	case len(skipped) == 0:
		b.WriteString("; none skipped")
		return b.String()
	case skippedRows == len(skipped):
		fmt.Fprintf(&b, "; %s skipped:", plural(skippedRows, "row", "rows"))
	case skippedRows == 0:
		fmt.Fprintf(&b, "; %s:", plural(len(skipped), "problem", "problems"))
	default:
		fmt.Fprintf(&b, "; %s skipped, %s:", plural(skippedRows, "row", "rows"), plural(len(skipped)-skippedRows, "other problem", "other problems"))
	}
	for i, s := range skipped {
		if i == summaryMaxSkips {
			fmt.Fprintf(&b, "\n  … and %d more", len(skipped)-summaryMaxSkips)
			break
		}
		b.WriteString("\n  " + s.String())
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
