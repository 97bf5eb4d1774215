package spec

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/edgetwin/edgetwin/hw/units"
	"go.yaml.in/yaml/v3"
)

// Decode fills out (a pointer to a struct) from the document, strictly.
func (d *Doc) Decode(out any) (err error) {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic("spec: Decode needs a pointer to a struct")
	}
	return d.decode(d.root, v.Elem(), "", rules{})
}

// DecodeAt decodes the values at paths into out as Decode would, leaving
// the rest of out as it is: for a document changed at those paths since
// out was decoded from it. A path must name a value of the document
// through fields, list entries (by name) and a last map key; it is an
// error if one does not.
func (d *Doc) DecodeAt(out any, paths ...string) error {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic("spec: DecodeAt needs a pointer to a struct")
	}
	for _, path := range paths {
		if err := d.decodeAt(v.Elem(), path); err != nil {
			return err
		}
	}
	return nil
}

func (d *Doc) decodeAt(v reflect.Value, path string) error {
	n, r := d.root, rules{}
	for rest, more := path, true; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, ".")
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return &Error{File: d.File, Path: path, Msg: "not decoded"}
			}
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.Struct:
			i := slices.IndexFunc(fieldsOf(v.Type()), func(f field) bool { return f.name == seg })
			if i < 0 {
				return &Error{File: d.File, Path: path, Msg: "no such field"}
			}
			f := fieldsOf(v.Type())[i]
			v, r, n = v.Field(f.index), f.rules, mapValue(n, seg)
		case reflect.Slice:
			var entry *yaml.Node
			if n != nil && n.Kind == yaml.SequenceNode {
				for j, e := range n.Content {
					if entryName(e, j) == seg && j < v.Len() {
						entry, v = e, v.Index(j)
						break
					}
				}
			}
			n, r = entry, rules{bound: r.bound}
		case reflect.Map:
			val := mapValue(n, seg)
			if more || val == nil {
				return &Error{File: d.File, Path: path, Msg: "not a map's last key"}
			}
			key := reflect.New(v.Type().Key()).Elem()
			if u, ok := key.Addr().Interface().(encoding.TextUnmarshaler); ok {
				if err := u.UnmarshalText([]byte(seg)); err != nil {
					return &Error{File: d.File, Path: path, Msg: "bad key: " + err.Error()}
				}
			} else if key.Kind() == reflect.String {
				key.SetString(seg)
			} else {
				return &Error{File: d.File, Path: path, Msg: "not a map's last key"}
			}
			e := reflect.New(v.Type().Elem()).Elem()
			if err := d.decode(val, e, path, rules{bound: r.bound}); err != nil {
				return err
			}
			if v.IsNil() {
				v.Set(reflect.MakeMap(v.Type()))
			}
			v.SetMapIndex(key, e)
			return nil
		default:
			return &Error{File: d.File, Path: path, Msg: "not a field"}
		}
		if n == nil {
			return &Error{File: d.File, Path: path, Msg: "no value"}
		}
	}
	return d.decode(n, v, path, r)
}

// rules are the checks of a field's `spec` tag.
type rules struct {
	required, positive, nonneg bool
	oneof                      []string
	max                        *float64
	// bound is the role of a quantity in units.Bounds ("dram", "cost",
	// …); "" takes its kind's default range.
	bound string
}

func parseRules(tag string) rules {
	var r rules
	for _, part := range strings.Split(tag, ",") {
		switch {
		case part == "required":
			r.required = true
		case part == "positive":
			r.positive = true
		case part == "nonneg":
			r.nonneg = true
		case strings.HasPrefix(part, "oneof="):
			r.oneof = strings.Split(strings.TrimPrefix(part, "oneof="), "|")
		case strings.HasPrefix(part, "max="):
			m, err := strconv.ParseFloat(strings.TrimPrefix(part, "max="), 64)
			if err != nil {
				panic("spec: bad max in tag " + tag)
			}
			r.max = &m
		case strings.HasPrefix(part, "bound="):
			r.bound = strings.TrimPrefix(part, "bound=")
			if !units.HasRole(r.bound) {
				panic("spec: unknown bound role in tag " + tag)
			}
		case part == "":
		default:
			panic("spec: unknown rule " + part)
		}
	}
	return r
}

// field is one decodable struct field.
type field struct {
	name  string
	index int
	rules rules
}

// fieldCache maps a struct type to its fields; sweeps decode in parallel.
var fieldCache sync.Map

func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		if !sf.IsExported() || name == "-" || name == "" {
			continue
		}
		fs = append(fs, field{name: name, index: i, rules: parseRules(sf.Tag.Get("spec"))})
	}
	fieldCache.Store(t, fs)
	return fs
}

// FieldNames lists the YAML field names of a struct type, for messages.
func FieldNames(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for _, f := range fieldsOf(t) {
		names = append(names, f.name)
	}
	return names
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

func (d *Doc) decode(n *yaml.Node, v reflect.Value, path string, r rules) error {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		if v.Kind() == reflect.Pointer {
			return nil
		}
		return d.errAt(n, path, "null is not allowed: give a value or leave the field out")
	}
	if q, ok := v.Addr().Interface().(units.Quantity); ok {
		if n.Kind != yaml.ScalarNode {
			return d.errAt(n, path, fmt.Sprintf("expected a %s, found %s: %s", q.Kind(), kindName(n), q.Kind().Accepted()))
		}
		x, err := units.Parse(n.Value, q.Kind())
		if err != nil {
			return d.errAt(n, path, err.Error())
		}
		if b, ok := units.BoundFor(q.Kind(), r.bound); ok {
			if msg := b.Check(n.Value, x); msg != "" {
				return d.errAt(n, path, msg)
			}
		}
		v.SetFloat(x)
		return nil
	}
	if v.Kind() != reflect.Struct && v.Kind() != reflect.Pointer && v.Addr().Type().Implements(textUnmarshaler) {
		if n.Kind != yaml.ScalarNode {
			return d.errAt(n, path, "expected a single value, found "+kindName(n))
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
			return d.errAt(n, path, err.Error())
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := d.decode(n, p.Elem(), path, r); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		return d.decodeStruct(n, v, path)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return d.errAt(n, path, "expected a list, found "+kindName(n))
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, e := range n.Content {
			if err := d.decode(e, s.Index(i), join(path, entryName(e, i)), rules{bound: r.bound}); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Map:
		return d.decodeMap(n, v, path, r)
	}
	if n.Kind != yaml.ScalarNode {
		return d.errAt(n, path, "expected a single value, found "+kindName(n))
	}
	return d.decodeScalar(n, v, path, r)
}

func (d *Doc) decodeStruct(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return d.errAt(n, path, "expected a mapping of fields, found "+kindName(n))
	}
	fs := fieldsOf(v.Type())
	var room [64]bool // which of fs the mapping gives
	seen := room[:0]
	if len(fs) > len(room) {
		seen = make([]bool, len(fs))
	}
	seen = seen[:len(fs)]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		var f *field
		for j := range fs {
			if fs[j].name == k.Value {
				f = &fs[j]
				seen[j] = true
			}
		}
		p := join(path, k.Value)
		if f == nil {
			names := FieldNames(v.Type())
			return d.errAt(k, p, fmt.Sprintf("unknown field %q; %sallowed here: %s", k.Value, nearID(k.Value, names), strings.Join(names, ", ")))
		}
		if err := d.decode(val, v.Field(f.index), p, f.rules); err != nil {
			return err
		}
	}
	for j, f := range fs {
		if f.rules.required && !seen[j] {
			return d.errAt(n, join(path, f.name), "missing required field "+f.name)
		}
	}
	return nil
}

func (d *Doc) decodeMap(n *yaml.Node, v reflect.Value, path string, r rules) error {
	if n.Kind != yaml.MappingNode {
		return d.errAt(n, path, "expected a mapping, found "+kindName(n))
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	kt, et := v.Type().Key(), v.Type().Elem()
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		p := join(path, k.Value)
		key := reflect.New(kt).Elem()
		if u, ok := key.Addr().Interface().(encoding.TextUnmarshaler); ok {
			if err := u.UnmarshalText([]byte(k.Value)); err != nil {
				return d.errAt(k, p, "bad key: "+err.Error())
			}
		} else if kt.Kind() == reflect.String {
			key.SetString(k.Value)
		} else {
			panic("spec: unsupported map key type " + kt.String())
		}
		e := reflect.New(et).Elem()
		if err := d.decode(val, e, p, rules{bound: r.bound}); err != nil {
			return err
		}
		m.SetMapIndex(key, e)
	}
	v.Set(m)
	return nil
}

func (d *Doc) decodeScalar(n *yaml.Node, v reflect.Value, path string, r rules) error {
	tag := n.ShortTag()
	switch v.Kind() {
	case reflect.String:
		if len(r.oneof) > 0 && !slices.Contains(r.oneof, n.Value) {
			return d.errAt(n, path, fmt.Sprintf("%q is not allowed: use one of %s", n.Value, strings.Join(r.oneof, ", ")))
		}
		v.SetString(n.Value)
	case reflect.Bool:
		if tag != "!!bool" {
			return d.errAt(n, path, fmt.Sprintf("%q is not true or false", n.Value))
		}
		v.SetBool(n.Value == "true" || n.Value == "True" || n.Value == "TRUE")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var x int64
		if tag != "!!int" || n.Decode(&x) != nil {
			return d.errAt(n, path, fmt.Sprintf("%q is not an integer", n.Value))
		}
		if v.OverflowInt(x) {
			return d.errAt(n, path, fmt.Sprintf("%s is too large", n.Value))
		}
		if err := r.checkNumber(float64(x)); err != "" {
			return d.errAt(n, path, fmt.Sprintf("%s is not allowed: %s", n.Value, err))
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var x uint64
		if tag != "!!int" || n.Decode(&x) != nil || v.OverflowUint(x) {
			return d.errAt(n, path, fmt.Sprintf("%q is not a non-negative integer in range", n.Value))
		}
		v.SetUint(x)
	case reflect.Float32, reflect.Float64:
		var x float64
		if (tag != "!!int" && tag != "!!float") || n.Decode(&x) != nil {
			return d.errAt(n, path, fmt.Sprintf("%q is not a number", n.Value))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) || v.OverflowFloat(x) {
			return d.errAt(n, path, fmt.Sprintf("%s is not allowed: must be a finite number", n.Value))
		}
		if err := r.checkNumber(x); err != "" {
			return d.errAt(n, path, fmt.Sprintf("%s is not allowed: %s", n.Value, err))
		}
		v.SetFloat(x)
	default:
		panic("spec: unsupported field type " + v.Type().String())
	}
	return nil
}

func (r rules) checkNumber(x float64) string {
	switch {
	case r.positive && x <= 0:
		return "must be positive"
	case r.nonneg && x < 0:
		return "must not be negative"
	case r.max != nil && x > *r.max:
		return fmt.Sprintf("must be at most %g", *r.max)
	}
	return ""
}

// ParseInto parses a file and decodes it strictly into out (Parse, then
// Decode), and returns the document, whose Errorf names the file's lines
// in the checks that follow.
func ParseInto(file string, data []byte, out any) (*Doc, error) {
	doc, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	if err := doc.Decode(out); err != nil {
		return nil, err
	}
	return doc, nil
}
