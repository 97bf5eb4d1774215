package workloads

import "testing"

// TestQualityOf: the file types llama-quantize's table covers carry its
// figures, in the order of their bits (more bits, less perplexity added);
// a format it does not cover has none.
func TestQualityOf(t *testing.T) {
	order := []string{"Q2_K", "Q3_K_M", "Q4_0", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0"}
	prev := 1e9
	for _, s := range order {
		q, err := ParseQuant(s)
		if err != nil {
			t.Fatal(err)
		}
		qc := QualityOf(q)
		if qc.PPLDelta == nil || qc.Reference != "Llama-3-8B" || qc.Source == "" {
			t.Fatalf("%s: %+v, want a cited figure on Llama 3 8B", s, qc)
		}
		if *qc.PPLDelta >= prev {
			t.Errorf("%s adds %.4f perplexity, no less than the format below it (%.4f)", s, *qc.PPLDelta, prev)
		}
		prev = *qc.PPLDelta
	}
	if q, _ := ParseQuant("Q4_0"); *QualityOf(q).PPLDelta != 0.4685 {
		t.Errorf("Q4_0: %v, want llama.cpp's +0.4685", *QualityOf(q).PPLDelta)
	}
	for _, s := range []string{"W4A16", "INT8", "attn=INT8,ffn=INT4"} {
		q, err := ParseQuant(s)
		if err != nil {
			t.Fatal(err)
		}
		if qc := QualityOf(q); qc.PPLDelta != nil {
			t.Errorf("%s: %v, want no figure", s, *qc.PPLDelta)
		}
	}
}
