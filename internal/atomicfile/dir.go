package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Names of the folders ReplaceDir keeps beside its target: the one being
// built and the earlier one set aside during the swap.
const (
	newTag = "edgetwin-new"
	oldTag = "edgetwin-old"
)

// ReplaceDir writes a folder at dir, all or nothing: fill writes the
// files into an empty folder beside dir (use [WriteIn], which syncs each
// file), then the folder takes dir's place; an earlier dir is set aside
// and removed only once the new one is in. When fill fails, or ctx is
// done before the swap, the new folder is removed and dir is untouched.
// Leftovers of killed runs are dealt with first (see [Recover]).
func ReplaceDir(ctx context.Context, dir string, fill func(tmp string) error) (err error) {
	given := dir // as the user named it, for messages
	dir, err = filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := Recover(dir); err != nil {
		return err
	}
	parent, base := filepath.Split(dir)
	tmp, err := os.MkdirTemp(parent, siblingPrefix(base, newTag)+"*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := fill(tmp); err != nil {
		return keptAs(tmp, given, err)
	}
	if err := context.Cause(ctx); err != nil {
		return err
	}
	syncDir(tmp)
	return swapIn(tmp, dir)
}

// WriteIn writes data to the file name in the folder dir, synced; for
// [ReplaceDir]'s fill, whose folder is renamed whole and so needs no
// temporary file of its own.
func WriteIn(dir, name string, data []byte) error {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// swapIn moves the finished folder tmp to dir, an earlier dir set aside
// first and removed once tmp is in place. A kill between the two renames
// leaves dir missing and the earlier folder under its aside name, which
// the next Recover puts back.
func swapIn(tmp, dir string) error {
	parent, base := filepath.Split(dir)
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(tmp, dir); err != nil {
			return err
		}
		syncDir(parent)
		return nil
	}
	// A unique name for the earlier folder: MkdirTemp reserves it, the
	// rename below takes it over.
	old, err := os.MkdirTemp(parent, siblingPrefix(base, oldTag)+"*")
	if err != nil {
		return err
	}
	if err := os.Remove(old); err != nil {
		return err
	}
	if err := os.Rename(dir, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if rerr := os.Rename(old, dir); rerr != nil {
			return fmt.Errorf("%v; the earlier folder is kept in %s", err, old)
		}
		return err
	}
	syncDir(parent)
	return os.RemoveAll(old)
}

// siblingPrefix is how the folders of a run beside base begin: hidden,
// named after base, what they are and the process that made them.
func siblingPrefix(base, tag string) string {
	return "." + base + "." + tag + "-" + strconv.Itoa(os.Getpid()) + "-"
}

// Recover tidies what killed runs of [ReplaceDir] left beside dir. When
// dir is missing and an earlier folder was set aside (the run was killed
// between its two renames), that folder is moved back to dir. Unfinished
// new folders are removed, and earlier folders once dir is in place. Only
// folders named by ReplaceDir, of processes no longer running, are
// touched.
func Recover(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	parent, base := filepath.Split(dir)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil // no parent: nothing to recover; the caller's write says why
	}
	var news, olds []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		switch tag, ok := leftover(e.Name(), base); {
		case !ok:
		case tag == newTag:
			news = append(news, filepath.Join(parent, e.Name()))
		case tag == oldTag:
			olds = append(olds, filepath.Join(parent, e.Name()))
		}
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) && len(olds) > 0 {
		if err := os.Rename(olds[0], dir); err != nil {
			return fmt.Errorf("%s is missing and the earlier folder %s cannot be put back: %v", dir, olds[0], err)
		}
		syncDir(parent)
		olds = olds[1:]
	}
	for _, d := range append(news, olds...) {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("cannot remove %s, left by an interrupted run: %v", d, err)
		}
	}
	return nil
}

// leftover says whether name is a folder ReplaceDir made beside base in a
// process that is no longer running, and which kind.
func leftover(name, base string) (tag string, ok bool) {
	rest, ok := strings.CutPrefix(name, "."+base+".")
	if !ok {
		return "", false
	}
	for _, t := range []string{newTag, oldTag} {
		if r, ok := strings.CutPrefix(rest, t+"-"); ok {
			pid, _, ok := strings.Cut(r, "-")
			n, err := strconv.Atoi(pid)
			if !ok || err != nil || alive(n) {
				return "", false
			}
			return t, true
		}
	}
	return "", false
}
