package cache

import (
	"fmt"
	"math/bits"
	"slices"
)

// Geometry is the shape of a cache: Size = Ways × Block × sets.
type Geometry struct {
	Size  int64 // bytes
	Ways  int   // 1 to 64 (a WayMask has one bit per way)
	Block int64 // bytes tracked as one unit: a line, or several lines
}

// Sets is the number of sets the geometry implies.
func (g Geometry) Sets() int64 { return g.Size / (int64(g.Ways) * g.Block) }

// Validate reports a geometry that is not a whole number of sets, or that
// has more ways than a WayMask can name.
func (g Geometry) Validate() error {
	if g.Size <= 0 || g.Ways <= 0 || g.Block <= 0 {
		return fmt.Errorf("cache size, ways and block must be positive")
	}
	if g.Ways > 64 {
		return fmt.Errorf("cache has %d ways; at most 64 are supported", g.Ways)
	}
	if g.Sets() < 1 || g.Sets()*int64(g.Ways)*g.Block != g.Size {
		return fmt.Errorf("cache size %d is not ways × block × sets (%d × %d × n)", g.Size, g.Ways, g.Block)
	}
	return nil
}

// TileGeometry is the coarse geometry the `tile` fidelity uses for a cache
// of size bytes, ways ways and line-byte lines: the block is the largest
// power-of-two multiple of the line that is at most 512 B, divides a way
// and leaves at least 64 sets. When no coarser block qualifies the block is
// the line itself, which is exact.
//
// Line and tile caches map every address range of one way to the same set
// (sets × Block is the way size in both), so a trace of whole, aligned
// blocks behaves identically at both granularities: each line set replays
// the sequence of its block set. They differ only on blocks a trace
// touches in part: a tensor's edge, a token's small KV write. The cost is
// worst at a capacity cliff, when a working set overflows its ways by a
// little: a few extra lines overflow a few line sets, but a partly used
// block overflows a whole block set, about (ways+1) × Block bytes of misses
// per tensor edge. That bounds the block: on decode traces (TestLineVsTile,
// 8 and 32 layers, KV of 1-16 MiB, L3 of 3-12 MiB) 512 B blocks stay within
// 0.03 of the line miss rates; 1 KiB does not at 32 layers, and 4-32 KiB
// blocks (also larger than the 4 KiB pages tensors are laid out on) miss
// by up to 0.3. Set sampling (simulating one group of sets in n) was tried
// too: tensors start on pages, so sets differ by their position in a page,
// and small per-layer KV regions leave too few sampled sets to stay within
// 0.03.
func TileGeometry(size int64, ways int, line int64) Geometry {
	const maxBlock, minSets = 512, 64
	way := size / int64(ways)
	block := line
	for b := 2 * block; b <= maxBlock && way%b == 0 && way/b >= minSets; b *= 2 {
		block = b
	}
	return Geometry{Size: size, Ways: ways, Block: block}
}

// Replacement names a replacement policy.
type Replacement string

// The replacement policies. The RRIP family follows Jaleel et al., "High
// Performance Cache Replacement Using Re-Reference Interval Prediction",
// ISCA 2010, with 2-bit re-reference prediction values (RRPV, 0 = soon,
// 3 = distant) and hit priority: a hit sets RRPV 0. The victim is the first
// candidate way (in way order) at RRPV 3; when there is none, every
// candidate ages until one reaches 3.
const (
	// LRU evicts the least recently used candidate.
	LRU Replacement = "lru"
	// SRRIP inserts at RRPV 2, so a block must be re-referenced to outlive
	// a scan: it resists scans (streamed weights) that would flush a reused
	// working set under LRU. With no hits it degenerates to FIFO, so a
	// cyclic working set larger than its ways thrashes as under LRU.
	SRRIP Replacement = "srrip"
	// BRRIP inserts at RRPV 3 except every 32nd insertion into a set, which
	// goes in at 2 (the paper's bimodal ε = 1/32, made deterministic and
	// per set so line and tile granularities replay the same decisions).
	// It resists thrashing: part of a cyclic working set larger than its
	// ways stays resident and hits.
	BRRIP Replacement = "brrip"
)

// Config is what New needs: a geometry and a replacement policy (the zero
// value means LRU).
type Config struct {
	Geometry
	Replacement Replacement
}

// Validate reports a bad geometry or an unknown replacement policy.
func (cfg Config) Validate() error {
	if _, err := cfg.Replacement.policy(); err != nil {
		return err
	}
	return cfg.Geometry.Validate()
}

type policy uint8

const (
	lru policy = iota
	srrip
	brrip
)

func (r Replacement) policy() (policy, error) {
	switch r {
	case LRU, "":
		return lru, nil
	case SRRIP:
		return srrip, nil
	case BRRIP:
		return brrip, nil
	}
	return 0, fmt.Errorf("unknown cache replacement policy %q (want %q, %q or %q)", r, LRU, SRRIP, BRRIP)
}

// WayMask is a set of ways: bit w stands for way w. The zero mask means
// every way; bits at or above the cache's way count are ignored.
type WayMask uint64

// Ways is the mask of the n ways from, from+1, …, from+n-1.
func Ways(from, n int) WayMask {
	if n <= 0 {
		return 0
	}
	return WayMask((uint64(1)<<n - 1) << from) // n = 64 wraps to all ones
}

// Request says how one access behaves beyond looking the block up.
type Request struct {
	// Allocate fills the block on a miss (else the access streams through).
	Allocate bool
	// Lock marks the block locked when it hits or is allocated: a locked
	// block is never chosen as a victim until Unlock.
	Lock bool
	// Class tags the access for the per-class counters (e.g. 0 weights,
	// 1 KV, 2 activations); see Stats.
	Class uint8
	// Ways restricts allocation to a partition of the ways, as Intel CAT
	// or Arm MPAM way partitioning do; lookups hit in any way. Zero means
	// every way.
	Ways WayMask
}

// Cache is a set-associative cache. Each way of each set holds a block
// number (tags, -1 when empty) and a replacement key (keys): the victim of
// a miss is the allowed way with the smallest key, the first in way order
// on a tie. An empty way's key is 0; a locked block's key carries the top
// bit. Under LRU a key is the time stamp of the block's latest access;
// under RRIP it is 4 − RRPV, so RRPV 3 (distant) is key 1.
//
// Under LRU each set also keeps its ways in key order (a recency list:
// empty ways first, by way number, then the blocks from least to most
// recently used), so a miss that may allocate in every way takes the
// first unlocked way from the old end instead of comparing every way's
// key: the same victim, in O(1) unless the oldest ways are locked. A miss
// in a partition of the ways compares keys, as before.
type Cache struct {
	g      Geometry
	policy policy
	sets   uint64
	pow2   bool // sets is a power of two
	ways   int
	all    WayMask
	shift  uint // log2(Block) when Block is a power of two, else 0
	tags   []int64
	keys   []uint64
	ins    []uint8 // BRRIP: insertions per set, modulo 32
	clock  uint64  // LRU: time stamp of the latest access
	// LRU's recency lists, a block of stride entries a set, so that a
	// lookup touches one more cache line: entry 0 holds the set's oldest
	// way (low byte) and newest (high byte), entry 1+w way w's next less
	// recent way (low) and next more recent (high), none at the ends.
	// Nil when the victim is found by comparing keys (benchmarks only).
	rec    []uint16
	stride int
	acc    [256]int64
	miss   [256]int64
}

const (
	locked   = 1 << 63
	excluded = 1 << 62 // a way the request may not allocate into
	none     = 0xff    // no way: the end of a recency list (ways ≤ 64)
	// maxWalk is how many locked ways an LRU miss skips along its
	// recency list before it scans the keys instead.
	maxWalk = 4
	// RRIP keys: 4 − RRPV.
	keyHit     = 4 // RRPV 0
	keyLong    = 2 // RRPV 2: SRRIP's insertion, BRRIP's every 32nd
	keyDistant = 1 // RRPV 3: BRRIP's insertion, and the victims
)

// New builds an empty cache; it panics on a configuration Validate rejects
// (a programmer error: chip files are validated when loaded).
func New(cfg Config) *Cache {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	g := cfg.Geometry
	p, _ := cfg.Replacement.policy()
	n := g.Sets() * int64(g.Ways)
	c := &Cache{
		g: g, policy: p, sets: uint64(g.Sets()), ways: g.Ways, all: Ways(0, g.Ways),
		tags: make([]int64, n), keys: make([]uint64, n),
	}
	c.pow2 = c.sets&(c.sets-1) == 0
	if g.Block&(g.Block-1) == 0 {
		c.shift = uint(bits.TrailingZeros64(uint64(g.Block)))
	}
	if p == brrip {
		c.ins = make([]uint8, c.sets)
	}
	for i := range c.tags {
		c.tags[i] = -1
	}
	if p == lru {
		// A set's block is padded to a power of two (32 B for 12 ways,
		// 64 B for 16), so it never straddles two cache lines.
		c.stride = 1 << bits.Len(uint(c.ways))
		c.rec = make([]uint16, int(c.sets)*c.stride)
		var order [64]uint8
		for w := range c.ways {
			order[w] = uint8(w)
		}
		for s := range c.sets {
			c.link(s, order[:c.ways])
		}
	}
	return c
}

// recency is set s's recency list: its ends, then a link a way.
func (c *Cache) recency(s uint64) []uint16 {
	o := int(s) * c.stride
	return c.rec[o : o+c.ways+1 : o+c.ways+1]
}

// link makes order (every way of set s once, oldest first) the set's
// recency list.
func (c *Cache) link(s uint64, order []uint8) {
	rec := c.recency(s)
	prev := uint8(none)
	for k, w := range order {
		next := uint8(none)
		if k+1 < len(order) {
			next = order[k+1]
		}
		rec[1+int(w)] = uint16(prev) | uint16(next)<<8
		prev = w
	}
	rec[0] = uint16(order[0]) | uint16(prev)<<8
}

// touch makes way w the most recent of its set, whose list is rec.
func touch(rec []uint16, w uint8) {
	ends := rec[0]
	m := uint8(ends >> 8)
	if m == w {
		return
	}
	l := rec[1+int(w)]
	o, n := uint8(l), uint8(l>>8) // n is a way: w is not the newest
	rec[1+int(n)] = rec[1+int(n)]&0xff00 | uint16(o)
	if o == none {
		ends = ends&0xff00 | uint16(n)
	} else {
		rec[1+int(o)] = rec[1+int(o)]&0x00ff | uint16(n)<<8
	}
	rec[1+int(m)] = rec[1+int(m)]&0x00ff | uint16(w)<<8
	rec[1+int(w)] = uint16(m) | none<<8
	rec[0] = ends&0x00ff | uint16(w)<<8
}

// Geometry returns the cache's shape.
func (c *Cache) Geometry() Geometry { return c.g }

// Stats returns the accesses and misses of one class, in blocks.
func (c *Cache) Stats(class uint8) (accesses, misses int64) {
	return c.acc[class], c.miss[class]
}

// Totals returns the accesses and misses of all classes, in blocks.
func (c *Cache) Totals() (accesses, misses int64) {
	for i := range c.acc {
		accesses += c.acc[i]
		misses += c.miss[i]
	}
	return accesses, misses
}

// Unlock unlocks every block.
func (c *Cache) Unlock() {
	for i := range c.keys {
		c.keys[i] &^= locked
	}
}

func (c *Cache) block(addr int64) int64 {
	if c.shift > 0 {
		return addr >> c.shift
	}
	return addr / c.g.Block
}

// Access looks up the block holding addr (addr ≥ 0) and reports a hit.
//
// A miss with r.Allocate set fills the block into a candidate way: a way in
// r.Ways that is not locked. An empty candidate is filled first (the lowest
// such way); otherwise the policy picks the victim among the candidates.
// When every candidate way of the set is locked (or r.Ways names none of
// the cache's ways) the access does not allocate: it counts as a miss and
// evicts nothing. Access costs O(ways) (the tag search; under LRU the
// victim costs O(1) more, plus the ways skipped for a partition or a
// lock) and does not allocate memory.
func (c *Cache) Access(addr int64, r Request) bool {
	return c.access(c.block(addr), r)
}

func (c *Cache) access(blk int64, r Request) bool {
	c.acc[r.Class]++
	s := uint64(blk) & (c.sets - 1)
	if !c.pow2 {
		s = uint64(blk) % c.sets
	}
	base := int(s) * c.ways
	tags := c.tags[base : base+c.ways : base+c.ways]
	keys := c.keys[base : base+c.ways : base+c.ways]
	var lock uint64
	if r.Lock {
		lock = locked
	}
	for w, tag := range tags {
		if tag == blk {
			if c.policy == lru {
				c.clock++
				keys[w] = keys[w]&locked | lock | c.clock
				if c.rec != nil {
					touch(c.recency(s), uint8(w))
				}
			} else {
				keys[w] = keys[w]&locked | lock | keyHit
			}
			return true
		}
	}
	c.miss[r.Class]++
	if !r.Allocate {
		return false
	}
	// The victim: the smallest key among the allowed ways.
	mask := c.all
	if r.Ways != 0 {
		mask &= r.Ways
	}
	if c.rec != nil && mask == c.all {
		// LRU over the whole set: the oldest unlocked way of the recency
		// list. Past a few locked ways the scan below is cheaper than
		// following links; under a partition it always is.
		rec := c.recency(s)
		w := uint8(rec[0])
		for k := 0; k < maxWalk && w != none; k++ {
			if keys[w]&locked == 0 {
				tags[w] = blk
				c.clock++
				keys[w] = lock | c.clock
				touch(rec, w)
				return false
			}
			w = uint8(rec[1+int(w)] >> 8)
		}
	}
	// Scan the span of the mask; a mask with holes (rare: Ways makes
	// spans) also skips the ways missing from it.
	lo, hi := bits.TrailingZeros64(uint64(mask)), bits.Len64(uint64(mask))
	holes := mask != Ways(lo, hi-lo)
	victim, low := 0, uint64(excluded)
	for w := lo; w < hi; w++ {
		if k := keys[w]; k < low && !(holes && mask>>w&1 == 0) {
			victim, low = w, k
		}
	}
	if low >= excluded {
		return false // every allowed way is locked (or none is allowed)
	}
	tags[victim] = blk
	switch c.policy {
	case lru:
		c.clock++
		keys[victim] = lock | c.clock
		if c.rec != nil {
			touch(c.recency(s), uint8(victim))
		}
		return false
	case srrip:
		keys[victim] = lock | keyLong
	case brrip:
		keys[victim] = lock | keyDistant
		if c.ins[s]++; c.ins[s] == 32 {
			c.ins[s] = 0
			keys[victim] = lock | keyLong
		}
	}
	// RRIP: when no candidate was at RRPV 3, age every candidate by the
	// same amount so the victim reaches 3 (the paper's "increment all and
	// retry", in one step). The victim itself was just refilled.
	if low > keyDistant {
		age := low - keyDistant
		for w := range keys {
			if w != victim && keys[w] < excluded && mask>>w&1 != 0 {
				keys[w] -= age
			}
		}
	}
	return false
}

// AccessRange makes one access (with r) to every block overlapping
// [addr, addr+n) and returns how many of those bytes hit.
func (c *Cache) AccessRange(addr, n int64, r Request) (hitBytes int64) {
	if n <= 0 {
		return 0
	}
	b, end := c.g.Block, addr+n
	for blk := c.block(addr); blk*b < end; blk++ {
		if c.access(blk, r) {
			hitBytes += min((blk+1)*b, end) - max(blk*b, addr)
		}
	}
	return hitBytes
}

// State is a copy of what a cache holds: its blocks and their
// replacement keys (not its access counts).
type State struct {
	tags  []int64
	keys  []uint64
	ins   []uint8
	clock uint64
	rec   []uint16 // LRU's recency lists, which the keys imply
}

// Save copies the cache's contents.
func (c *Cache) Save() *State { return c.SaveTo(nil) }

// SaveTo copies the cache's contents into s, reusing its buffers, and
// returns it (a new State when s is nil).
func (c *Cache) SaveTo(s *State) *State {
	if s == nil {
		s = &State{}
	}
	s.tags = append(s.tags[:0], c.tags...)
	s.keys = append(s.keys[:0], c.keys...)
	s.ins = append(s.ins[:0], c.ins...)
	s.rec = append(s.rec[:0], c.rec...)
	s.clock = c.clock
	return s
}

// Matches reports whether the cache holds what s holds in a way no
// access can tell apart: the same block in every way, locked alike, in
// the same replacement order, so the same accesses from either give the
// same hits and leave the same blocks. Under LRU the order is the
// recency lists' (the time stamps themselves may differ); under RRIP the
// keys and BRRIP's insertion counts. A cache without recency lists (a
// benchmark's) never matches under LRU.
func (c *Cache) Matches(s *State) bool {
	if !slices.Equal(c.tags, s.tags) {
		return false
	}
	if c.policy != lru {
		return slices.Equal(c.keys, s.keys) && slices.Equal(c.ins, s.ins)
	}
	if c.rec == nil || !slices.Equal(c.rec, s.rec) {
		return false
	}
	for i, k := range c.keys {
		if k&locked != s.keys[i]&locked {
			return false
		}
	}
	return true
}

// Restore puts back contents saved from this cache (or one of the same
// geometry and policy).
func (c *Cache) Restore(s *State) {
	copy(c.tags, s.tags)
	copy(c.keys, s.keys)
	copy(c.ins, s.ins)
	c.clock = s.clock
	copy(c.rec, s.rec)
}

// Invalidate empties every unlocked block in the given ways (0: all), as a
// scan far larger than those ways would leave them for the blocks that
// come after it.
func (c *Cache) Invalidate(ways WayMask) {
	if ways == 0 {
		ways = c.all
	}
	for base := 0; base < len(c.tags); base += c.ways {
		for w := range c.ways {
			if ways>>w&1 != 0 && c.keys[base+w]&locked == 0 {
				c.tags[base+w], c.keys[base+w] = -1, 0
			}
		}
		if c.rec != nil {
			c.relinkEmpty(uint64(base / c.ways))
		}
	}
}

// relinkEmpty restores set s's recency list after ways were emptied: the
// empty ways (key 0) first, by way number, then the others in the order
// they had.
func (c *Cache) relinkEmpty(s uint64) {
	base := int(s) * c.ways
	var order [64]uint8
	n := 0
	for w := range c.ways {
		if c.tags[base+w] == -1 {
			order[n] = uint8(w)
			n++
		}
	}
	rec := c.recency(s)
	for w := uint8(rec[0]); w != none; w = uint8(rec[1+int(w)] >> 8) {
		if c.tags[base+int(w)] != -1 {
			order[n] = w
			n++
		}
	}
	c.link(s, order[:c.ways])
}
