package des

import (
	"fmt"
	"math"
	"slices"
)

// doneEpsilon is the number of remaining bytes below which a transfer is
// treated as complete, so that float rounding cannot leave a sliver of a
// byte (and an extra event) behind.
const doneEpsilon = 1e-6

// Link is a shared channel, such as a DRAM bus, an L3 port or a DMA
// engine, whose capacity in bytes per second is shared by its concurrent
// transfers with max-min fairness (water-filling): every active transfer
// gets an equal share, except that a transfer with a rate cap never
// exceeds its cap and the capacity it leaves goes to the others.
//
// Rates change only when a transfer starts or completes or the capacity
// is set. At each such instant the link brings every transfer's progress
// up to date, recomputes the shares and the finish times in whole
// picoseconds (rounded up), and keeps a single event in the Sim, at the
// earliest finish time. Transfers are kept in start order, so transfers
// that finish at the same instant complete in start order.
type Link struct {
	sim      *Sim
	name     string
	capacity float64     // bytes per second
	active   []*Transfer // in start order
	last     Time        // when active transfers' progress was last updated
	moved    float64     // bytes of completed transfers
	busy     Time        // busy time up to last
	offered  float64     // capacity integrated over time up to last, in bytes
	next     Event       // the earliest completion, if any
	nextAt   Time        // time of next
	fire     func()      // l.complete, bound once to avoid an allocation per event
	caps     []float64   // scratch for level
	finished []*Transfer // scratch for complete
	spare    []*Transfer // completed transfers of Send, for reuse
}

// Transfer is a movement of bytes over a Link, returned by Link.Start.
type Transfer struct {
	link   *Link   // nil once complete
	size   float64 // bytes
	left   float64 // bytes remaining as of link.last
	cap    float64 // rate cap in bytes per second, +Inf if uncapped
	rate   float64 // current rate in bytes per second; -1 until first shared
	finish Time    // when the last byte moves at the current rate
	done   func()
	reuse  bool // started by Send: nobody holds it once done
}

// NewLink returns an idle link on s with the given capacity in bytes per
// second. It panics if the capacity is negative, infinite or NaN; a
// capacity of zero stalls all transfers until SetCapacity raises it.
func NewLink(s *Sim, name string, bytesPerSecond float64) *Link {
	checkCapacity(bytesPerSecond)
	l := &Link{sim: s, name: name, capacity: bytesPerSecond, last: s.Now()}
	l.fire = l.complete
	s.links = append(s.links, l)
	return l
}

func checkCapacity(bytesPerSecond float64) {
	if !(bytesPerSecond >= 0) || math.IsInf(bytesPerSecond, 1) {
		panic(fmt.Sprintf("des: link capacity %v B/s is not a finite non-negative number", bytesPerSecond))
	}
}

// Name returns the name given to NewLink.
func (l *Link) Name() string { return l.name }

// Capacity returns the link's current capacity in bytes per second.
func (l *Link) Capacity() float64 { return l.capacity }

// Start begins moving bytes over the link and returns the transfer. If
// maxRate > 0 the transfer never moves faster than maxRate bytes per
// second; otherwise it is uncapped. done, if not nil, is called from the
// event loop once the last byte has moved; a transfer of zero bytes
// completes at the current time, but never before Start returns. Start
// panics if bytes is negative, infinite or NaN.
func (l *Link) Start(bytes, maxRate float64, done func()) *Transfer {
	if !(bytes >= 0) || math.IsInf(bytes, 1) {
		panic(fmt.Sprintf("des: transfer of %v bytes", bytes))
	}
	rateCap := math.Inf(1)
	if maxRate > 0 {
		rateCap = maxRate
	}
	l.advance()
	var t *Transfer
	if n := len(l.spare); n > 0 {
		t, l.spare = l.spare[n-1], l.spare[:n-1]
	} else {
		t = new(Transfer)
	}
	*t = Transfer{link: l, size: bytes, left: bytes, cap: rateCap, rate: -1, done: done}
	l.active = append(l.active, t)
	l.reshare()
	return t
}

// Send is Start for a caller that keeps no handle: once done has been
// called the transfer is reused by a later Start or Send, so a busy link
// allocates nothing per transfer.
func (l *Link) Send(bytes, maxRate float64, done func()) {
	l.Start(bytes, maxRate, done).reuse = true
}

// SetCapacity changes the link's capacity, for example when a governor
// lowers the DRAM clock, and re-shares it among the active transfers from
// now on. It panics like NewLink on an invalid capacity.
func (l *Link) SetCapacity(bytesPerSecond float64) {
	checkCapacity(bytesPerSecond)
	l.advance()
	l.capacity = bytesPerSecond
	l.reshare()
}

// Active returns the number of transfers in progress.
func (l *Link) Active() int { return len(l.active) }

// BytesMoved returns the number of bytes moved so far by all transfers,
// complete or not. It is exact at the instants where rates change.
func (l *Link) BytesMoved() float64 {
	b := l.moved
	for _, t := range l.active {
		b += t.size - t.Remaining()
	}
	return b
}

// BusyTime returns the time during which at least one transfer was
// active, including stalled ones.
func (l *Link) BusyTime() Time {
	if len(l.active) == 0 {
		return l.busy
	}
	return l.busy + l.sim.Now() - l.last
}

// Utilization returns the fraction of the capacity offered since NewLink
// that was used: BytesMoved divided by the integral of the capacity over
// time (capacity × elapsed time while the capacity is constant). It is 0
// before any capacity has been offered.
func (l *Link) Utilization() float64 {
	offered := l.offered + l.capacity*float64(l.sim.Now()-l.last)/1e12
	if offered == 0 {
		return 0
	}
	return l.BytesMoved() / offered
}

// Remaining returns the number of bytes the transfer has yet to move; 0
// once it is complete.
func (t *Transfer) Remaining() float64 {
	l := t.link
	if l == nil || l.sim.Now() >= t.finish {
		return 0
	}
	return max(0, t.left-t.rate*float64(l.sim.Now()-l.last)/1e12)
}

// Rate returns the transfer's current share of the link in bytes per
// second; 0 once it is complete.
func (t *Transfer) Rate() float64 {
	if t.link == nil {
		return 0
	}
	return t.rate
}

// advance brings the progress of the active transfers, and the link's
// counters, up to Now at the current rates.
func (l *Link) advance() {
	now := l.sim.Now()
	dt := now - l.last
	if dt == 0 {
		return
	}
	l.last = now
	l.offered += l.capacity * float64(dt) / 1e12
	if len(l.active) == 0 {
		return
	}
	l.busy += dt
	for _, t := range l.active {
		if now >= t.finish {
			t.left = 0 // the finish time is authoritative; drop float dust
			continue
		}
		t.left = max(0, t.left-t.rate*float64(dt)/1e12)
	}
}

// reshare assigns every active transfer its max-min fair rate, recomputes
// the finish time of those whose rate changed, and moves the link's event
// to the earliest finish time.
func (l *Link) reshare() {
	now := l.sim.Now()
	level := l.level()
	next := MaxTime
	for _, t := range l.active {
		if r := min(t.cap, level); r != t.rate {
			t.rate = r
			t.finish = finishTime(now, t.left, r)
		}
		next = min(next, t.finish)
	}
	if l.next.Pending() {
		if l.nextAt == next {
			return
		}
		l.sim.Cancel(l.next)
	}
	if next != MaxTime {
		l.next, l.nextAt = l.sim.At(next, l.fire), next
	}
}

// level returns the water level of max-min fairness: the rate of every
// transfer whose cap is above it. It fills the capacity from the lowest
// cap up, giving each capped transfer its cap while the cap is below an
// equal share of what is left. It returns +Inf when every transfer is
// capped below its share, leaving capacity unused.
func (l *Link) level() float64 {
	caps := l.caps[:0]
	for _, t := range l.active {
		if !math.IsInf(t.cap, 1) {
			caps = append(caps, t.cap)
		}
	}
	if len(caps) > 1 {
		slices.Sort(caps)
	}
	l.caps = caps
	left, n := l.capacity, len(l.active)
	for _, c := range caps {
		if c >= left/float64(n) {
			break
		}
		left -= c
		n--
	}
	if n == 0 {
		return math.Inf(1)
	}
	return left / float64(n)
}

// finishTime returns when a transfer with left bytes to move at rate
// bytes per second from now completes: now plus the time rounded up to a
// whole picosecond, or MaxTime if it makes no progress or would finish
// beyond MaxTime.
func finishTime(now Time, left, rate float64) Time {
	if left < doneEpsilon {
		return now
	}
	if rate <= 0 {
		return MaxTime
	}
	// Shave 4 ulps before rounding up, so that a quotient that is an
	// integer number of picoseconds but came out a hair above it (1000 B
	// at 1000 B/s must take exactly 1 s) is not pushed to the next ps.
	ps := math.Ceil(left / rate * 1e12 * (1 - 0x1p-50))
	if ps >= float64(MaxTime-now) {
		return MaxTime
	}
	return now + Time(ps)
}

// complete is the link's event: it retires the transfers whose finish
// time has come, re-shares the link among the others, and then calls the
// retired transfers' done funcs in start order.
func (l *Link) complete() {
	l.advance()
	now := l.sim.Now()
	done := l.finished[:0]
	l.finished = nil // a done func that re-enters complete must not share it
	kept := l.active[:0]
	for _, t := range l.active {
		if t.finish > now {
			kept = append(kept, t)
			continue
		}
		l.moved += t.size
		t.link, t.left, t.rate = nil, 0, 0
		done = append(done, t)
	}
	clear(l.active[len(kept):])
	l.active = kept
	l.reshare()
	for _, t := range done {
		if fn := t.done; fn != nil {
			t.done = nil
			fn()
		}
		if t.reuse {
			l.spare = append(l.spare, t)
		}
	}
	clear(done)
	l.finished = done[:0]
}
