package sim

import (
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// SplitSets parses PATH=VALUE overrides of a run and sorts them by what
// they change: the chip (paths unprefixed), the model (model.PATH) or the
// scenario (scenario.PATH), each without its prefix. Every command's
// --set and a review's set lists mean the same by them.
func SplitSets(sets []string) (chip, model, scenario []spec.Override, err error) {
	for _, s := range sets {
		o, err := spec.ParseOverride(s)
		if err != nil {
			return nil, nil, nil, err
		}
		switch {
		case strings.HasPrefix(o.Path, "model."):
			o.Path = strings.TrimPrefix(o.Path, "model.")
			model = append(model, o)
		case strings.HasPrefix(o.Path, "scenario."):
			o.Path = strings.TrimPrefix(o.Path, "scenario.")
			scenario = append(scenario, o)
		default:
			chip = append(chip, o)
		}
	}
	return chip, model, scenario, nil
}
