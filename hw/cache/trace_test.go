package cache

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"
)

// decode generates the L3 traffic of LLM decode steps. Per step, for each
// layer: read the layer's input activations, stream its weights, read its
// KV (which grows by one token a step), write the new token's KV, write
// the output activations (the next layer's input).
//
// Tensors sit one after another on 4 KiB pages, as the simulator lays them
// out, and their sizes are not multiples of a tile block, so tile blocks
// straddle tensors and every KV read ends in a partial block.
type decode struct {
	layers  int
	weights int64 // bytes of one layer's weights
	kv      int64 // KV bytes of one layer at step 0
	kvTok   int64 // KV bytes one token adds to one layer
	act     int64 // bytes of one activation buffer
	steps   int   // steps the KV has room for
}

const page = 4 << 10

func pages(n int64) int64 { return (n + page - 1) / page * page }

// newDecode sizes a trace for a cache: weights of four cache sizes a step
// over the layers (plus an odd three pages a layer), kvTotal bytes of KV
// growing by kvTotal/1024 a token (a context of about a thousand tokens).
func newDecode(layers int, cacheSize, kvTotal int64, steps int) decode {
	return decode{
		layers:  layers,
		weights: 4*cacheSize/int64(layers) + 3*page,
		kv:      kvTotal / int64(layers),
		kvTok:   max(64, kvTotal/int64(layers)/1024),
		act:     24 << 10,
		steps:   steps,
	}
}

// placement says how each tensor class uses the cache.
type placement struct {
	name              string
	weights, kv, acts Request
}

// placements for a cache of ways ways: naive (everything allocates in every
// way); kv-first (weights stream without allocating, KV is locked in 2/3
// of the ways, activations use the rest); kv-part (a plain way partition:
// KV in 2/3 of the ways, weights and activations in the rest, no locks).
func placements(ways int) []placement {
	kvWays := Ways(0, 2*ways/3)
	rest := Ways(2*ways/3, ways-2*ways/3)
	const w, k, a = 0, 1, 2 // classes
	return []placement{
		{"naive", Request{Allocate: true, Class: w}, Request{Allocate: true, Class: k}, Request{Allocate: true, Class: a}},
		{"kv-first", Request{Class: w}, Request{Allocate: true, Ways: kvWays, Lock: true, Class: k}, Request{Allocate: true, Ways: rest, Class: a}},
		{"kv-part", Request{Allocate: true, Ways: rest, Class: w}, Request{Allocate: true, Ways: kvWays, Class: k}, Request{Allocate: true, Ways: rest, Class: a}},
	}
}

// tally counts bytes and hit bytes per class (0 weights, 1 KV, 2 activations).
type tally struct{ bytes, hit [3]int64 }

func (t *tally) add(class uint8, n, hit int64) { t.bytes[class] += n; t.hit[class] += hit }

func (t *tally) kvMiss() float64 { return 1 - float64(t.hit[1])/float64(t.bytes[1]) }

func (t *tally) allMiss() float64 {
	var n, h int64
	for i := range t.bytes {
		n += t.bytes[i]
		h += t.hit[i]
	}
	return 1 - float64(h)/float64(n)
}

// step runs decode step s through c, adding to t when t is not nil.
func (d decode) step(c *Cache, p placement, s int, t *tally) {
	wStride := pages(d.weights)
	kvStride := pages(d.kv + int64(d.steps+1)*d.kvTok)
	kvBase := int64(d.layers) * wStride
	actBase := kvBase + int64(d.layers)*kvStride
	touch := func(addr, n int64, r Request) {
		hit := c.AccessRange(addr, n, r)
		if t != nil {
			t.add(r.Class, n, hit)
		}
	}
	kvLen := d.kv + int64(s)*d.kvTok
	for l := range int64(d.layers) {
		in, out := actBase+(l%2)*pages(d.act), actBase+(1-l%2)*pages(d.act)
		touch(in, d.act, p.acts)
		touch(l*wStride, d.weights, p.weights)
		kv := kvBase + l*kvStride
		touch(kv, kvLen, p.kv)
		touch(kv+kvLen, d.kvTok, p.kv)
		touch(out, d.act, p.acts)
	}
}

// run warms c up with warm steps and tallies the next steps.
func (d decode) run(c *Cache, p placement, warm, steps int) tally {
	var t tally
	for s := range warm + steps {
		if s < warm {
			d.step(c, p, s, nil)
		} else {
			d.step(c, p, s, &t)
		}
	}
	return t
}

// TestLineVsTile is the fidelity check of the `tile` level: the KV and
// overall miss rates (by bytes) of a line-granular cache and of the
// TileGeometry cache agree within 0.03 on decode traces of models of 8 and
// 32 layers, for KV of 1 to 16 MiB, caches of 3, 6 and 12 MiB (12 ways,
// 64 B lines), three placements and three replacement policies. Rates are
// taken over two steps after one warm-up step. -short skips the 12 MiB
// cache and the 8-layer traces.
func TestLineVsTile(t *testing.T) {
	const line, ways, warm, steps, tol = 64, 12, 1, 2, 0.03
	layers, caches := []int{8, 32}, []int64{3 << 20, 6 << 20, 12 << 20}
	if testing.Short() { // the 32-layer traces are the harder ones
		layers, caches = layers[1:], caches[:2]
	}
	type row struct {
		layers       int
		size, kv     int64
		place        string
		r            Replacement
		block        int64
		lineT, tileT tally
	}
	var rows []*row
	for _, layers := range layers {
		for _, size := range caches {
			for _, kv := range []int64{1, 2, 4, 6, 8, 12, 16} {
				for _, p := range placements(ways) {
					for _, r := range []Replacement{LRU, SRRIP, BRRIP} {
						if p.name == "kv-first" && r == BRRIP {
							continue // locked KV: the policy only moves the activations
						}
						rows = append(rows, &row{layers: layers, size: size, kv: kv << 20, place: p.name, r: r})
					}
				}
			}
		}
	}
	work := make(chan *row)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for x := range work {
				d := newDecode(x.layers, x.size, x.kv, warm+steps)
				var p placement
				for _, q := range placements(ways) {
					if q.name == x.place {
						p = q
					}
				}
				lg := Geometry{Size: x.size, Ways: ways, Block: line}
				tg := TileGeometry(x.size, ways, line)
				x.block = tg.Block
				x.lineT = d.run(New(Config{Geometry: lg, Replacement: x.r}), p, warm, steps)
				x.tileT = d.run(New(Config{Geometry: tg, Replacement: x.r}), p, warm, steps)
			}
		})
	}
	for _, x := range rows {
		work <- x
	}
	close(work)
	wg.Wait()

	t.Logf("%-6s %-5s %-5s %-6s %-9s %-6s | %-21s | %-21s", "layers", "L3", "KV", "block", "placement", "policy", "KV miss line/tile", "all miss line/tile")
	var worst float64
	for _, x := range rows {
		kl, kt := x.lineT.kvMiss(), x.tileT.kvMiss()
		al, at := x.lineT.allMiss(), x.tileT.allMiss()
		d := max(math.Abs(kt-kl), math.Abs(at-al))
		worst = max(worst, d)
		flag := ""
		if d > tol {
			flag = "  > tolerance"
			t.Errorf("%d layers, L3 %d MiB, KV %d MiB, %s %s: tile differs from line by %.4f", x.layers, x.size>>20, x.kv>>20, x.place, x.r, d)
		}
		t.Logf("%-6d %-5s %-5s %-6s %-9s %-6s | %.4f %.4f %+.4f | %.4f %.4f %+.4f%s",
			x.layers, mib(x.size), mib(x.kv), fmt.Sprintf("%dB", x.block), x.place, x.r, kl, kt, kt-kl, al, at, at-al, flag)
	}
	t.Logf("largest |tile − line| over %d configurations: %.4f (tolerance %.2f)", len(rows), worst, tol)
}

func mib(n int64) string { return fmt.Sprintf("%dM", n>>20) }

func BenchmarkAccessLRU(b *testing.B)   { benchAccess(b, LRU) }
func BenchmarkAccessSRRIP(b *testing.B) { benchAccess(b, SRRIP) }
func BenchmarkAccessBRRIP(b *testing.B) { benchAccess(b, BRRIP) }

// benchAccess times one Access on an 8 MiB, 16-way cache of 64 B lines,
// over lines drawn from 16 MiB (about half hit).
func benchAccess(b *testing.B, r Replacement) {
	c := New(Config{Geometry: Geometry{Size: 8 << 20, Ways: 16, Block: 64}, Replacement: r})
	addrs := make([]int64, 1<<16)
	x := uint64(1)
	for i := range addrs {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		addrs[i] = int64(x % (16 << 20 / 64) * 64)
	}
	for i := 0; b.Loop(); i++ {
		c.Access(addrs[i&(len(addrs)-1)], alloc)
	}
}

// BenchmarkDecodeLineVsTile runs one decode step (32 layers, 6 MiB L3,
// 8 MiB KV, kv-first, SRRIP) at line and at tile granularity and reports
// the time of each, their ratio and the line cache's time per access.
func BenchmarkDecodeLineVsTile(b *testing.B) {
	const size, ways = 6 << 20, 12
	d := newDecode(32, size, 8<<20, 1<<20)
	p := placements(ways)[1]
	lc := New(Config{Geometry: Geometry{Size: size, Ways: ways, Block: 64}, Replacement: SRRIP})
	tc := New(Config{Geometry: TileGeometry(size, ways, 64), Replacement: SRRIP})
	var lineT, tileT time.Duration
	s := 0
	for b.Loop() {
		t0 := time.Now()
		d.step(lc, p, s, nil)
		t1 := time.Now()
		d.step(tc, p, s, nil)
		lineT += t1.Sub(t0)
		tileT += time.Since(t1)
		s++
	}
	b.ReportMetric(float64(lineT.Microseconds())/float64(s), "line-µs/step")
	b.ReportMetric(float64(tileT.Microseconds())/float64(s), "tile-µs/step")
	b.ReportMetric(float64(lineT)/float64(tileT), "line/tile")
	n, _ := lc.Totals()
	b.ReportMetric(float64(lineT.Nanoseconds())/float64(n), "line-ns/access")
}
