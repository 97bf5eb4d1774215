package sim

import "sort"

// Trace collects a run's timeline as Chrome/Perfetto trace events: one
// track per unit, per DMA channel and for the passes, spans for operators
// (with their dispatch and tiles nested inside) and DMA descriptors, and
// counters for bandwidth and clocks. Set Config.Trace to collect one; the
// tile and line fidelities record it (interpolated decode steps appear as
// one span on the passes track).
type Trace struct {
	Events []TraceEvent `json:"traceEvents"`
	Unit   string       `json:"displayTimeUnit"`
	tracks map[string]int
}

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
	t.Events = append(t.Events, TraceEvent{Name: name, Cat: cat, Ph: "X", Ts: start * 1e6, Dur: (end - start) * 1e6, Pid: tracePid, Tid: t.track(track), Args: args})
}

// counter records counter values at a time of the run.
func (t *Trace) counter(name string, at float64, values map[string]any) {
	if t == nil {
		return
	}
	t.Events = append(t.Events, TraceEvent{Name: name, Ph: "C", Ts: at * 1e6, Pid: tracePid, Args: values})
}

// mark is the number of events so far, for shift.
func (t *Trace) mark() int {
	if t == nil {
		return 0
	}
	return len(t.Events)
}

// shift moves the events recorded between two marks later by seconds: a
// decode step simulated before the interpolated steps that precede it.
func (t *Trace) shift(from, to int, seconds float64) {
	if t == nil {
		return
	}
	for i := from; i < to; i++ {
		if t.Events[i].Ph != "M" {
			t.Events[i].Ts += seconds * 1e6
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

// now is the current time of the run, in seconds: the event kernel's time
// within the pass plus everything before the pass.
func (e *engine) now() float64 { return e.passStart + (e.sim.Now() - e.passSim).Seconds() }

// tracePass starts a pass's clock for the trace.
func (e *engine) tracePass(at float64) {
	e.passStart, e.passSim = at, e.sim.Now()
}

// traceCounters adds the run's counters: DRAM and L3 utilisation per pass
// and the units' clocks.
func (e *engine) traceCounters() {
	if e.trace == nil {
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
