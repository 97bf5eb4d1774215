package calibrate

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"go.yaml.in/yaml/v3"
)

// Overlay is a calibration: fitted figures that apply to any chip whose
// units and memory match them, and chip-specific figures by field path.
// [ReadOverlay] reads one, [Overlay.Write] writes one, and
// hw.LoadChipCalibrated applies one (an *Overlay is an hw.Calibration).
type Overlay struct {
	// Source says what the overlay was fitted from.
	Source string  `yaml:"source" spec:"required"`
	Params []Param `yaml:"params,omitempty"`
	// Set maps a chip field path, exactly as `simulate --set` takes it, to
	// a value: figures fitted for one chip (thermal resistances, say).
	Set map[string]string `yaml:"set,omitempty"`

	file    string         // where it was read from; provenance says calibrated:<file>
	setLine map[string]int // line of each set entry, for errors
}

// Param is one fitted generic figure, keyed by what it applies to: a unit
// kind (and for the efficiencies optionally a weight storage format), a
// DRAM type, or every chip. The keys fall back: an efficiency without dtype
// is the unit's figure for every format without its own, and a memory
// figure without memory is for every DRAM type without its own.
type Param struct {
	Param    string `yaml:"param" spec:"required,oneof=gemm_efficiency|gemv_efficiency|dispatch|barrier|fallback_sync|sram_bandwidth|seq_efficiency|random_penalty|dram_latency|dma_setup"`
	UnitKind string `yaml:"unit_kind,omitempty" spec:"oneof=npu|gpu|cpu|dsp"`
	// Dtype is the weights' storage format (q4_0, q8_0, f16, …) an
	// efficiency is for; empty, the unit's scalar efficiency.
	Dtype string `yaml:"dtype,omitempty"`
	// Core is the CPU core design (hw.CoreFamilies) a GEMV efficiency of
	// a dtype is for: it lands on the clusters of that design (or on a CPU
	// whose cores are all of it). Empty: every core without a figure of
	// its design.
	Core   string `yaml:"core,omitempty"`
	Memory string `yaml:"memory,omitempty" spec:"oneof=LPDDR4|LPDDR4X|LPDDR5|LPDDR5X|LPDDR5T|DDR4|DDR5|GDDR6|HBM2|HBM3"`
	// Value and Stderr are quantities in the parameter's unit (a
	// fraction, a duration, a plain factor); Stderr is the fit's one-sigma
	// uncertainty, absent when unknown.
	Value  string `yaml:"value" spec:"required"`
	Stderr string `yaml:"stderr,omitempty"`

	value, stderr float64 // parsed, SI
}

// scope is what a parameter is keyed by.
type scope int

const (
	unitScope   scope = iota // unit_kind (and dtype for the efficiencies)
	memoryScope              // memory: the DRAM type
	chipScope                // every chip
)

// paramDef describes one overlay parameter: where it lands in a chip and
// the range a fit may explore.
type paramDef struct {
	name     string
	scope    scope
	path     string // the field: under the unit for unitScope, else from the chip's root
	byFormat string // the per-format map under the unit; "" if the parameter has none
	kind     units.Kind
	lo, hi   float64 // the allowed range; a fit stays strictly inside it
	// log: the fit explores it on a log scale; else (a fraction) on a
	// logit scale between lo and hi.
	log bool
	// binds is the direction (−1 lower, +1 higher) in which the parameter
	// comes to limit the time: a lower efficiency or bandwidth, a longer
	// overhead.
	binds float64
}

// paramDefs is every parameter an overlay may carry.
var paramDefs = []paramDef{
	{name: "gemm_efficiency", scope: unitScope, path: "gemm_efficiency", byFormat: "gemm_efficiency_by", kind: units.KindFraction, lo: 0, hi: 1, binds: -1},
	{name: "gemv_efficiency", scope: unitScope, path: "gemv_efficiency", byFormat: "gemv_efficiency_by", kind: units.KindFraction, lo: 0, hi: 1, binds: -1},
	{name: "dispatch", scope: unitScope, path: "dispatch", kind: units.KindDuration, lo: 1e-9, hi: 1e-2, log: true, binds: 1},
	{name: "barrier", scope: unitScope, path: "barrier", kind: units.KindDuration, lo: 1e-10, hi: 1e-3, log: true, binds: 1},
	{name: "fallback_sync", scope: unitScope, path: "fallback_sync", kind: units.KindDuration, lo: 1e-9, hi: 1e-1, log: true, binds: 1},
	{name: "sram_bandwidth", scope: unitScope, path: "sram_bandwidth", kind: units.KindByteRate, lo: 1e9, hi: 1e14, log: true, binds: -1},
	{name: "seq_efficiency", scope: memoryScope, path: "memory.dram.seq_efficiency", kind: units.KindFraction, lo: 0, hi: 1, binds: -1},
	{name: "random_penalty", scope: memoryScope, path: "memory.dram.random_penalty", lo: 1, hi: 100, log: true, binds: 1},
	{name: "dram_latency", scope: memoryScope, path: "memory.dram.latency", kind: units.KindDuration, lo: 1e-9, hi: 1e-5, log: true, binds: 1},
	{name: "dma_setup", scope: chipScope, path: "dma.setup", kind: units.KindDuration, lo: 1e-10, hi: 1e-4, log: true, binds: 1},
}

func defOf(name string) *paramDef {
	for i := range paramDefs {
		if paramDefs[i].name == name {
			return &paramDefs[i]
		}
	}
	return nil
}

// Key names what a parameter applies to, e.g. "gemv_efficiency[gpu,q4_0]",
// "seq_efficiency[LPDDR5]" or "seq_efficiency[other memory]"; two
// parameters of an overlay never share one.
func (p Param) Key() string {
	if p.Memory == "" && defOf(p.Param).scope == memoryScope {
		return p.Param + "[other memory]"
	}
	var parts []string
	for _, s := range []string{p.UnitKind, p.Dtype, p.Core, p.Memory} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return p.Param
	}
	return p.Param + "[" + strings.Join(parts, ",") + "]"
}

// Float is the parameter's value in SI units (seconds, a fraction).
func (p Param) Float() float64 { return p.value }

// StderrFloat is its uncertainty in SI units; 0 when not known.
func (p Param) StderrFloat() float64 { return p.stderr }

// NewParam makes a parameter from SI values, printed exactly (so the
// value a chip receives is the value given). The name must be one of the
// overlay's parameters.
func NewParam(name, unitKind, dtype, memory string, value, stderr float64) Param {
	return newParam(name, unitKind, dtype, memory, value, stderr, -1)
}

// withCore is p keyed by core design core as well.
func (p Param) withCore(core string) Param {
	p.Core = core
	return p
}

// newParam prints value with digits significant digits (-1: exactly) and
// stderr with two.
func newParam(name, unitKind, dtype, memory string, value, stderr float64, digits int) Param {
	def := defOf(name)
	if def == nil {
		panic("calibrate: unknown overlay parameter " + name)
	}
	p := Param{Param: name, UnitKind: unitKind, Dtype: dtype, Memory: memory}
	p.Value = formatQuantity(value, def.kind, digits)
	p.value, _ = parseQuantity(p.Value, def.kind)
	if stderr > 0 {
		p.Stderr = formatQuantity(stderr, def.kind, 2)
		p.stderr, _ = parseQuantity(p.Stderr, def.kind)
	}
	return p
}

// formatQuantity prints v rounded to digits significant digits (-1: as
// many as it takes to read back exactly) in kind's unit, a plain number for
// fractions and factors.
func formatQuantity(v float64, k units.Kind, digits int) string {
	num := strconv.FormatFloat(v, 'g', digits, 64)
	if k == 0 || k == units.KindFraction {
		return num
	}
	x, _ := strconv.ParseFloat(num, 64)
	return units.Format(x, k)
}

// File is the path the overlay was read from or written to.
func (o *Overlay) File() string { return o.file }

// Origin is how provenance names the overlay's figures.
func (o *Overlay) Origin() string { return "calibrated:" + o.file }

// ReadOverlay reads an overlay file; errors name the file, line and field.
func ReadOverlay(path string) (*Overlay, error) {
	data, err := spec.ReadFile(path, "calibration overlay")
	if err != nil {
		return nil, err
	}
	return ParseOverlay(path, data)
}

// ParseOverlay decodes an overlay strictly: unknown fields, duplicate
// keys, a parameter keyed by what it cannot apply to, a value out of range
// or a parameter given twice are errors with file:line.
func ParseOverlay(file string, data []byte) (*Overlay, error) {
	o := &Overlay{file: file}
	doc, err := spec.ParseInto(file, data, o)
	if err != nil {
		return nil, err
	}
	seen := map[string]string{}
	for i := range o.Params {
		p := &o.Params[i]
		at := "params." + strconv.Itoa(i)
		if err := p.check(); err != nil {
			// The entry's line: the field may be the one that is missing.
			return nil, &spec.Error{File: file, Line: doc.Line(at), Path: at + "." + err.field, Msg: err.msg}
		}
		if prev, dup := seen[p.Key()]; dup {
			return nil, doc.Errorf(at, "%s is given twice (also at %s)", p.Key(), prev)
		}
		seen[p.Key()] = fmt.Sprintf("%s:%d", file, doc.Line(at))
	}
	o.setLine = setLines(data)
	for path, v := range o.Set {
		if strings.TrimSpace(path) == "" || strings.TrimSpace(v) == "" {
			return nil, &spec.Error{File: file, Line: o.setLine[path], Path: "set", Msg: "an empty path or value; write PATH: VALUE, e.g. memory.dram.bandwidth: 80GB/s"}
		}
	}
	return o, nil
}

type fieldMsg struct{ field, msg string }

// check validates a decoded parameter and parses its quantities.
func (p *Param) check() *fieldMsg {
	def := defOf(p.Param)
	switch def.scope {
	case unitScope:
		if p.UnitKind == "" {
			return &fieldMsg{"unit_kind", "missing: " + p.Param + " applies to a unit kind (npu, gpu, cpu, dsp)"}
		}
		if p.Memory != "" {
			return &fieldMsg{"memory", p.Param + " is a unit's figure: give unit_kind, not memory"}
		}
		if p.Dtype != "" && def.byFormat == "" {
			return &fieldMsg{"dtype", p.Param + " does not depend on the weights' format: leave dtype out"}
		}
		if p.Dtype != "" && !formatKey(p.Dtype) {
			return &fieldMsg{"dtype", fmt.Sprintf("%q is not a storage format: use lower-case names such as q4_0, q8_0, f16", p.Dtype)}
		}
		// A figure for a format no weights are stored in would never apply.
		if p.Dtype != "" && !slices.Contains(overlayFormats(), p.Dtype) {
			return &fieldMsg{"dtype", fmt.Sprintf("%q is not a weight storage format: use one of %s", p.Dtype, strings.Join(overlayFormats(), ", "))}
		}
		if p.Core != "" && (p.Param != "gemv_efficiency" || p.UnitKind != hw.CPU || p.Dtype == "") {
			return &fieldMsg{"core", "a core design keys a CPU's GEMV efficiency of one dtype: give param gemv_efficiency, unit_kind cpu and dtype, or leave core out"}
		}
		if p.Core != "" && !slices.Contains(hw.CoreFamilies, p.Core) {
			return &fieldMsg{"core", fmt.Sprintf("%q is not a core design: use one of %s", p.Core, strings.Join(hw.CoreFamilies, ", "))}
		}
		if p.Param == "barrier" && p.UnitKind != hw.CPU {
			return &fieldMsg{"unit_kind", "barrier is a CPU's cost per thread at each operator: give unit_kind cpu"}
		}
	case memoryScope:
		// Without memory, the figure is for every DRAM type the overlay
		// gives no figure of its own.
		if p.UnitKind != "" || p.Dtype != "" || p.Core != "" {
			return &fieldMsg{"unit_kind", p.Param + " is the memory's figure: key it by memory (or leave it unkeyed, for every DRAM type), not by unit_kind or dtype"}
		}
	case chipScope:
		if p.UnitKind != "" || p.Dtype != "" || p.Core != "" || p.Memory != "" {
			return &fieldMsg{"param", p.Param + " applies to every chip: leave unit_kind, dtype and memory out"}
		}
	}
	v, err := parseQuantity(p.Value, def.kind)
	if err != nil {
		return &fieldMsg{"value", err.Error()}
	}
	if v <= def.lo || v > def.hi {
		return &fieldMsg{"value", fmt.Sprintf("%s is out of range: %s must be in (%g, %g]", p.Value, p.Param, def.lo, def.hi)}
	}
	p.value = v
	if p.Stderr != "" {
		s, err := parseQuantity(p.Stderr, def.kind)
		if err != nil {
			return &fieldMsg{"stderr", err.Error()}
		}
		if s < 0 {
			return &fieldMsg{"stderr", p.Stderr + " is not allowed: an uncertainty is 0 or more"}
		}
		p.stderr = s
	}
	return nil
}

// overlayFormats is hw.WeightFormats as an overlay's dtype writes them:
// lower case, the keys of a unit's gemm_efficiency_by.
func overlayFormats() []string {
	out := make([]string, len(hw.WeightFormats))
	for i, f := range hw.WeightFormats {
		out[i] = strings.ToLower(f)
	}
	return out
}

func formatKey(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// parseQuantity reads a value of kind k; kind 0 is a plain number.
func parseQuantity(s string, k units.Kind) (float64, error) {
	if k != 0 {
		return units.Parse(s, k)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v != v || v > 1e300 || v < -1e300 {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

// setLines finds the line of every key under the top-level set mapping.
func setLines(data []byte) map[string]int {
	lines := map[string]int{}
	var n yaml.Node
	if yaml.Unmarshal(data, &n) != nil || len(n.Content) == 0 {
		return lines
	}
	root := n.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "set" {
			continue
		}
		m := root.Content[i+1]
		for j := 0; j+1 < len(m.Content); j += 2 {
			lines[m.Content[j].Value] = m.Content[j].Line
		}
	}
	return lines
}

// Overrides are the overlay's figures as field overrides on a chip of the
// given shape: each generic parameter on every unit of its kind (into the
// per-format map when it has a dtype) or on a DRAM of its type, then the
// set entries in file order. Their origin is "calibrated:<file>".
func (o *Overlay) Overrides(shape hw.Shape) ([]spec.Override, error) {
	origin := o.Origin()
	var out []spec.Override
	// A core design's figures after the others: on a CPU whose cores are
	// alike, they replace the unit's own.
	params := slices.Clone(o.Params)
	slices.SortStableFunc(params, func(a, b Param) int { return strings.Compare(a.Core, b.Core) })
	for _, p := range params {
		def := defOf(p.Param)
		value := formatQuantity(p.value, def.kind, -1)
		switch def.scope {
		case unitScope:
			for _, u := range shape.Units {
				if u.Kind != p.UnitKind {
					continue
				}
				if p.Core != "" {
					for _, path := range corePaths(u, p.Core) {
						out = append(out, spec.Override{Path: path + def.byFormat + "." + p.Dtype, Value: value, Origin: origin})
					}
					continue
				}
				path := "units." + u.Name + "." + def.path
				if p.Dtype != "" {
					path = "units." + u.Name + "." + def.byFormat + "." + p.Dtype
				}
				out = append(out, spec.Override{Path: path, Value: value, Origin: origin})
			}
		case memoryScope:
			if p.Memory == shape.DRAMType || p.Memory == "" && !o.has(p.Param, shape.DRAMType) {
				out = append(out, spec.Override{Path: def.path, Value: value, Origin: origin})
			}
		case chipScope:
			out = append(out, spec.Override{Path: def.path, Value: value, Origin: origin})
		}
	}
	paths := make([]string, 0, len(o.Set))
	for p := range o.Set {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(a, b string) int {
		if c := o.setLine[a] - o.setLine[b]; c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, p := range paths {
		out = append(out, spec.Override{Path: p, Value: o.Set[p], Origin: origin})
	}
	return out, nil
}

// corePaths are the field prefixes (ending in a dot) of the parts of
// unit u whose cores are of design core: the clusters of that design, or
// the unit itself when it has no clusters and its cores are of it.
func corePaths(u hw.UnitShape, core string) []string {
	prefix := "units." + u.Name + "."
	if len(u.Clusters) == 0 {
		if u.Core == core {
			return []string{prefix}
		}
		return nil
	}
	var out []string
	for _, c := range u.Clusters {
		if c.Core == core || c.Core == "" && u.Core == core {
			out = append(out, prefix+"clusters."+c.Name+".")
		}
	}
	return out
}

// has reports whether the overlay gives memory parameter name for DRAM
// type memory itself.
func (o *Overlay) has(name, memory string) bool {
	return slices.ContainsFunc(o.Params, func(p Param) bool { return p.Param == name && p.Memory == memory })
}

// Load loads a chip (catalog id or file) with the overlay applied, then
// sets; a set entry the chip has no field for is an error naming the
// overlay's file and line.
func (o *Overlay) Load(ref string, sets []spec.Override) (*hw.Chip, error) {
	var cal hw.Calibration
	if o != nil {
		cal = o
	}
	c, err := hw.LoadChipCalibrated(ref, cal, sets)
	if err != nil && o != nil {
		if se, ok := err.(*spec.Error); ok && se.File == o.Origin() {
			loc := *se
			loc.File, loc.Line = o.file, o.setLine[se.Path]
			loc.Msg = "in set, for chip " + ref + ": " + se.Msg
			return nil, &loc
		}
	}
	return c, err
}

// Encode prints the overlay as YAML, one parameter a line.
func (o *Overlay) Encode() []byte {
	var b bytes.Buffer
	b.WriteString("# A calibration overlay: edgetwin simulate --calibration FILE applies it.\n")
	b.WriteString("source: " + yamlString(o.Source) + "\n")
	if len(o.Params) > 0 {
		b.WriteString("params:\n")
	}
	for _, p := range o.Params {
		fields := []string{"param: " + p.Param}
		for _, kv := range [][2]string{{"unit_kind", p.UnitKind}, {"dtype", p.Dtype}, {"core", p.Core}, {"memory", p.Memory}, {"value", p.Value}, {"stderr", p.Stderr}} {
			if kv[1] != "" {
				fields = append(fields, kv[0]+": "+yamlString(kv[1]))
			}
		}
		b.WriteString("  - {" + strings.Join(fields, ", ") + "}\n")
	}
	if len(o.Set) > 0 {
		b.WriteString("set:\n")
		keys := make([]string, 0, len(o.Set))
		for k := range o.Set {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			b.WriteString("  " + yamlString(k) + ": " + yamlString(o.Set[k]) + "\n")
		}
	}
	return b.Bytes()
}

// yamlString prints s as a YAML scalar that reads back as the same string:
// plain when it holds only letters, digits and a few safe marks, else
// double-quoted.
func yamlString(s string) string {
	if plainScalar.MatchString(s) {
		return s
	}
	return strconv.Quote(s)
}

var plainScalar = regexp.MustCompile(`^[A-Za-z0-9_µ][A-Za-z0-9_.µ/ +-]*$`)

// Write writes the overlay to path atomically (internal/atomicfile): a
// failure leaves an earlier file at path as it was.
func (o *Overlay) Write(path string) error {
	o.file = path
	return atomicfile.WriteFile(path, o.Encode())
}
