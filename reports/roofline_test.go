package reports

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/workloads"
)

// rooflineChip has every figure the roofline reads written out, so that
// no assumed default moves the goldens: an NPU of 20 TOPS int8 (5 TFLOPS
// fp16), DRAM of 40 GB/s at 75% sequential efficiency (30 GB/s, the ridge
// at 20e12 / 30e9 = 666.7 ops/byte) and an L3 of 80 GB/s (ridge 250).
const rooflineChip = `name: Roofline test chip
memory:
  dram: {type: LPDDR5, bandwidth: 40 GB/s, capacity: 8 GiB, seq_efficiency: 0.75}
  l3: {size: 8 MiB, ways: 8, line: 64 B, bandwidth: 80 GB/s}
units:
  - {name: npu, kind: npu, peak: {int8: 20 TOPS, fp16: 5 TFLOPS}, clock: 1 GHz}
  - {name: gpu, kind: gpu, peak: {fp16: 4 TFLOPS}, clock: 1 GHz}
`

func loadRooflineChip(t *testing.T) *hw.Chip {
	t.Helper()
	c, err := hw.Load("roofline-chip.yaml", []byte(rooflineChip), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tinyModel is one block of hidden 64, 2 heads of 32 and 1 KV head, a
// gated FFN of 128: small enough to count its bytes by hand.
var tinyModel = workloads.Model{Name: "tiny", Layers: 1, Hidden: 64, Heads: 2, KVHeads: 1, FFN: 128, Vocab: 256, MaxContext: 128}

// tinyPasses lowers a prefill of 8 tokens and the decode step after it.
func tinyPasses(t *testing.T, m workloads.Model) (prefill, decode []workloads.Op) {
	t.Helper()
	q, err := workloads.ParseQuant("Q4_0")
	if err != nil {
		t.Fatal(err)
	}
	kv, err := workloads.ParseKVFormat("F16")
	if err != nil {
		t.Fatal(err)
	}
	prefill = workloads.Lower(m, q, kv, workloads.Work{Phase: workloads.Prefill, Tokens: 8, Batch: 1})
	decode = workloads.Lower(m, q, kv, workloads.Work{Phase: workloads.Decode, Tokens: 1, Context: 8, Batch: 1})
	return prefill, decode
}

func tinyRoofline(t *testing.T) *RooflinePlot {
	t.Helper()
	prefill, decode := tinyPasses(t, tinyModel)
	r, err := Roofline(loadRooflineChip(t), "npu", prefill, decode, "tiny Q4_0 on the roofline test chip")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func point(t *testing.T, r *RooflinePlot, phase string, kind workloads.OpKind, role workloads.Role) RooflinePoint {
	t.Helper()
	for _, p := range r.Points {
		if p.Phase == phase && p.Kind == kind && p.Role == role {
			return p
		}
	}
	t.Fatalf("no %s %s/%s point in %+v", phase, kind, role, r.Points)
	return RooflinePoint{}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// TestRooflineIntensities checks points against sums done by hand.
//
// The FFN of the decode step is three GEMVs of Q4_0 weights, gate and up
// [64 → 128] and down [128 → 64]: 2·K·N = 16384 FLOPs each, 49152 in all.
// Q4_0 stores 32 weights in 18 bytes, so each matrix is 8192 × 18/32 =
// 4608 B, 13824 B in all; each GEMV reads K and writes N fp16
// activations, (64 + 128) × 2 = 384 B, 1152 B in all. Intensity =
// 49152 / (13824 + 1152) = 3.282 ops/byte. The prefill of 8 tokens does 8
// times the arithmetic on the same weights: 393216 / (13824 + 8 × 1152) =
// 17.07.
//
// Decode attention at context 8 over 9 positions (the new token's own
// included) with q of 2 × 32 = 64 and K/V of 32 per position: 4 × 64 × 9
// = 2304 FLOPs; it reads 9 positions × (32 + 32) × 2 B = 1152 B of KV
// cache, writes 128 B, and moves q, k, v in and the output out, (64 + 32
// + 32 + 64) × 2 = 384 B: 2304 / 1664 = 1.385 ops/byte.
func TestRooflineIntensities(t *testing.T) {
	r := tinyRoofline(t)
	if r.Unit != "npu" || r.Dtype != "int8" || r.PeakTOPS != 20 || r.DRAMBandwidth() != 30e9 || r.L3Bandwidth != 80e9 {
		t.Fatalf("roofs: %s %s %v TOPS, DRAM %v B/s, L3 %v B/s", r.Unit, r.Dtype, r.PeakTOPS, r.DRAMBandwidth(), r.L3Bandwidth)
	}
	for _, tc := range []struct {
		phase       string
		kind        workloads.OpKind
		role        workloads.Role
		count       int
		flops, byts float64
	}{
		{"decode", workloads.KindMatMul, workloads.RoleFFN, 3, 49152, 13824 + 1152},
		{"prefill", workloads.KindMatMul, workloads.RoleFFN, 3, 8 * 49152, 13824 + 8*1152},
		{"decode", workloads.KindAttention, workloads.RoleAttn, 1, 2304, 1152 + 128 + 384},
	} {
		p := point(t, r, tc.phase, tc.kind, tc.role)
		if p.Count != tc.count || p.FLOPs != tc.flops || p.Bytes != tc.byts || !near(p.Intensity(), tc.flops/tc.byts) {
			t.Errorf("%s %s/%s: ×%d, %v FLOPs, %v B, intensity %v; want ×%d, %v, %v, %v",
				tc.phase, tc.kind, tc.role, p.Count, p.FLOPs, p.Bytes, p.Intensity(), tc.count, tc.flops, tc.byts, tc.flops/tc.byts)
		}
	}
	// The decode FFN is DRAM-bound: 3.282 ops/byte × 30 GB/s = 0.0985 TOPS.
	tops, bound := r.Attainable(point(t, r, "decode", workloads.KindMatMul, workloads.RoleFFN).Intensity())
	if !near(tops, 49152.0/14976*30e9/1e12) || bound != "dram" {
		t.Errorf("decode FFN attains %v TOPS (%s)", tops, bound)
	}
	// Past the ridge (666.7 ops/byte) the peak bounds.
	if tops, bound := r.Attainable(1000); tops != 20 || bound != "compute" {
		t.Errorf("at 1000 ops/byte: %v TOPS (%s)", tops, bound)
	}
}

// TestRooflineGroups: one point per phase, kind and role, in order of
// each group's first operator, prefill first; the embedding lookup, with
// no arithmetic, is left out; the counts add up over the layers.
func TestRooflineGroups(t *testing.T) {
	m := tinyModel
	m.Layers = 3
	prefill, decode := tinyPasses(t, m)
	r, err := Roofline(loadRooflineChip(t), "npu", prefill, decode, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range r.Points {
		got = append(got, p.Label())
	}
	var want []string
	for _, phase := range []string{"prefill", "decode"} {
		want = append(want,
			phase+" norm/norm ×7", // two a block and the output norm
			phase+" matmul/attn ×12", phase+" rope/attn ×3", phase+" attention/attn ×3", phase+" residual/attn ×3",
			phase+" matmul/ffn ×9", phase+" activation/ffn ×3", phase+" residual/ffn ×3",
			phase+" matmul/output ×1")
	}
	if !slices.Equal(got, want) {
		t.Errorf("points\n%q\nwant\n%q", got, want)
	}
	if r.Title != "Roofline of roofline-chip.yaml: npu at int8" {
		t.Errorf("default title %q", r.Title)
	}
}

// TestRooflineUnit: a named unit takes its own peak (the GPU computes
// int8 activations in fp16); a unit that is not there is an error.
func TestRooflineUnit(t *testing.T) {
	chip := loadRooflineChip(t)
	prefill, decode := tinyPasses(t, tinyModel)
	r, err := Roofline(chip, "gpu", prefill, decode, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Unit != "gpu" || r.Dtype != "fp16" || r.PeakTOPS != 4 {
		t.Errorf("gpu roof: %s %s %v TOPS", r.Unit, r.Dtype, r.PeakTOPS)
	}
	if _, err := Roofline(chip, "tpu", prefill, decode, ""); err == nil || !strings.Contains(err.Error(), `no unit "tpu"`) {
		t.Errorf("unknown unit: %v", err)
	}
	if _, err := Roofline(chip, "npu", nil, nil, ""); err == nil {
		t.Error("no operators: no error")
	}
}

func TestRooflineCSV(t *testing.T) {
	var b bytes.Buffer
	if err := tinyRoofline(t).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "roofline-tiny.csv", b.Bytes())
}

// TestRooflineSVG checks the figure's structure: title, axis labels with
// units, log ticks, the roofs named in the legend, one mark per point in
// the colour of its phase (plus its legend sample), and the roofs as
// three strokes of two vertices.
func TestRooflineSVG(t *testing.T) {
	r := tinyRoofline(t)
	wt, err := r.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b.Bytes())
	want := []string{
		"tiny Q4_0 on the roofline test chip", "arithmetic intensity (ops/byte)", "attainable (TOPS)",
		"peak: npu int8, 20 TOPS", "DRAM: 40 GB/s × 0.75 = 30 GB/s", "L3: 80 GB/s",
		"1", "10", "100", "1000",
	}
	for _, p := range r.Points {
		want = append(want, p.Label())
	}
	for _, w := range want {
		if !slices.Contains(doc.texts, w) {
			t.Errorf("the SVG has no text %q; texts: %q", w, doc.texts)
		}
	}
	marks := map[string]int{}
	roofs := 0
	for _, p := range doc.paths {
		switch {
		case strings.HasPrefix(p.style, "fill:#185AA9"):
			marks["prefill"]++
		case strings.HasPrefix(p.style, "fill:#F47D23"):
			marks["decode"]++
		case strings.Contains(p.style, "stroke-width:2.5") || strings.Contains(p.style, "stroke-width:3.5") || strings.Contains(p.style, "stroke-width:1.5"):
			if strings.Count(p.d, "M")+strings.Count(p.d, "L") == 2 && strings.Contains(p.style, "fill:none") {
				roofs++
			}
		}
	}
	perPhase := len(r.Points) / 2
	if marks["prefill"] != 2*perPhase || marks["decode"] != 2*perPhase {
		t.Errorf("marks %v, want %d of each phase (a point and its legend sample each)", marks, 2*perPhase)
	}
	if roofs != 3*2 {
		t.Errorf("%d roof strokes, want the 3 roofs and their 3 legend samples", roofs)
	}
}

// TestWriteRoofline: the file appears whole, in the format its extension
// names; a bad extension writes nothing.
func TestWriteRoofline(t *testing.T) {
	dir := t.TempDir()
	chip := loadRooflineChip(t)
	prefill, decode := tinyPasses(t, tinyModel)
	for _, ext := range []string{"png", "svg", "pdf"} {
		if err := WriteRoofline(filepath.Join(dir, "roof."+ext), chip, "npu", prefill, decode, "tiny"); err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
	}
	if err := WriteRoofline(filepath.Join(dir, "roof.gif"), chip, "npu", prefill, decode, "tiny"); err == nil {
		t.Error("a .gif: no error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("the directory holds %d files, want 3", len(entries))
	}
}
