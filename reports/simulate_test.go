package reports

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

var regen = flag.Bool("regen", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it under -regen. A
// change that alters a report must update its golden file on purpose.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *regen {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./reports -regen)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed; if on purpose, run go test ./reports -regen\n--- got\n%s", name, got)
	}
}

func teachingResult(t *testing.T) *sim.Result { return teachingRun(t, nil) }

// teachingRun is a short run of the teaching MoE on seed-c, recording its
// timeline in trace when trace is not nil.
func teachingRun(t *testing.T, trace *sim.Trace) *sim.Result {
	t.Helper()
	chip, err := hw.LoadChip("seed-c", nil)
	if err != nil {
		t.Fatal(err)
	}
	model, err := workloads.LoadModel("seed-moe-3b", nil)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := workloads.ParseQuant("Q4_0")
	kv, _ := workloads.ParseKVFormat("F16")
	r, err := sim.Run(context.Background(), sim.Config{Chip: chip, Model: model, Quant: q, KV: kv, Prompt: 64, Gen: 8, Batch: 1, Seed: 1, Trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSimulateGolden(t *testing.T) {
	r := teachingResult(t)
	for _, f := range []Format{Table, JSON, CSV} {
		var b bytes.Buffer
		if err := WriteSimulate(&b, r, f); err != nil {
			t.Fatal(err)
		}
		golden(t, "simulate-seed-c-moe."+string(f), b.Bytes())
	}
}

func TestFlatten(t *testing.T) {
	v := map[string]any{"a": map[string]any{"b": 1.5, "c": nil}, "d": "x", "e": []int{1}}
	fields, err := Flatten(v)
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{{"a.b", "1.5"}, {"a.c", "null"}, {"d", `"x"`}}
	if len(fields) != len(want) {
		t.Fatalf("got %v, want %v", fields, want)
	}
	for i := range want {
		if fields[i] != want[i] {
			t.Errorf("field %d: %v, want %v", i, fields[i], want[i])
		}
	}
	if v, ok := Lookup(fields, "a.b"); !ok || v != "1.5" {
		t.Errorf("Lookup a.b = %q %v", v, ok)
	}
}

// TestSessionTTFTSaysWhichTurn: a session prints two first-token figures —
// the first turn's and the spread of the others — and says which is which,
// so one screen does not show two different "warm TTFT" figures unnamed.
func TestSessionTTFTSaysWhichTurn(t *testing.T) {
	r := compareResult("seed-c", 0.813, 1000, 20, 50, 1.1, 45, 0.68, 0.99)
	r.Turns = []sim.Turn{{Cold: true, Prompt: 259}, {Prompt: 53}, {Prompt: 48}}
	r.TurnLatency = &sim.TurnLatency{TTFTP50: 0.19, TTFTP95: 0.2, TotalP50: 10, TotalP95: 11}
	var b bytes.Buffer
	if err := SimulateTable(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the first turn's 259-token prompt", "(the 2 turns without a cold start)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
