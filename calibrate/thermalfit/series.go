package thermalfit

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
)

// Series is a thermal time series as [ReadSeries] reads it from CSV: the
// time of every row, the power drawn over the interval that ends at the row,
// and the temperatures (and clocks, and ambient) at the row's time.
//
// Power is the mean over the interval since the previous row, what the
// difference of two energy-counter readings gives and what `simulate
// --series` writes; the first row's power covers the time before the series
// and is not used. The first row's temperatures are where the fit starts.
type Series struct {
	File    string
	Header  int       // the line of the header
	Times   []float64 // s, strictly increasing
	Lines   []int     // the file line of each row
	Power   []Channel // W, per unit or node (power_<name>_w)
	Temps   []Channel // °C, per sensor: a node of the network (temp_<name>_c)
	Clocks  []Channel // Hz, per unit (clock_<unit>_hz, _mhz or _ghz)
	Ambient []float64 // °C per row (ambient_c), or nil when absent
	TotalW  []float64 // the total power per row (power_w), or nil; not fitted
}

// Channel is one column of a series: the unit, node or sensor it belongs to,
// the header it was read from, and its value on every row.
type Channel struct {
	Name   string
	Column string
	Values []float64
}

// Allowed lists the column forms a series may have.
const Allowed = "time_s (or end_s), power_<unit|node>_w, temp_<node>_c, and optionally clock_<unit>_hz (or _mhz, _ghz), ambient_c, power_w (the total), phase, latency_ms"

var (
	nameRE     = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	clockScale = map[string]float64{"_hz": 1, "_mhz": 1e6, "_ghz": 1e9}
)

// column kinds
const (
	colTime = iota
	colPower
	colTemp
	colClock
	colAmbient
	colTotal
	colPhase   // text, not read
	colLatency // numeric, not read
)

// lowest is the smallest value a column of each kind may hold, and the
// message for one below it.
var lowest = map[int]struct {
	v   float64
	msg string
}{
	colPower:   {0, "power %g W is negative; a power is zero or more watts"},
	colTotal:   {0, "total power %g W is negative; a power is zero or more watts"},
	colClock:   {0, "clock %g Hz is negative; a clock is zero or more"},
	colTemp:    {-273.15, "%g °C is below absolute zero"},
	colAmbient: {-273.15, "%g °C is below absolute zero"},
}

// plausible is the quantity each kind of column measures, held to the
// bounds every figure of a chip is (hw/units.Bounds, docs/bounds.md):
// a 2500 °C skin or a row at 1e300 s is a unit or typing slip, not a
// measurement. Zero (an idle unit) is always allowed. Clocks are left to
// Bind, which knows the units they belong to.
var plausible = map[int]units.Kind{
	colTime:    units.KindDuration,
	colPower:   units.KindPower,
	colTotal:   units.KindPower,
	colTemp:    units.KindTemperature,
	colAmbient: units.KindTemperature,
}

type column struct {
	kind  int
	name  string  // the unit, node or sensor
	scale float64 // to SI
}

// parseHeader classifies one header cell.
func parseHeader(h string) (column, bool) {
	switch h {
	case "time_s", "end_s":
		return column{kind: colTime, scale: 1}, true
	case "ambient_c":
		return column{kind: colAmbient, scale: 1}, true
	case "power_w":
		return column{kind: colTotal, scale: 1}, true
	case "phase":
		return column{kind: colPhase}, true
	case "latency_ms":
		return column{kind: colLatency, scale: 1e-3}, true
	}
	if name, ok := cut(h, "power_", "_w"); ok {
		return column{kind: colPower, name: name, scale: 1}, true
	}
	if name, ok := cut(h, "temp_", "_c"); ok {
		return column{kind: colTemp, name: name, scale: 1}, true
	}
	if rest, ok := strings.CutPrefix(h, "clock_"); ok {
		for suffix, scale := range clockScale {
			if name, ok := strings.CutSuffix(rest, suffix); ok && nameRE.MatchString(name) {
				return column{kind: colClock, name: name, scale: scale}, true
			}
		}
	}
	return column{}, false
}

// cut returns the name between prefix and suffix when h is prefix, a valid
// name, suffix.
func cut(h, prefix, suffix string) (string, bool) {
	rest, ok := strings.CutPrefix(h, prefix)
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, suffix)
	return name, ok && nameRE.MatchString(name)
}

// ReadSeries reads a thermal time series from CSV text. The first line that
// is not a comment ('#') is the header; every other line is a row of
// numbers, one per column. It is strict: an unknown, duplicated or missing
// column, a cell that is not a finite number (negative for a power or
// clock), a row of the wrong length, or a time that does not increase is an
// *spec.Error naming the file, line and column (as its field). Names are checked against a chip
// only by [Series.Bind].
func ReadSeries(file string, data []byte) (*Series, error) {
	fail := func(line int, col, format string, args ...any) error {
		return &spec.Error{File: file, Line: line, Path: col, Msg: fmt.Sprintf(format, args...)}
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.Comment = '#'
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, fail(0, "", "empty file: a series needs a header line (%s) and rows", Allowed)
	}
	if err != nil {
		return nil, csvError(file, err)
	}
	headLine, _ := r.FieldPos(0)
	s := &Series{File: file, Header: headLine}
	cols := make([]column, len(header))
	seen := map[string]bool{}
	var nTime, nPower, nTemp int
	for i, h := range header {
		h = strings.TrimSpace(h)
		header[i] = h
		c, ok := parseHeader(h)
		if !ok {
			return nil, fail(headLine, strconv.Quote(h), "unknown column; allowed: %s", Allowed)
		}
		key := h
		if c.kind == colTime {
			key = "time_s"
		} else if c.kind == colClock {
			key = "clock_" + c.name
		}
		if seen[key] {
			return nil, fail(headLine, strconv.Quote(h), "column given twice")
		}
		seen[key] = true
		cols[i] = c
		switch c.kind {
		case colTime:
			nTime++
		case colPower:
			nPower++
			s.Power = append(s.Power, Channel{Name: c.name, Column: h})
		case colTemp:
			nTemp++
			s.Temps = append(s.Temps, Channel{Name: c.name, Column: h})
		case colClock:
			s.Clocks = append(s.Clocks, Channel{Name: c.name, Column: h})
		}
	}
	switch {
	case nTime == 0:
		return nil, fail(headLine, "", "no time column: give time_s (seconds); the columns allowed are %s", Allowed)
	case nPower == 0:
		return nil, fail(headLine, "", "no power_<unit|node>_w column: the fit needs the power of each heat source (power_w, the total, does not say where the heat enters); allowed: %s", Allowed)
	case nTemp == 0:
		return nil, fail(headLine, "", "no temp_<node>_c column: the fit needs at least one temperature sensor; allowed: %s", Allowed)
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(file, err)
		}
		line, _ := r.FieldPos(0)
		var pi, ti, ci int
		for i, cell := range rec {
			c := cols[i]
			if c.kind == colPhase {
				continue
			}
			cell = strings.TrimSpace(cell)
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fail(line, header[i], "%q is not a finite number", cell)
			}
			v *= c.scale
			if low, ok := lowest[c.kind]; ok && v < low.v {
				return nil, fail(line, header[i], low.msg, v)
			}
			if k, ok := plausible[c.kind]; ok && v != 0 {
				if b, _ := units.BoundFor(k, ""); b.Check(units.Format(v, k), v) != "" {
					return nil, fail(line, header[i], "%s", b.Check(units.Format(v, k), v))
				}
			}
			switch c.kind {
			case colTime:
				if n := len(s.Times); n > 0 && !(v > s.Times[n-1]) {
					return nil, fail(line, header[i], "time %g s does not increase (the row before, line %d, is at %g s); rows must be in strictly increasing time", v, s.Lines[n-1], s.Times[n-1])
				}
				s.Times = append(s.Times, v)
			case colPower:
				s.Power[pi].Values = append(s.Power[pi].Values, v)
				pi++
			case colTemp:
				s.Temps[ti].Values = append(s.Temps[ti].Values, v)
				ti++
			case colClock:
				s.Clocks[ci].Values = append(s.Clocks[ci].Values, v)
				ci++
			case colAmbient:
				s.Ambient = append(s.Ambient, v)
			case colTotal:
				s.TotalW = append(s.TotalW, v)
			}
		}
		s.Lines = append(s.Lines, line)
	}
	if len(s.Times) < 2 {
		return nil, fail(0, "", "%d data rows: a series needs at least two (the first gives the starting temperatures, each later one an interval)", len(s.Times))
	}
	return s, nil
}

// csvError turns an encoding/csv error into a *spec.Error on one line.
func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			msg = "the row does not have one cell per header column"
		}
		return &spec.Error{File: file, Line: pe.Line, Msg: msg}
	}
	return &spec.Error{File: file, Msg: err.Error()}
}
