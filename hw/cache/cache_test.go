package cache

import "testing"

func TestLRUHandTrace(t *testing.T) {
	// 2 sets × 2 ways of 64 B blocks. Blocks 0, 2, 4 map to set 0.
	c := New(Geometry{Size: 256, Ways: 2, Block: 64})
	trace := []struct {
		addr int64
		hit  bool
	}{
		{0, false},   // set 0: [0]
		{128, false}, // set 0: [0 2]
		{0, true},    // 0 most recent
		{256, false}, // evicts block 2 (LRU)
		{128, false}, // block 2 was evicted; evicts 0
		{256, true},
		{64, false}, // set 1, independent
		{0, false},
	}
	for i, s := range trace {
		if got := c.Access(s.addr, true); got != s.hit {
			t.Fatalf("access %d (addr %d): hit=%v, want %v", i, s.addr, got, s.hit)
		}
	}
	if c.Accesses != 8 || c.Misses != 6 {
		t.Errorf("counters %d/%d, want 8 accesses 6 misses", c.Accesses, c.Misses)
	}
}

func TestNoAllocateStreamsThrough(t *testing.T) {
	c := New(Geometry{Size: 1024, Ways: 4, Block: 64})
	c.Access(0, false)
	if c.Access(0, true) {
		t.Error("a block read without allocation must not be cached")
	}
	if !c.Access(0, true) {
		t.Error("an allocated block must hit")
	}
}

func TestWorkingSetThatFitsStopsMissing(t *testing.T) {
	c := New(Geometry{Size: 8 << 10, Ways: 4, Block: 64})
	for pass := 0; pass < 3; pass++ {
		hit := c.AccessRange(0, 8<<10, true)
		if pass > 0 && hit != 8<<10 {
			t.Errorf("pass %d: %d of %d bytes hit; a working set equal to the cache must hit fully", pass, hit, 8<<10)
		}
	}
	// A cyclic working set one block larger than an LRU cache misses every time.
	c = New(Geometry{Size: 4 * 64, Ways: 4, Block: 64})
	c.AccessRange(0, 5*64, true)
	if hit := c.AccessRange(0, 5*64, true); hit != 0 {
		t.Errorf("cyclic set larger than LRU cache: %d bytes hit, want 0", hit)
	}
}

func TestPartialBlocksCountBytes(t *testing.T) {
	c := New(Geometry{Size: 1024, Ways: 4, Block: 64})
	c.AccessRange(0, 64, true)
	if hit := c.AccessRange(32, 64, true); hit != 32 {
		t.Errorf("hit %d bytes, want 32 (the half overlapping block 0)", hit)
	}
}

func BenchmarkAccess(b *testing.B) {
	c := New(Geometry{Size: 8 << 20, Ways: 16, Block: 64 << 10})
	for i := 0; i < b.N; i++ {
		c.Access(int64(i)*(64<<10), true)
	}
}
