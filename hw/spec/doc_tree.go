package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxDepth bounds nesting so a hostile file cannot exhaust the stack.
const maxDepth = 64

// Doc is one parsed YAML document. Every node remembers its line in File;
// nodes added by Set or Default remember their origin instead.
type Doc struct {
	File   string
	root   *yaml.Node
	origin map[*yaml.Node]string // where a value not read from File came from (the document's own entries)
	shared *origins              // more of them, shared with its clones: read only
	set    map[string]bool       // paths Set wrote (overrides, not defaults)
	// owned, once the document shares its tree with a clone (Clone), are
	// the nodes it has made or copied since; any other node may be a
	// clone's too and is copied before it changes (writable). Nil while
	// the document shares nothing.
	owned map[*yaml.Node]bool
}

// origins is a layer of origin entries no document changes any more, over
// the layer under it.
type origins struct {
	m     map[*yaml.Node]string
	under *origins
}

// originOf is where the value at n came from, when not from File.
func (d *Doc) originOf(n *yaml.Node) (string, bool) {
	if o, ok := d.origin[n]; ok {
		return o, true
	}
	for l := d.shared; l != nil; l = l.under {
		if o, ok := l.m[n]; ok {
			return o, true
		}
	}
	return "", false
}

// originRoom is room for the nodes a chip's load adds to its document
// (its package's thermal network and governor, the defaults): the origin
// map grows to about this size.
const originRoom = 256

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse reads data as one YAML mapping. It rejects binary content, syntax
// errors, duplicate keys, anchors and aliases, and more than one document.
func Parse(file string, data []byte) (doc *Doc, err error) {
	if d := rememberedDoc(string(data)); d != nil {
		d.File = file
		return d, nil
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return nil, &Error{File: file, Msg: "not a YAML text file (binary content)"}
	}
	defer func() { // the YAML parser is third-party code: never let it take the process down
		if r := recover(); r != nil {
			doc, err = nil, &Error{File: file, Msg: fmt.Sprintf("unparsable YAML (%v)", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: file, Msg: "empty file: expected a YAML mapping of fields"}
		}
		return nil, syntaxError(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{File: file, Line: extra.Line, Column: extra.Column, Msg: "more than one YAML document; put one spec per file"}
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(file, err)
	}
	if len(n.Content) == 0 {
		return nil, &Error{File: file, Msg: "empty file: expected a YAML mapping of fields"}
	}
	root := n.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: root.Line, Column: root.Column, Msg: "expected a mapping of fields (key: value) at the top level, found " + kindName(root)}
	}
	d := &Doc{File: file, root: root, origin: make(map[*yaml.Node]string, originRoom), set: map[string]bool{}}
	if err := d.checkTree(root, "", 0); err != nil {
		return nil, err
	}
	rememberDoc(string(data), d)
	return d, nil
}

func syntaxError(file string, err error) error {
	msg := err.Error()
	line, problem := 0, strings.TrimPrefix(msg, "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		problem = m[2]
	}
	// yaml.v3 counts the lines of its parser's errors (not its scanner's)
	// from 0, and leaves out a line 0; its parser's problems are these.
	if parserProblem.MatchString(problem) {
		line++
	}
	return &Error{File: file, Line: line, Msg: "invalid YAML: " + problem}
}

// parserProblem matches the problems yaml.v3's parser (parserc.go) reports.
var parserProblem = regexp.MustCompile(`^(did not find expected|found duplicate %|found incompatible YAML|found undefined tag handle)`)

// checkTree enforces what the YAML parser lets through: duplicate keys,
// non-scalar keys, anchors/aliases, and absurd nesting.
func (d *Doc) checkTree(n *yaml.Node, path string, depth int) error {
	if depth > maxDepth {
		return d.errAt(n, path, fmt.Sprintf("nested more than %d levels deep", maxDepth))
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return d.errAt(n, path, "anchors and aliases (&, *) are not supported; write the value out")
	}
	// An explicit tag (!!python/object, !!binary, !local) asks a loader
	// to build something: a spec is plain data, so none is honoured.
	if n.Style&yaml.TaggedStyle != 0 || (n.Tag != "" && !strings.HasPrefix(n.Tag, "!!")) {
		return d.errAt(n, path, fmt.Sprintf("YAML tags such as %s are not supported: write the plain value (quote it to keep it text)", n.Tag))
	}
	switch n.ShortTag() {
	case "!!binary", "!!set", "!!omap", "!!pairs":
		return d.errAt(n, path, fmt.Sprintf("YAML tags such as %s are not supported: write the plain value", n.ShortTag()))
	}
	switch n.Kind {
	case yaml.MappingNode:
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return d.errAt(k, path, "a key must be a plain name, found "+kindName(k))
			}
			if k.Value == "<<" {
				return d.errAt(k, path, "merge keys (<<) are not supported; write the fields out")
			}
			p := join(path, k.Value)
			if first, dup := seen[k.Value]; dup {
				return d.errAt(k, p, fmt.Sprintf("duplicate key %q (first at line %d)", k.Value, first))
			}
			seen[k.Value] = k.Line
			if err := d.checkTree(v, p, depth+1); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		// Paths (--set, sources, errors) address entries by name, so two
		// entries of one name would make every such path ambiguous.
		named := map[string]int{}
		for i, e := range n.Content {
			name := entryName(e, i)
			if first, dup := named[name]; dup && mapValue(e, "name") != nil {
				return d.errAt(mapValue(e, "name"), join(path, name)+".name", fmt.Sprintf("duplicate entry name %q in %s (first at line %d): entries are addressed by name, so each needs its own", name, path, first))
			}
			named[name] = e.Line
			if err := d.checkTree(e, join(path, name), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// errAt builds an Error located at node n.
func (d *Doc) errAt(n *yaml.Node, path, msg string) *Error {
	if o, ok := d.originOf(n); ok {
		return originError(o, path, msg)
	}
	return &Error{File: d.File, Line: n.Line, Column: n.Column, Path: path, Msg: msg}
}

func join(path, seg string) string {
	if path == "" {
		return seg
	}
	return path + "." + seg
}

// entryName names a list entry in paths: by its `name` field when it has
// one, else by its index.
func entryName(n *yaml.Node, i int) string {
	if v := mapValue(n, "name"); v != nil && v.Kind == yaml.ScalarNode && v.Value != "" {
		return v.Value
	}
	return strconv.Itoa(i)
}

// mapValue returns the value node of key in mapping n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.ShortTag() == "!!null" {
		return "null"
	}
	return fmt.Sprintf("%q", n.Value)
}

// chainTo is the nodes from the root down to path's (nil when the
// document does not hold path).
func (d *Doc) chainTo(path string) []*yaml.Node {
	chain := []*yaml.Node{d.root}
	for rest, more := path, true; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, ".")
		n := child(chain[len(chain)-1], seg)
		if n == nil {
			return nil
		}
		chain = append(chain, n)
	}
	return chain
}

// lookup returns the node at a dotted path, or nil.
func (d *Doc) lookup(path string) *yaml.Node {
	n := d.root
	for rest, more := path, true; more && n != nil; {
		var seg string
		seg, rest, more = strings.Cut(rest, ".")
		n = child(n, seg)
	}
	return n
}

// child is the value of n named seg: a mapping's under key seg, a list's
// entry named seg (entryName); nil when n has none.
func child(n *yaml.Node, seg string) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		return mapValue(n, seg)
	case yaml.SequenceNode:
		for i, e := range n.Content {
			if entryName(e, i) == seg {
				return e
			}
		}
	}
	return nil
}

// KeyErrorf is Errorf located at the key named key of the mapping at path:
// for maps whose keys are themselves dotted paths, as a chip's sources.
func (d *Doc) KeyErrorf(path, key, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if n := d.lookup(path); n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return d.errAt(n.Content[i], path, msg)
			}
		}
	}
	return d.Errorf(path, "%s", msg)
}

// Has reports whether the document (after Set and Default) holds path.
func (d *Doc) Has(path string) bool { return d.lookup(path) != nil }

// Line returns the line of path in File, or 0 when the value did not come
// from the file.
func (d *Doc) Line(path string) int {
	n := d.lookup(path)
	if n == nil {
		return 0
	}
	if _, ok := d.originOf(n); ok {
		return 0
	}
	return n.Line
}

// Errorf returns an Error located at path, for checks made after decoding
// (a cache whose size is not ways × line × sets, an OPP table out of order).
func (d *Doc) Errorf(path, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if n := d.lookup(path); n != nil {
		return d.errAt(n, path, msg)
	}
	return &Error{File: d.File, Path: path, Msg: msg}
}

// Overridden reports whether path, or a section holding it, was written
// by Set (an override such as --set) rather than by the file or a default,
// so a check across two fields can blame the one the user changed.
func (d *Doc) Overridden(path string) bool {
	for p := path; p != ""; {
		if d.set[p] {
			return true
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return false
}

// Names returns the `name` of every entry of the list at path, in order.
func (d *Doc) Names(path string) []string {
	n := d.lookup(path)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var names []string
	for i, e := range n.Content {
		names = append(names, entryName(e, i))
	}
	return names
}

// Value returns the scalar text at path ("" when absent or not a scalar).
func (d *Doc) Value(path string) string {
	if n := d.lookup(path); n != nil && n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return ""
}
