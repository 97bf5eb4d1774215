package spec

import (
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
}{files: map[string]*yaml.Node{}, values: map[string]*yaml.Node{}}

// memoLimit bounds each memo; past it, texts are parsed every time.
const memoLimit = 4096

// remembered returns a copy of the tree kept for text in m, if any.
func remembered(m map[string]*yaml.Node, text []byte) *yaml.Node {
	memo.Lock()
	n := m[string(text)]
	memo.Unlock()
	if n == nil {
		return nil
	}
	return copyNode(n)
}

// remember keeps a copy of the tree parsed from text in m.
func remember(m map[string]*yaml.Node, text []byte, n *yaml.Node) {
	c := copyNode(n)
	memo.Lock()
	if len(m) < memoLimit {
		m[string(text)] = c
	}
	memo.Unlock()
}

// parseValue parses value (YAML text) into its node, as Set, Default and
// Append take it.
func parseValue(value string) (*yaml.Node, bool) {
	if n := remembered(memo.values, []byte(value)); n != nil {
		return n, true
	}
	var vdoc yaml.Node
	if err := yaml.Unmarshal([]byte(value), &vdoc); err != nil || len(vdoc.Content) == 0 {
		return nil, false
	}
	remember(memo.values, []byte(value), vdoc.Content[0])
	return vdoc.Content[0], true
}

// copyNode is a deep copy of the tree at n (parsed trees have no aliases:
// Parse refuses them, so the tree is a tree).
func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, k := range n.Content {
			c.Content[i] = copyNode(k)
		}
	}
	return &c
}
