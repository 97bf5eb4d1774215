// Package pool runs independent pieces of work on all cores: the one
// worker pool of edgetwin, used by every command that runs many
// simulations (sweep, compare, report, advise questions).
//
// ForEach hands out indices 0..n-1 to runtime.GOMAXPROCS(0) workers. Each
// piece keeps its result by index, so what a caller prints does not depend
// on the parallelism or on which worker finished first. While it runs, a
// Progress bar is drawn on the caller's stderr when that is a terminal and
// nothing otherwise, so scripted output stays clean.
//
//	results := make([]float64, len(points))
//	pool.ForEach(ctx, os.Stderr, "sweep", len(points), func(i int) {
//		results[i] = simulate(points[i])
//	})
//
// The pool imports nothing of edgetwin: any package may use it.
package pool
