package calibrate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// sampleRecords covers every field.
func sampleRecords() []Record {
	return []Record{
		{
			Kind: KindBandwidth, SoC: "chips/my-phone.yaml", SoCDigest: Digest([]byte("name: my phone\n")),
			Device: "Pixel 8", Kernel: "stream-read", Shape: Shape{Bytes: 256 << 20}, Threads: 4,
			Value: 51.2e9, Unit: UnitBytesPerSecond, Reps: 10, Stddev: 0.4e9,
			Conditions: Conditions{
				AmbientC: ptr(0.0), StartTempC: ptr(31.5),
				Clocks: map[string]float64{"cpu.big": 3.0e9, "dram": 4.2e9},
				Temps:  map[string]float64{"cpu-thermal": 61.5, "skin": 38},
				OS:     "Android 14", FirmwareDate: "2024-05-05", ToolVersion: "edgetwin probe 0.1", Build: "abc123",
			},
			Source: "probe", Time: "2025-01-02T03:04:05Z", Notes: "screen off <airplane & quiet>",
		},
		{
			Kind: KindGEMM, SoC: "apple-m2", Kernel: "matmul", Shape: Shape{M: 512, N: 4096, K: 4096}, DType: "fp16",
			Backend: "Metal", NGPULayers: ptr(0), Value: 3.1e12, Unit: UnitOpsPerSecond, Source: "probe",
		},
		{
			Kind: KindDecode, SoC: "apple-m2", Model: "llama-2-7b", Quant: "Q4_0", KVDtype: "F16",
			Shape: Shape{Gen: 128, Batch: 1}, Value: 21.91, Unit: UnitTokensPerSecond, Source: "m2.json:127",
		},
	}
}

func TestWriterReaderRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	want := sampleRecords()
	for _, r := range want {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, warns, err := ReadFile(path)
	if err != nil || len(warns) != 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	for i, r := range got {
		if r.Where() != fmt.Sprintf("%s:%d", path, i+1) {
			t.Errorf("record %d is at %s", i, r.Where())
		}
	}
	if got = unlocated(got); !reflect.DeepEqual(got, want) {
		t.Errorf("round trip\n got %+v\nwant %+v", got, want)
	}
	data, _ := os.ReadFile(path)
	if n := bytes.Count(data, []byte("\n")); n != 3 {
		t.Errorf("%d lines, want 3:\n%s", n, data)
	}
	if !bytes.Contains(data, []byte(`"notes":"screen off <airplane & quiet>"`)) || !bytes.Contains(data, []byte(`"clocks":{"cpu.big":3000000000,"dram":4200000000},"temps":{"cpu-thermal":61.5,"skin":38}`)) {
		t.Errorf("unexpected encoding:\n%s", data)
	}
	if err := w.Write(want[0]); err == nil {
		t.Error("write after Close succeeded")
	}
}

// Each record is on disk as soon as Write returns: read it back while the
// writer is still open (from the file beside the target, which stays as
// it was until Close).
func TestWriterFlushesEachRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.jsonl")
	if err := os.WriteFile(path, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	recs := sampleRecords()
	for i, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(path); string(data) != "earlier\n" {
			t.Fatalf("the target changed before Close: %q", data)
		}
		got, warns, err := ReadFile(w.Name())
		if err != nil || len(warns) != 0 || len(got) != i+1 || !reflect.DeepEqual(unlocated(got)[i], r) {
			t.Fatalf("after %d writes: %d records, warnings %v, err %v", i+1, len(got), warns, err)
		}
	}

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _, err := ReadFile(path); err != nil || len(got) != len(recs) {
		t.Errorf("after Close: %d records, %v", len(got), err)
	}

	// A buffered destination is flushed too.
	var under bytes.Buffer
	bw := bufio.NewWriterSize(&under, 1<<16)
	nw := NewWriter(bw)
	if err := nw.Write(recs[2]); err != nil {
		t.Fatal(err)
	}
	if got, _, err := Read(bytes.NewReader(under.Bytes()), "buf"); err != nil || len(got) != 1 {
		t.Errorf("bufio destination not flushed: %d records, %v", len(got), err)
	}
}

func TestWriterRefusesInvalid(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	bad := sampleRecords()[2]
	bad.Value = math.NaN()
	err := w.Write(bad)
	var fe *spec.Error
	if !errors.As(err, &fe) || fe.Path != "value" || b.Len() != 0 {
		t.Errorf("err %v, wrote %q", err, b.String())
	}
}

func TestReadTruncatedLastLine(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	recs := sampleRecords()
	for _, r := range recs {
		w.Write(r)
	}
	full := b.Bytes()
	lastStart := bytes.LastIndexByte(full[:len(full)-1], '\n') + 1
	for cut := lastStart + 1; cut < len(full)-1; cut++ {
		got, warns, err := Read(bytes.NewReader(full[:cut]), "k.jsonl")
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if len(got) != 2 || len(warns) != 1 || warns[0].Line != 3 || !strings.HasPrefix(warns[0].String(), "k.jsonl:3: last line cut short") {
			t.Fatalf("cut at %d: %d records, warnings %v", cut, len(got), warns)
		}
	}
	// The whole object without its newline is a record.
	if got, warns, err := Read(bytes.NewReader(full[:len(full)-1]), "k.jsonl"); err != nil || len(warns) != 0 || len(got) != 3 {
		t.Errorf("no final newline: %d records, %v, %v", len(got), warns, err)
	}
	// A cut line that is not the last one is an error; so is garbage.
	mid := append(append([]byte{}, full[:lastStart+10]...), '\n')
	mid = append(mid, full[lastStart:]...)
	if _, _, err := Read(bytes.NewReader(mid), "k.jsonl"); err == nil || !strings.HasPrefix(err.Error(), "k.jsonl:3: not a JSON object: unexpected end of line") {
		t.Errorf("cut middle line: %v", err)
	}
	garbage := append(append([]byte{}, full[:lastStart]...), "{\"kind\": oops"...)
	if _, _, err := Read(bytes.NewReader(garbage), "k.jsonl"); err == nil || !strings.HasPrefix(err.Error(), "k.jsonl:3: not a JSON object: invalid character") {
		t.Errorf("garbage last line: %v", err)
	}
}

func TestReadIsStrict(t *testing.T) {
	good := `{"kind":"decode","soc":"apple-m2","model":"llama-2-7b","quant":"Q4_0","shape":{"gen":128},"value":21.9,"unit":"tokens/s","source":"x"}`
	for _, tc := range []struct {
		line string
		want string
	}{
		{`{"kind":"decode","soc":"apple-m2","valeu":1}`, "r.jsonl:2: field valeu: unknown field; allowed: kind, soc, soc_digest, device, model, quant, model_size, model_params, kv_dtype, kernel, shape, dtype, threads, backend, runtime, n_gpu_layers, value, unit, reps, stddev, conditions, source, time, notes"},
		{strings.Replace(good, `"value"`, `"conditions":{"ambiant_c":20},"value"`, 1), "r.jsonl:2: field conditions.ambiant_c: unknown field; allowed: ambient_c, start_temp_c, clocks, temps, os, firmware_date, tool_version, build"},
		{strings.Replace(good, `"gen":128`, `"gen":128,"seq":2`, 1), "r.jsonl:2: field shape.seq: unknown field"},
		{strings.Replace(good, `"kind"`, `"KIND"`, 1), "r.jsonl:2: field KIND: unknown field"},
		{strings.Replace(good, `21.9`, `"fast"`, 1), `r.jsonl:2: field value: string is not a number`},
		{strings.Replace(good, `"gen":128`, `"gen":1.5`, 1), `r.jsonl:2: field shape.gen: number 1.5 is not an integer`},
		{strings.Replace(good, `21.9`, `-1`, 1), "r.jsonl:2: field value: must be a finite number > 0, got -1"},
		{strings.Replace(good, `"decode"`, `"throughput"`, 1), `r.jsonl:2: field kind: "throughput" is not a kind; use one of bandwidth, latency, random_read, memcpy, gemv, gemm, decoder, prefill, decode`},
		{strings.Replace(good, `tokens/s`, `B/s`, 1), `r.jsonl:2: field unit: "B/s" does not suit kind decode; use tokens/s or s`},
		{strings.Replace(good, `"Q4_0"`, `"Q2_K_S"`, 1), `r.jsonl:2: field quant: "Q2_K_S" is not a quantisation`},
		{strings.Replace(good, `,"source":"x"`, ``, 1), `r.jsonl:2: field source: missing`},
		{strings.Replace(good, `"gen":128`, `"gen":0`, 1), `r.jsonl:2: field shape.gen: a decode record needs the number of generated tokens > 0, got 0`},
		{good + ` {}`, "r.jsonl:2: more than one JSON value on the line"},
		{`[1,2]`, "r.jsonl:2: a record is a JSON object, not an array"},
		{`null`, "r.jsonl:2: a record is a JSON object, not null"},
		// A key given twice was read as its last value.
		{strings.Replace(good, `"value":21.9`, `"value":21.9,"value":2190`, 1), `r.jsonl:2: field value: duplicate key "value"`},
		{strings.Replace(good, `"gen":128`, `"gen":128,"gen":1`, 1), `r.jsonl:2: field shape.gen: duplicate key "gen"`},
	} {
		_, _, err := Read(strings.NewReader(good+"\n"+tc.line+"\n"), "r.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("line %s\n got %v\nwant %s…", tc.line, err, tc.want)
		}
		if err != nil && !spec.IsSpecError(err) {
			t.Errorf("%v is not a *spec.Error", err)
		}
	}
	got, warns, err := Read(strings.NewReader("\n"+good+"\n\n  \n"+good+"\n"), "r.jsonl")
	if err != nil || len(warns) != 0 || len(got) != 2 {
		t.Errorf("blank lines: %d records, %v, %v", len(got), warns, err)
	}
}

// TestReadAssumesShape: a prefill or decode record with only the fields
// CONTRACT.md requires takes llama-bench's pp512 or tg128, and a warning
// names the line and the field assumed.
func TestReadAssumesShape(t *testing.T) {
	in := `{"kind":"prefill","soc":"apple-m2","model":"llama-2-7b","quant":"Q4_0","value":180,"unit":"tokens/s","source":"x"}
{"kind":"decode","soc":"apple-m2","model":"llama-2-7b","quant":"Q4_0","shape":{"depth":512},"value":21,"unit":"tokens/s","source":"x"}
{"kind":"decode","soc":"apple-m2","model":"llama-2-7b","quant":"Q4_0","shape":{"gen":64},"value":21,"unit":"tokens/s","source":"x"}
`
	recs, warns, err := Read(strings.NewReader(in), "m.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got := []Shape{recs[0].Shape, recs[1].Shape, recs[2].Shape}; !slices.Equal(got, []Shape{{Prompt: 512}, {Gen: 128, Depth: 512}, {Gen: 64}}) {
		t.Errorf("shapes %+v", got)
	}
	if len(warns) != 2 || !strings.HasPrefix(warns[0].String(), "m.jsonl:1: field shape.prompt missing: assumed 512 tokens") ||
		!strings.HasPrefix(warns[1].String(), "m.jsonl:2: field shape.gen missing: assumed 128 tokens") {
		t.Errorf("warnings %v", warns)
	}
}

func TestAppendContinuesAfterAKill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	recs := sampleRecords()
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(recs[0])
	w.Close()
	line, _ := marshalLine(recs[1])
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write(line[:len(line)/2]) // the kill
	f.Close()

	w, warns, err := Append(path)
	if err != nil || len(warns) != 1 || warns[0].Line != 2 {
		t.Fatalf("Append: warnings %v, err %v", warns, err)
	}
	w.Write(recs[1])
	w.Write(recs[2])
	w.Close()
	got, warns, err := ReadFile(path)
	if err != nil || len(warns) != 0 || !reflect.DeepEqual(unlocated(got), recs) {
		t.Errorf("after append: %d records, %v, %v", len(got), warns, err)
	}
	w, warns, err = Append(path) // a clean file is left alone
	if err != nil || len(warns) != 0 {
		t.Errorf("Append clean: %v %v", warns, err)
	}
	w.Close()
}

func TestValidate(t *testing.T) {
	ok := sampleRecords()
	for i := range ok {
		if err := ok[i].Validate(); err != nil {
			t.Errorf("record %d: %v", i, err)
		}
	}
	for _, tc := range []struct {
		edit func(*Record)
		want string
	}{
		{func(r *Record) { r.Kind = "" }, "field kind: missing"},
		{func(r *Record) { r.SoC = " " }, "field soc: missing"},
		{func(r *Record) { r.SoCDigest = "sha256:xyz" }, "field soc_digest:"},
		{func(r *Record) { r.Value = math.Inf(1) }, "field value: must be a finite number > 0, got +Inf"},
		{func(r *Record) { r.Value = 0 }, "field value:"},
		{func(r *Record) { r.Unit = "" }, "field unit: missing; decode takes tokens/s or s"},
		{func(r *Record) { r.Model = "" }, "field model: missing"},
		{func(r *Record) { r.Quant = "" }, "field quant: missing"},
		{func(r *Record) { r.KVDtype = "f12" }, "field kv_dtype:"},
		{func(r *Record) { r.Shape.Gen = 0 }, "field shape.gen: a decode record needs"},
		{func(r *Record) { r.Kind = KindPrefill }, "field shape.prompt: a prefill record needs"},
		{func(r *Record) { r.Threads = -1 }, "field threads: must be >= 0"},
		{func(r *Record) { r.NGPULayers = ptr(-1) }, "field n_gpu_layers:"},
		{func(r *Record) { r.Stddev = -1 }, "field stddev:"},
		{func(r *Record) { r.Conditions.AmbientC = ptr(math.NaN()) }, "field conditions.ambient_c:"},
		{func(r *Record) { r.Conditions.Clocks = map[string]float64{"gpu": 0} }, "field conditions.clocks.gpu:"},
		{func(r *Record) { r.Conditions.Temps = map[string]float64{"soc": math.Inf(1)} }, "field conditions.temps.soc: must be a finite temperature"},
		{func(r *Record) { r.Conditions.Temps = map[string]float64{"soc": -300} }, "field conditions.temps.soc:"},
		{func(r *Record) { r.Time = "yesterday" }, "field time:"},
	} {
		r := sampleRecords()[2]
		tc.edit(&r)
		err := r.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("got %v, want %s…", err, tc.want)
		}
	}
}

func TestDigest(t *testing.T) {
	if got := Digest([]byte("abc")); got != "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("Digest(abc) = %s", got)
	}
	path := filepath.Join(t.TempDir(), "chip.yaml")
	os.WriteFile(path, []byte("abc"), 0o644)
	if got, err := DigestFile(path); err != nil || got != Digest([]byte("abc")) {
		t.Errorf("DigestFile = %s, %v", got, err)
	}
}

func TestParseLine(t *testing.T) {
	good := `{"kind":"bandwidth","soc":"host","value":1e9,"unit":"B/s","source":"probe:x"}`
	rec, err := ParseLine("ssh://h", 3, []byte(good+"\r\n"))
	if err != nil || rec.Kind != KindBandwidth || rec.Value != 1e9 {
		t.Errorf("good line: %+v, %v", rec, err)
	}
	_, err = ParseLine("ssh://h", 3, []byte(strings.Replace(good, `"unit"`, `"units"`, 1)))
	if err == nil || !strings.HasPrefix(err.Error(), "ssh://h:3: field units: unknown field") {
		t.Errorf("unknown key: %v", err)
	}
	_, err = ParseLine("ssh://h", 4, []byte(good[:20]))
	if err == nil || !strings.HasPrefix(err.Error(), "ssh://h:4: not a JSON object") {
		t.Errorf("cut line: %v", err)
	}
}

// TestRecordsNameFilesBesideThem: a records file names its chip and model
// files relative to itself (PathFrom), and ReadFile finds them there from
// any working directory; catalog ids and absolute paths pass unchanged,
// and a path only the working directory has still resolves from it.
func TestRecordsNameFilesBesideThem(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range []string{"chips/board.yaml", "models/config.json"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := "runs/r.jsonl"
	for _, c := range []struct{ ref, want string }{
		{"chips/board.yaml", "../chips/board.yaml"},
		{"models/config.json", "../models/config.json"},
		{"emitted.yaml", "../emitted.yaml"}, // not written yet: still named from out
		{"rk3588", "rk3588"},
		{"llama-2-7b", "llama-2-7b"},
		{"/abs/chip.yaml", "/abs/chip.yaml"},
		{"", ""},
	} {
		if got := PathFrom(out, c.ref); got != c.want {
			t.Errorf("PathFrom(%q, %q) = %q, want %q", out, c.ref, got, c.want)
		}
	}
	if err := os.MkdirAll("runs", 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Record{
		{Kind: KindDecode, SoC: PathFrom(out, "chips/board.yaml"), Model: PathFrom(out, "models/config.json"), Quant: "Q4_0", Shape: Shape{Gen: 8}, Value: 5, Unit: UnitTokensPerSecond, Source: "t"},
		{Kind: KindDecode, SoC: "rk3588", Model: "chips/board.yaml", Quant: "Q4_0", Shape: Shape{Gen: 8}, Value: 5, Unit: UnitTokensPerSecond, Source: "t"},
	} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	t.Chdir("/")
	recs, _, err := ReadFile(filepath.Join(dir, out))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := recs[0].SoC, filepath.Join(dir, "chips/board.yaml"); got != want {
		t.Errorf("chip read back as %q, want %q", got, want)
	}
	if got, want := recs[0].Model, filepath.Join(dir, "models/config.json"); got != want {
		t.Errorf("model read back as %q, want %q", got, want)
	}
	if recs[1].SoC != "rk3588" || recs[1].Model != "chips/board.yaml" {
		t.Errorf("a catalog id and a path from the working directory changed: %q, %q", recs[1].SoC, recs[1].Model)
	}
}

// unlocated is recs without where they were read, to compare with
// records built in code.
func unlocated(recs []Record) []Record {
	out := slices.Clone(recs)
	for i := range out {
		out[i].file, out[i].line = "", 0
	}
	return out
}
