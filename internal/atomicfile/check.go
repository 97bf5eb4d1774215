package atomicfile

import (
	"errors"
	"fmt"
	"github.com/edgetwin/edgetwin/internal/inputfile"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckFile says whether a file can be written at path, before any work
// that would produce it: path is not a folder nor a device, its folder
// exists, and a file can be created and removed there. The error says
// which of these fails.
func CheckFile(path string) error {
	if path == "" {
		return errors.New("no file name given")
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s is a directory; give a file name", path)
	case err == nil && !st.Mode().IsRegular():
		return fmt.Errorf("%s is %s; edgetwin replaces only regular files", path, inputfile.ModeName(st.Mode()))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return checkFolder(filepath.Dir(path))
}

// CheckDir says whether [ReplaceDir] can write a folder at dir: dir is
// not a file, its parent exists and takes new entries. Whether an existing
// dir may be replaced is the caller's to decide.
func CheckDir(dir string) error {
	if dir == "" {
		return errors.New("no folder name given")
	}
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("%s is a file; give a directory", dir)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	return checkFolder(filepath.Dir(abs))
}

// checkFolder says whether dir exists and a file can be created in it:
// the one sure test of write permission (modes, ACLs, read-only mounts and
// a full inode table all show here).
func checkFolder(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no directory %s", dir)
	case err != nil:
		return err
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".edgetwin-check-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot write in %s: %v", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}
