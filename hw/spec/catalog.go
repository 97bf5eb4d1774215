package spec

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/edgetwin/edgetwin/internal/inputfile"
	"github.com/edgetwin/edgetwin/internal/suggest"
)

// Catalog is a set of embedded spec files, one per id (chips, models,
// policies), that a reference may name by id or bypass with a file path.
type Catalog struct {
	Files fs.FS  // holds Dir/<id>.yaml
	Dir   string // the folder inside Files
	Kind  string // what an entry is, for messages: "chip", "model", "policy"
	Field string // the setting a reference is given to, for errors: "soc"
}

// IDs lists the catalog's ids, sorted.
func (c Catalog) IDs() []string {
	entries, _ := fs.ReadDir(c.Files, c.Dir)
	var ids []string
	for _, e := range entries {
		ids = append(ids, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(ids)
	return ids
}

// Source returns the file of id as written, and whether it exists.
func (c Catalog) Source(id string) ([]byte, bool) {
	data, err := fs.ReadFile(c.Files, path.Join(c.Dir, id+".yaml"))
	return data, err == nil
}

// Open resolves ref: a catalog id (isID true, file "<id>.yaml"), else a
// file path read from disk. A name that is neither is an error listing the
// ids; an unreadable file is an error naming it.
func (c Catalog) Open(ref string) (file string, data []byte, isID bool, err error) {
	if data, ok := c.Source(ref); ok {
		return ref + ".yaml", data, true, nil
	}
	if !strings.ContainsAny(ref, "/.") {
		return "", nil, false, UnknownID(c.Field, c.Kind, ref, c.IDs())
	}
	data, err = ReadFile(ref, c.Kind)
	if _, statErr := os.Stat(ref); errors.Is(statErr, fs.ErrNotExist) && !strings.ContainsRune(ref, '/') {
		// "llama3.2-1b" has a dot, so it was read as a file; say which
		// id it is near, if one is.
		if hint := nearID(ref, c.IDs()); hint != "" {
			return ref, nil, false, FieldErrorf(c.Field, "%q is no catalog %s and no file; %s", ref, c.Kind, strings.TrimSuffix(hint, " "))
		}
	}
	return ref, data, false, err
}

// ReadFile reads a spec file from disk (a regular file of at most
// inputfile.SpecCap bytes); failing, it says which file and why in one
// line ("chip.yaml: cannot read chip file: no such file").
func ReadFile(name, kind string) ([]byte, error) {
	return ReadFileMax(name, kind, inputfile.SpecCap)
}

// ReadFileMax is ReadFile for a file of at most max bytes: records,
// benchmark output, measured series.
func ReadFileMax(name, kind string, max int64) ([]byte, error) {
	data, err := inputfile.Read(name, max)
	if err != nil {
		return nil, FileError(name, kind, err)
	}
	return data, nil
}

// FileError is err, from reading the kind file name, as an *Error: one
// line saying which file and why.
func FileError(name, kind string, err error) error {
	msg := err.Error()
	var ie *inputfile.Error
	switch {
	case errors.As(err, &ie):
		msg = ie.Reason
	case errors.Is(err, fs.ErrNotExist):
		msg = "no such file"
	}
	return &Error{File: name, Msg: "cannot read " + kind + " file: " + msg}
}

// Relative resolves a reference to a catalog entry or a file as written
// in a file in folder dir: a catalog id (one of ids), an absolute path
// or a bare name stays as it is; any other path is taken relative to dir.
func Relative(dir, ref string, ids []string) string {
	if slices.Contains(ids, ref) || filepath.IsAbs(ref) || !strings.ContainsAny(ref, "/.") {
		return ref
	}
	return filepath.Join(dir, ref)
}

// UnknownID is the error for a catalog id that is not one, given to the
// setting field: the nearest ids as a hint, then all of them.
func UnknownID(field, kind, ref string, ids []string) *Error {
	return FieldErrorf(field, "%q: no catalog %s; %sknown: %s (or give a file)", ref, kind, nearID(ref, ids), strings.Join(ids, ", "))
}

// nearID is "did you mean ID? " for the ids a typo away from ref, or "".
func nearID(ref string, ids []string) string {
	near := suggest.Closest(ref, ids, 2)
	if len(near) == 0 || suggest.Distance(ref, near[0]) > max(2, len(ref)/3) {
		return ""
	}
	return "did you mean " + strings.Join(near, " or ") + "? "
}
