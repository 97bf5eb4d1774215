package des_test

import (
	"fmt"
	"testing"

	"github.com/edgetwin/edgetwin/sim/des"
)

// BenchmarkScheduleFire measures the cost of one event: scheduling it,
// ordering it in the queue and firing it.
//
// chain: every event schedules the next, so the queue holds one event.
// heap1000: 1000 events are pending and every event fired schedules a new
// one at a pseudo-random delay, so each costs a full O(log n) push and pop.
func BenchmarkScheduleFire(b *testing.B) {
	for _, pending := range []int{1, 1000} {
		name := "chain"
		if pending > 1 {
			name = "heap1000"
		}
		b.Run(name, func(b *testing.B) {
			s := des.New()
			left := b.N
			rng := uint64(1)
			var fire func()
			fire = func() {
				if left--; left < pending {
					return // drain: the last events schedule nothing
				}
				rng ^= rng << 13 // xorshift64: cheap, deterministic delays
				rng ^= rng >> 7
				rng ^= rng << 17
				s.After(des.Time(rng%(1<<20)), fire)
			}
			for range pending {
				s.After(des.Time(pending), fire)
			}
			b.ReportAllocs()
			b.ResetTimer()
			s.Run()
			b.StopTimer()
			if s.Fired() < uint64(b.N) {
				b.Fatalf("fired %d events, want >= %d", s.Fired(), b.N)
			}
			b.ReportMetric(float64(s.Fired())/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkLinkChurn measures a link under constant churn: a fixed number
// of transfers, a quarter of them capped, are in flight and each one that
// completes starts another of pseudo-random size. One op is one transfer.
func BenchmarkLinkChurn(b *testing.B) {
	for _, inflight := range []int{4, 64} {
		b.Run(fmt.Sprint("inflight", inflight), func(b *testing.B) {
			s := des.New()
			l := des.NewLink(s, "lpddr", 51.2e9)
			left := b.N
			rng := uint64(1)
			var start func()
			start = func() {
				if left <= 0 {
					return
				}
				left--
				rng ^= rng << 13
				rng ^= rng >> 7
				rng ^= rng << 17
				rateCap := 0.0
				if rng%4 == 0 {
					rateCap = 8e9
				}
				l.Start(float64(4096+rng%(1<<20)), rateCap, start)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range inflight {
				start()
			}
			s.Run()
			b.StopTimer()
			if l.Active() != 0 {
				b.Fatalf("%d transfers still active", l.Active())
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "transfers/s")
			b.ReportMetric(float64(s.Fired())/b.Elapsed().Seconds(), "events/s")
		})
	}
}
