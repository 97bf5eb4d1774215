package sweep

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
)

// Axis is one --vary flag: a field and the values it takes, in order, in
// SI base units. A field of names (quant, model, runtime) takes Choices,
// and its Values are their indices.
type Axis struct {
	Field   string     // kv, ctx, quant, model, runtime, or a --set path
	Kind    units.Kind // of the values; 0 for plain numbers
	Values  []float64
	Choices []string
}

// Pseudo-fields of --vary; everything else is a --set path.
const (
	FieldKV  = "kv"  // the KV-cache size at the start of decode; sets the prompt
	FieldCtx = "ctx" // the prompt (context) length in tokens
)

// ChoiceFields are the --vary fields that take names rather than numbers,
// each one of simulate's flags: the weight format, the model and the
// runtime (catalog ids or files). A point sets the flag to its choice.
var ChoiceFields = []string{"quant", "model", "runtime"}

// IsChoiceField reports whether --vary field takes names (ChoiceFields).
func IsChoiceField(field string) bool { return slices.Contains(ChoiceFields, field) }

// MaxPoints bounds a sweep: more points than this is a typo in a step
// more often than a plan.
const MaxPoints = 10000

const varyForms = "(forms: FIELD=a..b:step, FIELD=a..b:xN with N above 1, or FIELD=a,b,c; e.g. kv=1MiB..16MiB:1MiB, ctx=128..4096:x2, memory.l3.size=3MiB,6MiB,12MiB, quant=Q4_0,Q8_0)"

// ParseVaries reads every --vary flag and checks that they go together,
// as a grid of at most MaxPoints points.
func ParseVaries(flags []string) ([]Axis, error) {
	return parseAxes(flags, true)
}

// ParseSpace reads every --vary flag as the axes of a space to sample
// (see Sample): each axis is bounded, their product is not.
func ParseSpace(flags []string) ([]Axis, error) {
	return parseAxes(flags, false)
}

func parseAxes(flags []string, grid bool) ([]Axis, error) {
	if len(flags) == 0 {
		return nil, spec.FieldErrorf("vary", "is required %s", varyForms)
	}
	var axes []Axis
	seen := map[string]bool{}
	total := 1
	for _, s := range flags {
		a, err := ParseVary(s)
		if err != nil {
			return nil, err
		}
		switch {
		case seen[a.Field]:
			return nil, spec.FieldErrorf("vary", "%s is given twice; give one range (a list a,b,c takes any values)", a.Field)
		case a.Field == FieldKV && seen[FieldCtx], a.Field == FieldCtx && seen[FieldKV]:
			return nil, spec.FieldErrorf("vary", "kv and ctx both set the context length; vary one of them")
		}
		seen[a.Field] = true
		if total = min(total*len(a.Values), MaxPoints+1); grid && total > MaxPoints {
			return nil, spec.FieldErrorf("vary", ": the ranges give more than %d points together; use coarser steps or fewer fields, or sample the space (sample lhs:N)", MaxPoints)
		}
		axes = append(axes, a)
	}
	return axes, nil
}

// ParseVary reads one --vary FIELD=RANGE.
func ParseVary(s string) (Axis, error) {
	field, text, ok := strings.Cut(s, "=")
	field, text = strings.TrimSpace(field), strings.TrimSpace(text)
	if !ok || field == "" || text == "" {
		return Axis{}, spec.FieldErrorf("vary", "%q is not FIELD=RANGE %s", s, varyForms)
	}
	if IsChoiceField(field) {
		return choiceAxis(field, text)
	}
	read := readQuantity
	switch field {
	case FieldKV:
		read = func(t string) (float64, units.Kind, error) {
			v, err := units.Parse(t, units.KindBytes)
			return v, units.KindBytes, err
		}
	case FieldCtx:
		read = readTokens
	}
	values, kind, err := parseRange(text, read)
	if err != nil {
		return Axis{}, spec.FieldErrorf("vary", "%s=%s: %v %s", field, text, err, varyForms)
	}
	if field == FieldCtx {
		values = wholeTokens(values)
	}
	return Axis{Field: field, Kind: kind, Values: values}, nil
}

// parseRange reads a..b:step, a..b:xN or a,b,c with read, which parses
// one value and names its kind (0 for a plain number).
func parseRange(text string, read func(string) (float64, units.Kind, error)) ([]float64, units.Kind, error) {
	from, rest, isRange := strings.Cut(text, "..")
	if !isRange {
		var values []float64
		var kinds []units.Kind
		for _, t := range strings.Split(text, ",") {
			v, k, err := read(t)
			if err != nil {
				return nil, 0, err
			}
			values, kinds = append(values, v), append(kinds, k)
		}
		if len(values) > MaxPoints {
			return nil, 0, fmt.Errorf("%d values; at most %d", len(values), MaxPoints)
		}
		kind, err := sameKind(kinds...)
		return values, kind, err
	}
	to, step, hasStep := strings.Cut(rest, ":")
	if !hasStep {
		return nil, 0, errors.New("a range needs a step")
	}
	a, ka, err := read(from)
	if err != nil {
		return nil, 0, err
	}
	b, kb, err := read(to)
	if err != nil {
		return nil, 0, err
	}
	if b < a {
		return nil, 0, errors.New("the range runs backwards: b must be at least a (a list a,b,c takes any order)")
	}
	if factor, ok := strings.CutPrefix(strings.TrimSpace(step), "x"); ok {
		n, err := strconv.ParseFloat(factor, 64)
		switch {
		case err != nil || !plainNumber.MatchString(factor):
			return nil, 0, fmt.Errorf("x%s: the factor must be a plain number", factor)
		case n <= 1:
			return nil, 0, fmt.Errorf("x%s: the factor must be above 1", factor)
		case a <= 0:
			return nil, 0, errors.New("a multiplicative range must start above 0")
		}
		kind, err := sameKind(ka, kb)
		if err != nil {
			return nil, 0, err
		}
		values, err := geometric(a, b, n)
		return values, kind, err
	}
	d, kd, err := read(step)
	if err != nil {
		return nil, 0, err
	}
	if d <= 0 {
		return nil, 0, errors.New("the step must be above 0")
	}
	kind, err := sameKind(ka, kb, kd)
	if err != nil {
		return nil, 0, err
	}
	values, err := arithmetic(a, b, d)
	return values, kind, err
}

// tolerance is how close, relative to b, the last point of a range must
// come to b to count as b: float steps drift (0.1 added ten times is not 1).
const tolerance = 1e-9

// arithmetic lists a, a+step, … up to b.
func arithmetic(a, b, step float64) ([]float64, error) {
	steps := math.Floor((b-a)/step + tolerance*math.Max(1, (b-a)/step))
	if steps+1 > MaxPoints {
		return nil, fmt.Errorf("more than %d points; use a larger step or xN", MaxPoints)
	}
	values := make([]float64, int(steps)+1)
	for i := range values {
		values[i] = tidy(a + float64(i)*step)
	}
	snap(values, b)
	return values, nil
}

// geometric lists a, a×n, a×n², … up to b.
func geometric(a, b, n float64) ([]float64, error) {
	var values []float64
	for i := 0; ; i++ {
		v := tidy(a * math.Pow(n, float64(i)))
		if v > b*(1+tolerance) {
			break
		}
		if len(values) == MaxPoints {
			return nil, fmt.Errorf("more than %d points; use a larger factor", MaxPoints)
		}
		values = append(values, v)
	}
	snap(values, b)
	return values, nil
}

// tidy rounds away float drift below the 15th significant digit, so that
// 0.1×3 is 0.3 and a --set value prints short.
func tidy(v float64) float64 {
	t, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	return t
}

// snap makes the last value b when it is b up to the tolerance.
func snap(values []float64, b float64) {
	last := &values[len(values)-1]
	if math.Abs(*last-b) <= tolerance*math.Abs(b) {
		*last = b
	}
}

// sameKind returns the kind of a range's values: the one kind among
// them, or 0 when all are plain numbers (a plain number among quantities
// is in the base unit, as everywhere).
func sameKind(kinds ...units.Kind) (units.Kind, error) {
	var k units.Kind
	for _, x := range kinds {
		switch {
		case x == 0:
		case k == 0:
			k = x
		case x != k:
			return 0, fmt.Errorf("the values mix units: %s and %s", k, x)
		}
	}
	return k, nil
}

var plainNumber = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

// readQuantity reads a value of a --set field: a plain number, or a
// quantity whose unit names its kind.
func readQuantity(t string) (float64, units.Kind, error) {
	t = strings.TrimSpace(t)
	if plainNumber.MatchString(t) {
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsInf(v, 0) {
			return 0, 0, fmt.Errorf("%q is out of range", t)
		}
		return v, 0, nil
	}
	for k := units.KindBytes; k <= units.KindFraction; k++ {
		if v, err := units.Parse(t, k); err == nil {
			return v, k, nil
		}
	}
	// The unit is known but the value is not allowed (0 GB/s): say so in
	// the words of its kind.
	sym := strings.TrimLeft(t, "+-0123456789.eE ")
	for k := units.KindBytes; k <= units.KindFraction; k++ {
		if _, err := units.Parse("1 "+sym, k); err == nil {
			_, err := units.Parse(t, k)
			return 0, 0, err
		}
	}
	return 0, 0, fmt.Errorf("%q is not a number or a quantity with a unit (such as 6MiB or 40GB/s)", t)
}

// readTokens reads a context length: a whole number of tokens, 0 or more.
func readTokens(t string) (float64, units.Kind, error) {
	t = strings.TrimSpace(t)
	n, err := strconv.Atoi(t)
	if err != nil || n < 0 {
		return 0, 0, fmt.Errorf("%q is not a context length: use a whole number of tokens such as 512", t)
	}
	return float64(n), 0, nil
}

// wholeTokens rounds a context range (xN makes fractions) and drops the
// repeats rounding makes.
func wholeTokens(values []float64) []float64 {
	var out []float64
	for _, v := range values {
		v = math.Round(v)
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

// formatValue writes a value back as --set reads it, exactly.
func formatValue(v float64, k units.Kind) string {
	if k == 0 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return units.Format(v, k)
}

// choiceAxis reads a list of names for a field of names: each given once,
// none empty (a model or runtime may be a file, ../x.yaml). Whether a
// name exists (a weight format, a catalog id or a file) is the run's to
// say, as the flag's would be.
func choiceAxis(field, text string) (Axis, error) {
	if field == "quant" && strings.Contains(text, "..") {
		return Axis{}, spec.FieldErrorf("vary", "%s=%s: quant takes a list of names, a,b,c, not a range", field, text)
	}
	a := Axis{Field: field}
	for _, t := range strings.Split(text, ",") {
		t = strings.TrimSpace(t)
		switch {
		case t == "":
			return Axis{}, spec.FieldErrorf("vary", "%s=%s: an empty name in the list", field, text)
		case slices.Contains(a.Choices, t):
			return Axis{}, spec.FieldErrorf("vary", "%s=%s: %s is given twice", field, text, t)
		case len(a.Choices) == MaxPoints:
			return Axis{}, spec.FieldErrorf("vary", "%s=%s: more than %d names", field, text, MaxPoints)
		}
		a.Values = append(a.Values, float64(len(a.Choices)))
		a.Choices = append(a.Choices, t)
	}
	return a, nil
}
