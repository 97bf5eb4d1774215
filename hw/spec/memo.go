package spec

import (
	"maps"
	"slices"
	"sync"

	"go.yaml.in/yaml/v3"
)

// A sweep loads the same chip file, with the same defaults and a different
// --set, once per point: most of a load was the YAML parser reading text it
// had read before. The documents parsed from file contents and the trees
// of value texts are kept (both are bounded by what the process was given:
// the catalog, the user's files and flags). Every use of a value gets its
// own deep copy; every parse of a file a clone of its document (Clone),
// which shares the tree until it writes, so editing one never shows in
// another.
var memo = struct {
	sync.Mutex
	files  map[string]*Doc       // file content → its document, never written
	values map[string]*yaml.Node // value text → its node
	// clean are the value texts whose trees passed checkTree: whether a
	// tree passes does not depend on where it goes (only the message does).
	clean map[string]bool
}{files: map[string]*Doc{}, values: map[string]*yaml.Node{}, clean: map[string]bool{}}

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

// rememberedDoc is a clone of the document kept for a file's content, if
// any.
func rememberedDoc(data string) *Doc {
	memo.Lock()
	d := memo.files[data]
	memo.Unlock()
	if d == nil {
		return nil
	}
	return d.Clone() // d is never written: cloning it changes nothing in it
}

// rememberDoc keeps a clone of d, just parsed from data.
func rememberDoc(data string, d *Doc) {
	c := d.Clone()
	memo.Lock()
	if len(memo.files) < memoLimit {
		memo.files[data] = c
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

// Clone is a copy of the document: its tree, where each of its values
// came from, and the paths Set wrote. Editing one never shows in the
// other. The two share the tree until either writes: a write copies the
// nodes from the root down to where it writes (writable), so a copy costs
// what its edits touch, not the size of the document.
func (d *Doc) Clone() *Doc {
	d.share()
	return &Doc{File: d.File, root: d.root, origin: map[*yaml.Node]string{}, shared: d.shared, set: maps.Clone(d.set), owned: map[*yaml.Node]bool{}}
}

// share makes what the document holds shareable: its origin entries
// become a layer of their own, and none of its nodes is its own any more.
// A document shared already and not written since is left as it is, so
// that clones may be taken of it at once.
func (d *Doc) share() {
	if len(d.origin) > 0 {
		d.shared = &origins{m: d.origin, under: d.shared}
		d.origin = map[*yaml.Node]string{}
	}
	if d.owned == nil || len(d.owned) > 0 {
		d.owned = map[*yaml.Node]bool{}
	}
}

// writable makes each node of chain (the root first, then each node's
// child on the way to where a write goes) one the document may change,
// copying those a clone may share, and returns the last.
func (d *Doc) writable(chain []*yaml.Node) *yaml.Node {
	if d.owned == nil {
		return chain[len(chain)-1]
	}
	var parent *yaml.Node
	for k, n := range chain {
		if !d.owned[n] {
			c := new(yaml.Node)
			*c = *n
			c.Content = slices.Clone(n.Content)
			if o, ok := d.originOf(n); ok {
				d.origin[c] = o
			}
			d.owned[c] = true
			if parent == nil {
				d.root = c
			} else {
				parent.Content[slices.Index(parent.Content, n)] = c
			}
			chain[k] = c
		}
		parent = chain[k]
	}
	return parent
}

// IsScalar reports whether value (YAML text, as Set takes it) is one
// value rather than a mapping or a list: writing it where a scalar is adds
// no field and takes none away.
func IsScalar(value string) bool {
	n, ok := parseValue(value)
	return ok && n.Kind == yaml.ScalarNode
}
