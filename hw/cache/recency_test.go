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
	c.newer, c.older, c.oldest, c.newest = nil, nil, nil, nil
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

// BenchmarkLRUVictim times a miss-heavy LRU lookup (the L3 at tile
// fidelity: 12 MiB, 12 ways, 512 B blocks; every access a miss that
// allocates, as the spilled activations of a prefill are) with the
// recency lists and with the key scan they replace, and reports the
// ratio scan / lists.
func BenchmarkLRUVictim(b *testing.B) {
	g := TileGeometry(12<<20, 12, 64)
	addrs := make([]int64, 1<<16)
	for i := range addrs {
		addrs[i] = int64(i) * g.Block * 7 // a stream: never a hit once the cache is full
	}
	run := func(c *Cache, n int) {
		r := Request{Allocate: true}
		for i := range n {
			c.Access(addrs[i&(len(addrs)-1)]+int64(i>>16)*g.Size*4, r)
		}
	}
	var lists, scan float64
	for b.Loop() {
		const n = 1 << 20
		l, s := New(Config{Geometry: g}), scanning(New(Config{Geometry: g}))
		lists += timeIt(func() { run(l, n) }) / n
		scan += timeIt(func() { run(s, n) }) / n
	}
	b.ReportMetric(lists/float64(b.N), "lists-ns/access")
	b.ReportMetric(scan/float64(b.N), "scan-ns/access")
	b.ReportMetric(scan/lists, "scan/lists")
}
