package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/edgetwin/edgetwin/internal/atomicfile/atomicfiletest"
)

// listDir is the names in dir, sorted, so a test sees every leftover.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// deadPID is the id of a process that has ended: leftovers it "made" are
// fair game for the clean-up.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot start a process to get a dead pid: %v", err)
	}
	return cmd.Process.Pid
}

func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.yaml")
	for _, want := range []string{"first\n", "second, longer\n", ""} {
		if err := WriteFile(path, []byte(want)); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, path); got != want {
			t.Errorf("content %q, want %q", got, want)
		}
	}
	if got := listDir(t, dir); len(got) != 1 {
		t.Errorf("files left beside the target: %v", got)
	}
}

// errAfter is a fill that writes n bytes and then fails, as a full disk
// or a failed render midway would.
func errAfter(n int) func(io.Writer) error {
	return func(w io.Writer) error {
		if _, err := w.Write([]byte(strings.Repeat("x", n))); err != nil {
			return err
		}
		return errors.New("render failed")
	}
}

func TestWriteFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "records.jsonl")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 3, 1 << 20} {
		if err := Write(path, errAfter(n)); err == nil || err.Error() != "render failed" {
			t.Fatalf("after %d bytes: error %v, want the fill's", n, err)
		}
		if got := mustRead(t, path); got != "old\n" {
			t.Errorf("after a failure at %d bytes the file holds %q", n, got)
		}
		if got := listDir(t, dir); len(got) != 1 {
			t.Errorf("after a failure at %d bytes: %v", n, got)
		}
	}
	// The user's permissions survive a replacement.
	if err := WriteFile(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the old file's 0600", st.Mode().Perm())
	}
}

func TestFileCommitAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	os.WriteFile(path, []byte("old\n"), 0o644)
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "one\ntwo\n")
	if err := f.Truncate(4); err != nil { // a half-written record dropped
		t.Fatal(err)
	}
	io.WriteString(f, "three\n")
	if got := mustRead(t, path); got != "old\n" {
		t.Errorf("the target changed before Commit: %q", got)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: nothing
	if got := mustRead(t, path); got != "one\nthree\n" {
		t.Errorf("committed %q", got)
	}

	f, _ = Create(path)
	io.WriteString(f, "dropped\n")
	f.Abort()
	if got := mustRead(t, path); got != "one\nthree\n" || len(listDir(t, dir)) != 1 {
		t.Errorf("after Abort: %q, %v", got, listDir(t, dir))
	}
	if err := f.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}

	f, _ = Create(path)
	io.WriteString(f, "partial\n")
	if err := f.CommitAs(path + ".partial"); err != nil {
		t.Fatal(err)
	}
	if mustRead(t, path) != "one\nthree\n" || mustRead(t, path+".partial") != "partial\n" {
		t.Error("CommitAs touched the target or lost the file")
	}
}

func TestCreateRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ path, want string }{
		{dir, "is a directory"},
		{"/dev/null", "is not a regular file (a character device)"},
		{filepath.Join(dir, "missing", "x.csv"), "no such file or directory"},
	} {
		if _, err := Create(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Create(%s): %v, want %q", tc.path, err, tc.want)
		}
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode().IsRegular() {
		t.Errorf("/dev/null was replaced: %v %v", st, err)
	}
}

func TestCreateFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.csv"), filepath.Join(dir, "link.csv")
	os.WriteFile(real, []byte("old"), 0o644)
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 || mustRead(t, real) != "new" {
		t.Error("the link was replaced instead of the file it names")
	}
}

func TestCreateRemovesDeadLeftovers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.json")
	dead := filepath.Join(dir, ".trace.json."+strconv.Itoa(deadPID(t))+"-123.tmp")
	live := filepath.Join(dir, ".trace.json."+strconv.Itoa(os.Getppid())+"-456.tmp")
	other := filepath.Join(dir, ".other.json.1-1.tmp")
	for _, p := range []string{dead, live, other} {
		os.WriteFile(p, nil, 0o644)
	}
	if err := WriteFile(path, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	want := []string{".other.json.1-1.tmp", filepath.Base(live), "trace.json"}
	if got := listDir(t, dir); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("left %v, want %v (a dead writer's leftover removed, nothing else)", got, want)
	}
}

func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "new.csv"), ""},
		{dir, "is a directory"},
		{filepath.Join(dir, "nope", "a.csv"), "no directory " + filepath.Join(dir, "nope")},
		{"/dev/zero", "is a character device"},
		{"", "no file name"},
	} {
		err := CheckFile(tc.path)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckFile(%q): %v, want %q", tc.path, err, tc.want)
		}
	}
	if err := CheckDir(filepath.Join(dir, "x", "report")); err == nil {
		t.Error("CheckDir in a missing folder passed")
	}
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
	if err := CheckDir(filepath.Join(dir, "f")); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("CheckDir on a file: %v", err)
	}
	// Root ignores permission bits; the write test is what counts then.
	if os.Geteuid() != 0 {
		if err := CheckFile(filepath.Join(ro, "a.csv")); err == nil || !strings.Contains(err.Error(), "cannot write in") {
			t.Errorf("CheckFile in a read-only folder: %v", err)
		}
	}
	if left := listDir(t, dir); len(left) != 2 {
		t.Errorf("the checks left files: %v", left)
	}
}

func fillWith(files map[string]string) func(string) error {
	return func(tmp string) error {
		for name, data := range files {
			if err := WriteIn(tmp, name, []byte(data)); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestReplaceDir(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "report")
	ctx := context.Background()
	if err := ReplaceDir(ctx, dir, fillWith(map[string]string{"a": "1", "b": "2"})); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); fmt.Sprint(got) != "[a b]" {
		t.Errorf("new folder: %v", got)
	}
	if err := ReplaceDir(ctx, dir, fillWith(map[string]string{"c": "3"})); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); fmt.Sprint(got) != "[c]" {
		t.Errorf("replaced folder: %v", got)
	}
	// A fill that fails, and a run cancelled before the swap, leave the
	// folder as it was and nothing beside it.
	failing := func(tmp string) error {
		WriteIn(tmp, "half", []byte("x"))
		return errors.New("disk full")
	}
	if err := ReplaceDir(ctx, dir, failing); err == nil || err.Error() != "disk full" {
		t.Errorf("failing fill: %v", err)
	}
	cancelled, cancel := context.WithCancelCause(ctx)
	cancel(errors.New("interrupt received"))
	if err := ReplaceDir(cancelled, dir, fillWith(map[string]string{"d": "4"})); err == nil || err.Error() != "interrupt received" {
		t.Errorf("cancelled: %v", err)
	}
	if got := listDir(t, dir); fmt.Sprint(got) != "[c]" || mustRead(t, filepath.Join(dir, "c")) != "3" {
		t.Errorf("after failures the folder holds %v", got)
	}
	if got := listDir(t, parent); fmt.Sprint(got) != "[report]" {
		t.Errorf("left beside the folder: %v", got)
	}
}

// TestRecoverAfterKill plays the states a kill can leave: between the two
// renames (the folder missing, the earlier one aside), and during the
// build (a half-built folder). The next run puts back or removes them.
func TestRecoverAfterKill(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "report")
	pid := strconv.Itoa(deadPID(t))
	aside := filepath.Join(parent, ".report."+oldTag+"-"+pid+"-1")
	half := filepath.Join(parent, ".report."+newTag+"-"+pid+"-2")
	running := filepath.Join(parent, ".report."+newTag+"-"+strconv.Itoa(os.Getppid())+"-3")
	unrelated := filepath.Join(parent, ".report.mine")
	for _, d := range []string{aside, half, running, unrelated} {
		os.Mkdir(d, 0o755)
	}
	os.WriteFile(filepath.Join(aside, "index.html"), []byte("old report"), 0o644)
	if err := Recover(dir); err != nil {
		t.Fatal(err)
	}
	if mustRead(t, filepath.Join(dir, "index.html")) != "old report" {
		t.Error("the earlier folder was not put back")
	}
	want := fmt.Sprint([]string{filepath.Base(running), ".report.mine", "report"})
	if got := fmt.Sprint(listDir(t, parent)); got != want {
		t.Errorf("after Recover: %s, want %s", got, want)
	}
	// With the folder in place, an earlier one aside is a swap that
	// finished but for its clean-up.
	os.Mkdir(aside, 0o755)
	if err := ReplaceDir(context.Background(), dir, fillWith(map[string]string{"n": "new"})); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(listDir(t, parent)); got != want || fmt.Sprint(listDir(t, dir)) != "[n]" {
		t.Errorf("after ReplaceDir: %s, %v", got, listDir(t, dir))
	}
}

// TestFullDisk writes into a 64 KiB tmpfs: the write that does not fit
// fails and the file written before it is whole.
func TestFullDisk(t *testing.T) {
	mnt := atomicfiletest.SmallDisk(t, "64k")
	path := filepath.Join(mnt, "records.jsonl")
	old := strings.Repeat("old record\n", 3000) // 33 KB: a second copy cannot fit beside it
	if err := WriteFile(path, []byte(old)); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, []byte(strings.Repeat("new record\n", 3000)))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("write on a full disk: %v, want ENOSPC", err)
	}
	// The message names the target, not the removed temporary file.
	if want := "no space left on device; " + path + " is left as it was"; err == nil || err.Error() != want {
		t.Errorf("write on a full disk: %v, want %q", err, want)
	}
	if mustRead(t, path) != old {
		t.Error("the old file was damaged by the failed write")
	}
	if got := listDir(t, mnt); len(got) != 1 {
		t.Errorf("left on the full disk: %v", got)
	}
	sc, err := CreateScratch(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Write([]byte(old))
	sc.Close()
	if want := "no space left on device; " + path + " is left as it was"; err == nil || err.Error() != want {
		t.Errorf("a scratch file on a full disk: %v, want %q", err, want)
	}
	report := filepath.Join(mnt, "report")
	err = ReplaceDir(context.Background(), report, fillWith(map[string]string{"big": old}))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("a folder on a full disk: %v, want ENOSPC", err)
	}
	if want := "no space left on device; " + report + " is left as it was"; err == nil || err.Error() != want {
		t.Errorf("a folder on a full disk: %v, want %q", err, want)
	}
	if got := listDir(t, mnt); len(got) != 1 {
		t.Errorf("left on the full disk: %v", got)
	}
}

// TestScratch: a scratch file reads back what was written to it and is
// never in its folder, so neither a Close nor a kill leaves anything.
func TestScratch(t *testing.T) {
	dir := t.TempDir()
	sc, err := CreateScratch(filepath.Join(dir, "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("an open scratch file is in its folder: %v", got)
	}
	if _, err := sc.Write([]byte("spilled")); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(sc); string(got) != "spilled" || err != nil {
		t.Errorf("read back %q, %v", got, err)
	}
}
