package reports

import (
	"fmt"
	"math"
	"slices"
)

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
