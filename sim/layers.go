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
func ParseLayers(s string) (Layers, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var l Layers
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := layerIndex(lo, part)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = layerIndex(hi, part); err != nil {
				return nil, err
			}
			if b < a {
				return nil, spec.FieldErrorf("cpu-layers", "%q is not allowed: a range runs from the lower block to the higher, as 0-13", part)
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
func layerIndex(s, part string) (int, error) {
	i, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || i < 0 || i > maxLayerIndex {
		return 0, spec.FieldErrorf("cpu-layers", "%q is not allowed: give block indices from 0 and ranges of them, as 0-13 or 0-3,20-27", part)
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
