package review

import (
	"slices"
	"strings"
	"testing"
)

// chatReview lists a session and then a chat with its overrides: the
// per-turn figure takes the chat.
const chatReview = `title: t
chips: [seed-a]
models: [{model: llama-3.2-1b}]
scenarios: [{scenario: sustained, duration: 10s}, {scenario: chat-30, set: [turns=3, answer=16]}]
`

// TestPlanTurnsScenario: the per-turn figure runs the review's first chat
// scenario with its overrides, or the built-in chat-30 when the review
// lists none.
func TestPlanTurnsScenario(t *testing.T) {
	noChat := strings.Replace(chatReview, ", {scenario: chat-30, set: [turns=3, answer=16]}", "", 1)
	for _, c := range []struct {
		name, review string
		builtin      bool
		sets         []string
	}{
		{"listed", chatReview, false, []string{"turns=3", "answer=16"}},
		{"built-in", noChat, true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rv, err := Parse("review.yaml", []byte(c.review))
			if err != nil {
				t.Fatal(err)
			}
			p, err := Prepare(rv)
			if err != nil {
				t.Fatal(err)
			}
			st := p.state["turns"].(*turnRuns)
			if st.scenario.Scenario != "chat-30" || st.builtin != c.builtin || !slices.Equal(st.scenario.Set, c.sets) {
				t.Errorf("scenario %+v, built-in %v", st.scenario, st.builtin)
			}
		})
	}
}
