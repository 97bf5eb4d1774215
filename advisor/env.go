package advisor

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/sim"
)

// The environment an expression sees is a tree of map[string]any: the
// simulate result's JSON keys at the top (numbers as float64, nulls as
// nil, lists left out as reports.Flatten leaves them out), and the chip's
// spec under "chip" (quantities as SI float64, units and other named list
// entries keyed by their name).

// chipKey is where the chip's spec sits in the environment.
const chipKey = "chip"

// resultTree is the JSON form of r as nested maps, lists left out.
func resultTree(r *sim.Result) (map[string]any, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	dropLists(m)
	return m, nil
}

// dropLists removes the list members of a JSON tree, all the way down.
func dropLists(m map[string]any) {
	for k, v := range m {
		switch t := v.(type) {
		case []any:
			delete(m, k)
		case map[string]any:
			dropLists(t)
		}
	}
}

// resultTemplate is the tree of a result with every figure present: each
// pointer filled, so that numbers are float64 zeros and names empty
// strings. It types the example environment and lists the result's keys.
func resultTemplate() map[string]any {
	var r sim.Result
	fillZero(reflect.ValueOf(&r).Elem())
	m, err := resultTree(&r)
	if err != nil {
		panic("advisor: a zero sim.Result does not marshal: " + err.Error())
	}
	return m
}

// fillZero gives every nil pointer of v a zero value, and every nil slice
// and map an empty one, all the way down.
func fillZero(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				fillZero(f)
			}
		}
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fillZero(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		}
	case reflect.Map:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
	}
}

// nullTree is the tree of a chip that did not run: the template's keys,
// every value nil, but the chip's id and the workload's names.
func nullTree(template map[string]any, soc, model, quant string) map[string]any {
	var walk func(m map[string]any) map[string]any
	walk = func(m map[string]any) map[string]any {
		out := make(map[string]any, len(m))
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				out[k] = walk(sub)
			} else {
				out[k] = nil
			}
		}
		return out
	}
	out := walk(template)
	out["soc"], out["model"], out["quant"] = soc, model, quant
	return out
}

var quantityType = reflect.TypeFor[units.Quantity]()

// specTree encodes a chip's spec as nested maps under the YAML field
// names: numbers as float64 in SI base units, names as strings, and lists
// whose entries have a name (units) as maps keyed by that name. Other
// lists (OPP tables, op lists) and the sources map are left out. kinds
// receives the units.Kind of every quantity leaf, by dotted path under
// "chip.".
func specTree(c *hw.Chip, kinds map[string]units.Kind) map[string]any {
	m, _ := encodeSpec(reflect.ValueOf(c.SoC), chipKey, kinds).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	m["id"] = c.ID
	// A chip without a price has price_usd 0: it has none, not a free one.
	if v, ok := m["price_usd"].(float64); ok && v == 0 {
		delete(m, "price_usd")
	}
	return m
}

func encodeSpec(v reflect.Value, path string, kinds map[string]units.Kind) any {
	if v.Type().Implements(quantityType) && isNumber(v.Kind()) {
		kinds[path] = v.Interface().(units.Quantity).Kind()
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return encodeSpec(v.Elem(), path, kinds)
	case reflect.Struct:
		m := map[string]any{}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := yamlName(f)
			if name == "" || (path == chipKey && name == "sources") {
				continue
			}
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				if sub, ok := encodeSpec(v.Field(i), path, kinds).(map[string]any); ok {
					for k, x := range sub {
						m[k] = x
					}
				}
				continue
			}
			if x := encodeSpec(v.Field(i), path+"."+name, kinds); x != nil {
				m[name] = x
			}
		}
		return m
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return nil
		}
		m := map[string]any{}
		for _, k := range v.MapKeys() {
			key := k.String()
			if x := encodeSpec(v.MapIndex(k), path+"."+key, kinds); x != nil {
				m[key] = x
			}
		}
		return m
	case reflect.Slice, reflect.Array:
		elem := v.Type().Elem()
		for elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		if elem.Kind() != reflect.Struct {
			return nil
		}
		if nf, ok := elem.FieldByName("Name"); !ok || nf.Type.Kind() != reflect.String {
			return nil
		}
		m := map[string]any{}
		for i := range v.Len() {
			e := reflect.Indirect(v.Index(i))
			if !e.IsValid() {
				continue
			}
			name := e.FieldByName("Name").String()
			if name == "" {
				continue
			}
			if x := encodeSpec(e, path+"."+name, kinds); x != nil {
				m[name] = x
			}
		}
		return m
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint())
	}
	return nil
}

func isNumber(k reflect.Kind) bool {
	switch k {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// yamlName is the YAML key of a struct field: its tag's name, or the
// lower-cased field name; "" for a field the YAML leaves out.
func yamlName(f reflect.StructField) string {
	tag := f.Tag.Get("yaml")
	name, _, _ := strings.Cut(tag, ",")
	switch {
	case name == "-":
		return ""
	case name == "" && f.Anonymous:
		return f.Name // inlined or embedded: its fields are promoted
	case name == "":
		return strings.ToLower(f.Name)
	}
	return name
}

// merge adds to dst every key of src that dst lacks, all the way down: the
// union of the chips' specs types the example environment.
func merge(dst, src map[string]any) {
	for k, v := range src {
		sub, isMap := v.(map[string]any)
		cur, ok := dst[k]
		switch {
		case !ok:
			if isMap {
				cp := map[string]any{}
				merge(cp, sub)
				dst[k] = cp
			} else {
				dst[k] = v
			}
		case isMap:
			if d, ok := cur.(map[string]any); ok {
				merge(d, sub)
			}
		}
	}
}

// typed replaces the nil leaves of a tree with float64 zeros: an example
// environment types a figure that one chip lacks as a number.
func typed(m map[string]any) {
	for k, v := range m {
		switch t := v.(type) {
		case nil:
			m[k] = 0.0
		case map[string]any:
			typed(t)
		}
	}
}

// paths lists the dotted paths of a tree: every leaf, and every inner
// node, sorted.
func paths(m map[string]any) (leaves, inner []string) {
	var walk func(m map[string]any, prefix string)
	walk = func(m map[string]any, prefix string) {
		for k, v := range m {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			if sub, ok := v.(map[string]any); ok {
				inner = append(inner, p)
				walk(sub, p)
			} else {
				leaves = append(leaves, p)
			}
		}
	}
	walk(m, "")
	slices.Sort(leaves)
	slices.Sort(inner)
	return leaves, inner
}

// lookup finds the value at a dotted path; ok is false when some part of
// the path is missing.
func lookup(m map[string]any, path string) (v any, ok bool) {
	var cur any = m
	for part := range strings.SplitSeq(path, ".") {
		mm, isMap := cur.(map[string]any)
		if !isMap {
			return nil, false
		}
		if cur, ok = mm[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// number reads a float64 at path; nil when it is missing, null or not a
// number.
func number(m map[string]any, path string) *float64 {
	v, ok := lookup(m, path)
	if !ok {
		return nil
	}
	if f, ok := v.(float64); ok {
		return &f
	}
	return nil
}

// env is one chip's expression environment: the result's tree with the
// chip's spec under "chip".
func env(result, chip map[string]any) map[string]any {
	e := make(map[string]any, len(result)+1)
	for k, v := range result {
		e[k] = v
	}
	e[chipKey] = chip
	return e
}
