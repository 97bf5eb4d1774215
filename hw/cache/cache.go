package cache

import (
	"fmt"
	"math/bits"
)

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

// Cache is a set-associative cache with LRU replacement. Each set keeps
// its blocks in recency order, most recent first, so a hit moves one block
// to the front and a miss shifts the set by one and drops the last.
type Cache struct {
	g     Geometry
	sets  int64
	ways  int64
	shift uint    // log2(Block) when Block is a power of two, else 0
	tags  []int64 // per set, most recent first; -1 when empty

	Accesses, Misses int64 // counted in blocks
}

// New builds an empty cache; it panics on a geometry Validate rejects
// (a programmer error: chip files are validated when loaded).
func New(g Geometry) *Cache {
	if err := g.Validate(); err != nil {
		panic(err)
	}
	c := &Cache{g: g, sets: g.Sets(), ways: int64(g.Ways), tags: make([]int64, g.Sets()*int64(g.Ways))}
	if g.Block&(g.Block-1) == 0 {
		c.shift = uint(bits.TrailingZeros64(uint64(g.Block)))
	}
	for i := range c.tags {
		c.tags[i] = -1
	}
	return c
}

// Geometry returns the cache's shape.
func (c *Cache) Geometry() Geometry { return c.g }

func (c *Cache) block(addr int64) int64 {
	if c.shift > 0 {
		return addr >> c.shift
	}
	return addr / c.g.Block
}

// Access looks up the block holding addr and reports a hit. On a miss with
// allocate set, the least recently used block of the set is replaced.
func (c *Cache) Access(addr int64, allocate bool) bool {
	c.Accesses++
	blk := c.block(addr)
	base := (blk % c.sets) * c.ways
	set := c.tags[base : base+c.ways : base+c.ways]
	for w, tag := range set {
		if tag == blk {
			copy(set[1:w+1], set[:w])
			set[0] = blk
			return true
		}
	}
	c.Misses++
	if allocate {
		copy(set[1:], set[:len(set)-1])
		set[0] = blk
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
	for blk := c.block(addr); blk*b < addr+n; blk++ {
		lo, hi := max(blk*b, addr), min((blk+1)*b, addr+n)
		if c.Access(blk*b, allocate) {
			hitBytes += hi - lo
		}
	}
	return hitBytes
}
