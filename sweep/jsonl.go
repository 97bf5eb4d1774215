package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
)

// Header identifies a sweep in its JSON Lines, so that merge can tell the
// parts of one sweep from those of another. Each part starts with it.
type Header struct {
	SoC, Model, Quant string   // what ran, for titles
	Varies            []string // the --vary flags as given
	Fields            []Field
	Metrics           []string
	// Flags is a digest of every other flag that shapes a point's result
	// (chip, model, --set, fidelity, seed, ...), made by the caller.
	Flags  string
	Points int // in the whole sweep
	// Requires and Objectives are the sweep's --require and --pareto
	// expressions; the points carry their verdicts and values.
	Requires   []string
	Objectives []Objective
	// L3Bytes is Result.L3Bytes: the chip's L3 when no field varies it.
	L3Bytes float64
}

// headerJSON is the header line's "sweep" member.
type headerJSON struct {
	SoC     string      `json:"soc"`
	Model   string      `json:"model"`
	Quant   string      `json:"quant"`
	Varies  []string    `json:"varies"`
	Fields  []fieldJSON `json:"fields"`
	Metrics []string    `json:"metrics"`
	Flags   string      `json:"flags"`
	Points  int         `json:"points"`
	Require []string    `json:"require,omitempty"`
	Pareto  []string    `json:"pareto,omitempty"` // Objective.String of each
	L3Bytes float64     `json:"l3_bytes,omitempty"`
}

type fieldJSON struct {
	Name    string   `json:"name"`
	Label   string   `json:"label"`
	Kind    string   `json:"kind,omitempty"` // units.Kind's name; none for plain numbers
	Derived bool     `json:"derived,omitempty"`
	Choices []string `json:"choices,omitempty"` // a field of names: what it takes
}

type headerLine struct {
	Sweep headerJSON `json:"sweep"`
	Shard string     `json:"shard"`
}

func (h Header) toJSON() headerJSON {
	j := headerJSON{SoC: h.SoC, Model: h.Model, Quant: h.Quant, Varies: h.Varies, Metrics: h.Metrics, Flags: h.Flags, Points: h.Points, Require: h.Requires, L3Bytes: h.L3Bytes}
	for _, o := range h.Objectives {
		j.Pareto = append(j.Pareto, o.String())
	}
	for _, f := range h.Fields {
		fj := fieldJSON{Name: f.Name, Label: f.Label, Derived: f.Derived, Choices: f.Choices}
		if f.Kind != 0 {
			fj.Kind = f.Kind.String()
		}
		j.Fields = append(j.Fields, fj)
	}
	return j
}

func (j headerJSON) header() (Header, error) {
	h := Header{SoC: j.SoC, Model: j.Model, Quant: j.Quant, Varies: j.Varies, Metrics: j.Metrics, Flags: j.Flags, Points: j.Points, Requires: j.Require, L3Bytes: j.L3Bytes}
	if len(j.Pareto) > 0 {
		objs, err := ParseObjectives(strings.Join(j.Pareto, ","))
		if err != nil {
			return Header{}, fmt.Errorf("the sweep header's pareto: %v", err)
		}
		h.Objectives = objs
	}
	for _, fj := range j.Fields {
		f := Field{Name: fj.Name, Label: fj.Label, Derived: fj.Derived, Choices: fj.Choices}
		if fj.Kind != "" {
			for k := units.KindBytes; k <= units.KindFraction; k++ {
				if k.String() == fj.Kind {
					f.Kind = k
				}
			}
			if f.Kind == 0 {
				return Header{}, fmt.Errorf("field %s has an unknown kind %q", fj.Name, fj.Kind)
			}
		}
		h.Fields = append(h.Fields, f)
	}
	if len(h.Fields) == 0 || h.Points < 1 {
		return Header{}, fmt.Errorf("the sweep header has no fields or no points")
	}
	return h, nil
}

// Encoder writes a sweep, or one shard of it, as JSON Lines: a header
// line {"sweep": …, "shard": "I/N"}, then one point a line,
// {"index": i, FIELD: value…, METRIC: value or null…, OBJECTIVE: value or
// null…, "pass": bool, "unmet": [why…], "error": why}. Objectives that are
// also metrics are not repeated; pass and unmet are there when the sweep
// has requirements, unmet only when the point fails one.
// Numbers are written as encoding/json writes float64s, which read back
// to the same bits, so a merge prints what the sweep would have.
type Encoder struct {
	w io.Writer
	h Header
}

// NewEncoder writes the header line of shard sh of the sweep h to w.
func NewEncoder(w io.Writer, h Header, sh Shard) (*Encoder, error) {
	line, err := json.Marshal(headerLine{Sweep: h.toJSON(), Shard: sh.String()})
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	return &Encoder{w: w, h: h}, nil
}

// Encode writes one point as a line.
func (e *Encoder) Encode(p Point) error {
	var b bytes.Buffer
	b.WriteString(`{"index":`)
	b.WriteString(strconv.Itoa(p.Index))
	for k, f := range e.h.Fields {
		if f.Choices != nil {
			name, _ := json.Marshal(f.Name)
			b.WriteByte(',')
			b.Write(name)
			b.WriteByte(':')
			b.WriteString(f.JSON(p.Values[k]))
			continue
		}
		if err := member(&b, f.Name, &p.Values[k]); err != nil {
			return err
		}
	}
	for k, m := range e.h.Metrics {
		if err := member(&b, m, p.Metrics[k]); err != nil {
			return err
		}
	}
	for _, k := range objectiveColumns(e.h.Fields, e.h.Metrics, e.h.Objectives) {
		if err := member(&b, e.h.Objectives[k].Text, p.Objectives[k]); err != nil {
			return err
		}
	}
	if len(e.h.Requires) > 0 {
		b.WriteString(`,"pass":`)
		b.WriteString(strconv.FormatBool(p.Pass()))
		if len(p.Unmet) > 0 {
			b.WriteString(`,"unmet":`)
			b.Write(TextList(p.Unmet))
		}
	}
	if p.Err != "" {
		msg, _ := json.Marshal(p.Err)
		b.WriteString(`,"error":`)
		b.Write(msg)
	}
	b.WriteString("}\n")
	_, err := e.w.Write(b.Bytes())
	return err
}

// member writes ,"key":v (null when v is nil).
func member(b *bytes.Buffer, key string, v *float64) error {
	k, _ := json.Marshal(key)
	b.WriteByte(',')
	b.Write(k)
	b.WriteByte(':')
	if v == nil {
		b.WriteString("null")
		return nil
	}
	data, err := json.Marshal(*v)
	if err != nil {
		return fmt.Errorf("%s: %v is not a JSON number", key, *v)
	}
	b.Write(data)
	return nil
}

// Merge reads the JSON Lines parts of one sweep (each a file a shard
// wrote; header lines may recur, as when parts are concatenated) and
// returns the whole sweep, points in range order. It fails when the parts
// come from different sweeps, or a point is missing or present twice.
func Merge(names ...string) (*Result, error) {
	if len(names) == 0 {
		return nil, spec.Errorf("sweep merge needs the JSON Lines parts the shards wrote (sweep merge part-*.jsonl)")
	}
	for i, name := range names {
		if slices.Contains(names[:i], name) {
			return nil, spec.Errorf("sweep merge: %s is given twice: its points would be present twice", name)
		}
	}
	m := &merger{where: map[int]string{}, shards: map[int]bool{}}
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, spec.Errorf("sweep merge: %v", err)
		}
		err = m.read(name, f)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	var missing []int
	for i := range m.h.Points {
		if _, ok := m.where[i]; !ok {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		return nil, m.missing(missing)
	}
	r := &Result{SoC: m.h.SoC, Model: m.h.Model, Quant: m.h.Quant, Fields: m.h.Fields, Metrics: m.h.Metrics,
		Requires: m.h.Requires, Objectives: m.h.Objectives, Points: m.points, L3Bytes: m.h.L3Bytes}
	slices.SortFunc(r.Points, func(a, b Point) int { return a.Index - b.Index })
	return r, nil
}

// merger gathers the parts of a sweep.
type merger struct {
	h      Header
	from   string         // where the first header is
	where  map[int]string // file:line of each point read
	points []Point
	shards map[int]bool // the shard counts the headers name
}

func (m *merger) read(name string, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var h *Header // the header this file's points belong to
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		at := fmt.Sprintf("%s:%d", name, line)
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(text, &obj); err != nil {
			return spec.Errorf("%s: not a JSON object (a part cut short?): %v", at, err)
		}
		if raw, ok := obj["sweep"]; ok {
			got, err := m.header(at, raw, obj["shard"])
			if err != nil {
				return err
			}
			h = got
			continue
		}
		if h == nil {
			return spec.Errorf("%s: a point before any sweep header: not a part written by a sweep as JSON Lines", at)
		}
		p, err := decodePoint(h, obj)
		if err != nil {
			return spec.Errorf("%s: %v", at, err)
		}
		if p.Index < 0 || p.Index >= h.Points {
			return spec.Errorf("%s: point %d is outside the sweep's %d points", at, p.Index, h.Points)
		}
		if prev, dup := m.where[p.Index]; dup {
			return spec.Errorf("sweep merge: point %d is present twice, at %s and %s: give each shard's part once", p.Index, prev, at)
		}
		m.where[p.Index] = at
		m.points = append(m.points, p)
	}
	if err := sc.Err(); err != nil {
		return spec.Errorf("%s: %v", name, err)
	}
	if h == nil {
		return spec.Errorf("%s: no sweep header: not a part written by a sweep as JSON Lines", name)
	}
	return nil
}

// header reads a header line and checks it names the same sweep as the
// first one.
func (m *merger) header(at string, raw, shard json.RawMessage) (*Header, error) {
	var j headerJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, spec.Errorf("%s: the sweep header: %v", at, err)
	}
	h, err := j.header()
	if err != nil {
		return nil, spec.Errorf("%s: %v", at, err)
	}
	var s string
	if json.Unmarshal(shard, &s) == nil {
		if _, n, ok := strings.Cut(s, "/"); ok {
			if c, err := strconv.Atoi(n); err == nil {
				m.shards[c] = true
			}
		}
	}
	if m.from == "" {
		m.h, m.from = h, at
		return &m.h, nil
	}
	if diff := differ(m.h, h); diff != "" {
		return nil, spec.Errorf("sweep merge: %s and %s are parts of different sweeps: %s", m.from, at, diff)
	}
	return &m.h, nil
}

// differ says how two sweep headers differ, or "" when they do not.
func differ(a, b Header) string {
	switch {
	case !slices.Equal(a.Varies, b.Varies):
		return fmt.Sprintf("vary %s vs %s", strings.Join(a.Varies, " "), strings.Join(b.Varies, " "))
	case !slices.Equal(a.Metrics, b.Metrics):
		return fmt.Sprintf("metrics %s vs %s", strings.Join(a.Metrics, ","), strings.Join(b.Metrics, ","))
	case a.Points != b.Points:
		return fmt.Sprintf("%d points vs %d", a.Points, b.Points)
	case a.Flags != b.Flags:
		return fmt.Sprintf("their other settings differ (digest %s vs %s)", a.Flags, b.Flags)
	case a.SoC != b.SoC || a.Model != b.Model || a.Quant != b.Quant:
		return fmt.Sprintf("%s %s on %s vs %s %s on %s", a.Model, a.Quant, a.SoC, b.Model, b.Quant, b.SoC)
	case !slices.EqualFunc(a.Fields, b.Fields, Field.same):
		return "their fields differ"
	case !slices.Equal(a.Requires, b.Requires):
		return fmt.Sprintf("require %q vs %q", a.Requires, b.Requires)
	case !slices.Equal(a.Objectives, b.Objectives):
		return fmt.Sprintf("pareto %v vs %v", a.Objectives, b.Objectives)
	case a.L3Bytes != b.L3Bytes:
		return fmt.Sprintf("their chips' L3 differ (%g vs %g bytes)", a.L3Bytes, b.L3Bytes)
	}
	return ""
}

// missing explains which points no part holds.
func (m *merger) missing(idx []int) error {
	list := make([]string, 0, 5)
	for _, i := range idx[:min(len(idx), 5)] {
		list = append(list, strconv.Itoa(i))
	}
	if len(idx) > 5 {
		list = append(list, "…")
	}
	what := fmt.Sprintf("point %s is missing", list[0])
	if len(idx) > 1 {
		what = fmt.Sprintf("%d points are missing (%s)", len(idx), strings.Join(list, ", "))
	}
	hint := "give every shard's part"
	if len(m.shards) == 1 {
		for n := range m.shards {
			hint = fmt.Sprintf("shard %d/%d holds point %d: is its part among the files, and did it finish?", idx[0]%n, n, idx[0])
		}
	}
	return spec.Errorf("sweep merge: %s of %d; %s", what, m.h.Points, hint)
}

// decodePoint reads a point line by the header's field and metric names.
func decodePoint(h *Header, obj map[string]json.RawMessage) (Point, error) {
	var p Point
	if err := json.Unmarshal(obj["index"], &p.Index); err != nil {
		return Point{}, fmt.Errorf("not a point: its index is not a whole number")
	}
	num := func(key string, null bool) (*float64, error) {
		raw, ok := obj[key]
		if !ok {
			return nil, fmt.Errorf("point %d has no %s", p.Index, key)
		}
		if string(raw) == "null" && null {
			return nil, nil
		}
		var v float64
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("point %d: %s is %s, not a number", p.Index, key, raw)
		}
		return &v, nil
	}
	for _, f := range h.Fields {
		if f.Choices != nil {
			var name string
			if err := json.Unmarshal(obj[f.Name], &name); err != nil {
				return Point{}, fmt.Errorf("point %d: %s is %s, not a name", p.Index, f.Name, obj[f.Name])
			}
			i := slices.Index(f.Choices, name)
			if i < 0 {
				return Point{}, fmt.Errorf("point %d: %s is %q, which the sweep does not vary over (%s)", p.Index, f.Name, name, strings.Join(f.Choices, ", "))
			}
			p.Values = append(p.Values, float64(i))
			continue
		}
		v, err := num(f.Name, false)
		if err != nil {
			return Point{}, err
		}
		p.Values = append(p.Values, *v)
	}
	for _, name := range h.Metrics {
		v, err := num(name, true)
		if err != nil {
			return Point{}, err
		}
		p.Metrics = append(p.Metrics, v)
	}
	for _, o := range h.Objectives {
		m, f := shownAs(h.Fields, h.Metrics, o)
		switch {
		case m >= 0:
			p.Objectives = append(p.Objectives, p.Metrics[m])
			continue
		case f >= 0:
			p.Objectives = append(p.Objectives, &p.Values[f])
			continue
		}
		v, err := num(o.Text, true)
		if err != nil {
			return Point{}, err
		}
		p.Objectives = append(p.Objectives, v)
	}
	if raw, ok := obj["unmet"]; ok {
		if err := json.Unmarshal(raw, &p.Unmet); err != nil {
			return Point{}, fmt.Errorf("point %d: its unmet is not a list of strings", p.Index)
		}
	}
	if raw, ok := obj["error"]; ok {
		if err := json.Unmarshal(raw, &p.Err); err != nil {
			return Point{}, fmt.Errorf("point %d: its error is not a string", p.Index)
		}
	}
	return p, nil
}

// TextList is the JSON of a list of messages, with <, > and & as they are
// (encoding/json's default escapes them for HTML), so that a requirement
// reads in the file as it was written.
func TextList(list []string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(list); err != nil {
		panic("sweep: a list of strings does not marshal: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// ObjectiveColumns lists the indices of the objectives that the sweep's
// output shows in columns of their own: those that are neither a metric
// nor a field (vary.FIELD).
func (r *Result) ObjectiveColumns() []int { return objectiveColumns(r.Fields, r.Metrics, r.Objectives) }

func objectiveColumns(fields []Field, metrics []string, objs []Objective) []int {
	var out []int
	for k, o := range objs {
		if m, f := shownAs(fields, metrics, o); m < 0 && f < 0 {
			out = append(out, k)
		}
	}
	return out
}

// shownAs finds an objective among the metrics and the fields (as
// vary.FIELD): the index of either, -1 for neither.
func shownAs(fields []Field, metrics []string, o Objective) (metric, field int) {
	field = -1
	if name, ok := strings.CutPrefix(o.Text, "vary."); ok {
		field = slices.IndexFunc(fields, func(f Field) bool { return f.Name == name })
	}
	return slices.Index(metrics, o.Text), field
}
