package workloads

import (
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/dtype"
)

func mustQuant(t testing.TB, spec string) Quant {
	t.Helper()
	q, err := ParseQuant(spec)
	if err != nil {
		t.Fatalf("ParseQuant(%q): %v", spec, err)
	}
	return q
}

func TestParseQuant(t *testing.T) {
	const (
		q4   = 18.0 / 32   // Q4_0: fp16 scale + 32 nibbles
		q8   = 34.0 / 32   // Q8_0: fp16 scale + 32 bytes
		q6k  = 210.0 / 256 // Q6_K super-block
		i8   = 1 + 2.0/32  // INT8@g32: 1 byte + fp16 scale per 32
		i4   = 0.5 + 2.0/32
		i4g  = 0.5 + 2.0/128
		i464 = 0.5 + 2.0/64
		q41  = 20.0 / 32 // scale + min + 16 bytes
		q50  = 22.0 / 32
		q51  = 24.0 / 32
		q2k  = 84.0 / 256 // K-quant super-blocks of 256
		q3k  = 110.0 / 256
		q4k  = 144.0 / 256
		q5k  = 176.0 / 256
		iq4x = 136.0 / 256
	)
	for _, tc := range []struct {
		spec, canon              string
		attn, ffn, embed, output float64     // bytes per weight by role
		act                      dtype.Dtype // of attn
		why                      string
	}{
		{"F16", "F16", 2, 2, 2, 2, dtype.FP16, "2 bytes a weight everywhere"},
		{"fp16", "F16", 2, 2, 2, 2, dtype.FP16, "alias, case-insensitive"},
		{"q4_0", "Q4_0", q4, q4, q4, q6k, dtype.INT8, "llama.cpp stores output.weight at Q6_K for Q4_0"},
		{"Q8_0", "Q8_0", q8, q8, q8, q8, dtype.INT8, "llama-quantize keeps Q8_0 output at Q8_0"},
		{"INT8", "INT8", i8, i8, i8, i8, dtype.INT8, "W8A8 with fp16 scale per 32"},
		{"W8A8", "INT8", i8, i8, i8, i8, dtype.INT8, "alias of INT8"},
		{"INT4", "INT4", i4, i4, i4, i4, dtype.INT8, "W4A8: int8 activations"},
		{"W4A16", "W4A16", i4, i4, i4, i4, dtype.FP16, "fp16 activations"},
		{"INT4@g128", "INT4@g128", i4g, i4g, i4g, i4g, dtype.INT8, "0.5 + 2/128"},
		{"int4@G32", "INT4", i4, i4, i4, i4, dtype.INT8, "g32 is the default and is not printed"},
		{"w4a16_g128", "W4A16@g128", i4g, i4g, i4g, i4g, dtype.FP16, "RKLLM's spelling of the group"},
		{"W8A8_G32", "INT8", i8, i8, i8, i8, dtype.INT8, "RKLLM's spelling, the default group"},
		{"BF16", "BF16", 2, 2, 2, 2, dtype.BF16, "extra float format"},
		{"F32", "F32", 4, 4, 4, 4, dtype.FP32, "extra float format"},
		{"attn=INT8,ffn=INT4", "INT8,ffn=INT4", i8, i4, i8, i8, dtype.INT8, "no bare element: the first format is the default"},
		{"ffn=INT4,attn=INT8", "INT4,attn=INT8", i8, i4, i4, i4, dtype.INT8, "first element again"},
		{"Q4_0,attn=Q8_0", "Q4_0,attn=Q8_0", q8, q4, q4, q6k, dtype.INT8, "bare element is the default; output still Q6_K"},
		{"attn=Q8_0,Q4_0", "Q4_0,attn=Q8_0", q8, q4, q4, q6k, dtype.INT8, "the bare element wins wherever it is"},
		{"Q4_0,output=Q6_K", "Q4_0", q4, q4, q4, q6k, dtype.INT8, "output=Q6_K is what Q4_0 implies: dropped"},
		{"Q4_0,output=Q4_0", "Q4_0,output=Q4_0", q4, q4, q4, q4, dtype.INT8, "explicit output overrides the Q6_K convention"},
		{" ffn = INT4@g64 , Q8_0 ", "Q8_0,ffn=INT4@g64", q8, i464, q8, q8, dtype.INT8, "spaces ignored"},
		{"W4A16@g128,embed=F16", "W4A16@g128,embed=F16", i4g, i4g, 2, i4g, dtype.FP16, "grouped default with float embeddings"},
		{"Q4_0,ffn=Q4_0", "Q4_0", q4, q4, q4, q6k, dtype.INT8, "a role equal to the default is dropped"},
		{"Q4_0,attn=Q4_0", "Q4_0,attn=Q4_0", q4, q4, q4, q6k, dtype.INT8, "kept: it pins attn_v and attn_k, which llama-quantize stores at Q8_0 in 8-expert models"},
		{"Q8_0,attn=Q8_0", "Q8_0", q8, q8, q8, q8, dtype.INT8, "dropped: the 8-expert rule is Q8_0 anyway"},
		{"Q4_1", "Q4_1", q41, q41, q41, q6k, dtype.INT8, "legacy block formats: output Q6_K like Q4_0"},
		{"q5_0", "Q5_0", q50, q50, q50, q6k, dtype.INT8, "case-insensitive"},
		{"Q5_1", "Q5_1", q51, q51, q51, q6k, dtype.INT8, "24 bytes per 32"},
		{"Q4_K", "Q4_K", q4k, q4k, q4k, q6k, dtype.INT8, "the single format, not llama-quantize's alias for Q4_K_M"},
		{"Q5_K", "Q5_K", q5k, q5k, q5k, q6k, dtype.INT8, "176 bytes per 256"},
		{"q3_k", "Q3_K", q3k, q3k, q3k, q6k, dtype.INT8, "110 bytes per 256"},
		{"Q6_K", "Q6_K", q6k, q6k, q6k, q6k, dtype.INT8, "format and file type are the same"},
		{"Q4_K_M", "Q4_K_M", q4k, q4k, q4k, q6k, dtype.INT8, "file type: the default Q4_K, output Q6_K (the rest tensor by tensor)"},
		{"q4_k_m", "Q4_K_M", q4k, q4k, q4k, q6k, dtype.INT8, "case-insensitive"},
		{"Q4_K - Medium", "Q4_K_M", q4k, q4k, q4k, q6k, dtype.INT8, "llama.cpp's name, as in llama-bench's model_type"},
		{" q4_k  -  medium ", "Q4_K_M", q4k, q4k, q4k, q6k, dtype.INT8, "spaces collapsed, case-insensitive"},
		{"Q4_K - Small", "Q4_K_S", q4k, q4k, q4k, q6k, dtype.INT8, "llama.cpp's name"},
		{"Q5_K_M", "Q5_K_M", q5k, q5k, q5k, q6k, dtype.INT8, "default Q5_K"},
		{"Q5_K - Small", "Q5_K_S", q5k, q5k, q5k, q6k, dtype.INT8, "not the same value as Q5_K: it prints as asked"},
		{"Q3_K - Large", "Q3_K_L", q3k, q3k, q3k, q6k, dtype.INT8, "default Q3_K"},
		{"Q3_K_S", "Q3_K_S", q3k, q3k, q3k, q6k, dtype.INT8, "default Q3_K"},
		{"Q3_K_M", "Q3_K_M", q3k, q3k, q3k, q6k, dtype.INT8, "default Q3_K"},
		{"Q2_K - Medium", "Q2_K", q2k, q2k, q2k, q6k, dtype.INT8, "llama.cpp calls its Q2_K type Q2_K - Medium"},
		{"IQ4_XS - 4.25 bpw", "IQ4_XS", iq4x, iq4x, iq4x, q6k, dtype.INT8, "136 bytes per 256"},
		{"iq4_nl - 4.5 bpw", "IQ4_NL", q4, q4, q4, q6k, dtype.INT8, "18 bytes per 32"},
		{"iq4_nl", "IQ4_NL", q4, q4, q4, q6k, dtype.INT8, "the file type: default IQ4_NL"},
		{"Q4_K_M,attn=Q8_0", "Q4_K_M,attn=Q8_0", q8, q4k, q4k, q6k, dtype.INT8, "a file type with a role override"},
		{"attn=Q8_0,q4_k_m", "Q4_K_M,attn=Q8_0", q8, q4k, q4k, q6k, dtype.INT8, "the bare file type is the default wherever it is"},
		{"Q4_K_M,attn=Q4_K", "Q4_K_M,attn=Q4_K", q4k, q4k, q4k, q6k, dtype.INT8, "kept: it overrides attn_v's Q6_K"},
		{"Q4_K_M,embed=Q4_K,output=Q6_K", "Q4_K_M", q4k, q4k, q4k, q6k, dtype.INT8, "dropped: no rule touches token_embd or output"},
		{"Q5_K_S,ffn=Q5_K", "Q5_K_S", q5k, q5k, q5k, q6k, dtype.INT8, "dropped: Q5_K_S has no FFN rule"},
		{"Q2_K,attn=Q2_K", "Q2_K,attn=Q2_K", q2k, q2k, q2k, q6k, dtype.INT8, "ROLE=Q2_K is the single format"},
		{"attn=Q2_K,ffn=INT4", "Q2_K,attn=Q2_K,ffn=INT4", q2k, i4, q2k, q6k, dtype.INT8, "a default named like a file type is the file type"},
		{"Q4_0,output=Q8_0", "Q4_0,output=Q8_0", q4, q4, q4, q8, dtype.INT8, "output named"},
	} {
		q, err := ParseQuant(tc.spec)
		if err != nil {
			t.Errorf("ParseQuant(%q): %v", tc.spec, err)
			continue
		}
		if got := q.String(); got != tc.canon {
			t.Errorf("ParseQuant(%q).String() = %q, want %q (%s)", tc.spec, got, tc.canon, tc.why)
		}
		again, err := ParseQuant(q.String())
		if err != nil || again != q {
			t.Errorf("%q does not round-trip: %v, %v", q.String(), again, err)
		}
		for _, c := range []struct {
			r    Role
			want float64
		}{{RoleAttn, tc.attn}, {RoleFFN, tc.ffn}, {RoleEmbed, tc.embed}, {RoleOutput, tc.output}} {
			if got := q.BytesPerWeight(c.r); got != c.want {
				t.Errorf("%q BytesPerWeight(%s) = %v, want %v (%s)", tc.spec, c.r, got, c.want, tc.why)
			}
		}
		if got := q.ActDtype(RoleAttn); got != tc.act {
			t.Errorf("%q ActDtype(attn) = %s, want %s (%s)", tc.spec, got, tc.act, tc.why)
		}
		// Router and norm weights stay F32 whatever the spec (llama.cpp
		// never quantises ffn_gate_inp or 1-D tensors).
		if q.BytesPerWeight(RoleRouter) != 4 || q.BytesPerWeight(RoleNorm) != 4 {
			t.Errorf("%q: router/norm weights not F32", tc.spec)
		}
	}
}

func TestParseQuantErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"Q9_9", `"Q9_9" is not a quantisation: use F16, Q8_0, Q4_0, Q4_K_M, INT8, INT4, W4A16`},
		{"", `"" is not a quantisation: use`},
		{"FP8", `"FP8" is not a quantisation`}, // a KV-cache type only
		{"Q2_K_S", `"Q2_K_S" is not a quantisation`},
		{"Q4_K - Huge", `"Q4_K - Huge" is not a quantisation`},
		{"attn=Q4_K_M", `"Q4_K_M" is a llama.cpp file type, which picks formats tensor by tensor for the whole model: give it without ROLE=, e.g. "Q4_K_M,attn=Q8_0"`},
		{"Q4_0,ffn=Q3_K - Large", `"Q3_K - Large" is a llama.cpp file type`},
		{"Q4_K_M,Q8_0", `has two default formats`},
		{"Q4_K_M@g64", `"Q4_K_M@g64" is not a quantisation`},
		{"Q4_K@g64", `(Q4_K has fixed blocks of 256)`},
		{"attn=Q9,ffn=INT4", `"Q9" is not a quantisation (in "attn=Q9,ffn=INT4")`},
		{"Q4_0@g64", `only INT8, INT4 and W4A16 take a group size (Q4_0 has fixed blocks of 32)`},
		{"F16@g64", `(F16 has no scales)`},
		{"INT4@128", `the group size is written @gN, e.g. INT4@g128`},
		{"INT4@g0", `group size "0" is not allowed: must be an integer from 1 to 65536`},
		{"INT4@gx", `group size "x" is not allowed`},
		{"INT4@g99999999", `group size "99999999" is not allowed`},
		{"Q4_0,Q8_0", `has two default formats`},
		{"attn=INT8,attn=INT4", `role attn is given twice`},
		{"mlp=INT4", `"mlp" is not a role: use attn, ffn, embed or output`},
		{"router=F16", `"router" is not a role`},
		{"attn=", `"" is not a quantisation`},
		{"Q4_0,", `"" is not a quantisation (in "Q4_0,")`},
	} {
		_, err := ParseQuant(tc.spec)
		if err == nil {
			t.Errorf("ParseQuant(%q) succeeded, want error containing %q", tc.spec, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseQuant(%q) error %q, want it to contain %q", tc.spec, err, tc.want)
		}
	}
	// The error lists every weight format and file type ParseQuant takes.
	_, err := ParseQuant("Q9_9")
	words := strings.FieldsFunc(err.Error(), func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z')
	})
	for _, f := range formats {
		if f.weights && !slices.Contains(words, f.name) {
			t.Errorf("the error does not list weight format %s: %v", f.name, err)
		}
	}
	for _, ft := range fileTypes[1:] {
		if !slices.Contains(words, ft.name) {
			t.Errorf("the error does not list file type %s: %v", ft.name, err)
		}
	}
}

// FuzzParseQuant: ParseQuant never panics, and what it accepts prints in a
// form that reads back to the same value.
func FuzzParseQuant(f *testing.F) {
	for _, s := range []string{
		"Q4_0", "F16", "INT4@g128", "attn=INT8,ffn=INT4", "Q4_0,attn=Q8_0", "Q4_0,output=Q4_0",
		"Q4_K_M", "q4_k_s", "Q4_K - Medium", "Q3_K - Large", "Q2_K - Medium", "IQ4_XS - 4.25 bpw", "IQ4_NL",
		"Q5_K_M,attn=Q8_0", "attn=Q2_K,ffn=INT4", "Q2_K,attn=Q2_K", "Q4_K", "Q6_K", "Q5_1", "attn=Q4_K_M", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		q, err := ParseQuant(spec)
		if err != nil {
			return
		}
		again, err := ParseQuant(q.String())
		if err != nil || again != q {
			t.Errorf("ParseQuant(%q) = %s, which reads back as %v, %v", spec, q, again, err)
		}
	})
}

func TestZeroValuesAreF16(t *testing.T) {
	if (Quant{}) != mustQuant(t, "F16") {
		t.Error("zero Quant differs from F16")
	}
	if (KVFormat{}).String() != "F16" || (KVFormat{}).BytesPerElement() != 2 {
		t.Error("zero KVFormat is not F16, llama.cpp's default cache type")
	}
}

func TestQuantFormatPanicsOnUnknownRole(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Format(bogus role) did not panic")
		}
	}()
	Quant{}.Format(Role("bogus"))
}

func TestParseKVFormat(t *testing.T) {
	for _, tc := range []struct {
		in, canon string
		bytes     float64
		dt        dtype.Dtype
		why       string
	}{
		{"F16", "F16", 2, dtype.FP16, "llama.cpp default"},
		{"bf16", "BF16", 2, dtype.BF16, "2 bytes"},
		{"F32", "F32", 4, dtype.FP32, "4 bytes"},
		{"q8_0", "Q8_0", 34.0 / 32, dtype.INT8, "34 bytes per 32"},
		{"Q4_0", "Q4_0", 18.0 / 32, dtype.INT8, "18 bytes per 32"},
		{"Q4_1", "Q4_1", 20.0 / 32, dtype.INT8, "scale + min + 16 bytes"},
		{"Q5_0", "Q5_0", 22.0 / 32, dtype.INT8, "scale + 4 bytes high bits + 16"},
		{"Q5_1", "Q5_1", 24.0 / 32, dtype.INT8, "scale + min + 4 + 16"},
		{"iq4_nl", "IQ4_NL", 18.0 / 32, dtype.INT8, "same storage as Q4_0"},
		{"INT8", "INT8", 1 + 2.0/32, dtype.INT8, "1 byte + fp16 scale per 32"},
		{"INT8@g64", "INT8@g64", 1 + 2.0/64, dtype.INT8, "1 byte + fp16 scale per 64"},
		{"INT4", "INT4", 0.5 + 2.0/32, dtype.INT8, "nibble + scale per 32"},
		{"FP8", "FP8", 1, dtype.FP8, "1 byte, per-tensor scale negligible"},
	} {
		k, err := ParseKVFormat(tc.in)
		if err != nil {
			t.Errorf("ParseKVFormat(%q): %v", tc.in, err)
			continue
		}
		if k.String() != tc.canon || k.BytesPerElement() != tc.bytes || k.Dtype() != tc.dt {
			t.Errorf("ParseKVFormat(%q) = %s, %v bytes, %s; want %s, %v, %s (%s)",
				tc.in, k, k.BytesPerElement(), k.Dtype(), tc.canon, tc.bytes, tc.dt, tc.why)
		}
		if again, err := ParseKVFormat(k.String()); err != nil || again != k {
			t.Errorf("%s does not round-trip", k)
		}
	}
	for _, bad := range []string{"", "Q6_K", "W4A16", "int3", "FP8@g32", "Q8_0@g64"} {
		if _, err := ParseKVFormat(bad); err == nil {
			t.Errorf("ParseKVFormat(%q) succeeded", bad)
		}
	}
	_, err := ParseKVFormat("Q9")
	if want := `"Q9" is not a KV-cache type: use F16, BF16, F32, Q8_0`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestWeightFormatsMatchHW: the formats a chip's unit may list are exactly
// the weight formats ParseQuant accepts.
func TestWeightFormatsMatchHW(t *testing.T) {
	var names []string
	for _, f := range formats {
		if f.weights {
			names = append(names, f.name)
		}
	}
	if !slices.Equal(names, hw.WeightFormats) {
		t.Errorf("hw.WeightFormats = %v, workloads' weight formats = %v", hw.WeightFormats, names)
	}
}
