// Package review is edgetwin's design review: a review file in, a report
// bundle out.
//
// A review file (YAML, strict: unknown fields, repeated keys and bad
// values are errors at file:line, hw/spec's error) names the chips, the
// models, the single-prompt workload, the scenarios, the overrides for
// every run, the requirements and objective (advisor expressions), the
// questions and the contexts of the decode-rate figure. Parse checks it
// into a File.
//
// Prepare plans the review: every chip and model is loaded, the
// requirements and objective compiled, and every run listed, the
// advisor's (ranking, margins, sensitivities; per model, under the first
// scenario) and each figure's own (decode rate against context, L3 miss
// rate against KV size per placement policy, the power cliff, the parts
// of a decode step, the per-turn latency of a chat). Plan.Run runs them
// on all cores through internal/pool and lays out a reports.Bundle: the
// answers to the questions asked by id, the requirements per model, the
// figures, the parameters that matter and every assumption with its
// source. reports renders the bundle; this package decides what is in it.
//
//	data, err := spec.ReadFile("examples/review/review.yaml", "review")
//	f, err := review.Parse("examples/review/review.yaml", data)
//	p, err := review.Prepare(f)
//	b, err := p.Run(ctx, os.Stderr)
//	err = reports.WriteBundle(ctx, "review-report", b)
//
// A question has one answer in the tree: the throttle, bottleneck and
// vendor questions are the advisor's (advisor.Throttling, the ranking's
// diagnoses, its vendor questions); choosing a chip and meeting the
// requirements are read off the ranking here. What it costs: the advice's
// sensitivity reruns (first model only) and the figures' runs, a few
// dozen simulations for a handful of chips; examples/review (three chips,
// two models, tile fidelity) takes about a minute on two cores.
package review
