package reports

import (
	"encoding/csv"
	"strconv"

	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"github.com/edgetwin/edgetwin/sim"
)

// SeriesFile is a run's time series written as CSV as the run produces
// it, so a long run's series costs disk, not memory: give it to the run
// as its Config.Series (it is a [sim.SeriesSink]), then Commit. Rows go
// to a temporary file beside path (an [atomicfile.File]); Commit renames
// it over path, Abort drops it. Until Commit, path is untouched: a run
// that fails or is interrupted leaves whatever was there.
//
// The CSV has one row per prefill and decode step: when it ended (s), how
// long it took (ms), its average power (W), each unit's clock (GHz) and
// each thermal node's temperature (°C) after it, and the average power
// into each node over the step (W) — the columns `edgetwin calibrate
// thermal` reads back, so a simulated run can stand in for a measured one.
type SeriesFile struct {
	file *atomicfile.File
	csv  *csv.Writer
	row  []string // reused from one row to the next
	err  error    // the first write that failed
}

// CreateSeries starts a series file that will replace path.
func CreateSeries(path string) (*SeriesFile, error) {
	file, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	return &SeriesFile{file: file, csv: csv.NewWriter(file)}, nil // csv buffers its writes
}

// Begin writes the header line.
func (f *SeriesFile) Begin(units, nodes []string) {
	header := []string{"phase", "end_s", "latency_ms", "power_w"}
	for _, u := range units {
		header = append(header, "clock_"+u+"_ghz")
	}
	for _, n := range nodes {
		header = append(header, "temp_"+n+"_c")
	}
	for _, n := range nodes {
		header = append(header, "power_"+n+"_w")
	}
	f.write(header)
}

// Add writes a point's row. After a failed write (a full disk) it writes
// nothing more, and Commit returns the error.
func (f *SeriesFile) Add(p sim.SeriesPoint) {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	row := append(f.row[:0], p.Phase, num(p.EndS), num(p.Seconds*1e3), num(p.PowerW))
	for _, c := range p.ClocksHz {
		row = append(row, num(c/1e9))
	}
	for _, t := range p.TempsC {
		row = append(row, num(t))
	}
	for _, w := range p.NodePowerW {
		row = append(row, num(w))
	}
	f.row = row
	f.write(row)
}

func (f *SeriesFile) write(row []string) {
	if f.err == nil {
		f.err = f.csv.Write(row)
	}
}

// Commit puts the series in place of path, once the run is over; after a
// failed write it drops the file and returns that error, path untouched.
func (f *SeriesFile) Commit() error {
	if f.err == nil {
		f.csv.Flush()
		f.err = f.csv.Error()
	}
	if f.err != nil {
		f.file.Abort()
		return f.err
	}
	return f.file.Commit()
}

// Abort drops the file, path untouched. It does nothing after Commit, so
// it may be deferred.
func (f *SeriesFile) Abort() { f.file.Abort() }

// WriteSeries writes a time series held in memory as a [SeriesFile]
// would have as the run went: the same bytes, atomically.
func WriteSeries(path string, s *sim.Series) error {
	f, err := CreateSeries(path)
	if err != nil {
		return err
	}
	s.Replay(f)
	return f.Commit()
}
