package target

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/calibrate/probe"
)

// Session is one probe run as its records arrive: it writes each record
// at once, keeps the host the probe described and tells which steps of the
// plan are done and which are missing.
type Session struct {
	name string // the target, for the position of a bad line
	w    *calibrate.Writer
	plan []probe.Step
	host *probe.Host
	recs []calibrate.Record
	done map[string]bool // plan steps with a record
	line int
}

// NewSession returns a session that writes to w the records of a probe
// run on the target name, which takes the steps of plan.
func NewSession(name string, w *calibrate.Writer, plan []probe.Step) *Session {
	return &Session{name: name, w: w, plan: plan, done: map[string]bool{}}
}

// hostPrefix starts the probe binary's first line.
const hostPrefix = "#host "

// Line takes one line of the probe binary's output: "#host " and the
// JSON of a probe.Host first, then one record a line, each parsed strictly
// (calibrate.ParseLine) and written at once. Blank lines are ignored;
// anything else is an error that names the target and the line.
func (s *Session) Line(text []byte) error {
	s.line++
	text = bytes.TrimSpace(text)
	switch {
	case len(text) == 0:
		return nil
	case bytes.HasPrefix(text, []byte(hostPrefix)):
		if s.host != nil || len(s.recs) > 0 {
			return fmt.Errorf("%s:%d: a #host line after the first line", s.name, s.line)
		}
		var h probe.Host
		dec := json.NewDecoder(bytes.NewReader(text[len(hostPrefix):]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&h); err != nil {
			return fmt.Errorf("%s:%d: #host line: %s", s.name, s.line, strings.TrimPrefix(err.Error(), "json: "))
		}
		s.host = &h
		return nil
	case text[0] != '{':
		return fmt.Errorf("%s:%d: %q is neither a record nor the #host line; is the binary edgetwin-probe?", s.name, s.line, clip(text))
	}
	rec, err := calibrate.ParseLine(s.name, s.line, text)
	if err != nil {
		return err
	}
	return s.Record(rec)
}

// Record writes one record and marks its step done.
func (s *Session) Record(rec calibrate.Record) error {
	if err := s.w.Write(rec); err != nil {
		return err
	}
	s.recs = append(s.recs, rec)
	if step, ok := strings.CutPrefix(rec.Source, "probe:"); ok {
		s.done[step] = true
	}
	return nil
}

// SetHost sets the host a probe run in-process described.
func (s *Session) SetHost(h probe.Host) { s.host = &h }

// Host is the host the probe described, nil if it has not.
func (s *Session) Host() *probe.Host { return s.host }

// Records are the records written so far.
func (s *Session) Records() []calibrate.Record { return s.recs }

// Missing lists the steps of the plan with no record yet, in plan order.
func (s *Session) Missing() []string {
	var missing []string
	for _, st := range s.plan {
		if !s.done[st.Name] {
			missing = append(missing, st.Name)
		}
	}
	return missing
}

// Summary is one line: the records written, the plan's steps done and
// missing (by name) and the wall time.
func (s *Session) Summary(elapsed time.Duration) string {
	missing := s.Missing()
	msg := fmt.Sprintf("%d records; %d of %d steps done", len(s.recs), len(s.plan)-len(missing), len(s.plan))
	if len(missing) > 0 {
		msg += "; missing: " + strings.Join(missing, ", ")
	}
	return msg + fmt.Sprintf("; %.1fs", elapsed.Seconds())
}

// clip shortens a line for a message.
func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}
