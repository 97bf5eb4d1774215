package sim

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestBandwidthLogHalvesItsResolution, by hand: at a bound of 4, seven
// passes of 1 s at DRAM utilisation 0.1, 0.2, … 0.7 fill four bins of one
// pass, which become two of two (0.15, 0.35) at the fourth pass; the next
// two make a third (0.55) and the last stays open. Each merged bin names
// its first and last pass and averages by time: one pass of 3 s at 0.9
// after one of 1 s at 0.1 is 0.7, not the plain mean 0.5.
func TestBandwidthLogHalvesItsResolution(t *testing.T) {
	defer func(n int) { maxBandwidthSamples = n }(maxBandwidthSamples)
	maxBandwidthSamples = 4
	var l bandwidthLog
	for i := 1; i <= 7; i++ {
		l.add(BandwidthSample{Pass: "p" + string(rune('0'+i)), StartS: float64(i - 1), Seconds: 1, DRAMUtil: float64(i) / 10})
	}
	got := l.samples()
	want := []struct {
		pass   string
		passes int
		dram   float64
	}{{"p1 … p2", 2, 0.15}, {"p3 … p4", 2, 0.35}, {"p5 … p6", 2, 0.55}, {"p7", 0, 0.7}}
	if len(got) != len(want) {
		t.Fatalf("%d samples %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Pass != w.pass || g.Passes != w.passes || math.Abs(g.DRAMUtil-w.dram) > 1e-12 || g.StartS != float64(2*i) {
			t.Errorf("sample %d = %+v, want %s (%d passes) from %d s at %.2f", i, g, w.pass, w.passes, 2*i, w.dram)
		}
	}
	var m bandwidthLog
	m.width = 2
	m.add(BandwidthSample{Pass: "a", Seconds: 1, DRAMUtil: 0.1})
	m.add(BandwidthSample{Pass: "b", Seconds: 3, DRAMUtil: 0.9})
	if s := m.samples()[0]; math.Abs(s.DRAMUtil-0.7) > 1e-12 || s.Seconds != 4 {
		t.Errorf("1 s at 0.1 then 3 s at 0.9 = %+v, want 4 s at 0.7", s)
	}
}

// TestBandwidthSamplesAreBounded: a run of more passes than the bound
// reports between half the bound and the bound of samples, which cover
// every pass once, in order, with the same busy time and the same DRAM
// and L3 traffic (utilisation × time) as the samples of every pass; a run
// under the bound reports every pass as it did.
func TestBandwidthSamplesAreBounded(t *testing.T) {
	run := func() *Result {
		cfg := configFor(t, opts{chip: "seed-c", model: "llama-3.2-1b", gen: 700, fidelity: Analytic})
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	whole := run()
	if n := len(whole.Bandwidth); n != 700 {
		t.Fatalf("%d samples for 700 tokens, want 700: the prefill (which gives the first) and 699 decode steps", n)
	}
	for _, b := range whole.Bandwidth {
		if b.Passes != 0 || strings.Contains(b.Pass, "…") {
			t.Fatalf("under the bound, sample %+v is not one pass's", b)
		}
	}
	defer func(n int) { maxBandwidthSamples = n }(maxBandwidthSamples)
	maxBandwidthSamples = 64
	binned := run().Bandwidth
	if n := len(binned); n < 32 || n > 64 {
		t.Fatalf("%d samples at a bound of 64, want 32 to 64", n)
	}
	sum := func(bs []BandwidthSample) (passes int, s, dram, l3 float64) {
		for _, b := range bs {
			passes += max(b.Passes, 1)
			s += b.Seconds
			dram += b.DRAMUtil * b.Seconds
			l3 += b.L3Util * b.Seconds
		}
		return
	}
	p0, s0, d0, l0 := sum(whole.Bandwidth)
	p1, s1, d1, l1 := sum(binned)
	if p1 != p0 || math.Abs(s1-s0) > 1e-9*s0 || math.Abs(d1-d0) > 1e-9*d0 || math.Abs(l1-l0) > 1e-9*math.Max(l0, 1e-30) {
		t.Errorf("binned: %d passes, %g s, DRAM %g, L3 %g; every pass: %d, %g s, %g, %g", p1, s1, d1, l1, p0, s0, d0, l0)
	}
	for i := 1; i < len(binned); i++ {
		if binned[i].StartS < binned[i-1].StartS {
			t.Fatalf("sample %d starts at %g s, before sample %d (%g s)", i, binned[i].StartS, i-1, binned[i-1].StartS)
		}
	}
	if first := binned[0]; first.StartS != whole.Bandwidth[0].StartS || !strings.HasPrefix(first.Pass, whole.Bandwidth[0].Pass+" … ") {
		t.Errorf("the first sample %+v does not start at the run's first pass %+v", first, whole.Bandwidth[0])
	}
}
