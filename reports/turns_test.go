package reports

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/sim"
)

// chatTurns is a three-turn chat by hand: a cold first turn that loads
// the model in 2 s, two warm ones, the last after a truncation and
// without the capture stage.
func chatTurns() []sim.Turn {
	st := func(kv ...any) []sim.StageTime {
		var out []sim.StageTime
		for i := 0; i < len(kv); i += 2 {
			out = append(out, sim.StageTime{Name: kv[i].(string), Seconds: kv[i+1].(float64)})
		}
		return out
	}
	return []sim.Turn{
		{Turn: 1, Cold: true, Stages: st("load", 2.0, "capture", 0.02, "prefill", 0.5, "decode", 6.0, "render", 0.1), TTFTS: 2.52, TotalS: 8.62},
		{Turn: 2, Stages: st("capture", 0.02, "prefill", 0.1, "decode", 5.0, "render", 0.1), TTFTS: 0.12, TotalS: 5.22},
		{Turn: 3, Truncated: true, Stages: st("prefill", 0.2, "decode", 7.0, "render", 0.1), TTFTS: 0.2, TotalS: 7.3},
	}
}

// TestTurnPlotData: the stages in the order they ran, load first; a
// turn's missing stage is 0; the cold turn's TTFT is more than ten
// times the fastest warm one's, so the TTFT axis is a log one.
func TestTurnPlotData(t *testing.T) {
	d := TurnPlotData("chat", chatTurns())
	if want := []string{"load", "capture", "prefill", "decode", "render"}; !slices.Equal(d.Stages, want) {
		t.Fatalf("stages %v, want %v", d.Stages, want)
	}
	if got := d.Turns[2].Seconds; !slices.Equal(got, []float64{0, 0, 0.2, 7, 0.1}) || !d.Turns[2].Truncated {
		t.Errorf("turn 3: %+v", d.Turns[2])
	}
	if !d.TTFTLog {
		t.Error("2.52 s against 0.12 s, yet a linear TTFT axis")
	}
	warm := TurnPlotData("warm", chatTurns()[1:])
	if warm.TTFTLog || !slices.Equal(warm.Stages, []string{"capture", "prefill", "decode", "render"}) {
		t.Errorf("warm turns only: log %v, stages %v", warm.TTFTLog, warm.Stages)
	}
	// A stage first seen in a later turn goes after the one before it.
	turns := chatTurns()
	turns[2].Stages = slices.Insert(turns[2].Stages, 1, sim.StageTime{Name: "retrieve", Seconds: 0.3})
	if got := TurnPlotData("", turns).Stages; !slices.Equal(got, []string{"load", "capture", "prefill", "retrieve", "decode", "render"}) {
		t.Errorf("a later stage: %v", got)
	}
}

// TestTurnFigure: the CSV has a row a turn with its stages, TTFT and
// total; the drawing names the stages, both axes and the two kinds of
// turn.
func TestTurnFigure(t *testing.T) {
	d := TurnPlotData("Per-turn latency — chat", chatTurns())
	var csv bytes.Buffer
	if err := d.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(lines) != 4 || lines[0] != "turn,cold,truncated,load_s,capture_s,prefill_s,decode_s,render_s,ttft_s,total_s" ||
		lines[1] != "1,true,false,2,0.02,0.5,6,0.1,2.52,8.62" {
		t.Errorf("CSV:\n%s", csv.String())
	}
	svg, err := renderBytes(d, "svg")
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, svg)
	for _, want := range []string{"Per-turn latency — chat", "load", "decode", "turn latency (s)", "time to first token (s)", "turn", "TTFT, warm turn", "TTFT, cold turn (model load)"} {
		if !slices.Contains(doc.texts, want) {
			t.Errorf("no text %q in %q", want, doc.texts)
		}
	}
	goldenChart(t, "figure-turns", d)
}

// TestTurnTableStopsAtItsRows: a session of more turns than the table
// shows prints the first maxTurnRows and says how many more the JSON
// holds; a serve scenario's rows are requests.
func TestTurnTableStopsAtItsRows(t *testing.T) {
	turns := make([]sim.Turn, maxTurnRows+50)
	for i := range turns {
		turns[i] = sim.Turn{Turn: i + 1, Stages: []sim.StageTime{{Name: "queue", Seconds: 0.1}, {Name: "prefill", Seconds: 0.2}}}
	}
	var b strings.Builder
	if err := turnTable(&b, turns, true); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	rows := strings.Count(out, "\n") - 3 // the blank line, the title and the header
	if rows != maxTurnRows+1 || !strings.Contains(out, "… 50 more") || !strings.Contains(out, "per request") || strings.Contains(out, "\n  101 ") {
		t.Errorf("%d rows, want %d turns and a line for the 50 more:\n%s", rows, maxTurnRows, out[len(out)-300:])
	}
}
