package sim

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/workloads"
)

// chat is a short conversation that reaches its context limit.
func chat(onFull string) *workloads.Scenario {
	return &workloads.Scenario{
		Name: "short-chat", Kind: workloads.Chat, Turns: 6, SystemPrompt: 100, Prompt: 50, Answer: 40,
		ContextLimit: 400, ThinkTime: 5, OnFull: onFull, ColdStart: true,
		Stages: []workloads.Stage{
			{Name: "capture", When: workloads.StageInput, Fixed: 0.02},
			{Name: "tokenize", When: workloads.StageInput, PerToken: 15e-6},
			{Name: "render", When: workloads.StageToken, Fixed: 0.5e-3},
			{Name: "postprocess", When: workloads.StageOutput, Fixed: 0.01},
		},
	}
}

func runChat(t *testing.T, sc *workloads.Scenario) *Result {
	t.Helper()
	cfg := configFor(t, opts{chip: "snapdragon-8-gen3", model: "llama-3.2-1b"})
	cfg.Scenario = sc
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestChatTurns: every turn's stages add up to what the user waits for,
// the first turn pays the cold start, the context grows turn by turn and
// is truncated at the limit, keeping the system prompt.
func TestChatTurns(t *testing.T) {
	r := runChat(t, chat(workloads.Truncate))
	if len(r.Turns) != 6 || r.Requests != 6 {
		t.Fatalf("%d turns, %d requests; want 6", len(r.Turns), r.Requests)
	}
	truncated := false
	for i, turn := range r.Turns {
		var total, first float64
		seenSample := false
		for _, st := range turn.Stages {
			total += st.Seconds
			if !seenSample {
				first += st.Seconds
			}
			seenSample = seenSample || st.Name == "sample"
		}
		first += 0.5e-3 // the first token's render
		if math.Abs(total-turn.TotalS) > 1e-9 || math.Abs(first-turn.TTFTS) > 1e-9 {
			t.Errorf("turn %d: stages sum to %.6f s (first token %.6f s), turn says %.6f s (%.6f s)", turn.Turn, total, first, turn.TotalS, turn.TTFTS)
		}
		if turn.Cold != (i == 0) || (turn.Cold && turn.Stages[0].Name != "load") {
			t.Errorf("turn %d: cold %v, stages %v", turn.Turn, turn.Cold, turn.Stages)
		}
		if turn.Context+turn.Prompt+turn.Answer > 400 {
			t.Errorf("turn %d passes the context limit: %d + %d + %d", turn.Turn, turn.Context, turn.Prompt, turn.Answer)
		}
		if i > 0 {
			prev := r.Turns[i-1]
			grown := prev.Context + prev.Prompt + prev.Answer
			if turn.Truncated {
				truncated = true
				if turn.Context >= grown || turn.Context < 100 {
					t.Errorf("turn %d truncated %d to %d: want shorter, keeping the 100-token system prompt", turn.Turn, grown, turn.Context)
				}
			} else if turn.Context != grown {
				t.Errorf("turn %d starts at %d tokens of context, want %d", turn.Turn, turn.Context, grown)
			}
			if gap := turn.StartS - (prev.StartS + prev.TotalS); math.Abs(gap-5) > 1e-9 {
				t.Errorf("turn %d starts %.3f s after the last answer, want the 5 s think time", turn.Turn, gap)
			}
		}
	}
	if !truncated {
		t.Error("no turn was truncated at the 400-token limit")
	}
	load := r.Turns[0].Stages[0].Seconds
	if math.Abs(load-r.ColdStartS) > 1e-9 || r.TTFTColdS <= r.TTFT+load*0.99 {
		t.Errorf("cold start %.3f s (load stage %.3f s); first token %.3f s warm, %.3f s cold", r.ColdStartS, load, r.TTFT, r.TTFTColdS)
	}
	if r.TurnLatency == nil || r.TurnLatency.TTFTP95 < r.TurnLatency.TTFTP50 || r.TurnLatency.TTFTP50 >= r.Turns[0].TTFTS {
		t.Errorf("turn latency %+v: want warm turns faster than the cold first", r.TurnLatency)
	}
}

// TestChatReset: a chat that resets at the limit starts again from an
// empty context and prefills the system prompt again.
func TestChatReset(t *testing.T) {
	r := runChat(t, chat(workloads.Reset))
	reset := false
	for _, turn := range r.Turns {
		if turn.Reset {
			reset = true
			if turn.Context != 0 || turn.Prompt < 100 {
				t.Errorf("turn %d after a reset: context %d, prompt %d; want 0 and the system prompt again", turn.Turn, turn.Context, turn.Prompt)
			}
		}
	}
	if !reset {
		t.Error("no turn reset at the limit")
	}
}

// TestSpread: a throttled session's per-token spread comes mostly from
// the clocks; an unthrottled dense decode's from the growing context.
func TestSpread(t *testing.T) {
	sc := &workloads.Scenario{Name: "hot", Kind: workloads.Sustained, Duration: 30, Prompt: 512}
	cfg := configFor(t, opts{chip: "snapdragon-8-gen3", sets: []string{"governor.skin.limit=30C"}})
	cfg.Scenario = sc
	hot, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cool := simulate(t, opts{chip: "snapdragon-8-gen3", prompt: 512, gen: 64})
	for _, r := range []*Result{hot, cool} {
		sp := r.Decode.Spread
		if sum := sp.ContextShare + sp.ClockShare + sp.OtherShare; math.Abs(sum-1) > 1e-9 || sp.StdMs <= 0 {
			t.Errorf("spread %+v: shares sum to %g", sp, sum)
		}
	}
	if sp := hot.Decode.Spread; sp.ClockShare < 0.5 {
		t.Errorf("throttled spread %+v: want most of it from the clocks", sp)
	}
	if sp := cool.Decode.Spread; sp.ContextShare < 0.9 || sp.ClockShare != 0 {
		t.Errorf("unthrottled spread %+v: want it from the context", sp)
	}
}

// TestRunTooLongIsRefused: a session that would keep more steps than the
// memory budget allows stops with an input error naming the budget and the
// flag that bounds it, instead of growing until the machine runs out of
// memory: at once when its first steps show it would pass the budget
// twice over, else when it reaches the budget.
func TestRunTooLongIsRefused(t *testing.T) {
	defer func(n int) { maxSeriesPoints = n }(maxSeriesPoints)
	sc, err := workloads.LoadScenario("sustained", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, opts{chip: "seed-c", model: "llama-3.2-1b", fidelity: Analytic})
	cfg.Scenario, cfg.Duration = sc, 60
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	perSecond := float64(r.Decode.Tokens+2*r.Requests) / 60 // a stretch per step, and each request's prefill and sampling
	maxSeriesPoints = 500
	for _, c := range []struct {
		duration float64
		want     string
	}{
		{3600, "by the end of its 1 h"},          // ~40 times the budget: stopped after its first 256 steps
		{1.5 * 500 / perSecond, "reached after"}, // 1.5 times: run until the budget
	} {
		cfg.Duration = c.duration
		_, err = Run(context.Background(), cfg)
		var ie *spec.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "more than 500 steps") || ie.Field != "duration" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.0f s: got %v, want an input error in the duration naming the budget and %q", c.duration, err, c.want)
		}
	}
}

// TestChatCompress: a chat that compresses at the limit keeps half of its
// context (never less than the system prompt) and pays one copy of the
// kept KV entries through DRAM, read and written, before the turn.
func TestChatCompress(t *testing.T) {
	sc := chat(workloads.Compress)
	sc.Keep = 0.5
	r := runChat(t, sc)
	cfg := configFor(t, opts{chip: "snapdragon-8-gen3", model: "llama-3.2-1b"})
	if err := Resolve(&cfg); err != nil { // the runtime's threads set the CPU's draw
		t.Fatal(err)
	}
	d := cfg.Chip.Memory.DRAM
	rate := float64(d.Bandwidth) * float64(d.SeqEfficiency)
	if draw := cfg.Chip.Unit("cpu").DRAMDraw(); draw > 0 && draw < rate {
		rate = draw
	}
	compressed := 0
	for i, turn := range r.Turns[1:] {
		prev := r.Turns[i]
		grown := prev.Context + prev.Prompt + prev.Answer
		if !turn.Compressed {
			if turn.Context != grown {
				t.Errorf("turn %d starts at %d tokens, want the %d so far", turn.Turn, turn.Context, grown)
			}
			continue
		}
		compressed++
		if want := max(100, grown/2); turn.Context != want {
			t.Errorf("turn %d compressed %d tokens to %d, want half: %d", turn.Turn, grown, turn.Context, want)
		}
		// 2 × positions × bytes a position, at the CPU's DRAM rate.
		want := 2 * float64(turn.Context) * cfg.Model.KVBytesPerToken(cfg.KV) / rate
		if got := stageSeconds(turn, "compress"); math.Abs(got/want-1) > 1e-12 {
			t.Errorf("turn %d: compress took %.6g s, want %.6g s", turn.Turn, got, want)
		}
	}
	if compressed == 0 {
		t.Error("no turn compressed at the 400-token limit")
	}
}

// TestChatSummarize: a chat that summarizes at the limit has the model
// write the summary, a decode of its tokens at about the answer's speed,
// and starts again from the system prompt, the summary and the message.
func TestChatSummarize(t *testing.T) {
	sc := chat(workloads.Summarize)
	sc.Summary = 60
	r := runChat(t, sc)
	summarized := 0
	for _, turn := range r.Turns {
		if !turn.Summarized {
			if stageSeconds(turn, "summarize") != 0 {
				t.Errorf("turn %d summarized without saying so", turn.Turn)
			}
			continue
		}
		summarized++
		if turn.Context != 0 || turn.Prompt != 100+60+50 {
			t.Errorf("turn %d after a summary: context %d, prompt %d; want 0 and 100 + 60 + 50", turn.Turn, turn.Context, turn.Prompt)
		}
		perSummary := stageSeconds(turn, "summarize") / 60
		perAnswer := stageSeconds(turn, "decode") / float64(turn.Answer)
		if perSummary < perAnswer*0.9 || perSummary > perAnswer*1.5 {
			t.Errorf("turn %d: %.3g s a summary token against %.3g s an answer token; want about the same (written after more context)", turn.Turn, perSummary, perAnswer)
		}
	}
	if summarized == 0 {
		t.Error("no turn summarized at the 400-token limit")
	}
	if want := 6 * 40; r.Decode.Tokens != want {
		t.Errorf("decode counts %d tokens, want the answers' %d (a summary is not an answer)", r.Decode.Tokens, want)
	}
}

// stageSeconds is the time of a turn's stage by name, 0 when it did not run.
func stageSeconds(t Turn, name string) float64 {
	for _, st := range t.Stages {
		if st.Name == name {
			return st.Seconds
		}
	}
	return 0
}

// TestOnDemandAllocationFaultsItsPages: a fresh context whose KV cache is
// allocated on demand pays, before its prefill, a page fault for every
// 4 KiB page of the cache and the page's zeroing through DRAM — with
// Genie's 4096 preallocated positions of Llama 3.2 1B, 128 MiB: 32,768
// faults — and a chat pays it once, for its first turn; from a pool, no
// turn pays it.
func TestOnDemandAllocationFaultsItsPages(t *testing.T) {
	rt, err := runtimes.Load("genie")
	if err != nil {
		t.Fatal(err)
	}
	run := func(allocation string) (*Result, Config) {
		cfg := configFor(t, opts{chip: "snapdragon-8-gen3", model: "llama-3.2-1b", quant: "W4A16", runtime: rt, fidelity: Analytic})
		sc := chat(workloads.Truncate)
		sc.Allocation = allocation
		cfg.Scenario = sc
		return resolvedRun(t, cfg)
	}
	pooled, _ := run(workloads.Pool)
	onDemand, cfg := run(workloads.OnDemand)
	bytes := cfg.Model.KVBytesPerToken(cfg.KV) * 4096
	if bytes != 128<<20 {
		t.Fatalf("the preallocated cache is %g bytes, want 128 MiB", bytes)
	}
	d := cfg.Chip.Memory.DRAM
	rate := float64(d.Bandwidth) * float64(d.SeqEfficiency)
	if draw := cfg.Chip.Unit("cpu").DRAMDraw(); draw > 0 && draw < rate {
		rate = draw
	}
	want := 32768*float64(cfg.Chip.Memory.PageFault) + bytes/rate
	for i, turn := range onDemand.Turns {
		got := stageSeconds(turn, "allocate")
		if i == 0 && math.Abs(got/want-1) > 1e-12 {
			t.Errorf("the first turn allocated in %.6g s, want %.6g s", got, want)
		}
		if i > 0 && got != 0 {
			t.Errorf("turn %d allocated again (%.6g s) in a context it keeps", turn.Turn, got)
		}
		if stageSeconds(pooled.Turns[i], "allocate") != 0 {
			t.Errorf("turn %d allocated from a pool", turn.Turn)
		}
	}
	if d := onDemand.Turns[0].TTFTS - pooled.Turns[0].TTFTS; math.Abs(d-want) > 1e-6*want {
		t.Errorf("the first token came %.6g s later on demand, want the allocation's %.6g s", d, want)
	}
}
