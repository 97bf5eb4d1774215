package reports

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"github.com/edgetwin/edgetwin/sim"
)

// WriteTrace writes a run's timeline as Chrome/Perfetto trace-event JSON
// (open it at ui.perfetto.dev or chrome://tracing), atomically: a failure
// never leaves half a file.
func WriteTrace(path string, t *sim.Trace) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data)
}

// TraceFile is a run's timeline written to a file as the run goes, so a
// long run's trace costs disk, not memory: give Trace to the run as its
// Config.Trace, then Commit. The settled events go to a scratch file
// beside path (an [atomicfile.Scratch]: it leaves nothing behind, even
// after a kill); Commit writes path atomically from it, with the same
// bytes as [WriteTrace] of a trace held in memory. Until Commit, path is
// untouched.
type TraceFile struct {
	// Trace is the trace to record (a [sim.StreamTrace]).
	Trace *sim.Trace
	path  string
	spill *atomicfile.Scratch
	buf   *bufio.Writer
	n     int // events in spill
}

// CreateTrace starts a trace file that will replace path.
func CreateTrace(path string) (*TraceFile, error) {
	spill, err := atomicfile.CreateScratch(path)
	if err != nil {
		return nil, err
	}
	f := &TraceFile{path: path, spill: spill, buf: bufio.NewWriterSize(spill, 1<<20)}
	f.Trace = sim.StreamTrace(f.emit)
	return f, nil
}

// emit appends an event to the scratch file, each after a comma but the
// first, as json.Marshal joins an array's elements. After an error (a
// full disk) the run goes on to its result, and Commit returns the error.
func (f *TraceFile) emit(ev sim.TraceEvent) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if f.n > 0 {
		if err := f.buf.WriteByte(','); err != nil {
			return err
		}
	}
	f.n++
	_, err = f.buf.Write(data)
	return err
}

// Commit writes the trace to its path, once the run is over: the object
// json.Marshal gives for a [sim.Trace], its metadata events first and
// then those spilled.
func (f *TraceFile) Commit() error {
	if err := f.Trace.Err(); err != nil {
		return err
	}
	if err := f.buf.Flush(); err != nil {
		return err
	}
	if _, err := f.spill.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return atomicfile.Write(f.path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		meta, err := json.Marshal(f.Trace.Events)
		if err != nil {
			return err
		}
		unit, err := json.Marshal(f.Trace.Unit)
		if err != nil {
			return err
		}
		switch {
		case f.n == 0:
			bw.WriteString(`{"traceEvents":`)
			bw.Write(meta) // null when the run recorded nothing
		case len(f.Trace.Events) == 0:
			bw.WriteString(`{"traceEvents":[`)
		default:
			bw.WriteString(`{"traceEvents":`)
			bw.Write(meta[:len(meta)-1]) // the array left open
			bw.WriteByte(',')
		}
		if f.n > 0 {
			if _, err := io.Copy(bw, f.spill); err != nil {
				return err
			}
			bw.WriteByte(']')
		}
		bw.WriteString(`,"displayTimeUnit":`)
		bw.Write(unit)
		bw.WriteByte('}')
		return bw.Flush()
	})
}

// Close drops the scratch file; after Commit, or instead of it when the
// run fails.
func (f *TraceFile) Close() error { return f.spill.Close() }
