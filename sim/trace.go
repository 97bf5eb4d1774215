package sim

import (
	"math"
	"slices"
	"sort"
)

// Trace collects a run's timeline as Chrome/Perfetto trace events: one
// track per unit, per DMA channel and for the passes, spans for operators
// (with their dispatch and tiles nested inside) and DMA descriptors, and
// counters for bandwidth and clocks. Set Config.Trace to collect one; the
// tile and line fidelities record it (interpolated decode steps appear as
// one span on the passes track).
//
// A long run's trace is larger than its memory should be: [StreamTrace]
// hands each event on as soon as it is settled.
type Trace struct {
	Events []TraceEvent `json:"traceEvents"`
	Unit   string       `json:"displayTimeUnit"`
	tracks map[string]int

	// A streamed trace keeps its metadata events in Events and the others
	// in pending until they are settled, when they go to emit; see settle.
	emit    func(TraceEvent) error
	err     error        // emit's first error; nothing is emitted after it
	pending []TraceEvent // recorded, not yet emitted, in the order recorded
	tail    []TraceEvent // the run's counters, recorded as at its end
	base    int          // events emitted from pending, for mark and shift
	clocked bool         // the clock counters are in tail
	sampled int          // bandwidth samples whose counters are in tail
}

// StreamTrace is a Trace that does not keep its events: each one goes to
// emit as soon as no event of the run can come before it, in the order of
// a finished Trace's Events after its metadata events. When the run ends,
// Events holds the metadata events alone (a track's name and order); a
// trace-event file is those, then the emitted events. The first error
// emit returns stops the emitting and is [Trace.Err].
func StreamTrace(emit func(TraceEvent) error) *Trace { return &Trace{emit: emit} }

// Err is the first error the emit function of a [StreamTrace] returned.
func (t *Trace) Err() error { return t.err }

// TraceEvent is one event of the trace-event format: a complete span
// ("X"), a counter ("C") or metadata ("M"). Times are microseconds.
type TraceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

const tracePid = 1

// track returns the id of a named track, naming it on first use.
func (t *Trace) track(name string) int {
	if t.tracks == nil {
		t.tracks = map[string]int{}
		t.Unit = "ns"
	}
	if id, ok := t.tracks[name]; ok {
		return id
	}
	id := len(t.tracks) + 1
	t.tracks[name] = id
	t.Events = append(t.Events,
		TraceEvent{Name: "thread_name", Ph: "M", Pid: tracePid, Tid: id, Args: map[string]any{"name": name}},
		TraceEvent{Name: "thread_sort_index", Ph: "M", Pid: tracePid, Tid: id, Args: map[string]any{"sort_index": id}})
	return id
}

// span records a complete event on a track, times in seconds of the run.
func (t *Trace) span(track, name, cat string, start, end float64, args map[string]any) {
	if t == nil {
		return
	}
	t.add(TraceEvent{Name: name, Cat: cat, Ph: "X", Ts: start * 1e6, Dur: (end - start) * 1e6, Pid: tracePid, Tid: t.track(track), Args: args})
}

// add records an event that is not metadata.
func (t *Trace) add(ev TraceEvent) {
	if t.emit == nil {
		t.Events = append(t.Events, ev)
		return
	}
	t.pending = append(t.pending, ev)
}

// recorded is where the events that are not metadata are kept: all of
// them, or for a streamed trace, the pending ones.
func (t *Trace) recorded() []TraceEvent {
	if t.emit == nil {
		return t.Events
	}
	return t.pending
}

// counter records counter values at a time of the run.
func (t *Trace) counter(name string, at float64, values map[string]any) {
	if t == nil {
		return
	}
	t.add(TraceEvent{Name: name, Ph: "C", Ts: at * 1e6, Pid: tracePid, Args: values})
}

// mark is the number of events so far, for shift.
func (t *Trace) mark() int {
	if t == nil {
		return 0
	}
	return t.base + len(t.recorded())
}

// shift moves the events recorded between two marks later by seconds: a
// decode step simulated before the interpolated steps that precede it.
// No settle may come between the marks.
func (t *Trace) shift(from, to int, seconds float64) {
	if t == nil {
		return
	}
	evs := t.recorded()
	for i := from - t.base; i < to-t.base; i++ {
		if evs[i].Ph != "M" {
			evs[i].Ts += seconds * 1e6
		}
	}
}

// finish orders the events by time, metadata first, so viewers and tests
// read them in order; equal times keep the order they were recorded in.
func (t *Trace) finish() {
	if t == nil {
		return
	}
	sort.SliceStable(t.Events, func(i, j int) bool {
		a, b := t.Events[i], t.Events[j]
		if (a.Ph == "M") != (b.Ph == "M") {
			return a.Ph == "M"
		}
		return a.Ts < b.Ts
	})
}

// settle emits, in finish's order, the pending events and counters before
// until (µs of the run), which the caller promises no event recorded
// later can precede: every later event starts at until or after it. The
// run's counters are recorded as at the run's end, so on equal times they
// follow every event (as finish orders them); those before until are
// known by then and join the pending events after them.
func (t *Trace) settle(until float64) {
	keep := t.tail[:0]
	for _, ev := range t.tail {
		if ev.Ts < until {
			t.pending = append(t.pending, ev)
		} else {
			keep = append(keep, ev)
		}
	}
	t.tail = keep
	sort.SliceStable(t.pending, func(i, j int) bool { return t.pending[i].Ts < t.pending[j].Ts })
	n := sort.Search(len(t.pending), func(i int) bool { return t.pending[i].Ts >= until })
	for _, ev := range t.pending[:n] {
		if t.err == nil {
			t.err = t.emit(ev)
		}
	}
	t.base += n
	t.pending = slices.Delete(t.pending, 0, n) // the emitted events' args freed
}

// now is the current time of the run, in seconds: the run's clock, which
// stands at the start of the stretch, plus what the stretch has run before
// the current pass, plus the event kernel's time since the pass began.
func (e *engine) now() float64 { return e.clock + e.lead + (e.sim.Now() - e.passSim).Seconds() }

// lap adds t seconds of work just done to the current stretch, and notes
// the event kernel's time, for now.
func (e *engine) lap(t float64) {
	e.lead += t
	e.passSim = e.sim.Now()
}

// traceCounters adds the run's counters: DRAM and L3 utilisation per pass
// and the units' clocks; a streamed trace emits what it still holds.
func (e *engine) traceCounters() {
	if e.trace == nil {
		return
	}
	if e.trace.emit != nil {
		e.traceSettle(math.Inf(1))
		return
	}
	for _, u := range e.cfg.Chip.Units {
		e.trace.counter("clock "+u.Name+" (GHz)", 0, map[string]any{"GHz": float64(u.Clock) / 1e9})
	}
	for _, b := range e.st.samples {
		e.trace.counter("bandwidth use", b.StartS, map[string]any{"dram": b.DRAMUtil, "l3": b.L3Util})
	}
	e.trace.finish()
}

// traceSettle lets a streamed trace emit what comes before until (s of the
// run): the caller is at a point where every event still to come starts
// at until or later, and every bandwidth sample before it is final.
func (e *engine) traceSettle(until float64) {
	t := e.trace
	if t == nil || t.emit == nil {
		return
	}
	if !t.clocked {
		for _, u := range e.cfg.Chip.Units {
			t.tail = append(t.tail, TraceEvent{Name: "clock " + u.Name + " (GHz)", Ph: "C", Pid: tracePid, Args: map[string]any{"GHz": float64(u.Clock) / 1e9}})
		}
		t.clocked = true
	}
	for _, b := range e.st.samples[t.sampled:] {
		t.tail = append(t.tail, TraceEvent{Name: "bandwidth use", Ph: "C", Ts: b.StartS * 1e6, Pid: tracePid, Args: map[string]any{"dram": b.DRAMUtil, "l3": b.L3Util}})
	}
	t.sampled = len(e.st.samples)
	t.settle(until * 1e6)
}
