package advisor

import (
	"context"
	"strings"
	"testing"
)

// TestNoSensitivity: the same ranking without the reruns — no
// elasticities, no vendor questions, a diagnosis without the what-if
// clause.
func TestNoSensitivity(t *testing.T) {
	req := Request{Candidates: []string{"seed-a", "seed-c"}, Requires: []string{"decode.tokens_per_s > 1"}, Load: loader(t, "seed-moe-3b")}
	full := adviseFor(t, req)
	req.NoSensitivity = true
	bare := adviseFor(t, req)
	for i, r := range bare.Ranking {
		if r.SoC != full.Ranking[i].SoC || *r.Objective != *full.Ranking[i].Objective || r.Pass != full.Ranking[i].Pass {
			t.Errorf("rank %d: %s %v, with sensitivity %s %v", i+1, r.SoC, *r.Objective, full.Ranking[i].SoC, *full.Ranking[i].Objective)
		}
		if len(r.Sensitivity) != 0 || strings.Contains(r.Diagnosis, "+20% DRAM bandwidth") {
			t.Errorf("%s: sensitivity %v, diagnosis %q", r.SoC, r.Sensitivity, r.Diagnosis)
		}
	}
	if len(bare.VendorQuestions) != 0 || len(full.VendorQuestions) == 0 {
		t.Errorf("vendor questions: %d without the reruns, %d with", len(bare.VendorQuestions), len(full.VendorQuestions))
	}
}

// TestCheckRequirement compiles one requirement against the keys.
func TestCheckRequirement(t *testing.T) {
	p, err := Prepare(Request{Candidates: []string{"seed-a"}, Load: loader(t, "seed-moe-3b")})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Env().CheckRequirement("ttft_s < 1 && chip.price_usd < 300"); err != nil {
		t.Error(err)
	}
	if err := p.Env().CheckRequirement("ttft < 1"); err == nil || !strings.Contains(err.Error(), "ttft") {
		t.Errorf("an unknown key: %v", err)
	}
}

func adviseFor(t *testing.T, req Request) *Advice {
	t.Helper()
	p, err := Prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return a
}
