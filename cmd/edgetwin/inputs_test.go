package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// minInputCases is the least number of cases TestInputs must find, so the
// suite of issue 17 cannot shrink silently.
const minInputCases = 150

// TestInputs runs every malformed or extreme input in testdata/inputs
// (one txtar archive a case; the format is in testdata/inputs/README.md)
// through the CLI in-process, in a fresh folder holding the archive's
// files, and holds each to its expected exit code and messages and to
// what every input must get: no panic, one located line for bad input,
// no non-finite number printed, nothing printed and no file written or
// changed on failure.
func TestInputs(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "inputs", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < minInputCases {
		t.Errorf("testdata/inputs holds %d cases, want at least %d", len(paths), minInputCases)
	}
	for _, path := range paths {
		c, err := readInputCase(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), c.check)
	}
}

// inputCase is one archive: the command, what it must give, and the files.
type inputCase struct {
	args   []string
	exit   int
	stderr []string // substrings of stderr
	stdout []string // substrings of stdout
	env    [][2]string
	files  []txtar.File
	// report: stderr may hold a report before its last line (calibrate
	// import lists each skipped row at its file:line, then fails).
	report bool
}

func readInputCase(path string) (inputCase, error) {
	a, err := txtar.ParseFile(path)
	if err != nil {
		return inputCase{}, err
	}
	c := inputCase{exit: -1, files: a.Files}
	for n, line := range strings.Split(string(a.Comment), "\n") {
		verb, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		var err error
		switch verb {
		case "", "#":
		case "edgetwin":
			c.args, err = splitWords(rest)
		case "exit":
			c.exit, err = strconv.Atoi(rest)
		case "stderr":
			var s string
			s, err = unquoteWord(rest)
			c.stderr = append(c.stderr, s)
		case "stdout":
			var s string
			s, err = unquoteWord(rest)
			c.stdout = append(c.stdout, s)
		case "report":
			c.report = true
		case "env":
			k, v, ok := strings.Cut(rest, "=")
			if !ok {
				err = fmt.Errorf("env wants NAME=VALUE")
			}
			c.env = append(c.env, [2]string{k, v})
		default:
			err = fmt.Errorf("unknown directive %q", verb)
		}
		if err != nil {
			return c, fmt.Errorf("line %d: %v", n+1, err)
		}
	}
	if c.args == nil || c.exit < 0 {
		return c, fmt.Errorf("needs an 'edgetwin ARGS' line and an 'exit N' line")
	}
	return c, nil
}

// splitWords splits a command line at spaces, keeping 'quoted' or
// "quoted" words whole (no escapes: the cases need none).
func splitWords(s string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
			}
			inWord = false
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c in %q", quote, s)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// unquoteWord reads the one word of a stderr or stdout line.
func unquoteWord(s string) (string, error) {
	w, err := splitWords(s)
	if err == nil && len(w) != 1 {
		err = fmt.Errorf("want one (quoted) string, have %q", s)
	}
	if err != nil {
		return "", err
	}
	return w[0], nil
}

// nonFinite matches a NaN or an infinity as Go, JSON encoders or CSV
// writers would print one.
var nonFinite = regexp.MustCompile(`(?i)(^|[^a-z])[+-]?(nan|inf|infinity)([^a-z]|$)`)

// slowCase is the time a case may take (issue 17: each within 10 s).
const slowCase = 10 * time.Second

func (c inputCase) check(t *testing.T) {
	dir := t.TempDir()
	before := map[string]string{}
	for _, f := range c.files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if strings.HasSuffix(f.Name, "/") { // a folder where a file is wanted
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		before[f.Name] = string(f.Data)
	}
	t.Chdir(dir)
	for _, kv := range c.env {
		t.Setenv(kv[0], kv[1])
	}

	start := time.Now()
	code, stdout, stderr := runCatching(c.args)
	if d := time.Since(start); d > slowCase {
		t.Errorf("took %v, more than %v", d.Round(time.Millisecond), slowCase)
	}
	if code != c.exit {
		t.Errorf("exit %d, want %d\nstderr: %s", code, c.exit, stderr)
	}
	for _, want := range c.stderr {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, want := range c.stdout {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Errorf("a Go stack or panic on stderr:\n%s", stderr)
	}
	if m := nonFinite.FindString(stdout); m != "" {
		t.Errorf("stdout holds a non-finite number (%q):\n%s", m, stdout)
	}
	if code == exitBadInput {
		c.checkLocated(t, stderr)
	}
	if code != exitOK {
		if stdout != "" {
			t.Errorf("exit %d with output on stdout:\n%s", code, stdout)
		}
	}
	c.checkFiles(t, dir, before, code == exitOK)
}

// runCatching runs the CLI, turning a panic into a failure report.
func runCatching(args []string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	defer func() {
		if r := recover(); r != nil {
			code, stdout = -1, out.String()
			stderr = fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// locationRE reads the head of a bad-input message: a flag (with the
// value or path after it) or a file, then optionally :LINE.
var locationRE = regexp.MustCompile(`^edgetwin: (-[-\w]*|[^\s:]+)(:\d+)?[ :]`)

// unlocated are the messages that may start elsewhere: cobra's own about
// commands and flags, and CONTRACT.md's form for a model that does not fit.
var unlocated = regexp.MustCompile(`^edgetwin: (unknown (command|flag|shorthand)|invalid argument "[^"]*" for "-|flag needs an argument|accepts |requires at least|.* does not fit: needs )`)

// checkLocated holds a bad-input message to one line located first at a
// file of the case, a file or flag on the command line (never at a
// pseudo-file such as "assumed", nor at a flag the user did not give).
func (c inputCase) checkLocated(t *testing.T, stderr string) {
	msg := strings.TrimSuffix(stderr, "\n")
	if c.report {
		lines := strings.Split(msg, "\n")
		if !strings.HasPrefix(lines[len(lines)-1], "edgetwin: ") {
			t.Errorf("the report must end with the error line, have %q", stderr)
		}
		return
	}
	if msg == "" || strings.Contains(msg, "\n") {
		t.Errorf("bad input must be one line on stderr, have %q", stderr)
		return
	}
	if unlocated.MatchString(msg) {
		return
	}
	m := locationRE.FindStringSubmatch(msg)
	if m == nil {
		t.Errorf("message is located at no file or flag: %q", msg)
		return
	}
	loc := m[1]
	given := slices.ContainsFunc(c.args, func(a string) bool { return a == loc || strings.HasPrefix(a, loc+"=") }) ||
		slices.ContainsFunc(c.files, func(f txtar.File) bool { return f.Name == loc || f.Name == loc+"/" })
	if !given {
		t.Errorf("message is located at %q, neither a file of the case nor a flag or file of the command %q: %q", loc, c.args, msg)
	}
}

// checkFiles holds the folder to what the run may leave: every file of
// the archive as it was, and, on failure, nothing else; on success no
// temporary file beside the outputs.
func (c inputCase) checkFiles(t *testing.T, dir string, before map[string]string, ok bool) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		want, had := before[rel]
		switch {
		case had:
			if got, _ := os.ReadFile(p); string(got) != want {
				t.Errorf("the run changed the input %s", rel)
			}
		case !ok:
			t.Errorf("the failed run left %s", rel)
		case strings.Contains(rel, ".tmp") || strings.HasSuffix(rel, ".partial"):
			t.Errorf("the run left the temporary %s", rel)
		}
		return nil
	})
	for name := range before {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the run removed the input %s", name)
		}
	}
}
