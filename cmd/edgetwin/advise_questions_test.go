package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// questionsJS is the part of an answer the tests read.
type questionsJS struct {
	ID         string              `json:"id"`
	Question   string              `json:"question"`
	Answer     string              `json:"answer"`
	Metrics    map[string]*float64 `json:"metrics"`
	Provenance []struct {
		Path  string `json:"path"`
		Basis string `json:"basis"`
	} `json:"provenance"`
	Error string `json:"error"`
}

// TestAdviseQuestions: the command end to end on a quick case: one KV size
// whose context is the one sweep --vary kv gives, every answer with its
// numbers and provenance, exit 0.
func TestAdviseQuestions(t *testing.T) {
	if testing.Short() {
		t.Skip("a two-minute sustained run and a chat")
	}
	code, out, errOut := advise("questions", "--soc", "seed-c", "--model", "seed-moe-3b", "--fidelity", "analytic",
		"--kv", "1MiB", "--sustained", "2m", "--turns", "2", "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var answers []questionsJS
	if err := json.Unmarshal([]byte(out), &answers); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var ids []string
	for _, a := range answers {
		ids = append(ids, a.ID)
		if a.Answer == "" || len(a.Metrics) == 0 || len(a.Provenance) == 0 || a.Error != "" {
			t.Errorf("%s: answer %q, %d metrics, %d figures, error %q", a.ID, a.Answer, len(a.Metrics), len(a.Provenance), a.Error)
		}
	}
	want := "l3-miss-kv-1MiB throttle ttft speed chat-stability npu-coverage"
	if strings.Join(ids, " ") != want {
		t.Fatalf("answers %v, want %s", ids, want)
	}

	// The context of 1 MiB of KV is sweep's.
	code, sweepOut, errOut := edgetwin("sweep", "--soc", "seed-c", "--model", "seed-moe-3b", "--fidelity", "analytic",
		"--vary", "kv=1MiB", "--metrics", "decode.tokens_per_s", "--format", "json")
	if code != exitOK {
		t.Fatalf("sweep: exit %d: %s", code, errOut)
	}
	var points []map[string]any
	if err := json.Unmarshal([]byte(sweepOut), &points); err != nil || len(points) != 1 {
		t.Fatalf("sweep: %v\n%s", err, sweepOut)
	}
	if ctx := answers[0].Metrics["context_tokens"]; ctx == nil || *ctx != points[0]["ctx"] {
		t.Errorf("1 MiB of KV is a context of %v in the answer, %v in sweep", ctx, points[0]["ctx"])
	}
	// 1 MiB / 48 KiB a token (2 × 24 layers × 4 KV heads × 128 × 2 B) = 21.3.
	if ctx := answers[0].Metrics["context_tokens"]; ctx == nil || *ctx != 21 {
		t.Errorf("context of 1 MiB of KV: %v, want 21", ctx)
	}
	if answers[4].Metrics["turns"] == nil || *answers[4].Metrics["turns"] != 2 || !strings.Contains(answers[4].Question, "2-turn") {
		t.Errorf("--turns 2 ran %v turns: %q", answers[4].Metrics["turns"], answers[4].Question)
	}
}

// TestAdviseQuestionsBadInput: exit 2 with a message that names the
// problem; a model that does not fit is answered as such, question by
// question, before the exit.
func TestAdviseQuestionsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--soc", "no-such-chip"}, "no-such-chip"},
		{[]string{"--soc", "seed-c", "--model", "no-such-model"}, "no-such-model"},
		{[]string{"--soc", "seed-c", "--format", "csv"}, `--format "csv" is not allowed`},
		{[]string{"--soc", "seed-c", "--scenario", "chat-30"}, "runs its own scenarios"},
		{[]string{"--soc", "seed-c", "--turns", "0"}, "--turns 0 is not allowed"},
		{[]string{"--soc", "seed-c", "--turns", "31"}, "--turns 31 is not allowed"},
		{[]string{"--soc", "seed-c", "--kv", "4MiB,,8MiB"}, "is not a KV size"},
		{[]string{"--soc", "seed-c", "--kv", "0B"}, "is not a KV size"},
		{[]string{"--soc", "seed-c", "--sustained", "-5m"}, "--sustained"},
		{[]string{"--soc", "seed-c", "--quant", "Q5_9"}, "Q5_9"},
		{[]string{"--soc", "seed-c", "--depth", "100"}, "--depth is not allowed: the questions size their own contexts"},
	} {
		code, _, errOut := advise(append([]string{"questions"}, tc.args...)...)
		if code != exitBadInput || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and a line with %q", tc.args, code, errOut, tc.want)
		}
	}

	// llama-2-7b in F16 is 13.5 GB; seed-c has 12 GiB.
	code, out, errOut := advise("questions", "--soc", "seed-c", "--model", "llama-2-7b", "--quant", "F16", "--format", "json")
	if code != exitBadInput || !strings.Contains(errOut, "does not fit") {
		t.Errorf("a model that does not fit: exit %d, stderr %q", code, errOut)
	}
	var answers []questionsJS
	if err := json.Unmarshal([]byte(out), &answers); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(answers) != 8 {
		t.Errorf("%d answers, want all 8", len(answers))
	}
	for _, a := range answers {
		if !strings.Contains(a.Answer, "cannot be answered") || !strings.Contains(a.Error, "does not fit") {
			t.Errorf("%s: answer %q, error %q", a.ID, a.Answer, a.Error)
		}
	}
}

// FuzzParseKVSizes: no --kv text makes the parser panic, and the sizes it
// accepts are finite, positive and at most 16.
func FuzzParseKVSizes(f *testing.F) {
	for _, s := range []string{"4MiB,8MiB,16MiB", "1MiB", "0B", "4MiB,,8MiB", "1e400B", "-1MiB", "2 GiB, 3KB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sizes, err := parseKVSizes(s)
		if err != nil {
			return
		}
		if len(sizes) == 0 || len(sizes) > 16 {
			t.Fatalf("%q: %d sizes", s, len(sizes))
		}
		for _, v := range sizes {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Fatalf("%q: size %v", s, v)
			}
		}
	})
}
