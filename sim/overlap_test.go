package sim

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/edgetwin/edgetwin/workloads"
)

// streamRun runs one warm request of 32 prompt and 64 answer tokens of
// llama-3.2-1b on the minimal chip (analytic fidelity), each token passing
// a render stage of fixed seconds, overlapped with the next step or not.
func streamRun(t *testing.T, render float64, overlap bool) *Result {
	t.Helper()
	yaml := fmt.Sprintf("name: stream\nkind: single\nprompt: 32\nanswer: 64\nstages:\n  - {name: render, when: token, fixed: %gs, overlap: %v}\n", render, overlap)
	path := filepath.Join(t.TempDir(), "stream.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := workloads.LoadScenario(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, opts{chipSrc: minimalChip, model: "llama-3.2-1b", fidelity: Analytic})
	cfg.Scenario = sc
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestOverlappedStagesHideBehindTheSteps: a render stage on its own thread
// runs while the unit computes the next token (the first token's render
// while it computes the second). Shorter than a step, it leaves the
// stream at the steps' pace and the turn shorter by every decoded token's
// render — 64 × 1 ms — for the same work, so no more energy; longer than
// a step, the stream goes at the render's pace, one token a second, and
// the turn ends when the last token is rendered.
func TestOverlappedStagesHideBehindTheSteps(t *testing.T) {
	const render = 1e-3
	serial, overlapped := streamRun(t, render, false), streamRun(t, render, true)
	step := *overlapped.Decode.MsPerToken.P50 / 1e3
	if step <= render {
		t.Fatalf("a step of %.4f s is not longer than the %g s render: the case does not test hiding", step, render)
	}
	if got, want := *serial.Decode.MsPerToken.P50-*overlapped.Decode.MsPerToken.P50, render*1e3; math.Abs(got-want) > 1e-6 {
		t.Errorf("the serial stream's step is %.6f ms longer than the overlapped one's, want the render's %.6f ms", got, want)
	}
	ts, to := serial.Turns[0].TotalS, overlapped.Turns[0].TotalS
	if got, want := ts-to, 64*render; math.Abs(got-want) > 1e-9 {
		t.Errorf("overlapping saved %.6f s of the turn, want 64 renders, %.6f s", got, want)
	}
	if overlapped.Turns[0].TTFTS != serial.Turns[0].TTFTS {
		t.Errorf("time to first token %.6f s overlapped, %.6f s serial: the first token is rendered before it shows either way", overlapped.Turns[0].TTFTS, serial.Turns[0].TTFTS)
	}
	if overlapped.Energy.TotalJ > serial.Energy.TotalJ || overlapped.Energy.TotalJ < 0.9*serial.Energy.TotalJ {
		t.Errorf("%.4f J overlapped, %.4f J serial: the same work, a little less idle time", overlapped.Energy.TotalJ, serial.Energy.TotalJ)
	}

	slow := streamRun(t, 1, true)
	if got := *slow.Decode.MsPerToken.P50; math.Abs(got-1000) > 1e-6 {
		t.Errorf("a 1 s render on its own thread: stream p50 %.4f ms, want the render's 1000 ms", got)
	}
	// Token 1 shows after its render, then 64 more renders back to back.
	if got, want := slow.Turns[0].TotalS-slow.Turns[0].TTFTS, 64.0; math.Abs(got-want) > 1e-6 {
		t.Errorf("the turn ran %.4f s past its first token, want 64 renders of 1 s", got)
	}
}
