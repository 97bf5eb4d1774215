package workloads

import "strings"

// fileType is a llama.cpp file type ("ftype", what llama-quantize is asked
// for) whose rules store some tensors in other formats than its default:
// Q4_K_M keeps most matrices at Q4_K and some at Q6_K. The zero value means
// none: the quantisation is its default format, with only the rules
// llama-quantize applies to every quantised type (blockRules).
type fileType uint8

const (
	ftNone fileType = iota
	ftQ2_K
	ftQ3_K_S
	ftQ3_K_M
	ftQ3_K_L
	ftQ4_K_S
	ftQ4_K_M
	ftQ5_K_S
	ftQ5_K_M
	ftIQ4_NL
	ftIQ4_XS
	numFileTypes
)

type fileTypeInfo struct {
	name  string     // llama-quantize's spelling, and edgetwin's: "Q4_K_M"
	long  string     // llama.cpp's name, as llama-bench's model_type has it: "Q4_K - Medium"
	base  formatKind // the default type: token_embd and every tensor no rule picks
	rules []tensorRule
}

// tensorAt is what llama-quantize's choice for one tensor depends on
// besides its name.
type tensorAt struct {
	layer   int // the block; for attn_v and ffn_down llama.cpp's counters i_attention_wv and i_ffn_down, which equal it
	layers  int // blocks in the model (n_attention_wv, n_ffn_down)
	gqa     int // query heads per KV head (n_gqa)
	experts int // routed experts a layer, 0 for a dense model
}

// tensorRule stores the tensors of one kind ("attn_v", "ffn_down") at f
// where cond holds. In a list the first rule that matches a tensor wins.
type tensorRule struct {
	tensor string
	cond   func(tensorAt) bool
	f      formatKind
}

// The conditions of llama_tensor_get_type (llama.cpp src/llama-quant.cpp).
func always(tensorAt) bool            { return true }
func eightExperts(a tensorAt) bool    { return a.experts == 8 }
func notEightExperts(a tensorAt) bool { return a.experts != 8 }
func gqaAtLeast4(a tensorAt) bool     { return a.gqa >= 4 }
func firstEighth(a tensorAt) bool     { return a.layer < a.layers/8 }
func firstSixteenth(a tensorAt) bool  { return a.layer < a.layers/16 }

func layersBelow(n int) func(tensorAt) bool {
	return func(a tensorAt) bool { return a.layer < n }
}

// moreBits is llama.cpp's use_more_bits: the first and last eighth of the
// layers and every third one between.
func moreBits(a tensorAt) bool {
	i, n := a.layer, a.layers
	return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2
}

// blockRules are llama-quantize's choices for every quantised file type —
// it runs llama_tensor_get_type whenever the default is a block format —
// ahead of the file type's own: an 8-expert model (Mixtral) keeps attn_v
// and attn_k at Q8_0. (For 70B models llama.cpp also raises a Q3_K or Q4_K
// attn_v to Q5_K; that rule goes by llama.cpp's size class, not by shape,
// and is not modelled.)
var blockRules = []tensorRule{
	{"attn_v", eightExperts, fmtQ8_0},
	{"attn_k", eightExperts, fmtQ8_0},
}

// moeAttnOutput is the attn_output rule of Q2_K, Q3_K_S, Q3_K_M, Q4_K_S,
// Q4_K_M, IQ4_NL and IQ4_XS for 8-expert models. In those models the
// file types' other attn_output rules do not apply.
var moeAttnOutput = tensorRule{"attn_output", eightExperts, fmtQ5_K}

var iq4Rules = []tensorRule{
	{"attn_v", gqaAtLeast4, fmtQ5_K},
	{"ffn_down", firstEighth, fmtQ5_K}, // llama.cpp: without an importance matrix
	moeAttnOutput,
}

// fileTypes are the file types and their rules, as llama_tensor_get_type
// has them for a model that is not Falcon. The output matrix (Q6_K) and
// the row-fit fallbacks are not here: they are the same for every
// quantised type (Quant.implicit, fitRow).
var fileTypes = [numFileTypes]fileTypeInfo{
	ftQ2_K: {"Q2_K", "Q2_K - Medium", fmtQ2_K, []tensorRule{
		{"attn_v", gqaAtLeast4, fmtQ4_K},
		{"attn_v", always, fmtQ3_K},
		{"ffn_down", always, fmtQ3_K},
		moeAttnOutput,
		{"attn_output", notEightExperts, fmtQ3_K},
	}},
	ftQ3_K_S: {"Q3_K_S", "Q3_K - Small", fmtQ3_K, []tensorRule{moeAttnOutput}},
	ftQ3_K_M: {"Q3_K_M", "Q3_K - Medium", fmtQ3_K, []tensorRule{
		{"attn_v", layersBelow(2), fmtQ5_K},
		{"attn_v", always, fmtQ4_K},
		{"ffn_down", firstSixteenth, fmtQ5_K},
		{"ffn_down", always, fmtQ4_K},
		moeAttnOutput,
		{"attn_output", notEightExperts, fmtQ4_K},
	}},
	ftQ3_K_L: {"Q3_K_L", "Q3_K - Large", fmtQ3_K, []tensorRule{
		{"attn_v", always, fmtQ5_K},
		{"ffn_down", always, fmtQ5_K},
		{"attn_output", notEightExperts, fmtQ5_K},
	}},
	ftQ4_K_S: {"Q4_K_S", "Q4_K - Small", fmtQ4_K, []tensorRule{
		{"attn_v", layersBelow(4), fmtQ5_K},
		{"ffn_down", firstEighth, fmtQ5_K},
		moeAttnOutput,
	}},
	ftQ4_K_M: {"Q4_K_M", "Q4_K - Medium", fmtQ4_K, []tensorRule{
		{"attn_v", moreBits, fmtQ6_K},
		{"ffn_down", moreBits, fmtQ6_K},
		moeAttnOutput,
	}},
	ftQ5_K_S: {"Q5_K_S", "Q5_K - Small", fmtQ5_K, nil},
	ftQ5_K_M: {"Q5_K_M", "Q5_K - Medium", fmtQ5_K, []tensorRule{
		{"attn_v", moreBits, fmtQ6_K},
		{"ffn_down", moreBits, fmtQ6_K},
	}},
	ftIQ4_NL: {"IQ4_NL", "IQ4_NL - 4.5 bpw", fmtIQ4NL, iq4Rules},
	ftIQ4_XS: {"IQ4_XS", "IQ4_XS - 4.25 bpw", fmtIQ4XS, iq4Rules},
}

// parseFileType reads a file type by its name or llama.cpp's long name,
// case-insensitive, spaces collapsed: "q4_k_m", "Q4_K - Medium".
func parseFileType(s string) (fileType, bool) {
	s = strings.ToUpper(strings.Join(strings.Fields(s), " "))
	for ft, in := range fileTypes {
		if ft != int(ftNone) && (s == in.name || s == strings.ToUpper(in.long)) {
			return fileType(ft), true
		}
	}
	return ftNone, false
}

// ruleSets are the rule lists that apply to q's unnamed roles, in order.
func (q Quant) ruleSets() [2][]tensorRule {
	var sets [2][]tensorRule
	if q.base.Block() {
		sets[0] = blockRules
	}
	sets[1] = fileTypes[q.ft].rules
	return sets
}

// ruled reports whether a rule stores some tensor of role r, in some
// model, in another format than the default.
func (q Quant) ruled(r Role) bool {
	for _, rules := range q.ruleSets() {
		for _, rule := range rules {
			if tensorRole(rule.tensor) == r && rule.f != q.base.kind {
				return true
			}
		}
	}
	return false
}

// tensorFormat is the format of the tensor named name (of role r) at at,
// before the row-fit rule: the role's format if the spec names it, else
// the first rule for the tensor that holds, else the role's implicit
// format.
func (q Quant) tensorFormat(name string, r Role, at tensorAt) Format {
	if i := roleIndex(r); i < 0 || q.role[i].set {
		return q.Format(r)
	}
	kind := tensorKind(name)
	for _, rules := range q.ruleSets() {
		for _, rule := range rules {
			if rule.tensor == kind && rule.cond(at) {
				return Format{kind: rule.f}
			}
		}
	}
	return q.implicit(r)
}

// tensorKind strips the block and expert parts of a tensor name:
// "blk.3.ffn_down.e5" is "ffn_down", as llama.cpp matches names.
func tensorKind(name string) string {
	if rest, ok := strings.CutPrefix(name, "blk."); ok {
		_, name, _ = strings.Cut(rest, ".")
	}
	kind, _, _ := strings.Cut(name, ".")
	return kind
}

// tensorRole is the role of the tensors a rule names.
func tensorRole(kind string) Role {
	if strings.HasPrefix(kind, "ffn") {
		return RoleFFN
	}
	return RoleAttn
}
