package des_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/sim/des"
)

// recorder collects "name@time" completions in the order they happen.
type recorder struct {
	s     *des.Sim
	trace []string
}

func (r *recorder) done(name string) func() {
	return func() { r.trace = append(r.trace, fmt.Sprintf("%s@%v", name, r.s.Now())) }
}

func (r *recorder) String() string { return strings.Join(r.trace, " ") }

func TestLinkSchedules(t *testing.T) {
	tests := []struct {
		name string
		run  func(s *des.Sim, l *des.Link, r *recorder) // on a 1000 B/s link
		want string
	}{{
		name: "one transfer",
		// 1000 B / 1000 B/s = 1 s exactly.
		run: func(s *des.Sim, l *des.Link, r *recorder) {
			l.Start(1000, 0, r.done("a"))
		},
		want: "a@1 s",
	}, {
		name: "two equal transfers share equally",
		// 500 B/s each: 1000 B / 500 B/s = 2 s for both, completing in start order.
		run: func(s *des.Sim, l *des.Link, r *recorder) {
			l.Start(1000, 0, r.done("a"))
			l.Start(1000, 0, r.done("b"))
		},
		want: "a@2 s b@2 s",
	}, {
		name: "staggered start",
		// 0 – 0.5 s: A alone at 1000 B/s moves 500 B; 500 B left.
		// 0.5 s –  : A and B at 500 B/s each; A's 500 B take 1 s: A done at 1.5 s,
		//            by when B has moved 500 B; 500 B left.
		// 1.5 s –  : B alone at 1000 B/s, 0.5 s more: B done at 2.0 s.
		run: func(s *des.Sim, l *des.Link, r *recorder) {
			l.Start(1000, 0, r.done("A"))
			s.At(des.Seconds(0.5), func() { l.Start(1000, 0, r.done("B")) })
		},
		want: "A@1.5 s B@2 s",
	}, {
		name: "capped transfer leaves the excess to the other",
		// capped gets 250 B/s, other 750 B/s. capped: 500 B / 250 = 2 s.
		// other: 1500 B by 2 s, 500 B left alone at 1000 B/s: +0.5 s = 2.5 s.
		run: func(s *des.Sim, l *des.Link, r *recorder) {
			l.Start(500, 250, r.done("capped"))
			l.Start(2000, 0, r.done("other"))
		},
		want: "capped@2 s other@2.5 s",
	}, {
		name: "finish time is exact despite float rounding",
		// 83 B at 5 B/s is exactly 16.6 s, but 83.0/5*1e12 comes out as
		// 16600000000000.002 ps in float64, which must not round up to 16.6 s + 1 ps.
		run: func(s *des.Sim, l *des.Link, r *recorder) {
			l.Start(83, 5, r.done("a"))
		},
		want: "a@16.6 s",
	}, {
		name: "cap above the fair share does not bind",
		// caps 600 and 800 are above 1000/2 = 500: both get 500 B/s, done at 2 s.
		run: func(s *des.Sim, l *des.Link, r *recorder) {
			l.Start(1000, 600, r.done("a"))
			l.Start(1000, 800, r.done("b"))
		},
		want: "a@2 s b@2 s",
	}, {
		name: "capacity lowered mid-transfer",
		// 0 – 0.5 s at 1000 B/s: 500 B left; then 250 B/s: 2 s more, done at 2.5 s.
		run: func(s *des.Sim, l *des.Link, r *recorder) {
			l.Start(1000, 0, r.done("a"))
			s.At(des.Seconds(0.5), func() { l.SetCapacity(250) })
		},
		want: "a@2.5 s",
	}, {
		name: "stalled link resumes",
		// 0.5 s at 1000 B/s, 1 s stalled at 0 B/s, then 500 B at 1000 B/s: 2 s.
		run: func(s *des.Sim, l *des.Link, r *recorder) {
			l.Start(1000, 0, r.done("a"))
			s.At(des.Seconds(0.5), func() { l.SetCapacity(0) })
			s.At(des.Seconds(1.5), func() { l.SetCapacity(1000) })
		},
		want: "a@2 s",
	}, {
		name: "zero bytes complete at once without disturbing others",
		run: func(s *des.Sim, l *des.Link, r *recorder) {
			l.Start(1000, 0, r.done("big"))
			s.At(des.Seconds(0.25), func() { l.Start(0, 0, r.done("empty")) })
		},
		want: "empty@250 ms big@1 s",
	}, {
		name: "less than a micro-byte counts as done",
		// 1e-7 B would take 100 ps at 1000 B/s; below the float-dust
		// threshold it completes at once instead.
		run: func(s *des.Sim, l *des.Link, r *recorder) {
			s.At(des.Nanosecond, func() { l.Start(1e-7, 0, r.done("dust")) })
		},
		want: "dust@1 ns",
	}, {
		name: "done starts the next transfer",
		run: func(s *des.Sim, l *des.Link, r *recorder) {
			n := 0
			var next func()
			next = func() {
				if n > 0 {
					r.done(fmt.Sprint("t", n))()
				}
				if n++; n <= 3 {
					l.Start(1000, 0, next)
				}
			}
			next()
		},
		want: "t1@1 s t2@2 s t3@3 s",
	}, {
		name: "three-way water-filling",
		// Caps 100 and 600 and one uncapped on 1000 B/s. 100 < 1000/3, so
		// slow keeps its 100 B/s; 600 > 900/2, so mid and fast get 450 each.
		// 0 – 1 s:     slow 100 B/s: done at 1 s. mid, fast move 450 B each.
		// 1 – 1.9 s:   mid, fast 500 B/s (cap 600 > 500): mid's 450 B take 0.9 s.
		// 1.9 – 2.35 s: fast has 1350-450-450 = 450 B left at 1000 B/s: 0.45 s.
		run: func(s *des.Sim, l *des.Link, r *recorder) {
			l.Start(100, 100, r.done("slow"))
			l.Start(900, 600, r.done("mid"))
			l.Start(1350, 0, r.done("fast"))
		},
		want: "slow@1 s mid@1.9 s fast@2.35 s",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := des.New()
			l := des.NewLink(s, "bus", 1000)
			r := &recorder{s: s}
			tt.run(s, l, r)
			s.Run()
			if got := r.String(); got != tt.want {
				t.Errorf("completions:\n got %s\nwant %s", got, tt.want)
			}
			if l.Active() != 0 || s.Pending() != 0 {
				t.Errorf("after Run: Active = %d, Pending = %d", l.Active(), s.Pending())
			}
		})
	}
}

func TestLinkRates(t *testing.T) {
	tests := []struct {
		name     string
		capacity float64
		caps     []float64 // 0: uncapped
		want     []float64
	}{
		{"alone", 1000, []float64{0}, []float64{1000}},
		{"equal shares", 1000, []float64{0, 0, 0, 0}, []float64{250, 250, 250, 250}},
		{"capped and uncapped", 1000, []float64{250, 0}, []float64{250, 750}},
		{"two levels", 1000, []float64{100, 600, 0}, []float64{100, 450, 450}},
		{"cap at the share", 1000, []float64{500, 0}, []float64{500, 500}},
		{"all capped below capacity", 1000, []float64{100, 200}, []float64{100, 200}},
		{"negative cap is uncapped", 1000, []float64{-5, 0}, []float64{500, 500}},
		{"no capacity", 0, []float64{10, 0}, []float64{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := des.New()
			l := des.NewLink(s, "bus", tt.capacity)
			var ts []*des.Transfer
			for _, c := range tt.caps {
				ts = append(ts, l.Start(1000, c, nil))
			}
			for i, tr := range ts {
				if got := tr.Rate(); got != tt.want[i] {
					t.Errorf("transfer %d: Rate = %g, want %g", i, got, tt.want[i])
				}
			}
		})
	}
}

func TestLinkAccounting(t *testing.T) {
	// A 1000 B at t=0, B 1000 B at t=0.5 s on 1000 B/s (see TestLinkSchedules);
	// capacity raised to 2000 B/s at 1 s. Then idle until C at 3 s.
	//
	// 0 – 0.5 s:   A 1000 B/s.                    A: 500 left
	// 0.5 – 1 s:   A, B 500 B/s.                  A: 250, B: 750 left
	// 1 – 1.25 s:  A, B 1000 B/s.                 A done at 1.25 s; B: 500 left
	// 1.25 – 1.5 s: B 2000 B/s.                   B done at 1.5 s
	// 3 – 3.5 s:   C 1000 B at 2000 B/s.
	s := des.New()
	l := des.NewLink(s, "bus", 1000)
	a := l.Start(1000, 0, nil)
	var b *des.Transfer
	s.At(des.Seconds(0.5), func() { b = l.Start(1000, 0, nil) })
	s.At(des.Second, func() { l.SetCapacity(2000) })
	s.At(3*des.Second, func() { l.Start(1000, 0, nil) })

	checks := []struct {
		at           des.Time
		aLeft, bLeft float64
		moved        float64
		busy         des.Time
		active       int
		aRate, bRate float64
		utilization  float64 // moved / ∫capacity
	}{
		{at: des.Seconds(0.25), aLeft: 750, moved: 250, busy: des.Seconds(0.25), active: 1, aRate: 1000, utilization: 1},
		{at: des.Seconds(0.75), aLeft: 375, bLeft: 875, moved: 750, busy: des.Seconds(0.75), active: 2, aRate: 500, bRate: 500, utilization: 1},
		{at: des.Second, aLeft: 250, bLeft: 750, moved: 1000, busy: des.Second, active: 2, aRate: 1000, bRate: 1000, utilization: 1},
		{at: des.Seconds(1.25), aLeft: 0, bLeft: 500, moved: 1500, busy: des.Seconds(1.25), active: 1, aRate: 0, bRate: 2000, utilization: 1},
		{at: des.Seconds(1.5), moved: 2000, busy: des.Seconds(1.5), active: 0, utilization: 1},
		// offered: 1000 + 2000*1 = 3000 B by 2 s.
		{at: 2 * des.Second, moved: 2000, busy: des.Seconds(1.5), active: 0, utilization: 2000.0 / 3000},
		// offered: 1000 + 2000*2.5 = 6000 B by 3.5 s.
		{at: des.Seconds(3.5), moved: 3000, busy: 2 * des.Second, active: 0, utilization: 0.5},
	}
	for _, c := range checks {
		s.RunUntil(c.at)
		var bLeft, bRate float64
		if b != nil {
			bLeft, bRate = b.Remaining(), b.Rate()
		}
		if a.Remaining() != c.aLeft || bLeft != c.bLeft || a.Rate() != c.aRate || bRate != c.bRate {
			t.Errorf("at %v: A %g B left at %g B/s, B %g B at %g B/s; want A %g at %g, B %g at %g",
				c.at, a.Remaining(), a.Rate(), bLeft, bRate, c.aLeft, c.aRate, c.bLeft, c.bRate)
		}
		if l.BytesMoved() != c.moved || l.BusyTime() != c.busy || l.Active() != c.active {
			t.Errorf("at %v: BytesMoved = %g, BusyTime = %v, Active = %d; want %g, %v, %d",
				c.at, l.BytesMoved(), l.BusyTime(), l.Active(), c.moved, c.busy, c.active)
		}
		if got := l.Utilization(); math.Abs(got-c.utilization) > 1e-12 {
			t.Errorf("at %v: Utilization = %g, want %g", c.at, got, c.utilization)
		}
	}
	if s.Pending() != 0 {
		t.Errorf("Pending = %d after the last transfer", s.Pending())
	}
}

// TestLinkFinishDoesNotDrift: a transfer whose rate never changes keeps
// the finish time computed when it started, however often the link
// re-shares around it.
func TestLinkFinishDoesNotDrift(t *testing.T) {
	s := des.New()
	l := des.NewLink(s, "bus", 1e6)
	var done des.Time
	l.Start(1000, 300, func() { done = s.Now() }) // 10/3 s, far below its share
	churn := 0
	var next func()
	next = func() {
		if churn++; churn < 2000 {
			l.Start(float64(1+churn%7), 0, next)
		}
	}
	for range 3 {
		next()
	}
	s.Run()
	if want := des.Time(3_333_333_333_334); done != want { // ceil(1e12 * 1000/300)
		t.Errorf("capped transfer done at %d ps, want %d", done, want)
	}
}

func TestLinkZeroBytesIsNotSynchronous(t *testing.T) {
	s := des.New()
	s.RunUntil(des.Second)
	l := des.NewLink(s, "bus", 1000)
	called := false
	tr := l.Start(0, 0, func() { called = true })
	if called {
		t.Fatal("done called from inside Start")
	}
	if tr.Remaining() != 0 || l.Active() != 1 {
		t.Fatalf("Remaining = %g, Active = %d", tr.Remaining(), l.Active())
	}
	s.Run()
	if !called || s.Now() != des.Second || l.BusyTime() != 0 || l.Active() != 0 {
		t.Fatalf("called = %v, Now = %v, BusyTime = %v, Active = %d", called, s.Now(), l.BusyTime(), l.Active())
	}
}

func TestLinkPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func(l *des.Link)
	}{
		{"negative bytes", func(l *des.Link) { l.Start(-1, 0, nil) }},
		{"NaN bytes", func(l *des.Link) { l.Start(math.NaN(), 0, nil) }},
		{"infinite bytes", func(l *des.Link) { l.Start(math.Inf(1), 0, nil) }},
		{"negative capacity", func(l *des.Link) { l.SetCapacity(-1) }},
		{"infinite capacity", func(l *des.Link) { l.SetCapacity(math.Inf(1)) }},
		{"NaN capacity", func(l *des.Link) { l.SetCapacity(math.NaN()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := des.NewLink(des.New(), "bus", 1000)
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			tt.f(l)
		})
	}
}

// TestLinkMakespan: uncapped transfers started together keep the link
// full, so the last one finishes when all bytes have moved at full
// capacity: total/capacity, late by at most 1 ps per completion (each
// re-share rounds finish times up to a whole picosecond).
func TestLinkMakespan(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 7))
		capacity := []float64{1e9, 3e9, 51.2e9, 12345.678e6}[seed%4]
		s := des.New()
		l := des.NewLink(s, "bus", capacity)
		n := 1 + rng.IntN(64)
		var total float64
		var last des.Time
		for range n {
			b := float64(1 + rng.IntN(1_000_000))
			total += b
			l.Start(b, 0, func() { last = s.Now() })
		}
		s.Run()
		exact := total / capacity * 1e12 // in ps
		if late := float64(last) - exact; late < -1e-3 || late > float64(n) {
			t.Errorf("seed %d: %d transfers, %g B at %g B/s: last done at %d ps, exact %.3f ps (late %.3f ps)",
				seed, n, total, capacity, last, exact, late)
		}
		if l.BytesMoved() != total {
			t.Errorf("seed %d: BytesMoved = %g, want %g", seed, l.BytesMoved(), total)
		}
		if l.BusyTime() != last {
			t.Errorf("seed %d: BusyTime = %v, want %v", seed, l.BusyTime(), last)
		}
	}
}

// TestLinkConservation starts random transfers, capped and uncapped, at
// random times while the capacity changes, and checks that every byte
// arrives exactly once, no transfer beats its cap or the link's peak
// capacity, and the shares are max-min fair whenever they change.
func TestLinkConservation(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 11))
		s := des.New()
		const peak = 4e9
		l := des.NewLink(s, "bus", peak)
		var total float64
		var transfers []shared
		completed := 0
		for i := range 200 {
			start := des.Time(rng.Int64N(int64(100 * des.Microsecond)))
			size := float64(rng.IntN(100_000)) // zero sometimes
			rateCap := 0.0
			if rng.IntN(2) == 0 {
				rateCap = float64(1+rng.IntN(2000)) * 1e6
			}
			total += size
			s.At(start, func() {
				var tr *des.Transfer
				calls := 0
				tr = l.Start(size, rateCap, func() {
					calls++
					completed++
					if calls != 1 {
						t.Fatalf("seed %d: transfer %d done called %d times", seed, i, calls)
					}
					fastest := peak
					if rateCap > 0 {
						fastest = min(peak, rateCap)
					}
					if minTime := des.Seconds(size / fastest); s.Now()-start < minTime-1 {
						t.Fatalf("seed %d: transfer %d of %g B (cap %g) took %v, below %v", seed, i, size, rateCap, s.Now()-start, minTime)
					}
					if tr.Remaining() != 0 || tr.Rate() != 0 {
						t.Fatalf("seed %d: done transfer has Remaining %g, Rate %g", seed, tr.Remaining(), tr.Rate())
					}
				})
				transfers = append(transfers, shared{tr, rateCap})
				checkShares(t, l, transfers)
			})
		}
		for range 20 {
			at := des.Time(rng.Int64N(int64(200 * des.Microsecond)))
			c := float64(rng.IntN(5)) * 1e9 // 0 stalls the link for a while
			s.At(at, func() {
				l.SetCapacity(c)
				checkShares(t, l, transfers)
			})
		}
		s.At(200*des.Microsecond, func() { l.SetCapacity(peak) }) // no stall forever
		prev := 0.0
		for s.Pending() > 0 {
			s.RunUntil(s.Now() + des.Microsecond)
			moved := l.BytesMoved()
			if moved < prev || moved > total {
				t.Fatalf("seed %d: BytesMoved went from %g to %g (total %g)", seed, prev, moved, total)
			}
			prev = moved
			if l.BusyTime() > s.Now() {
				t.Fatalf("seed %d: BusyTime %v > Now %v", seed, l.BusyTime(), s.Now())
			}
		}
		if completed != 200 || l.Active() != 0 {
			t.Fatalf("seed %d: %d of 200 completed, %d active", seed, completed, l.Active())
		}
		if l.BytesMoved() != total {
			t.Errorf("seed %d: BytesMoved = %g, want %g", seed, l.BytesMoved(), total)
		}
	}
}

// shared is a transfer and the cap it was started with (0: uncapped).
type shared struct {
	tr  *des.Transfer
	cap float64
}

// checkShares checks that the rates of the active transfers are max-min
// fair: none exceeds its cap, every transfer below the top rate is held
// at its cap, and the rates add up to the capacity unless every transfer
// is held at its cap.
func checkShares(t *testing.T, l *des.Link, all []shared) {
	t.Helper()
	var sum, top float64 // over active transfers: done ones have rate 0
	for _, x := range all {
		sum += x.tr.Rate()
		top = max(top, x.tr.Rate())
	}
	const tol = 1e-9
	allCapped := true
	for _, x := range all {
		r := x.tr.Rate()
		if r == 0 {
			continue
		}
		if x.cap > 0 && r > x.cap*(1+tol) {
			t.Fatalf("rate %g above cap %g", r, x.cap)
		}
		if r < top*(1-tol) && (x.cap == 0 || r < x.cap*(1-tol)) {
			t.Fatalf("rate %g below the top rate %g but not at its cap %g", r, top, x.cap)
		}
		if x.cap == 0 || r < x.cap*(1-tol) {
			allCapped = false
		}
	}
	if sum > l.Capacity()*(1+tol) || !allCapped && sum < l.Capacity()*(1-tol) {
		t.Fatalf("rates add up to %g on a link of %g B/s (all capped: %v)", sum, l.Capacity(), allCapped)
	}
}

// TestSkip: leaping over periods of a periodic model with Skip gives the
// times a run through them gives, shifted; transfers in flight keep their
// progress and no event fires early or late.
func TestSkip(t *testing.T) {
	// Two transfers overlap on a 1000 B/s link: a (600 B) starts at 0, b
	// (1000 B) at 0.2 s. With a 10 s skip at 0.5 s, every later instant
	// is 10 s later than without it.
	run := func(skip bool) string {
		s := des.New()
		l := des.NewLink(s, "bus", 1000)
		r := &recorder{s: s}
		l.Start(600, 0, r.done("a"))
		s.At(des.Seconds(0.2), func() { l.Start(1000, 0, r.done("b")) })
		s.At(des.Seconds(0.5), func() {
			if skip {
				s.Skip(des.Seconds(10))
			}
			s.After(des.Seconds(0.1), r.done("timer"))
		})
		s.At(des.MaxTime, r.done("never"))
		s.RunUntil(des.Seconds(100))
		return r.String()
	}
	// Without: 0–0.2 s a alone moves 200 B; then 500 B/s each: a's 400 B
	// take 0.8 s (done at 1.0 s), b has 600 B left alone: done at 1.6 s.
	if got, want := run(false), "timer@600 ms a@1 s b@1.6 s"; got != want {
		t.Errorf("without a skip: %s, want %s", got, want)
	}
	if got, want := run(true), "timer@10.6 s a@11 s b@11.6 s"; got != want {
		t.Errorf("with a 10 s skip at 0.5 s: %s, want %s", got, want)
	}
}

// TestLinkSend: Send moves bytes as Start does, and once the link is warm
// it allocates nothing per transfer.
func TestLinkSend(t *testing.T) {
	for _, send := range []bool{false, true} {
		s := des.New()
		l := des.NewLink(s, "bus", 1000)
		r := &recorder{s: s}
		for i, name := range []string{"a", "b", "c"} {
			s.At(des.Seconds(0.25*float64(i)), func() {
				if send {
					l.Send(500, 0, r.done(name))
				} else {
					l.Start(500, 0, r.done(name))
				}
			})
		}
		s.Run()
		// a alone 0.25 s (250 B left), a+b at 500 B/s for 0.25 s (a 125 B
		// left, b 375 B); from 0.5 s three at 333 B/s: a done at 0.875 s,
		// b then has 250 B, c 375 B; two at 500 B/s: b done at 1.375 s,
		// c has 125 B, alone: done at 1.5 s.
		if got, want := r.String(), "a@875 ms b@1.375 s c@1.5 s"; got != want {
			t.Errorf("send %v: %s, want %s", send, got, want)
		}
	}
	s := des.New()
	l := des.NewLink(s, "bus", 1e9)
	done := func() {}
	send := func() {
		l.Send(1000, 0, done)
		l.Send(2000, 0, done)
		s.Run()
	}
	send() // warm: the spare transfers and the scratch slices exist
	if n := testing.AllocsPerRun(100, send); n > 0 {
		t.Errorf("%g allocations per round of two sends, want 0", n)
	}
}
