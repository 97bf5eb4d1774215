package reports

import (
	"slices"
	"testing"

	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/sweep"
)

// TestFrontPlotData: every passing point in objective space, the front's
// points apart and joined in x order, a point failing a requirement left
// out, and a field objective scaled in its field's unit.
func TestFrontPlotData(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	const MiB = 1 << 20
	r := &sweep.Result{
		SoC: "seed-c", Model: "m", Quant: "Q4_0",
		Fields:     []sweep.Field{{Name: "memory.l3.size", Kind: units.KindBytes}},
		Metrics:    []string{"decode.tokens_per_s"},
		Requires:   []string{"ttft_s < 1"},
		Objectives: []sweep.Objective{{Text: "vary.memory.l3.size"}, {Text: "decode.tokens_per_s", Maximize: true}},
		Points: []sweep.Point{
			{Values: []float64{8 * MiB}, Objectives: []*float64{v(8 * MiB), v(12)}}, // front
			{Values: []float64{4 * MiB}, Objectives: []*float64{v(4 * MiB), v(9)}},  // front
			{Values: []float64{6 * MiB}, Objectives: []*float64{v(6 * MiB), v(8)}},  // beaten by 4 MiB
			{Values: []float64{2 * MiB}, Objectives: []*float64{v(2 * MiB), v(20)}, Unmet: []string{"ttft_s < 1 is false"}},
		},
	}
	d := FrontPlotData(r)
	if d.XLabel != "min:vary.memory.l3.size (MiB)" || len(d.Panels) != 1 || d.Panels[0].YLabel != "max:decode.tokens_per_s" {
		t.Fatalf("labels %q / %+v", d.XLabel, d.Panels)
	}
	all, front := d.Panels[0].Lines[0], d.Panels[0].Lines[1]
	if !all.Scatter || !slices.Equal(all.X, []float64{6}) || !slices.Equal(all.Y, []float64{8}) {
		t.Errorf("the points off the front: %+v, want the 6 MiB one alone, unjoined", all)
	}
	if front.Scatter || !slices.Equal(front.X, []float64{4, 8}) || !slices.Equal(front.Y, []float64{9, 12}) {
		t.Errorf("the front: %+v, want 4 and 8 MiB joined in x order", front)
	}
	if _, err := d.Figure(); err != nil {
		t.Error(err)
	}
}
