package main

import (
	"io"
	"path/filepath"
	"testing"
)

// Issue 19's figures, measured when it was filed (2026-12-03, one core of
// the 2-core development machine, the whole command): each benchmark
// below reports its speed as a multiple of its own, the stored baseline
// its targets are ratios to.
const (
	filedSustainedRate = 2500.0 // simulated seconds per wall second, the 30-minute sustained session
	filedSweepPoint    = 6.4e-3 // seconds per analytic sweep point
	filedAdviseChip    = 45.0   // seconds, advise chip over the catalog
	filedReport        = 40.0   // seconds, report of examples/review
)

// BenchmarkSustained30mCLI is issue 4's speed target as a user meets it:
// the whole `edgetwin simulate` command (loading the catalog, the
// 30-minute sustained session of llama-2-7b Q4_0 on the Snapdragon 8 Gen 3
// at tile fidelity, the report) and how many simulated seconds it covers
// per second of wall time; issue 4's target was 1,000 on one core and
// issue 19's is 10,000 (5,800–6,900 on 2026-12-07 on the 2-core
// development machine with -cpu 1, 11,200–11,600 on 2026-12-08 once a
// prompt's alike layers replayed the one before's L3 hits):
//
//	taskset -c 0 go test -run '^$' -bench Sustained30mCLI -cpu 1 ./cmd/edgetwin
func BenchmarkSustained30mCLI(b *testing.B) {
	args := []string{"simulate", "--soc", "snapdragon-8-gen3", "--model", "llama-2-7b", "--quant", "Q4_0",
		"--scenario", "sustained", "--duration", "30m"}
	for b.Loop() {
		if code := run(args, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	rate := 30 * 60 * float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "sim-s/wall-s")
	b.ReportMetric(rate/filedSustainedRate, "x-filed")
}

// BenchmarkSweepPointAnalytic is issue 19's first speed target as a user
// meets it: an analytic sweep of 100 DRAM bandwidths of the teaching MoE
// on seed-c, the whole command, reported per point (the target is 1 ms on
// one core. On the 2-core development machine with -cpu 1: 15–16 ms early
// on 2026-12-03, the chip loaded twice a point; 1.8 ms once a load parsed
// each file once; 1.0–1.1 ms after the speed branch (a graph's passes
// lowered once and shared, the derived figures decoded in place), about a
// quarter of it the point's chip load and two thirds its passes; 1.39–1.57
// ms on 2026-12-07, as the runs grew (storage, runtimes, budgets), and
// 1.31 once the analytic pass took the builtin max for math.Max; on
// 2026-12-08 1.28–1.54 with the morning's code and 0.91–0.99 in the same
// hour once an analytic run gave no tensor an address, a chip load parsed
// only the defaults it writes and kept its document after them, a clone
// shared the tree until it writes and a run looked its unit's matrix
// figures up once per weight format):
//
//	taskset -c 0 go test -run '^$' -bench SweepPointAnalytic -cpu 1 ./cmd/edgetwin
func BenchmarkSweepPointAnalytic(b *testing.B) {
	const points = 100
	args := []string{"sweep", "--soc", "seed-c", "--model", "seed-moe-3b", "--fidelity", "analytic",
		"--vary", "memory.dram.bandwidth=20GB/s..119GB/s:1GB/s", "--metrics", "decode.tokens_per_s,ttft_s"}
	for b.Loop() {
		if code := run(args, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	point := b.Elapsed().Seconds() / float64(b.N) / points
	b.ReportMetric(point*1e3, "ms/point")
	b.ReportMetric(filedSweepPoint/point, "x-filed")
}

// BenchmarkAdviseChip is issue 19's `advise chip` over the whole catalog
// as a user meets it, the whole command (45 s on one core when the issue
// was filed; its target is 3× that; 7.3 s on 2026-12-08):
//
//	taskset -c 0 go test -run '^$' -bench AdviseChip -cpu 1 -benchtime 1x ./cmd/edgetwin
func BenchmarkAdviseChip(b *testing.B) {
	for b.Loop() {
		if code := run([]string{"advise", "chip"}, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(filedAdviseChip/(b.Elapsed().Seconds()/float64(b.N)), "x-filed")
}

// BenchmarkReportReview is issue 19's `report` of the example review, the
// whole command with its figures written (40 s on one core when the issue
// was filed; its target is 3× that; 11.0–11.4 s on 2026-12-08):
//
//	taskset -c 0 go test -run '^$' -bench ReportReview -cpu 1 -benchtime 1x ./cmd/edgetwin
func BenchmarkReportReview(b *testing.B) {
	out := b.TempDir()
	for b.Loop() {
		args := []string{"report", "--config", "../../examples/review/review.yaml", "-o", filepath.Join(out, "r")}
		if code := run(args, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(filedReport/(b.Elapsed().Seconds()/float64(b.N)), "x-filed")
}

// BenchmarkServeContinuous is a serve scenario as a user meets it: three
// minutes of requests arriving every two seconds on the Orin Nano, four
// continuous-batching slots, at tile fidelity, the whole command (its
// prompts' prefills, each of its own length, take most of the time):
//
//	taskset -c 0 go test -run '^$' -bench ServeContinuous -cpu 1 ./cmd/edgetwin
func BenchmarkServeContinuous(b *testing.B) {
	args := []string{"simulate", "--soc", "jetson-orin-nano", "--model", "llama-3.2-3b",
		"--scenario", "../../examples/deployment/hub.yaml", "--schedule", "../../examples/deployment/continuous-4.yaml"}
	for b.Loop() {
		if code := run(args, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(3*60*float64(b.N)/b.Elapsed().Seconds(), "sim-s/wall-s")
}
