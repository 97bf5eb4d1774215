package sim

import (
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// Sets are a run's PATH=VALUE overrides sorted by what they change, each
// without its prefix: the chip (paths unprefixed), the model (model.PATH),
// the scenario (scenario.PATH) and the runtime profile (runtime.PATH,
// Config.RuntimeSets).
type Sets struct {
	Chip, Model, Scenario, Runtime []spec.Override
}

// SplitSets parses PATH=VALUE overrides of a run and sorts them by what
// they change. Every command's --set and a review's set lists mean the
// same by them.
func SplitSets(sets []string) (Sets, error) {
	var out Sets
	for _, s := range sets {
		o, err := spec.ParseOverride(s)
		if err != nil {
			return Sets{}, err
		}
		for _, g := range []struct {
			prefix string
			to     *[]spec.Override
		}{{"model.", &out.Model}, {"scenario.", &out.Scenario}, {"runtime.", &out.Runtime}, {"", &out.Chip}} {
			if strings.HasPrefix(o.Path, g.prefix) {
				o.Path = strings.TrimPrefix(o.Path, g.prefix)
				*g.to = append(*g.to, o)
				break
			}
		}
	}
	return out, nil
}
