package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/numfmt"
	"github.com/edgetwin/edgetwin/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Compare is what `edgetwin compare` found: one row per chip, in the order
// the chips were given, all on the same workload.
type Compare struct {
	// The workload every chip ran, for titles and for the rows of the
	// chips that did not run.
	Model, Quant, KVDtype, Fidelity string
	Prompt, Depth, Gen, Batch       int
	Rows                            []CompareRow
}

// CompareRow is one chip of a comparison.
type CompareRow struct {
	Chip     string      // the chip's id (a file's path for a chip file)
	PriceUSD float64     // the chip's price_usd; 0 when it has none
	Result   *sim.Result // nil when the chip did not run
	// Err says why the chip has no result ("... does not fit: needs ...").
	Err string
}

// Title names the workload: "llama-2-7b Q4_0 — prompt 512 · generate 128".
func (c *Compare) Title() string {
	t := fmt.Sprintf("%s %s — prompt %d%s · generate %d", c.Model, c.Quant, c.Prompt, afterDepth(c.Depth), c.Gen)
	if c.Batch > 1 {
		t += fmt.Sprintf(" · batch %d", c.Batch)
	}
	return t
}

// failed reports whether some chip has no result.
func (c *Compare) failed() bool {
	return slices.ContainsFunc(c.Rows, func(r CompareRow) bool { return r.Result == nil })
}

// WriteCompare prints a comparison in format f.
func WriteCompare(w io.Writer, c *Compare, f Format) error {
	switch f {
	case JSON:
		rows, err := c.jsonRows()
		if err != nil {
			return err
		}
		return WriteJSON(w, rows)
	case CSV:
		return CompareCSV(w, c)
	}
	return CompareTable(w, c)
}

// jsonRows is the JSON form of each row: the result exactly as simulate
// prints it, or, for a chip that did not run, the same keys with null
// figures and an "error" member at the end (see nullRow).
func (c *Compare) jsonRows() ([]json.RawMessage, error) {
	var template []byte
	for _, r := range c.Rows {
		if r.Result != nil {
			data, err := json.Marshal(r.Result)
			if err != nil {
				return nil, err
			}
			template = data
			break
		}
	}
	if template == nil && len(c.Rows) > 0 {
		// No chip ran (the CLI stops before printing then): the keys of
		// an empty result.
		data, err := json.Marshal(c.emptyResult())
		if err != nil {
			return nil, err
		}
		template = data
	}
	rows := make([]json.RawMessage, len(c.Rows))
	for i, r := range c.Rows {
		var err error
		if r.Result != nil {
			rows[i], err = json.Marshal(r.Result)
		} else {
			rows[i], err = nullRow(template, r.Chip, r.Err)
		}
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// emptyResult is a result with the workload's names and no figures.
func (c *Compare) emptyResult() *sim.Result {
	var r sim.Result
	emptyLists(reflect.ValueOf(&r).Elem(), false)
	r.Model, r.Quant, r.KVDtype, r.Fidelity = c.Model, c.Quant, c.KVDtype, c.Fidelity
	r.Prompt, r.Depth, r.Gen, r.Batch = c.Prompt, c.Depth, c.Gen, c.Batch
	return &r
}

// keptNumbers and keptNames are the top-level members of a result that
// describe the workload rather than measure the chip: a row without a
// result keeps them from the template.
var (
	keptNumbers = []string{"prompt", "gen", "batch"}
	keptNames   = []string{"model", "quant", "kv_dtype", "fidelity"}
)

// nullRow rewrites template, the JSON of another chip's result on the same
// workload, into the row of a chip that did not run: soc is the chip,
// every figure, flag and chip-specific name (unit, dtype, policy) null,
// every list empty, the workload's names and token counts kept, and
// "error" added last. The row has the keys of the others, so a script
// reads it the same way.
func nullRow(template []byte, chip, reason string) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(template))
	dec.UseNumber()
	var b bytes.Buffer
	var value func(key string, top bool) error
	value = func(key string, top bool) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '[' {
				b.WriteString("[]")
				return skip(dec)
			}
			b.WriteByte('{')
			for first := true; dec.More(); first = false {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				if !first {
					b.WriteByte(',')
				}
				name, _ := json.Marshal(k)
				b.Write(name)
				b.WriteByte(':')
				if err := value(k.(string), false); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil { // '}'
				return err
			}
			b.WriteByte('}')
			return nil
		case string:
			switch {
			case top && key == "soc":
				s, _ := json.Marshal(chip)
				b.Write(s)
			case top && slices.Contains(keptNames, key):
				s, _ := json.Marshal(t)
				b.Write(s)
			default:
				b.WriteString("null")
			}
		case json.Number:
			if top && slices.Contains(keptNumbers, key) {
				b.WriteString(t.String())
			} else {
				b.WriteString("null")
			}
		default: // bool, null
			b.WriteString("null")
		}
		return nil
	}
	// The outer object: its members are top-level; it stays open for
	// "error".
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("reports: a result's JSON is not an object")
	}
	b.WriteByte('{')
	for first := true; dec.More(); first = false {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if !first {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(k)
		b.Write(name)
		b.WriteByte(':')
		if err := value(k.(string), true); err != nil {
			return nil, err
		}
	}
	msg, _ := json.Marshal(reason)
	member(&b, b.Len() > 1, "error", string(msg))
	b.WriteByte('}')
	return b.Bytes(), nil
}

// CompareCSV prints one header row of flattened result keys and one row
// per chip, as simulate --format csv prints one result: a chip without a
// result has empty figures, and an error column says why when some chip
// did not run.
func CompareCSV(w io.Writer, c *Compare) error {
	rows, err := c.jsonRows()
	if err != nil {
		return err
	}
	var header []string
	seen := map[string]bool{}
	flat := make([][]Field, len(rows))
	for i, r := range rows {
		if flat[i], err = Flatten(r); err != nil {
			return err
		}
	}
	// Columns in the order of the results, the rows without one last, so
	// that a key only they have cannot come first.
	order := make([]int, 0, len(rows))
	for i, r := range c.Rows {
		if r.Result != nil {
			order = append(order, i)
		}
	}
	for i, r := range c.Rows {
		if r.Result == nil {
			order = append(order, i)
		}
	}
	for _, i := range order {
		for _, f := range flat[i] {
			if f.Key != "error" && !seen[f.Key] {
				seen[f.Key] = true
				header = append(header, f.Key)
			}
		}
	}
	failed := c.failed()
	if failed {
		header = append(header, "error")
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, fields := range flat {
		rec := make([]string, len(header))
		for j, key := range header {
			if v, ok := Lookup(fields, key); ok {
				rec[j] = csvValue(v)
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// compareColumns are the table's columns after the chip and its unit.
var compareColumns = []string{"TTFT", "prefill tok/s", "decode tok/s", "p99 ms/token", "TOPS eff / peak", "DRAM BW used", "L3 miss (decode)"}

// CompareTable prints what an architect compares, one row per chip: time
// to first token, prefill and decode rates, the per-token tail, how much
// of the unit's peak and of the DRAM bandwidth the run used, the decode's
// L3 miss rate, and the chip's price when some chip has one. A chip that
// did not run shows "—" and why.
func CompareTable(w io.Writer, c *Compare) error {
	fmt.Fprintf(w, "%s %s — prompt %d%s · generate %d · batch %d · KV cache %s · %s fidelity — %d chips\n\n",
		c.Model, c.Quant, c.Prompt, afterDepth(c.Depth), c.Gen, c.Batch, c.KVDtype, c.Fidelity, len(c.Rows))
	priced := slices.ContainsFunc(c.Rows, func(r CompareRow) bool { return r.PriceUSD > 0 })
	header := append([]string{"chip", "unit/dtype"}, compareColumns...)
	if priced {
		header = append(header, "price")
	}
	cells := [][]string{header}
	for _, r := range c.Rows {
		row := []string{r.Chip, "—"}
		if res := r.Result; res != nil {
			d := res.Decode
			p99 := "—"
			if d.MsPerToken.P99 != nil {
				p99 = fmt.Sprintf("%.1f", *d.MsPerToken.P99)
			}
			row = []string{
				r.Chip, res.Unit + "/" + res.Compute.Dtype,
				seconds(res.TTFT), tokensPerS(res.Prefill.TokensPerS), tokensPerS(d.TokensPerS), p99,
				fmt.Sprintf("%.2f / %s", res.Compute.TOPSEff, numfmt.Value(res.Compute.PeakTOPS, 0)),
				pct(res.Memory.DRAMBWUtil), pct(res.Memory.Decode.L3MissRate),
			}
		} else {
			for range compareColumns {
				row = append(row, "—")
			}
		}
		if priced {
			price := "—"
			if r.PriceUSD > 0 {
				price = "$" + numfmt.Value(r.PriceUSD, 0)
			}
			row = append(row, price)
		}
		cells = append(cells, row)
	}
	// The chip and unit columns read left-aligned: pad them to one width,
	// and let the right alignment of the figures leave them so.
	for col := range 2 {
		width := 0
		for _, row := range cells {
			width = max(width, utf8.RuneCountInString(row[col]))
		}
		for _, row := range cells {
			row[col] += strings.Repeat(" ", width-utf8.RuneCountInString(row[col]))
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for i, row := range cells {
		for _, cell := range row {
			fmt.Fprintf(tw, "%s\t", cell)
		}
		switch {
		case i == 0 && c.failed():
			fmt.Fprint(tw, "  error")
		case i > 0 && c.Rows[i-1].Err != "":
			fmt.Fprint(tw, "  "+c.Rows[i-1].Err)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func tokensPerS(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f", *v)
}

// BarData is what a comparison figure shows: one panel per figure, one bar
// per chip in every panel, in the order of the chips. Kept apart from the
// drawing, as PlotData is, so tests and scripts can read it as CSV.
type BarData struct {
	Title  string
	Labels []string // the bars: chip ids
	Panels []BarPanel
}

// BarPanel is one figure of every chip.
type BarPanel struct {
	Label  string     // with its unit: "decode (tokens/s)"
	Values []*float64 // one per bar; nil where the chip has no figure
	// Missing is what a bar without a figure says instead.
	Missing []string
	// Max, when above 0, is where the value axis ends at the least (100
	// for a percentage of peak).
	Max float64
}

// ComparePlotData lays a comparison out for plotting: decode and prefill
// rates, time to first token in one readable unit (ms or s), and the DRAM
// bandwidth used in % of peak.
func ComparePlotData(c *Compare) BarData {
	d := BarData{Title: c.Title()}
	for _, r := range c.Rows {
		d.Labels = append(d.Labels, r.Chip)
	}
	figure := func(get func(*sim.Result) *float64) []*float64 {
		vals := make([]*float64, len(c.Rows))
		for i, r := range c.Rows {
			if r.Result != nil {
				vals[i] = get(r.Result)
			}
		}
		return vals
	}
	var ttfts []float64
	for _, r := range c.Rows {
		if r.Result != nil {
			ttfts = append(ttfts, r.Result.TTFT)
		}
	}
	ttftUnit, ttftDiv := axisUnit(ttfts, units.KindDuration)
	if ttftUnit == "" {
		ttftUnit = "s"
	}
	panels := []BarPanel{
		{Label: "decode (tokens/s)", Values: figure(func(r *sim.Result) *float64 { return r.Decode.TokensPerS })},
		{Label: "prefill (tokens/s)", Values: figure(func(r *sim.Result) *float64 { return r.Prefill.TokensPerS })},
		{Label: withUnit("time to first token", ttftUnit), Values: figure(func(r *sim.Result) *float64 { return ptrTo(r.TTFT / ttftDiv) })},
		{Label: "DRAM bandwidth used (% of peak)", Values: figure(func(r *sim.Result) *float64 { return ptrTo(100 * r.Memory.DRAMBWUtil) }), Max: 100},
	}
	for p := range panels {
		panels[p].Missing = make([]string, len(c.Rows))
		for i, r := range c.Rows {
			switch {
			case r.Result == nil && strings.Contains(r.Err, "does not fit"):
				panels[p].Missing[i] = "does not fit"
			case r.Result == nil:
				panels[p].Missing[i] = "did not run"
			case panels[p].Values[i] == nil:
				panels[p].Missing[i] = "no figure"
			}
		}
	}
	d.Panels = panels
	return d
}

func ptrTo(v float64) *float64 { return &v }

// WriteCSV prints the plotted data, one row a bar: panel, chip, value (empty
// where the bar has no figure).
func (d BarData) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"panel", "chip", "value"}); err != nil {
		return err
	}
	for _, p := range d.Panels {
		for i, v := range p.Values {
			cell := ""
			if v != nil {
				cell = jsonNumber(*v)
			}
			if err := cw.Write([]string{p.Label, d.Labels[i], cell}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Comparison figure layout: two panels a row, 10 in wide (as the sweep's
// figures), each panel tall enough for its bars.
const (
	barColumns    = 2
	barSlot       = 0.4 * vg.Inch // per chip, in a panel
	barPanelExtra = 1 * vg.Inch   // the x axis, its label and padding
	minBarPanel   = 2.6 * vg.Inch
)

// Plots draws one gonum/plot bar chart per panel: horizontal bars, so the
// chip names read on the y axis however long they are, the first chip on
// top; chip k has the same colour in every panel, and each bar ends with
// its value. A chip without a figure has no bar and says why instead.
func (d BarData) Plots() ([]*plot.Plot, error) {
	n := len(d.Labels)
	// Bar i of chip n-1-i: the first chip on top.
	names := make([]string, n)
	for i, l := range d.Labels {
		names[n-1-i] = l
	}
	var plots []*plot.Plot
	for _, p := range d.Panels {
		pl := newBarPlot(p.Label)
		var labels plotter.XYLabels
		for i, v := range p.Values {
			y := float64(n - 1 - i)
			label, x := p.Missing[i], 0.0
			if v != nil {
				label, x = barValue(*v), *v
				bar, err := plotter.NewBarChart(plotter.Values{*v}, barSlot*0.7)
				if err != nil {
					return nil, fmt.Errorf("panel %s: %w", p.Label, err)
				}
				bar.Horizontal = true
				bar.XMin = y
				bar.Color = plotutil.DarkColors[i%len(plotutil.DarkColors)]
				bar.LineStyle.Width = 0
				pl.Add(bar)
			}
			labels.XYs = append(labels.XYs, plotter.XY{X: x, Y: y})
			labels.Labels = append(labels.Labels, label)
		}
		if err := addLabels(pl, labels, vg.Points(4)); err != nil {
			return nil, err
		}
		nameBars(pl, names)
		pl.X.Max = max(pl.X.Max, p.Max)
		if pl.X.Max <= 0 { // no chip has this figure
			pl.X.Max = 1
		}
		plots = append(plots, pl)
	}
	return plots, nil
}

// newBarPlot is a panel of horizontal bars: slide-size text, vertical
// grid lines only (the bars' own positions need none), the value axis
// from zero.
func newBarPlot(xLabel string) *plot.Plot {
	pl := plot.New()
	slideText(pl)
	g := plotter.NewGrid()
	g.Horizontal.Color = nil
	pl.Add(g)
	pl.X.Label.Text = xLabel
	pl.X.Min = 0
	return pl
}

// nameBars labels the bars at y = 0 … n−1 with names, bottom first.
func nameBars(pl *plot.Plot, names []string) {
	pl.NominalY(names...)
	pl.Y.Padding = vg.Points(4)
	pl.Y.Min, pl.Y.Max = -0.5, float64(len(names))-0.5
}

// barValue prints a bar's value to three significant digits (all the
// digits of a whole number), without trailing zeros: 2506, 13.1, 0.256.
func barValue(v float64) string {
	a := math.Abs(v)
	if a == 0 || a < 1e-3 || a >= 1e15 {
		return numfmt.Value(v, 0)
	}
	decimals := max(0, 2-int(math.Floor(math.Log10(a))))
	t := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(t, ".") {
		t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
	}
	return t
}

// Size is the comparison figure's width and height.
func (d BarData) Size() (w, h vg.Length) {
	rows := (len(d.Panels) + barColumns - 1) / barColumns
	panel := max(minBarPanel, barPanelExtra+barSlot*vg.Length(len(d.Labels)))
	return figureWidth, titleHeight + panel*vg.Length(rows)
}

// Render draws the comparison as png, svg or pdf: the title on top, the
// panels two a row.
func (d BarData) Render(format string) (io.WriterTo, error) {
	plots, err := d.Plots()
	if err != nil {
		return nil, err
	}
	w, h := d.Size()
	return renderTitled(format, w, h, d.Title, func(dc draw.Canvas) {
		rows := (len(plots) + barColumns - 1) / barColumns
		grid := make([][]*plot.Plot, rows)
		for r := range grid {
			grid[r] = make([]*plot.Plot, barColumns)
			for c := range barColumns {
				if i := r*barColumns + c; i < len(plots) {
					grid[r][c] = plots[i]
				}
			}
		}
		tiles := draw.Tiles{
			Rows: rows, Cols: barColumns,
			PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(18),
			PadX: vg.Points(24), PadY: vg.Points(12),
		}
		canvases := plot.Align(grid, tiles, dc)
		for r := range grid {
			for c, pl := range grid[r] {
				if pl != nil {
					pl.Draw(canvases[r][c])
				}
			}
		}
	})
}

// Save writes the comparison figure to path, in the format its extension
// names, atomically (see SaveFigure).
func (d BarData) Save(path string) error {
	return saveRendered(path, d.Render)
}
