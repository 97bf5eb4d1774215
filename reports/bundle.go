package reports

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"github.com/edgetwin/edgetwin/internal/inputfile"
)

// Bundle is a review report: sections in reading order, each with text
// and a figure or a table. WriteBundle writes it as one folder: index.html
// (self-contained: figures embedded as data: URIs, no network), report.md
// (the same content, the figures beside it as files), every figure as
// SVG and PNG, and a CSV of the data behind every figure and table.
type Bundle struct {
	Title string
	Intro []string // paragraphs under the title
	// Sections become the table of contents, in order.
	Sections []Section
}

// Section is one part of a report.
type Section struct {
	ID    string // the anchor, and the stem of its files: roofline → roofline.svg
	Title string
	Text  []string // paragraphs before the figure or table
	// Figure, when set, is drawn under the text; Caption says what it
	// shows and how it was made.
	Figure  Chart
	Caption string
	// Table, when set, is printed under the text (and the figure).
	Table *ReportTable
	// Details is a long table kept folded in HTML; report.md points to
	// its CSV.
	Details *ReportTable
}

// ReportTable is a table of text cells in a report.
type ReportTable struct {
	Header []string
	Rows   [][]string
}

// WriteCSV prints the table as CSV.
func (t *ReportTable) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	return cw.Error()
}

// BundleMarker is the file a report writes last into its folder: the
// list of the files it wrote. A folder holding it and nothing else is an
// earlier report, which a new one may replace; a folder holding anything
// else is the user's, and is never replaced.
const BundleMarker = ".edgetwin-report"

// markerHead is the marker's first line.
const markerHead = "edgetwin report: the files below were written by edgetwin report and are replaced by the next report into this folder"

// CheckBundleDir says whether dir may receive a report, before any work:
// it is new (in a folder that takes it), empty, or an earlier report —
// holding only the files its marker lists. A folder with other files, or
// the working directory (which a report cannot replace under the shell
// that runs it), is refused with the reason. Leftovers of a killed report
// into dir are tidied first (atomicfile.Recover).
func CheckBundleDir(dir string) error {
	if err := atomicfile.Recover(dir); err != nil {
		return fmt.Errorf("%s: %v", dir, err)
	}
	if err := atomicfile.CheckDir(dir); err != nil {
		return fmt.Errorf("%s: %v", dir, err)
	}
	if holdsWorkingDir(dir) {
		return fmt.Errorf("%s is the working directory (or holds it); a report replaces its folder whole, so give a folder inside it, e.g. %s", dir, filepath.Join(dir, "report"))
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s: %v", dir, err)
	case len(entries) == 0:
		return nil
	}
	own, err := markerFiles(dir)
	if err != nil {
		return fmt.Errorf("%s holds files but no earlier report (no %s marker; reports of edgetwin before it had none); give a new or empty folder", dir, BundleMarker)
	}
	var others []string
	for _, e := range entries {
		if name := e.Name(); name != BundleMarker && (!own[name] || !e.Type().IsRegular()) {
			others = append(others, name)
		}
	}
	if len(others) > 0 {
		shown := others
		if len(shown) > 3 {
			shown = append(shown[:3:3], fmt.Sprintf("and %d more", len(others)-3))
		}
		return fmt.Errorf("%s holds files the earlier report did not write (%s), which replacing it would delete; move them, or give a new or empty folder", dir, strings.Join(shown, ", "))
	}
	return nil
}

// holdsWorkingDir reports whether dir is the working directory or one of
// its parents.
func holdsWorkingDir(dir string) bool {
	abs, err1 := filepath.Abs(dir)
	wd, err2 := os.Getwd()
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(abs, wd)
	return err == nil && (rel == "." || !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != "..")
}

// markerFiles reads an earlier report's marker: the files it wrote.
func markerFiles(dir string) (map[string]bool, error) {
	data, err := inputfile.Read(filepath.Join(dir, BundleMarker), inputfile.SpecCap)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if lines[0] != markerHead {
		return nil, fmt.Errorf("%s: not an edgetwin report marker", BundleMarker)
	}
	own := make(map[string]bool)
	for _, l := range lines[1:] {
		own[l] = true
	}
	return own, nil
}

// WriteBundle writes the report into dir, all or nothing: the folder is
// built beside dir under a hidden name, then takes dir's place
// (atomicfile.ReplaceDir; an earlier report in dir is replaced, see
// CheckBundleDir). When ctx is done before the folder is in place, it is
// removed and dir is left as it was.
func WriteBundle(ctx context.Context, dir string, b *Bundle) error {
	if err := CheckBundleDir(dir); err != nil {
		return err
	}
	return atomicfile.ReplaceDir(ctx, dir, func(tmp string) error { return b.writeFiles(ctx, tmp) })
}

// rendered is a section's figure drawn in every format.
type rendered struct{ svg, png, csv []byte }

// writeFiles writes the report's files into the empty folder dir, the
// marker listing them last; it stops when ctx is done.
func (b *Bundle) writeFiles(ctx context.Context, dir string) error {
	figs := make(map[string]rendered)
	var written []string
	write := func(name string, data []byte) error {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		written = append(written, name)
		return atomicfile.WriteIn(dir, name, data)
	}
	for _, s := range b.Sections {
		if s.Figure != nil {
			var r rendered
			var err error
			if r.svg, err = renderBytes(s.Figure, "svg"); err != nil {
				return fmt.Errorf("figure %s: %w", s.ID, err)
			}
			if r.png, err = renderBytes(s.Figure, "png"); err != nil {
				return fmt.Errorf("figure %s: %w", s.ID, err)
			}
			var c bytes.Buffer
			if err := s.Figure.WriteCSV(&c); err != nil {
				return fmt.Errorf("figure %s: %w", s.ID, err)
			}
			r.csv = c.Bytes()
			figs[s.ID] = r
			for ext, data := range map[string][]byte{".svg": r.svg, ".png": r.png, ".csv": r.csv} {
				if err := write(s.ID+ext, data); err != nil {
					return err
				}
			}
		}
		for suffix, t := range map[string]*ReportTable{"": s.Table, "-details": s.Details} {
			if t == nil {
				continue
			}
			name := s.ID + "-details.csv"
			if suffix == "" {
				name = s.tableFile()
			}
			var c bytes.Buffer
			if err := t.WriteCSV(&c); err != nil {
				return err
			}
			if err := write(name, c.Bytes()); err != nil {
				return err
			}
		}
	}
	var html, md bytes.Buffer
	if err := b.writeHTML(&html, figs); err != nil {
		return err
	}
	b.writeMarkdown(&md)
	if err := write("index.html", html.Bytes()); err != nil {
		return err
	}
	if err := write("report.md", md.Bytes()); err != nil {
		return err
	}
	slices.Sort(written)
	return atomicfile.WriteIn(dir, BundleMarker, []byte(markerHead+"\n"+strings.Join(written, "\n")+"\n"))
}

func renderBytes(c Chart, format string) ([]byte, error) {
	wt, err := c.Render(format)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// tableFile is the CSV a section's table is written to.
func (s Section) tableFile() string {
	if s.Figure != nil {
		return s.ID + "-table.csv"
	}
	return s.ID + ".csv"
}

// --- HTML -------------------------------------------------------------------

var htmlPage = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif; color: #1b1f24; background: #fff; margin: 0; line-height: 1.5; }
main { max-width: 1180px; margin: 0 auto; padding: 2rem 1.5rem 4rem; }
h1 { font-size: 1.9rem; margin: 0 0 .5rem; }
h2 { font-size: 1.35rem; margin: 2.5rem 0 .6rem; padding-top: .6rem; border-top: 1px solid #d8dee4; }
nav { background: #f6f8fa; border: 1px solid #d8dee4; border-radius: 6px; padding: .6rem 1.2rem; margin: 1.2rem 0; }
nav ol { margin: .3rem 0; padding-left: 1.4rem; }
figure { margin: 1rem 0; }
figure img { width: 100%; height: auto; border: 1px solid #eaeef2; }
figcaption { font-size: .92rem; color: #454c54; margin-top: .4rem; }
.scroll { overflow-x: auto; margin: .8rem 0; }
table { border-collapse: collapse; font-size: .88rem; }
th, td { border: 1px solid #d8dee4; padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.pass { color: #116329; } td.fail { color: #a40e26; font-weight: 600; }
.files { font-size: .85rem; color: #57606a; }
details { margin: .8rem 0; }
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
{{range .Intro}}<p>{{.}}</p>
{{end}}<nav><strong>Contents</strong>
<ol>
{{range .Sections}}<li><a href="#{{.ID}}">{{.Title}}</a></li>
{{end}}</ol>
</nav>
{{range .Sections}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{range .Text}}<p>{{.}}</p>
{{end}}{{if .Image}}<figure>
<img src="{{.Image}}" alt="{{.Title}}">
<figcaption>{{.Caption}}</figcaption>
</figure>
<p class="files">Files: <a href="{{.ID}}.svg">{{.ID}}.svg</a> · <a href="{{.ID}}.png">{{.ID}}.png</a> · data <a href="{{.ID}}.csv">{{.ID}}.csv</a></p>
{{end}}{{with .Table}}<div class="scroll"><table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td{{if eq . "pass"}} class="pass"{{else if eq . "FAIL"}} class="fail"{{end}}>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
{{end}}{{if .Details}}<details><summary>Every value ({{len .Details.Rows}} rows; also in <a href="{{.DetailsFile}}">{{.DetailsFile}}</a>)</summary>
{{with .Details}}
<div class="scroll"><table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
{{end}}</details>
{{end}}</section>
{{end}}</main>
</body>
</html>
`))

type htmlSection struct {
	ID, Title   string
	Text        []string
	Image       template.URL
	Caption     string
	Table       *ReportTable
	Details     *ReportTable
	DetailsFile string
}

func (b *Bundle) writeHTML(w io.Writer, figs map[string]rendered) error {
	page := struct {
		Title    string
		Intro    []string
		Sections []htmlSection
	}{Title: b.Title, Intro: b.Intro}
	for _, s := range b.Sections {
		h := htmlSection{ID: s.ID, Title: s.Title, Text: s.Text, Caption: s.Caption, Table: s.Table, Details: s.Details, DetailsFile: s.ID + "-details.csv"}
		if r, ok := figs[s.ID]; ok {
			// The SVG, base64 in a data: URI: the page needs no other file.
			h.Image = template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(r.svg))
		}
		page.Sections = append(page.Sections, h)
	}
	return htmlPage.Execute(w, page)
}

// --- Markdown -----------------------------------------------------------------

func (b *Bundle) writeMarkdown(w *bytes.Buffer) {
	fmt.Fprintf(w, "# %s\n\n", b.Title)
	for _, p := range b.Intro {
		fmt.Fprintf(w, "%s\n\n", p)
	}
	w.WriteString("## Contents\n\n")
	for i, s := range b.Sections {
		fmt.Fprintf(w, "%d. [%s](#%s)\n", i+1, s.Title, s.ID)
	}
	w.WriteString("\n")
	for _, s := range b.Sections {
		fmt.Fprintf(w, "<a id=\"%s\"></a>\n\n## %s\n\n", s.ID, s.Title)
		for _, p := range s.Text {
			fmt.Fprintf(w, "%s\n\n", p)
		}
		if s.Figure != nil {
			fmt.Fprintf(w, "![%s](%s.svg)\n\n", mdEscape(s.Title), s.ID)
			fmt.Fprintf(w, "*%s*\n\n", mdEscape(s.Caption))
			fmt.Fprintf(w, "Files: [%[1]s.svg](%[1]s.svg) · [%[1]s.png](%[1]s.png) · data [%[1]s.csv](%[1]s.csv)\n\n", s.ID)
		}
		if s.Table != nil {
			writeMarkdownTable(w, s.Table)
		}
		if s.Details != nil {
			fmt.Fprintf(w, "Every value (%d rows): [%s-details.csv](%s-details.csv)\n\n", len(s.Details.Rows), s.ID, s.ID)
		}
	}
}

func writeMarkdownTable(w *bytes.Buffer, t *ReportTable) {
	row := func(cells []string) {
		w.WriteString("|")
		for _, c := range cells {
			fmt.Fprintf(w, " %s |", mdEscape(c))
		}
		w.WriteString("\n")
	}
	row(t.Header)
	w.WriteString("|" + strings.Repeat(" --- |", len(t.Header)) + "\n")
	for _, r := range t.Rows {
		row(r)
	}
	w.WriteString("\n")
}

// mdEscape keeps a cell on one line and its pipes out of the table's.
func mdEscape(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
