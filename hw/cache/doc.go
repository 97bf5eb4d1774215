// Package cache models a set-associative cache (the L3 / system-level
// cache of an SoC) as a pure state machine: Access an address, learn
// whether it hit, with no notion of time.
//
// A Config gives the shape (Geometry) and the replacement policy: LRU,
// SRRIP (scan resistant) or BRRIP (thrash resistant). Each access carries
// a Request: whether a miss allocates, which ways it may allocate into (a
// WayMask, like Intel CAT or Arm MPAM way partitioning; lookups hit in any
// way), whether to lock the block, and a class for the counters:
//
//	c := cache.New(cache.Config{
//		Geometry:    cache.Geometry{Size: 12 << 20, Ways: 12, Block: 64},
//		Replacement: cache.SRRIP,
//	})
//	// Weights stream through; KV is pinned in 8 of the 12 ways.
//	weights := cache.Request{Class: 0}
//	kv := cache.Request{Allocate: true, Ways: cache.Ways(0, 8), Lock: true, Class: 1}
//	c.AccessRange(wAddr, wBytes, weights)
//	hitBytes := c.AccessRange(kvAddr, kvBytes, kv)
//	accesses, misses := c.Stats(1) // KV, in blocks
//
// A locked block is never evicted until Unlock; when every way a request
// may allocate into is locked, the access misses without allocating.
//
// The cache may track blocks coarser than a line (the simulator's `tile`
// fidelity); a block is the unit of allocation and replacement, and the
// counters count blocks, while AccessRange returns the bytes of the range
// that hit. TileGeometry gives the block the tile fidelity uses and says
// why it is no coarser.
//
// Access costs O(ways) for the tag search and allocates nothing. An LRU
// miss that may allocate in every way takes its victim from the set's
// recency list in O(1) instead of a second pass over the ways (a miss in
// a partition still makes it). BenchmarkLRUVictim holds the lists against
// that pass: about 1.5× cheaper on a stream of misses, but up to 2×
// dearer on random traffic that mostly hits, since every hit relinks.
package cache
