package advisor

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/suggest"
	"github.com/edgetwin/edgetwin/sim"
)

// Env is the typed example environment expressions compile against: the
// result's keys, and the union of the candidates' specs under chip.
type Env struct {
	example map[string]any
	known   map[string]bool // every leaf and inner path
	leaves  []string
	kinds   map[string]units.Kind // quantity kinds of chip paths
	// names says, in an unknown name's message, what the names are; ""
	// for advise's (the result's keys and chip.).
	names string
}

// newEnv builds the example environment from the result's keys and the
// candidates' spec trees.
func newEnv(specs []map[string]any, kinds map[string]units.Kind) *Env {
	example := resultTemplate()
	chip := map[string]any{}
	for _, s := range specs {
		merge(chip, s)
	}
	// Every field of the schema is a name, even one no candidate gives
	// (a price): a chip without it fails a requirement on it, saying so.
	if schema, ok := encodeSpec(reflect.ValueOf(hw.SoC{}), chipKey, kinds).(map[string]any); ok {
		delete(schema, "sources")
		merge(chip, schema)
	}
	typed(chip)
	example[chipKey] = chip
	e := &Env{example: example, known: map[string]bool{}, kinds: kinds}
	leaves, inner := paths(example)
	for _, p := range append(slices.Clone(leaves), inner...) {
		e.known[p] = true
	}
	e.leaves = leaves
	return e
}

// Known reports whether path names a key of the environment.
func (e *Env) Known(path string) bool { return e.known[path] }

// Kind is the quantity kind of a chip path (chip.memory.dram.bandwidth),
// 0 for other paths and plain numbers.
func (e *Env) Kind(path string) units.Kind { return e.kinds[path] }

// keyKind is the dimension of a name: a chip path's from its spec field,
// a result key's from the key space (sim.KeyKind).
func (e *Env) keyKind(name string) units.Kind {
	if strings.HasPrefix(name, chipKey+".") {
		return e.kinds[name]
	}
	return sim.KeyKind(name)
}

// Expr is a compiled expression.
type Expr struct {
	Field string // the setting that gave it: require, minimize, maximize, pareto
	Text  string // as given
	prog  *vm.Program
	// Refs are the environment paths it reads (decode.tokens_per_s,
	// chip.price_usd), sorted.
	Refs []string
}

// Requirement is a --require expression and its top-level && clauses,
// each checked on its own so that a table can show which one fails and by
// how much.
type Requirement struct {
	Expr
	Clauses []Clause
}

// Clause is one top-level && operand of a requirement. A comparison
// (<, <=, >, >=) has a margin: how far the value is on the passing side.
type Clause struct {
	Text        string // as the parser prints it
	Op          string // the comparison, or ""
	prog        *vm.Program
	left, right *vm.Program // the compared sides, when both are numbers
	// Key is the path the margin is measured in: the first path read by
	// the left side, else by the right.
	Key  string
	Refs []string
}

// compileExpr parses text, checks every name it reads against the
// environment (so a misspelt metric is an error, not a silent false), and
// compiles it with the expected result type.
func (e *Env) compileExpr(field, text string, want expr.Option) (*Expr, ast.Node, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil, spec.FieldErrorf(field, "is empty: give an expression such as 'ttft_s < 0.5'")
	}
	plain, lits, err := withUnits(text)
	if err != nil {
		return nil, nil, spec.FieldErrorf(field, "%q: %v", text, err)
	}
	tree, err := parser.Parse(plain)
	if err != nil {
		return nil, nil, spec.FieldErrorf(field, "%q: syntax error%s", text, exprMessage(err))
	}
	if err := errors.Join(checkDimensions(tree.Node, lits, e.keyKind), checkDivisions(tree.Node)); err != nil {
		return nil, nil, spec.FieldErrorf(field, "%q: %v", text, err)
	}
	refs := references(tree.Node)
	for _, r := range refs {
		if !e.known[r] {
			return nil, nil, e.unknownName(field, text, r)
		}
	}
	prog, err := expr.Compile(plain, expr.Env(e.example), want)
	if err != nil {
		msg := exprMessage(err)
		switch {
		case strings.Contains(msg, "expected bool, but got"):
			return nil, nil, spec.FieldErrorf(field, "%q is %s, not a condition: compare it, e.g. %s < 0.5", text, gotWhat(msg), text)
		case strings.Contains(msg, "expected float64, but got"):
			return nil, nil, spec.FieldErrorf(field, "%q is %s, not a number: give a metric or a formula such as decode.tokens_per_s / chip.price_usd", text, gotWhat(msg))
		}
		return nil, nil, spec.FieldErrorf(field, "%q%s", text, msg)
	}
	return &Expr{Field: field, Text: text, prog: prog, Refs: refs}, tree.Node, nil
}

// gotWhat reads the type an "expected X, but got Y" message names.
func gotWhat(msg string) string {
	_, got, _ := strings.Cut(msg, "but got ")
	got = strings.Fields(got + " ")[0]
	switch {
	case strings.HasPrefix(got, "float"), strings.HasPrefix(got, "int"):
		return "a number"
	case got == "bool":
		return "a condition"
	case got == "string":
		return "a name"
	}
	return "a " + got
}

// exprMessage turns an expr error into one line: ": message at column N".
func exprMessage(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		if fe.Column >= 0 && fe.Snippet != "" {
			return fmt.Sprintf(" at column %d: %s", fe.Column+1, fe.Message)
		}
		return ": " + fe.Message
	}
	return ": " + strings.Join(strings.Fields(err.Error()), " ")
}

// unknownName is the error for a path the environment lacks, with the
// closest known names.
func (e *Env) unknownName(field, text, name string) error {
	near := suggest.Closest(name, e.leaves, 3)
	hint := ""
	if len(near) > 0 {
		hint = "; did you mean " + strings.Join(near, ", ") + "?"
	}
	names := e.names
	if names == "" {
		names = "the keys of the simulate result, as its JSON prints them, and the chip's spec under chip., e.g. chip.price_usd, chip.memory.dram.bandwidth"
	}
	return spec.FieldErrorf(field, "%q: unknown name %s%s (names are %s)", text, name, hint, names)
}

// references lists the environment paths an expression reads: identifiers
// and member chains with constant names (decode.tokens_per_s,
// chip.units["npu"].peak.int8), leaving out variables it declares, the
// functions it calls, and paths that only lead to a longer one it reads.
func references(root ast.Node) []string {
	c := &collector{declared: map[string]bool{}, callees: map[ast.Node]bool{}}
	ast.Walk(&root, declVisitor{c})
	ast.Walk(&root, c)
	var out []string
	for _, r := range c.refs {
		longer := slices.ContainsFunc(c.refs, func(o string) bool { return strings.HasPrefix(o, r+".") })
		if !longer && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

type collector struct {
	declared map[string]bool
	callees  map[ast.Node]bool
	refs     []string
}

type declVisitor struct{ c *collector }

func (d declVisitor) Visit(n *ast.Node) {
	switch t := (*n).(type) {
	case *ast.VariableDeclaratorNode:
		d.c.declared[t.Name] = true
	case *ast.CallNode:
		d.c.callees[t.Callee] = true
	}
}

func (c *collector) Visit(n *ast.Node) {
	if c.callees[*n] {
		return
	}
	p, ok := refPath(*n)
	if !ok {
		return
	}
	root, _, _ := strings.Cut(p, ".")
	if c.declared[root] || strings.HasPrefix(root, "$") {
		return
	}
	c.refs = append(c.refs, p)
}

// refPath is the dotted path a node reads, when it is an identifier or a
// member chain with constant names rooted at one.
func refPath(n ast.Node) (string, bool) {
	switch t := n.(type) {
	case *ast.IdentifierNode:
		return t.Value, true
	case *ast.ChainNode:
		return refPath(t.Node)
	case *ast.MemberNode:
		if t.Method {
			return "", false
		}
		base, ok := refPath(t.Node)
		if !ok {
			return "", false
		}
		s, ok := t.Property.(*ast.StringNode)
		if !ok {
			return "", false
		}
		return base + "." + s.Value, true
	}
	return "", false
}

// compileRequirement compiles a --require expression and its clauses.
func (e *Env) compileRequirement(text string) (*Requirement, error) {
	x, root, err := e.compileExpr("require", text, expr.AsBool())
	if err != nil {
		return nil, err
	}
	req := &Requirement{Expr: *x}
	parts := splitAnd(root)
	if len(parts) == 1 {
		c := Clause{Text: text, prog: x.prog, Refs: x.Refs}
		e.comparison(&c, root)
		req.Clauses = []Clause{c}
		return req, nil
	}
	for _, p := range parts {
		t := p.String()
		prog, err := expr.Compile(t, expr.Env(e.example), expr.AsBool())
		if err != nil {
			// A clause that does not stand alone: check the whole.
			c := Clause{Text: text, prog: x.prog, Refs: x.Refs}
			req.Clauses = []Clause{c}
			return req, nil
		}
		c := Clause{Text: t, prog: prog, Refs: references(p)}
		e.comparison(&c, p)
		req.Clauses = append(req.Clauses, c)
	}
	return req, nil
}

// splitAnd lists the operands of a chain of && (or "and").
func splitAnd(n ast.Node) []ast.Node {
	if b, ok := n.(*ast.BinaryNode); ok && (b.Operator == "&&" || b.Operator == "and") {
		return append(splitAnd(b.Left), splitAnd(b.Right)...)
	}
	return []ast.Node{n}
}

// comparison fills the clause's margin programs when it compares two
// numbers.
func (e *Env) comparison(c *Clause, n ast.Node) {
	b, ok := n.(*ast.BinaryNode)
	if !ok {
		return
	}
	switch b.Operator {
	case "<", "<=", ">", ">=":
	default:
		return
	}
	left, err1 := expr.Compile(b.Left.String(), expr.Env(e.example), expr.AsFloat64())
	right, err2 := expr.Compile(b.Right.String(), expr.Env(e.example), expr.AsFloat64())
	if err1 != nil || err2 != nil {
		return
	}
	c.Op, c.left, c.right = b.Operator, left, right
	if r := references(b.Left); len(r) > 0 {
		c.Key = r[0]
	} else if r := references(b.Right); len(r) > 0 {
		c.Key = r[0]
	}
}

// compileObjective compiles a --minimize or --maximize expression.
func (e *Env) compileObjective(field, text string) (*Expr, error) {
	x, _, err := e.compileExpr(field, text, expr.AsFloat64())
	return x, err
}

// nulls lists the paths of refs that are null or missing in env.
func nulls(refs []string, env map[string]any) []string {
	var out []string
	for _, r := range refs {
		if v, ok := lookup(env, r); !ok || v == nil {
			out = append(out, r)
		}
	}
	return out
}

// runBool evaluates a compiled condition.
func runBool(p *vm.Program, env map[string]any) (bool, error) {
	v, err := expr.Run(p, env)
	if err != nil {
		return false, errors.New(strings.Join(strings.Fields(err.Error()), " "))
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("gave %v, not a condition", v)
	}
	return b, nil
}

// runFloat evaluates a compiled number; NaN and infinities are errors.
func runFloat(p *vm.Program, env map[string]any) (float64, error) {
	v, err := expr.Run(p, env)
	if err != nil {
		return 0, errors.New(strings.Join(strings.Fields(err.Error()), " "))
	}
	f, ok := v.(float64)
	if !ok {
		return 0, fmt.Errorf("gave %v, not a number", v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("gave %v", f)
	}
	return f, nil
}
