package inputfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "chip.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	os.WriteFile(big, make([]byte, 4097), 0o644)
	ok := filepath.Join(dir, "ok.yaml")
	os.WriteFile(ok, []byte("name: x\n"), 0o644)
	for _, tc := range []struct {
		path string
		max  int64
		want string
	}{
		{fifo, SpecCap, fifo + ": a named pipe, not a regular file"},
		{"/dev/zero", SpecCap, "/dev/zero: a character device, not a regular file"},
		{dir, SpecCap, dir + ": a directory, not a regular file"},
		{big, 4096, big + ": larger than 4096 bytes"},
		{filepath.Join(dir, "none.yaml"), SpecCap, "none.yaml: no such file"},
		{ok, SpecCap, ""},
	} {
		start := time.Now()
		data, err := Read(tc.path, tc.max)
		if time.Since(start) > time.Second {
			t.Errorf("%s took %v", tc.path, time.Since(start))
		}
		switch {
		case tc.want == "" && (err != nil || string(data) != "name: x\n"):
			t.Errorf("%s: %q, %v", tc.path, data, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
	if _, err := Read(big, 1<<20); err != nil {
		t.Errorf("a file under the cap: %v", err)
	}
	if got := tooLarge("r.jsonl", RecordsCap).Error(); got != "r.jsonl: larger than 64 MiB, the most edgetwin reads from such a file" {
		t.Errorf("message %q", got)
	}
}

// TestOpenCapsGrowth: a file that grows past the cap after it was opened
// fails the read that crosses it.
func TestOpenCapsGrowth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(path, []byte("abc"), 0o644)
	f, err := Open(path, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.WriteFile(path, []byte("0123456789"), 0o644)
	_, err = io.ReadAll(f)
	if err == nil || !strings.Contains(err.Error(), "larger than 8 bytes") {
		t.Errorf("read past the cap: %v", err)
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		t.Error("a cap error should not look like a system error")
	}
}
