package workloads

// Quality is what a weight format costs in quality: the perplexity it adds
// over the unquantised model, as published for one reference model.
type Quality struct {
	// PPLDelta is the perplexity the format adds (null: no published
	// figure for it).
	PPLDelta *float64 `json:"ppl_delta"`
	// Reference is the model the figure was measured on; Source where it
	// was published.
	Reference string `json:"reference,omitempty"`
	Source    string `json:"source,omitempty"`
}

// quantizeTable is llama.cpp's table of what each file type adds to
// Llama 3 8B's perplexity on wikitext (F16 and BF16: Mistral 7B's).
const quantizeTable = "ggml-org/llama.cpp tools/quantize/quantize.cpp, QUANT_OPTIONS (the table llama-quantize --help prints)"

// pplDelta is that table, by file type.
var pplDelta = map[string]struct {
	delta float64
	ref   string
}{
	"Q2_K": {3.5199, "Llama-3-8B"}, "Q2_K_S": {3.1836, "Llama-3-8B"},
	"Q3_K_S": {1.6321, "Llama-3-8B"}, "Q3_K_M": {0.6569, "Llama-3-8B"}, "Q3_K_L": {0.5562, "Llama-3-8B"},
	"Q4_0": {0.4685, "Llama-3-8B"}, "Q4_1": {0.4511, "Llama-3-8B"},
	"Q4_K_S": {0.2689, "Llama-3-8B"}, "Q4_K_M": {0.1754, "Llama-3-8B"},
	"Q5_0": {0.1316, "Llama-3-8B"}, "Q5_1": {0.1062, "Llama-3-8B"},
	"Q5_K_S": {0.1049, "Llama-3-8B"}, "Q5_K_M": {0.0569, "Llama-3-8B"},
	"Q6_K": {0.0217, "Llama-3-8B"}, "Q8_0": {0.0026, "Llama-3-8B"},
	"F16": {0.0020, "Mistral-7B"}, "BF16": {-0.0050, "Mistral-7B"},
}

// QualityOf is the published quality cost of quantisation q: llama.cpp's
// perplexity increase for its file types, none (a null PPLDelta) for a
// format or mix no such table covers.
func QualityOf(q Quant) Quality {
	d, ok := pplDelta[q.String()]
	if !ok {
		return Quality{}
	}
	v := d.delta
	return Quality{PPLDelta: &v, Reference: d.ref, Source: quantizeTable}
}
