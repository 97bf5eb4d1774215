package hw

import (
	"embed"
	"path"
	"sort"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
)

//go:embed chips/*.yaml
var chipFiles embed.FS

// DefaultChip is the chip simulate uses when none is named: a current
// flagship phone SoC.
const DefaultChip = "snapdragon-8-elite"

// ChipIDs lists the catalog's chip ids, sorted.
func ChipIDs() []string {
	entries, _ := chipFiles.ReadDir("chips")
	var ids []string
	for _, e := range entries {
		ids = append(ids, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(ids)
	return ids
}

// ChipSource returns the catalog file of id, as written (comments and
// citations included), and whether id exists.
func ChipSource(id string) ([]byte, bool) {
	data, err := chipFiles.ReadFile(path.Join("chips", id+".yaml"))
	return data, err == nil
}

// LoadChip loads a catalog chip by id or, when ref is not an id, a chip
// file; overrides apply before defaults.
func LoadChip(ref string, sets []spec.Override) (*Chip, error) {
	if data, ok := ChipSource(ref); ok {
		c, err := Load(ref+".yaml", data, sets)
		if err != nil {
			return nil, err
		}
		c.ID = ref
		return c, nil
	}
	if !strings.ContainsAny(ref, "/.") {
		return nil, &spec.Error{File: "--soc", Msg: "no catalog chip " + quote(ref) + "; chips: " + strings.Join(ChipIDs(), ", ") + " (or give a YAML file)"}
	}
	return LoadFile(ref, sets)
}

func quote(s string) string { return `"` + s + `"` }
