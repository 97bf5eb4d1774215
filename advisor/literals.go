package advisor

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr/ast"

	"github.com/edgetwin/edgetwin/hw/units"
)

// literalKinds are the quantity kinds a number with a unit may be, in the
// order they are tried (a symbol belongs to one kind, so the order only
// decides the message of a symbol no kind takes).
var literalKinds = []units.Kind{
	units.KindDuration, units.KindBytes, units.KindByteRate, units.KindFrequency, units.KindOpRate,
	units.KindPower, units.KindEnergy, units.KindTemperature, units.KindThermalResistance,
	units.KindHeatCapacity, units.KindTransferRate, units.KindVoltage, units.KindFraction,
}

// literal is a number with a unit that withUnits rewrote: where its
// plain number starts in the rewritten text (in runes, as expr's node
// locations count), what was written and its kind.
type literal struct {
	at   int
	text string
	kind units.Kind
}

// withUnits rewrites the numbers with a unit in an expression (500ms,
// 8GiB, 45C, 50%) as plain numbers in the SI base unit the result's keys
// use (0.5, 8589934592, 45, 0.5), so that 'ttft_s < 500ms' reads as
// 'ttft_s < 0.5', and lists them. A number followed by a symbol no
// quantity takes is an error naming it; text inside string literals is
// left alone.
func withUnits(text string) (string, []literal, error) {
	var b strings.Builder
	var lits []literal
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(text) && text[j] != c {
				if text[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			j = min(j+1, len(text))
			b.WriteString(text[i:j])
			i = j
		case isDigit(c) && (i == 0 || !isNameByte(text[i-1])):
			num := scanNumber(text[i:])
			sym := scanSymbol(text[i+num:])
			if sym == "" {
				b.WriteString(text[i : i+num])
				i += num
				continue
			}
			lit := text[i : i+num+len(sym)]
			v, k, err := parseLiteral(lit, sym)
			if err != nil {
				return "", nil, err
			}
			lits = append(lits, literal{at: utf8.RuneCountInString(b.String()), text: lit, kind: k})
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			i += len(lit)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), lits, nil
}

// parseLiteral reads lit, a number and the unit symbol sym, as the first
// quantity kind that takes it.
func parseLiteral(lit, sym string) (float64, units.Kind, error) {
	for _, k := range literalKinds {
		if v, err := units.Parse(lit, k); err == nil {
			return v, k, nil
		}
	}
	return 0, 0, fmt.Errorf("%s: unit %q is not one a quantity takes (durations 500ms, sizes 8GiB, bandwidths 68GB/s, clocks 1.2GHz, power 5W, energy 2mJ, temperatures 45C, fractions 50%%)", lit, sym)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isNameByte reports whether c may be part of a name or a number, so that
// a digit after it (p99, x2, 1.5) does not start a literal.
func isNameByte(c byte) bool {
	return c == '_' || c == '.' || isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// scanNumber is the length of the decimal number at the start of s:
// digits, a fraction, an exponent.
func scanNumber(s string) int {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '.' && i+1 < len(s) && isDigit(s[i+1]) {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	return i
}

// scanSymbol is the unit symbol at the start of s: a letter, µ, ° or %,
// then letters, digits and slashes (GB/s, K/W, 1h30m's h30m); "" if none.
func scanSymbol(s string) string {
	start := func(r rune) bool {
		return r == 'µ' || r == '°' || r == '%' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	body := func(r rune) bool { return start(r) || r == '/' || '0' <= r && r <= '9' }
	n := 0
	for i, r := range s {
		if (i == 0 && !start(r)) || (i > 0 && !body(r)) {
			break
		}
		n = i + len(string(r))
		if r == '%' {
			break
		}
	}
	return s[:n]
}

// checkDimensions holds every comparison of a name with a number that had
// a unit to the name's dimension: 'ttft_s < 5GB' compares a duration with a
// size. kindOf gives a name's dimension (0 for plain numbers and rates,
// which take a percentage).
func checkDimensions(root ast.Node, lits []literal, kindOf func(string) units.Kind) error {
	if len(lits) == 0 {
		return nil
	}
	at := map[int]literal{}
	for _, l := range lits {
		at[l.at] = l
	}
	var err error
	ast.Walk(&root, visitFunc(func(n *ast.Node) {
		b, ok := (*n).(*ast.BinaryNode)
		if !ok || err != nil || !slices.Contains([]string{"<", "<=", ">", ">=", "==", "!="}, b.Operator) {
			return
		}
		for _, side := range [][2]ast.Node{{b.Left, b.Right}, {b.Right, b.Left}} {
			l, ok := at[side[1].Location().From]
			if !ok {
				continue
			}
			switch side[1].(type) {
			case *ast.FloatNode, *ast.IntegerNode:
			default:
				continue
			}
			name, ok := refPath(side[0])
			if !ok {
				continue
			}
			k := kindOf(name)
			if k == l.kind || k == 0 && l.kind == units.KindFraction {
				continue
			}
			what := "a plain number"
			if k != 0 {
				what = k.WithArticle()
			}
			err = fmt.Errorf("%s is %s, %s %s", name, what, l.text, l.kind.WithArticle())
		}
	}))
	return err
}

// visitFunc makes a function an ast.Visitor.
type visitFunc func(*ast.Node)

func (f visitFunc) Visit(n *ast.Node) { f(n) }

// checkDivisions refuses a division by a literal zero ('ttft_s / 0'),
// which no figure can make finite.
func checkDivisions(root ast.Node) error {
	var err error
	ast.Walk(&root, visitFunc(func(n *ast.Node) {
		b, ok := (*n).(*ast.BinaryNode)
		if !ok || err != nil || (b.Operator != "/" && b.Operator != "%") {
			return
		}
		switch r := b.Right.(type) {
		case *ast.IntegerNode:
			if r.Value == 0 {
				err = errors.New("divides by zero")
			}
		case *ast.FloatNode:
			if r.Value == 0 {
				err = errors.New("divides by zero")
			}
		}
	}))
	return err
}
