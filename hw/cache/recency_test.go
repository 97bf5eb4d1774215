package cache

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// timeIt is how long f takes, in nanoseconds.
func timeIt(f func()) float64 {
	t0 := time.Now()
	f()
	return float64(time.Since(t0).Nanoseconds())
}

// scanning makes c find its LRU victims as the cache did before its
// recency lists: by comparing every allowed way's key. It is the
// reference the lists are held to, and the baseline of their benchmark.
func scanning(c *Cache) *Cache {
	c.rec = nil
	return c
}

// TestRecencyListsPickTheScansVictims: over random traffic with way
// partitions (spans and masks with holes), locks, unlocks, invalidations
// and save/restore, the LRU cache with recency lists hits and misses on
// every access as the key-scanning one does and ends every step holding
// the same blocks with the same keys.
func TestRecencyListsPickTheScansVictims(t *testing.T) {
	for _, g := range []Geometry{
		{Size: 64 << 10, Ways: 16, Block: 64},     // 64 sets
		{Size: 12 * 64 * 48, Ways: 12, Block: 64}, // 48 sets: not a power of two
		{Size: 64 * 64 * 4, Ways: 64, Block: 64},  // the widest WayMask
	} {
		rng := rand.New(rand.NewPCG(1, uint64(g.Ways)))
		lists := New(Config{Geometry: g})
		scan := scanning(New(Config{Geometry: g}))
		span := g.Size * 3 / 2 // half again the cache: hits and misses
		var saved [2]*State
		for step := range 200_000 {
			switch op := rng.IntN(1000); {
			case op == 0:
				lists.Unlock()
				scan.Unlock()
			case op == 1:
				m := WayMask(rng.Uint64())
				lists.Invalidate(m)
				scan.Invalidate(m)
			case op == 2:
				saved = [2]*State{lists.Save(), scan.Save()}
			case op == 3 && saved[0] != nil:
				lists.Restore(saved[0])
				scan.Restore(saved[1])
			default:
				r := Request{Allocate: rng.IntN(8) != 0, Lock: rng.IntN(200) == 0, Class: uint8(rng.IntN(3))}
				switch rng.IntN(4) {
				case 1:
					r.Ways = Ways(rng.IntN(g.Ways), 1+rng.IntN(g.Ways))
				case 2:
					r.Ways = WayMask(rng.Uint64()) // holes
				}
				addr := rng.Int64N(span)
				if a, b := lists.Access(addr, r), scan.Access(addr, r); a != b {
					t.Fatalf("%+v, step %d: access %d %+v: lists hit %v, scan %v", g, step, addr, r, a, b)
				}
			}
			if step%997 == 0 || step == 199_999 {
				if !slices.Equal(lists.tags, scan.tags) || !slices.Equal(lists.keys, scan.keys) || lists.clock != scan.clock {
					t.Fatalf("%+v, step %d: the caches hold different blocks or keys", g, step)
				}
			}
		}
		la, lm := lists.Totals()
		sa, sm := scan.Totals()
		if la != sa || lm != sm || lm == 0 || lm == la {
			t.Errorf("%+v: lists %d/%d misses, scan %d/%d", g, lm, la, sm, sa)
		}
	}
}

// BenchmarkLRUVictim times LRU lookups with the recency lists and with
// the key scan they replace, interleaved so that a shared machine's load
// falls on both alike, and reports the ratio scan / lists. "stream": the
// L3 at tile fidelity (12 MiB, 12 ways, 512 B blocks), every access a miss
// that allocates, as a prefill's spilled activations are; "mixed": an
// 8 MiB, 16-way cache of 64 B lines over lines drawn from 16 MiB, about
// half of them hits (BenchmarkAccessLRU's traffic), where the lists cost
// a relink on every hit that the scan does not pay.
func BenchmarkLRUVictim(b *testing.B) {
	stream := TileGeometry(12<<20, 12, 64)
	mixed := Geometry{Size: 8 << 20, Ways: 16, Block: 64}
	streamAddrs := make([]int64, 1<<16)
	for i := range streamAddrs {
		streamAddrs[i] = int64(i) * stream.Block * 7
	}
	mixedAddrs := make([]int64, 1<<16)
	x := uint64(1)
	for i := range mixedAddrs {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		mixedAddrs[i] = int64(x % (16 << 20 / 64) * 64)
	}
	for _, tc := range []struct {
		name string
		g    Geometry
		addr func(i int) int64
	}{
		// A stream never hits once the cache is full: each pass of the
		// addresses moves on by 4 cache sizes.
		{"stream", stream, func(i int) int64 { return streamAddrs[i&(1<<16-1)] + int64(i>>16)*stream.Size*4 }},
		{"mixed", mixed, func(i int) int64 { return mixedAddrs[i&(1<<16-1)] }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			run := func(c *Cache, n int) {
				r := Request{Allocate: true}
				for i := range n {
					c.Access(tc.addr(i), r)
				}
			}
			var lists, scan float64
			for b.Loop() {
				const n = 1 << 20
				l, s := New(Config{Geometry: tc.g}), scanning(New(Config{Geometry: tc.g}))
				lists += timeIt(func() { run(l, n) }) / n
				scan += timeIt(func() { run(s, n) }) / n
			}
			b.ReportMetric(lists/float64(b.N), "lists-ns/access")
			b.ReportMetric(scan/float64(b.N), "scan-ns/access")
			b.ReportMetric(scan/lists, "scan/lists")
		})
	}
}
