package spec

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Catalog is a set of embedded spec files, one per id (chips, models,
// policies), that a reference may name by id or bypass with a file path.
type Catalog struct {
	Files fs.FS  // holds Dir/<id>.yaml
	Dir   string // the folder inside Files
	Kind  string // what an entry is, for messages: "chip", "model", "policy"
	Flag  string // the flag a reference comes from, for messages: "--soc"
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
		return "", nil, false, &Error{File: c.Flag, Msg: fmt.Sprintf("no catalog %s %q; known: %s (or give a file)", c.Kind, ref, strings.Join(c.IDs(), ", "))}
	}
	data, err = ReadFile(ref, c.Kind)
	return ref, data, false, err
}

// ReadFile reads a spec file from disk; failing, it says which file and why
// in one line ("chip.yaml: cannot read chip file: no such file").
func ReadFile(name, kind string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		msg := err.Error()
		if os.IsNotExist(err) {
			msg = "no such file"
		}
		return nil, &Error{File: name, Msg: "cannot read " + kind + " file: " + msg}
	}
	return data, nil
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
