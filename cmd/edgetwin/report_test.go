package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tinyReview is a review of two teaching chips that runs in seconds: a
// short prompt, two contexts, a 30 s session on a hot day, and a chat of
// three turns for the per-turn figure.
const tinyReview = `title: Teaching chips review
chips: [seed-a, seed-c]
models: [{model: llama-3.2-1b, quant: Q4_0}]
workload: {prompt: 64, gen: 16}
scenarios: [{scenario: sustained, duration: 10s, set: [context_limit=256, prompt=64]}, {scenario: chat-30, set: [turns=3, answer=16]}]
set: [thermal.ambient=40C]
contexts: [64, 256]
requirements: ['ttft_s < 2', 'decode.tokens_per_s >= 1000']
questions: [best-chip, throttle, requirements, bottleneck, vendor-questions, 'Is it any good?']
`

func writeReview(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "review.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReport: every figure of the registry that the review feeds is in
// the folder with its SVG, PNG and CSV; the page embeds them all; the
// answers and the requirements are there; a second run gives the same
// report.
func TestReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small review (a few seconds)")
	}
	review := writeReview(t, tinyReview)
	out := filepath.Join(t.TempDir(), "report")
	code, stdout, stderr := edgetwin("report", "--config", review, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "9 figures") {
		t.Errorf("stdout %q", stdout)
	}
	for _, id := range []string{"compare-llama-3-2-1b", "pareto-llama-3-2-1b", "roofline", "context", "kv-policy", "thermal", "power-cliff", "time-per-token", "turns"} {
		for _, ext := range []string{".svg", ".png", ".csv"} {
			if st, err := os.Stat(filepath.Join(out, id+ext)); err != nil || st.Size() == 0 {
				t.Errorf("%s%s: %v", id, ext, err)
			}
		}
	}
	for _, f := range []string{"answers.csv", "requirements-llama-3-2-1b.csv", "parameters.csv", "assumptions.csv", "assumptions-details.csv", "report.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	page, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if n := strings.Count(string(page), `<img src="data:image/svg`); n != 9 {
		t.Errorf("index.html embeds %d figures, want 9", n)
	}
	// The chat's three turns, the first cold: it loads the model.
	turns, _ := os.ReadFile(filepath.Join(out, "turns.csv"))
	if rows := strings.Split(strings.TrimSpace(string(turns)), "\n"); len(rows) != 4 ||
		!strings.HasPrefix(rows[0], "turn,cold,truncated,load_s,capture_s") || !strings.HasPrefix(rows[1], "1,true,") || !strings.HasPrefix(rows[2], "2,false,") {
		t.Errorf("turns.csv:\n%s", turns)
	}
	if md, _ := os.ReadFile(filepath.Join(out, "report.md")); !strings.Contains(string(md), "The review runs the scenario changed from the catalog's: turns=3, answer=16.") {
		t.Error("report.md: the per-turn caption does not say the chat was changed")
	}
	req, _ := os.ReadFile(filepath.Join(out, "requirements-llama-3-2-1b.csv"))
	if !strings.Contains(string(req), "FAIL") || !strings.Contains(string(req), "decode.tokens_per_s >= 1000") {
		t.Errorf("requirements:\n%s", req)
	}
	answers, _ := os.ReadFile(filepath.Join(out, "answers.csv"))
	for _, want := range []string{"None meets every requirement", "Not answered automatically", "0 of 2 chips"} {
		if !strings.Contains(string(answers), want) {
			t.Errorf("answers lack %q:\n%s", want, answers)
		}
	}
	md1, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if code, _, stderr := edgetwin("report", "--config", review, "-o", out); code != 0 {
		t.Fatalf("second run over the earlier report: exit %d: %s", code, stderr)
	}
	md2, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if string(md1) != string(md2) {
		t.Error("report.md differs between two runs of the same review")
	}
}

// TestReportBadInput: exit 2, one line naming the file, line and field.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	photos := filepath.Join(dir, "photos")
	os.Mkdir(photos, 0o755)
	os.WriteFile(filepath.Join(photos, "cat.jpg"), []byte("meow"), 0o644)
	out := filepath.Join(dir, "report")
	good := writeReview(t, tinyReview)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no config", []string{"report", "-o", out}, "--config is required"},
		{"no out", []string{"report", "--config", good}, "-o DIR is required"},
		{"missing file", []string{"report", "--config", filepath.Join(dir, "nope.yaml"), "-o", out}, "nope.yaml: cannot read review file: no such file"},
		{"not a report folder", []string{"report", "--config", good, "-o", photos}, "holds files but no earlier report"},
		{"unknown chip", []string{"report", "--config", writeReview(t, strings.Replace(tinyReview, "seed-c]", "seed-z]", 1)), "-o", out}, "review.yaml:2:17: field chips.1: \"seed-z\": no catalog chip"},
		{"unknown key in a requirement", []string{"report", "--config", writeReview(t, strings.Replace(tinyReview, "'ttft_s < 2'", "'ttft < 2'", 1)), "-o", out}, "review.yaml:8:16: field requirements.0:"},
		{"bad objective", []string{"report", "--config", writeReview(t, tinyReview+"maximize: decode.speed\n"), "-o", out}, "review.yaml:10:11: field maximize: \"decode.speed\": unknown name"},
		{"nothing runs", []string{"report", "--config", writeReview(t, strings.Replace(tinyReview, ", prompt=64", "", 1)), "-o", out}, "review.yaml:3:10: field models.0: no chip ran llama-3.2-1b Q4_0, sustained, 10 s; the first, seed-c: scenario sustained: a prompt of 512 tokens leaves nothing to decode"},
		{"bad set path", []string{"report", "--config", writeReview(t, strings.Replace(tinyReview, "thermal.ambient=40C", "thermal.ambiance=40C", 1)), "-o", out}, "review.yaml:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := edgetwin(tc.args...)
			if code != exitBadInput {
				t.Errorf("exit %d, want 2: %s", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q, want one line with %q", stderr, tc.want)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == "photos" }) || len(entries) != 1 {
		t.Errorf("left in the folder: %v", entries)
	}
}
