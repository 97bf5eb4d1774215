package reports

import (
	"context"
	"encoding/base64"
	"errors"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func testBundle() *Bundle {
	return &Bundle{
		Title: "A <review>",
		Intro: []string{"Chips: seed-a, seed-b."},
		Sections: []Section{
			{ID: "answers", Title: "Answers", Table: &ReportTable{Header: []string{"question", "answer"}, Rows: [][]string{{"Which | chip?", "seed-a"}}}},
			{ID: "stack", Title: "Where time goes", Figure: stackFixture(), Caption: "Stacked by part.", Text: []string{"Read left to right."}},
			{ID: "assumptions", Title: "Assumptions", Table: &ReportTable{Header: []string{"of", "n"}, Rows: [][]string{{"seed-a", "3"}}},
				Details: &ReportTable{Header: []string{"of", "parameter"}, Rows: [][]string{{"seed-a", "memory.dram.bandwidth"}}}},
		},
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestWriteBundle: the folder holds the page, the Markdown, each figure as
// SVG, PNG and CSV, a CSV per table; the page embeds the SVG as a data:
// URI that decodes to the file beside it, escapes text, and lists every
// section; the Markdown points at the files.
func TestWriteBundle(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "report")
	if err := WriteBundle(context.Background(), dir, testBundle()); err != nil {
		t.Fatal(err)
	}
	want := []string{BundleMarker, "answers.csv", "assumptions-details.csv", "assumptions.csv", "index.html", "report.md", "stack.csv", "stack.png", "stack.svg"}
	if got := dirNames(t, dir); !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	if got := dirNames(t, parent); !slices.Equal(got, []string{"report"}) {
		t.Errorf("beside the report: %q; no temporary folder may stay", got)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	page := string(raw)
	for _, want := range []string{"<title>A &lt;review&gt;</title>", `<a href="#stack">Where time goes</a>`, `<section id="assumptions">`, "<figcaption>Stacked by part.</figcaption>", "Which | chip?", "<details>"} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	m := regexp.MustCompile(`src="data:image/svg&#43;xml;base64,([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("index.html embeds no SVG")
	}
	svg, err := base64.StdEncoding.DecodeString(html.UnescapeString(m[1]))
	file, _ := os.ReadFile(filepath.Join(dir, "stack.svg"))
	if err != nil || string(svg) != string(file) {
		t.Errorf("the embedded SVG is not stack.svg (%v)", err)
	}
	if strings.Contains(page, "http://") && !strings.Contains(page, "http://www.w3.org") || strings.Contains(page, "https://") {
		t.Error("index.html refers to the network")
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"# A <review>", "1. [Answers](#answers)", "![Where time goes](stack.svg)", "*Stacked by part.*", `| Which \| chip? | seed-a |`, "[assumptions-details.csv](assumptions-details.csv)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// TestWriteBundleReplaces: an earlier report is replaced whole (its
// files the new one does not write go too); a folder holding anything it
// did not write is refused, untouched.
func TestWriteBundleReplaces(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "report")
	if err := WriteBundle(context.Background(), dir, testBundle()); err != nil {
		t.Fatal(err)
	}
	b := testBundle()
	b.Sections = b.Sections[:1]
	if err := WriteBundle(context.Background(), dir, b); err != nil {
		t.Fatal(err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{BundleMarker, "answers.csv", "index.html", "report.md"}) {
		t.Errorf("after replacing: %q", got)
	}
	notes := filepath.Join(dir, "my-notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	err := WriteBundle(context.Background(), dir, testBundle())
	if err == nil || !strings.Contains(err.Error(), "holds files the earlier report did not write (my-notes.txt)") {
		t.Errorf("replacing a report beside the user's notes: %v", err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{BundleMarker, "answers.csv", "index.html", "my-notes.txt", "report.md"}) {
		t.Errorf("the refused folder now holds %q", got)
	}
	os.Remove(notes)

	// Interrupted before the swap: the earlier report stays, nothing beside.
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupt received"))
	if err := WriteBundle(ctx, dir, testBundle()); err == nil || err.Error() != "interrupt received" {
		t.Errorf("interrupted: %v", err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{BundleMarker, "answers.csv", "index.html", "report.md"}) {
		t.Errorf("after an interrupt: %q", got)
	}
	if got := dirNames(t, parent); !slices.Equal(got, []string{"report"}) {
		t.Errorf("beside the report: %q", got)
	}

	other := filepath.Join(parent, "photos")
	os.Mkdir(other, 0o755)
	os.WriteFile(filepath.Join(other, "cat.jpg"), []byte("meow"), 0o644)
	err = WriteBundle(context.Background(), other, testBundle())
	if err == nil || !strings.Contains(err.Error(), "holds files but no earlier report") {
		t.Errorf("writing over a folder of photos: %v", err)
	}
	if got := dirNames(t, other); !slices.Equal(got, []string{"cat.jpg"}) {
		t.Errorf("the photos folder now holds %q", got)
	}
	for _, bad := range []string{filepath.Join(other, "cat.jpg"), filepath.Join(parent, "missing", "report"), ".", ".."} {
		if err := CheckBundleDir(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if err := CheckBundleDir("."); err == nil || !strings.Contains(err.Error(), "is the working directory") {
		t.Errorf("-o .: %v", err)
	}
}

// TestWriteBundleFailureLeavesNothing: a figure that cannot be drawn
// fails the write and leaves neither a report nor a temporary folder.
func TestWriteBundleFailureLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	b := testBundle()
	b.Sections = append(b.Sections, Section{ID: "bad", Title: "Bad", Figure: badChart{}})
	if err := WriteBundle(context.Background(), filepath.Join(parent, "report"), b); err == nil || !strings.Contains(err.Error(), "figure bad") {
		t.Errorf("error %v", err)
	}
	if got := dirNames(t, parent); len(got) != 0 {
		t.Errorf("left behind: %q", got)
	}
}

type badChart struct{ PlotData }

func (badChart) WriteCSV(w io.Writer) error { return errors.New("no data") }
