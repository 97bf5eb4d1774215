package reports

import (
	"strings"
	"testing"
)

// TestWriteSkipped: skips sharing a reason print on one line with their
// count and distinct sources (three, then how many more); a lone skip
// keeps its own line; reasons keep their first-seen order.
func TestWriteSkipped(t *testing.T) {
	var b strings.Builder
	writeSkipped(&b, [][2]string{
		{"p:bw", "memory"}, {"x.json:3", "no model"}, {"p:bw", "memory"}, {"p:lat", "memory"},
		{"p:rr", "memory"}, {"p:mc", "memory"},
	})
	want := "skipped 5 records (p:bw, p:lat, p:rr, … 1 more): memory\nskipped x.json:3: no model\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
