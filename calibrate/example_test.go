package calibrate_test

import (
	"bytes"
	"fmt"
	"os"

	"github.com/edgetwin/edgetwin/calibrate"
)

func ExampleImport() {
	data, err := os.ReadFile("testdata/llamabench/m2.md")
	if err != nil {
		panic(err)
	}
	recs, skips, err := calibrate.Import("m2.md", data, calibrate.ImportOptions{SoC: "apple-m2"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(calibrate.ImportCommandSummary(recs, skips))
	r := recs[5]
	fmt.Println(r.Kind, r.Model, r.Quant, r.Value, r.Unit, r.Source)
	// Output:
	// 6 rows → 3 prefill, 3 decode records; none skipped
	// decode llama-2-7b Q4_0 21.91 tokens/s m2.md:8
}

func ExampleReadFile() {
	_, warns, err := calibrate.ReadFile("testdata/killed.jsonl")
	fmt.Println(err)
	fmt.Println(warns[0])
	// Output:
	// <nil>
	// testdata/killed.jsonl:3: last line cut short (40 bytes, no newline): a writer was interrupted; ignored
}

func ExampleNewWriter() {
	var out bytes.Buffer
	w := calibrate.NewWriter(&out) // calibrate.Create(path) for a file, synced after each record
	err := w.Write(calibrate.Record{
		Kind: calibrate.KindBandwidth, SoC: "apple-m2", Kernel: "stream-read",
		Shape: calibrate.Shape{Bytes: 1 << 28}, Value: 91.3e9, Unit: calibrate.UnitBytesPerSecond,
		Reps: 5, Stddev: 0.2e9, Source: "probe",
	})
	fmt.Println(err)
	fmt.Print(out.String())
	err = w.Write(calibrate.Record{Kind: calibrate.KindDecode, SoC: "apple-m2", Value: 21.9, Unit: "tokens/s", Source: "x"})
	fmt.Println(err)
	// Output:
	// <nil>
	// {"kind":"bandwidth","soc":"apple-m2","kernel":"stream-read","shape":{"bytes":268435456},"value":91300000000,"unit":"B/s","reps":5,"stddev":200000000,"source":"probe"}
	// field model: missing; a decode record needs the model (catalog id or file)
}
