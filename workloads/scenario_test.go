package workloads

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

func TestBuiltInScenariosLoad(t *testing.T) {
	for _, id := range ScenarioIDs() {
		s, err := LoadScenario(id, nil)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if s.Name != id {
			t.Errorf("%s is named %q", id, s.Name)
		}
	}
	chat, err := LoadScenario("chat-30", nil)
	if err != nil {
		t.Fatal(err)
	}
	if chat.Kind != Chat || chat.Turns != 30 || !chat.ColdStart || chat.OnFull != Truncate || len(chat.Stages) == 0 {
		t.Errorf("chat-30 = %+v", chat)
	}
}

func TestBadScenarios(t *testing.T) {
	const chat = "name: c\nkind: chat\nturns: 3\nprompt: 50\nanswer: 100\n"
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"unknown kind", "name: x\nkind: story\nprompt: 5\n", []string{"s.yaml:2", "kind", "single, chat, sustained"}},
		{"sustained without duration", "name: x\nkind: sustained\nprompt: 5\n", []string{"duration", "5m"}},
		{"chat without turns", strings.Replace(chat, "turns: 3\n", "", 1), []string{"turns"}},
		{"chat without answer", strings.Replace(chat, "answer: 100\n", "", 1), []string{"answer"}},
		{"spread too wide", chat + "spread: 1.5\n", []string{"spread", "[0, 1)"}},
		{"bad on_full", chat + "on_full: forget\n", []string{"s.yaml:6", "on_full", "truncate, reset, compress, summarize"}},
		{"stage without when", chat + "stages:\n  - {name: render, fixed: 1ms}\n", []string{"s.yaml:7", "when"}},
		{"bad stage when", chat + "stages:\n  - {name: render, when: later}\n", []string{"s.yaml:7", "input, token, output"}},
		{"negative think time", chat + "think_time: -3s\n", []string{"think_time"}},
		{"compress without keep", chat + "on_full: compress\n", []string{"keep", "above 0 and below 1"}},
		{"compress keeping all", chat + "on_full: compress\nkeep: 1\n", []string{"s.yaml:7", "keep", "below 1"}},
		{"keep without compress", chat + "keep: 0.5\n", []string{"s.yaml:6", "keep", "on_full is truncate"}},
		{"summarize without summary", chat + "on_full: summarize\n", []string{"summary", "256"}},
		{"summary without summarize", chat + "on_full: reset\nsummary: 100\n", []string{"s.yaml:7", "on_full is reset"}},
		{"summary past the limit", chat + "on_full: summarize\nsummary: 400\ncontext_limit: 512\nsystem_prompt: 100\n", []string{"summary", "no room for a 50-token message in the 512-token context limit"}},
		{"serve without rate", "name: s\nkind: serve\nduration: 1m\nprompt: 50\nanswer: 20\n", []string{"rate", "0.2"}},
		{"rate on a chat", chat + "rate: 1\n", []string{"s.yaml:6", "rate", "this scenario is chat"}},
		{"serve with turns", "name: s\nkind: serve\nduration: 1m\nrate: 1\nprompt: 50\nanswer: 20\nturns: 3\n", []string{"kind", "fresh contexts", "turns"}},
		{"serve past the bound", "name: s\nkind: serve\nduration: 10h\nrate: 1\nprompt: 50\nanswer: 20\n", []string{"rate", "36000 requests", "at most 10000"}},
		{"reclaim past all", chat + "reclaim: 150%\n", []string{"s.yaml:6", "reclaim", "0 to 100%"}},
		{"reclaim on one request", "name: x\nkind: single\nprompt: 5\nanswer: 5\nreclaim: 20%\n", []string{"reclaim", "between a chat's turns", "this scenario is single"}},
		{"overlapped input stage", chat + "stages:\n  - {name: capture, when: input, fixed: 20ms, overlap: true}\n", []string{"stages.capture", "only a token stage overlaps the next step; an input stage runs once"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.yaml")
			if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadScenario(path, nil)
			if err == nil {
				t.Fatalf("no error for %q", c.src)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestScenarioOverrides(t *testing.T) {
	ov, err := spec.ParseOverride("turns=4")
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadScenario("chat-30", []spec.Override{ov})
	if err != nil || s.Turns != 4 {
		t.Fatalf("chat-30 with turns=4: %v, %v", s, err)
	}
}

func TestLength(t *testing.T) {
	s := Scenario{Spread: 0.5}
	for _, c := range []struct {
		mean int
		u    float64
		want int
	}{{100, 0, 50}, {100, 0.5, 100}, {100, 0.999999, 150}, {1, 0, 1}} {
		if got := s.Length(c.mean, c.u); got != c.want {
			t.Errorf("Length(%d, %g) = %d, want %d", c.mean, c.u, got, c.want)
		}
	}
}
