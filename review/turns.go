package review

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/reports"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

// turnRuns is the chat session the per-turn figure draws: the first chip
// and model under the review's first chat scenario, or the built-in
// chat-30 when the review lists none.
type turnRuns struct {
	scenario Scenario
	builtin  bool // the review lists no chat scenario
	run      outcome
}

// defaultChat is the scenario of the per-turn figure when the review
// lists no chat scenario.
const defaultChat = "chat-30"

func planTurns(p *Plan) error {
	st := &turnRuns{scenario: Scenario{Scenario: defaultChat}, builtin: true}
	for _, s := range p.file.Scenarios {
		sc, err := s.Load()
		if err != nil {
			return err
		}
		if sc.Kind == workloads.Chat {
			st.scenario, st.builtin = s, false
			break
		}
	}
	p.state["turns"] = st
	p.simulate(p.single[0].withScenario(st.scenario), 0, &st.run)
	return nil
}

func turnSections(p *Plan) ([]reports.Section, error) {
	st := p.state["turns"].(*turnRuns)
	r := st.run.res
	if r == nil || len(r.Turns) == 0 {
		return nil, nil
	}
	m := p.file.Models[0]
	name := fmt.Sprintf("%s %s on %s, %s", m.Model, m.Quant, p.chipIDs[0], st.scenario.labelWithSets())
	d := reports.TurnPlotData("Per-turn latency — "+name, r.Turns)
	caption := fmt.Sprintf("What the user waits for in each of the %d turns of %s: a bar a turn, from the message sent to the answer complete, cut into the stages in the order they ran (%s). Stages of milliseconds hardly show beside the decode; the CSV has every stage's seconds. Below, the time to first token per turn: %s.",
		len(r.Turns), name, strings.Join(d.Stages, ", "), ttftSummary(r))
	if d.TTFTLog {
		caption += " Its axis is logarithmic, so the cold turn and the warm ones both read."
	}
	if tr := truncatedTurns(r.Turns); tr != "" {
		caption += " The context reached its limit and was truncated before turn " + tr + "."
	}
	if len(st.scenario.Set) > 0 {
		caption += " The review runs the scenario changed from the catalog's: " + strings.Join(st.scenario.Set, ", ") + "."
	}
	if st.builtin {
		caption += " The review lists no chat scenario, so this is the built-in " + defaultChat + "."
	}
	return []reports.Section{{ID: "turns", Title: "Per-turn latency by stage", Figure: d, Caption: caption}}, nil
}

// ttftSummary tells the cold first turn's time to first token from the
// warm turns' median and 95th percentile.
func ttftSummary(r *sim.Result) string {
	var parts []string
	for _, t := range r.Turns {
		if t.Cold {
			parts = append(parts, fmt.Sprintf("%.3g s on the cold turn %d, loading the model", t.TTFTS, t.Turn))
			break
		}
	}
	if l := r.TurnLatency; l != nil {
		parts = append(parts, fmt.Sprintf("%.3g s median and %.3g s 95th percentile over the warm turns", l.TTFTP50, l.TTFTP95))
	}
	if len(parts) == 0 {
		return "no turn ran"
	}
	return strings.Join(parts, ", against ")
}

// truncatedTurns lists the turns the context limit truncated before: "12,
// 19 and 27".
func truncatedTurns(turns []sim.Turn) string {
	var ns []string
	for _, t := range turns {
		if t.Truncated {
			ns = append(ns, strconv.Itoa(t.Turn))
		}
	}
	if len(ns) <= 1 {
		return strings.Join(ns, "")
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1]
}
