package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/advisor"
	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

// teachingAnswers answers the review questions for seed-moe-3b on seed-c,
// quickly: analytic, a sustained run of two minutes (the shortest with a
// sustained rate) and a chat of four turns.
func teachingAnswers(t *testing.T) *advisor.Answers {
	t.Helper()
	load := func(chip string, _ []string) (sim.Config, error) {
		c, err := hw.LoadChip(chip, nil)
		if err != nil {
			return sim.Config{}, err
		}
		m, err := workloads.LoadModel("seed-moe-3b", nil)
		if err != nil {
			return sim.Config{}, err
		}
		q, _ := workloads.ParseQuant("Q4_0")
		kv, _ := workloads.ParseKVFormat("F16")
		return sim.Config{Chip: c, Model: m, Quant: q, KV: kv, Prompt: 512, Gen: 32, Batch: 1, Fidelity: sim.Analytic, Seed: 1}, nil
	}
	p, err := advisor.PrepareQuestions(advisor.QuestionsRequest{SoC: "seed-c", Load: load, SustainedFor: 120, ChatTurns: 4})
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestQuestionsGolden: the answers of seed-moe-3b on seed-c as JSON (the
// contract: a list of id, question, answer, metrics, provenance) and as a
// table.
func TestQuestionsGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("a two-minute sustained run and a chat")
	}
	a := teachingAnswers(t)
	for _, f := range []Format{Table, JSON} {
		var b bytes.Buffer
		if err := WriteQuestions(&b, a, f); err != nil {
			t.Fatal(err)
		}
		golden(t, "questions-seed-c-moe."+string(f), b.Bytes())
		if f != JSON {
			continue
		}
		var doc []map[string]json.RawMessage
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc) != 8 {
			t.Errorf("%d answers, want 8: three KV sizes, throttling, TTFT, speed, chat, coverage", len(doc))
		}
		for _, q := range doc {
			for _, k := range []string{"id", "question", "answer", "metrics", "provenance"} {
				if _, ok := q[k]; !ok {
					t.Errorf("answer %s has no %s", q["id"], k)
				}
			}
		}
	}
	if err := WriteQuestions(&bytes.Buffer{}, a, CSV); err == nil {
		t.Error("the answers written as CSV")
	}
}

func TestRestsOn(t *testing.T) {
	for _, tc := range []struct {
		figs []advisor.Figure
		want string
	}{
		{nil, "Rests on no spec figure."},
		{[]advisor.Figure{{Path: "memory.dram.bandwidth", Basis: "cited"}, {Path: "memory.l3.ways", Basis: "assumed"}},
			"Rests on 2 figures: 1 cited, 1 assumed (assumed: memory.l3.ways)."},
		{[]advisor.Figure{{Path: "governor.trips.0.temp", Basis: "assumed"}, {Path: "governor.trips.1.temp", Basis: "assumed"}, {Path: "x", Basis: "calibrated"}},
			"Rests on 3 figures: 1 calibrated, 2 assumed (assumed: governor.trips.*)."},
	} {
		if got := restsOn(tc.figs); got != tc.want {
			t.Errorf("restsOn(%v) = %q, want %q", tc.figs, got, tc.want)
		}
	}
}

func TestWrapTo(t *testing.T) {
	var b strings.Builder
	wrapTo(&b, "aaa bbb ccc dddddddddd e", "  ", 10)
	want := "  aaa bbb\n  ccc\n  dddddddddd\n  e\n"
	if b.String() != want {
		t.Errorf("wrapTo gave %q, want %q", b.String(), want)
	}
}
