package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// DuplicateJSONKey finds the first key that an object of the JSON text
// data gives twice, at any depth, which encoding/json would silently
// resolve to the last. It returns an *Error at the repeated key's line
// (counted from line, the line data starts on) naming the first one's
// line, or nil when no key repeats or data is not valid JSON (its syntax
// is the caller's to report). path names the objects: "rope_scaling.type".
func DuplicateJSONKey(file string, line int, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	lineOf := func(off int64) int {
		if off > int64(len(data)) {
			off = int64(len(data))
		}
		return line + bytes.Count(data[:off], []byte{'\n'})
	}
	type frame struct {
		object bool
		seen   map[string]int
		path   string
		key    string // the last key read, while its value is read
		want   bool   // an object expecting a key next
	}
	var stack []*frame
	join := func(a, b string) string {
		if a == "" {
			return b
		}
		return a + "." + b
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		if top != nil && top.object && top.want {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				if n := len(stack); n > 0 && stack[n-1].object {
					stack[n-1].want = true
				}
				continue
			}
			key, _ := tok.(string)
			at := lineOf(dec.InputOffset())
			if first, dup := top.seen[key]; dup {
				return &Error{File: file, Line: at, Path: join(top.path, key), Msg: fmt.Sprintf("duplicate key %q (first at line %d): give each key once", key, first)}
			}
			top.seen[key] = at
			top.key, top.want = key, false
			continue
		}
		// A value: in an object, the one after its key; in an array, an entry.
		path := ""
		if top != nil {
			path = top.path
			if top.object {
				path = join(top.path, top.key)
			}
		}
		switch d, _ := tok.(json.Delim); d {
		case '{':
			stack = append(stack, &frame{object: true, seen: map[string]int{}, path: path, want: true})
			continue
		case '[':
			stack = append(stack, &frame{path: path})
			continue
		case ']':
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].want = true
		}
	}
}

// JSONProblem says in plain words what is wrong with the JSON text data,
// whose decoding failed with err, and at which byte offset of data: the
// slips that Python's json, editors and hand edits make (a byte-order
// mark, a trailing comma, NaN or Infinity, text cut short) by name, the
// decoder's own words otherwise. data is scanned whole, so the offset is
// absolute (a json.Decoder's is relative to the value it was reading);
// it is -1 when data is valid JSON and err names no place.
func JSONProblem(data []byte, err error) (msg string, off int64) {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return "the file starts with a UTF-8 byte-order mark (BOM), which JSON does not allow: save it without one", 0
	}
	var v any
	var se *json.SyntaxError
	if !errors.As(json.Unmarshal(data, &v), &se) {
		return OneLine(strings.TrimPrefix(err.Error(), "json: ")), -1
	}
	if strings.HasPrefix(se.Error(), "unexpected end of JSON input") {
		return "the JSON ends early (cut short, or a bracket left open)", int64(len(data))
	}
	off = min(max(se.Offset-1, 0), int64(len(data)))
	rest := data[off:]
	before := bytes.TrimRight(data[:off], " \t\r\n")
	switch {
	case len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') && bytes.HasSuffix(before, []byte(",")):
		return fmt.Sprintf("a trailing comma before %q, which JSON does not allow: remove it", rest[0]), int64(len(before)) - 1
	case bytes.HasPrefix(rest, []byte("NaN")), bytes.HasPrefix(rest, []byte("Infinity")), bytes.HasPrefix(rest, []byte("-Infinity")):
		n := 1 + bytes.IndexFunc(rest[1:], func(r rune) bool { return !unicode.IsLetter(r) })
		if n == 0 {
			n = len(rest)
		}
		return fmt.Sprintf("%s is not a JSON number (Python's json writes it for a float that is not finite): give a finite number", rest[:n]), off
	}
	return OneLine(se.Error()), off
}
