package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/internal/numfmt"
	"github.com/edgetwin/edgetwin/internal/suggest"

	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/sweep"
)

// failed reports whether any point of s has no result.
func failed(s *sweep.Result) bool { return len(s.Failed()) > 0 }

// MetricKeys lists the key paths of a simulation result that hold
// numbers, in document order: what a sweep can report.
func MetricKeys() []string {
	// Flatten leaves lists out, but a nil list marshals as null, which
	// would read as a figure: make them empty.
	var r sim.Result
	emptyLists(reflect.ValueOf(&r).Elem(), true)
	fields, err := Flatten(r)
	if err != nil {
		panic("reports: a zero sim.Result does not marshal: " + err.Error())
	}
	var keys []string
	for _, f := range fields {
		if !strings.HasPrefix(f.Value, `"`) { // strings (soc, unit) are names, not figures
			keys = append(keys, f.Key)
		}
	}
	return keys
}

// emptyLists sets the nil slices and maps of struct v to empty ones, and
// its nil pointers to structs to zero structs, all the way down; optional
// members stay absent, but for optional blocks when blocks is set.
func emptyLists(v reflect.Value, blocks bool) {
	for i := range v.NumField() {
		f := v.Field(i)
		optional := strings.Contains(v.Type().Field(i).Tag.Get("json"), ",omitempty")
		block := f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct
		if !f.CanSet() || optional && !(block && blocks) {
			continue // optional lists and figures stay absent, as in a result without them
		}
		// An optional block (speculative, schedule, turn_latency) is a key
		// space of its own: its figures are metrics of the runs that have
		// it, and null in the others.
		switch f.Kind() {
		case reflect.Slice:
			if f.IsNil() {
				f.Set(reflect.MakeSlice(f.Type(), 0, 0))
			}
		case reflect.Map:
			if f.IsNil() {
				f.Set(reflect.MakeMap(f.Type()))
			}
		case reflect.Pointer:
			if f.IsNil() && f.Type().Elem().Kind() == reflect.Struct {
				f.Set(reflect.New(f.Type().Elem()))
				emptyLists(f.Elem(), blocks)
			}
		case reflect.Struct:
			emptyLists(f, blocks)
		}
	}
}

// CheckMetrics rejects metric names that are not numeric result keys,
// naming the closest valid ones.
func CheckMetrics(names []string) error {
	keys := MetricKeys()
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case n == "":
			return spec.FieldErrorf("metrics", "has an empty name; give result key paths such as decode.tokens_per_s")
		case seen[n]:
			return spec.FieldErrorf("metrics", "lists %s twice", n)
		case !slices.Contains(keys, n):
			return spec.FieldErrorf("metrics", "%s is not a numeric key of the simulate result; closest: %s (all: the keys of its JSON)", n, strings.Join(suggest.Closest(n, keys, 3), ", "))
		}
		seen[n] = true
	}
	return nil
}

// MetricValues reads the named metrics (checked by CheckMetrics) from a
// result; a null figure is nil.
func MetricValues(r *sim.Result, names []string) ([]*float64, error) {
	out := make([]*float64, len(names))
	for i, n := range names {
		v, err := r.Metric(n)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// WriteSweep prints a sweep in format f.
func WriteSweep(w io.Writer, s *sweep.Result, f Format) error {
	switch f {
	case JSON:
		return WriteJSON(w, sweepJSON{s})
	case CSV:
		return SweepCSV(w, s)
	}
	return SweepTable(w, s)
}

// sweepJSON is the JSON form of a sweep: an array of objects whose keys
// are in column order (fields, then metrics), which a map cannot keep.
type sweepJSON struct{ s *sweep.Result }

func (j sweepJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, p := range j.s.Points {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for k, f := range j.s.Fields {
			member(&b, k > 0, f.Name, f.JSON(p.Values[k]))
		}
		for k, m := range j.s.Metrics {
			v := "null"
			if p.Metrics[k] != nil {
				v = jsonNumber(*p.Metrics[k])
			}
			member(&b, true, m, v)
		}
		for _, k := range j.s.ObjectiveColumns() {
			v := "null"
			if p.Objectives[k] != nil {
				v = jsonNumber(*p.Objectives[k])
			}
			member(&b, true, j.s.Objectives[k].Text, v)
		}
		if len(j.s.Requires) > 0 {
			member(&b, true, "pass", strconv.FormatBool(p.Pass()))
			if len(p.Unmet) > 0 {
				member(&b, true, "unmet", string(sweep.TextList(p.Unmet)))
			}
		}
		if p.Err != "" {
			msg, _ := json.Marshal(p.Err)
			member(&b, true, "error", string(msg))
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

func member(b *bytes.Buffer, comma bool, key, value string) {
	if comma {
		b.WriteByte(',')
	}
	k, _ := json.Marshal(key)
	b.Write(k)
	b.WriteByte(':')
	b.WriteString(value)
}

// jsonNumber writes v as encoding/json does, so sweep numbers read like
// simulate's.
func jsonNumber(v float64) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic("reports: sweep value " + fmt.Sprint(v) + " is not a JSON number")
	}
	return string(data)
}

// sweepHeader lists the columns: fields, metrics, the objectives that are
// not metrics, pass and unmet when the sweep has requirements, and error
// when a point failed.
func sweepHeader(s *sweep.Result) []string {
	var h []string
	for _, f := range s.Fields {
		h = append(h, f.Name)
	}
	h = append(h, s.Metrics...)
	for _, k := range s.ObjectiveColumns() {
		h = append(h, s.Objectives[k].Text)
	}
	if len(s.Requires) > 0 {
		h = append(h, "pass", "unmet")
	}
	if failed(s) {
		h = append(h, "error")
	}
	return h
}

// objectiveCells are a point's objective values that have columns of
// their own, printed by cell ("" or "—" for a null).
func objectiveCells(s *sweep.Result, p sweep.Point, cell func(v *float64, key string) string) []string {
	var out []string
	for _, k := range s.ObjectiveColumns() {
		out = append(out, cell(p.Objectives[k], s.Objectives[k].Text))
	}
	return out
}

// SweepCSV prints a header row and one row per point: numbers in SI base
// units as in the JSON, an empty cell for a missing figure, and an error
// column when some point has no result.
func SweepCSV(w io.Writer, s *sweep.Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(sweepHeader(s)); err != nil {
		return err
	}
	someFailed := failed(s)
	for _, p := range s.Points {
		var rec []string
		for k, v := range p.Values {
			cell := jsonNumber(v)
			if f := s.Fields[k]; f.Choices != nil {
				cell = f.Text(v)
			}
			rec = append(rec, cell)
		}
		for _, m := range p.Metrics {
			cell := ""
			if m != nil {
				cell = jsonNumber(*m)
			}
			rec = append(rec, cell)
		}
		rec = append(rec, objectiveCells(s, p, func(v *float64, _ string) string {
			if v == nil {
				return ""
			}
			return jsonNumber(*v)
		})...)
		if len(s.Requires) > 0 {
			rec = append(rec, strconv.FormatBool(p.Pass()), strings.Join(p.Unmet, "; "))
		}
		if someFailed {
			rec = append(rec, p.Err)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// SweepTable prints the sweep for people: a title, then right-aligned
// columns with quantities in readable units, "—" for a missing figure and
// the reason a point has no result at the end of its row.
func SweepTable(w io.Writer, s *sweep.Result) error {
	fmt.Fprintf(w, "%s — %d points\n\n", s.Title(), len(s.Points))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// Every cell ends with a tab so that AlignRight aligns it; the error
	// text follows the last tab and stays left-aligned.
	for _, h := range sweepHeader(s) {
		if h != "error" && h != "unmet" { // the free-text cell, headed below
			fmt.Fprintf(tw, "%s\t", h)
		}
	}
	fmt.Fprintln(tw, tableTrailer(unmet(s), failed(s)))
	for _, p := range s.Points {
		for k, f := range s.Fields {
			fmt.Fprintf(tw, "%s\t", f.Text(p.Values[k]))
		}
		for k, m := range p.Metrics {
			cell := "—"
			if m != nil {
				cell = numfmt.Value(*m, sim.KeyKind(s.Metrics[k]))
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		for _, c := range objectiveCells(s, p, func(v *float64, key string) string {
			if v == nil {
				return "—"
			}
			return numfmt.Value(*v, sim.KeyKind(key)) // not a field: those have no column
		}) {
			fmt.Fprintf(tw, "%s\t", c)
		}
		if len(s.Requires) > 0 {
			pass := "no"
			if p.Pass() {
				pass = "yes"
			}
			fmt.Fprintf(tw, "%s\t", pass)
		}
		// One free-text cell ends the row: why the point did not run, or
		// else the requirements it fails.
		switch {
		case p.Err != "":
			fmt.Fprint(tw, "  "+p.Err)
		case len(p.Unmet) > 0:
			fmt.Fprint(tw, "  "+strings.Join(p.Unmet, "; "))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// unmet reports whether any point of s fails a requirement.
func unmet(s *sweep.Result) bool {
	return slices.ContainsFunc(s.Points, func(p sweep.Point) bool { return len(p.Unmet) > 0 })
}

// tableTrailer heads the row's one free-text cell by what it can hold: why
// a point did not run, or the requirements it fails.
func tableTrailer(unmet, failed bool) string {
	switch {
	case unmet && failed:
		return "  error or unmet"
	case unmet:
		return "  unmet"
	case failed:
		return "  error"
	}
	return ""
}
