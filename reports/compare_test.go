package reports

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/sim"
)

// compareResult is a hand-made result with the figures the comparison
// shows, so that the goldens move only when the writers do (or when
// sim.Result gains keys: the CSV lists them all, as simulate's does).
func compareResult(soc string, ttft, prefill, decode, p99, tops, peak, dramUtil, l3Miss float64) *sim.Result {
	r := &sim.Result{
		SoC: soc, Model: "llama-2-7b", Quant: "Q4_0", KVDtype: "F16", Unit: "npu", Policy: "stream-weights",
		Fidelity: "tile", Prompt: 512, Gen: 128, Batch: 1, TTFT: ttft,
		Fallbacks: []sim.Fallback{}, Units: []sim.UnitCounters{}, Health: []sim.Health{},
		Bandwidth: []sim.BandwidthSample{}, Warnings: []string{}, Provenance: []spec.Entry{},
		Thermal: sim.Thermal{FinalClocks: []sim.UnitClock{}},
	}
	r.Prefill.Phase = sim.Phase{Tokens: 512, Seconds: 512 / prefill, TokensPerS: f64(prefill)}
	r.Decode.Phase = sim.Phase{Tokens: 128, Seconds: 128 / decode, TokensPerS: f64(decode)}
	r.Decode.First10sTokensPerS = f64(decode)
	r.Decode.MsPerToken = sim.Percentile{P50: f64(1000 / decode), P99: f64(p99)}
	r.Memory.WeightsBytes = 3825065984
	r.Memory.DRAMBWUtil = dramUtil
	r.Memory.Decode.L3MissRate = l3Miss
	r.Memory.L3MissRate = l3Miss
	r.Compute = sim.Compute{Dtype: "int8", TOPSEff: tops, PeakTOPS: peak}
	return r
}

// threeChips: two chips that ran (one without a price, read from a file)
// and one that could not hold the model, in the order given.
func threeChips() *Compare {
	return &Compare{
		Model: "llama-2-7b", Quant: "Q4_0", KVDtype: "F16", Fidelity: "tile", Prompt: 512, Gen: 128, Batch: 1,
		Rows: []CompareRow{
			{Chip: "snapdragon-8-gen3", PriceUSD: 200, Result: compareResult("snapdragon-8-gen3", 1.6, 315.1, 11.4, 92.5, 1.31, 73, 0.71, 0.985)},
			{Chip: "chips/my-npu.yaml", Result: compareResult("chips/my-npu.yaml", 0.75, 682.7, 14.5, 71.25, 2.6, 45, 0.8, 1)},
			{Chip: "raspberry-pi-5", PriceUSD: 80, Err: "llama-2-7b Q4_0 on raspberry-pi-5 does not fit: needs 4.09 GB (weights 3.83 GB + KV cache 256 MiB), has 4 GiB"},
		},
	}
}

func TestCompareGolden(t *testing.T) {
	for _, f := range []Format{Table, JSON, CSV} {
		var b bytes.Buffer
		if err := WriteCompare(&b, threeChips(), f); err != nil {
			t.Fatal(err)
		}
		golden(t, "compare-three-chips."+string(f), b.Bytes())
	}
}

// TestCompareJSON: an array in the chips' order; a chip that ran is the
// object simulate prints, one that did not has the same keys with null
// figures, the workload kept, and an error.
func TestCompareJSON(t *testing.T) {
	c := threeChips()
	var b bytes.Buffer
	if err := WriteCompare(&b, c, JSON); err != nil {
		t.Fatal(err)
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("%d rows, %v:\n%s", len(rows), err, b.Bytes())
	}
	for i, r := range c.Rows[:2] {
		var sim bytes.Buffer
		if err := WriteSimulate(&sim, r.Result, JSON); err != nil {
			t.Fatal(err)
		}
		var got, want bytes.Buffer
		_ = json.Compact(&got, rows[i])
		_ = json.Compact(&want, sim.Bytes())
		if got.String() != want.String() {
			t.Errorf("row %d is not simulate's object:\n%s\n%s", i, got.String(), want.String())
		}
	}
	ran, _ := Flatten(rows[0])
	failed, _ := Flatten(rows[2])
	if len(failed) != len(ran)+1 || failed[len(failed)-1].Key != "error" {
		t.Fatalf("the failed row has %d keys, want the %d of a result and error", len(failed), len(ran))
	}
	for i, f := range failed[:len(ran)] {
		if f.Key != ran[i].Key {
			t.Fatalf("key %d: %s, want %s", i, f.Key, ran[i].Key)
		}
		want := "null"
		switch f.Key {
		case "soc":
			want = `"raspberry-pi-5"`
		case "model", "quant", "kv_dtype", "fidelity", "prompt", "gen", "batch":
			want = ran[i].Value
		}
		if f.Value != want {
			t.Errorf("%s = %s, want %s", f.Key, f.Value, want)
		}
	}
	if !strings.Contains(failed[len(failed)-1].Value, "does not fit: needs") {
		t.Errorf("error = %s", failed[len(failed)-1].Value)
	}

	// With no chip run (the CLI exits 2 instead of printing), the rows
	// still take the keys of a result.
	c.Rows = c.Rows[2:]
	b.Reset()
	if err := WriteCompare(&b, c, JSON); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("no chip ran: %v\n%s", err, b.Bytes())
	}
	if only, _ := Flatten(rows[0]); len(only) != len(ran)+1 {
		t.Errorf("no chip ran: %d keys, want %d", len(only), len(ran)+1)
	}
}

// TestCompareCSV: one header, one row per chip, the same columns, the
// error in the last.
func TestCompareCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompare(&b, threeChips(), CSV); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	header := strings.Split(lines[0], ",")
	if header[0] != "soc" || header[len(header)-1] != "error" || !slices.Contains(header, "decode.tokens_per_s") {
		t.Errorf("header %q", lines[0])
	}
	if !strings.HasPrefix(lines[3], "raspberry-pi-5,llama-2-7b,Q4_0,,,F16,,,tile,512,128,1,,,") {
		t.Errorf("the failed row: %s", lines[3])
	}
	// Without a failed chip there is no error column.
	c := threeChips()
	c.Rows = c.Rows[:2]
	b.Reset()
	if err := WriteCompare(&b, c, CSV); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.SplitN(b.String(), "\n", 2)[0], "error") {
		t.Errorf("an error column without a failed chip")
	}
}

func TestCompareTableWithoutPrices(t *testing.T) {
	c := threeChips()
	for i := range c.Rows {
		c.Rows[i].PriceUSD = 0
	}
	c.Rows = c.Rows[:2]
	var b bytes.Buffer
	if err := CompareTable(&b, c); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "price") || strings.Contains(out, "error") || !strings.Contains(out, "2 chips") {
		t.Errorf("table:\n%s", out)
	}
}

// TestComparePlotData: four panels in a fixed order, one value per chip
// in the chips' order, TTFT in one readable unit, DRAM use in %.
func TestComparePlotData(t *testing.T) {
	d := ComparePlotData(threeChips())
	if d.Title != "llama-2-7b Q4_0 — prompt 512 · generate 128" {
		t.Errorf("title %q", d.Title)
	}
	var labels []string
	for _, p := range d.Panels {
		labels = append(labels, p.Label)
	}
	if want := []string{"decode (tokens/s)", "prefill (tokens/s)", "time to first token (s)", "DRAM bandwidth used (% of peak)"}; !slices.Equal(labels, want) {
		t.Errorf("panels %q, want %q", labels, want)
	}
	if p := d.Panels[3]; *p.Values[0] != 71 || *p.Values[1] != 80 || p.Values[2] != nil || p.Missing[2] != "does not fit" {
		t.Errorf("DRAM panel %v %q", p.Values, p.Missing)
	}
	var b bytes.Buffer
	if err := d.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare-three-chips-plot.csv", b.Bytes())

	// Bars are labelled to three significant digits.
	for v, want := range map[float64]string{2506.3: "2506", 22.97: "23", 13.13: "13.1", 0.25631: "0.256", 68.94: "68.9", 0: "0", 100: "100"} {
		if got := barValue(v); got != want {
			t.Errorf("barValue(%v) = %q, want %q", v, got, want)
		}
	}

	// Short times read in ms.
	c := threeChips()
	c.Rows[0].Result.TTFT, c.Rows[1].Result.TTFT = 0.0625, 0.125
	if l := ComparePlotData(c).Panels[2]; l.Label != "time to first token (ms)" || *l.Values[0] != 62.5 {
		t.Errorf("TTFT panel %q %v", l.Label, *l.Values[0])
	}
}

func renderCompareSVG(t *testing.T, c *Compare) svgDoc {
	t.Helper()
	wt, err := ComparePlotData(c).Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return parseSVG(t, b.Bytes())
}

// TestCompareFigureSVG checks structure, not pixels: the title, every
// panel's label, the chip names on every panel, a value at the end of each
// bar, and one bar per chip that ran in each panel, in its colour.
func TestCompareFigureSVG(t *testing.T) {
	doc := renderCompareSVG(t, threeChips())
	for _, want := range []string{
		"llama-2-7b Q4_0 — prompt 512 · generate 128",
		"decode (tokens/s)", "prefill (tokens/s)", "time to first token (s)", "DRAM bandwidth used (% of peak)",
		"11.4", "14.5", "315", "683", "1.6", "0.75", "71", "80",
	} {
		if !slices.Contains(doc.texts, want) {
			t.Errorf("the SVG has no text %q; texts: %q", want, doc.texts)
		}
	}
	for _, chip := range []string{"snapdragon-8-gen3", "chips/my-npu.yaml", "raspberry-pi-5"} {
		if n := count(doc.texts, chip); n != 4 {
			t.Errorf("%s is named %d times, want once a panel", chip, n)
		}
	}
	if n := count(doc.texts, "does not fit"); n != 4 {
		t.Errorf("the chip that did not fit says so %d times, want once a panel", n)
	}
	// Bars are the filled paths in the chips' colours (DarkColors 0 and
	// 1): one a panel for each chip that ran, none for the one that did
	// not (its colour, DarkColors 2, appears nowhere).
	bars := map[string]int{}
	for _, p := range doc.paths {
		for _, fill := range []string{"fill:#EE2E2F", "fill:#008C48", "fill:#185AA9"} {
			if strings.HasPrefix(p.style, fill) {
				bars[fill]++
			}
		}
	}
	if bars["fill:#EE2E2F"] != 4 || bars["fill:#008C48"] != 4 || bars["fill:#185AA9"] != 0 {
		t.Errorf("bars by colour %v, want 4, 4 and 0", bars)
	}
}

// TestCompareFigureFiles: slide size, and written atomically in each
// format.
func TestCompareFigureFiles(t *testing.T) {
	dir := t.TempDir()
	d := ComparePlotData(threeChips())
	for _, ext := range []string{"png", "svg", "pdf"} {
		if err := d.Save(filepath.Join(dir, "cmp."+ext)); err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
	}
	if err := d.Save(filepath.Join(dir, "cmp.gif")); err == nil || !strings.Contains(err.Error(), ".png, .svg or .pdf") {
		t.Errorf("a .gif: %v", err)
	}
	if err := d.Save(filepath.Join(dir, "missing", "cmp.svg")); err == nil {
		t.Error("no error writing into a missing directory")
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"cmp.pdf", "cmp.png", "cmp.svg"}) {
		t.Errorf("directory holds %q", names)
	}
	f, err := os.Open(filepath.Join(dir, "cmp.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width < 1200 || cfg.Height < cfg.Width/2 {
		t.Errorf("PNG %d×%d px (%v); want at least 1200 wide and half as high", cfg.Width, cfg.Height, err)
	}
}
