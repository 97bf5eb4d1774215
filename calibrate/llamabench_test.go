package calibrate

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
)

var m2 = ImportOptions{SoC: "apple-m2"}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "llamabench", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func importFile(t *testing.T, name string, opts ImportOptions) ([]Record, []Skip) {
	t.Helper()
	recs, skips, err := Import(name, readTestdata(t, name), opts)
	if err != nil {
		t.Fatalf("Import(%s): %v", name, err)
	}
	return recs, skips
}

func ptr[T any](v T) *T { return &v }

// The rows of testdata/llamabench/m2.json are rows 48-53 of
// /work/shared/data/llamacpp-apple-m1-m2.json (Apple M2, 10-core GPU), as
// the llama.cpp discussion 4167 gives them; the other m2.* files hold the
// same rows in llama-bench's JSONL, CSV and Markdown forms.
func TestImportMapsLlamaBenchRows(t *testing.T) {
	recs, skips := importFile(t, "m2.json", m2)
	if len(skips) != 0 {
		t.Fatalf("skips: %v", skips)
	}
	want0 := Record{
		Kind: KindPrefill, SoC: "apple-m2", Device: "Apple M2; Apple M2 (10-core GPU)",
		Model: "llama-2-7b", Quant: "F16", ModelSize: 13478395904, ModelParams: 6738415616, KVDtype: "F16",
		Shape: Shape{Prompt: 512, Batch: 1}, Threads: 8, Backend: "Metal,BLAS", NGPULayers: ptr(99),
		Value: 201.34, Unit: "tokens/s",
		Conditions: Conditions{ToolVersion: "llama-bench b1", Build: "8e672efe"},
		Source:     "m2.json:2",
	}
	if !reflect.DeepEqual(recs[0], want0) {
		t.Errorf("first record\n got %+v\nwant %+v", recs[0], want0)
	}
	want := []struct {
		kind   Kind
		quant  string
		value  float64
		prompt int
		gen    int
	}{
		{KindPrefill, "F16", 201.34, 512, 0},
		{KindDecode, "F16", 6.72, 0, 128},
		{KindPrefill, "Q8_0", 181.4, 512, 0},
		{KindDecode, "Q8_0", 12.21, 0, 128},
		{KindPrefill, "Q4_0", 179.57, 512, 0},
		{KindDecode, "Q4_0", 21.91, 0, 128},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		r := recs[i]
		if r.Kind != w.kind || r.Quant != w.quant || r.Value != w.value || r.Shape.Prompt != w.prompt || r.Shape.Gen != w.gen || r.Model != "llama-2-7b" {
			t.Errorf("record %d: %s %s %s %v pp%d tg%d, want %s llama-2-7b %s %v pp%d tg%d",
				i, r.Kind, r.Model, r.Quant, r.Value, r.Shape.Prompt, r.Shape.Gen, w.kind, w.quant, w.value, w.prompt, w.gen)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("record %d: %v", i, err)
		}
	}
}

// withoutSource is r as any form gives it: the source names the file.
func withoutSource(r Record) Record {
	r.Source = ""
	return r
}

func TestImportFormsAgree(t *testing.T) {
	ref, _ := importFile(t, "m2.json", m2)
	for _, name := range []string{"m2.jsonl", "m2.csv"} {
		recs, skips := importFile(t, name, m2)
		if len(skips) != 0 {
			t.Errorf("%s: skips %v", name, skips)
		}
		if len(recs) != len(ref) {
			t.Fatalf("%s: %d records, want %d", name, len(recs), len(ref))
		}
		for i := range recs {
			if !strings.HasPrefix(recs[i].Source, name+":") {
				t.Errorf("%s: source %q", name, recs[i].Source)
			}
			if !reflect.DeepEqual(withoutSource(recs[i]), withoutSource(ref[i])) {
				t.Errorf("%s record %d\n got %+v\nwant %+v", name, i, recs[i], ref[i])
			}
		}
	}

	// The Markdown table carries less: no device, no KV type (llama-bench
	// prints it only when not the default), size and parameters rounded.
	recs, skips := importFile(t, "m2.md", m2)
	if len(skips) != 0 || len(recs) != len(ref) {
		t.Fatalf("m2.md: %d records, skips %v", len(recs), skips)
	}
	for i := range recs {
		got, want := withoutSource(recs[i]), withoutSource(ref[i])
		for _, f := range []struct {
			name      string
			got, want int64
		}{{"model_size", got.ModelSize, want.ModelSize}, {"model_params", got.ModelParams, want.ModelParams}} {
			if math.Abs(float64(f.got-f.want)) > 0.005*float64(f.want) {
				t.Errorf("m2.md record %d: %s %d, want %d within 0.5%%", i, f.name, f.got, f.want)
			}
		}
		want.Device, want.KVDtype = "", ""
		got.ModelSize, got.ModelParams = want.ModelSize, want.ModelParams
		if !reflect.DeepEqual(got, want) {
			t.Errorf("m2.md record %d\n got %+v\nwant %+v", i, got, want)
		}
	}
}

func TestImportSkipReasons(t *testing.T) {
	recs, skips := importFile(t, "skips.jsonl", m2)
	want := []struct {
		row    int
		reason string
	}{
		{1, "mixed pp+tg test: edgetwin needs them separate"},
		{2, "no catalog model with 13015864320 parameters (within 1%); give the model"},
		{4, "n_prompt and n_gen are both 0"},
		{5, `not a JSON object: the line starts with "n", not {`},
		{7, "avg_ts 0 is not a rate > 0"},
		{8, "not a JSON object"},
	}
	if len(skips) != len(want) {
		t.Fatalf("skips %v, want %d", skips, len(want))
	}
	for i, w := range want {
		s := skips[i]
		if s.Row != w.row || s.Line != w.row || s.File != "skips.jsonl" || !strings.HasPrefix(s.Reason, w.reason) {
			t.Errorf("skip %d: %v, want row %d: %s", i, s, w.row, w.reason)
		}
	}
	// Row 3 is Qwen2.5 7B Q4_K_M, whose model_size is what edgetwin
	// computes for it.
	if len(recs) != 2 {
		t.Fatalf("records %+v", recs)
	}
	if r := recs[0]; r.Model != "qwen2.5-7b" || r.Quant != "Q4_K_M" || r.Kind != KindDecode || r.ModelSize != 4677120000 || r.Source != "skips.jsonl:3" {
		t.Errorf("row 3: %+v", r)
	}
	// Row 6 is a newer llama-bench's: depth, samples, test time, KV type.
	r := recs[1]
	if r.Model != "llama-3.2-1b" || r.Quant != "Q8_0" || r.Kind != KindPrefill || r.Shape != (Shape{Prompt: 512, Depth: 1024, Batch: 1}) ||
		r.Reps != 3 || r.Stddev != 1 || r.KVDtype != "Q8_0" || r.Time != "2025-03-01T10:00:00Z" || r.Notes != "flash_attn on" || r.Source != "skips.jsonl:6" {
		t.Errorf("row 6: %+v", r)
	}
	got := ImportCommandSummary(recs, skips)
	if !strings.HasPrefix(got, "8 rows → 1 prefill, 1 decode records; 6 rows skipped:\n  row 1 (skips.jsonl:1): mixed pp+tg test") {
		t.Errorf("summary:\n%s", got)
	}
}

func TestImportOldForms(t *testing.T) {
	recs, skips := importFile(t, "old.md", m2)
	if len(recs) != 3 || recs[0].Kind != KindPrefill || recs[1].Kind != KindDecode || recs[2].Shape.Depth != 4096 {
		t.Errorf("old.md records %+v", recs)
	}
	for _, r := range recs {
		if r.Quant != "Q4_0" || r.Model != "llama-2-7b" || r.Backend != "CUDA" || r.Conditions.Build != "3469684" || r.Conditions.ToolVersion != "llama-bench b1275" {
			t.Errorf("old.md record %+v", r)
		}
	}
	wantSkips := []string{
		"row 3 (old.md:8): mixed pp+tg test",
		`row 5 (old.md:10): t/s "fast" is not a rate`,
		"row 6 (old.md:11): has 5 cells, the header has 7",
	}
	checkSkips(t, "old.md", skips, wantSkips)

	recs, skips = importFile(t, "old.csv", m2)
	if len(recs) != 2 || recs[0].Backend != "CUDA,BLAS" || recs[0].KVDtype != "F16" || recs[0].Time != "2023-09-24T08:00:01Z" || recs[1].Stddev != 0.6019 {
		t.Errorf("old.csv records %+v", recs)
	}
	checkSkips(t, "old.csv", skips, []string{
		"row 3 (old.csv:4): no avg_ts (or avg_ns)",
		"row 4 (old.csv:5): has 13 fields, the header has 26",
	})
}

func checkSkips(t *testing.T, name string, skips []Skip, want []string) {
	t.Helper()
	if len(skips) != len(want) {
		t.Errorf("%s: skips %v, want %q", name, skips, want)
		return
	}
	for i, w := range want {
		if !strings.HasPrefix(skips[i].String(), w) {
			t.Errorf("%s skip %d: %q, want %q…", name, i, skips[i], w)
		}
	}
}

func TestImportOverrides(t *testing.T) {
	recs, skips := importFile(t, "m2.json", ImportOptions{SoC: "my-m2.yaml", SoCDigest: Digest([]byte("chip")), Models: []ModelRef{{Ref: "llama-2-7b"}}, Quant: "q4_0"})
	if len(recs) != 6 || len(skips) != 0 {
		t.Fatalf("%d records, skips %v", len(recs), skips)
	}
	for _, r := range recs {
		if r.Quant != "Q4_0" || r.Model != "llama-2-7b" || r.SoC != "my-m2.yaml" || r.SoCDigest != Digest([]byte("chip")) {
			t.Errorf("override not applied: %+v", r)
		}
	}

	// A model file with no known size takes every row.
	recs, _ = importFile(t, "skips.jsonl", ImportOptions{SoC: "apple-m2", Models: []ModelRef{{Ref: "llama-2-13b.yaml"}}, Quant: "Q4_0"})
	if len(recs) != 3 || recs[0].Model != "llama-2-13b.yaml" || recs[2].Model != "llama-2-13b.yaml" {
		t.Errorf("model file: %+v", recs)
	}

	// A model of another size does not take rows it cannot be.
	recs, skips = importFile(t, "m2.json", ImportOptions{SoC: "apple-m2", Models: []ModelRef{{Ref: "llama-3.2-1b"}}})
	if len(recs) != 0 || len(skips) != 6 {
		t.Fatalf("%d records, %d skips", len(recs), len(skips))
	}
	if want := "model_n_params 6738415616 is not the 1235814400 parameters of the model given, llama-3.2-1b (more than 1% apart)"; skips[0].Reason != want {
		t.Errorf("reason %q, want %q", skips[0].Reason, want)
	}
	recs, _ = importFile(t, "skips.jsonl", ImportOptions{SoC: "apple-m2", Models: []ModelRef{{Ref: "llama-2-13b.yaml", Params: 13015864320}}, Quant: "Q4_0"})
	if len(recs) != 1 || recs[0].Kind != KindDecode || recs[0].Value != 12.1 {
		t.Errorf("model file with parameters: %+v", recs)
	}

	// Of several models, each row takes the one its parameter count
	// matches; a row matching none is skipped, naming them.
	several := []ModelRef{{Ref: "llama-3.2-1b"}, {Ref: "big.yaml", Params: 6738415616}, {Ref: "llama-3.2-3b"}}
	recs, skips = importFile(t, "m2.json", ImportOptions{SoC: "apple-m2", Models: several})
	if len(recs) != 6 || len(skips) != 0 || recs[0].Model != "big.yaml" || recs[5].Model != "big.yaml" {
		t.Errorf("several models: %d records (first %q), skips %v", len(recs), recs[0].Model, skips)
	}
	recs, skips = importFile(t, "m2.json", ImportOptions{SoC: "apple-m2", Models: several[:1]})
	if len(recs) != 0 || len(skips) != 6 {
		t.Fatalf("%d records, %d skips", len(recs), len(skips))
	}
	recs, skips = importFile(t, "m2.json", ImportOptions{SoC: "apple-m2", Models: []ModelRef{several[0], several[2]}})
	if want := "model_n_params 6738415616 is within 1% of none of the given models: llama-3.2-1b (1235814400), llama-3.2-3b (3212749824)"; len(recs) != 0 || len(skips) != 6 || skips[0].Reason != want {
		t.Errorf("%d records; reason %q, want %q", len(recs), skips[0].Reason, want)
	}
	if _, _, err := Import("m2.json", nil, ImportOptions{SoC: "apple-m2", Models: []ModelRef{several[0], {Ref: "unknown.yaml"}}}); err == nil || !strings.Contains(err.Error(), "unknown.yaml: its parameter count is not known") {
		t.Errorf("several models, one of unknown size: %v", err)
	}
}

// K-quant files import under the file type's name: llama-bench prints
// llama.cpp's name for it ("Q4_K - Medium") in model_type. A type edgetwin
// does not model is still a skip.
func TestImportKQuantRows(t *testing.T) {
	md := `| model                          |       size |     params | backend    | ngl |          test |                  t/s |
| ------------------------------ | ---------: | ---------: | ---------- | --: | ------------: | -------------------: |
| llama 7B Q4_K - Medium         |   3.80 GiB |     6.74 B | Metal,BLAS |  99 |         tg128 |         20.00 ± 0.10 |
| llama 7B Q3_K - Large          |   3.35 GiB |     6.74 B | Metal,BLAS |  99 |         tg128 |         19.00 ± 0.10 |
| llama 7B IQ2_XXS - 2.0625 bpw  |   1.73 GiB |     6.74 B | Metal,BLAS |  99 |         tg128 |         25.00 ± 0.10 |
`
	recs, skips, err := Import("k.md", []byte(md), m2)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Quant != "Q4_K_M" || recs[0].Model != "llama-2-7b" || recs[0].Kind != KindDecode || recs[1].Quant != "Q3_K_L" {
		t.Errorf("records %+v", recs)
	}
	if want := `quant "IQ2_XXS - 2.0625 bpw" (from model_type "llama 7B IQ2_XXS - 2.0625 bpw") is not one edgetwin models`; len(skips) != 1 || !strings.HasPrefix(skips[0].Reason, want) {
		t.Errorf("skips %v, want one: %s", skips, want)
	}
}

func TestImportErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty.json", nil, "empty.json: empty; expected llama-bench output as JSON (-o json), JSON Lines (-o jsonl), CSV (-o csv) or its Markdown table (-o md)"},
		{"blank.md", []byte(" \n\t\n"), "blank.md: empty; expected llama-bench output"},
		{"bench.gz", []byte{0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00}, "bench.gz: not text (binary data); expected llama-bench output"},
		{"latin1.txt", []byte("caf\xe9\n"), "latin1.txt: not text (binary data)"},
		{"notes.txt", []byte("hello\nworld\n"), "notes.txt: not llama-bench output; expected llama-bench output as JSON (-o json)"},
		{"other.csv", []byte("a,b,c\n1,2,3\n"), "other.csv: not llama-bench output"},
		{"table.md", []byte("| a | b |\n|---|---|\n| 1 | 2 |\n"), "table.md: not llama-bench output"},
	} {
		_, _, err := Import(tc.name, tc.data, m2)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want %q…", tc.name, err, tc.want)
		}
	}
	data := readTestdata(t, "m2.json")
	for _, tc := range []struct {
		opts ImportOptions
		want string
	}{
		{ImportOptions{}, "soc is not given: the records of m2.json need the chip"},
		{ImportOptions{SoC: "x.yaml", SoCDigest: "abc"}, `m2.json: chip digest: "abc" is not a digest`},
		{ImportOptions{SoC: "apple-m2", Quant: "Q2_K_S"}, `quant: "Q2_K_S" is not a quantisation`},
	} {
		_, _, err := Import("m2.json", data, tc.opts)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("opts %+v: error %v, want %q…", tc.opts, err, tc.want)
		}
	}
}

func TestImportEncodings(t *testing.T) {
	ref, _ := importFile(t, "m2.md", m2)
	md := readTestdata(t, "m2.md")
	crlf := bytes.ReplaceAll(md, []byte("\n"), []byte("\r\n"))
	bom := append([]byte{0xEF, 0xBB, 0xBF}, crlf...)
	u := utf16.Encode([]rune(string(crlf)))
	le := []byte{0xFF, 0xFE}
	for _, c := range u {
		le = append(le, byte(c), byte(c>>8))
	}
	for name, data := range map[string][]byte{"crlf": crlf, "utf8-bom": bom, "utf16le": le} {
		recs, skips, err := Import("m2.md", data, m2)
		if err != nil || len(skips) != 0 || !reflect.DeepEqual(recs, ref) {
			t.Errorf("%s: err %v, skips %v, %d records", name, err, skips, len(recs))
		}
	}
}

func TestImportJSONCutShort(t *testing.T) {
	data := readTestdata(t, "m2.json")
	cut := data[:bytes.Index(data, []byte(`"model_type": "llama 7B Q8_0"`))] // inside row 3
	recs, skips, err := Import("cut.json", cut, m2)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || len(skips) != 1 || skips[0].Row != 3 || skips[0].Line != 52 || !strings.Contains(skips[0].Reason, "JSON syntax error") {
		t.Errorf("records %d, skips %v", len(recs), skips)
	}
	// A killed llama-bench leaves complete rows and no closing bracket.
	unclosed := data[:bytes.LastIndex(data, []byte("]"))]
	recs, skips, _ = Import("unclosed.json", unclosed, m2)
	if len(recs) != 6 || len(skips) != 1 || skips[0].Row != 0 || !strings.Contains(skips[0].Reason, "not closed") {
		t.Errorf("records %d, skips %v", len(recs), skips)
	}
	if got := ImportCommandSummary(recs, skips); !strings.HasPrefix(got, "6 rows → 3 prefill, 3 decode records; 1 problem:\n  unclosed.json:") {
		t.Errorf("summary %q", got)
	}
}

func TestDetect(t *testing.T) {
	for name, want := range map[string]Form{"m2.json": FormJSON, "m2.jsonl": FormJSONL, "m2.csv": FormCSV, "m2.md": FormMarkdown, "old.md": FormMarkdown, "old.csv": FormCSV} {
		if got, ok := Detect(readTestdata(t, name)); !ok || got != want {
			t.Errorf("Detect(%s) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := Detect([]byte("nothing")); ok {
		t.Error("Detect(nothing) ok")
	}
}

func TestQuantOf(t *testing.T) {
	for in, want := range map[string]string{
		"llama 7B Q4_0":        "Q4_0",
		"llama 7B mostly Q8_0": "Q8_0",
		"llama 7B all F32":     "F32",
		"llama 7B F16":         "F16",
		"llama 7B BF16":        "BF16",
		"qwen2 ?B Q6_K":        "Q6_K",
		"Q4_0":                 "Q4_0",
		// llama.cpp's names of the K-quant and IQ4 file types.
		"llama 7B Q4_K - Medium":           "Q4_K_M",
		"llama 7B Q4_K - Small":            "Q4_K_S",
		"llama 7B Q5_K - Medium":           "Q5_K_M",
		"llama 7B Q5_K - Small":            "Q5_K_S",
		"llama 7B Q3_K - Large":            "Q3_K_L",
		"llama 7B Q3_K - Medium":           "Q3_K_M",
		"llama 7B Q3_K - Small":            "Q3_K_S",
		"llama 7B Q2_K - Medium":           "Q2_K",
		"llama 8B IQ4_XS - 4.25 bpw":       "IQ4_XS",
		"llama 8B IQ4_NL - 4.5 bpw":        "IQ4_NL",
		"llama 8B Q4_1":                    "Q4_1",
		"llama 7B mostly Q4_K - Medium":    "Q4_K_M",
		"llama 7B Q4_K - Medium (guessed)": "Q4_K_M",
		"qwen2moe 57B.A14B Q4_K - Medium":  "Q4_K_M",
	} {
		if got, err := quantOf(in); err != nil || got != want {
			t.Errorf("quantOf(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "llama 7B Q2_K - Small", "llama 7B IQ2_XXS - 2.0625 bpw", "llama 7B attn=Q8_0", "llama 7B Q4_K_M,attn=Q8_0"} {
		if got, err := quantOf(in); err == nil {
			t.Errorf("quantOf(%q) = %q, want an error", in, got)
		}
	}
}

func TestImportCommandSummary(t *testing.T) {
	rec := func(k Kind) Record { return Record{Kind: k} }
	for _, tc := range []struct {
		recs  []Record
		skips []Skip
		want  string
	}{
		{nil, nil, "0 rows → no records; none skipped"},
		{[]Record{rec(KindDecode)}, nil, "1 row → 1 decode record; none skipped"},
		{[]Record{rec(KindDecode), rec(KindPrefill), rec(KindPrefill)}, []Skip{{File: "b.json", Row: 7, Line: 130, Reason: mixedReason}},
			"4 rows → 2 prefill, 1 decode records; 1 row skipped:\n  row 7 (b.json:130): " + mixedReason},
		{nil, []Skip{{File: "b.csv", Row: 2, Line: 3, Reason: "x"}, {File: "b.csv", Line: 9, Reason: "y"}},
			"1 row → no records; 1 row skipped, 1 other problem:\n  row 2 (b.csv:3): x\n  b.csv:9: y"},
	} {
		if got := ImportCommandSummary(tc.recs, tc.skips); got != tc.want {
			t.Errorf("got\n%s\nwant\n%s", got, tc.want)
		}
	}
	many := make([]Skip, 25)
	for i := range many {
		many[i] = Skip{File: "f", Row: i + 1, Line: i + 1, Reason: "r"}
	}
	got := ImportCommandSummary(nil, many)
	if !strings.HasSuffix(got, "\n  row 20 (f:20): r\n  … and 5 more") || strings.Count(got, "\n") != 21 {
		t.Errorf("long summary:\n%s", got)
	}
}

// The records an import gives are written and read back unchanged.
func TestImportedRecordsRoundTrip(t *testing.T) {
	recs, _ := importFile(t, "skips.jsonl", m2)
	more, _ := importFile(t, "m2.csv", m2)
	recs = append(recs, more...)
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	back, warns, err := Read(&b, "out.jsonl")
	if err != nil || len(warns) != 0 || !reflect.DeepEqual(unlocated(back), recs) {
		t.Fatalf("err %v, warnings %v\n got %+v\nwant %+v", err, warns, back, recs)
	}
	// The JSON keys are the snake_case names of CONTRACT.md.
	var obj map[string]any
	line, _ := marshalLine(recs[1]) // skips.jsonl:6, which has every key
	if err := json.Unmarshal(line, &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"kind", "soc", "model", "quant", "value", "unit", "source", "shape", "n_gpu_layers", "conditions", "stddev", "reps"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("key %s missing from %s", k, line)
		}
	}
}

// The whole public file imports: every row is pp512 or tg128 of Llama 2 7B.
func TestImportSharedData(t *testing.T) {
	const path = "/work/shared/data/llamacpp-apple-m1-m2.json"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	recs, skips, err := Import(filepath.Base(path), data, ImportOptions{SoC: "apple-m2"})
	if err != nil || len(skips) != 0 {
		t.Fatalf("err %v, skips %v", err, skips)
	}
	if got := ImportCommandSummary(recs, skips); got != "90 rows → 45 prefill, 45 decode records; none skipped" {
		t.Errorf("summary %q", got)
	}
	for _, r := range recs {
		if r.Model != "llama-2-7b" || (r.Quant != "F16" && r.Quant != "Q8_0" && r.Quant != "Q4_0") {
			t.Errorf("%s: %s %s", r.Source, r.Model, r.Quant)
		}
	}
}
