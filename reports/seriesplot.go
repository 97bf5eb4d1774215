package reports

import (
	"fmt"
	"math"
	"slices"

	"github.com/edgetwin/edgetwin/sim"
)

// SeriesPlotData lays a time series held in memory out on one figure over
// time, as a [SeriesPlot] given the series as the run went would.
func SeriesPlotData(s *sim.Series, batch int, onset *float64, title string) PlotData {
	p := NewSeriesPlot()
	s.Replay(p)
	return p.PlotData(batch, onset, title)
}

// SeriesPlot lays a run's time series out on one figure over time (s) as
// the run produces it (it is a [sim.SeriesSink]): the thermal nodes'
// temperatures, the units' clocks and the decode rate, each in its own
// panel. Steps are gathered into at most 150 bins across the run, one
// point at the end of each bin's last step: temperatures and clocks as
// they stand then, the rate as the tokens decoded since the previous point
// over the time since (a prefill between requests shows as a dip).
// Give it to the run as its Config.Series, then take PlotData.
//
// The bin width (seriesBin) depends on the run's end, unknown until the
// run is over, so the plot bins every point at each width the run could
// still end with: a width is dropped once the run is too long for it, and
// each one kept holds at most about 150 points. Memory is bounded whatever
// the run's length, and the figure is the one binning the whole series at
// the end would give.
type SeriesPlot struct {
	units, nodes []string
	levels       []seriesLevel
	prev         sim.SeriesPoint // the latest point, its slices the plot's own
	points       int
}

// seriesLevel is the binning at one width: the points drawn so far (one
// per bin, each bin's last step) and the bin being filled.
type seriesLevel struct {
	width   float64
	bin     int // the bin of the latest point
	decodes int // decode steps since the last point drawn
	drawn   []seriesMark
}

// seriesMark is a point drawn: a bin's last step's end, the temperatures
// and clocks then, and the decode steps since the point before.
type seriesMark struct {
	x             float64
	temps, clocks []float64
	decodes       int
}

// binOf is the bin a step that ends at t falls in: bin b is
// (b·width, (b+1)·width].
func (l *seriesLevel) binOf(t float64) int { return int(math.Ceil(t/l.width-1e-9)) - 1 }

// draw adds the point of the bin p ends: at its end, as it stands then.
func (l *seriesLevel) draw(p *sim.SeriesPoint) {
	l.drawn = append(l.drawn, seriesMark{x: p.EndS, temps: slices.Clone(p.TempsC), clocks: slices.Clone(p.ClocksHz), decodes: l.decodes})
	l.decodes = 0
}

// seriesWidths are the bin widths seriesBin gives, narrowest first and
// computed as it computes them, up to 5·10⁹ s: runs up to 7.5·10¹¹ s (a
// longer one is binned at the widest).
func seriesWidths() []float64 {
	var ws []float64
	for e := -1.0; e <= 9; e++ {
		for _, m := range []float64{1, 2, 5} {
			ws = append(ws, m*math.Pow(10, e))
		}
	}
	return ws
}

// NewSeriesPlot starts the figure of a run.
func NewSeriesPlot() *SeriesPlot {
	p := &SeriesPlot{}
	for _, w := range seriesWidths() {
		p.levels = append(p.levels, seriesLevel{width: w})
	}
	return p
}

// Begin takes the units and nodes the points list.
func (p *SeriesPlot) Begin(units, nodes []string) { p.units, p.nodes = units, nodes }

// Add bins a point at every width the run may still end with.
func (p *SeriesPlot) Add(pt sim.SeriesPoint) {
	// A run that has reached pt's end ends no earlier: the widths too
	// narrow for it, those seriesBin passes over, go.
	for len(p.levels) > 1 && pt.EndS > 0 && pt.EndS/p.levels[0].width > 150 {
		p.levels = p.levels[1:]
	}
	for i := range p.levels {
		l := &p.levels[i]
		b := l.binOf(pt.EndS)
		if p.points > 0 && b != l.bin {
			l.draw(&p.prev) // the last step of its bin
		}
		l.bin = b
		if pt.Phase == "decode" {
			l.decodes++
		}
	}
	p.points++
	p.prev.EndS = pt.EndS
	p.prev.TempsC = append(p.prev.TempsC[:0], pt.TempsC...)
	p.prev.ClocksHz = append(p.prev.ClocksHz[:0], pt.ClocksHz...)
}

// Empty reports whether the run gave the plot no point.
func (p *SeriesPlot) Empty() bool { return p.points == 0 }

// PlotData is the figure, once the run is over, with the throttle onset
// marked (onset is nil when the governor never acted). batch is the
// sequences a decode step advances.
func (p *SeriesPlot) PlotData(batch int, onset *float64, title string) PlotData {
	d := PlotData{Title: title, XLabel: "time (s)", PanelLegends: true}
	temps := Panel{YLabel: "temperature (°C)", YFit: true}
	for _, n := range p.nodes {
		temps.Lines = append(temps.Lines, Line{Label: n})
	}
	clocks := Panel{YLabel: "clock (GHz)"}
	for _, u := range p.units {
		clocks.Lines = append(clocks.Lines, Line{Label: u})
	}
	rate := Panel{YLabel: "decode (tokens/s)", Lines: []Line{{}}}
	if p.points > 0 {
		w := seriesBin(p.prev.EndS)
		i := slices.IndexFunc(p.levels, func(l seriesLevel) bool { return l.width == w })
		if i < 0 {
			i = len(p.levels) - 1 // a run past the widest
		}
		// The run's last step ends its bin: drawn on a copy, so the plot
		// can take more points.
		l := p.levels[i]
		l.drawn = slices.Clip(l.drawn)
		l.draw(&p.prev)
		per := float64(max(1, batch)) // tokens a decode step gives
		since := 0.0
		for _, m := range l.drawn {
			for k, t := range m.temps {
				temps.Lines[k].X, temps.Lines[k].Y = append(temps.Lines[k].X, m.x), append(temps.Lines[k].Y, t)
			}
			for k, c := range m.clocks {
				clocks.Lines[k].X, clocks.Lines[k].Y = append(clocks.Lines[k].X, m.x), append(clocks.Lines[k].Y, c/1e9)
			}
			if m.x > since {
				// A sum of decodes × per, as exact as a sum of per each step.
				rate.Lines[0].X, rate.Lines[0].Y = append(rate.Lines[0].X, m.x), append(rate.Lines[0].Y, float64(m.decodes)*per/(m.x-since))
			}
			since = m.x
		}
	}
	d.Panels = []Panel{temps, clocks, rate}
	if onset != nil {
		d.Marks = []Mark{{X: *onset, Label: fmt.Sprintf("throttle onset %.0f s", *onset)}}
	}
	return d
}

// StartPower is the average power over the first window seconds of a
// time series held in memory, as a [StartPowerMeter] measures it.
func StartPower(s *sim.Series, window float64) float64 {
	m := &StartPowerMeter{Window: window}
	s.Replay(m)
	return m.Watts()
}

// StartPowerMeter measures a run's average power over its first Window
// seconds as the run produces its series (it is a [sim.SeriesSink]):
// before the phone has warmed, what the workload asks for, unthrottled
// (the whole run when it is shorter).
type StartPowerMeter struct {
	Window       float64
	joules, secs float64
	past         bool // a step has started past the window
}

// Begin does nothing: the meter reads the total power alone.
func (m *StartPowerMeter) Begin(_, _ []string) {}

// Add counts a step that starts within the window.
func (m *StartPowerMeter) Add(p sim.SeriesPoint) {
	if m.past || p.EndS-p.Seconds >= m.Window {
		m.past = true
		return
	}
	m.joules += p.PowerW * p.Seconds
	m.secs += p.Seconds
}

// Watts is the average power over the window; 0 for a run with no time.
func (m *StartPowerMeter) Watts() float64 {
	if m.secs == 0 {
		return 0
	}
	return m.joules / m.secs
}
