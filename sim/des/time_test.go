package des_test

import (
	"math"
	"testing"

	"github.com/edgetwin/edgetwin/sim/des"
)

func TestUnits(t *testing.T) {
	if des.Second != 1_000_000_000_000 || des.Millisecond != 1e9 || des.Microsecond != 1e6 || des.Nanosecond != 1e3 {
		t.Fatalf("units: s=%d ms=%d µs=%d ns=%d", des.Second, des.Millisecond, des.Microsecond, des.Nanosecond)
	}
}

func TestSeconds(t *testing.T) {
	tests := []struct {
		in   float64
		want des.Time
	}{
		{0, 0},
		{1, des.Second},
		{1.5e-3, 1500 * des.Microsecond},
		{1e-9, des.Nanosecond},
		{0.4e-12, 0}, // rounds down
		{0.5e-12, 1}, // halves round away from zero
		{2.5e-12, 3}, // ... not to even
		{-1.5e-3, -1500 * des.Microsecond},
		{1e-15, 0},
		{9.223372e6, 9_223_372 * des.Second},
		{1e7, des.MaxTime}, // beyond ~106 days saturates
		{math.Inf(1), des.MaxTime},
		{-1e7, math.MinInt64},
		{math.Inf(-1), math.MinInt64},
	}
	for _, tt := range tests {
		if got := des.Seconds(tt.in); got != tt.want {
			t.Errorf("Seconds(%g) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestSecondsNaNPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Seconds(NaN) did not panic")
		}
	}()
	des.Seconds(math.NaN())
}

func TestTimeSeconds(t *testing.T) {
	tests := []struct {
		in   des.Time
		want float64
	}{
		{0, 0},
		{des.Second, 1},
		{1500 * des.Microsecond, 1.5e-3},
		{-250 * des.Millisecond, -0.25},
		{1, 1e-12},
	}
	for _, tt := range tests {
		if got := tt.in.Seconds(); got != tt.want {
			t.Errorf("Time(%d).Seconds() = %g, want %g", tt.in, got, tt.want)
		}
	}
}

func TestTimeString(t *testing.T) {
	tests := []struct {
		in   des.Time
		want string
	}{
		{0, "0 s"},
		{1, "1 ps"},
		{999, "999 ps"},
		{des.Nanosecond, "1 ns"},
		{1500 * des.Nanosecond, "1.5 µs"},
		{1500 * des.Microsecond, "1.5 ms"},
		{2 * des.Second, "2 s"},
		{des.Second + 1, "1.000000000001 s"},
		{123456789, "123.456789 µs"},
		{100 * des.Millisecond, "100 ms"},
		{-1500 * des.Microsecond, "-1.5 ms"},
		{-1, "-1 ps"},
		{des.MaxTime, "9223372.036854775807 s"},
		{math.MinInt64, "-9223372.036854775808 s"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Time(%d).String() = %q, want %q", int64(tt.in), got, tt.want)
		}
	}
}
