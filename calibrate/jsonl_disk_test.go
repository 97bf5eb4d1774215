package calibrate

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/edgetwin/edgetwin/internal/atomicfile/atomicfiletest"
)

// TestCreateDiscardKeepsEarlier: a run that gives up leaves the earlier
// records file as it was and nothing beside it.
func TestCreateDiscardKeepsEarlier(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	os.WriteFile(path, []byte("earlier\n"), 0o644)
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(sampleRecords()[0])
	if err := w.Discard(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "earlier\n" {
		t.Errorf("after Discard: %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left beside it: %v", entries)
	}
}

// TestWriterFullDisk fills a 64 KiB tmpfs with records: the write that
// does not fit fails, and the file put in place holds whole records only.
func TestWriterFullDisk(t *testing.T) {
	mnt := atomicfiletest.SmallDisk(t, "64k")
	path := filepath.Join(mnt, "r.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := sampleRecords()[2]
	written := 0
	for ; written < 100000; written++ {
		if err = w.Write(rec); err != nil {
			break
		}
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("after %d records: %v, want ENOSPC", written, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, warns, err := ReadFile(path)
	if err != nil || len(warns) != 0 || len(recs) != written {
		t.Errorf("%d records (want %d), warnings %v, %v", len(recs), written, warns, err)
	}
}
