package suggest

import (
	"fmt"
	"slices"
	"testing"
)

var keys = []string{
	"ttft_s", "prefill.tokens_per_s", "decode.tokens_per_s", "decode.first_10s_tokens_per_s",
	"memory.l3_miss_rate", "memory.kv_l3_miss_rate", "memory.dram_bw_util", "thermal.peak_c", "thermal.skin_peak_c",
}

// TestClosest: the hints a user gets for the names they mistype. Each
// row once went wrong in one of the two suggesters this package replaced
// (l3_miss found nothing in either).
func TestClosest(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string // a prefix of the answer
	}{
		{"l3_miss", []string{"memory.l3_miss_rate"}},
		{"tokens_per_s", []string{"prefill.tokens_per_s", "decode.tokens_per_s"}},
		{"decode.token_per_s", []string{"decode.tokens_per_s"}},
		{"peak_c", []string{"thermal.peak_c", "thermal.skin_peak_c"}},
		{"ttft", []string{"ttft_s"}},
		{"runtme", []string{"runtime"}},
	} {
		known := keys
		if c.name == "runtme" {
			known = []string{"soc", "model", "quant", "runtime", "threads", "unit"}
		}
		got := Closest(c.name, known, 3)
		if len(got) < len(c.want) || !slices.Equal(got[:len(c.want)], c.want) {
			t.Errorf("Closest(%q) = %v, want %v first", c.name, got, c.want)
		}
	}
	if got := Closest("zzzzzzzzzzzz", keys, 3); len(got) != 1 {
		t.Errorf("a name near nothing gets %v: one best guess, not three", got)
	}
	if Closest("x", nil, 3) != nil || Closest("x", keys, 0) != nil {
		t.Error("no names or no room: no hint")
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"kitten", "sitting", 3}, {"", "abc", 3}, {"°C", "C", 1}, {"same", "same", 0}} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func ExampleClosest() {
	fmt.Println(Closest("l3_miss", []string{"decode.tokens_per_s", "memory.l3_miss_rate", "memory.kv_l3_miss_rate"}, 2))
	// Output: [memory.l3_miss_rate memory.kv_l3_miss_rate]
}
