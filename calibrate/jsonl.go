package calibrate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"github.com/edgetwin/edgetwin/internal/inputfile"
	"github.com/edgetwin/edgetwin/workloads"
)

// Writer appends records to a JSON Lines file, one object a line. Each
// Write is a single write of the whole line followed by a flush (and an
// fsync when the destination is a file), so a run that is killed loses
// nothing already written: at worst the line being written is cut short,
// which [Read] reports as a warning. A Writer is safe for concurrent use.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	file    *os.File         // non-nil when Append or CreateLive opened it; Close closes it
	live    bool             // file is a new file CreateLive made at its target
	pending *atomicfile.File // non-nil when Create made it; Close commits it
	size    int64            // bytes of whole records written
	closed  bool
}

// NewWriter returns a Writer on w. After each record it calls w's Flush
// method if it has one (a *bufio.Writer) and its Sync method if it has one
// (an *os.File). Close does not close w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Create returns a Writer of a new records file at path. The records go
// to a temporary file beside path, each synced as it is written; Close
// puts the file in place (replacing an earlier one), [Writer.Discard]
// drops it, so path is never truncated nor left half-written. A record
// whose write fails (a full disk) is cut off again, so the file holds
// whole records only.
func Create(path string) (*Writer, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	return &Writer{w: f, pending: f}, nil
}

// CreateLive is [Create] for records measured over minutes, which must
// survive even a SIGKILL: when there is no file at path it creates one
// there and writes each record into it as it comes (a killed run keeps
// what arrived, as [Append] does); when there is one, it is left alone
// until Close, as with Create (a killed run then loses the new records,
// never the earlier file).
func CreateLive(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return Create(path)
	}
	if err != nil {
		return nil, err
	}
	return &Writer{w: f, file: f, live: true}, nil
}

// Append opens the file at path for appending, creating it if needed, so an
// interrupted run can be continued. If the file ends in a line that a
// killed writer cut short, that line is removed first and returned as a
// warning; the complete lines before it are kept.
func Append(path string) (*Writer, []Warning, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	warns, err := dropPartialLine(f, path)
	if err == nil {
		_, err = f.Seek(0, io.SeekEnd)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return &Writer{w: f, file: f}, warns, nil
}

// dropPartialLine truncates f after its last newline when the bytes after
// it are not a whole line.
func dropPartialLine(f *os.File, name string) ([]Warning, error) {
	data, err := io.ReadAll(f)
	if err != nil || len(data) == 0 || data[len(data)-1] == '\n' {
		return nil, err
	}
	keep := bytes.LastIndexByte(data, '\n') + 1
	line := 1 + bytes.Count(data[:keep], []byte{'\n'})
	if err := f.Truncate(int64(keep)); err != nil {
		return nil, err
	}
	w := Warning{File: name, Line: line, Msg: fmt.Sprintf("removed a last line cut short (%d bytes, no newline) before appending", len(data)-keep)}
	return []Warning{w}, f.Sync()
}

// Write validates r and appends it as one line, then flushes. An invalid
// record is not written; the error is a *spec.Error.
func (w *Writer) Write(r Record) error {
	if err := r.Validate(); err != nil {
		return err
	}
	line, err := marshalLine(r)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("calibrate: write to a closed Writer")
	}
	if _, err := w.w.Write(line); err != nil {
		if terr := w.cutBack(); terr != nil {
			return fmt.Errorf("%v; the record cut short could not be removed: %v", err, terr)
		}
		return err
	}
	w.size += int64(len(line))
	if f, ok := w.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return err
		}
	}
	if s, ok := w.w.(interface{ Sync() error }); ok {
		if err := s.Sync(); err != nil && !isSyncUnsupported(err) {
			return err
		}
	}
	return nil
}

// cutBack drops the part of a record a failed write left in a file the
// Writer made, so the file holds whole records only.
func (w *Writer) cutBack() error {
	switch {
	case w.pending != nil:
		return w.pending.Truncate(w.size)
	case w.live:
		if err := w.file.Truncate(w.size); err != nil {
			return err
		}
		_, err := w.file.Seek(w.size, io.SeekStart)
		return err
	}
	return nil
}

// isSyncUnsupported reports whether err is fsync refusing a destination
// that cannot be synced (a pipe, a terminal): the data is written anyway.
func isSyncUnsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.ENOTTY) ||
		errors.Is(err, errors.ErrUnsupported)
}

// marshalLine is a record's JSON and a newline: fields in declaration
// order, map keys sorted, no HTML escaping.
func marshalLine(r Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Name is the file the records are going to now: for a Writer from
// [Create], the temporary file beside the target until Close.
func (w *Writer) Name() string {
	switch {
	case w.pending != nil:
		return w.pending.Name()
	case w.file != nil:
		return w.file.Name()
	}
	return ""
}

// Close ends the writing: a file made by [Create] takes its place (on
// failure the earlier file stays), a file opened by [Append] is closed;
// for a [NewWriter] it only stops further writes.
func (w *Writer) Close() error { return w.end(func(f *atomicfile.File) error { return f.Commit() }) }

// CloseAs is Close for a file made by [Create], put at path instead of
// where Create was told (a run that did not finish keeps its records
// without replacing an earlier file). For other Writers it is Close.
func (w *Writer) CloseAs(path string) error {
	return w.finish(func(f *atomicfile.File) error { return f.CommitAs(path) },
		func(name string) error { return os.Rename(name, path) })
}

// Discard ends the writing of a file made by [Create] without putting it
// in place: what was at its path stays; a file [CreateLive] made is
// removed. For other Writers it is Close.
func (w *Writer) Discard() error {
	return w.finish(func(f *atomicfile.File) error { f.Abort(); return nil }, os.Remove)
}

func (w *Writer) end(commit func(*atomicfile.File) error) error {
	return w.finish(commit, nil)
}

// finish ends the writing: a pending file is committed (or dropped) by
// commit, a live one handed to live after it is closed.
func (w *Writer) finish(commit func(*atomicfile.File) error, live func(name string) error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	switch {
	case w.pending != nil:
		return commit(w.pending)
	case w.file != nil:
		err := w.file.Close()
		if err == nil && w.live && live != nil {
			err = live(w.file.Name())
		}
		return err
	}
	return nil
}

// Warning is a problem in a records file that lost nothing: a last line a
// killed writer cut short. It prints as "file:line: message".
type Warning struct {
	File string
	Line int
	Msg  string
}

// String prints "file:line: message".
func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg) }

// ReadFile reads a records file; see [Read]. A relative chip or model
// file a record names is found beside the records file when it is there
// (as [PathFrom] writes them), else from the working directory, so
// records travel with the files they name.
func ReadFile(path string) ([]Record, []Warning, error) {
	f, err := inputfile.Open(path, inputfile.RecordsCap)
	if err != nil {
		return nil, nil, spec.FileError(path, "records", err)
	}
	defer f.Close()
	recs, warns, err := Read(f, path)
	dir := filepath.Dir(path)
	digests := map[string]string{} // chip file → its digest now
	for i := range recs {
		recs[i].SoC = beside(dir, recs[i].SoC)
		recs[i].Model = beside(dir, recs[i].Model)
		if err == nil {
			err = recs[i].checkChip(digests)
		}
	}
	return recs, warns, err
}

// checkChip refuses a record whose chip file has changed since it was
// measured: its soc_digest no longer matches the file it names, so the
// figures it holds belong to another chip. A catalog id, or a file the
// record names but that is not there, is not checked here (loading it
// says what is wrong).
func (r Record) checkChip(digests map[string]string) error {
	if r.SoCDigest == "" {
		return nil
	}
	now, ok := digests[r.SoC]
	if !ok {
		if st, err := os.Stat(r.SoC); err != nil || !st.Mode().IsRegular() {
			return nil
		}
		d, err := DigestFile(r.SoC)
		if err != nil {
			return r.locate(err)
		}
		now, digests[r.SoC] = d, d
	}
	if now == r.SoCDigest {
		return nil
	}
	return &spec.Error{File: r.file, Line: r.line, Path: "soc_digest",
		Msg: fmt.Sprintf("%s has changed since this record was measured (recorded %s, the file is now %s): its figures belong to the chip as it was; import the measurement again against the file as it is, or drop soc_digest to take the file as the record's chip", r.SoC, short(r.SoCDigest), short(now))}
}

// short is a digest cut to its first 12 hex digits, for messages.
func short(d string) string {
	if len(d) > len(digestPrefix)+12 {
		return d[:len(digestPrefix)+12]
	}
	return d
}

// beside is ref joined to dir when ref is a relative path to a file that
// exists there; else ref (a catalog id, an absolute path, or a path from
// the working directory).
func beside(dir, ref string) string {
	if ref == "" || filepath.IsAbs(ref) || dir == "." {
		return ref
	}
	p := filepath.Join(dir, ref)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p
	}
	return ref
}

// PathFrom is how a records file at out names the chip or model file at
// ref (which need not exist yet: a chip file the probe is about to emit):
// relative to the records file's directory, which [ReadFile] looks in
// first. Catalog ids, absolute paths and paths that cannot be made
// relative are kept as they are.
func PathFrom(out, ref string) string {
	if ref == "" || filepath.IsAbs(ref) || catalogID(ref) {
		return ref
	}
	absOut, err1 := filepath.Abs(filepath.Dir(out))
	absRef, err2 := filepath.Abs(ref)
	if err1 != nil || err2 != nil {
		return ref
	}
	rel, err := filepath.Rel(absOut, absRef)
	if err != nil {
		return ref
	}
	return rel
}

// catalogID reports whether ref names a catalog chip or model.
func catalogID(ref string) bool {
	_, chip := hw.ChipSource(ref)
	_, model := workloads.ModelSource(ref)
	return chip || model
}

// Read reads records, one JSON object a line, strictly: unknown keys, wrong
// types, trailing data and invalid records ([Record.Validate]) are errors
// naming name:line and the field, on one line (a *spec.Error). Blank lines
// are ignored. A last line with no newline that is the beginning of a JSON
// object — what a killed writer leaves — is not an error: it is returned as
// a warning and the records before it are returned.
func Read(r io.Reader, name string) ([]Record, []Warning, error) {
	br := bufio.NewReader(r)
	var recs []Record
	var warns []Warning
	for line := 1; ; line++ {
		text, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, nil, &spec.Error{File: name, Line: line, Msg: spec.OneLine(err.Error())}
		}
		complete := err == nil
		if len(bytes.TrimSpace(text)) > 0 {
			rec, assumed, perr := parseRecordLine(name, line, text)
			if perr != nil {
				if !complete && perr.truncated {
					w := Warning{File: name, Line: line, Msg: fmt.Sprintf("last line cut short (%d bytes, no newline): a writer was interrupted; ignored", len(text))}
					return recs, append(warns, w), nil
				}
				return nil, nil, perr.err
			}
			if assumed != "" {
				warns = append(warns, Warning{File: name, Line: line, Msg: assumed})
			}
			rec.file, rec.line = name, line
			recs = append(recs, rec)
		}
		if !complete {
			return recs, warns, nil
		}
	}
}

// ParseLine reads one record line as [Read] does, strictly: unknown keys,
// wrong types, trailing data and invalid records are errors naming
// name:line and the field (a *spec.Error). It serves readers of a stream,
// such as the records a probe prints as it measures them, which always
// give their shape: a default shape it assumes is not reported.
func ParseLine(name string, line int, text []byte) (Record, error) {
	rec, _, le := parseRecordLine(name, line, text)
	if le != nil {
		return Record{}, le.err
	}
	return rec, nil
}

type lineError struct {
	err       error
	truncated bool // the line is a proper prefix of a JSON value
}

// parseRecordLine decodes and validates one line. A prefill or decode
// record without its shape's prompt or gen takes llama-bench's default
// ([DefaultPrompt], [DefaultGen]); assumed then says so.
func parseRecordLine(name string, line int, text []byte) (rec Record, assumed string, _ *lineError) {
	fail := func(path, format string, args ...any) *lineError {
		return &lineError{err: &spec.Error{File: name, Line: line, Path: path, Msg: spec.OneLine(fmt.Sprintf(format, args...))}}
	}
	text = bytes.TrimRight(text, "\r\n")
	var raw any
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		le := fail("", "not a JSON object: %s", jsonErrText(text, err))
		le.truncated = errors.Is(err, io.ErrUnexpectedEOF)
		return Record{}, "", le
	}
	if _, err := dec.Token(); err != io.EOF {
		return Record{}, "", fail("", "more than one JSON value on the line; a record is one object a line")
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return Record{}, "", fail("", "a record is a JSON object, not %s", jsonKind(raw))
	}
	// A key given twice would be read as its last value, silently.
	if err := spec.DuplicateJSONKey(name, line, text); err != nil {
		return Record{}, "", &lineError{err: err}
	}
	if path, allowed := unknownKey(obj, reflect.TypeFor[Record](), ""); path != "" {
		return Record{}, "", fail(path, "unknown field; allowed: %s", allowed)
	}
	strict := json.NewDecoder(bytes.NewReader(text))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&rec); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Record{}, "", fail(te.Field, "%s is not %s", te.Value, goTypeName(te.Type))
		}
		return Record{}, "", fail("", "%s", jsonErrText(text, err))
	}
	if len(rec.Conditions.Clocks) == 0 {
		rec.Conditions.Clocks = nil // "clocks": {} is no clocks
	}
	if len(rec.Conditions.Temps) == 0 {
		rec.Conditions.Temps = nil
	}
	assumed = rec.defaultShape(obj)
	if err := rec.Validate(); err != nil {
		var fe *spec.Error
		if errors.As(err, &fe) {
			return Record{}, "", fail(fe.Path, "%s", fe.Msg)
		}
		return Record{}, "", fail("", "%s", err)
	}
	return rec, assumed, nil
}

// unknownKey finds the first key of obj (sorted) that struct type t has no
// field for, descending into nested structs. It returns the key's path and
// the allowed keys at that level.
func unknownKey(obj map[string]any, t reflect.Type, prefix string) (string, string) {
	fields := map[string]reflect.Type{}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		fields[name] = f.Type
		names = append(names, name)
	}
	for _, k := range sortedKeys(obj) {
		ft, ok := fields[k]
		if !ok {
			return prefix + k, strings.Join(names, ", ")
		}
		if ft.Kind() == reflect.Struct {
			if sub, ok := obj[k].(map[string]any); ok {
				if p, allowed := unknownKey(sub, ft, prefix+k+"."); p != "" {
					return p, allowed
				}
			}
		}
	}
	return "", ""
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return "a JSON value"
}

func goTypeName(t reflect.Type) string {
	if t == nil {
		return "a value of the right type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Map, reflect.Struct:
		return "a JSON object"
	}
	return "a " + t.String()
}

func jsonErrText(data []byte, err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of line"
	}
	msg, _ := spec.JSONProblem(data, err)
	return msg
}
