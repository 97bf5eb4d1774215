package cache

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// set0 draws set 0 of a cache whose blocks are named by letter (block 0 is
// A): one word per way, "-" when empty, then "*" when locked, or the RRPV
// under an RRIP policy.
func set0(c *Cache) string {
	var b strings.Builder
	for w := range c.ways {
		if w > 0 {
			b.WriteByte(' ')
		}
		if c.tags[w] < 0 {
			b.WriteByte('-')
			continue
		}
		b.WriteByte(byte('A' + c.tags[w]))
		if c.policy != lru { // RRPV = 4 − key
			b.WriteByte(byte('0' + keyHit - c.keys[w]&^locked))
		}
		if c.keys[w]&locked != 0 {
			b.WriteByte('*')
		}
	}
	return b.String()
}

type step struct {
	blk  int64 // block number (letter)
	r    Request
	hit  bool
	want string // set0 after the access; "" skips the check
}

func replay(t *testing.T, c *Cache, trace []step) {
	t.Helper()
	for i, s := range trace {
		if got := c.Access(s.blk*c.g.Block, s.r); got != s.hit {
			t.Fatalf("access %d (%c): hit=%v, want %v", i+1, 'A'+s.blk, got, s.hit)
		}
		if got := set0(c); s.want != "" && got != s.want {
			t.Fatalf("access %d (%c): set [%s], want [%s]", i+1, 'A'+s.blk, got, s.want)
		}
	}
}

var alloc = Request{Allocate: true}

const (
	A = iota
	B
	C
	D
	E
	F
	G
	H
	I
)

func TestLRUHandTrace(t *testing.T) {
	// 2 sets × 2 ways of 64 B blocks. Blocks 0, 2, 4 map to set 0.
	c := New(Config{Geometry: Geometry{Size: 256, Ways: 2, Block: 64}})
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
		if got := c.Access(s.addr, alloc); got != s.hit {
			t.Fatalf("access %d (addr %d): hit=%v, want %v", i, s.addr, got, s.hit)
		}
	}
	if a, m := c.Totals(); a != 8 || m != 6 {
		t.Errorf("counters %d/%d, want 8 accesses 6 misses", a, m)
	}
}

func TestLRUMasksAndLocks(t *testing.T) {
	// One set of 4 ways, so every block meets every other. lo = ways 0-1,
	// hi = ways 2-3. Victims are the least recently used unlocked way of
	// the mask; lookups hit in any way.
	c := New(Config{Geometry: Geometry{Size: 256, Ways: 4, Block: 64}, Replacement: LRU})
	lo := Request{Allocate: true, Ways: Ways(0, 2)}
	hi := Request{Allocate: true, Ways: Ways(2, 2)}
	hiLock := hi
	hiLock.Lock = true
	replay(t, c, []step{
		{A, lo, false, "A - - -"},
		{B, lo, false, "A B - -"},
		{C, lo, false, "C B - -"}, // lo is full: A (older than B) goes
		{D, hi, false, "C B D -"}, // hi fills its first empty way
		{A, Request{}, false, ""}, // no allocation: A stays out
		{B, hi, true, "C B D -"},  // hits in way 1 although hi excludes it
		{E, hiLock, false, "C B D E*"},
		{F, hi, false, "C B F E*"}, // way 3 is locked: D goes
		{G, hi, false, "C B G E*"}, // and again way 2
		{G, Request{Lock: true}, true, "C B G* E*"},
		{H, hi, false, "C B G* E*"},    // every hi way locked: no allocation
		{H, hi, false, "C B G* E*"},    // so H misses again
		{H, alloc, false, "H B G* E*"}, // all ways: C (step 3) is older than B (6)
		{C, Request{}, false, ""},
		{E, Request{}, true, "H B G* E*"}, // a hit keeps the lock
	})
	c.Unlock()
	replay(t, c, []step{
		{I, hi, false, "H B I E"}, // G (locked at step 10) is older than E (15)
		{G, Request{}, false, ""},
		{A, Request{Allocate: true, Ways: Ways(4, 4)}, false, "H B I E"}, // no such ways
	})
	if a, m := c.Totals(); a != 18 || m != 15 {
		t.Errorf("counters %d/%d, want 18 accesses 15 misses", a, m)
	}
}

func TestSRRIPHandTrace(t *testing.T) {
	// One set of 4 ways. Insert at RRPV 2, a hit sets 0, the victim is the
	// first way at 3; when none is at 3 all age by the same amount (here
	// always +1, since the oldest is at 2).
	c := New(Config{Geometry: Geometry{Size: 256, Ways: 4, Block: 64}, Replacement: SRRIP})
	replay(t, c, []step{
		{A, alloc, false, "A2 - - -"},
		{B, alloc, false, "A2 B2 - -"},
		{C, alloc, false, "A2 B2 C2 -"},
		{A, alloc, true, "A0 B2 C2 -"},
		{D, alloc, false, "A0 B2 C2 D2"}, // an empty way before aging
		{E, alloc, false, "A1 E2 C3 D3"}, // age +1 → A1 B3 C3 D3; B is first at 3
		{F, alloc, false, "A1 E2 F2 D3"}, // C is first at 3: no aging
		{B, alloc, false, "A1 E2 F2 B2"},
		{E, alloc, true, "A1 E0 F2 B2"},
		{C, alloc, false, "A2 E1 C2 B3"}, // age → A2 E1 F3 B3; F is first at 3
		{A, alloc, true, "A0 E1 C2 B3"},
		{D, alloc, false, "A0 E1 C2 D2"},
		{F, alloc, false, "A1 E2 F2 D3"}, // age → A1 E2 C3 D3; C goes
	})
	// Aging skips locked ways, and a locked way is never the victim even
	// at RRPV 3.
	c = New(Config{Geometry: Geometry{Size: 256, Ways: 4, Block: 64}, Replacement: SRRIP})
	lock := Request{Allocate: true, Lock: true}
	replay(t, c, []step{
		{A, lock, false, "A2* - - -"},
		{B, alloc, false, "A2* B2 - -"},
		{C, alloc, false, "A2* B2 C2 -"},
		{D, alloc, false, "A2* B2 C2 D2"},
		{E, alloc, false, "A2* E2 C3 D3"}, // A does not age; B goes
		{F, Request{Allocate: true, Ways: Ways(0, 2)}, false, "A2* F2 C3 D3"},
	})
}

func TestCyclicHandTrace(t *testing.T) {
	// A, B, C in turn through one set of 2 ways. LRU always evicts the
	// block needed next. SRRIP without hits is FIFO in way order (all
	// blocks enter at 2, so they all reach 3 together and leave in way
	// order): it thrashes too. BRRIP enters at 3 and takes the first way
	// at 3, so way 0 churns while B, kept in way 1, hits on every turn.
	g := Geometry{Size: 128, Ways: 2, Block: 64}
	cycle := []int64{A, B, C, A, B, C, A, B, C}
	for _, tc := range []struct {
		r    Replacement
		hits string
	}{
		{LRU, "---------"},
		{SRRIP, "---------"},
		{BRRIP, "----h--h-"},
	} {
		c := New(Config{Geometry: g, Replacement: tc.r})
		var got []byte
		for _, blk := range cycle {
			if c.Access(blk*64, alloc) {
				got = append(got, 'h')
			} else {
				got = append(got, '-')
			}
		}
		if string(got) != tc.hits {
			t.Errorf("%s: hits %s, want %s", tc.r, got, tc.hits)
		}
	}
}

func TestBRRIPEvery32ndInsertionIsLong(t *testing.T) {
	// One way: every miss replaces it. Insertions 1-31 enter at RRPV 3,
	// the 32nd at 2; the 33rd finds no way at 3, ages it to 3, and evicts.
	c := New(Config{Geometry: Geometry{Size: 64, Ways: 1, Block: 64}, Replacement: BRRIP})
	for i := int64(1); i <= 33; i++ {
		c.Access(i*64, alloc)
		want := uint64(3)
		if i == 32 {
			want = 2
		}
		if rrpv := keyHit - c.keys[0]; rrpv != want || c.tags[0] != i {
			t.Fatalf("insertion %d: way holds block %d at RRPV %d, want %d at %d", i, c.tags[0], rrpv, i, want)
		}
	}
}

func TestNoAllocateStreamsThrough(t *testing.T) {
	c := New(Config{Geometry: Geometry{Size: 1024, Ways: 4, Block: 64}})
	c.Access(0, Request{})
	if c.Access(0, alloc) {
		t.Error("a block read without allocation must not be cached")
	}
	if !c.Access(0, alloc) {
		t.Error("an allocated block must hit")
	}
}

func TestWorkingSetThatFitsStopsMissing(t *testing.T) {
	c := New(Config{Geometry: Geometry{Size: 8 << 10, Ways: 4, Block: 64}})
	for pass := 0; pass < 3; pass++ {
		hit := c.AccessRange(0, 8<<10, alloc)
		if pass > 0 && hit != 8<<10 {
			t.Errorf("pass %d: %d of %d bytes hit; a working set equal to the cache must hit fully", pass, hit, 8<<10)
		}
	}
	// A cyclic working set one block larger than an LRU cache misses every time.
	c = New(Config{Geometry: Geometry{Size: 4 * 64, Ways: 4, Block: 64}})
	c.AccessRange(0, 5*64, alloc)
	if hit := c.AccessRange(0, 5*64, alloc); hit != 0 {
		t.Errorf("cyclic set larger than LRU cache: %d bytes hit, want 0", hit)
	}
}

func TestPartialBlocksCountBytes(t *testing.T) {
	c := New(Config{Geometry: Geometry{Size: 1024, Ways: 4, Block: 64}})
	c.AccessRange(0, 64, alloc)
	if hit := c.AccessRange(32, 64, alloc); hit != 32 {
		t.Errorf("hit %d bytes, want 32 (the half overlapping block 0)", hit)
	}
}

func TestStatsPerClass(t *testing.T) {
	c := New(Config{Geometry: Geometry{Size: 1024, Ways: 4, Block: 64}})
	c.AccessRange(0, 256, Request{Allocate: true, Class: 1})  // 4 misses
	c.AccessRange(0, 128, Request{Class: 2})                  // 2 hits
	c.AccessRange(1024, 100, Request{Class: 2})               // 2 misses
	c.AccessRange(0, 64, Request{Class: 255, Allocate: true}) // 1 hit
	for _, tc := range []struct {
		class          uint8
		access, misses int64
	}{{0, 0, 0}, {1, 4, 4}, {2, 4, 2}, {255, 1, 0}} {
		if a, m := c.Stats(tc.class); a != tc.access || m != tc.misses {
			t.Errorf("class %d: %d/%d, want %d accesses %d misses", tc.class, a, m, tc.access, tc.misses)
		}
	}
	if a, m := c.Totals(); a != 9 || m != 6 {
		t.Errorf("totals %d/%d, want 9/6", a, m)
	}
}

func TestWays(t *testing.T) {
	for _, tc := range []struct {
		from, n int
		want    WayMask
	}{{0, 0, 0}, {0, 1, 1}, {0, 4, 0xf}, {4, 8, 0xff0}, {0, 64, ^WayMask(0)}, {60, 4, 0xf << 60}} {
		if got := Ways(tc.from, tc.n); got != tc.want {
			t.Errorf("Ways(%d, %d) = %#x, want %#x", tc.from, tc.n, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	good := Geometry{Size: 12 << 20, Ways: 12, Block: 64}
	for _, cfg := range []Config{
		{Geometry: good, Replacement: "plru"},
		{Geometry: Geometry{Size: 65 * 64, Ways: 65, Block: 64}},
		{Geometry: Geometry{Size: 1000, Ways: 4, Block: 64}},
	} {
		if cfg.Validate() == nil {
			t.Errorf("%+v: want an error", cfg)
		}
	}
	for _, r := range []Replacement{"", LRU, SRRIP, BRRIP} {
		if err := (Config{Geometry: good, Replacement: r}).Validate(); err != nil {
			t.Errorf("%q: %v", r, err)
		}
	}
}

func TestTileGeometry(t *testing.T) {
	for _, tc := range []struct {
		size        int64
		ways        int
		line, block int64
	}{
		{3 << 20, 12, 64, 512},       // way 256 KiB: capped at 512 B (512 sets)
		{12 << 20, 12, 64, 512},      // way 1 MiB
		{8 << 20, 16, 128, 512},      // 128 B lines: 4 a block
		{96 << 10, 12, 64, 128},      // way 8 KiB: 64 sets of 128 B
		{3 << 10, 12, 64, 64},        // way 256 B: the line is all that fits
		{12 * 64 * 1001, 12, 64, 64}, // a way of 1001 lines: no coarser block divides it
		{12 * 64 * 250, 12, 64, 128}, // 250 lines: 128 B divides it, 256 B does not
	} {
		g := TileGeometry(tc.size, tc.ways, tc.line)
		if g.Block != tc.block || g.Validate() != nil {
			t.Errorf("TileGeometry(%d, %d, %d) = %+v, want block %d", tc.size, tc.ways, tc.line, g, tc.block)
		}
	}
}

// TestLRUMoreWaysNeverMissMore checks LRU's stack inclusion: with the same
// sets, a cache with 2W ways holds a superset of what W ways hold, so every
// access that hits with W ways hits with 2W, and the misses never rise.
// Traces mix sequential streams, re-reads of earlier regions and random
// lines over a footprint about four times the smaller cache.
func TestLRUMoreWaysNeverMissMore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const traces = 500
	fewer := 0
	for n := range traces {
		sets := int64(1) << rng.IntN(4)
		w := 1 + rng.IntN(8)
		trace := randomTrace(rng, 64*sets*int64(w))
		small := New(Config{Geometry: Geometry{Size: 64 * sets * int64(w), Ways: w, Block: 64}})
		big := New(Config{Geometry: Geometry{Size: 64 * sets * int64(2*w), Ways: 2 * w, Block: 64}})
		for i, a := range trace {
			if hs, hb := small.Access(a, alloc), big.Access(a, alloc); hs && !hb {
				t.Fatalf("trace %d (%d sets, %d ways), access %d: hits with %d ways, misses with %d", n, sets, w, i, w, 2*w)
			}
		}
		_, ms := small.Totals()
		_, mb := big.Totals()
		if mb > ms {
			t.Fatalf("trace %d: %d misses with %d ways, %d with %d", n, ms, w, mb, 2*w)
		}
		if mb < ms {
			fewer++
		}
	}
	t.Logf("%d random traces: every hit with W ways also hit with 2W, and 2W missed strictly less on %d of them", traces, fewer)
}

// randomTrace returns 2000 line addresses over a footprint about 4× size.
func randomTrace(rng *rand.Rand, size int64) []int64 {
	var trace []int64
	lines := 4 * size / 64
	for len(trace) < 2000 {
		start, n := rng.Int64N(lines), 1+rng.Int64N(lines/2+1)
		switch rng.IntN(3) {
		case 0: // a stream
		case 1: // re-read a recent region
			if len(trace) > 0 {
				start = trace[rng.IntN(len(trace))] / 64
			}
		case 2: // scattered lines
			for range n {
				trace = append(trace, 64*rng.Int64N(lines))
			}
			continue
		}
		for i := range n {
			trace = append(trace, 64*(start+i))
		}
	}
	return trace
}

func TestInvalidateKeepsLockedAndOtherWays(t *testing.T) {
	c := New(Config{Geometry: Geometry{Size: 4 * 64, Ways: 4, Block: 64}})
	c.Access(0, Request{Allocate: true, Ways: Ways(0, 1), Lock: true})
	c.Access(64, Request{Allocate: true, Ways: Ways(1, 1)})
	c.Access(128, Request{Allocate: true, Ways: Ways(2, 1)})
	c.Invalidate(Ways(0, 2)) // ways 0 and 1: block 0 is locked and stays
	for _, tc := range []struct {
		addr int64
		hit  bool
	}{{0, true}, {64, false}, {128, true}} {
		if got := c.Access(tc.addr, Request{}); got != tc.hit {
			t.Errorf("after Invalidate, block at %d hit=%v, want %v", tc.addr, got, tc.hit)
		}
	}
}

// TestSaveRestore: a restored cache answers as the saved one did, and
// what was done after the save is gone.
func TestSaveRestore(t *testing.T) {
	for _, r := range []Replacement{LRU, SRRIP, BRRIP} {
		c := New(Config{Geometry: Geometry{Size: 4 << 10, Ways: 4, Block: 64}, Replacement: r})
		for a := int64(0); a < 4<<10; a += 64 {
			c.Access(a, alloc)
		}
		saved := c.Save()
		for a := int64(8 << 10); a < 16<<10; a += 64 {
			c.Access(a, alloc) // evicts everything
		}
		c.Restore(saved)
		for a := int64(0); a < 4<<10; a += 64 {
			if !c.Access(a, alloc) {
				t.Fatalf("%s: block at %d missed after Restore", r, a)
			}
		}
		if c.Access(8<<10, alloc) {
			t.Errorf("%s: a block cached after the save hit after Restore", r)
		}
	}
}

// TestMatches: two caches that hold the same blocks in the same order
// match, whatever their histories' lengths, and then answer any trace
// alike; a different order or lock does not match. One set of four ways.
func TestMatches(t *testing.T) {
	one := Geometry{Size: 4 * 64, Ways: 4, Block: 64}
	run := func(r Replacement, blks []int64, lock bool) *Cache {
		c := New(Config{Geometry: one, Replacement: r})
		for _, b := range blks {
			c.Access(b*64, Request{Allocate: true, Lock: lock && b == A})
		}
		return c
	}
	for _, r := range []Replacement{LRU, SRRIP, BRRIP} {
		base := run(r, []int64{A, B, C}, false).Save()
		if c := run(r, []int64{A, B, C}, false); !c.Matches(base) {
			t.Errorf("%s: the same history does not match", r)
		}
		if c := run(r, []int64{A, B, C}, true); c.Matches(base) {
			t.Errorf("%s: A locked matches A unlocked", r)
		}
		if c := run(r, []int64{A, B, C, A}, false); c.Matches(base) {
			t.Errorf("%s: A hit once more matches", r) // LRU: B C A; RRIP: A's RRPV 0
		}
	}
	// LRU: A B C hit again in order is A B C once more, at later time
	// stamps: it matches, and the two caches answer a random trace alike.
	a, b := run(LRU, []int64{A, B, C}, false), run(LRU, []int64{A, B, C, A, B, C}, false)
	if !b.Matches(a.Save()) {
		t.Fatal("LRU: the same order at later time stamps does not match")
	}
	reuse := b.Save() // SaveTo's buffers, before the trace
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		addr := rng.Int64N(8) * 64
		if ha, hb := a.Access(addr, alloc), b.Access(addr, alloc); ha != hb {
			t.Fatalf("access %d: hit %v and %v from matching caches", i, ha, hb)
		}
	}
	if !b.Matches(a.SaveTo(reuse)) {
		t.Error("LRU: matching caches no longer match after the same trace")
	}
}
