package spec

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/edgetwin/edgetwin/hw/units"
)

type part struct {
	Name string      `yaml:"name" spec:"required"`
	Size units.Bytes `yaml:"size"`
}

type thing struct {
	Name   string            `yaml:"name" spec:"required"`
	Count  int               `yaml:"count,omitempty" spec:"positive"`
	Ratio  float64           `yaml:"ratio,omitempty" spec:"nonneg,max=1"`
	Mode   string            `yaml:"mode,omitempty" spec:"oneof=fast|slow"`
	On     bool              `yaml:"on,omitempty"`
	Rate   units.Hertz       `yaml:"rate,omitempty"`
	Parts  []part            `yaml:"parts,omitempty"`
	Tags   []string          `yaml:"tags,omitempty"`
	Extra  *part             `yaml:"extra,omitempty"`
	Sizes  map[string]int    `yaml:"sizes,omitempty"`
	Source map[string]string `yaml:"sources,omitempty"`
}

func decode(t *testing.T, src string) (*thing, error) {
	t.Helper()
	d, err := Parse("t.yaml", []byte(src))
	if err != nil {
		return nil, err
	}
	var v thing
	return &v, d.Decode(&v)
}

func TestDecodeAll(t *testing.T) {
	v, err := decode(t, `name: a
count: 3
ratio: 0.5
mode: slow
on: true
rate: 1.5 GHz
parts: [{name: p, size: 4 KiB}]
tags: [x, y]
extra: {name: e}
sizes: {a: 1}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := &thing{Name: "a", Count: 3, Ratio: 0.5, Mode: "slow", On: true, Rate: 1.5e9,
		Parts: []part{{"p", 4096}}, Tags: []string{"x", "y"}, Extra: &part{Name: "e"}, Sizes: map[string]int{"a": 1}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("got %+v\nwant %+v", v, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"name: a\ncount: 0\n", "t.yaml:2:8: field count: 0 is not allowed: must be positive"},
		{"name: a\ncount: 1.5\n", `t.yaml:2:8: field count: "1.5" is not an integer`},
		{"name: a\nratio: 2\n", "t.yaml:2:8: field ratio: 2 is not allowed: must be at most 1"},
		{"name: a\nratio: .inf\n", "t.yaml:2:8: field ratio: .inf is not allowed: must be a finite number"},
		{"name: a\nmode: medium\n", `t.yaml:2:7: field mode: "medium" is not allowed: use one of fast, slow`},
		{"name: a\non: yes please\n", `t.yaml:2:5: field on: "yes please" is not true or false`},
		{"name: a\nparts: [{size: 1 KiB}]\n", "t.yaml:2:9: field parts.0.name: missing required field name"},
		{"name: a\nparts: {name: p}\n", "t.yaml:2:8: field parts: expected a list, found a mapping"},
		{"name: a\nextra: null\nrate: null\n", "t.yaml:3:7: field rate: null is not allowed"},
		{"name: a\nsizes: {a: b}\n", `t.yaml:2:12: field sizes.a: "b" is not an integer`},
		{"name: &x a\n", "anchors and aliases"},
		{"name: a\nparts:\n  - name: p\n    size: 1 KiB\n    size: 2 KiB\n", `t.yaml:5:5: field parts.p.size: duplicate key "size" (first at line 4)`},
		{"a: 1\n---\nb: 2\n", "t.yaml:2:1: more than one YAML document"},
	} {
		_, err := decode(t, tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestSetDefaultProvenance(t *testing.T) {
	d, err := Parse("t.yaml", []byte("name: a\nparts: [{name: p, size: 1 KiB}]\nsources: {parts.p: datasheet p.3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Set("rate", "2 GHz", &thing{}, "--set"); err != nil {
		t.Fatal(err)
	}
	if err := d.Default("count", "4", &thing{}, "assumed"); err != nil {
		t.Fatal(err)
	}
	if err := d.Default("name", "zzz", &thing{}, "assumed"); err != nil {
		t.Fatal(err)
	}
	var v thing
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if v.Rate != 2e9 || v.Count != 4 || v.Name != "a" {
		t.Errorf("got rate %v count %v name %q: a default must not replace a value", v.Rate, v.Count, v.Name)
	}
	got := d.Provenance("", v.Source)
	want := []Entry{
		{"count", "4", "assumed"},
		{"parts.p.size", "1 KiB", "datasheet p.3"},
		{"rate", "2 GHz", "--set"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("provenance %+v\nwant %+v", got, want)
	}
	if err := d.Set("nope", "1", &thing{}, "--set"); err == nil || !strings.Contains(err.Error(), "allowed: name, count") {
		t.Errorf("unknown path: %v", err)
	}
	if err := d.Set("parts.q.size", "1", &thing{}, "--set"); err == nil || !strings.Contains(err.Error(), `no entry "q"; entries: p`) {
		t.Errorf("unknown entry: %v", err)
	}
}

// TestCloneIsItsOwn: a clone decodes and cites as its original did, and
// what either writes afterwards never shows in the other.
func TestCloneIsItsOwn(t *testing.T) {
	d, err := Parse("t.yaml", []byte("name: a\nparts: [{name: p, size: 1 KiB}]\nsources: {parts.p: datasheet p.3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Set("rate", "2 GHz", &thing{}, "--set"); err != nil {
		t.Fatal(err)
	}
	c := d.Clone()
	for _, e := range []struct {
		doc         *Doc
		path, value string
	}{{c, "rate", "3 GHz"}, {c, "parts.p.size", "2 KiB"}, {d, "count", "7"}} {
		if err := e.doc.Set(e.path, e.value, &thing{}, "--set"); err != nil {
			t.Fatal(err)
		}
	}
	cite := func(d *Doc) []Entry {
		var v thing
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		return d.Provenance("", v.Source)
	}
	if got, want := cite(d), []Entry{{"count", "7", "--set"}, {"parts.p.size", "1 KiB", "datasheet p.3"}, {"rate", "2 GHz", "--set"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("original %+v\nwant %+v", got, want)
	}
	if got, want := cite(c), []Entry{{"parts.p.size", "2 KiB", "--set"}, {"rate", "3 GHz", "--set"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("clone %+v\nwant %+v", got, want)
	}
	// A clone of the clone, which replaces a list entry whole, appends to
	// a list and writes under a mapping none had: neither of the others
	// sees it.
	c2 := c.Clone()
	for _, e := range []struct{ path, value string }{{"parts.p", "{name: p, size: 8 KiB}"}, {"extra.name", "e"}, {"extra.size", "3 KiB"}} {
		if err := c2.Set(e.path, e.value, &thing{}, "--set"); err != nil {
			t.Fatal(err)
		}
	}
	if err := c2.Append("parts", "{name: q, size: 1 B}", "assumed"); err != nil {
		t.Fatal(err)
	}
	if got, want := cite(c2), []Entry{{"extra.size", "3 KiB", "--set"}, {"parts.p.size", "8 KiB", "--set"}, {"parts.q.size", "1 B", "assumed"}, {"rate", "3 GHz", "--set"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("clone of the clone %+v\nwant %+v", got, want)
	}
	if got := cite(c); len(got) != 2 || got[0].Value != "2 KiB" {
		t.Errorf("the clone after its clone's edits: %+v", got)
	}
	// Clones taken of one document at once, each written: no two share a
	// write (go test -race holds them apart).
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			x := c.Clone()
			if err := x.Set("count", strconv.Itoa(i+1), &thing{}, "--set"); err != nil {
				t.Error(err)
			}
			var v thing
			if err := x.Decode(&v); err != nil || v.Count != i+1 {
				t.Errorf("clone %d: count %d, %v", i, v.Count, err)
			}
		})
	}
	wg.Wait()
}

// TestProvenanceKeepsTheOrderOfEqualPaths: a list entry named "3" and the
// unnamed entry at index 3 give the same paths; their leaves stay in the
// document's order (the sort falls back to a stable one), the rest sorted
// by path. Enough leaves that the unstable sort does not fall to its
// insertion sort, which would keep the order by chance.
func TestProvenanceKeepsTheOrderOfEqualPaths(t *testing.T) {
	var src strings.Builder
	for i := 29; i >= 0; i-- {
		fmt.Fprintf(&src, "z%02d: %d\n", i, i)
	}
	src.WriteString("parts:\n")
	for i := 0; i < 24; i += 2 {
		fmt.Fprintf(&src, "  - {name: \"%d\", size: %d KiB}\n  - {size: %d KiB}\n", i+1, i, i+1)
	}
	d, err := Parse("t.yaml", []byte(src.String()))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 0; i < 24; i += 2 {
		want = append(want, fmt.Sprintf("parts.%d.size=%d KiB", i+1, i), fmt.Sprintf("parts.%d.size=%d KiB", i+1, i+1))
	}
	slices.SortStableFunc(want, func(a, b string) int { return strings.Compare(a[:strings.Index(a, "=")], b[:strings.Index(b, "=")]) })
	for i := 0; i < 30; i++ {
		want = append(want, fmt.Sprintf("z%02d=%d", i, i))
	}
	var got []string
	for _, e := range d.Provenance("", nil) {
		got = append(got, e.Path+"="+e.Value)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("provenance %q\nwant %q", got, want)
	}
}

// FuzzParseDecode: no document makes the decoder panic, and every error
// is a one-line *Error.
func FuzzParseDecode(f *testing.F) {
	f.Add([]byte("name: a\ncount: 3\nparts: [{name: p, size: 4 KiB}]\n"))
	f.Add([]byte("name: [\n"))
	f.Add([]byte("a: &x 1\nb: *x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse("f.yaml", data)
		if err == nil {
			var v thing
			err = d.Decode(&v)
		}
		if err != nil && (!IsSpecError(err) || strings.Contains(err.Error(), "\n")) {
			t.Fatalf("bad error %T %q", err, err)
		}
	})
}

func TestRelative(t *testing.T) {
	ids := []string{"seed-c"}
	for _, c := range []struct{ ref, want string }{
		{"seed-c", "seed-c"},                  // a catalog id
		{"chips/x.yaml", "/rev/chips/x.yaml"}, // a path, from the file's folder
		{"/abs/x.yaml", "/abs/x.yaml"},        // absolute
		{"unknown-id", "unknown-id"},          // a bare name: left for the catalog to reject
	} {
		if got := Relative("/rev", c.ref, ids); got != c.want {
			t.Errorf("Relative(%q) = %q, want %q", c.ref, got, c.want)
		}
	}
}

// TestParseInto: a file that parses and decodes fills out; one that
// parses but does not decode fails with the file and line of the field.
func TestParseInto(t *testing.T) {
	var v struct {
		Name string `yaml:"name" spec:"required"`
	}
	if _, err := ParseInto("ok.yaml", []byte("name: x\n"), &v); err != nil || v.Name != "x" {
		t.Errorf("ParseInto: %v, name %q", err, v.Name)
	}
	_, err := ParseInto("bad.yaml", []byte("name: x\ncolour: red\n"), &v)
	if err == nil || !strings.Contains(err.Error(), "bad.yaml:2") {
		t.Errorf("unknown field: %v, want an error at bad.yaml:2", err)
	}
}

// TestParsedTreesAreNotShared: documents parsed from the same text, and
// values set from the same text, share the parser's work (memo.go) but no
// node — an edit of one document never shows in another, and a value set
// in two places can be changed in one of them alone.
func TestParsedTreesAreNotShared(t *testing.T) {
	src := []byte("name: a\nparts: [{name: p, size: 1 KiB}]\n")
	parse := func() *Doc {
		d, err := Parse("t.yaml", src)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	first, second := parse(), parse()
	// The same entry text in both documents, then replaced in place (a
	// list entry is overwritten node by node) in the first alone.
	entry := "{name: p, size: 2 KiB}"
	for _, d := range []*Doc{first, second} {
		if err := d.Set("parts.p", entry, &thing{}, "--set"); err != nil {
			t.Fatal(err)
		}
	}
	for _, set := range [][2]string{{"parts.p", "{name: p, size: 3 KiB}"}, {"rate", "3 GHz"}} {
		if err := first.Set(set[0], set[1], &thing{}, "--set"); err != nil {
			t.Fatal(err)
		}
	}
	var a, b, c thing
	for _, dv := range []struct {
		d *Doc
		v *thing
	}{{first, &a}, {second, &b}, {parse(), &c}} {
		if err := dv.d.Decode(dv.v); err != nil {
			t.Fatal(err)
		}
	}
	if a.Rate != 3e9 || a.Parts[0].Size != 3*1024 {
		t.Errorf("edited document: rate %v, size %v; want 3 GHz and 3 KiB", a.Rate, a.Parts[0].Size)
	}
	if b.Rate != 0 || b.Parts[0].Size != 2*1024 {
		t.Errorf("second document: rate %v, size %v; want none and 2 KiB: the first one's edits leaked", b.Rate, b.Parts[0].Size)
	}
	if c.Rate != 0 || c.Parts[0].Size != 1024 {
		t.Errorf("a new parse: rate %v, size %v; want none and 1 KiB: an edit reached the remembered tree", c.Rate, c.Parts[0].Size)
	}
}

// TestErrorsCarryAColumn: a located error names the column where the
// field or value starts, as compilers do (file:line:column:), so an editor
// lands on it; in a flow mapping the line alone does not say which field.
func TestErrorsCarryAColumn(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"name: a\ncount: 0\n", "t.yaml:2:8: field count: "},                                       // the value
		{"name: a\nsizes: {a: 1, b: x}\n", "t.yaml:2:18: field sizes.b: "},                         // the second value of a flow mapping
		{"name: a\ncolour: red\n", "t.yaml:2:1: field colour: unknown field"},                      // the key
		{"a: 1\n---\nb: 2\n", "t.yaml:2:1: more than one YAML document"},                           // the document
		{"- 1\n", "t.yaml:1:1: expected a mapping of fields (key: value) at the top level, found"}, // the root
	} {
		_, err := decode(t, tc.src)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want it to start %q", tc.src, err, tc.want)
		}
	}
}
