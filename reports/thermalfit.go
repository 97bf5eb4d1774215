package reports

import (
	"fmt"
	"io"
	"strconv"

	"github.com/edgetwin/edgetwin/calibrate/thermalfit"
)

// WriteThermalFit prints the result of `edgetwin calibrate thermal` as a
// table or JSON (CSV has no room for it).
func WriteThermalFit(w io.Writer, r *thermalfit.Result, f Format) error {
	switch f {
	case JSON:
		return WriteJSON(w, r)
	case CSV:
		return fmt.Errorf("a thermal fit has no CSV form: use table or json")
	}
	return ThermalFitTable(w, r)
}

// ThermalFitTable prints the fitted values with their uncertainties, the
// network's time constants before and after, and the fit error per sensor.
func ThermalFitTable(w io.Writer, r *thermalfit.Result) error {
	cells := [][]string{{"parameter", "start", "fitted", "± 1σ", "±%"}}
	for _, p := range r.Params {
		sd, rel := "?", "?"
		if p.StdErr != nil {
			sd, rel = g3(*p.StdErr), g3(100**p.StdErr/p.Value)
		}
		cells = append(cells, []string{p.Path, g3(p.Start) + " " + p.Unit, g3(p.Value) + " " + p.Unit, sd, rel})
	}
	if err := writeCells(w, cells, map[int]bool{0: true}); err != nil {
		return err
	}
	fmt.Fprintln(w)
	cells = [][]string{{"time constant", "start", "fitted", "± 1σ"}}
	for k, tc := range r.TimeConstants {
		sd := "?"
		if tc.StdErr != nil {
			sd = g3(*tc.StdErr) + " s"
		}
		cells = append(cells, []string{"τ" + strconv.Itoa(k+1), g3(tc.Start) + " s", g3(tc.Value) + " s", sd})
	}
	if err := writeCells(w, cells, map[int]bool{0: true}); err != nil {
		return err
	}
	fmt.Fprintln(w)
	cells = [][]string{{"sensor", "RMS °C", "worst °C", "at s", "line"}}
	for _, s := range r.Sensors {
		cells = append(cells, []string{s.Node, g3(s.RMSC), g3(s.WorstC), g3(s.WorstAtS), strconv.Itoa(s.WorstLine)})
	}
	cells = append(cells, []string{"all", g3(r.RMSC), g3(r.WorstC), "", ""})
	if err := writeCells(w, cells, map[int]bool{0: true}); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d rows, %d optimiser runs (%d agree on the best), %d network simulations\n", r.Rows, r.Starts, r.Agreeing, r.Evaluations)
	for _, warn := range r.Warnings {
		fmt.Fprintln(w, "warning: "+warn)
	}
	return nil
}

func g3(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }
