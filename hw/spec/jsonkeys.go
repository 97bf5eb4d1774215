package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
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
