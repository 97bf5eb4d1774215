// Package advisor answers "which chip should I buy for this workload?".
//
// It runs the simulator for every candidate chip on one workload, checks
// the user's requirements and objective, written as expr expressions
// (github.com/expr-lang/expr) over the simulate result's keys and the
// chip's spec under chip., and ranks the candidates: passing chips first by
// the objective, ties broken by spec dominance, then the failing ones.
//
// Each candidate also gets:
//   - a one-line diagnosis of its bottleneck, in words and numbers, with
//     what more DRAM bandwidth or a faster matrix unit would buy;
//   - the elasticity of the key metrics (decode tokens/s, TTFT) to each
//     uncertain parameter, from finite-difference reruns with the
//     parameter changed through --set paths, run in parallel;
//     When heat can decide (the run throttled, gives a sustained rate, or
//     lasts a minute and a requirement reads a thermal metric), also to
//     the thermal network's resistances to ambient, the skin trip's
//     headroom above ambient and the running unit's active power;
//     temperatures respond by their rise above ambient;
//   - vendor questions: the parameters that matter (|elasticity| > 0.1)
//     but are only assumed (no datasheet source, no calibration), each
//     with the measurement that would settle it ("sustained NPU clock at
//     45 °C skin", "skin temperature after 5 minutes of decode at 25 °C
//     ambient").
//
// The Pareto front of price against sustained decode tokens/s (where
// every run gives one: runs of 2 minutes or more), else decode tokens/s,
// is computed over the chips that ran.
//
// Expressions are compiled once, before anything runs, against a typed
// example environment, so a misspelt metric or a syntax error is an input
// error that names the problem and the closest valid names. A requirement
// that reads a null metric (thermal.sustained_tokens_per_s of a short run,
// say) fails and says so.
//
// PrepareQuestions and QuestionsPlan.Run answer the standard review
// questions for one chip and workload, each from its own run (made
// through the caller's worker pool): the L3 miss rate at 4/8/16 MiB of KV
// (the context that holds that much, workloads.Model.ContextForKV), time
// to throttle and sustained speed (the sustained scenario), TTFT cold and
// warm, prefill and decode speed, 30-turn stability (chat-30) and
// operator coverage on the NPU (which unit ran the model and why, and a
// run on a passed-over NPU with a weight format it reads). Each answer
// lists the spec figures it rests on, each cited, assumed, calibrated,
// set or given.
//
// The package knows nothing of flags or output formats: cmd/edgetwin turns
// flags into a Request, and reports prints the Advice.
package advisor
