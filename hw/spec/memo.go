package spec

import (
	"maps"
	"sync"

	"go.yaml.in/yaml/v3"
)

// A sweep loads the same chip file, with the same defaults and a different
// --set, once per point: most of a load was the YAML parser reading text it
// had read before. The parsed trees of file contents and of value texts are
// kept (both are bounded by what the process was given: the catalog, the
// user's files and flags) and every use gets its own deep copy, so no two
// documents share a node and editing one never shows in another.
var memo = struct {
	sync.Mutex
	files  map[string]*yaml.Node // file content → its document's root mapping
	values map[string]*yaml.Node // value text → its node
	// clean are the value texts whose trees passed checkTree: whether a
	// tree passes does not depend on where it goes (only the message does).
	clean map[string]bool
}{files: map[string]*yaml.Node{}, values: map[string]*yaml.Node{}, clean: map[string]bool{}}

// memoLimit bounds each memo; past it, texts are parsed every time.
const memoLimit = 4096

// remembered returns a copy of the tree kept for text in m, if any.
func remembered(m map[string]*yaml.Node, text string) *yaml.Node {
	memo.Lock()
	n := m[text]
	memo.Unlock()
	if n == nil {
		return nil
	}
	return copyNode(n)
}

// remember keeps a copy of the tree parsed from text in m.
func remember(m map[string]*yaml.Node, text string, n *yaml.Node) {
	c := copyNode(n)
	memo.Lock()
	if len(m) < memoLimit {
		m[text] = c
	}
	memo.Unlock()
}

// parseValue parses value (YAML text) into its node, as Set, Default and
// Append take it.
func parseValue(value string) (*yaml.Node, bool) {
	if n := remembered(memo.values, value); n != nil {
		return n, true
	}
	var vdoc yaml.Node
	if err := yaml.Unmarshal([]byte(value), &vdoc); err != nil || len(vdoc.Content) == 0 {
		return nil, false
	}
	remember(memo.values, value, vdoc.Content[0])
	return vdoc.Content[0], true
}

// checkValue is checkTree of the tree parsed from value, for a value put
// at path: once a text's tree passes, it is not walked again.
func (d *Doc) checkValue(value string, n *yaml.Node, path string) error {
	memo.Lock()
	clean := memo.clean[value]
	memo.Unlock()
	if clean {
		return nil
	}
	if err := d.checkTree(n, path, 0); err != nil {
		return err
	}
	memo.Lock()
	if len(memo.clean) < memoLimit {
		memo.clean[value] = true
	}
	memo.Unlock()
	return nil
}

// copyNode is a deep copy of the tree at n (parsed trees have no aliases:
// Parse refuses them, so the tree is a tree). The copy's nodes, and its
// mappings' and lists' entries, are carved from one allocation each; an
// append to a copied node's Content moves it out (its capacity is its
// length).
func copyNode(n *yaml.Node) *yaml.Node {
	nodes, links := treeSize(n)
	c := copier{nodes: make([]yaml.Node, 0, nodes), links: make([]*yaml.Node, 0, links)}
	return c.copy(n)
}

// treeSize counts the nodes of the tree at n and the entries of their
// Content.
func treeSize(n *yaml.Node) (nodes, links int) {
	nodes, links = 1, len(n.Content)
	for _, k := range n.Content {
		a, b := treeSize(k)
		nodes, links = nodes+a, links+b
	}
	return nodes, links
}

type copier struct {
	nodes []yaml.Node
	links []*yaml.Node
}

func (c *copier) copy(n *yaml.Node) *yaml.Node {
	c.nodes = append(c.nodes, *n)
	out := &c.nodes[len(c.nodes)-1]
	if n.Content != nil {
		lo := len(c.links)
		c.links = append(c.links, n.Content...)
		out.Content = c.links[lo:len(c.links):len(c.links)]
		for i, k := range n.Content {
			out.Content[i] = c.copy(k)
		}
	}
	return out
}

// Clone is a deep copy of the document: its tree (no node shared), where
// each of its values came from, and the paths Set wrote. Editing one
// never shows in the other.
func (d *Doc) Clone() *Doc {
	c := &Doc{File: d.File, root: copyNode(d.root), origin: make(map[*yaml.Node]string, max(len(d.origin), originRoom)), set: maps.Clone(d.set)}
	c.takeOrigins(d, d.root, c.root)
	return c
}

// takeOrigins gives each node of the tree at to, a copy of the tree at
// from, the origin d gives its original.
func (d *Doc) takeOrigins(src *Doc, from, to *yaml.Node) {
	if o, ok := src.origin[from]; ok {
		d.origin[to] = o
	}
	for i, k := range from.Content {
		d.takeOrigins(src, k, to.Content[i])
	}
}

// IsScalar reports whether value (YAML text, as Set takes it) is one
// value rather than a mapping or a list: writing it where a scalar is adds
// no field and takes none away.
func IsScalar(value string) bool {
	n, ok := parseValue(value)
	return ok && n.Kind == yaml.ScalarNode
}
