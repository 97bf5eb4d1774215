package sim

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/runtimes"
)

// clusteredCPU is a CPU-only chip whose cores draw 10 GB/s each behind a
// 25 GB/s port of the fabric, on a DRAM that streams 70 GB/s (100 GB/s ×
// the assumed 70%): a memory-bound decode on it is the cores' draw.
const clusteredCPU = `name: clustered CPU
memory:
  dram: {type: LPDDR5X, bandwidth: 100 GB/s, capacity: 8 GiB}
units:
  - name: cpu
    kind: cpu
    core_bandwidth: 10 GB/s
    bandwidth: 25 GB/s
    clusters:
      - {name: prime, cores: 1, clock: 3 GHz}
      - {name: little, cores: 3, clock: 2 GHz}
`

// TestDecodeFollowsThreads: memory-bound decode grows with the cores'
// draw — 10, 20 GB/s at one and two threads — and stops at the fabric's
// 25 GB/s, so a third and fourth thread add nothing.
func TestDecodeFollowsThreads(t *testing.T) {
	threadRatios(t, clusteredCPU, 2, 2.5)
	for _, bad := range []struct {
		threads int
		want    string
	}{{5, "has 4 cores"}, {-1, "must be 1 or more"}} {
		cfg := configFor(t, opts{chipSrc: clusteredCPU, model: "llama-3.2-1b", prompt: 0, gen: 2, fidelity: Analytic})
		cfg.Threads = bad.threads
		_, err := Run(context.Background(), cfg)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("--threads %d: %v, want an input error saying %q", bad.threads, err, bad.want)
		}
	}
}

// TestDecodeFollowsClusterDraw: each cluster's cores draw at their own
// core_bandwidth — a 20 GB/s prime core, little cores at the unit's
// 10 GB/s — behind a 35 GB/s port: 20, 30, then 40 capped to 35 GB/s at
// one to three threads, so decode goes 1 : 1.5 : 1.75 and a fourth thread
// adds nothing.
func TestDecodeFollowsClusterDraw(t *testing.T) {
	threadRatios(t, clusteredCPU, 1.5, 1.75, "units.cpu.bandwidth=35GB/s", "units.cpu.clusters.prime.core_bandwidth=20GB/s")
}

// threadRatios holds a memory-bound decode on chip (with sets) at 1–4
// threads to two, three threads over one as given (within 3%), and four
// threads to what three give (the port caps both).
func threadRatios(t *testing.T, chip string, two, three float64, sets ...string) {
	t.Helper()
	rate := func(threads int) float64 {
		cfg := configFor(t, opts{chipSrc: chip, model: "llama-3.2-1b", prompt: 0, gen: 8, fidelity: Analytic, runtime: runtimes.None, sets: sets})
		cfg.Threads = threads
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return *r.Decode.TokensPerS
	}
	r1, r2, r3, r4 := rate(1), rate(2), rate(3), rate(4)
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"2 threads / 1", r2 / r1, two}, {"3 threads / 1", r3 / r1, three}, {"4 threads / 3", r4 / r3, 1}} {
		if math.Abs(c.got/c.want-1) > 0.03 {
			t.Errorf("%s: %.3f, want %.3f (decode %.1f, %.1f, %.1f, %.1f tokens/s at 1–4 threads)", c.name, c.got, c.want, r1, r2, r3, r4)
		}
	}
}
