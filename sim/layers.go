package sim

import (
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// Layers is a set of a model's blocks, by index from 0, sorted and
// without repeats: the blocks a layer split places on the CPU.
type Layers []int

// maxLayerIndex bounds a block index a layer set may name, well past
// any model's block count, so a range cannot ask for a huge set.
const maxLayerIndex = 1 << 16

// ParseLayers reads a layer set written as comma-separated indices and
// inclusive ranges, as "0-13" or "0-3,20-27"; "" is the empty set.
func ParseLayers(s string) (Layers, error) { return parseLayers(s, "cpu-layers") }

// parseLayers is ParseLayers with its errors naming field.
func parseLayers(s, field string) (Layers, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var l Layers
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := layerIndex(lo, part, field)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = layerIndex(hi, part, field); err != nil {
				return nil, err
			}
			if b < a {
				return nil, spec.FieldErrorf(field, "%q is not allowed: a range runs from the lower block to the higher, as 0-13", part)
			}
		}
		for i := a; i <= b; i++ {
			l = append(l, i)
		}
	}
	slices.Sort(l)
	return slices.Compact(l), nil
}

// layerIndex reads one block index of part.
func layerIndex(s, part, field string) (int, error) {
	i, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || i < 0 || i > maxLayerIndex {
		return 0, spec.FieldErrorf(field, "%q is not allowed: give block indices from 0 and ranges of them, as 0-13 or 0-3,20-27", part)
	}
	return i, nil
}

// String writes the set as ParseLayers reads it, runs as ranges.
func (l Layers) String() string {
	var b strings.Builder
	for i := 0; i < len(l); {
		j := i
		for j+1 < len(l) && l[j+1] == l[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(l[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(l[j]))
		}
		i = j + 1
	}
	return b.String()
}

// mask is the set as a flag per block of a model of n blocks.
func (l Layers) mask(n int) []bool {
	if len(l) == 0 {
		return nil
	}
	m := make([]bool, n)
	for _, i := range l {
		m[i] = true
	}
	return m
}

// UnitLayers are the blocks a layer split places on a unit other than the
// run's and the CPU — a GPU beside an NPU — written "gpu=0-13".
type UnitLayers struct {
	Unit   string
	Layers Layers
}

// ParseUnitLayers reads a unit's blocks written UNIT=RANGES, as
// "gpu=0-13"; "" is none.
func ParseUnitLayers(s string) (UnitLayers, error) {
	if strings.TrimSpace(s) == "" {
		return UnitLayers{}, nil
	}
	unit, ranges, ok := strings.Cut(s, "=")
	unit = strings.TrimSpace(unit)
	if !ok || unit == "" || strings.TrimSpace(ranges) == "" {
		return UnitLayers{}, spec.FieldErrorf("layers-on", "%q is not allowed: give a unit and its blocks, as gpu=0-13", s)
	}
	l, err := parseLayers(ranges, "layers-on")
	if err != nil {
		return UnitLayers{}, err
	}
	return UnitLayers{Unit: unit, Layers: l}, nil
}

// String writes the split as ParseUnitLayers reads it; "" for none.
func (u UnitLayers) String() string {
	if len(u.Layers) == 0 {
		return ""
	}
	return u.Unit + "=" + u.Layers.String()
}
