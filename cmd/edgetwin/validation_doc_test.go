package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var regenDocs = flag.Bool("regen", false, "rewrite docs/validation.md from the shipped validation suite")

// TestValidationDoc: docs/validation.md is what `calibrate validate --doc`
// gives today on the shipped public records, so a change to a chip, a
// runtime profile or the predictor that moves a figure shows up here;
// -regen rewrites it. It also checks the report names the runtime × chip
// groups the issue asks for, those resting on one chip among them.
func TestValidationDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("three validation splits over the public records")
	}
	t.Chdir("../..")
	const doc = "docs/validation.md"
	out := doc
	if !*regenDocs {
		out = filepath.Join(t.TempDir(), "validation.md")
	}
	code, _, stderr := edgetwin("calibrate", "validate", "examples/public/records.jsonl", "--fidelity", "analytic", "--doc", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if *regenDocs {
		return
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	g := strings.ReplaceAll(string(got), out, doc)
	if g != string(want) {
		t.Errorf("%s is not what the command gives today: run go test ./cmd/edgetwin -run TestValidationDoc -regen\n%s", doc, firstDiff(g, string(want)))
	}
	for _, group := range []string{"| rkllm | rk3576 |", "| genie | snapdragon-8-elite |", "| genie | snapdragon-x-elite |",
		"| llama.cpp-cpu | raspberry-pi-5 |", "| llama.cpp-cpu | apple-m2-ultra |", "| llama.cpp-opencl | snapdragon-8-gen3 |"} {
		if !strings.Contains(g, group) {
			t.Errorf("%s has no row %s", doc, group)
		}
	}
}

// firstDiff shows the first line where got and want part.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < min(len(g), len(w)); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n  got:  %s\n  want: %s", i+1, g[i], w[i])
		}
	}
	return "one is a prefix of the other"
}
