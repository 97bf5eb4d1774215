package atomicfile

import (
	"errors"
	"fmt"
	"github.com/edgetwin/edgetwin/internal/inputfile"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteFile replaces the file at path with data (see [Write]).
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write replaces the file at path with what fill writes. When fill or any
// step after it fails, the temporary file is removed and path is left as
// it was.
func Write(path string, fill func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// File is a file being written beside its target. Nothing reaches the
// target until Commit; Abort, or a failed Commit, removes the file.
type File struct {
	f      *os.File
	target string
	mode   fs.FileMode
	done   bool
}

// Create starts a file that will replace path: a hidden temporary file
// in path's folder. It fails at once, leaving path alone, when path is a
// folder or not a regular file (a device is never replaced) or its folder
// cannot take a new file. Leftovers of killed writers of the same path are
// removed first.
func Create(path string) (*File, error) {
	mode := fs.FileMode(0o644)
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return nil, fmt.Errorf("%s is a directory; give a file name", path)
	case err == nil && !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s); edgetwin replaces only regular files", path, inputfile.ModeName(st.Mode()))
	case err == nil:
		mode = st.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // a link is followed: the file it names is replaced
	}
	removeLeftovers(path)
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+"*.tmp")
	if err != nil {
		return nil, err
	}
	return &File{f: f, target: path, mode: mode}, nil
}

// tempPrefix is how the temporary files of path begin: hidden, named
// after the target and the writing process.
func tempPrefix(path string) string {
	return "." + filepath.Base(path) + "." + strconv.Itoa(os.Getpid()) + "-"
}

// removeLeftovers removes temporary files of path left by writers that
// are no longer running (killed before they could clean up).
func removeLeftovers(path string) {
	dir, base := filepath.Dir(path), "."+filepath.Base(path)+"."
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), base)
		if !ok || !strings.HasSuffix(rest, ".tmp") || !e.Type().IsRegular() {
			continue
		}
		pid, _, ok := strings.Cut(rest, "-")
		if n, err := strconv.Atoi(pid); ok && err == nil && !alive(n) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// Name is the temporary file's path.
func (f *File) Name() string { return f.f.Name() }

// Write writes to the temporary file. An error says that the target is
// left as it was.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	return n, f.kept(err)
}

// Sync flushes what was written to disk.
func (f *File) Sync() error { return f.kept(f.f.Sync()) }

// kept is err, from the temporary file, as the user reads it: what went
// wrong (a full disk) and that the target is left as it was, without the
// hidden name of a file they never see.
func (f *File) kept(err error) error { return keptAs(f.f.Name(), f.target, err) }

// keptAs is err told of target instead of tmp (its temporary file, or a
// file in its temporary folder), which is dropped: the error itself and
// that target is left as it was. Errors about other files are returned
// as they are.
func keptAs(tmp, target string, err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != tmp && !strings.HasPrefix(pe.Path, tmp+string(filepath.Separator)) {
		return err
	}
	return fmt.Errorf("%w; %s is left as it was", pe.Err, target)
}

// Truncate cuts the temporary file to size bytes and goes on writing
// there: a writer that failed midway drops its partial last piece.
func (f *File) Truncate(size int64) error {
	if err := f.f.Truncate(size); err != nil {
		return f.kept(err)
	}
	_, err := f.f.Seek(size, io.SeekStart)
	return f.kept(err)
}

// Commit puts the file in place of its target: synced, closed and renamed
// over it, the folder synced after. On failure the temporary file is
// removed and the target is as it was.
func (f *File) Commit() error { return f.CommitAs(f.target) }

// CommitAs is [File.Commit] to another name in the target's folder (where
// a run that did not finish keeps what it wrote without replacing the
// target).
func (f *File) CommitAs(path string) (err error) {
	if f.done {
		return errors.New("atomicfile: commit of a file already committed or aborted")
	}
	f.done = true
	defer func() {
		if err != nil {
			os.Remove(f.f.Name())
			err = keptAs(f.f.Name(), path, err)
		}
	}()
	if err := f.f.Chmod(f.mode); err != nil {
		f.f.Close()
		return err
	}
	if err := f.f.Sync(); err != nil {
		f.f.Close()
		return err
	}
	if err := f.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.f.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// Abort drops the file; the target is untouched. It does nothing after
// Commit, so it may be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	os.Remove(f.f.Name())
}

// syncDir makes a rename in dir durable. Not every system can sync a
// folder; the rename has happened either way, so a failure is ignored.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// Scratch is a file for a writer of a target to spill to and read back
// while it writes the target (a trace too large to hold in memory until
// the end). It is made in the target's folder, where the output is going
// anyway, and removed from the folder at once, so it lasts as long as it
// is open and nothing of it is left even after a kill. Its errors say, as
// a [File]'s do, that the target is left as it was.
type Scratch struct {
	f      *os.File
	target string
}

// CreateScratch makes a scratch file for a writer of path.
func CreateScratch(path string) (*Scratch, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+"*.tmp")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &Scratch{f: f, target: path}, nil
}

// Write writes to the scratch file.
func (s *Scratch) Write(p []byte) (int, error) {
	n, err := s.f.Write(p)
	return n, keptAs(s.f.Name(), s.target, err)
}

// Read reads from the scratch file.
func (s *Scratch) Read(p []byte) (int, error) {
	n, err := s.f.Read(p)
	if err == io.EOF {
		return n, err
	}
	return n, keptAs(s.f.Name(), s.target, err)
}

// Seek sets where the next Read or Write goes, as [os.File.Seek].
func (s *Scratch) Seek(offset int64, whence int) (int64, error) {
	n, err := s.f.Seek(offset, whence)
	return n, keptAs(s.f.Name(), s.target, err)
}

// Close ends the scratch file; the space it took is freed.
func (s *Scratch) Close() error { return s.f.Close() }
