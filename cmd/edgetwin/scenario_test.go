package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var rewriteScripts = flag.Bool("rewrite", false, "rewrite the expected output of testdata/scenarios/*.txt from what the commands print today")

// TestScenarios runs the scenario scripts of testdata/scenarios: stories a
// user tells with the CLI (the README's session, the seed-c MoE tables, a
// phone throttling), each command beside what it prints. A script is
//
//	# a comment, kept
//	> COMMAND ARGS
//	what the command prints
//
// and a command's output runs to the next "> " or "# " line (trailing
// blank lines aside). Arguments split at spaces, as a shell splits them,
// but within quotes ('ttft_s < 1'; splitWords). -rewrite writes what the commands print today. The
// commands:
//
//	soc ID|FILE          the chip of the commands that follow (no output)
//	set PATH=VALUE       a --set for the commands that follow; "set" alone clears them
//	simulate ARGS        edgetwin simulate --soc … --set … ARGS, its table
//	sweep ARGS           edgetwin sweep --soc … --set … ARGS, its table
//	print KEY…           figures of the last simulate, from its JSON (turns.0.total_s indexes a list)
//	session ARGS         starts a session (simulate ARGS) at time 0 (no output)
//	advance DURATION     runs the session DURATION further and prints where it stands:
//	                     its clocks, skin temperature and last step
//	holds FILE           the last output appears verbatim in FILE (repository path; no output)
//
// A command that fails prints "exit N" and its message.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario scripts: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runScript(t, f) })
	}
}

// step is one command of a script and the output written beside it.
type step struct {
	line     int      // of the command, 1-based
	comments []string // the comment lines before it
	cmd      string
	want     string
}

// parseScript reads a script's steps, and the comments after its last.
func parseScript(data string) (steps []step, tail []string, err error) {
	var cur *step
	var out []string
	flush := func() {
		if cur != nil {
			cur.want = strings.TrimRight(strings.Join(out, "\n"), "\n ")
			steps = append(steps, *cur)
		}
		cur, out = nil, nil
	}
	for i, l := range strings.Split(data, "\n") {
		switch {
		case strings.HasPrefix(l, "# ") || l == "#":
			flush()
			tail = append(tail, l)
		case strings.HasPrefix(l, "> "):
			flush()
			cur = &step{line: i + 1, comments: tail, cmd: strings.TrimSpace(l[2:])}
			tail = nil
		case cur != nil:
			out = append(out, l)
		case strings.TrimSpace(l) != "":
			return nil, nil, fmt.Errorf("line %d: %q is neither a command (\"> \"), a comment (\"# \") nor a command's output", i+1, l)
		}
	}
	flush()
	return steps, tail, nil
}

// script is a script's running state.
type script struct {
	t       *testing.T
	soc     string
	sets    []string
	last    []string // the last simulate's arguments, for print
	lastOut string
	session []string // the session's simulate arguments
	at      time.Duration
}

func runScript(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	steps, tail, err := parseScript(string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	s := &script{t: t, soc: "snapdragon-8-elite"}
	var b strings.Builder
	for _, st := range steps {
		got := s.do(path, st)
		for _, c := range st.comments {
			b.WriteString(c + "\n")
		}
		b.WriteString("> " + st.cmd + "\n")
		if got != "" {
			b.WriteString(got + "\n")
		}
		b.WriteString("\n")
		if !*rewriteScripts && got != st.want {
			t.Errorf("%s:%d: > %s\nprints\n%s\nthe script says\n%s", path, st.line, st.cmd, got, st.want)
		}
	}
	for _, c := range tail {
		b.WriteString(c + "\n")
	}
	if *rewriteScripts {
		if err := os.WriteFile(path, []byte(strings.TrimRight(b.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// do runs one command and returns what it prints.
func (s *script) do(path string, st step) string {
	t := s.t
	name, rest, _ := strings.Cut(st.cmd, " ")
	args, err := splitWords(rest)
	if err != nil {
		t.Fatalf("%s:%d: %v", path, st.line, err)
	}
	switch name {
	case "soc":
		if len(args) != 1 {
			t.Fatalf("%s:%d: soc takes one chip", path, st.line)
		}
		s.soc = args[0]
		return ""
	case "set":
		if len(args) == 0 {
			s.sets = nil
		}
		s.sets = append(s.sets, args...)
		return ""
	case "simulate", "sweep":
		s.lastOut = s.cli(name, args)
		if name == "simulate" {
			s.last = args
		}
		return s.lastOut
	case "print":
		return s.print(path, st.line, args)
	case "session":
		s.session, s.at = args, 0
		return ""
	case "advance":
		d, err := time.ParseDuration(rest)
		if err != nil || d <= 0 || s.session == nil {
			t.Fatalf("%s:%d: advance takes a positive duration after a session (%v)", path, st.line, err)
		}
		s.at += d
		s.lastOut = s.advance(path, st.line)
		return s.lastOut
	case "holds":
		doc, err := os.ReadFile(filepath.Join("..", "..", rest))
		if err != nil {
			t.Fatalf("%s:%d: %v", path, st.line, err)
		}
		if !strings.Contains(string(doc), s.lastOut) {
			t.Errorf("%s:%d: %s does not hold the output above it:\n%s", path, st.line, rest, s.lastOut)
		}
		return ""
	}
	t.Fatalf("%s:%d: unknown command %q (soc, set, simulate, sweep, print, session, advance, holds)", path, st.line, name)
	return ""
}

// cli runs edgetwin CMD with the script's chip and sets and returns its
// output, or its exit code and message when it fails.
func (s *script) cli(cmd string, args []string) string {
	full := []string{cmd, "--soc", s.soc}
	for _, v := range s.sets {
		full = append(full, "--set", v)
	}
	code, out, errs := edgetwin(append(full, args...)...)
	if code != 0 {
		return strings.TrimRight(fmt.Sprintf("exit %d\n%s", code, errs), "\n")
	}
	return strings.TrimRight(out, "\n")
}

// print gives figures of the last simulate by their result keys.
func (s *script) print(path string, line int, keys []string) string {
	t := s.t
	if s.last == nil {
		t.Fatalf("%s:%d: print needs a simulate before it", path, line)
	}
	out := s.cli("simulate", append(append([]string{}, s.last...), "--format", "json"))
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%s:%d: %v", path, line, err)
	}
	var b strings.Builder
	for _, k := range keys {
		var v any = doc
		for _, part := range strings.Split(k, ".") {
			switch c := v.(type) {
			case map[string]any:
				v = c[part]
			case []any: // turns.13.total_s: the fourteenth turn's
				i, err := strconv.Atoi(part)
				if err != nil || i < 0 || i >= len(c) {
					t.Fatalf("%s:%d: %s: no element %q", path, line, k, part)
				}
				v = c[i]
			default:
				v = nil
			}
		}
		switch x := v.(type) {
		case float64:
			fmt.Fprintf(&b, "%s %s\n", k, strconv.FormatFloat(x, 'g', 4, 64))
		case nil:
			fmt.Fprintf(&b, "%s null\n", k)
		default:
			fmt.Fprintf(&b, "%s %v\n", k, x)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// advance runs the session to s.at and prints its last step: when it
// ended, the units' clocks, the skin temperature and the step's latency.
func (s *script) advance(path string, line int) string {
	t := s.t
	series := filepath.Join(t.TempDir(), "series.csv")
	args := append(append([]string{}, s.session...), "--duration", s.at.String(), "--series", series)
	if out := s.cli("simulate", args); strings.HasPrefix(out, "exit ") {
		return out
	}
	f, err := os.Open(series)
	if err != nil {
		t.Fatalf("%s:%d: %v", path, line, err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s:%d: series: %v (%d rows)", path, line, err, len(rows))
	}
	head, last := rows[0], rows[len(rows)-1]
	col := func(name string) string {
		for i, h := range head {
			if h == name {
				return last[i]
			}
		}
		return ""
	}
	num := func(v string, digits int) string {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return v
		}
		return strconv.FormatFloat(x, 'f', digits, 64)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "at %s s, %s step %s ms", num(col("end_s"), 1), col("phase"), num(col("latency_ms"), 1))
	for _, h := range head {
		if u, ok := strings.CutPrefix(h, "clock_"); ok {
			fmt.Fprintf(&b, " · %s %s GHz", strings.TrimSuffix(u, "_ghz"), num(col(h), 3))
		}
	}
	fmt.Fprintf(&b, " · skin %s °C · %s W", num(col("temp_skin_c"), 1), num(col("power_w"), 2))
	return b.String()
}
