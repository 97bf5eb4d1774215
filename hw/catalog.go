package hw

import (
	"embed"

	"github.com/edgetwin/edgetwin/hw/spec"
)

//go:embed chips/*.yaml
var chipFiles embed.FS

// DefaultChip is the chip simulate uses when none is named: a current
// flagship phone SoC.
const DefaultChip = "snapdragon-8-elite"

var chips = spec.Catalog{Files: chipFiles, Dir: "chips", Kind: "chip", Field: "soc"}

// ChipIDs lists the catalog's chip ids, sorted.
func ChipIDs() []string { return chips.IDs() }

// ChipSource returns the catalog file of id, as written (comments and
// citations included), and whether id exists.
func ChipSource(id string) ([]byte, bool) { return chips.Source(id) }

// LoadChip loads a catalog chip by id or, when ref is not an id, a chip
// file; overrides apply before defaults.
func LoadChip(ref string, sets []spec.Override) (*Chip, error) {
	return LoadChipCalibrated(ref, nil, sets)
}

// LoadChipCalibrated is LoadChip with a calibration (nil for none) applied
// before the overrides.
func LoadChipCalibrated(ref string, cal Calibration, sets []spec.Override) (*Chip, error) {
	file, data, isID, err := chips.Open(ref)
	if err != nil {
		return nil, err
	}
	c, err := LoadCalibrated(file, data, cal, sets)
	if err == nil && isID {
		c.ID = ref
	}
	return c, err
}
