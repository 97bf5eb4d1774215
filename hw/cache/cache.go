package cache

import "fmt"

// Geometry is the shape of a cache: Size = Ways × Block × sets.
type Geometry struct {
	Size  int64 // bytes
	Ways  int
	Block int64 // bytes tracked as one unit: a line, or several lines
}

// Sets is the number of sets the geometry implies.
func (g Geometry) Sets() int64 { return g.Size / (int64(g.Ways) * g.Block) }

// Validate reports a geometry that is not a whole number of sets.
func (g Geometry) Validate() error {
	if g.Size <= 0 || g.Ways <= 0 || g.Block <= 0 {
		return fmt.Errorf("cache size, ways and block must be positive")
	}
	if g.Sets() < 1 || g.Sets()*int64(g.Ways)*g.Block != g.Size {
		return fmt.Errorf("cache size %d is not ways × block × sets (%d × %d × n)", g.Size, g.Ways, g.Block)
	}
	return nil
}

// Cache is a set-associative cache with LRU replacement.
type Cache struct {
	g     Geometry
	sets  int64
	tags  []int64  // per way; -1 when empty
	stamp []uint64 // last-use time per way
	now   uint64

	Accesses, Misses int64 // counted in blocks
}

// New builds an empty cache; it panics on a geometry Validate rejects
// (a programmer error: chip files are validated when loaded).
func New(g Geometry) *Cache {
	if err := g.Validate(); err != nil {
		panic(err)
	}
	n := g.Sets() * int64(g.Ways)
	c := &Cache{g: g, sets: g.Sets(), tags: make([]int64, n), stamp: make([]uint64, n)}
	for i := range c.tags {
		c.tags[i] = -1
	}
	return c
}

// Geometry returns the cache's shape.
func (c *Cache) Geometry() Geometry { return c.g }

// Access looks up the block holding addr and reports a hit. On a miss with
// allocate set, the least recently used block of the set is replaced.
func (c *Cache) Access(addr int64, allocate bool) bool {
	c.now++
	c.Accesses++
	blk := addr / c.g.Block
	base := (blk % c.sets) * int64(c.g.Ways)
	end := base + int64(c.g.Ways)
	tags, stamps := c.tags[base:end:end], c.stamp[base:end:end]
	for w, tag := range tags {
		if tag == blk {
			stamps[w] = c.now
			return true
		}
	}
	c.Misses++
	if allocate {
		victim := 0
		for w, s := range stamps {
			if s < stamps[victim] {
				victim = w
			}
		}
		tags[victim] = blk
		stamps[victim] = c.now
	}
	return false
}

// AccessRange touches every block overlapping [addr, addr+n) and returns
// how many of those bytes hit.
func (c *Cache) AccessRange(addr, n int64, allocate bool) (hitBytes int64) {
	if n <= 0 {
		return 0
	}
	b := c.g.Block
	for blk := addr / b; blk*b < addr+n; blk++ {
		lo, hi := max(blk*b, addr), min((blk+1)*b, addr+n)
		if c.Access(blk*b, allocate) {
			hitBytes += hi - lo
		}
	}
	return hitBytes
}
