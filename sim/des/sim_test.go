package des_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/sim/des"
)

// TestSchedule runs hand-written schedules and compares the trace of
// "name@time" entries, in firing order, with a hand-computed one.
func TestSchedule(t *testing.T) {
	tests := []struct {
		name string
		// run schedules events and runs s. mark(name) appends name@Now to the
		// trace; rec(name) returns a callback that does so when it fires.
		run  func(s *des.Sim, mark func(string), rec func(string) func())
		want string
	}{{
		name: "time order",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			s.At(30, rec("c"))
			s.At(10, rec("a"))
			s.At(20, rec("b"))
			s.Run()
		},
		want: "a@10 b@20 c@30",
	}, {
		name: "fifo at equal times",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			s.At(5, rec("x"))
			s.At(5, rec("y"))
			s.At(1, rec("first"))
			s.At(5, rec("z"))
			s.At(9, rec("last"))
			s.At(5, rec("w"))
			s.Run()
		},
		want: "first@1 x@5 y@5 z@5 w@5 last@9",
	}, {
		name: "after is relative to now",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			s.At(10, func() {
				mark("a")
				s.After(5, rec("b"))
				s.After(0, rec("c"))
			})
			s.Run()
		},
		want: "a@10 c@10 b@15",
	}, {
		name: "scheduled from a callback at the same time fires after those already queued",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			s.At(5, func() {
				mark("a")
				s.At(5, rec("c"))
			})
			s.At(5, rec("b"))
			s.Run()
		},
		want: "a@5 b@5 c@5",
	}, {
		name: "chain of callbacks",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			n := 0
			var tick func()
			tick = func() {
				n++
				mark(fmt.Sprint("tick", n))
				if n < 4 {
					s.After(des.Nanosecond, tick)
				}
			}
			s.After(0, tick)
			s.Run()
		},
		want: "tick1@0 tick2@1000 tick3@2000 tick4@3000",
	}, {
		name: "cancel",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			s.At(1, rec("a"))
			b := s.At(2, rec("b"))
			s.At(3, rec("c"))
			s.Cancel(b)
			s.Cancel(b) // again: no-op
			s.Run()
		},
		want: "a@1 c@3",
	}, {
		name: "cancel from a callback, at the same time and later",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			var same, later des.Event
			s.At(10, func() {
				mark("killer")
				s.Cancel(same)
				s.Cancel(later)
			})
			same = s.At(10, rec("same"))
			later = s.At(20, rec("later"))
			s.At(20, rec("survivor"))
			s.Run()
		},
		want: "killer@10 survivor@20",
	}, {
		name: "cancel of a fired event does not hit the event reusing its slot",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			a := s.At(1, rec("a"))
			s.Run()
			s.At(2, rec("b")) // reuses a's recycled slot
			s.Cancel(a)
			s.Cancel(des.Event{}) // zero Event: no-op
			s.Run()
		},
		want: "a@1 b@2",
	}, {
		name: "an event cancelling itself",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			var self des.Event
			self = s.At(1, func() {
				mark("self")
				s.Cancel(self)
			})
			s.At(2, rec("next"))
			s.Run()
		},
		want: "self@1 next@2",
	}, {
		name: "run until",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			s.At(1, rec("a"))
			s.At(3, rec("b")) // at the limit: fires
			s.At(5, rec("c"))
			s.RunUntil(3)
			mark("stop")
			s.RunUntil(4) // nothing due: only the clock moves
			mark("stop")
			s.RunUntil(4)
			mark("again")
			s.Run()
		},
		want: "a@1 b@3 stop@3 stop@4 again@4 c@5",
	}, {
		name: "run until past the last event",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			s.At(1, rec("a"))
			s.RunUntil(10)
			mark("stop")
			s.After(1, rec("b"))
			s.Run()
		},
		want: "a@1 stop@10 b@11",
	}, {
		name: "run until fires events scheduled inside the window",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			s.At(1, func() {
				mark("a")
				s.At(2, rec("in"))
				s.At(4, rec("out"))
			})
			s.RunUntil(3)
			mark("stop")
		},
		want: "a@1 in@2 stop@3",
	}, {
		name: "step",
		run: func(s *des.Sim, mark func(string), rec func(string) func()) {
			s.At(2, rec("b"))
			s.At(1, rec("a"))
			s.Step()
			mark("step")
			s.Step()
			mark("step")
			if s.Step() {
				mark("unexpected")
			}
		},
		want: "a@1 step@1 b@2 step@2",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := des.New()
			var trace []string
			mark := func(name string) { trace = append(trace, fmt.Sprintf("%s@%d", name, s.Now())) }
			rec := func(name string) func() { return func() { mark(name) } }
			tt.run(s, mark, rec)
			if got := strings.Join(trace, " "); got != tt.want {
				t.Errorf("trace:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestCounts(t *testing.T) {
	var s des.Sim // the zero Sim is ready to use
	nop := func() {}
	a := s.At(10, nop)
	b := s.At(20, nop)
	s.At(30, nop)
	if got := s.Pending(); got != 3 {
		t.Fatalf("Pending = %d, want 3", got)
	}
	if !a.Pending() || !b.Pending() {
		t.Fatal("scheduled events not pending")
	}
	s.Cancel(b)
	s.Cancel(b)
	if got := s.Pending(); got != 2 || b.Pending() {
		t.Fatalf("after Cancel: Pending = %d (want 2), b.Pending = %v", got, b.Pending())
	}
	s.Step()
	if s.Pending() != 1 || s.Fired() != 1 || a.Pending() || s.Now() != 10 {
		t.Fatalf("after Step: Pending = %d, Fired = %d, a.Pending = %v, Now = %v",
			s.Pending(), s.Fired(), a.Pending(), s.Now())
	}
	s.Cancel(a) // already fired
	s.Run()
	if s.Pending() != 0 || s.Fired() != 2 || s.Now() != 30 {
		t.Fatalf("after Run: Pending = %d, Fired = %d, Now = %v", s.Pending(), s.Fired(), s.Now())
	}
	if s.Step() {
		t.Fatal("Step on an empty queue returned true")
	}
}

func TestAfterSaturates(t *testing.T) {
	s := des.New()
	s.RunUntil(des.Second)
	e := s.After(des.MaxTime, func() {})
	if s.Pending() != 1 || !e.Pending() {
		t.Fatal("event not scheduled")
	}
	s.Run()
	if s.Now() != des.MaxTime {
		t.Fatalf("Now = %v, want MaxTime", s.Now())
	}
}

func TestPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func(s *des.Sim)
	}{
		{"At in the past", func(s *des.Sim) { s.At(5, func() {}) }},
		{"After with negative delay", func(s *des.Sim) { s.After(-1, func() {}) }},
		{"At with nil func", func(s *des.Sim) { s.At(20, nil) }},
		{"RunUntil in the past", func(s *des.Sim) { s.RunUntil(9) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := des.New()
			s.RunUntil(10)
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			tt.f(s)
		})
	}
}

// TestRandomSchedule drives the queue with random scheduling and
// cancelling from inside callbacks, and checks it against a model: events
// fire in (time, scheduling order), each live event exactly once, no
// cancelled one, and Pending and Fired agree with the model throughout.
func TestRandomSchedule(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 42))
		s := des.New()
		type ev struct {
			id        int
			at        des.Time
			handle    des.Event
			fired     bool
			cancelled bool
		}
		var evs []*ev
		var live []*ev // pending in the model, in no particular order
		var lastAt des.Time
		lastID := -1
		var fired uint64
		var schedule func(at des.Time)
		schedule = func(at des.Time) {
			e := &ev{id: len(evs), at: at}
			evs = append(evs, e)
			live = append(live, e)
			e.handle = s.At(at, func() {
				fired++
				if e.cancelled || e.fired {
					t.Fatalf("seed %d: event %d fired (cancelled=%v, fired=%v)", seed, e.id, e.cancelled, e.fired)
				}
				if s.Now() != e.at {
					t.Fatalf("seed %d: event %d fired at %d, want %d", seed, e.id, s.Now(), e.at)
				}
				if e.at < lastAt || e.at == lastAt && e.id < lastID {
					t.Fatalf("seed %d: event %d@%d fired after %d@%d", seed, e.id, e.at, lastID, lastAt)
				}
				lastAt, lastID = e.at, e.id
				e.fired = true
				live = removeEv(live, e)
				for range rng.IntN(3) { // keeps the queue busy, with many ties
					if len(evs) < 5000 {
						schedule(s.Now() + des.Time(rng.IntN(8)))
					}
				}
				if len(live) > 0 && rng.IntN(4) == 0 {
					victim := live[rng.IntN(len(live))]
					victim.cancelled = true
					live = removeEv(live, victim)
					s.Cancel(victim.handle)
				}
				if s.Pending() != len(live) || s.Fired() != fired {
					t.Fatalf("seed %d: Pending = %d, Fired = %d; model %d, %d", seed, s.Pending(), s.Fired(), len(live), fired)
				}
			})
		}
		for range 200 {
			schedule(des.Time(rng.IntN(50)))
		}
		s.Run()
		for _, e := range evs {
			if e.fired == e.cancelled {
				t.Fatalf("seed %d: event %d fired=%v cancelled=%v", seed, e.id, e.fired, e.cancelled)
			}
		}
		if s.Pending() != 0 || len(live) != 0 {
			t.Fatalf("seed %d: %d pending after Run", seed, s.Pending())
		}
	}
}

func removeEv[E comparable](list []E, e E) []E {
	for i, x := range list {
		if x == e {
			list[i] = list[len(list)-1]
			return list[:len(list)-1]
		}
	}
	panic("not in list")
}
