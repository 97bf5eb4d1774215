package sim

// A run's time series is one point per stretch of the run (a prefill, a
// decode step, an idle or pipeline stretch). The run keeps none of it: it
// hands each point to the Config.Series sink as it is produced, so that a
// long run's series costs the sink's medium (a file, for `simulate
// --series`), not the run's memory. What the run needs of its recent past
// (the power of the last second, for a schedule) it keeps in a tail
// bounded by time.

// SeriesSink takes a run's time series as the run produces it: Begin once,
// before any point, then Add for every point in time order. A sink that
// fails (a full disk) keeps its error for its owner to report after the
// run, as a streamed trace does: the run goes on to its result.
type SeriesSink interface {
	// Begin names what the points list: the chip's units, whose clocks
	// each point gives, and the thermal network's nodes, whose
	// temperatures and power it gives.
	Begin(units, nodes []string)
	// Add takes the next point. Its slices belong to the run and are
	// overwritten by the next point: a sink that keeps a point copies
	// them.
	Add(p SeriesPoint)
}

// Series is a run's time series held in memory: the units and thermal
// nodes its points' clocks and temperatures are listed for, and the
// points. It is a SeriesSink, for runs short enough to keep theirs (tests,
// a review's figures); a long run's goes to a file instead.
type Series struct {
	Units  []string
	Nodes  []string
	Points []SeriesPoint
}

// SeriesPoint is one stretch of the run — a prefill or decode step, a
// pipeline stage (Phase names it: tokenize), the model's load, an idle
// wait: when it ended, how long it took, its average power, in total and
// into each thermal node (the heat the network was advanced with), and
// the clocks and temperatures after it.
type SeriesPoint struct {
	Phase      string
	EndS       float64
	Seconds    float64
	PowerW     float64
	ClocksHz   []float64 // per Series.Units
	TempsC     []float64 // per Series.Nodes
	NodePowerW []float64 // per Series.Nodes
}

// Begin starts the series afresh with its units and nodes.
func (s *Series) Begin(units, nodes []string) {
	s.Units, s.Nodes, s.Points = units, nodes, nil
}

// Add appends a copy of p.
func (s *Series) Add(p SeriesPoint) {
	s.Points = append(s.Points, p.clone())
}

// Replay hands the series to sink, as a run would have.
func (s *Series) Replay(sink SeriesSink) {
	sink.Begin(s.Units, s.Nodes)
	for _, p := range s.Points {
		sink.Add(p)
	}
}

// clone is p with slices of its own.
func (p SeriesPoint) clone() SeriesPoint {
	p.ClocksHz = append([]float64(nil), p.ClocksHz...)
	p.TempsC = append([]float64(nil), p.TempsC...)
	p.NodePowerW = append([]float64(nil), p.NodePowerW...)
	return p
}

// MultiSeriesSink is a sink that hands every call on to each of sinks, in
// order, as io.MultiWriter does writes.
func MultiSeriesSink(sinks ...SeriesSink) SeriesSink {
	if len(sinks) == 1 {
		return sinks[0]
	}
	return multiSeriesSink(sinks)
}

type multiSeriesSink []SeriesSink

func (m multiSeriesSink) Begin(units, nodes []string) {
	for _, s := range m {
		s.Begin(units, nodes)
	}
}

func (m multiSeriesSink) Add(p SeriesPoint) {
	for _, s := range m {
		s.Add(p)
	}
}

// powerWindow is the stretch of the recent past whose mean power a
// schedule's rules see (ScheduleState.PowerW).
const powerWindow = 1.0

// stretchEnergy is a stretch's length and energy, for the recent power.
type stretchEnergy struct{ seconds, joules float64 }

// powerTail is the run's most recent stretches, enough of them to cover
// powerWindow twice over: what recentPower reads, in memory bounded by
// time, not by the run's length.
type powerTail struct {
	stretches []stretchEnergy
	seconds   float64 // over stretches
}

// add keeps a stretch and drops the oldest ones not needed to cover twice
// powerWindow without them. Twice, so that rounding in the running sum can
// never drop a stretch recentPower's newest-first sum still reaches.
func (t *powerTail) add(seconds, joules float64) {
	t.stretches = append(t.stretches, stretchEnergy{seconds, joules})
	t.seconds += seconds
	for len(t.stretches) > 1 && t.seconds-t.stretches[0].seconds >= 2*powerWindow {
		t.seconds -= t.stretches[0].seconds
		t.stretches = t.stretches[1:]
	}
}

// beginSeries names the series' columns to the run's sink, if it has one.
func (e *engine) beginSeries() {
	if s := e.cfg.Series; s != nil {
		s.Begin(e.cfg.Chip.UnitNames(), e.heat.net.Nodes())
	}
}

// record is a stretch's point of the run's time series: its end, its
// length, its power (in total and into each node), and every unit's clock
// and node's temperature after it. The run counts it against its step
// budget, keeps its energy for the recent power, and hands the point to
// its sink, if it has one.
func (e *engine) record(label string, seconds, joules float64) {
	n := e.st.points
	if e.overflow == nil && (n == maxSeriesPoints || n == estimateAfter && e.tooManyAhead()) {
		e.overflow = e.tooLong()
		if e.stop != nil {
			e.stop()
		}
	}
	e.st.points++
	pt := SeriesPoint{Phase: label, EndS: e.clock + seconds, Seconds: seconds, PowerW: ratio(joules, seconds)}
	e.st.recent.add(seconds, pt.PowerW*seconds)
	sink := e.cfg.Series
	if sink == nil {
		return
	}
	b := &e.st.point // the point's slices, reused from one point to the next
	b.ClocksHz = b.ClocksHz[:0]
	for i := range e.cfg.Chip.Units {
		b.ClocksHz = append(b.ClocksHz, e.clockOf(&e.cfg.Chip.Units[i]))
	}
	b.TempsC = append(b.TempsC[:0], e.heat.temps...)
	b.NodePowerW = append(b.NodePowerW[:0], e.heat.last...)
	pt.ClocksHz, pt.TempsC, pt.NodePowerW = b.ClocksHz, b.TempsC, b.NodePowerW
	sink.Add(pt)
}

// recentPower is the SoC's mean power over the last powerWindow seconds
// of the run (less at its start).
func (e *engine) recentPower() float64 {
	var j, t float64
	s := e.st.recent.stretches
	for i := len(s) - 1; i >= 0 && t < powerWindow; i-- {
		j += s[i].joules
		t += s[i].seconds
	}
	return ratio(j, t)
}
