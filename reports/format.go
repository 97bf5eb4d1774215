package reports

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// Format is an output format of the CLI.
type Format string

// The formats.
const (
	Table Format = "table"
	JSON  Format = "json"
	CSV   Format = "csv"
)

// ParseFormat reads a --format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Table, JSON, CSV:
		return f, nil
	}
	return "", spec.FieldErrorf("format", "%q is not allowed: use table, json or csv", s)
}

// WriteJSON prints v as indented JSON with a final newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteCSV prints one header row of flattened keys (from the first row)
// and one row per value.
func WriteCSV(w io.Writer, rows ...any) error {
	cw := csv.NewWriter(w)
	for i, row := range rows {
		fields, err := Flatten(row)
		if err != nil {
			return err
		}
		if i == 0 {
			header := make([]string, len(fields))
			for j, f := range fields {
				header[j] = f.Key
			}
			if err := cw.Write(header); err != nil {
				return err
			}
		}
		rec := make([]string, len(fields))
		for j, f := range fields {
			rec[j] = csvValue(f.Value)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvValue unquotes JSON strings and leaves nulls empty.
func csvValue(v string) string {
	if v == "null" {
		return ""
	}
	if s, err := strconv.Unquote(v); err == nil {
		return s
	}
	return v
}
