package hw

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/thermal"
	"github.com/edgetwin/edgetwin/hw/units"
)

// Chip is a loaded chip: the spec with every default applied, and the
// provenance of each of its figures.
type Chip struct {
	SoC
	// ID is the catalog id, or the file name for a chip read from a file.
	ID string
	// Provenance lists every figure with its source.
	Provenance []spec.Entry
	// Heat says which device heated the chip.
	Heat Heat
	// PolicyLine is the line of the file's policy: field (0 when the file
	// names none), so that a policy that does not load is reported there.
	PolicyLine int
}

// Heat is where a chip's thermal network came from: a package of the
// catalog (the one the chip names, or the passive phone), or the chip
// file's own.
type Heat struct {
	// Package is the id of the package the chip names (the phone when it
	// names none), and Own whether the file gives its own network instead
	// of the package's.
	Package string
	Own     bool
	// Title describes the device for a report: "fan-cooled dev board", or
	// "the chip file's own network".
	Title string
	// Ambient is the ambient temperature, and AmbientAssumed whether its
	// source is an assumption.
	Ambient        units.Celsius
	AmbientAssumed bool
}

var unitName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// formatKey is how the per-format efficiency maps name a storage format.
var formatKey = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Load reads a chip from YAML text: overrides first, then the defaults
// table, then strict decoding and the checks that span fields.
func Load(file string, data []byte, sets []spec.Override) (*Chip, error) {
	return LoadCalibrated(file, data, nil, sets)
}

// Calibration gives the overrides a calibration overlay makes on a chip of
// a given shape: its fitted figures are keyed by unit kind and memory type,
// so which paths they reach depends on the chip.
type Calibration interface {
	Overrides(Shape) ([]spec.Override, error)
}

// Shape is what a calibration needs to know of a chip: its DRAM type and
// its units' names and kinds.
type Shape struct {
	DRAMType string
	Units    []UnitShape
}

// UnitShape names one unit and its kind, and a CPU's core design and
// clusters (where a calibration's figures for a core design land).
type UnitShape struct {
	Name, Kind, Core string
	Clusters         []ClusterShape
}

// ClusterShape names one cluster of a CPU and its core design ("" when it
// gives none of its own).
type ClusterShape struct{ Name, Core string }

// LoadCalibrated is Load with a calibration (nil for none) applied before
// the overrides, so --set still wins over a calibrated figure.
func LoadCalibrated(file string, data []byte, cal Calibration, sets []spec.Override) (*Chip, error) {
	doc, heat, err := defaulted(file, data, cal, sets)
	if err != nil {
		return nil, err
	}
	var s SoC
	if err := doc.Decode(&s); err != nil {
		return nil, err
	}
	// Figures derived from others are written back into the document so
	// provenance shows them, and decode where they were written. Should
	// one not, the chip decodes again whole, so that the error is the
	// first a decode meets.
	derived, err := derive(doc, &s)
	if err != nil {
		return nil, err
	}
	if decodeWhole || doc.DecodeAt(&s, derived...) != nil {
		s = SoC{}
		if err := doc.Decode(&s); err != nil {
			return nil, err
		}
	}
	if err := validate(doc, &s); err != nil {
		return nil, err
	}
	prov := doc.Provenance("", s.Sources)
	citeThermalDefaults(prov, &s)
	heat.Ambient = s.Thermal.Ambient
	for _, p := range prov {
		if p.Path == "thermal.ambient" {
			heat.AmbientAssumed = strings.HasPrefix(p.Source, "assumed")
		}
	}
	return &Chip{SoC: s, ID: file, Provenance: prov, Heat: heat, PolicyLine: doc.Line("policy")}, nil
}

// decodeWhole makes every load decode its chip again whole after derive,
// as it did before DecodeAt: a test compares the two.
var decodeWhole = false

// LoadFile reads a chip file from disk.
func LoadFile(path string, sets []spec.Override) (*Chip, error) {
	data, err := spec.ReadFile(path, "chip")
	if err != nil {
		return nil, err
	}
	return Load(path, data, sets)
}

// addDefaultCPU gives a chip without a CPU the default one, before
// overrides so that --set can address it.
func addDefaultCPU(doc *spec.Doc) error {
	for _, name := range doc.Names("units") {
		if doc.Value("units."+name+".kind") == CPU {
			return nil
		}
	}
	return doc.Append("units", DefaultCPU, "assumed")
}

// clusterDefaults gives a CPU that lists clusters but no cores or clock
// their sum and the first cluster's clock, before the table's defaults.
// A malformed cluster is left to the decoder's error.
func clusterDefaults(doc *spec.Doc) {
	for _, name := range doc.Names("units") {
		p := "units." + name
		names := doc.Names(p + ".clusters")
		if len(names) == 0 {
			continue
		}
		sum := 0
		for _, c := range names {
			n, err := strconv.Atoi(doc.Value(p + ".clusters." + c + ".cores"))
			if err != nil || n <= 0 {
				return
			}
			sum += n
		}
		if !doc.Has(p + ".cores") {
			_ = doc.Default(p+".cores", strconv.Itoa(sum), &SoC{}, "derived: the sum of the clusters' cores")
		}
		if clock := doc.Value(p + ".clusters." + names[0] + ".clock"); !doc.Has(p+".clock") && clock != "" {
			_ = doc.Default(p+".clock", clock, &SoC{}, "derived: the first (fastest) cluster's clock")
		}
	}
}

func applyDefaults(doc *spec.Doc) error {
	// No default names or kinds a unit, so the units are listed once.
	names := doc.Names("units")
	kinds := make([]string, len(names))
	for i, name := range names {
		kinds[i] = doc.Value("units." + name + ".kind")
	}
	for _, def := range Defaults {
		kind, rest, perUnit := strings.Cut(strings.TrimPrefix(def.Path, "units.{"), "}.")
		if !perUnit {
			if err := doc.Default(def.Path, def.Value, &SoC{}, "assumed"); err != nil {
				return err
			}
			continue
		}
		for i, name := range names {
			if kinds[i] != kind {
				continue
			}
			if err := doc.Default("units."+name+"."+rest, def.Value, &SoC{}, "assumed"); err != nil {
				return err
			}
		}
	}
	return nil
}

// derive fills figures that follow from others: DRAM peak from data rate
// and bus width, a CPU's peak from its cores, SIMD width and clock.
func derive(doc *spec.Doc, s *SoC) (paths []string, _ error) {
	def := func(path, value, why string) error {
		paths = append(paths, path)
		return doc.Default(path, value, &SoC{}, why)
	}
	d := s.Memory.DRAM
	if d.Bandwidth == 0 {
		if d.DataRate == 0 || d.BusWidth == 0 {
			return nil, doc.Errorf("memory.dram", "missing bandwidth: give bandwidth, or data_rate and bus_width")
		}
		bw := units.BytesPerSecond(float64(d.DataRate) * float64(d.BusWidth) / 8)
		if err := def("memory.dram.bandwidth", bw.String(), "derived: data_rate × bus_width"); err != nil {
			return nil, err
		}
	}
	if s.Memory.Swap.Kind == "" {
		kind, why := SwapKind(s.ThermalPackage)
		if err := def("memory.swap.kind", kind, why); err != nil {
			return nil, err
		}
		s.Memory.Swap.Kind = kind
	}
	if sw := s.Memory.Swap; sw.Bandwidth == 0 && sw.Kind != "none" {
		bw, why := units.BytesPerSecond(zramBandwidth), "assumed: LZ4 decompression on one big core runs at 2–4 GB/s; a page fault's kernel path costs about half of that"
		if sw.Kind == "storage" {
			bw, why = s.Storage.ReadBandwidth/2, "derived: half of storage.read_bandwidth (assumed: swap-ins are 4 KiB pages read a few at a time)"
		}
		if err := def("memory.swap.bandwidth", bw.String(), why); err != nil {
			return nil, err
		}
	}
	if !doc.Has("idle.display") {
		if w, why := DisplayPower(s.ThermalPackage); w > 0 {
			if err := def("idle.display", units.Watts(w).String(), why); err != nil {
				return nil, err
			}
		}
	}
	if s.Memory.AppShare == 0 {
		share, why := AppShare(s.ThermalPackage)
		if err := def("memory.app_share", units.Fraction(share).String(), why); err != nil {
			return nil, err
		}
	}
	for _, u := range s.Units {
		if len(u.OPP) == 0 && u.Clock > 0 {
			if err := def("units."+u.Name+".opp", defaultOPP(float64(u.Clock)), "derived: clock × 0.4…1.0 at 0.60…0.88 V (assumed)"); err != nil {
				return nil, err
			}
		}
		if u.Kind != CPU {
			continue
		}
		// Each SIMD pipe does a multiply-add (2 ops) per lane per cycle.
		// A dtype the file or a --set gives keeps its figure; the others
		// are derived, so a CPU given only an int8 peak still samples and
		// normalises in fp32 (without, the host's fp32 work took 53 days
		// of simulated time and advise chip failed on the Pi 5's
		// peak.int8 sensitivity).
		how := "derived: cores × clock × SIMD lanes × SIMD pipes × 2 ops (assumed)"
		if len(u.Clusters) > 0 {
			how = "derived: Σ cores × clock × SIMD pipes over the clusters × SIMD lanes × 2 ops (assumed)"
		}
		int8ops := u.CoreRate() * float64(u.SIMDBits/8) * 2
		for _, p := range []struct {
			dt  dtype.Dtype
			div float64
		}{{dtype.INT8, 1}, {dtype.FP16, 2}, {dtype.FP32, 4}} {
			v := units.OpsPerSecond(int8ops / p.div)
			if err := def("units."+u.Name+".peak."+string(p.dt), v.String(), how); err != nil {
				return nil, err
			}
		}
	}
	return paths, nil
}

// checkCore refuses a core design CoreFamilies does not name.
func checkCore(doc *spec.Doc, path, core string) error {
	if core == "" || slices.Contains(CoreFamilies, core) {
		return nil
	}
	return doc.Errorf(path, "%q is not a core design: use one of %s", core, strings.Join(CoreFamilies, ", "))
}

// defaultOPP is the operating-point table of a unit that gives none: five
// points from 40% to 100% of its clock, at voltages typical of a 4 nm
// phone SoC's DVFS curve (0.60 V to 0.88 V).
func defaultOPP(clock float64) string {
	shares := []float64{0.4, 0.55, 0.7, 0.85, 1}
	volts := []float64{0.60, 0.65, 0.72, 0.80, 0.88}
	var parts []string
	for i := range shares {
		parts = append(parts, fmt.Sprintf("{freq: %s, volt: %s}", units.Hertz(clock*shares[i]), units.Volts(volts[i])))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// applyThermal gives a chip the network and governor of its thermal
// package wherever its file gives none: the package it names
// (thermal_package), else the passive phone, each figure assumed. A
// thermal_package given by --set replaces the file's own network too (it
// puts the chip in another device); a governor the file gives stays, being
// the chip's firmware rather than its device's.
func applyThermal(doc *spec.Doc, sets []spec.Override) (Heat, error) {
	id, setByFlag := "", false
	for _, o := range sets {
		if o.Path == "thermal_package" {
			id, setByFlag = o.Value, true
		}
	}
	if !setByFlag {
		id = doc.Value("thermal_package")
	}
	pkg, err := lookupPackage(doc, id, setByFlag)
	if err != nil {
		return Heat{}, err
	}
	heat := Heat{Package: pkg.ID, Title: pkg.Title}
	if doc.Has("thermal") && !setByFlag {
		heat.Own, heat.Title = true, "the chip file's own network"
		if id != "" {
			heat.Title += ", " + pkg.Title + " class"
		}
	}
	// The package's governor throttles the units this chip has.
	gov := pkg.Governor
	known := append(doc.Names("units"), "dram")
	has := func(units []string) []string {
		return slices.DeleteFunc(slices.Clone(units), func(u string) bool { return !slices.Contains(known, u) })
	}
	var trips []thermal.Trip
	for _, t := range gov.Trips {
		if t.Units = has(t.Units); len(t.Units) > 0 {
			trips = append(trips, t)
		}
	}
	gov.Trips = trips
	gov.Skin.Units = has(gov.Skin.Units)
	for _, d := range []struct {
		path    string
		v       any
		replace bool
	}{{"thermal", pkg.Spec, setByFlag}, {"governor", gov, false}} {
		text, err := encodePackage(pkg.ID+"\x00"+d.path+"\x00"+strings.Join(known, ","), d.v)
		if err != nil {
			return Heat{}, err
		}
		put := doc.Default
		if d.replace {
			put = doc.Set
		}
		if err := put(d.path, string(text), &SoC{}, "assumed"); err != nil {
			return Heat{}, err
		}
	}
	return heat, nil
}

// packageTexts keeps the YAML of a catalog package's sections for a set of
// units: a sweep loads the same chip, with the same package, per point.
var packageTexts sync.Map // key (package, section, units) → []byte

// encodePackage is spec.Encode(v) for the package section named by key.
func encodePackage(key string, v any) ([]byte, error) {
	if text, ok := packageTexts.Load(key); ok {
		return text.([]byte), nil
	}
	text, err := spec.Encode(v)
	if err == nil {
		packageTexts.Store(key, text)
	}
	return text, err
}

// lookupPackage finds the package a chip names; none is the phone.
func lookupPackage(doc *spec.Doc, id string, setByFlag bool) (thermal.Enclosure, error) {
	if id == "" {
		id = "phone"
	}
	pkg, ok := thermal.LookupPackage(id)
	if !ok {
		msg := fmt.Sprintf("unknown thermal package %q: use one of %s, or give the chip's own thermal and governor sections", id, strings.Join(thermal.PackageIDs(), ", "))
		if setByFlag {
			return pkg, &spec.Error{Field: "set", Path: "thermal_package", Msg: msg}
		}
		return pkg, doc.Errorf("thermal_package", "%s", msg)
	}
	return pkg, nil
}

// citeThermalDefaults names, for the assumed package figures, what each is
// based on. A package's governor keeps only the trips of units the chip
// has, so its trips are matched to the package's by node and temperature.
// A chip that names no package keeps the default phone's wording.
func citeThermalDefaults(prov []spec.Entry, s *SoC) {
	id := s.ThermalPackage
	if id == "" {
		id = "phone"
	}
	pkg, ok := thermal.LookupPackage(id)
	if !ok {
		return
	}
	// A package the chip's file chooses on an assumption lends only
	// assumptions, whatever their own sources.
	chosen := s.ThermalPackage != ""
	for _, p := range prov {
		if p.Path == "thermal_package" && strings.HasPrefix(p.Source, "assumed") {
			chosen = false
		}
	}
	whose := "the default phone's"
	if s.ThermalPackage != "" && pkg.ID != "phone" {
		whose = "the " + pkg.ID + " package's"
	}
	for i, p := range prov {
		if p.Source != "assumed" {
			continue
		}
		key := p.Path
		if rest, ok := strings.CutPrefix(key, "governor.trips."); ok && s.Governor != nil {
			idx, field, _ := strings.Cut(rest, ".")
			if n, err := strconv.Atoi(idx); err == nil && n < len(s.Governor.Trips) {
				t := s.Governor.Trips[n]
				at := slices.IndexFunc(pkg.Governor.Trips, func(pt thermal.Trip) bool { return pt.Node == t.Node && pt.Temp == t.Temp })
				key = fmt.Sprintf("governor.trips.%d.%s", at, field)
			}
		}
		c, ok := pkg.Sources[key]
		if !ok {
			continue
		}
		if reason, assumed := strings.CutPrefix(c, "assumed: "); assumed || !chosen {
			prov[i].Source = "assumed: " + whose + " — " + reason
			if !assumed {
				prov[i].Source = "assumed: " + whose + " — " + c
			}
			continue
		}
		prov[i].Source = c + " (thermal_package " + pkg.ID + ")"
	}
}

func validate(doc *spec.Doc, s *SoC) error {
	if m := s.Memory; m.AppShare <= 0 || m.AppShare > 1 {
		return doc.Errorf("memory.app_share", "%s is not allowed: the share of the DRAM one app may hold is more than 0 and at most 100%%", m.AppShare)
	}
	if len(s.Units) == 0 {
		return doc.Errorf("units", "no units: a chip needs at least one compute unit")
	}
	seen := map[string]bool{}
	for _, u := range s.Units {
		p := "units." + u.Name
		if !unitName.MatchString(u.Name) {
			return doc.Errorf(p+".name", "%q is not allowed: unit names are lower-case letters, digits, - and _", u.Name)
		}
		if seen[u.Name] {
			return doc.Errorf(p+".name", "duplicate unit name %q", u.Name)
		}
		seen[u.Name] = true
		if len(u.Peak) == 0 {
			return doc.Errorf(p+".peak", "missing peak: give the rate per dtype, e.g. {int8: 45 TOPS}")
		}
		for _, f := range []struct {
			name string
			v    units.Fraction
		}{{"gemm_efficiency", u.GEMMEfficiency}, {"gemv_efficiency", u.GEMVEfficiency}} {
			if f.v <= 0 || f.v > 1 {
				return doc.Errorf(p+"."+f.name, "%v is not allowed: must be in (0, 1]", float64(f.v))
			}
		}
		for _, f := range []struct {
			name string
			by   map[string]units.Fraction
		}{{"gemm_efficiency_by", u.GEMMEfficiencyBy}, {"gemv_efficiency_by", u.GEMVEfficiencyBy}} {
			for format, v := range f.by {
				if !formatKey.MatchString(format) {
					return doc.Errorf(p+"."+f.name+"."+format, "%q is not a storage format: use lower-case names such as q4_0, q8_0, f16", format)
				}
				if v <= 0 || v > 1 {
					return doc.Errorf(p+"."+f.name+"."+format, "%v is not allowed: must be in (0, 1]", float64(v))
				}
			}
		}
		if u.Core != "" && u.Kind != CPU {
			return doc.Errorf(p+".core", "%q: core names the design of a CPU's cores; this unit is a %s", u.Core, u.Kind)
		}
		if u.Barrier > 0 && u.Kind != CPU {
			return doc.Errorf(p+".barrier", "%s: barrier is a CPU's cost per thread at each operator; this unit is a %s", u.Barrier, u.Kind)
		}
		if err := checkCore(doc, p+".core", u.Core); err != nil {
			return err
		}
		for _, c := range u.Clusters {
			cp := fmt.Sprintf("%s.clusters.%s", p, c.Name)
			if err := checkCore(doc, cp+".core", c.Core); err != nil {
				return err
			}
			for format, v := range c.GEMVEfficiencyBy {
				if !formatKey.MatchString(format) {
					return doc.Errorf(cp+".gemv_efficiency_by."+format, "%q is not a storage format: use lower-case names such as q4_0, q8_0, f16", format)
				}
				if v <= 0 || v > 1 {
					return doc.Errorf(cp+".gemv_efficiency_by."+format, "%v is not allowed: must be in (0, 1]", float64(v))
				}
			}
		}
		if len(u.Clusters) > 0 {
			sum := 0
			for i, c := range u.Clusters {
				sum += c.Cores
				if i > 0 && c.Clock > u.Clusters[i-1].Clock {
					return doc.Errorf(fmt.Sprintf("%s.clusters.%s.clock", p, c.Name), "%s follows the %s cluster's %s: list clusters fastest first", c.Clock, u.Clusters[i-1].Name, u.Clusters[i-1].Clock)
				}
			}
			if sum != u.Cores {
				return doc.Errorf(p+".cores", "%d is not the clusters' %d cores: give cores as their sum, or leave it out", u.Cores, sum)
			}
		}
		for i := 1; i < len(u.OPP); i++ {
			a, b := u.OPP[i-1], u.OPP[i]
			if b.Freq <= a.Freq || b.Volt < a.Volt {
				return doc.Errorf(fmt.Sprintf("%s.opp.%d", p, i), "OPP table out of order: %s at %s follows %s at %s; list operating points by rising frequency with non-falling voltage", b.Freq, b.Volt, a.Freq, a.Volt)
			}
		}
	}
	if err := validateAcross(doc, s); err != nil {
		return err
	}
	if e := s.Memory.DRAM.SeqEfficiency; e <= 0 || e > 1 {
		return doc.Errorf("memory.dram.seq_efficiency", "%v is not allowed: must be in (0, 1]", float64(e))
	}
	c := s.Memory.L3
	perSet := float64(c.Ways) * float64(c.Line)
	sets := float64(c.Size) / perSet
	if c.Sets != 0 && float64(c.Sets)*perSet != float64(c.Size) {
		return doc.Errorf("memory.l3.size", "%s is not ways × line × sets = %d × %s × %d", c.Size, c.Ways, c.Line, c.Sets)
	}
	if sets != float64(int64(sets)) || sets < 1 {
		return doc.Errorf("memory.l3.size", "%s is not a whole number of sets of ways × line = %d × %s", c.Size, c.Ways, c.Line)
	}
	for _, u := range s.Units {
		for _, op := range u.Ops {
			if !slices.Contains(Operators, op) {
				return doc.Errorf("units."+u.Name+".ops", "%q is not an operator: use %s", op, strings.Join(Operators, ", "))
			}
		}
		for _, f := range u.Formats {
			if !slices.Contains(WeightFormats, f) {
				return doc.Errorf("units."+u.Name+".formats", "%q is not a weight format: use %s", f, strings.Join(WeightFormats, ", "))
			}
		}
	}
	if err := validateThermal(doc, s); err != nil {
		return err
	}
	for _, name := range c.SharedBy {
		if s.Unit(name) == nil {
			return doc.Errorf("memory.l3.shared_by", "no unit named %q; units: %s", name, strings.Join(s.UnitNames(), ", "))
		}
	}
	return nil
}

// validateThermal checks the network and the governor, and that every
// unit a trip or a skin limit names exists.
func validateThermal(doc *spec.Doc, s *SoC) error {
	asSpecErr := func(err error) error {
		var fe *spec.Error
		if errors.As(err, &fe) {
			return doc.Errorf(fe.Path, "%s", fe.Msg)
		}
		return doc.Errorf("thermal", "%s", err.Error())
	}
	if err := s.Thermal.Validate(); err != nil {
		return asSpecErr(err)
	}
	if err := s.Governor.Validate(); err != nil {
		return asSpecErr(err)
	}
	known := append(s.UnitNames(), "dram")
	for i, t := range s.Governor.Trips {
		for _, u := range t.Units {
			if !slices.Contains(known, u) {
				return doc.Errorf(fmt.Sprintf("governor.trips.%d.units", i), "no unit %q; units: %s", u, strings.Join(known, ", "))
			}
		}
	}
	if s.Governor.Kind == thermal.SkinLimitKind {
		for _, u := range s.Governor.Skin.Units {
			if !slices.Contains(known, u) {
				return doc.Errorf("governor.skin.units", "no unit %q; units: %s", u, strings.Join(known, ", "))
			}
		}
	}
	for i, l := range s.Memory.DRAM.Levels {
		if l <= 0 || l > 1 || (i > 0 && l <= s.Memory.DRAM.Levels[i-1]) {
			return doc.Errorf("memory.dram.levels", "levels must rise from above 0%% to at most 100%%")
		}
	}
	return nil
}

// bandwidthTolerance is how far memory.dram.bandwidth may stray from
// data_rate × bus_width / 8 without bandwidth_differs saying why: rounding
// of a datasheet's figure, not a second opinion.
const bandwidthTolerance = 0.10

// validateAcross checks figures that are plausible alone but impossible
// together (docs/bounds.md, "Checks across fields").
func validateAcross(doc *spec.Doc, s *SoC) error {
	d := s.Memory.DRAM
	if l3 := s.Memory.L3.Size; l3 > d.Capacity {
		if doc.Overridden("memory.dram.capacity") && !doc.Overridden("memory.l3.size") {
			return doc.Errorf("memory.dram.capacity", "%s is smaller than the chip's L3 (memory.l3.size %s, which caches it): give a capacity of at least the L3, or set memory.l3.size too", d.Capacity, l3)
		}
		return doc.Errorf("memory.l3.size", "%s is larger than the DRAM it caches (memory.dram.capacity %s): give the last-level cache's size", l3, d.Capacity)
	}
	if d.DataRate > 0 && d.BusWidth > 0 && doc.Has("memory.dram.bandwidth") {
		bus := float64(d.DataRate) * float64(d.BusWidth) / 8
		if off := float64(d.Bandwidth)/bus - 1; (off > bandwidthTolerance || off < -bandwidthTolerance) && strings.TrimSpace(d.BandwidthDiffers) == "" {
			return doc.Errorf("memory.dram.bandwidth", "%s contradicts data_rate × bus_width = %s × %d bits = %s (%+.0f%%): fix one of them, or say why they differ with bandwidth_differs: <reason>",
				d.Bandwidth, d.DataRate, d.BusWidth, units.BytesPerSecond(bus), off*100)
		}
	}
	for _, u := range s.Units {
		if len(u.OPP) == 0 {
			continue
		}
		p := "units." + u.Name
		top := u.OPP[len(u.OPP)-1].Freq
		// Clusters first: the unit's clock may be derived from the first.
		for _, c := range u.Clusters {
			if c.Clock > top {
				return doc.Errorf(fmt.Sprintf("%s.clusters.%s.clock", p, c.Name), "%s is above the top of the unit's own OPP table (%s): raise the table or lower the clock", c.Clock, top)
			}
		}
		if u.Clock > top {
			return doc.Errorf(p+".clock", "%s is above the top of the unit's own OPP table (%s): raise the table or lower the clock", u.Clock, top)
		}
	}
	keys := make([]string, 0, len(s.Sources))
	for k := range s.Sources {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !doc.Has(k) {
			return doc.KeyErrorf("sources", k, "%q names no field of this chip: a source cites a field path such as memory.dram.bandwidth or units.npu.peak.int8", k)
		}
	}
	return nil
}
