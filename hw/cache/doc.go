// Package cache models a set-associative cache (the L3 / system-level
// cache of an SoC) as a pure state machine: Access an address, learn
// whether it hit, with no notion of time.
//
// The cache may track blocks coarser than a line (the simulator's `tile`
// fidelity uses blocks of several lines to stay fast); a block is the unit
// of allocation and replacement. Replacement is least-recently-used within
// a set.
//
//	c := cache.New(cache.Geometry{Size: 8 << 20, Ways: 16, Block: 64})
//	hit := c.Access(addr, true) // true: allocate on a miss
//
// Access costs O(ways).
package cache
