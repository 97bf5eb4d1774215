// Package sweep explores a chip or model over ranges of its fields: the
// --vary range language, the runner that simulates every combination on
// all cores, and the JSON Lines form that lets a sweep too large for one
// machine run as shards of a Slurm array or a Kubernetes Indexed Job and
// be merged back.
//
// A range is FIELD=a..b:step (additive), FIELD=a..b:xN (multiplicative),
// both ends included, or FIELD=a,b,c; values take units (1MiB, 40GB/s).
// A field of names (quant, model, runtime: ChoiceFields) takes a list of
// names, quant=Q4_0,Q5_K_M,Q8_0; its Values are the indices of its
// Choices, so a point is still a vector of numbers, and every output
// writes the name (Field.Text, Field.JSON), the JSON Lines form too. A
// point passes such a field to Load as NAME=value after the sweep's own
// --set values, and the caller runs it as its flag.
//
// ParseVaries reads the --vary flags into Axes; the first axis is the
// outermost loop, so point i of a sweep is i written in the mixed radix
// of the axes' lengths.
//
//	axes, err := sweep.ParseVaries([]string{"kv=1MiB..16MiB:x2", "memory.l3.size=6MiB,12MiB"})
//	s := &sweep.Sweep{Axes: axes, Metrics: []string{"decode.tokens_per_s"}, Load: load, Measure: measure}
//	points, err := s.Run(ctx, sweep.Shard{}.Indices(s.Len()), nil)
//
// The caller supplies Load (a configuration from --set overrides) and
// Measure (metrics from a result), so the package knows nothing of flags
// or output formats. Points come back in range order whatever the
// parallelism (they run on internal/pool), so the output of a sweep is
// the same bytes on one core or many.
//
// A Shard I/N is the points whose index is I modulo N; ParseShard reads
// it from --shard, or from the batch system's environment for --shard
// auto. An Encoder writes a shard as JSON Lines, a Header line first
// (the sweep's varies, metrics, flags digest and point count) and then a
// point a line with its index; Merge reads the parts back into the whole
// Result, refusing parts of different sweeps, missing points and points
// given twice. Each run costs one simulation per point; the check of
// every point's overrides before the run loads each distinct chip and
// model once more.
//
// Judge, when the caller sets it, checks each point against requirements
// and evaluates the objectives of a Pareto front (the caller compiles
// them: advisor.SweepJudge). Result.Front picks the points that
// pass and that no other beats in every objective (Front, O(n²), ties all
// kept). ReadPartial reads the JSON Lines of a run cut short, so that it
// can go on with only the missing points (AppendEncoder) and end with the
// bytes an uninterrupted run writes. RunAll runs a list of
// configurations (compare's chips) on the same worker pool.
package sweep
