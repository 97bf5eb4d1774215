package advisor

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWithUnits: numbers with a unit become SI base numbers; names with
// digits, plain numbers, exponents and string literals are left alone.
func TestWithUnits(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ttft_s < 500ms", "ttft_s < 0.5"},
		{"ttft_s < 0.5", "ttft_s < 0.5"},
		{"memory.kv_bytes <= 8GiB && thermal.skin_peak_c < 43C", "memory.kv_bytes <= 8.589934592e+09 && thermal.skin_peak_c < 43"},
		{"memory.l3_miss_rate < 50%", "memory.l3_miss_rate < 0.5"},
		{"chip.memory.dram.bandwidth >= 68.3GB/s", "chip.memory.dram.bandwidth >= 6.83e+10"},
		{"energy.avg_power_w < 2500mW", "energy.avg_power_w < 2.5"},
		{"decode.ms_per_token.p99 < 30", "decode.ms_per_token.p99 < 30"},
		{"x2 + 1e3 > 2", "x2 + 1e3 > 2"},
		{"ttft_s < 1h30m", "ttft_s < 5400"},
		{"unit == '5W'", "unit == '5W'"},
		{"ttft_s*2 < 1s", "ttft_s*2 < 1"},
	} {
		got, _, err := withUnits(c.in)
		if err != nil || got != c.want {
			t.Errorf("withUnits(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"ttft_s < 5parsecs", "x < 3e"} {
		if got, _, err := withUnits(in); err == nil {
			t.Errorf("withUnits(%q) = %q; want an error naming the unit", in, got)
		}
	}
}

// TestRequirementWithUnits: a requirement with units compiles and means
// what it says in the result's base units.
func TestRequirementWithUnits(t *testing.T) {
	env, _ := testEnv(t)
	r, err := env.compileRequirement("ttft_s < 500ms")
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "ttft_s < 500ms" {
		t.Errorf("the requirement's text is %q; want it as given", r.Text)
	}
	if _, err := env.compileRequirement("ttft_s < 5parsecs"); err == nil || !strings.Contains(err.Error(), `"parsecs"`) {
		t.Errorf("an unknown unit: %v", err)
	}
	for _, ok := range []string{"memory.l3_miss_rate < 50%", "chip.memory.dram.bandwidth >= 50GB/s", "2s > ttft_s && thermal.peak_c < 90C"} {
		if _, err := env.compileRequirement(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for in, want := range map[string]string{
		"ttft_s < 5GB":                       "ttft_s is a duration, 5GB a size",
		"decode.tokens_per_s > 5W":           "decode.tokens_per_s is a plain number, 5W a power",
		"chip.memory.dram.bandwidth >= 50GB": "chip.memory.dram.bandwidth is a bandwidth, 50GB a size",
		"1GB < ttft_s":                       "ttft_s is a duration, 1GB a size",
	} {
		if _, err := env.compileRequirement(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", in, err, want)
		}
	}
}

// FuzzWithUnits: any text is rewritten or refused without a panic, a
// rewrite is valid UTF-8 when its input is, and text without a digit is
// left as it was.
func FuzzWithUnits(f *testing.F) {
	for _, s := range []string{"ttft_s < 500ms", "a == 'x1W'", "1e9", "45°C", "50%", "µs", "2µW + 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _, err := withUnits(s)
		if err != nil {
			return
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Errorf("withUnits(%q) = %q, not UTF-8", s, got)
		}
		if !strings.ContainsAny(s, "0123456789") && got != s {
			t.Errorf("withUnits(%q) = %q; text without a number must stay", s, got)
		}
	})
}

// TestDivisionByZero: an objective that divides by a literal zero is
// refused when it compiles, before any run (it was +Inf for every chip).
func TestDivisionByZero(t *testing.T) {
	env, _ := testEnv(t)
	for _, in := range []string{"ttft_s / 0", "ttft_s / 0.0", "decode.tokens_per_s % 0"} {
		if _, err := env.compileObjective("--minimize", in); err == nil || !strings.Contains(err.Error(), "divides by zero") {
			t.Errorf("%s: %v", in, err)
		}
	}
	if _, err := env.compileObjective("--minimize", "ttft_s / 2"); err != nil {
		t.Error(err)
	}
}
