package hw

import (
	"math"

	"github.com/edgetwin/edgetwin/hw/dtype"
)

// ComputeDtype is the dtype unit u runs work in when activations are act:
// among the dtypes it has a peak for, at or above act, the fastest (ties go
// to the lower precision). ok is false when it has none.
func (u *Unit) ComputeDtype(act dtype.Dtype) (dt dtype.Dtype, ok bool) {
	if !act.Valid() {
		return "", false
	}
	best := -1.0
	for _, d := range dtype.All {
		p, has := u.Peak[d]
		if has && d.AtLeast(act) && float64(p) > best {
			dt, best, ok = d, float64(p), true
		}
	}
	return dt, ok
}

// MACsPerCycle is the number of multiply-accumulates per clock cycle at dt,
// from the peak (2 ops per MAC) and the nominal clock.
func (u *Unit) MACsPerCycle(dt dtype.Dtype) float64 {
	return float64(u.Peak[dt]) / (2 * float64(u.Clock))
}

// gemvRows is the largest M treated as a matrix-vector product (decode with
// a small batch) when choosing between GEMV and GEMM efficiency.
const gemvRows = 4

// MatmulSeconds is the time unit u computes an [m×k]·[k×n] product in dt
// at clock (the nominal clock when clock is 0).
//
// An NPU runs a weight-stationary R×C MAC array (C = MACs per cycle / R).
// Each R×C block of weights is loaded one row per cycle (R cycles) while
// the previous block computes, and then m activation vectors stream through
// it, one per cycle, so a block costs max(R, m) cycles and filling the
// pipeline costs R + C once. A batch-1 GEMV (m = 1) therefore runs at 1/R
// of peak: its rate is bounded by the C weights per cycle that reach the
// array, not by the MACs. An output-stationary array keeps an R×C block of
// outputs and streams k: ceil(m/R)·ceil(n/C)·k cycles, the same 1/R for a
// GEMV. Other units (GPU, CPU, DSP) run at peak × efficiency, with the GEMV
// efficiency for m ≤ 4, where a few rows cost what one does (or what the
// GEMM efficiency gives them, if less).
func (u *Unit) MatmulSeconds(m, n, k int, dt dtype.Dtype, clock float64) float64 {
	return u.MatmulSecondsFor(m, n, k, dt, clock, "")
}

// MatmulSecondsFor is MatmulSeconds for weights stored in format (a
// lower-case storage format such as q4_0; "" for none): the efficiency is
// the unit's for that format where it lists one (see [Unit.Efficiency]).
func (u *Unit) MatmulSecondsFor(m, n, k int, dt dtype.Dtype, clock float64, format string) float64 {
	return u.Matmul(dt, format).Seconds(m, n, k, clock)
}

// Matmul is a unit's model of matrix products in one dtype on weights of
// one storage format, with what it reads of the unit (the peak, the MAC
// array's columns, the GEMV and GEMM efficiencies) looked up once: a pass
// times thousands of products in a few formats.
type Matmul struct {
	u          *Unit
	peak       float64 // the unit's peak at dt
	cols       float64 // an NPU's MAC array columns at dt (C)
	gemv, gemm float64 // Efficiency for m ≤ gemvRows and above
}

// Matmul is the unit's matrix-product model for dt and format (see
// MatmulSecondsFor). It reads the unit as it is now.
func (u *Unit) Matmul(dt dtype.Dtype, format string) Matmul {
	return Matmul{
		u: u, peak: float64(u.Peak[dt]),
		cols: max(1, math.Floor(u.MACsPerCycle(dt)/float64(u.MAC.Rows))),
		gemv: u.Efficiency(1, format), gemm: u.Efficiency(gemvRows+1, format),
	}
}

// Seconds is the time of an [m×k]·[k×n] product at clock (the nominal
// clock when clock is 0).
func (mm Matmul) Seconds(m, n, k int, clock float64) float64 {
	if m <= 0 || n <= 0 || k <= 0 {
		return 0
	}
	u := mm.u
	if clock <= 0 {
		clock = float64(u.Clock)
	}
	eff := mm.gemm
	if m <= gemvRows {
		eff = mm.gemv
	}
	if u.Kind != NPU {
		rate := mm.peak * clock / float64(u.Clock)
		ops := 2 * float64(m) * float64(n) * float64(k)
		if m > 1 && m <= gemvRows {
			// A matrix-vector kernel's cost is in the weights it reads
			// and unpacks, once for all its rows, so a few rows cost what
			// one does; runtimes switch to their GEMM kernel where that
			// is faster, and a few rows take the cheaper of the two, so
			// that the cost never jumps between 4 rows and 5. (An NPU's
			// array is already indifferent to rows up to its height:
			// arrayCycles.)
			one := 2 * float64(n) * float64(k) / (rate * eff)
			return min(one, ops/(rate*mm.gemm))
		}
		return ops / (rate * eff)
	}
	return u.arrayCycles(m, n, k, mm.cols) / clock / eff
}

// Efficiency is the fraction of the modelled rate a matrix product with m
// rows reaches on weights stored in format: the GEMV efficiency for m ≤ 4
// (a GEMV kernel's rate at one row; MatMulSeconds charges its few rows as
// one),
// else the GEMM one, each overridden per format by GEMVEfficiencyBy and
// GEMMEfficiencyBy.
func (u *Unit) Efficiency(m int, format string) float64 {
	scalar, by := u.GEMMEfficiency, u.GEMMEfficiencyBy
	if m <= gemvRows {
		scalar, by = u.GEMVEfficiency, u.GEMVEfficiencyBy
	}
	own := float64(scalar)
	if e, ok := by[format]; ok && format != "" {
		own = float64(e)
	}
	if m <= gemvRows && format != "" {
		if e, ok := u.clusterGEMV(format, own); ok {
			return e
		}
	}
	return own
}

// clusterGEMV is the GEMV share on weights of format that the unit's first
// Cores cores reach together (clusters filled fastest first, as threads
// fill them) when one of those clusters gives its own figure; unit is the
// unit's own figure, for clusters that give none. Each cluster's share
// weighs by its cores' part of their peak: ggml's threads claim a GEMV's
// rows in chunks as each finishes the last, so every core works at its own
// rate and the rates add.
func (u *Unit) clusterGEMV(format string, unit float64) (float64, bool) {
	own := false
	var rate, peak float64
	left := u.Cores
	for _, c := range u.Clusters {
		if left <= 0 {
			break
		}
		k := min(left, c.Cores)
		left -= k
		w := float64(k) * float64(c.Clock) * c.pipes(u)
		e := unit
		if v, ok := c.GEMVEfficiencyBy[format]; ok {
			e, own = float64(v), true
		}
		rate += w * e
		peak += w
	}
	if !own || peak == 0 {
		return 0, false
	}
	return rate / peak, true
}

// arrayCycles counts the MAC array's cycles for one matrix product on an
// array of c columns.
func (u *Unit) arrayCycles(m, n, k int, c float64) float64 {
	r := float64(u.MAC.Rows)
	fm, fn, fk := float64(m), float64(n), float64(k)
	if u.MAC.Dataflow == OutputStationary {
		return math.Ceil(fm/r)*math.Ceil(fn/c)*fk + r + c
	}
	return math.Ceil(fk/r)*math.Ceil(fn/c)*max(r, fm) + r + c
}

// VectorSeconds is the time unit u takes for elementwise work of the given
// ops (norms, RoPE, activations, softmax, residual adds). An NPU's vector
// path is modelled as C lanes beside the array (one row of it); other units
// run it at their GEMV rate.
func (u *Unit) VectorSeconds(ops float64, dt dtype.Dtype, clock float64) float64 {
	if ops <= 0 {
		return 0
	}
	if clock <= 0 {
		clock = float64(u.Clock)
	}
	rate := float64(u.Peak[dt]) * clock / float64(u.Clock) * float64(u.GEMVEfficiency)
	if u.Kind == NPU {
		rate /= float64(u.MAC.Rows)
	}
	return ops / rate
}
