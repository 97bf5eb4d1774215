package thermalfit

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/units"
)

// Overlay is the calibration overlay of a fit as YAML text: `source`, what
// it was fitted from, and `set`, each fitted parameter's chip spec path
// with its value and unit (six significant digits), the form
// `simulate --set` and `--calibration` read. Comments carry each value's 1σ
// uncertainty and starting value, the time constants before and after,
// and the fit error per sensor. The text is deterministic: the same fit
// gives the same bytes.
func Overlay(r *Result, source string) []byte {
	var b strings.Builder
	b.WriteString("# Calibration overlay: the thermal RC network fitted by `edgetwin calibrate thermal`.\n")
	fmt.Fprintf(&b, "# Fit error over %d rows: RMS %s °C, worst %s °C.\n", r.Rows, num(r.RMSC), num(r.WorstC))
	for _, s := range r.Sensors {
		fmt.Fprintf(&b, "#   sensor %s: RMS %s °C, worst %s °C at %s s (line %d)\n", s.Node, num(s.RMSC), num(s.WorstC), num(s.WorstAtS), s.WorstLine)
	}
	b.WriteString("# Time constants (s), fitted ± 1σ (before the fit):")
	for _, tc := range r.TimeConstants {
		fmt.Fprintf(&b, " %s%s (%s);", num(tc.Value), pm(tc.StdErr), num(tc.Start))
	}
	b.WriteString("\n")
	b.WriteString("# Uncertainties are 1σ: sqrt(diag(σ²(JᵀJ)⁻¹)) of the residuals' Jacobian at the optimum.\n")
	for _, w := range r.Warnings {
		b.WriteString("# Warning: " + w + "\n")
	}
	b.WriteString("source: " + strconv.Quote(source) + "\n")
	b.WriteString("set:\n")
	for _, p := range r.Params {
		kind := units.KindThermalResistance
		if p.Unit == "J/K" {
			kind = units.KindHeatCapacity
		}
		fmt.Fprintf(&b, "  %s: %s  # %s; was %s\n", p.Path, units.Format(round6(p.Value), kind), pmUnit(p.StdErr, p.Value, p.Unit), units.Format(p.Start, kind))
	}
	return []byte(b.String())
}

// round6 rounds to six significant digits, through decimal text.
func round6(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return r
}

// num prints a figure of a comment with four significant digits.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

func pm(sd *float64) string {
	if sd == nil {
		return " ± ?"
	}
	return " ± " + strconv.FormatFloat(*sd, 'g', 2, 64)
}

func pmUnit(sd *float64, v float64, unit string) string {
	if sd == nil {
		return "± ? (not determined by the series)"
	}
	return fmt.Sprintf("± %s %s (%s%%)", strconv.FormatFloat(*sd, 'g', 2, 64), unit, strconv.FormatFloat(100**sd/math.Abs(v), 'g', 2, 64))
}
