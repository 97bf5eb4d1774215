package reports

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// CheckBundleDir says whether dir may receive a report: it does not
// exist, is empty, or holds an earlier report (index.html and
// report.md), which the new one replaces.
func CheckBundleDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		parent := filepath.Dir(dir)
		if pst, err := os.Stat(parent); err != nil || !pst.IsDir() {
			return fmt.Errorf("-o %s: no directory %s to create it in", dir, parent)
		}
		return nil
	case err != nil:
		return fmt.Errorf("-o %s: %v", dir, err)
	case !st.IsDir():
		return fmt.Errorf("-o %s is a file; give a directory for the report", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("-o %s: %v", dir, err)
	}
	if len(entries) == 0 {
		return nil
	}
	for _, f := range []string{"index.html", "report.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return fmt.Errorf("-o %s holds files but no earlier report (index.html and report.md); give a new or empty directory", dir)
		}
	}
	return nil
}

// WriteBundle writes the report into dir, all or nothing: it builds the
// folder beside dir under a temporary name, then renames it into place
// (an earlier report in dir is replaced; see CheckBundleDir).
func WriteBundle(dir string, b *Bundle) (err error) {
	if err := CheckBundleDir(dir); err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := b.writeFiles(tmp); err != nil {
		return err
	}
	return replaceDir(tmp, dir)
}

// replaceDir moves the finished folder tmp to dir, setting an earlier dir
// aside first and removing it only once tmp is in place.
func replaceDir(tmp, dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return os.Rename(tmp, dir)
	}
	old, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".old-*")
	if err != nil {
		return err
	}
	os.Remove(old) // only its unique name is wanted
	if err := os.Rename(dir, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if rerr := os.Rename(old, dir); rerr != nil {
			return fmt.Errorf("%v; the earlier report is kept in %s", err, old)
		}
		return err
	}
	return os.RemoveAll(old)
}

// rendered is a section's figure drawn in every format.
type rendered struct{ svg, png, csv []byte }

func (b *Bundle) writeFiles(dir string) error {
	figs := make(map[string]rendered)
	write := func(name string, data []byte) error {
		return os.WriteFile(filepath.Join(dir, name), data, 0o644)
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
	return write("report.md", md.Bytes())
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
main { max-width: 1100px; margin: 0 auto; padding: 2rem 1.5rem 4rem; }
h1 { font-size: 1.9rem; margin: 0 0 .5rem; }
h2 { font-size: 1.35rem; margin: 2.5rem 0 .6rem; padding-top: .6rem; border-top: 1px solid #d8dee4; }
nav { background: #f6f8fa; border: 1px solid #d8dee4; border-radius: 6px; padding: .6rem 1.2rem; margin: 1.2rem 0; }
nav ol { margin: .3rem 0; padding-left: 1.4rem; }
figure { margin: 1rem 0; }
figure img { width: 100%; height: auto; border: 1px solid #eaeef2; }
figcaption { font-size: .92rem; color: #454c54; margin-top: .4rem; }
table { border-collapse: collapse; margin: .8rem 0; font-size: .9rem; }
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
{{end}}{{with .Table}}<table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td{{if eq . "pass"}} class="pass"{{else if eq . "FAIL"}} class="fail"{{end}}>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}{{if .Details}}<details><summary>Every value ({{len .Details.Rows}} rows; also in <a href="{{.DetailsFile}}">{{.DetailsFile}}</a>)</summary>
{{with .Details}}
<table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
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
