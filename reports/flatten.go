package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Field is one leaf of a JSON document: its dotted key path and its value
// as JSON text ("null" for a missing figure).
type Field struct {
	Key   string
	Value string
}

// Flatten marshals v to JSON and lists its scalar leaves in document order
// under dotted key paths (decode.ms_per_token.p50). Arrays are left out:
// they are lists (warnings, provenance), not figures.
func Flatten(v any) ([]Field, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []Field
	var walk func(prefix string) error
	walk = func(prefix string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '[' {
				return skip(dec)
			}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key := k.(string)
				if prefix != "" {
					key = prefix + "." + key
				}
				if err := walk(key); err != nil {
					return err
				}
			}
			_, err = dec.Token() // '}'
			return err
		case nil:
			out = append(out, Field{prefix, "null"})
		case string:
			out = append(out, Field{prefix, strconv.Quote(t)})
		default:
			out = append(out, Field{prefix, fmt.Sprint(t)})
		}
		return nil
	}
	if err := walk(""); err != nil {
		return nil, err
	}
	return out, nil
}

// skip consumes the rest of an array whose '[' was just read.
func skip(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '[', '{':
				depth++
			case ']', '}':
				depth--
			}
		}
	}
	return nil
}

// Lookup returns the value at a dotted key path of v's JSON form.
func Lookup(fields []Field, key string) (string, bool) {
	for _, f := range fields {
		if f.Key == key {
			return f.Value, true
		}
	}
	return "", false
}
