package sim

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/workloads"
)

// TestScheduleCatalog: every built-in schedule loads and compiles.
func TestScheduleCatalog(t *testing.T) {
	ids := ScheduleIDs()
	if len(ids) < 2 {
		t.Fatalf("schedules: %v, want power-aware and latency-budget at least", ids)
	}
	for _, id := range ids {
		if _, err := LoadSchedule(id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// TestBadSchedules: a schedule's mistakes are errors at its line, before
// anything runs.
func TestBadSchedules(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"name: x\nrules:\n  - when: skin_c >\n    idle: 1s\n", "s.yaml:3:11: field rules.0.when"},
		{"name: x\nrules:\n  - when: skin > 40\n    idle: 1s\n", "a condition sees time_s"},
		{"name: x\nrules:\n  - when: skin_c + 1\n    idle: 1s\n", "s.yaml:3"},
		{"name: x\nrules:\n  - when: \"true\"\n", "one action"},
		{"name: x\nrules:\n  - when: \"true\"\n    idle: 1s\n    decode: plain\n", "one action"},
		{"name: x\nrules:\n  - when: \"true\"\n    idle: 2h\n", "at most 60 s"},
		{"name: x\nrules:\n  - when: \"true\"\n    decode: greedy\n", "use one of plain, speculative"},
		{"name: x\nrules: []\n", "at least one rule"},
		{"name: x\nbudget: -3s\nrules:\n  - when: \"true\"\n    idle: 1s\n", "must not be negative"},
		{"name: x\npause: 1s\nrules:\n  - when: \"true\"\n    idle: 1s\n", "pause"},
	} {
		_, err := DecodeSchedule("s.yaml", []byte(c.src))
		var se *spec.Error
		if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a located error saying %q", c.src, err, c.want)
		}
	}
	cfg := configFor(t, opts{chip: "seed-c", model: "llama-3.2-1b", prompt: 8, gen: 4, fidelity: Analytic})
	cfg.Schedule, _ = LoadSchedule("latency-budget")
	var ie *spec.Error
	if _, err := Run(context.Background(), cfg); !errors.As(err, &ie) || ie.Field != "schedule" || !strings.Contains(ie.Msg, "give the draft model") {
		t.Errorf("latency-budget without a draft: %v, want an input error in the schedule asking for the draft model", err)
	}
}

// TestPauseAddsItsTime: a rule that pauses 10 ms after every step of a
// 16-token decode adds 160 ms to the decode, in 16 windows, and the chip
// draws less power on average.
func TestPauseAddsItsTime(t *testing.T) {
	cfg := configFor(t, opts{chip: "seed-c", model: "llama-3.2-1b", prompt: 8, gen: 16, fidelity: Analytic})
	plain, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Schedule, err = DecodeSchedule("s.yaml", []byte("name: every-step\nrules:\n  - when: tokens >= 1\n    idle: 10ms\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Decode.Seconds - plain.Decode.Seconds; got < 0.16-1e-6 || got > 0.16+1e-3 {
		t.Errorf("decode took %.4f s more, want 0.16 s (16 pauses of 10 ms)", got)
	}
	if s := r.Schedule; s.IdleWindows != 16 || s.IdleS < 0.16-1e-9 || s.IdleS > 0.16+1e-9 {
		t.Errorf("schedule: %+v, want 16 windows, 0.16 s", s)
	}
	if *r.Energy.AvgPowerW >= *plain.Energy.AvgPowerW {
		t.Errorf("average power %.3f W with pauses, %.3f W without: want less", *r.Energy.AvgPowerW, *plain.Energy.AvgPowerW)
	}
}

// TestPowerAwareDelaysThrottling: on the 8 Gen 3's sustained session,
// which throttles after about three minutes, the power-aware schedule
// keeps the skin under its trip for the whole five minutes, at a lower
// decode rate.
func TestPowerAwareDelaysThrottling(t *testing.T) {
	if testing.Short() {
		t.Skip("two five-minute sessions")
	}
	sc, err := workloads.LoadScenario("sustained", nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(sched string) *Result {
		cfg := configFor(t, opts{chip: "snapdragon-8-gen3", model: "llama-2-7b", fidelity: Analytic})
		cfg.Scenario, cfg.Duration = sc, 300
		// llama.cpp's CPU backend: the hottest stack this phone runs a
		// Q4_0 7B on (its OpenCL GPU kernels decode too slowly to throttle).
		cfg.Runtime = runtimes.MustLoad("llama.cpp-cpu")
		if sched != "" {
			cfg.Schedule, _ = LoadSchedule(sched)
		}
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain, paced := run(""), run("power-aware")
	if plain.Thermal.ThrottleOnsetS == nil || *plain.Thermal.ThrottleOnsetS > 250 {
		t.Fatalf("without a schedule the session throttles at %s s, want within 250 s (the test's premise)", onset(plain.Thermal.ThrottleOnsetS))
	}
	if on := paced.Thermal.ThrottleOnsetS; on != nil {
		t.Errorf("power-aware throttles at %.0f s (plain at %.0f s), want no throttling in 300 s", *on, *plain.Thermal.ThrottleOnsetS)
	}
	if *paced.Thermal.SkinPeakC >= *plain.Thermal.SkinPeakC {
		t.Errorf("skin peak %.1f °C with the schedule, %.1f °C without: want cooler", *paced.Thermal.SkinPeakC, *plain.Thermal.SkinPeakC)
	}
	if paced.Schedule.IdleWindows == 0 {
		t.Errorf("power-aware inserted no pause")
	}
}

// TestLatencyBudgetPicksPerTurn: on a chat, the latency-budget schedule
// decodes speculatively exactly the turns it predicts over budget, and
// counts the turns within budget.
func TestLatencyBudgetPicksPerTurn(t *testing.T) {
	sc, err := workloads.LoadScenario("chat-30", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, opts{chip: "snapdragon-8-gen3", model: "llama-3.2-3b", fidelity: Analytic})
	cfg.Scenario = sc
	draft, _ := workloads.LoadModel("llama-3.2-1b", nil)
	cfg.Draft = &Draft{Model: draft}
	cfg.Schedule, _ = LoadSchedule("latency-budget")
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Schedule
	spec, within := 0, 0
	for _, tn := range r.Turns {
		if tn.Speculative {
			spec++
		}
		if tn.WithinBudget == nil {
			t.Fatalf("turn %d has no within_budget", tn.Turn)
		}
		if *tn.WithinBudget != (tn.TotalS <= s.BudgetS) {
			t.Errorf("turn %d: %.1f s, within_budget %v against %.0f s", tn.Turn, tn.TotalS, *tn.WithinBudget, s.BudgetS)
		}
		if *tn.WithinBudget {
			within++
		}
	}
	if spec != s.SpeculativeTurns || within != s.TurnsWithinBudget || s.Turns != len(r.Turns) {
		t.Errorf("schedule %+v; counted %d speculative, %d within budget of %d", s, spec, within, len(r.Turns))
	}
	if spec == 0 || spec == len(r.Turns) {
		t.Errorf("%d of %d turns speculative: want the schedule to pick per turn", spec, len(r.Turns))
	}
}

// onset prints a throttle onset, "never" when there is none.
func onset(s *float64) string {
	if s == nil {
		return "never"
	}
	return strconv.FormatFloat(*s, 'f', 0, 64)
}
