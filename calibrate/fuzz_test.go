package calibrate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addSeeds adds the testdata files of the given form, cut to their first
// few lines (the fuzzer minimises every new input it finds, which takes
// long on big ones), and a few edge cases.
func addSeeds(f *testing.F, pattern string, lines int, extra ...string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "llamabench", pattern))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		ls := bytes.SplitAfter(data, []byte("\n"))
		if len(ls) > lines {
			small := bytes.Join(ls[:lines], nil)
			if strings.HasSuffix(p, ".json") {
				small = append(bytes.TrimRight(small, ",\n"), "\n]\n"...)
			}
			f.Add(small)
			f.Add(small[:len(small)*2/3]) // cut short
		} else {
			f.Add(data)
		}
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// checkImport holds for any input: no panic (the fuzzer checks that), a
// one-line error naming the file and nothing else, or records that are
// valid and survive a write and read, and skips with one-line reasons.
func checkImport(t *testing.T, name string, recs []Record, skips []Skip, err error) {
	t.Helper()
	if err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, name+": ") || strings.ContainsAny(msg, "\r\n") {
			t.Fatalf("error not one line naming the file: %q", msg)
		}
		if recs != nil || skips != nil {
			t.Fatalf("error %q with %d records and %d skips", msg, len(recs), len(skips))
		}
		return
	}
	for _, s := range skips {
		if s.File != name || s.Reason == "" || strings.ContainsAny(s.Reason, "\r\n") || s.Row < 0 || s.Line < 0 {
			t.Fatalf("bad skip %+v", s)
		}
	}
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, r := range recs {
		if !strings.HasPrefix(r.Source, name+":") {
			t.Fatalf("source %q", r.Source)
		}
		if err := w.Write(r); err != nil {
			t.Fatalf("imported record is not valid: %v\n%+v", err, r)
		}
	}
	back, warns, err := Read(bytes.NewReader(b.Bytes()), "out.jsonl")
	if err != nil || len(warns) != 0 || len(back) != len(recs) {
		t.Fatalf("written records do not read back: %v %v (%d of %d)", err, warns, len(back), len(recs))
	}
	if s := ImportCommandSummary(recs, skips); s == "" {
		t.Fatal("empty summary")
	}
}

var fuzzOpts = ImportOptions{SoC: "apple-m2"}

// fuzzForm runs Import on data, and the form's parser on it directly
// whatever Import detects.
func fuzzForm(t *testing.T, name string, data []byte, parse func(string, []byte) ([]benchRow, []Skip)) {
	recs, skips, err := Import(name, data, fuzzOpts)
	checkImport(t, name, recs, skips, err)
	text, err := decodeText(name, data)
	if err != nil {
		return
	}
	m, err := newMapper(name, fuzzOpts)
	if err != nil {
		t.Fatal(err)
	}
	rows, pskips := parse(name, text)
	recs, skips, err = m.mapRows(rows, pskips)
	checkImport(t, name, recs, skips, err)
}

func FuzzImportJSON(f *testing.F) {
	addSeeds(f, "*.json", 26, `[]`, `[1, "a", null, {}]`, `[{"n_prompt":512,"n_gen":0,"avg_ts":1e308,"model_type":"x 1B Q4_0","model_n_params":1235814400}]`, `[{"n_prompt":-1}] trailing`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzForm(t, "f.json", data, parseJSONArray) })
}

func FuzzImportJSONL(f *testing.F) {
	addSeeds(f, "*.jsonl", 3, "{}\n{\"n_gen\":\"128\",\"avg_ns\":\"1\"}\n", `{"a":[1,2,{"b":null}]}{"c":1}`, "{\n\"n_prompt\": 512\n}\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzForm(t, "f.jsonl", data, parseJSONLines) })
}

func FuzzImportCSV(f *testing.F) {
	addSeeds(f, "*.csv", 4, "n_prompt,n_gen,avg_ts\n512,0,1.5\n0,128,\"2\"\"\"\n", "avg_ts\n\"unterminated\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzForm(t, "f.csv", data, parseCSV) })
}

func FuzzImportMarkdown(f *testing.F) {
	addSeeds(f, "*.md", 8, "| test | t/s |\n|---|---|\n| pp512 @ d9 | 1 ± 2 |\n| tg0 | 1 |\n", "|test|t/s|model|params|size|\n|tg1|1e400|llama 1B F16|1.24 B|1 TiB|\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzForm(t, "f.md", data, parseMarkdown) })
}

func FuzzReadRecords(f *testing.F) {
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, r := range sampleRecords() {
		w.Write(r)
	}
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:b.Len()-20])
	f.Add([]byte(`{"kind":"decode","conditions":{"clocks":{}},"shape":{"gen":1e9}}` + "\n"))
	f.Add([]byte("\n\n{}\n[]\nnull"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, warns, err := Read(bytes.NewReader(data), "f.jsonl")
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "f.jsonl:") || strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("error not one line naming the file: %q", msg)
			}
			return
		}
		if len(warns) > 1 {
			t.Fatalf("warnings %v", warns)
		}
		// What was read writes and reads back to the same bytes.
		var w1, w2 bytes.Buffer
		for _, r := range recs {
			if err := NewWriter(&w1).Write(r); err != nil {
				t.Fatalf("record read is not valid: %v", err)
			}
		}
		again, warns, err := Read(bytes.NewReader(w1.Bytes()), "again.jsonl")
		if err != nil || len(warns) != 0 || len(again) != len(recs) {
			t.Fatalf("rewrite does not read: %v %v", err, warns)
		}
		for _, r := range again {
			NewWriter(&w2).Write(r)
		}
		if !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("not stable:\n%s\n%s", w1.Bytes(), w2.Bytes())
		}
	})
}
