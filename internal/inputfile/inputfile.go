// Package inputfile reads the files a user gives edgetwin (chips, models,
// scenarios, policies, profiles, reviews, overlays, records, measured
// series) through one door: each must be a regular file, and no larger
// than a cap that says what such a file could plausibly be.
//
// A named pipe, a device such as /dev/zero or a folder is refused before
// a byte is read, so a run never hangs on a pipe nor fills memory from an
// endless device:
//
//	data, err := inputfile.Read("phone.yaml", inputfile.SpecCap)
//	// err: phone.yaml: a named pipe, not a regular file; give the file itself
//
// The file is opened without blocking (a pipe with no writer would block
// an ordinary open) and checked on the open handle, so what is read is
// what was checked. Reading costs the file's size in memory; [Open] gives
// a reader for streaming instead, held to the same cap.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Caps on input sizes, far above any real file of the kind and far below
// what would strain the machine.
const (
	SpecCap    = 4 << 20   // YAML and JSON specs: chips, models, scenarios, policies, reviews, overlays, profiles
	RecordsCap = 64 << 20  // records files and llama-bench output
	SeriesCap  = 256 << 20 // measured time series (a long simulate --series)
)

// Read reads the regular file at path, refusing a larger one than max
// bytes. Errors name the file and say what is wrong.
func Read(path string, max int64) ([]byte, error) {
	f, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// File is an open input file whose reads stop with an error past its cap.
type File struct {
	f    *os.File
	r    io.Reader
	path string
	max  int64
}

// Open opens the regular file at path for reading, refusing it when it
// is not a regular file or is larger than max bytes; a file that grows
// past max while it is read fails the read that crosses the cap.
func Open(path string, max int64) (*File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{path, "no such file"}
		}
		return nil, &Error{path, err.Error()}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &Error{path, err.Error()}
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &Error{path, ModeName(st.Mode()) + ", not a regular file; give the file itself"}
	}
	if st.Size() > max {
		f.Close()
		return nil, tooLarge(path, max)
	}
	return &File{f: f, r: io.LimitReader(f, max+1), path: path, max: max}, nil
}

// Read reads from the file; crossing the cap is an error.
func (f *File) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if lr := f.r.(*io.LimitedReader); lr.N == 0 && err == nil {
		return n, tooLarge(f.path, f.max)
	}
	return n, err
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Name is the path the file was opened as.
func (f *File) Name() string { return f.path }

// Error is an input file that cannot be read: which, and why. It is the
// reason only: hw/spec.FileError makes it the user's input error, named
// by the kind of file.
type Error struct {
	Path   string
	Reason string // "a named pipe, not a regular file; …", "no such file", …
}

func (e *Error) Error() string { return e.Path + ": " + e.Reason }

func tooLarge(path string, max int64) error {
	return &Error{path, "larger than " + size(max) + ", the most edgetwin reads from such a file"}
}

func size(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ModeName names a file mode that is not a regular file ("a directory",
// "a named pipe", …), for messages that refuse it.
func ModeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "of mode " + m.String()
}
