package reports

import (
	"bytes"
	"encoding/csv"
	"strconv"

	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"github.com/edgetwin/edgetwin/sim"
)

// WriteSeries writes a run's time series as CSV, one row per prefill and
// decode step: when it ended (s), how long it took (ms), its average power
// (W), each unit's clock (GHz) and each thermal node's temperature (°C)
// after it, and the average power into each node over the step (W) — the
// columns `edgetwin calibrate thermal` reads back, so a simulated run can
// stand in for a measured one. The file is written atomically.
func WriteSeries(path string, s *sim.Series) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	header := []string{"phase", "end_s", "latency_ms", "power_w"}
	for _, u := range s.Units {
		header = append(header, "clock_"+u+"_ghz")
	}
	for _, n := range s.Nodes {
		header = append(header, "temp_"+n+"_c")
	}
	for _, n := range s.Nodes {
		header = append(header, "power_"+n+"_w")
	}
	if err := w.Write(header); err != nil {
		return err
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	for _, p := range s.Points {
		row := []string{p.Phase, num(p.EndS), num(p.Seconds * 1e3), num(p.PowerW)}
		for _, c := range p.ClocksHz {
			row = append(row, num(c/1e9))
		}
		for _, t := range p.TempsC {
			row = append(row, num(t))
		}
		for _, w := range p.NodePowerW {
			row = append(row, num(w))
		}
		if err := w.Write(row); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b.Bytes())
}
