package spec

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Set writes value (YAML text: "80 GB/s", "12", "{size: 4 MiB}") at path,
// replacing what is there, as `--set PATH=VALUE` does. target is a pointer
// to the struct the document will decode into; a path that struct does not
// have is an error that lists what is allowed. origin says where the value
// came from in errors and provenance (SetOrigin, "calibrated:fit.yaml").
func (d *Doc) Set(path, value string, target any, origin string) error {
	return d.put(path, value, target, origin, true)
}

// Default writes value at path only when the document has nothing there;
// its provenance is source (normally "assumed").
func (d *Doc) Default(path, value string, target any, source string) error {
	return d.put(path, value, target, source, false)
}

func (d *Doc) put(path, value string, target any, origin string, overwrite bool) error {
	fail := func(msg string) error { return originError(origin, path, msg) }
	var newNode *yaml.Node
	parse := func() error {
		if strings.TrimSpace(value) == "" {
			return fail("empty value")
		}
		n, ok := parseValue(value)
		if !ok {
			return fail(fmt.Sprintf("%q is not a valid value", value))
		}
		if err := d.checkValue(value, n, path); err != nil {
			return fail(err.(*Error).Msg)
		}
		newNode = n
		return nil
	}
	// A default is parsed only where it is written: most loads find most
	// of the catalog's defaults' fields given.
	if overwrite {
		if err := parse(); err != nil {
			return err
		}
	}
	t := reflect.TypeOf(target)
	parent := d.root
	var room [8]*yaml.Node
	chain := append(room[:0], parent) // the root down to parent, for writable
	done := ""
	for rest, more := path, true; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, ".")
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		last := !more
		var child *yaml.Node
		switch t.Kind() {
		case reflect.Struct:
			var ft reflect.Type
			for _, f := range fieldsOf(t) {
				if f.name == seg {
					ft = t.Field(f.index).Type
				}
			}
			if ft == nil {
				return fail(fmt.Sprintf("unknown path: %s has no field %q; allowed: %s%s", orTop(done), seg, strings.Join(FieldNames(t), ", "), hintAfter(seg, FieldNames(t))))
			}
			t = ft
			child = mapValue(parent, seg)
		case reflect.Map:
			t = t.Elem()
			child = mapValue(parent, seg)
		case reflect.Slice:
			t = t.Elem()
			var names []string
			for j, e := range parent.Content {
				name := entryName(e, j)
				names = append(names, name)
				if name == seg {
					child = e
				}
			}
			if child == nil {
				return fail(fmt.Sprintf("unknown path: %s has no entry %q; entries: %s%s", orTop(done), seg, strings.Join(names, ", "), hintAfter(seg, names)))
			}
		default:
			return fail(fmt.Sprintf("unknown path: %s is a single value, it has no field %q", orTop(done), seg))
		}
		if last {
			if child != nil && !overwrite {
				return nil
			}
			if newNode == nil {
				if err := parse(); err != nil {
					return err
				}
			}
			if overwrite {
				d.set[path] = true
			}
			d.markOrigin(newNode, origin)
			parent = d.writable(chain)
			if child == nil || parent.Kind == yaml.SequenceNode {
				if child != nil { // replace a whole list entry in place
					parent.Content[slices.Index(parent.Content, child)] = newNode
					return nil
				}
				parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg}, newNode)
				return nil
			}
			replaceValue(parent, seg, newNode)
			return nil
		}
		if child == nil {
			parent = d.writable(chain)
			child = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg}, child)
			d.markOrigin(child, origin)
		}
		if child.Kind != yaml.MappingNode && child.Kind != yaml.SequenceNode {
			next, _, _ := strings.Cut(rest, ".")
			return fail(fmt.Sprintf("unknown path: %s is a single value, it has no field %q", join(done, seg), next))
		}
		parent = child
		chain = append(chain, child)
		done = join(done, seg)
	}
	return nil
}

// hintAfter is "; did you mean X?" for a name near one of known, or "".
func hintAfter(name string, known []string) string {
	if h := nearID(name, known); h != "" {
		return "; " + strings.TrimSpace(h)
	}
	return ""
}

func orTop(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

func replaceValue(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
		}
	}
}

func (d *Doc) markOrigin(n *yaml.Node, origin string) {
	d.origin[n] = origin
	if d.owned != nil {
		d.owned[n] = true
	}
	for _, c := range n.Content {
		d.markOrigin(c, origin)
	}
}

// Entry is the provenance of one value: where it sits, what it is, and
// where it came from.
type Entry struct {
	Path   string `json:"path"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// Provenance lists every leaf value of the document, sorted by path, with
// its source: the citation in sources for the path or its nearest parent,
// else the origin of a Set or Default, else file:line. Fields named `name`
// and the `sources` map itself are left out.
func (d *Doc) Provenance(prefix string, sources map[string]string) []Entry {
	var out []Entry
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch {
		case n.Kind == yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				if identity[k] || (path == "" && k == "sources") {
					continue
				}
				walk(n.Content[i+1], join(path, k))
			}
			return
		case n.Kind == yaml.SequenceNode && hasStructure(n):
			for i, e := range n.Content {
				walk(e, join(path, entryName(e, i)))
			}
			return
		}
		out = append(out, Entry{Path: join(prefix, path), Value: flow(n), Source: d.source(n, path, sources)})
	}
	walk(d.root, "")
	// Paths are unique unless a list entry's name is another entry's index
	// (an entry named "3" and the unnamed entry at index 3): then only a
	// stable sort keeps the document's order among them. The
	// unstable sort is the same order otherwise, and about twice as fast
	// (a sweep point's load sorts a chip's couple of hundred leaves).
	byPath := func(a, b Entry) int { return strings.Compare(a.Path, b.Path) }
	slices.SortFunc(out, byPath)
	for i := 1; i < len(out); i++ {
		if out[i].Path == out[i-1].Path {
			out = out[:0]
			walk(d.root, "")
			slices.SortStableFunc(out, byPath)
			break
		}
	}
	return out
}

func (d *Doc) source(n *yaml.Node, path string, sources map[string]string) string {
	if o, ok := d.originOf(n); ok {
		return o
	}
	if c := citation(path, sources); c != "" {
		return c
	}
	return d.File + ":" + strconv.Itoa(n.Line)
}

// citation finds the source for path or its nearest parent path.
func citation(path string, sources map[string]string) string {
	for p := path; p != ""; {
		if c, ok := sources[p]; ok {
			return c
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return ""
}

func hasStructure(n *yaml.Node) bool {
	for _, e := range n.Content {
		if e.Kind != yaml.ScalarNode {
			return true
		}
	}
	return false
}

// flow prints a leaf (a scalar or a list of scalars) on one line.
func flow(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	var parts []string
	for _, e := range n.Content {
		parts = append(parts, e.Value)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Encode prints v as YAML with two-space indentation; quantities print in
// readable units, and decoding the result gives v back.
func Encode(v any) ([]byte, error) {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// Append adds value (YAML text) as a new entry of the list at path. It does
// nothing when the list is absent; decoding then reports the missing field.
func (d *Doc) Append(path, value, origin string) error {
	chain := d.chainTo(path)
	if chain == nil || chain[len(chain)-1].Kind != yaml.SequenceNode {
		return nil
	}
	n, ok := parseValue(value)
	if !ok {
		return originError(origin, path, fmt.Sprintf("%q is not a valid value", value))
	}
	d.markOrigin(n, origin)
	list := d.writable(chain)
	list.Content = append(list.Content, n)
	return nil
}

// Override is one PATH=VALUE given directly (the CLI's `--set`), or a
// calibrated value, to apply to a document before defaults; Origin is how
// errors and provenance name it.
type Override struct {
	Path, Value, Origin string
}

// SetOrigin is the origin of an override given directly: provenance
// reports it as the source "--set", as the CLI's users know it, and errors
// name it as the setting "set" (Error.Field), for a front end to name.
const SetOrigin = "--set"

// originError is msg about the value at path, located by origin: the
// setting "set" for SetOrigin, else origin as the place it came from.
func originError(origin, path, msg string) *Error {
	if origin == SetOrigin {
		return &Error{Field: "set", Path: path, Msg: msg}
	}
	return &Error{File: origin, Path: path, Msg: msg}
}

// ParseOverride reads "PATH=VALUE", an override given directly.
func ParseOverride(s string) (Override, error) {
	path, value, ok := strings.Cut(s, "=")
	path, value = strings.TrimSpace(path), strings.TrimSpace(value)
	if !ok || path == "" || value == "" {
		return Override{}, FieldErrorf("set", "%q is not PATH=VALUE (e.g. memory.dram.bandwidth=80GB/s)", s)
	}
	return Override{Path: path, Value: value, Origin: SetOrigin}, nil
}

// Apply sets every override on the document, for a target of out's type.
func (d *Doc) Apply(sets []Override, target any) error {
	for _, o := range sets {
		if err := d.Set(o.Path, o.Value, target, o.Origin); err != nil {
			return err
		}
	}
	return nil
}

// identity fields name things rather than measure them; provenance leaves
// them out.
var identity = map[string]bool{"name": true, "kind": true, "vendor": true, "family": true}
