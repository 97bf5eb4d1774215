package cache

import "testing"

// The tests here run a weight stream and a KV region through a 12-way cache
// of 256 sets of 64 B lines (192 KiB; a way is 16 KiB).
var kvCache = Geometry{Size: 12 * 256 * 64, Ways: 12, Block: 64}

const (
	weightClass, kvClass = 0, 1
	kvBase               = 1 << 40 // far from the weight stream
)

// kvRounds streams scan bytes of new weights then reads the KV region,
// rounds times, and returns the KV misses (in lines) of each round.
func kvRounds(c *Cache, rounds int, scan, kvBytes int64, weights, kv Request) []int64 {
	weights.Class, kv.Class = weightClass, kvClass
	out := make([]int64, rounds)
	for i := range rounds {
		c.AccessRange(int64(i)*scan, scan, weights)
		_, before := c.Stats(kvClass)
		c.AccessRange(kvBase, kvBytes, kv)
		_, after := c.Stats(kvClass)
		out[i] = after - before
	}
	return out
}

func TestLockedKVInItsPartitionStopsMissing(t *testing.T) {
	// KV gets ways 0-3 (64 KiB) and fills them exactly; ten rounds stream
	// ten cache sizes of weights. Once the first read has allocated and
	// locked the KV, nothing can evict it: with the weights kept to ways
	// 4-11, or even allowed in every way, since a locked block is never a
	// victim. The control (no lock, no partition) shows the stream does
	// flush an unprotected KV under LRU: between two reads of a KV line
	// its set sees 12 new weight lines, as many as it has ways.
	const kvBytes = 4 * 16 << 10
	kv := Request{Allocate: true, Ways: Ways(0, 4), Lock: true}
	for _, r := range []Replacement{LRU, SRRIP, BRRIP} {
		for _, tc := range []struct {
			name    string
			weights Request
		}{
			{"partition+lock", Request{Allocate: true, Ways: Ways(4, 8)}},
			{"lock only", Request{Allocate: true}},
		} {
			c := New(Config{Geometry: kvCache, Replacement: r})
			misses := kvRounds(c, 10, c.g.Size, kvBytes, tc.weights, kv)
			if misses[0] != kvBytes/64 {
				t.Errorf("%s %s: first read missed %d lines, want all %d", r, tc.name, misses[0], kvBytes/64)
			}
			for i, m := range misses[1:] {
				if m != 0 {
					t.Errorf("%s %s: round %d: %d KV lines missed, want 0", r, tc.name, i+1, m)
				}
			}
		}
	}
	c := New(Config{Geometry: kvCache})
	misses := kvRounds(c, 10, c.g.Size, kvBytes, Request{Allocate: true}, Request{Allocate: true})
	for i, m := range misses {
		if m != kvBytes/64 {
			t.Errorf("control (LRU, no lock, no partition): round %d: %d KV lines missed, want all %d", i, m, kvBytes/64)
		}
	}
}

// TestCyclicKVLargerThanItsPartition reads a KV region of 1.25× its 4-way
// partition (5 lines per set for 4 ways) between weight streams kept to
// the other 8 ways, so the KV sets see nothing but the cycle. LRU always
// evicts the line needed next: every KV access misses. SRRIP does too: with
// no hits every line enters at RRPV 2, so the four ages together and leave
// in way order (FIFO), again the one needed next. BRRIP enters at 3 and
// evicts the first way at 3, so after the first round way 0 churns between
// two of the five lines and the other three stay and hit: 2 misses in 5.
// (Its every-32nd long insertion lands in way 0 too, and only delays that
// way's next eviction by one aging, which every resident survives: a
// resident is hit, back to 0, at least every 5 accesses to its set.)
func TestCyclicKVLargerThanItsPartition(t *testing.T) {
	const rounds, kvBytes = 40, 5 * 16 << 10
	want := map[Replacement]float64{LRU: 1, SRRIP: 1, BRRIP: 0.4}
	got := map[Replacement]float64{}
	for _, r := range []Replacement{LRU, SRRIP, BRRIP} {
		c := New(Config{Geometry: kvCache, Replacement: r})
		misses := kvRounds(c, rounds, c.g.Size, kvBytes,
			Request{Allocate: true, Ways: Ways(4, 8)}, Request{Allocate: true, Ways: Ways(0, 4)})
		var sum int64
		for _, m := range misses[1:] { // after the first (cold) round
			sum += m
		}
		got[r] = float64(sum) / float64((rounds-1)*kvBytes/64)
		if got[r] != want[r] {
			t.Errorf("%s: KV miss rate %.4f after warm-up, want %.4f", r, got[r], want[r])
		}
	}
	t.Logf("cyclic KV of 1.25× its partition, KV miss rate after warm-up: LRU %.3f, SRRIP %.3f, BRRIP %.3f", got[LRU], got[SRRIP], got[BRRIP])
}

// TestSRRIPKeepsReusedKVThroughAScan shares all 12 ways between a KV region
// of one third of the cache (4 lines per set) and a weight stream between
// two KV reads. The KV is warm: read twice first, as prefill and a first
// decode step would, so under RRIP it sits at RRPV 0.
//
// With a stream of one cache size (12 lines per set): under LRU the 12
// weight lines are more recent than the KV line at each KV access, so
// every KV access misses. Under SRRIP a hit KV line needs three agings to
// reach RRPV 3, and a set ages only when its 8 weight ways have all been
// refilled (they enter at 2 and leave at 3, in way order, before any KV):
// 12 insertions age a set once or twice, so the KV survives and hits.
// At four cache sizes (48 insertions, 5 or 6 agings) the stream wins and
// SRRIP misses every time too: scan resistance has a reach.
func TestSRRIPKeepsReusedKVThroughAScan(t *testing.T) {
	const rounds, kvBytes = 40, 4 * 16 << 10
	for _, tc := range []struct {
		scan       int64 // in cache sizes
		lru, srrip float64
	}{{1, 1, 0}, {4, 1, 1}} {
		got := map[Replacement]float64{}
		for _, r := range []Replacement{LRU, SRRIP, BRRIP} {
			c := New(Config{Geometry: kvCache, Replacement: r})
			c.AccessRange(kvBase, kvBytes, alloc)
			c.AccessRange(kvBase, kvBytes, alloc)
			misses := kvRounds(c, rounds, tc.scan*c.g.Size, kvBytes, alloc, alloc)
			var sum int64
			for _, m := range misses {
				sum += m
			}
			got[r] = float64(sum) / float64(rounds*kvBytes/64)
		}
		t.Logf("warm KV of 1/3 the cache between scans of %d× the cache, KV miss rate: LRU %.3f, SRRIP %.3f, BRRIP %.3f",
			tc.scan, got[LRU], got[SRRIP], got[BRRIP])
		if got[LRU] != tc.lru || got[SRRIP] != tc.srrip {
			t.Errorf("scan %d× cache: LRU %.3f, SRRIP %.3f; want %.0f and %.0f", tc.scan, got[LRU], got[SRRIP], tc.lru, tc.srrip)
		}
	}
}
