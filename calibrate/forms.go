package calibrate

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// The parsers below turn each form of llama-bench output into benchRows
// keyed by llama-bench's field names, plus skips for what is not a row.
// They never fail: what they cannot read becomes a skip with its line.

// fromJSONObject converts a decoded llama-bench JSON object to a row.
func fromJSONObject(obj map[string]any, row, line int) benchRow {
	r := benchRow{row: row, line: line, f: make(map[string]string, len(obj))}
	for k, v := range obj {
		switch v := v.(type) {
		case string:
			r.f[k] = v
		case json.Number:
			r.f[k] = v.String()
		case bool:
			r.f[k] = strconv.FormatBool(v)
		case []any:
			if k == "samples_ts" || (k == "samples_ns" && r.samples == 0) {
				r.samples = len(v)
			}
		}
	}
	return r
}

// skipSpace returns the offset of the first byte at or after off that is
// not white space or a comma.
func skipSpace(text []byte, off int) int {
	for off < len(text) {
		switch text[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
		default:
			return off
		}
	}
	return off
}

// parseJSONArray reads llama-bench -o json: an array of objects. A file cut
// short keeps the rows before the cut.
func parseJSONArray(name string, text []byte) ([]benchRow, []Skip) {
	li := newLineIndex(text)
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // the '['
		return nil, []Skip{{File: name, Line: 1, Reason: "not a JSON array: " + jsonErrText(text, err)}}
	}
	var rows []benchRow
	var skips []Skip
	row := 0
	for dec.More() {
		start := skipSpace(text, int(dec.InputOffset()))
		row++
		line := li.line(start)
		var v any
		if err := dec.Decode(&v); err != nil {
			skips = append(skips, Skip{File: name, Row: row, Line: line, Reason: "JSON syntax error: " + jsonErrText(text[start:], err) + "; no rows after it read"})
			return rows, skips
		}
		obj, ok := v.(map[string]any)
		if !ok {
			skips = append(skips, Skip{File: name, Row: row, Line: line, Reason: "a llama-bench result is a JSON object, not " + jsonKind(v)})
			continue
		}
		rows = append(rows, fromJSONObject(obj, row, line))
	}
	if _, err := dec.Token(); err != nil { // the ']'
		end := skipSpace(text, int(dec.InputOffset()))
		skips = append(skips, Skip{File: name, Line: li.line(end), Reason: "the JSON array is not closed (file cut short?): " + jsonErrText(text, err) + "; the rows before it were read"})
	} else if tail := skipSpace(text, int(dec.InputOffset())); tail < len(text) {
		skips = append(skips, Skip{File: name, Line: li.line(tail), Reason: "text after the JSON array ignored"})
	}
	return rows, skips
}

// parseJSONLines reads llama-bench -o jsonl: one object a line. It also
// takes objects spread over several lines, one after another. After a line
// that is not JSON it goes on at the next line.
func parseJSONLines(name string, text []byte) ([]benchRow, []Skip) {
	li := newLineIndex(text)
	var rows []benchRow
	var skips []Skip
	row := 0
	for pos := skipSpace(text, 0); pos < len(text); pos = skipSpace(text, pos) {
		row++
		line := li.line(pos)
		dec := json.NewDecoder(bytes.NewReader(text[pos:]))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			reason := "not a JSON object: " + jsonErrText(text[pos:], err)
			if text[pos] != '{' {
				reason = fmt.Sprintf("not a JSON object: the line starts with %q, not {", firstRune(text[pos:]))
			}
			skips = append(skips, Skip{File: name, Row: row, Line: line, Reason: reason})
			nl := bytes.IndexByte(text[pos:], '\n')
			if nl < 0 {
				break
			}
			pos += nl + 1
			continue
		}
		pos += int(dec.InputOffset())
		obj, ok := v.(map[string]any)
		if !ok {
			skips = append(skips, Skip{File: name, Row: row, Line: line, Reason: "a llama-bench result is a JSON object, not " + jsonKind(v)})
			continue
		}
		rows = append(rows, fromJSONObject(obj, row, line))
	}
	return rows, skips
}

// parseCSV reads llama-bench -o csv: a header of field names, then one
// quoted record a result.
func parseCSV(name string, text []byte) ([]benchRow, []Skip) {
	cr := csv.NewReader(bytes.NewReader(text))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.TrimLeadingSpace = true
	var header []string
	var rows []benchRow
	var skips []Skip
	row := 0
	for {
		before := cr.InputOffset()
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			if header != nil {
				row++
			}
			skips = append(skips, Skip{File: name, Row: row, Line: line, Reason: "not a CSV record: " + spec.OneLine(err.Error())})
			if cr.InputOffset() == before {
				break
			}
			continue
		}
		line, _ := cr.FieldPos(0)
		if header == nil {
			header = make([]string, len(rec))
			for i, h := range rec {
				header[i] = strings.ToLower(strings.TrimSpace(h))
			}
			continue
		}
		row++
		if len(rec) != len(header) {
			skips = append(skips, Skip{File: name, Row: row, Line: line, Reason: fmt.Sprintf("has %d fields, the header has %d", len(rec), len(header))})
			continue
		}
		r := benchRow{row: row, line: line, f: make(map[string]string, len(rec))}
		for i, v := range rec {
			if _, dup := r.f[header[i]]; !dup {
				r.f[header[i]] = v
			}
		}
		rows = append(rows, r)
	}
	return rows, skips
}

// markdownCells splits a table line "| a | b |" into its trimmed cells.
func markdownCells(line string) ([]string, bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") {
		return nil, false
	}
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	cells := strings.Split(line, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells, true
}

// markdownHeader recognises the header of llama-bench's table: a table
// line with test and t/s columns. It returns the lower-cased cells.
func markdownHeader(line string) ([]string, bool) {
	cells, ok := markdownCells(line)
	if !ok {
		return nil, false
	}
	hasTest, hasRate := false, false
	for i, c := range cells {
		c = strings.ToLower(c)
		cells[i] = c
		hasTest = hasTest || c == "test"
		hasRate = hasRate || c == "t/s"
	}
	return cells, hasTest && hasRate
}

func isSeparator(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":- ") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return len(cells) > 0
}

// markdownColumns maps llama-bench's Markdown headers to its field names.
var markdownColumns = map[string]string{
	"model":    "model_type",
	"size":     "model_size",
	"params":   "model_n_params",
	"backend":  "backends",
	"threads":  "n_threads",
	"ngl":      "n_gpu_layers",
	"fa":       "flash_attn",
	"type_k":   "type_k",
	"type_v":   "type_v",
	"n_batch":  "n_batch",
	"n_ubatch": "n_ubatch",
}

// parseMarkdown reads llama-bench -o md: one or more tables whose header has
// test and t/s, and the "build: <commit> (<number>)" line it prints after.
func parseMarkdown(name string, text []byte) ([]benchRow, []Skip) {
	var commit, number string
	lines := strings.Split(string(text), "\n")
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "build: "); ok {
			c, n, _ := strings.Cut(rest, " ")
			commit = c
			number = strings.Trim(strings.TrimSpace(n), "()")
		}
	}
	var rows []benchRow
	var skips []Skip
	var header []string
	row := 0
	for i, l := range lines {
		line := i + 1
		if h, ok := markdownHeader(l); ok {
			header = h
			continue
		}
		cells, ok := markdownCells(l)
		if !ok {
			header = nil // the table ended
			continue
		}
		if header == nil || isSeparator(cells) {
			continue
		}
		row++
		if len(cells) != len(header) {
			skips = append(skips, Skip{File: name, Row: row, Line: line, Reason: fmt.Sprintf("has %d cells, the header has %d", len(cells), len(header))})
			continue
		}
		r := benchRow{row: row, line: line, f: map[string]string{}}
		if commit != "" {
			r.f["build_commit"] = commit
			r.f["build_number"] = number
		}
		reason := ""
		for j, h := range header {
			v := cells[j]
			switch h {
			case "test":
				if reason == "" {
					reason = markdownTest(v, r.f)
				}
			case "t/s":
				if reason == "" {
					reason = markdownRate(v, r.f)
				}
			case "size":
				r.f["model_size"] = markdownQuantity(v, map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40})
			case "params":
				r.f["model_n_params"] = markdownQuantity(v, map[string]float64{"": 1, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12})
			default:
				if k, ok := markdownColumns[h]; ok {
					r.f[k] = v
				} else if _, taken := r.f[h]; !taken {
					r.f[h] = v
				}
			}
		}
		if reason != "" {
			skips = append(skips, Skip{File: name, Row: row, Line: line, Reason: reason})
			continue
		}
		rows = append(rows, r)
	}
	return rows, skips
}

// markdownTest reads the test column: pp512, tg128, pp512+tg128, with an
// optional " @ d1024" context depth; older versions print "pp 512".
func markdownTest(v string, f map[string]string) string {
	s := strings.ReplaceAll(v, " ", "")
	if base, d, ok := strings.Cut(s, "@d"); ok {
		if _, err := strconv.ParseUint(d, 10, 31); err != nil {
			return fmt.Sprintf("test %q has a depth that is not a number", v)
		}
		f["n_depth"] = d
		s = base
	}
	prompt, gen := "0", "0"
	for _, part := range strings.Split(s, "+") {
		num := ""
		switch {
		case strings.HasPrefix(part, "pp"):
			num, prompt = part[2:], part[2:]
		case strings.HasPrefix(part, "tg"):
			num, gen = part[2:], part[2:]
		default:
			return fmt.Sprintf("test %q is not ppN, tgN or ppN+tgN", v)
		}
		if _, err := strconv.ParseUint(num, 10, 31); err != nil {
			return fmt.Sprintf("test %q is not ppN, tgN or ppN+tgN", v)
		}
	}
	f["n_prompt"], f["n_gen"] = prompt, gen
	return ""
}

// markdownRate reads the t/s column: "108.21 ± 0.12".
func markdownRate(v string, f map[string]string) string {
	avg, sd, ok := strings.Cut(v, "±")
	if !ok {
		avg, sd, ok = strings.Cut(v, "+/-")
	}
	a, err := strconv.ParseFloat(strings.TrimSpace(avg), 64)
	if err != nil || !finite(a) || a <= 0 {
		return fmt.Sprintf("t/s %q is not a rate like \"108.21 ± 0.12\"", v)
	}
	f["avg_ts"] = strconv.FormatFloat(a, 'g', -1, 64)
	if ok {
		s, err := strconv.ParseFloat(strings.TrimSpace(sd), 64)
		if err != nil || !finite(s) || s < 0 {
			return fmt.Sprintf("t/s %q has a spread that is not a number >= 0", v)
		}
		f["stddev_ts"] = strconv.FormatFloat(s, 'g', -1, 64)
	}
	return ""
}

// markdownQuantity turns "3.56 GiB" or "6.74 B" into a whole number as
// text; what it cannot read is returned as it is, for the mapper to note.
func markdownQuantity(v string, scale map[string]float64) string {
	num, unit, _ := strings.Cut(strings.TrimSpace(v), " ")
	mult, ok := scale[strings.TrimSpace(unit)]
	x, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || !finite(x) || x < 0 || x*mult > 1<<62 {
		return v
	}
	return strconv.FormatInt(int64(math.Round(x*mult)), 10)
}

func firstRune(b []byte) string {
	r, _ := utf8.DecodeRune(b)
	return string(r)
}
