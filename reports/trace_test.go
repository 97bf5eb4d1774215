package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/edgetwin/edgetwin/sim"
)

// TestTraceFileIsWriteTrace: a trace streamed to disk as the run goes is
// the file WriteTrace makes of the trace held in memory, byte for byte,
// and leaves nothing beside it; so is the trace of a run that recorded
// nothing.
func TestTraceFileIsWriteTrace(t *testing.T) {
	dir := t.TempDir()
	whole := &sim.Trace{}
	teachingRun(t, whole)
	if err := WriteTrace(filepath.Join(dir, "whole.json"), whole); err != nil {
		t.Fatal(err)
	}
	f, err := CreateTrace(filepath.Join(dir, "streamed.json"))
	if err != nil {
		t.Fatal(err)
	}
	teachingRun(t, f.Trace)
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "whole.json"))
	got, _ := os.ReadFile(filepath.Join(dir, "streamed.json"))
	if !bytes.Equal(got, want) || len(want) < 1000 {
		t.Errorf("streamed %d bytes, in memory %d; they differ", len(got), len(want))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left beside the traces: %v", entries)
	}

	empty, err := CreateTrace(filepath.Join(dir, "empty.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if err := empty.Commit(); err != nil {
		t.Fatal(err)
	}
	want, _ = json.Marshal(&sim.Trace{})
	if got, _ := os.ReadFile(filepath.Join(dir, "empty.json")); !bytes.Equal(got, want) {
		t.Errorf("an empty trace streamed as %s, want %s", got, want)
	}
}
