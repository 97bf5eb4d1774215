package workloads

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/dtype"
)

// Role is the class of a weight tensor. A quantisation may store each role
// in its own format ("attn=INT8,ffn=INT4").
type Role string

// The roles of weight tensors. Only attn, ffn, embed and output can be named
// in a quantisation spec; router and norm weights have fixed formats.
const (
	RoleAttn   Role = "attn"   // q, k, v and output projections of attention
	RoleFFN    Role = "ffn"    // dense FFN and expert matrices
	RoleEmbed  Role = "embed"  // token embedding table
	RoleOutput Role = "output" // output (logits) matrix
	RoleRouter Role = "router" // MoE router; always F32, as llama.cpp keeps ffn_gate_inp
	RoleNorm   Role = "norm"   // norm weights and projection biases; always F32
)

// quantRoles are the roles a spec may name, in canonical order.
var quantRoles = [...]Role{RoleAttn, RoleFFN, RoleEmbed, RoleOutput}

func roleIndex(r Role) int {
	for i, q := range quantRoles {
		if q == r {
			return i
		}
	}
	return -1
}

type formatKind uint8

// The zero kind is F16, so the zero Format, Quant and KVFormat are all F16.
const (
	fmtF16 formatKind = iota
	fmtBF16
	fmtF32
	fmtQ8_0
	fmtQ4_0
	fmtQ4_1
	fmtQ5_0
	fmtQ5_1
	fmtIQ4NL
	fmtQ2_K
	fmtQ3_K
	fmtQ4_K
	fmtQ5_K
	fmtQ6_K
	fmtIQ4XS
	fmtINT8
	fmtINT4
	fmtW4A16
	fmtFP8
	numFormats
)

// defaultGroup is the scale group of INT8, INT4 and W4A16 when no @gN is given.
const defaultGroup = 32

// maxGroup bounds @gN; larger groups are per-channel scaling in all but name.
const maxGroup = 1 << 16

type formatInfo struct {
	name       string
	block      int  // GGUF block formats: elements per block
	blockBytes int  // GGUF block formats: bytes per block (scales included)
	bits       int  // element width of float and group-scaled formats
	grouped    bool // one fp16 scale per group of elements (@gN)
	act        dtype.Dtype
	weights    bool // accepted by ParseQuant
	kv         bool // accepted by ParseKVFormat
	// fallback is what llama-quantize stores a row in when the block does
	// not divide it (the zero kind, F16, unless given).
	fallback formatKind
}

// formats is the storage table. Block sizes and bytes are ggml's
// (ggml/src/ggml-common.h, the block_* structs): per 32 elements, Q4_0 and
// IQ4_NL = fp16 scale + 16 bytes of nibbles = 18, Q4_1 = scale + min + 16 =
// 20, Q5_0 = scale + 4 bytes of fifth bits + 16 = 22, Q5_1 = 24, Q8_0 =
// scale + 32 int8 = 34; per 256-element super-block, Q2_K = 16 bytes of
// scales and mins + 64 of 2-bit quants + fp16 d and dmin = 84, Q3_K = 32
// bytes of high bits + 64 + 12 of scales + d = 110, Q4_K = d, dmin + 12 + 128
// = 144, Q5_K = 4 + 12 + 32 + 128 = 176, Q6_K = 128 + 64 + 16 + d = 210,
// IQ4_XS = d + 2 + 4 bytes of scales + 128 = 136. The fallbacks for rows the
// 256 block does not divide are llama-quantize's (src/llama-quant.cpp,
// llama_tensor_get_type): Q2_K, Q3_K, IQ4_XS to IQ4_NL, Q4_K to Q5_0, Q5_K
// to Q5_1, Q6_K to Q8_0; any 32-block format to F16.
var formats = [numFormats]formatInfo{
	fmtF16:   {name: "F16", bits: 16, act: dtype.FP16, weights: true, kv: true},
	fmtBF16:  {name: "BF16", bits: 16, act: dtype.BF16, weights: true, kv: true},
	fmtF32:   {name: "F32", bits: 32, act: dtype.FP32, weights: true, kv: true},
	fmtQ8_0:  block32("Q8_0", 34),
	fmtQ4_0:  block32("Q4_0", 18),
	fmtQ4_1:  block32("Q4_1", 20),
	fmtQ5_0:  block32("Q5_0", 22),
	fmtQ5_1:  block32("Q5_1", 24),
	fmtIQ4NL: block32("IQ4_NL", 18),
	fmtQ2_K:  kQuant("Q2_K", 84, fmtIQ4NL),
	fmtQ3_K:  kQuant("Q3_K", 110, fmtIQ4NL),
	fmtQ4_K:  kQuant("Q4_K", 144, fmtQ5_0),
	fmtQ5_K:  kQuant("Q5_K", 176, fmtQ5_1),
	fmtQ6_K:  kQuant("Q6_K", 210, fmtQ8_0),
	fmtIQ4XS: kQuant("IQ4_XS", 136, fmtIQ4NL),
	fmtINT8:  {name: "INT8", bits: 8, grouped: true, act: dtype.INT8, weights: true, kv: true},
	fmtINT4:  {name: "INT4", bits: 4, grouped: true, act: dtype.INT8, weights: true, kv: true},
	fmtW4A16: {name: "W4A16", bits: 4, grouped: true, act: dtype.FP16, weights: true},
	fmtFP8:   {name: "FP8", bits: 8, act: dtype.FP8, kv: true},
}

// block32 is a GGUF format of 32-element blocks: a weight and KV-cache
// type, int8 activations.
func block32(name string, bytes int) formatInfo {
	return formatInfo{name: name, block: 32, blockBytes: bytes, act: dtype.INT8, weights: true, kv: true}
}

// kQuant is a GGUF format of 256-element super-blocks (K-quants, IQ4_XS): a
// weight type only, int8 activations, with llama-quantize's fallback.
func kQuant(name string, bytes int, fallback formatKind) formatInfo {
	return formatInfo{name: name, block: 256, blockBytes: bytes, act: dtype.INT8, weights: true, fallback: fallback}
}

// formatAliases are other spellings people use for the same storage.
var formatAliases = map[string]formatKind{
	"FP16": fmtF16, "FP32": fmtF32, "W8A8": fmtINT8, "W4A8": fmtINT4,
}

// Format is the storage of one tensor: a float type, a GGUF block format
// (scales inside fixed blocks), or an integer type with one fp16 scale per
// group of elements. The zero Format is F16.
type Format struct {
	kind  formatKind
	group int // grouped formats only; 0 means defaultGroup
}

// Formats by name, for use inside the package.
var (
	formatF16  = Format{kind: fmtF16}
	formatF32  = Format{kind: fmtF32}
	formatQ6_K = Format{kind: fmtQ6_K}
)

func (f Format) info() formatInfo { return formats[f.kind] }

// Name is the format's canonical name without group size ("INT4").
func (f Format) Name() string { return f.info().name }

// Group is the number of elements sharing one scale: the block size of a
// GGUF block format, the group of INT8/INT4/W4A16, 0 for float formats.
func (f Format) Group() int {
	in := f.info()
	switch {
	case in.block > 0:
		return in.block
	case in.grouped && f.group > 0:
		return f.group
	case in.grouped:
		return defaultGroup
	}
	return 0
}

// Block reports whether f is a GGUF block format (Q4_0, Q8_0, Q6_K, ...).
func (f Format) Block() bool { return f.info().block > 0 }

// BytesPerWeight is the stored size of one element, scales included:
// 18/32 for Q4_0, 34/32 for Q8_0, bits/8 + 2/g for the grouped formats.
func (f Format) BytesPerWeight() float64 {
	in := f.info()
	switch {
	case in.block > 0:
		return float64(in.blockBytes) / float64(in.block)
	case in.grouped:
		return float64(in.bits)/8 + 2/float64(f.Group())
	}
	return float64(in.bits) / 8
}

// rowBytes is the stored size of a row of n elements: whole blocks or
// groups, a partial last group still carrying its scale.
func (f Format) rowBytes(n int) float64 {
	in := f.info()
	switch {
	case in.block > 0:
		return float64(ceilDiv(n, in.block) * in.blockBytes)
	case in.grouped:
		return float64(n)*float64(in.bits)/8 + 2*float64(ceilDiv(n, f.Group()))
	}
	return float64(n) * float64(in.bits) / 8
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// ActDtype is the activation type a matmul on these weights takes: int8 for
// the GGUF block formats (llama.cpp quantises activations to Q8 on CPU) and
// for INT8/INT4 (W8A8, W4A8); fp16 for F16 and W4A16.
func (f Format) ActDtype() dtype.Dtype { return f.info().act }

// String is the canonical spelling: the name, plus @gN when a grouped
// format's group is not the default 32.
func (f Format) String() string {
	if f.info().grouped && f.group != 0 && f.group != defaultGroup {
		return fmt.Sprintf("%s@g%d", f.Name(), f.group)
	}
	return f.Name()
}

// fitRow is the format llama.cpp actually uses for rows of k elements: a
// block format whose block does not divide the row falls back as
// llama-quantize does (Q4_K to Q5_0, Q6_K to Q8_0, ...; see formats), and
// to F16 when that block does not divide it either.
func fitRow(f Format, k int) Format {
	for b := f.info().block; b > 0 && k%b != 0; b = f.info().block {
		f = Format{kind: f.info().fallback}
	}
	return f
}

// groupedName reports whether name is a grouped format's canonical name.
func groupedName(name string) bool {
	for _, in := range formats {
		if in.name == name {
			return in.grouped
		}
	}
	return false
}

// parseFormat reads NAME, NAME@gN or NAME_gN (case-insensitive). ok says whether the
// name is known; err reports a known name with a bad group.
func parseFormat(s string, kv bool) (f Format, ok bool, err error) {
	s = strings.TrimSpace(s)
	name, group, hasGroup := strings.Cut(s, "@")
	name = strings.ToUpper(strings.TrimSpace(name))
	if !hasGroup {
		// Rockchip's RKLLM writes the group as a suffix: w4a16_g128.
		if base, g, cut := strings.Cut(name, "_G"); cut && g != "" && strings.Trim(g, "0123456789") == "" {
			if k, alias := formatAliases[base]; alias && formats[k].grouped || groupedName(base) {
				name, group, hasGroup = base, "g"+g, true
			}
		}
	}
	kind, found := formatAliases[name]
	if !found {
		for k, in := range formats {
			if in.name == name {
				kind, found = formatKind(k), true
				break
			}
		}
	}
	if !found {
		return Format{}, false, nil
	}
	in := formats[kind]
	if (kv && !in.kv) || (!kv && !in.weights) {
		return Format{}, false, nil
	}
	f = Format{kind: kind}
	if !hasGroup {
		return f, true, nil
	}
	if !in.grouped {
		what := "no scales"
		if in.block > 0 {
			what = fmt.Sprintf("fixed blocks of %d", in.block)
		}
		return Format{}, true, fmt.Errorf("%q: only INT8, INT4 and W4A16 take a group size (%s has %s)", s, in.name, what)
	}
	g := strings.TrimSpace(group)
	if len(g) < 2 || (g[0] != 'g' && g[0] != 'G') {
		return Format{}, true, fmt.Errorf("%q: the group size is written @gN, e.g. %s@g128", s, in.name)
	}
	n, perr := strconv.Atoi(g[1:])
	if perr != nil || n < 1 || n > maxGroup {
		return Format{}, true, fmt.Errorf("%q: group size %q is not allowed: must be an integer from 1 to %d", s, g[1:], maxGroup)
	}
	if n != defaultGroup {
		f.group = n
	}
	return f, true, nil
}

// Quant is a weight quantisation: a default format plus optional formats per
// role, and optionally a llama.cpp file type whose rules choose formats
// tensor by tensor (Q4_K_M). The zero Quant is F16 everywhere. Quants are
// comparable with ==; ParseQuant normalises, so equal specs give equal
// values.
type Quant struct {
	base Format
	ft   fileType // ftNone unless the default was given as a file type
	role [len(quantRoles)]roleFormat
}

type roleFormat struct {
	set bool
	f   Format
}

const quantForms = "use F16, Q8_0, Q4_0, Q4_K_M, INT8, INT4, W4A16 (also BF16, F32, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS; " +
	"llama.cpp's file types Q2_K, Q3_K_S, Q3_K_M, Q3_K_L, Q4_K_S, Q4_K_M, Q5_K_S, Q5_K_M, IQ4_NL, IQ4_XS), optionally @gN, or a mix like attn=INT8,ffn=INT4"

// ParseQuant reads a quantisation spec.
//
// A spec is a comma-separated list. An element is a format — F16, Q8_0,
// Q4_0, INT8 (W8A8), INT4 (W4A8), W4A16, and also BF16, F32, the GGUF block
// formats Q4_1, Q5_0, Q5_1, IQ4_NL, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K and IQ4_XS;
// names are case-insensitive — or ROLE=FORMAT with ROLE one of attn, ffn,
// embed, output. INT8, INT4 and W4A16 take @gN for the scale group size
// (default 32): "INT4@g128".
//
// The element without ROLE= may instead be a llama.cpp file type, the mix
// llama-quantize writes: Q4_K_M, Q4_K_S, Q5_K_M, Q5_K_S, Q3_K_S, Q3_K_M,
// Q3_K_L, Q2_K, IQ4_NL, IQ4_XS, also as llama.cpp names them in llama-bench's
// model_type ("Q4_K - Medium", "IQ4_XS - 4.25 bpw"). Its rules pick the
// format of each tensor by name and layer (see Model.Tensors). Where a name
// is both (Q2_K, IQ4_NL, IQ4_XS), the default is the file type and ROLE=
// takes the single format: "Q2_K" is llama.cpp's Q2_K mix, "attn=Q2_K"
// stores all attention at Q2_K. Plain "Q4_K", "Q5_K" and "Q3_K" are single
// formats everywhere (llama-quantize's command line reads them as Q4_K_M,
// Q5_K_M and Q3_K_M: write those for the mix).
//
// The rule for roles not named: a bare element (at most one) is the default
// for them; without a bare element the first element's format is the
// default. So "Q4_0,attn=Q8_0" is Q8_0 attention and Q4_0 elsewhere, and
// "attn=INT8,ffn=INT4" stores embeddings and the output matrix in INT8. A
// named role takes its format in every tensor, whatever a file type's rules
// say: "Q4_K_M,attn=Q8_0" stores all attention at Q8_0 and the FFN as
// Q4_K_M does.
//
// The output matrix follows llama.cpp's convention unless output= is given:
// when the default is a GGUF block format other than Q8_0 it is stored at
// Q6_K (see Quant.Format).
func ParseQuant(spec string) (Quant, error) {
	elems := strings.Split(spec, ",")
	var q Quant
	haveBase, haveFirst := false, false
	var first Format
	for _, el := range elems {
		where := ""
		if len(elems) > 1 {
			where = fmt.Sprintf(" (in %q)", spec)
		}
		roleName, src, named := strings.Cut(el, "=")
		if !named {
			src = el
		}
		ft, isType := parseFileType(src)
		f, ok, err := parseFormat(src, false)
		switch {
		case !named && isType:
			f, ok, err = Format{kind: fileTypes[ft].base}, true, nil
		case named && isType && !ok:
			return Quant{}, fmt.Errorf("%q is a llama.cpp file type, which picks formats tensor by tensor for the whole model: give it without ROLE=, e.g. \"%s,attn=Q8_0\"%s",
				strings.TrimSpace(src), fileTypes[ft].name, where)
		}
		if err != nil {
			return Quant{}, fmt.Errorf("%w%s", err, where)
		}
		if !ok {
			return Quant{}, fmt.Errorf("%q is not a quantisation%s: %s", strings.TrimSpace(src), where, quantForms)
		}
		if !haveFirst {
			first, haveFirst = f, true
		}
		if !named {
			if haveBase {
				return Quant{}, fmt.Errorf("%q has two default formats: give at most one element without ROLE=", spec)
			}
			q.base, haveBase = f, true
			if isType {
				q.ft = ft
			}
			continue
		}
		r := Role(strings.ToLower(strings.TrimSpace(roleName)))
		i := roleIndex(r)
		if i < 0 {
			return Quant{}, fmt.Errorf("%q is not a role%s: use attn, ffn, embed or output", strings.TrimSpace(roleName), where)
		}
		if q.role[i].set {
			return Quant{}, fmt.Errorf("role %s is given twice in %q", r, spec)
		}
		q.role[i] = roleFormat{set: true, f: f}
	}
	if !haveBase {
		// A default named like a file type is that file type, given as a
		// bare element or not, so that String's bare default reads back.
		q.base = first
		if ft, ok := parseFileType(first.String()); ok {
			q.ft = ft
		}
	}
	// Drop role formats equal to what the role gets anyway, so that equal
	// quantisations compare equal and print the same. A role some rule
	// stores in another format in some model keeps its format: naming it
	// overrides the rule.
	for i, r := range quantRoles {
		if q.role[i].set && q.role[i].f == q.implicit(r) && !q.ruled(r) {
			q.role[i] = roleFormat{}
		}
	}
	return q, nil
}

// implicit is the format of a role that the spec does not name, rules
// aside.
func (q Quant) implicit(r Role) Format {
	if r == RoleOutput && q.base.Block() && q.base.kind != fmtQ8_0 {
		// llama-quantize stores output.weight at Q6_K for every quantised
		// type but Q8_0 (llama_tensor_get_type); Q8_0 and float models keep
		// theirs.
		return formatQ6_K
	}
	return q.base
}

// Base is the default format: the one every role takes unless named — for
// a llama.cpp file type its default type (Q4_K for Q4_K_M).
func (q Quant) Base() Format { return q.base }

// Format is the storage of the weights of role r, model aside: the role's
// own format if the spec names it, else the default — except that the
// output matrix of a model whose default is a GGUF block format other than
// Q8_0 is Q6_K, as llama.cpp stores it (Q8_0 and F16 models keep their
// format there). Router and norm weights are F32. A model may still change
// this tensor by tensor: a llama.cpp file type's rules (attn_v of Q4_K_M),
// a tied embedding, a row length the block does not divide (Model.Tensors
// has the final word).
func (q Quant) Format(r Role) Format {
	switch r {
	case RoleRouter, RoleNorm:
		return formatF32
	}
	i := roleIndex(r)
	if i < 0 {
		panic(fmt.Sprintf("workloads: unknown role %q", r))
	}
	if q.role[i].set {
		return q.role[i].f
	}
	return q.implicit(r)
}

// BytesPerWeight is the stored size of one weight of role r (Format(r)).
func (q Quant) BytesPerWeight(r Role) float64 { return q.Format(r).BytesPerWeight() }

// ActDtype is the activation type matmuls on role r's weights take: fp16 for
// F16 and W4A16, int8 for INT8, INT4 and every GGUF block format. A unit
// runs them at its best supported dtype at or above it.
func (q Quant) ActDtype(r Role) dtype.Dtype { return q.Format(r).ActDtype() }

// String is the canonical spec: the default format or file type, then the
// roles that differ from it in the order attn, ffn, embed, output. It
// round-trips through ParseQuant.
func (q Quant) String() string {
	var b strings.Builder
	if q.ft != ftNone {
		b.WriteString(fileTypes[q.ft].name)
	} else {
		b.WriteString(q.base.String())
	}
	for i, r := range quantRoles {
		if q.role[i].set {
			fmt.Fprintf(&b, ",%s=%s", r, q.role[i].f)
		}
	}
	return b.String()
}

// KVFormat is the element type of the KV cache. The zero KVFormat is F16,
// llama.cpp's default.
type KVFormat struct{ f Format }

const kvForms = "use F16, BF16, F32, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, INT8, INT4 (optionally @gN) or FP8"

// ParseKVFormat reads a KV-cache type, case-insensitive:
//
//	F16, BF16     2 bytes an element (F16 is llama.cpp's default)
//	F32           4 bytes
//	Q8_0          34 bytes per 32 (llama.cpp --cache-type-k q8_0)
//	Q4_0, IQ4_NL  18 bytes per 32;  Q4_1 20, Q5_0 22, Q5_1 24 per 32
//	INT8, INT4    1 or 0.5 byte plus one fp16 scale per group (@gN, default 32)
//	FP8           1 byte (a per-tensor scale is negligible)
func ParseKVFormat(s string) (KVFormat, error) {
	f, ok, err := parseFormat(s, true)
	if err != nil {
		return KVFormat{}, err
	}
	if !ok {
		return KVFormat{}, fmt.Errorf("%q is not a KV-cache type: %s", strings.TrimSpace(s), kvForms)
	}
	return KVFormat{f: f}, nil
}

// BytesPerElement is the stored size of one K or V element, scales included.
func (k KVFormat) BytesPerElement() float64 { return k.f.BytesPerWeight() }

// Dtype is the type attention computes in with this cache, as a floor: fp16
// for F16, int8 for the integer and block formats, fp8 for FP8.
func (k KVFormat) Dtype() dtype.Dtype { return k.f.ActDtype() }

// String is the canonical name; it round-trips through ParseKVFormat.
func (k KVFormat) String() string { return k.f.String() }
