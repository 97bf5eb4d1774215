package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// Partial is what a JSON Lines file holds of a sweep that was cut short
// (killed, out of time): the points it wrote, and how much of the file
// to keep so that the run can go on appending.
type Partial struct {
	// Points are the whole points it holds: the first len(Points) of the
	// run's indices, since a run writes its points in order.
	Points []Point
	// Keep is the length in bytes of the file's whole lines; a last line
	// without its newline (the kill came while it was written) is not
	// kept, and its point runs again.
	Keep int64
	// Header reports whether the file has its header line; without it
	// (empty, or cut inside the header) the run starts the file afresh.
	Header bool
}

// ReadPartial reads a JSON Lines file that a run of sweep h, shard sh,
// over indices (sh.Indices of the sweep's length) was writing. It fails
// when the file is another sweep's (its header differs from h, or names
// another shard), or when a whole line is not the point the run would
// have written there: only the last line may be cut short.
func ReadPartial(name string, h Header, sh Shard, indices []int) (*Partial, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, spec.FieldErrorf("resume", "%s: %v", name, err)
	}
	p := &Partial{}
	line := 0
	for len(data[p.Keep:]) > 0 {
		rest := data[p.Keep:]
		end := bytes.IndexByte(rest, '\n')
		if end < 0 {
			break // cut short: dropped, rewritten by the run
		}
		line++
		at := fmt.Sprintf("%s:%d", name, line)
		text := rest[:end]
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(text, &obj); err != nil {
			return nil, spec.FieldErrorf("resume", "%s: not a JSON object, and not the last line (which a kill may cut short): the file is damaged: %v", at, err)
		}
		if !p.Header {
			if err := resumeHeader(at, obj, h, sh); err != nil {
				return nil, err
			}
			p.Header = true
		} else {
			pt, err := decodePoint(&h, obj)
			if err != nil {
				return nil, spec.FieldErrorf("resume", "%s: %v", at, err)
			}
			k := len(p.Points)
			if k >= len(indices) || pt.Index != indices[k] {
				want := "no more points"
				if k < len(indices) {
					want = fmt.Sprintf("point %d", indices[k])
				}
				return nil, spec.FieldErrorf("resume", "%s: point %d where the run writes %s: not a file this sweep wrote (its points come in order)", at, pt.Index, want)
			}
			p.Points = append(p.Points, pt)
		}
		p.Keep += int64(end + 1)
	}
	return p, nil
}

// resumeHeader checks the header line of a file to resume against the
// sweep that resumes it.
func resumeHeader(at string, obj map[string]json.RawMessage, h Header, sh Shard) error {
	raw, ok := obj["sweep"]
	if !ok {
		return spec.FieldErrorf("resume", "%s: no sweep header: not a file written by a sweep as JSON Lines", at)
	}
	var j headerJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return spec.FieldErrorf("resume", "%s: the sweep header: %v", at, err)
	}
	got, err := j.header()
	if err != nil {
		return spec.FieldErrorf("resume", "%s: %v", at, err)
	}
	if diff := differ(got, h); diff != "" {
		return spec.FieldErrorf("resume", "%s was written by another sweep: %s; resume it with the settings that began it", at, diff)
	}
	var shard string
	if json.Unmarshal(obj["shard"], &shard) != nil || shard != sh.String() {
		return spec.FieldErrorf("resume", "%s holds shard %s, not %s", at, shard, sh)
	}
	return nil
}

// AppendEncoder writes the points of sweep h after those a file already
// holds, without a header: how a resumed run goes on.
func AppendEncoder(w io.Writer, h Header) *Encoder { return &Encoder{w: w, h: h} }
