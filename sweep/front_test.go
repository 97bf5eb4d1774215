package sweep

import (
	"slices"
	"strings"
	"testing"
)

// TestFront: fronts worked out by hand, ties and three objectives
// included.
func TestFront(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rows     [][]float64
		maximize []bool
		want     []int
	}{{
		// min a, max b. 1 and 2 tie, so neither dominates the other and
		// both are on the front; (3,2) loses to (2,3) in both; (1,0) to
		// (1,1) in b alone; (5,5) to (4,5) in a alone.
		name:     "two objectives",
		rows:     [][]float64{{1, 1}, {2, 3}, {2, 3}, {3, 2}, {4, 5}, {1, 0}, {5, 5}},
		maximize: []bool{false, true},
		want:     []int{0, 1, 2, 4},
	}, {
		// min a, min b, max c. (3,3,0) loses to (3,3,2) in c alone;
		// (2,6,0) to (1,5,1) in all three; (6,6,3) is worst in a and b
		// but alone best in c.
		name:     "three objectives",
		rows:     [][]float64{{1, 5, 1}, {5, 1, 1}, {3, 3, 0}, {3, 3, 2}, {2, 6, 0}, {6, 6, 3}},
		maximize: []bool{false, false, true},
		want:     []int{0, 1, 3, 5},
	}, {
		name:     "all equal",
		rows:     [][]float64{{1, 1}, {1, 1}, {1, 1}},
		maximize: []bool{true, true},
		want:     []int{0, 1, 2},
	}, {
		name:     "none",
		maximize: []bool{true, false},
	}} {
		if got := Front(tc.rows, tc.maximize); !slices.Equal(got, tc.want) {
			t.Errorf("%s: front %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestResultFront: points that did not run, fail a requirement or have a
// null objective are off the front, even when nothing beats them.
func TestResultFront(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	r := &Result{
		Objectives: []Objective{{Text: "a"}, {Text: "b", Maximize: true}},
		Points: []Point{
			{Objectives: []*float64{v(2), v(2)}},                        // 0: on the front
			{Objectives: []*float64{v(1), v(9)}, Unmet: []string{"no"}}, // 1: would dominate, fails
			{Objectives: []*float64{v(0), nil}},                         // 2: null b
			{Objectives: []*float64{v(0), v(9)}, Err: "does not fit"},   // 3: did not run
			{Objectives: []*float64{v(3), v(3)}},                        // 4: on the front
			{Objectives: []*float64{v(3), v(1)}},                        // 5: beaten by 0
		},
	}
	if got := r.Front(); !slices.Equal(got, []int{0, 4}) {
		t.Errorf("front %v, want [0 4]", got)
	}
	if got := r.OnFront(); len(got.Points) != 2 || len(r.Points) != 6 {
		t.Errorf("OnFront kept %d points (want 2) and left the sweep %d (want 6)", len(got.Points), len(r.Points))
	}
}

func TestParseObjectives(t *testing.T) {
	got, err := ParseObjectives("min:ttft_s, max:max(decode.tokens_per_s, 1),min:vary.kv")
	want := []Objective{{Text: "ttft_s"}, {Text: "max(decode.tokens_per_s, 1)", Maximize: true}, {Text: "vary.kv"}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	for _, tc := range []struct{ spec, want string }{
		{"ttft_s,max:decode.tokens_per_s", `"ttft_s" has no direction`},
		{"min:ttft_s", "has 1 objective(s)"},
		{"min:a,min:b,min:c,min:d", "has 4 objective(s)"},
		{"min:a,max:a", "names a twice"},
		{"min:,max:a", "has no expression"},
	} {
		if _, err := ParseObjectives(tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.spec, err, tc.want)
		}
	}
}
