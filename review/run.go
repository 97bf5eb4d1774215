package review

import (
	"fmt"
	"slices"

	"github.com/edgetwin/edgetwin/advisor"
	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

// run is one workload of the review, to run on any of its chips: what
// `edgetwin simulate` would be given as flags.
type run struct {
	model, quant, kv   string
	policy, scenario   string
	duration           float64 // seconds; 0 is the scenario's own
	fidelity           string
	prompt, gen, batch int
	seed               uint64
	sets               []string // --set values: chip, model. and scenario. paths
}

// withScenario is r under a review scenario.
func (r run) withScenario(s Scenario) run {
	r.scenario = s.Scenario
	if s.Duration != nil {
		r.duration = float64(*s.Duration)
	}
	r.sets = append(slices.Clone(r.sets), s.Sets()...)
	return r
}

// config loads chip (a catalog id or a file) and everything r names into
// a simulation config, as simulate loads its flags.
func (r run) config(chip string) (sim.Config, error) {
	fid, err := sim.ParseFidelity(r.fidelity)
	if err != nil {
		return sim.Config{}, err
	}
	q, err := workloads.ParseQuant(r.quant)
	if err != nil {
		return sim.Config{}, err
	}
	kv, err := workloads.ParseKVFormat(r.kv)
	if err != nil {
		return sim.Config{}, err
	}
	sets, err := sim.SplitSets(r.sets)
	if err != nil {
		return sim.Config{}, err
	}
	chipSets, modelSets, scenarioSets := sets.Chip, sets.Model, sets.Scenario
	var scenario *workloads.Scenario
	if r.scenario != "" {
		if scenario, err = workloads.LoadScenario(r.scenario, scenarioSets); err != nil {
			return sim.Config{}, err
		}
	} else if len(scenarioSets) > 0 {
		return sim.Config{}, fmt.Errorf("set scenario.%s: the run has no scenario to apply it to", scenarioSets[0].Path)
	}
	c, err := hw.LoadChip(chip, chipSets)
	if err != nil {
		return sim.Config{}, loadErr{"chip", err}
	}
	model, err := workloads.LoadModel(r.model, modelSets)
	if err != nil {
		return sim.Config{}, loadErr{"model", err}
	}
	var pol *sim.Policy
	if r.policy != "" {
		if pol, err = sim.LoadPolicy(r.policy); err != nil {
			return sim.Config{}, err
		}
	}
	cfg := sim.Config{
		Chip: c, Model: model, Quant: q, KV: kv, Policy: pol, Scenario: scenario, Duration: r.duration, RuntimeSets: sets.Runtime,
		Prompt: r.prompt, Gen: r.gen, Batch: r.batch, Fidelity: fid, Seed: r.seed,
	}
	// The chip as its runtime runs it, as simulate resolves it: a config
	// that cannot run is left as it is, and its run says why.
	_ = sim.Resolve(&cfg)
	return cfg, nil
}

// loadErr is a run's chip or model that did not load, so that the review
// can place the error at the entry that named it.
type loadErr struct {
	what string // chip or model
	err  error
}

func (e loadErr) Error() string { return e.err.Error() }
func (e loadErr) Unwrap() error { return e.err }

// loader loads a chip under r plus extra overrides, for the advisor.
func (r run) loader() advisor.Loader {
	return func(chip string, sets []string) (sim.Config, error) {
		pr := r
		pr.sets = append(slices.Clone(r.sets), sets...)
		return pr.config(chip)
	}
}
