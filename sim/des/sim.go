package des

import (
	"fmt"
	"math/bits"
)

// Sim is a discrete-event loop: a priority queue of callbacks ordered by
// time and, at equal times, by the order in which they were scheduled.
// It runs on the caller's goroutine and is not safe for concurrent use.
// The zero Sim is ready to use, at time 0.
type Sim struct {
	now   Time
	seq   uint64  // sequence number of the last scheduled event
	fired uint64  // events fired so far
	queue []node  // binary min-heap ordered by (at, seq)
	free  []*item // fired or cancelled items, reused by At
	links []*Link // every link on s, for Skip
}

// node is a queue entry. It holds the sort key inline so that ordering
// the heap touches only the queue's own memory.
type node struct {
	at  Time
	seq uint64
	it  *item
}

// item is one scheduled callback. Items are recycled; seq tells a live
// Event handle from a stale one.
type item struct {
	seq   uint64
	fn    func()
	index int // position in Sim.queue, or -1 when not pending
}

// Event is a handle to a scheduled callback, used to cancel it. It is a
// small value, cheap to copy and keep. The zero Event refers to nothing.
type Event struct {
	it  *item
	seq uint64
}

// Pending reports whether e is still waiting to fire: it has neither
// fired nor been cancelled.
func (e Event) Pending() bool {
	return e.it != nil && e.it.seq == e.seq && e.it.index >= 0
}

// New returns a simulation at time 0 with no pending events.
func New() *Sim { return new(Sim) }

// Now returns the current simulated time: the time of the event being
// fired, or of the last one fired, or the limit of the last RunUntil.
func (s *Sim) Now() Time { return s.now }

// Pending returns the number of events waiting to fire.
func (s *Sim) Pending() int { return len(s.queue) }

// Fired returns the number of events fired so far.
func (s *Sim) Fired() uint64 { return s.fired }

// At schedules fn to be called at time t. Events at the same time fire in
// the order they were scheduled. At panics if t is before Now or fn is
// nil. It may be called from inside a callback, also with t == Now.
func (s *Sim) At(t Time, fn func()) Event {
	if t < s.now {
		panic(fmt.Sprintf("des: At(%v) is before Now() = %v", t, s.now))
	}
	if fn == nil {
		panic("des: At with nil func")
	}
	var it *item
	if n := len(s.free); n > 0 {
		it, s.free = s.free[n-1], s.free[:n-1]
	} else {
		it = new(item)
	}
	s.seq++
	it.seq, it.fn = s.seq, fn
	it.index = len(s.queue)
	s.queue = append(s.queue, node{t, s.seq, it})
	s.up(it.index)
	return Event{it, it.seq}
}

// After schedules fn to be called d after Now. It panics if d is
// negative; a time beyond MaxTime saturates to MaxTime.
func (s *Sim) After(d Time, fn func()) Event {
	if d < 0 {
		panic(fmt.Sprintf("des: After(%v) with negative delay", d))
	}
	t := s.now + d
	if t < s.now {
		t = MaxTime
	}
	return s.At(t, fn)
}

// Cancel removes e, an event scheduled on s, from the queue in O(log n).
// It is a no-op if e has already fired or been cancelled, or is the zero
// Event.
func (s *Sim) Cancel(e Event) {
	if !e.Pending() {
		return
	}
	it := e.it
	s.remove(it.index)
	it.fn = nil
	s.free = append(s.free, it)
}

// Step fires the earliest pending event, advancing Now to its time. It
// reports false if there was none.
func (s *Sim) Step() bool {
	if len(s.queue) == 0 {
		return false
	}
	top := s.pop()
	it := top.it
	s.now = top.at
	s.fired++
	fn := it.fn
	it.fn = nil
	s.free = append(s.free, it) // recycle before fn so fn can reuse it
	fn()
	return true
}

// Run fires events in order until none is pending, including those
// scheduled by the callbacks themselves.
func (s *Sim) Run() {
	for s.Step() {
	}
}

// RunBefore fires events in order, as Run does, but none at or after
// limit: it reports false, leaving those pending and Now before limit, if
// the simulation would have run on past it. A model bounds its simulated
// time with it, so that times saturating at MaxTime never pass for a
// result.
func (s *Sim) RunBefore(limit Time) bool {
	for len(s.queue) > 0 {
		if s.queue[0].at >= limit {
			return false
		}
		s.Step()
	}
	return true
}

// Skip moves the whole simulation d into the future as if time had
// stopped: Now, every pending event and every link's transfers move by d,
// and no transfer makes progress in between (nor do the links' busy time
// and offered capacity count it). A model whose state repeats with a known
// period uses it to leap over whole periods, adding what they would have
// done itself. Events at MaxTime stay there. Skip panics if d is negative.
func (s *Sim) Skip(d Time) {
	if d < 0 {
		panic(fmt.Sprintf("des: Skip(%v) with negative delay", d))
	}
	shift := func(t Time) Time {
		if t > MaxTime-d {
			return MaxTime
		}
		return t + d
	}
	s.now = shift(s.now)
	for i := range s.queue {
		s.queue[i].at = shift(s.queue[i].at) // a uniform shift keeps the heap order
	}
	for _, l := range s.links {
		l.last = shift(l.last)
		l.nextAt = shift(l.nextAt)
		for _, t := range l.active {
			t.finish = shift(t.finish)
		}
	}
}

// RunUntil fires, in order, every event at or before t, then sets Now to
// t. Events after t stay pending. RunUntil panics if t is before Now.
func (s *Sim) RunUntil(t Time) {
	if t < s.now {
		panic(fmt.Sprintf("des: RunUntil(%v) is before Now() = %v", t, s.now))
	}
	for len(s.queue) > 0 && s.queue[0].at <= t {
		s.Step()
	}
	s.now = t
}

// before returns 1 if a fires before b and 0 otherwise: by time, then by
// scheduling order. It compares (at, seq) as one 128-bit unsigned number
// with a borrow chain, so that choosing a child in down takes no
// unpredictable branch; queued times are never negative (they are at or
// after Now, which starts at 0), so comparing them unsigned is exact.
func before(a, b *node) uint64 {
	_, borrow := bits.Sub64(a.seq, b.seq, 0)
	_, borrow = bits.Sub64(uint64(a.at), uint64(b.at), borrow)
	return borrow
}

// remove deletes the item at heap index i and marks it not pending.
func (s *Sim) remove(i int) {
	q := s.queue
	n := len(q) - 1
	q[i].it.index = -1
	if i != n {
		q[i] = q[n]
		q[i].it.index = i
	}
	q[n] = node{}
	s.queue = q[:n]
	if i != n && !s.down(i) {
		s.up(i)
	}
}

// pop removes and returns the root. Rather than sifting the last node down
// from the root, it moves the hole at the root down to a leaf along the
// earlier children, one comparison per level, and sifts the last node up
// from there; the last node usually belongs near the leaves anyway.
func (s *Sim) pop() node {
	q := s.queue
	top := q[0]
	top.it.index = -1
	n := len(q) - 1
	last := q[n]
	q[n] = node{}
	q = q[:n]
	s.queue = q
	if n == 0 {
		return top
	}
	i := 0
	for c := 1; c < n; c = 2*i + 1 {
		if c+1 < n {
			c += int(before(&q[c+1], &q[c]))
		}
		q[i] = q[c]
		q[i].it.index = i
		i = c
	}
	q[i] = last
	s.up(i)
	return top
}

// up moves the item at index i towards the root until the heap is ordered.
func (s *Sim) up(i int) {
	q := s.queue
	x := q[i]
	for i > 0 {
		p := (i - 1) / 2
		if before(&x, &q[p]) == 0 {
			break
		}
		q[i] = q[p]
		q[i].it.index = i
		i = p
	}
	q[i] = x
	x.it.index = i
}

// down moves the item at index i towards the leaves until the heap is
// ordered, and reports whether it moved.
func (s *Sim) down(i0 int) bool {
	q := s.queue
	n := len(q)
	i := i0
	x := q[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n {
			c += int(before(&q[c+1], &q[c])) // the smaller child
		}
		if before(&q[c], &x) == 0 {
			break
		}
		q[i] = q[c]
		q[i].it.index = i
		i = c
	}
	q[i] = x
	x.it.index = i
	return i > i0
}
