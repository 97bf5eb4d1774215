package reports

import (
	"fmt"
	"math"
	"slices"

	"github.com/edgetwin/edgetwin/sim"
)

// SeriesPlotData lays a run's time series out on one figure over time (s):
// the thermal nodes' temperatures, the units' clocks and the decode rate,
// each in its own panel, with the throttle onset marked (onset is nil
// when the governor never acted). Steps are gathered into at most 150
// bins across the run, one point at the end of each bin's last step:
// temperatures and clocks as they stand then, the rate as the tokens
// decoded since the previous point over the time since (a prefill between
// requests shows as a dip). batch is the sequences a decode step advances.
func SeriesPlotData(s *sim.Series, batch int, onset *float64, title string) PlotData {
	d := PlotData{Title: title, XLabel: "time (s)", PanelLegends: true}
	temps := Panel{YLabel: "temperature (°C)", YFit: true}
	for _, n := range s.Nodes {
		temps.Lines = append(temps.Lines, Line{Label: n})
	}
	clocks := Panel{YLabel: "clock (GHz)"}
	for _, u := range s.Units {
		clocks.Lines = append(clocks.Lines, Line{Label: u})
	}
	rate := Panel{YLabel: "decode (tokens/s)", Lines: []Line{{}}}
	if len(s.Points) > 0 {
		bin := seriesBin(s.Points[len(s.Points)-1].EndS)
		binOf := func(t float64) int { return int(math.Ceil(t/bin-1e-9)) - 1 } // bin b is (b·bin, (b+1)·bin]
		tokens, since := 0.0, 0.0
		for i, p := range s.Points {
			if p.Phase == "decode" {
				tokens += float64(max(1, batch))
			}
			if i+1 < len(s.Points) && binOf(s.Points[i+1].EndS) == binOf(p.EndS) {
				continue
			}
			// The last step of its bin: a point at its end.
			x := p.EndS
			for k, t := range p.TempsC {
				temps.Lines[k].X, temps.Lines[k].Y = append(temps.Lines[k].X, x), append(temps.Lines[k].Y, t)
			}
			for k, c := range p.ClocksHz {
				clocks.Lines[k].X, clocks.Lines[k].Y = append(clocks.Lines[k].X, x), append(clocks.Lines[k].Y, c/1e9)
			}
			if x > since {
				rate.Lines[0].X, rate.Lines[0].Y = append(rate.Lines[0].X, x), append(rate.Lines[0].Y, tokens/(x-since))
			}
			tokens, since = 0, x
		}
	}
	d.Panels = []Panel{temps, clocks, rate}
	if onset != nil {
		d.Marks = []Mark{{X: *onset, Label: fmt.Sprintf("throttle onset %.0f s", *onset)}}
	}
	return d
}

// seriesBin is the bin width for a run of end seconds: a round 0.1, 0.2,
// 0.5, 1, 2, 5 ... s giving at most 150 bins.
func seriesBin(end float64) float64 {
	if end <= 0 {
		return 1
	}
	for e := -1.0; ; e++ {
		for _, m := range []float64{1, 2, 5} {
			if w := m * math.Pow(10, e); end/w <= 150 {
				return w
			}
		}
	}
}

// StartPower is a run's average power over its first window seconds,
// before the phone has warmed: what the workload asks for, unthrottled
// (the whole run when it is shorter).
func StartPower(s *sim.Series, window float64) float64 {
	var joules, secs float64
	for _, p := range s.Points {
		if p.EndS-p.Seconds >= window {
			break
		}
		joules += p.PowerW * p.Seconds
		secs += p.Seconds
	}
	if secs == 0 {
		return 0
	}
	return joules / secs
}

// CliffPoint is one run of the power-cliff figure.
type CliffPoint struct {
	StartPowerW float64  // StartPower over the first 10 s
	FirstMs     *float64 // ms per token over the first 10 s of decoding
	SustainedMs *float64 // ms per token over the last minute
	PeakC       *float64 // the hottest junction
	SkinPeakC   *float64
	Throttled   bool
}

// PowerCliffPlotData lays out latency and temperature against the power a
// workload draws unthrottled: the time per token over the first 10 s and
// over the last minute, and the junction and skin peaks, with the
// sustainable power marked between the highest run that did not throttle
// and the lowest that did. Points go by power.
func PowerCliffPlotData(title string, pts []CliffPoint) PlotData {
	pts = slices.Clone(pts)
	slices.SortStableFunc(pts, func(a, b CliffPoint) int { return cmpFloat(a.StartPowerW, b.StartPowerW) })
	lat := Panel{YLabel: "time per token (ms)", Lines: []Line{{Label: "first 10 s"}, {Label: "last minute"}}}
	temp := Panel{YLabel: "peak temperature (°C)", YFit: true, Lines: []Line{{Label: "hottest junction"}, {Label: "skin"}}}
	add := func(l *Line, x float64, y *float64) {
		if y != nil {
			l.X, l.Y = append(l.X, x), append(l.Y, *y)
		}
	}
	cool, hot := math.Inf(-1), math.Inf(1)
	for _, p := range pts {
		add(&lat.Lines[0], p.StartPowerW, p.FirstMs)
		add(&lat.Lines[1], p.StartPowerW, p.SustainedMs)
		add(&temp.Lines[0], p.StartPowerW, p.PeakC)
		add(&temp.Lines[1], p.StartPowerW, p.SkinPeakC)
		if p.Throttled {
			hot = math.Min(hot, p.StartPowerW)
		} else {
			cool = math.Max(cool, p.StartPowerW)
		}
	}
	d := PlotData{Title: title, XLabel: "power drawn unthrottled, first 10 s (W)", Panels: []Panel{lat, temp}, PanelLegends: true}
	if !math.IsInf(cool, 0) && !math.IsInf(hot, 0) && cool < hot {
		x := (cool + hot) / 2
		d.Marks = []Mark{{X: x, Label: fmt.Sprintf("sustainable ≈ %.1f W", x)}}
	}
	return d
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
