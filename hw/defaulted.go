package hw

import (
	"strings"
	"sync"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// A sweep loads one chip once a point, each point with the same --set
// paths at other values. Everything a load does before it decodes — the
// default CPU, the thermal package, the calibration, the overrides, the
// clusters' sums and the defaults table — depends on those values only
// where a set writes more than one value or one that a step before the
// decode reads (a unit's kind, a CPU's clusters, the thermal package): a
// default goes wherever its field is absent, whatever the figures around
// it. So the document at that point is kept, by file, calibration and set
// paths, and a later load with other values takes a copy and writes its
// own values over the kept ones, in place. TestDefaultedMatchesALoad holds
// the copy to a load done afresh, byte for byte.
var kept = struct {
	sync.Mutex
	prepared  map[preparedKey]prepared
	defaulted map[defaultedKey]*spec.Doc
}{prepared: map[preparedKey]prepared{}, defaulted: map[defaultedKey]*spec.Doc{}}

// keptLimit bounds each of the kept maps; past it, loads are done afresh.
const keptLimit = 256

// preparedKey is what a chip's document depends on before its
// calibration and overrides: its file, its text and the thermal package a
// set names (thermal_package, "" for none).
type preparedKey struct{ file, data, pkg string }

// prepared is a chip's document with its default CPU and thermal package,
// the device that heats it and the shape a calibration reads.
type prepared struct {
	doc   *spec.Doc
	heat  Heat
	shape Shape
}

// defaultedKey adds the calibration's overrides (path, value and origin)
// and the sets' paths to a preparedKey.
type defaultedKey struct {
	preparedKey
	cal, paths string
}

// defaulted is a chip's document ready to decode: parsed, with its default
// CPU, thermal package, calibration (nil for none), sets and defaults, and
// the device that heats it.
func defaulted(file string, data []byte, cal Calibration, sets []spec.Override) (*spec.Doc, Heat, error) {
	pk := preparedKey{file: file, data: string(data)}
	for _, o := range sets {
		if o.Path == "thermal_package" {
			pk.pkg = "=" + o.Value
		}
	}
	p, err := prepare(pk, file, data, sets)
	if err != nil {
		return nil, Heat{}, err
	}
	var calSets []spec.Override
	if cal != nil {
		if calSets, err = cal.Overrides(p.shape); err != nil {
			return nil, Heat{}, err
		}
	}
	dk, reusable := defaultedKeyOf(pk, calSets, sets)
	if reusable {
		kept.Lock()
		d := kept.defaulted[dk]
		kept.Unlock()
		if d != nil {
			doc := d.Clone()
			if err := doc.Apply(sets, &SoC{}); err != nil {
				return nil, Heat{}, err
			}
			return doc, p.heat, nil
		}
	}
	doc := p.doc.Clone()
	if err := doc.Apply(calSets, &SoC{}); err != nil {
		return nil, Heat{}, err
	}
	if err := doc.Apply(sets, &SoC{}); err != nil {
		return nil, Heat{}, err
	}
	clusterDefaults(doc)
	if err := applyDefaults(doc); err != nil {
		return nil, Heat{}, err
	}
	if reusable {
		keep(kept.defaulted, dk, doc.Clone())
	}
	return doc, p.heat, nil
}

// prepare is the chip's document with its default CPU and thermal
// package (whole default sections go in before overrides, so --set can
// reach into them), kept by k.
func prepare(k preparedKey, file string, data []byte, sets []spec.Override) (prepared, error) {
	kept.Lock()
	p, ok := kept.prepared[k]
	kept.Unlock()
	if ok {
		return p, nil
	}
	doc, err := spec.Parse(file, data)
	if err != nil {
		return prepared{}, err
	}
	if err := addDefaultCPU(doc); err != nil {
		return prepared{}, err
	}
	heat, err := applyThermal(doc, sets)
	if err != nil {
		return prepared{}, err
	}
	p = prepared{doc: doc, heat: heat, shape: shapeOf(doc)}
	keep(kept.prepared, k, prepared{doc: doc.Clone(), heat: heat, shape: p.shape})
	return p, nil
}

// keep puts v in m under k, while m is below keptLimit.
func keep[K comparable, V any](m map[K]V, k K, v V) {
	kept.Lock()
	if len(m) < keptLimit {
		m[k] = v
	}
	kept.Unlock()
}

// shapeOf is what a calibration needs to know of the chip in doc.
func shapeOf(doc *spec.Doc) Shape {
	shape := Shape{DRAMType: doc.Value("memory.dram.type")}
	for _, name := range doc.Names("units") {
		at := "units." + name
		us := UnitShape{Name: name, Kind: doc.Value(at + ".kind"), Core: doc.Value(at + ".core")}
		for _, c := range doc.Names(at + ".clusters") {
			us.Clusters = append(us.Clusters, ClusterShape{Name: c, Core: doc.Value(at + ".clusters." + c + ".core")})
		}
		shape.Units = append(shape.Units, us)
	}
	return shape
}

// defaultedKeyOf is the key a load's defaulted document is kept by, and
// whether it may be: each set writes one value, where no step before the
// decode reads it.
func defaultedKeyOf(pk preparedKey, calSets, sets []spec.Override) (defaultedKey, bool) {
	var cal, paths strings.Builder
	for _, o := range calSets {
		cal.WriteString(o.Path + "=" + o.Value + "@" + o.Origin + "\x00")
	}
	for _, o := range sets {
		if !spec.IsScalar(o.Value) || readBeforeDecode(o.Path) {
			return defaultedKey{}, false
		}
		paths.WriteString(o.Path + "\x00")
	}
	return defaultedKey{preparedKey: pk, cal: cal.String(), paths: paths.String()}, true
}

// readBeforeDecode reports whether a load reads the value at path before
// it decodes: the thermal package, a unit's kind (which defaults it
// takes), a CPU's clusters (their cores and clock make the unit's).
func readBeforeDecode(path string) bool {
	if path == "thermal_package" {
		return true
	}
	rest, ok := strings.CutPrefix(path, "units.")
	if !ok {
		return path == "units"
	}
	_, field, _ := strings.Cut(rest, ".")
	return field == "" || field == "kind" || field == "clusters" || strings.HasPrefix(field, "clusters.")
}
