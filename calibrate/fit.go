package calibrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	workers "github.com/edgetwin/edgetwin/internal/pool"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// DefaultFitParams are the parameters a fit chooses among when none are
// named: compute efficiency by unit kind, weight format and GEMM/GEMV (a
// CPU's GEMV by core design), the unit's on-chip (SRAM) bandwidth and
// dispatch cost by unit kind, a CPU's barrier per thread (which only
// records on more than one thread see), DRAM sequential efficiency by
// memory type, and the DMA set-up per transfer.
var DefaultFitParams = []string{"gemm_efficiency", "gemv_efficiency", "sram_bandwidth", "seq_efficiency", "dispatch", "barrier", "dma_setup"}

// FitOptions configure [FitRecords].
type FitOptions struct {
	// Params names the parameters to fit (see [ParamNames]); empty means
	// DefaultFitParams. Of these, those the records can inform are fitted.
	Params []string
	// Fidelity is what the fitted overlay answers to; analytic, tile (the
	// default) or line. Above analytic, the fit runs on the analytic model
	// corrected, record by record, by the ratio of the two fidelities at
	// the current parameters, and repeats until that ratio settles.
	Fidelity sim.Fidelity
	// Starts is the number of starting points (default 2): the defaults;
	// the first minimum with the parameters the records do not see there
	// moved to where they bind; then points displaced from the defaults
	// both ways on the transformed scale.
	Starts int
	// Workers bounds concurrent simulations; 0 means GOMAXPROCS.
	Workers int
	// Source describes the records for the overlay's source line.
	Source string
	// Progress, when a terminal, shows the fit's iterations (silent
	// otherwise, and nil for none).
	Progress io.Writer
	// Runtime, when set (a catalog runtime id or a runtime file), fits
	// that runtime's figures alone: only the records that name it, only
	// the parameters a runtime profile carries (RuntimeParams), each
	// record run with the profile's own efficiencies and dispatch cost
	// set aside (runtimes.Profile.Bare) so the chip's figures stand where
	// the fit does not reach. [Fit.Profile] turns the result into the
	// runtime's profile.
	Runtime string
}

// RuntimeParams are the parameters a runtime profile carries: its
// kernels' share of the peak (GEMM, GEMV, by format and for a CPU by core
// design), its dispatch cost, a CPU runtime's barrier cost per thread and the share of the DRAM peak its decode streams at. The rest of
// ParamNames are the chip's.
var RuntimeParams = []string{"gemm_efficiency", "gemv_efficiency", "dispatch", "barrier", "seq_efficiency"}

// ParamNames lists every parameter an overlay may carry.
func ParamNames() []string {
	names := make([]string, len(paramDefs))
	for i, d := range paramDefs {
		names[i] = d.name
	}
	return names
}

// FitParam is one fitted parameter: its value and one-sigma uncertainty
// (in Param), the value the chips had before, and whether the records
// determine it.
type FitParam struct {
	Param
	Before float64 // the value before the fit (the chips' default; a pooled one shows its first member's), SI
	// Identified is false when no record's prediction depends on the
	// parameter at the fitted point; such a parameter is left out of the
	// overlay.
	Identified bool
	// AtBound is true when the fit pushed the parameter to the edge of its
	// range: the records want it further than the model allows.
	AtBound bool
	// Unresolved marks a parameter the records see only together with
	// others (they trade off along a direction no record resolves): its
	// uncertainty is unbounded.
	Unresolved bool
	// Limit marks a parameter the records do not determine at its fitted
	// value but whose value before the fit would change their predictions
	// (a DMA set-up the fit pushed toward zero, where it no longer
	// matters): the overlay keeps it, and any value further the same way
	// fits as well.
	Limit bool
	// Pooled marks a fallback: an efficiency without dtype (for the unit
	// kind's formats the records did not fit) or a memory figure without
	// memory (for other DRAM types), whose value is the mean of the fitted
	// ones weighted by the records each informs, and whose uncertainty
	// includes their spread.
	Pooled bool
	// Runtimes lists, when there are several, the runtimes (the records'
	// backends, up to the first comma) whose records a unit's figure
	// serves: one efficiency or dispatch cost stands for kernels that may
	// differ (Metal and OpenCL GEMMs on two GPUs), and the fit can only
	// split the difference.
	Runtimes []string
}

// Residual is one record's fit: measured and predicted in the record's
// unit, and the signed relative error (predicted − measured) / measured.
type Residual struct {
	Record              Record
	Measured, Predicted float64
	Error               float64
}

// Fit is the outcome of [FitRecords].
type Fit struct {
	Overlay   *Overlay
	Params    []FitParam
	Residuals []Residual
	// Skipped lists the records the fit could not use, with the reason.
	Skipped []Unused
	// Rounds is the number of surrogate corrections (0 at analytic).
	Rounds int
	// Runs is the number of record predictions the fit asked for; runs
	// whose parameters had not moved came from a cache.
	Runs int
	// Runtime is the runtime a FitOptions.Runtime fit fitted, without its
	// measured figures (what the records ran with); nil otherwise.
	Runtime *runtimes.Profile
}

// Unused is a record a fit or validation could not use, and why.
type Unused struct {
	Record Record
	Reason string
}

// recInfo is what decides which parameters touch a record.
type recInfo struct {
	phase    string
	unitKind string
	memory   string
	formats  []string // the weight format most matrices are stored in, lower case
	others   []string // formats of the other matrices (the output's Q6_K of a Q4_0 model)
	gemv     bool     // matrix-vector work: a GEMV, or a decode of up to 4 sequences
	runtime  string   // the backend that ran it (RuntimeOf); "" unknown
	// cores are the core designs of the CPU cores the record ran on, ""
	// for cores of no named design; nil off a CPU.
	cores []string
}

// coreDesigns lists the core designs of the first n cores of CPU u (all
// of them for n ≤ 0), clusters filled fastest first as threads fill
// them; "" stands for cores whose design the chip does not name.
func coreDesigns(u *hw.Unit, n int) []string {
	if n <= 0 || n > u.Cores {
		n = u.Cores
	}
	if len(u.Clusters) == 0 {
		return []string{u.Core}
	}
	var out []string
	for _, c := range u.Clusters {
		if n <= 0 {
			break
		}
		n -= c.Cores
		if d := u.CoreOf(c); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// designed reports whether every core of the record is of a named design,
// so the CPU's own (undesigned) GEMV figures do not reach it.
func (r recInfo) designed() bool {
	return len(r.cores) > 0 && !slices.Contains(r.cores, "")
}

// RuntimeOf names the runtime of a record's backend: the text before the
// first comma ("Metal,BLAS" is Metal), trimmed; "" when none is given.
func RuntimeOf(backend string) string {
	name, _, _ := strings.Cut(backend, ",")
	return strings.TrimSpace(name)
}

// runtimesOf lists the runtimes of the records a unit's parameter serves,
// sorted, when there are two or more; nil otherwise.
func runtimesOf(par Param, info []recInfo) []string {
	if defOf(par.Param).scope != unitScope {
		return nil
	}
	var names []string
	for _, r := range info {
		if r.runtime != "" && relevant(par, r) && !slices.Contains(names, r.runtime) {
			names = append(names, r.runtime)
		}
	}
	if len(names) < 2 {
		return nil
	}
	slices.Sort(names)
	return names
}

// relevant reports whether parameter p changes record r's prediction.
func relevant(p Param, r recInfo) bool {
	def := defOf(p.Param)
	switch def.scope {
	case unitScope:
		if p.UnitKind != r.unitKind {
			return false
		}
		if p.Dtype == "" {
			return true
		}
		if !slices.Contains(r.formats, p.Dtype) {
			return false
		}
		if p.Param == "gemv_efficiency" && r.gemv {
			if p.Core != "" {
				return slices.Contains(r.cores, p.Core)
			}
			return !r.designed()
		}
		return (p.Param == "gemv_efficiency") == r.gemv
	case memoryScope:
		return p.Memory == r.memory
	}
	return true
}

// pool is a fallback parameter fitted through others: an efficiency of a
// unit kind without dtype, for the formats without one of their own (its
// members: the kind's per-format efficiencies), or a memory figure without
// memory, for DRAM types without one of their own (its members: the
// per-type figures). Its value is the members' mean weighted by the number
// of records each informs.
type pool struct {
	param   Param
	members []int     // indices into problem.params
	weights []float64 // records each member informs
}

// poolsOf makes the fallbacks of params that the records do not fit
// directly.
func poolsOf(params []Param, info []recInfo) []pool {
	var out []pool
	at := map[string]int{}
	for j, par := range params {
		var fallbacks []Param
		switch defOf(par.Param).scope {
		case unitScope:
			if par.Dtype == "" {
				continue
			}
			fallbacks = append(fallbacks, Param{Param: par.Param, UnitKind: par.UnitKind})
			// A core design's figure also falls back to its format's,
			// pooled over the designs.
			if par.Core != "" {
				fallbacks = append(fallbacks, Param{Param: par.Param, UnitKind: par.UnitKind, Dtype: par.Dtype})
			}
		case memoryScope:
			if par.Memory == "" {
				continue
			}
			fallbacks = append(fallbacks, Param{Param: par.Param})
		default:
			continue
		}
		var n float64
		for _, r := range info {
			if relevant(par, r) {
				n++
			}
		}
		for _, fallback := range fallbacks {
			k := fallback.Key()
			if slices.ContainsFunc(params, func(q Param) bool { return q.Key() == k }) {
				continue // fitted directly
			}
			i, ok := at[k]
			if !ok {
				i, at[k] = len(out), len(out)
				out = append(out, pool{param: fallback})
			}
			out[i].members = append(out[i].members, j)
			out[i].weights = append(out[i].weights, n)
		}
	}
	return out
}

// value is the pool's value at θ.
func (pl pool) value(theta []float64, defs []*paramDef) float64 {
	var sum, w float64
	for i, j := range pl.members {
		sum += pl.weights[i] * fromTheta(defs[j], theta[j])
		w += pl.weights[i]
	}
	return sum / w
}

// touches reports whether the pool's value reaches record r: any record
// of its unit kind and matrix shape (the scalar efficiency is also what
// the operators without weights, attention's products, run at, so it
// reaches every record of the unit, not only those with a format no
// member covers), or a record on a DRAM type no member covers. The
// residuals of a fit are then what its overlay predicts.
func (pl pool) touches(r recInfo, params []Param) bool {
	switch defOf(pl.param.Param).scope {
	case unitScope:
		if pl.param.Dtype != "" {
			// A format's figure pooled over core designs: the records of
			// that format with a core of no design that has its own.
			if r.unitKind != pl.param.UnitKind || !r.gemv || !slices.Contains(r.formats, pl.param.Dtype) {
				return false
			}
			return slices.ContainsFunc(r.cores, func(d string) bool {
				return d == "" || !slices.ContainsFunc(pl.members, func(j int) bool { return params[j].Core == d })
			})
		}
		return r.unitKind == pl.param.UnitKind && (pl.param.Param == "gemv_efficiency") == r.gemv
	case memoryScope:
		return !slices.ContainsFunc(pl.members, func(j int) bool { return params[j].Memory == r.memory })
	}
	return false
}

// candidates are the parameters records of info r can inform.
func candidates(r recInfo, names []string) []Param {
	var out []Param
	add := func(name, kind, dt, mem string) {
		if slices.Contains(names, name) {
			out = append(out, Param{Param: name, UnitKind: kind, Dtype: dt, Memory: mem})
		}
	}
	eff := "gemm_efficiency"
	if r.gemv {
		eff = "gemv_efficiency"
	}
	for _, f := range r.formats {
		if !r.gemv || len(r.cores) == 0 {
			add(eff, r.unitKind, f, "")
			continue
		}
		// A CPU's GEMV: a figure per core design it ran on.
		for _, d := range r.cores {
			if slices.Contains(names, eff) {
				out = append(out, Param{Param: eff, UnitKind: r.unitKind, Dtype: f, Core: d})
			}
		}
	}
	add("dispatch", r.unitKind, "", "")
	if r.unitKind == hw.CPU {
		add("barrier", r.unitKind, "", "")
	}
	add("fallback_sync", r.unitKind, "", "")
	add("sram_bandwidth", r.unitKind, "", "")
	add("seq_efficiency", "", "", r.memory)
	add("random_penalty", "", "", r.memory)
	add("dram_latency", "", "", r.memory)
	add("dma_setup", "", "", "")
	return out
}

// before is the value a chip has for parameter p (on unit u).
func before(c *hw.Chip, p Param, unit string) float64 {
	u := c.Unit(unit)
	switch p.Param {
	case "gemm_efficiency":
		return u.Efficiency(64, p.Dtype)
	case "gemv_efficiency":
		return u.Efficiency(1, p.Dtype)
	case "dispatch":
		return float64(u.Dispatch)
	case "barrier":
		// None given: the fit starts from a cache line's trip between
		// cores, about 100 ns (a log-scaled figure cannot start at 0).
		if u.Barrier == 0 {
			return barrierStart
		}
		return float64(u.Barrier)
	case "fallback_sync":
		return float64(u.FallbackSync)
	case "sram_bandwidth":
		return float64(u.SRAMBandwidth)
	case "seq_efficiency":
		return float64(c.Memory.DRAM.SeqEfficiency)
	case "random_penalty":
		return c.Memory.DRAM.RandomPenalty
	case "dram_latency":
		return float64(c.Memory.DRAM.Latency)
	case "dma_setup":
		return float64(c.DMA.Setup)
	}
	panic("calibrate: no chip field for " + p.Param)
}

// barrierStart is where a fit of a CPU's barrier cost starts when the chip
// gives none.
const barrierStart = 100e-9

// toTheta and fromTheta map a parameter between its value and the
// unbounded scale the optimiser works on: a logistic between the bounds,
// on a log scale for the log parameters.
func toTheta(d *paramDef, x float64) float64 {
	lo, hi, v := d.lo, d.hi, x
	if d.log {
		lo, hi, v = math.Log(lo), math.Log(hi), math.Log(x)
	}
	u := (v - lo) / (hi - lo)
	u = math.Min(math.Max(u, 1e-6), 1-1e-6)
	return math.Log(u / (1 - u))
}

func fromTheta(d *paramDef, t float64) float64 {
	// Strictly inside the bounds, however far a step goes: a logistic
	// that rounds to 0 or 1 would give a value the chip refuses.
	u := min(max(1/(1+math.Exp(-t)), 1e-12), 1-1e-12)
	if d.log {
		return math.Exp(math.Log(d.lo) + (math.Log(d.hi)-math.Log(d.lo))*u)
	}
	return d.lo + (d.hi-d.lo)*u
}

// dxdTheta is the derivative of the value with respect to θ.
func dxdTheta(d *paramDef, t float64) float64 {
	u := 1 / (1 + math.Exp(-t))
	du := u * (1 - u)
	x := fromTheta(d, t)
	if d.log {
		return x * (math.Log(d.hi) - math.Log(d.lo)) * du
	}
	return (d.hi - d.lo) * du
}

// problem is one fit's records, parameters and the machinery to evaluate
// them.
type problem struct {
	ctx     context.Context
	recs    []Record
	info    []recInfo
	params  []Param
	pools   []pool
	defs    []*paramDef
	fast    *Predictor // the analytic model
	corr    []float64  // per record: target / analytic at the last correction
	runs    int
	lastErr error
	// progress counts major iterations against an upper bound (starts ×
	// maxIterations).
	progress *workers.Progress
}

// overlays builds, per record, the overlay of the parameters that touch it
// at θ, so a record reruns only when one of its own parameters moves.
func (p *problem) overlays(theta []float64) []*Overlay {
	out := make([]*Overlay, len(p.recs))
	for i, r := range p.info {
		ov := &Overlay{Source: "fit"}
		for j, par := range p.params {
			if relevant(par, r) {
				ov.Params = append(ov.Params, NewParam(par.Param, par.UnitKind, par.Dtype, par.Memory, fromTheta(p.defs[j], theta[j]), 0).withCore(par.Core))
			}
		}
		for _, pl := range p.pools {
			if pl.touches(r, p.params) {
				ov.Params = append(ov.Params, NewParam(pl.param.Param, pl.param.UnitKind, pl.param.Dtype, "", pl.value(theta, p.defs), 0))
			}
		}
		out[i] = ov
	}
	return out
}

// residuals are log(predicted × correction / measured) per record.
func (p *problem) residuals(theta []float64) ([]float64, error) {
	pred, err := p.fast.PredictEach(p.ctx, p.recs, p.overlays(theta))
	if err != nil {
		return nil, err
	}
	p.runs += len(p.recs)
	r := make([]float64, len(pred))
	for i := range pred {
		r[i] = math.Log(pred[i] * p.corr[i] / p.recs[i].Value)
	}
	return r, nil
}

// linearize is the residuals at θ and their Jacobian.
func (p *problem) linearize(theta []float64) ([]float64, *mat.Dense, error) {
	r, err := p.residuals(theta)
	if err != nil {
		return nil, nil, err
	}
	J, err := p.jacobian(theta, r)
	return r, J, err
}

// jacobian of the residuals by forward differences on θ; only the records
// a parameter touches are rerun.
func (p *problem) jacobian(theta, r0 []float64) (*mat.Dense, error) {
	const h = 1e-3
	J := mat.NewDense(len(r0), len(theta), nil)
	for j := range theta {
		t := slices.Clone(theta)
		t[j] += h
		r, err := p.residuals(t)
		if err != nil {
			return nil, err
		}
		for i := range r {
			J.Set(i, j, (r[i]-r0[i])/h)
		}
	}
	return J, nil
}

// damping is the Levenberg term added to the diagonal of JᵀJ, as a share
// of its largest element.
const damping = 1e-4

// minimize runs gonum's Newton method on ½‖r‖² with the Gauss-Newton
// Hessian JᵀJ, damped, from θ0.
func (p *problem) minimize(theta0 []float64) ([]float64, float64, error) {
	type point struct {
		r []float64
		J *mat.Dense
	}
	cache := map[string]*point{}
	key := func(x []float64) string { return fmt.Sprint(x) }
	at := func(x []float64, withJ bool) *point {
		pt := cache[key(x)]
		if pt == nil {
			r, err := p.residuals(x)
			if err != nil {
				p.lastErr = err
				r = make([]float64, len(p.recs))
				for i := range r {
					r[i] = math.Inf(1)
				}
			}
			pt = &point{r: r}
			cache[key(x)] = pt
		}
		if withJ && pt.J == nil && p.lastErr == nil {
			J, err := p.jacobian(x, pt.r)
			if err != nil {
				p.lastErr = err
				J = mat.NewDense(len(pt.r), len(x), nil)
			}
			pt.J = J
		}
		return pt
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 {
			r := at(x, false).r
			return 0.5 * mat.Dot(mat.NewVecDense(len(r), r), mat.NewVecDense(len(r), r))
		},
		Grad: func(g, x []float64) {
			pt := at(x, true)
			gv := mat.NewVecDense(len(g), g)
			gv.MulVec(pt.J.T(), mat.NewVecDense(len(pt.r), pt.r))
		},
		// Gauss–Newton's JᵀJ, damped (Levenberg): a parameter no record
		// depends on leaves JᵀJ singular, and the Newton method's own
		// remedy for that stalled the M2-family fit at a cost of 0.273;
		// damped, it reaches 0.0147 from the same start.
		Hess: func(h *mat.SymDense, x []float64) {
			pt := at(x, true)
			h.SymOuterK(1, pt.J.T())
			var top float64
			for j := range len(x) {
				top = math.Max(top, h.At(j, j))
			}
			for j := range len(x) {
				h.SetSym(j, j, h.At(j, j)+damping*top)
			}
		},
		Status: func() (optimize.Status, error) {
			if p.lastErr != nil {
				return optimize.Failure, p.lastErr
			}
			if err := p.ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
	settings := &optimize.Settings{
		MajorIterations: maxIterations,
		Recorder:        iterations{p.progress},
		Converger:       &optimize.FunctionConverge{Absolute: 1e-9, Relative: 1e-5, Iterations: 2},
	}
	// Backtracking asks only for function values: a trial step costs one
	// run per record, not a Jacobian.
	res, err := optimize.Minimize(prob, theta0, settings, &optimize.Newton{Linesearcher: &optimize.Backtracking{}})
	if p.lastErr != nil {
		return nil, 0, p.lastErr
	}
	if res == nil {
		return nil, 0, err
	}
	// An iteration limit or a stalled line search still leaves the best
	// point found; only a failure to evaluate is an error.
	return res.X, res.F, nil
}

// maxIterations bounds the major iterations of one start of a fit.
const maxIterations = 25

// iterations is an optimize.Recorder that steps a progress bar at each
// major iteration.
type iterations struct{ p *workers.Progress }

func (it iterations) Init() error { return nil }

func (it iterations) Record(_ *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	if it.p != nil && op == optimize.MajorIteration {
		it.p.Step()
	}
	return nil
}

// FitRecords fits an overlay's parameters to the records by running the
// simulator on each record's workload. Records the simulator cannot
// predict are skipped with the reason; the rest must name chips, models and
// quants that load.
func FitRecords(ctx context.Context, recs []Record, opt FitOptions) (*Fit, error) {
	if opt.Fidelity == "" {
		opt.Fidelity = sim.Tile
	}
	if opt.Starts <= 0 {
		opt.Starts = 2
	}
	names := opt.Params
	if len(names) == 0 {
		names = DefaultFitParams
	}
	for _, n := range names {
		if defOf(n) == nil {
			return nil, spec.FieldErrorf("params", "%q: no such parameter; use %s", n, strings.Join(ParamNames(), ", "))
		}
	}
	fit := &Fit{}
	var bare map[string]*runtimes.Profile
	if opt.Runtime != "" {
		var err error
		if recs, names, bare, err = forRuntime(recs, names, opt.Runtime); err != nil {
			return nil, err
		}
		fit.Runtime = bare[opt.Runtime]
	}
	use, skipped, err := predictable(recs, "fit")
	if err != nil {
		return nil, err
	}
	fast := NewPredictor(sim.Analytic)
	fast.Workers, fast.Runtimes = opt.Workers, bare
	// A record the simulator refuses (a unit that cannot read its format)
	// is skipped with the reason, as validate does.
	units := make([]string, 0, len(use))
	kept := use[:0:0]
	for _, r := range use {
		unit, _, err := fast.figure(ctx, r, nil)
		switch {
		case Refused(err):
			skipped = append(skipped, Unused{Record: r, Reason: err.Error()})
			continue
		case err != nil:
			return nil, err
		}
		kept, units = append(kept, r), append(units, unit)
	}
	if use = kept; len(use) == 0 {
		return nil, spec.Errorf("%w: %s", ErrNoRecord, skipped[len(skipped)-1].Reason)
	}
	fit.Skipped = skipped
	p := &problem{ctx: ctx, recs: use, fast: fast, corr: make([]float64, len(use)),
		progress: workers.NewProgress(opt.Progress, "fit", opt.Starts*maxIterations)}
	defer p.progress.Done()
	beforeOf := map[string]float64{}
	for i, r := range use {
		unit := units[i]
		chip, err := fast.chip(nil, r.SoC, nil) // loaded above, by figure
		if err != nil {
			return nil, err
		}
		q, _ := workloads.ParseQuant(r.Quant)
		base := strings.ToLower(q.Base().Name())
		inf := recInfo{phase: PhaseOf(r.Kind), unitKind: chip.Unit(unit).Kind, memory: chip.Memory.DRAM.Type, formats: []string{base},
			gemv: r.Kind == KindGEMV || decodes(r) && max(1, r.Shape.Batch) <= 4, runtime: RuntimeOf(r.Backend)}
		if u := chip.Unit(unit); u.Kind == hw.CPU {
			inf.cores = coreDesigns(u, r.Threads)
		}
		if r.Kind != KindGEMV && r.Kind != KindGEMM {
			m, err := fast.model(r.Model)
			if err != nil {
				return nil, err
			}
			for _, f := range m.MatrixFormats(q) {
				if n := strings.ToLower(f.Name()); n != base {
					inf.others = append(inf.others, n)
				}
			}
		}
		p.info = append(p.info, inf)
		p.corr[i] = 1
		for _, c := range candidates(inf, names) {
			if _, seen := beforeOf[c.Key()]; !seen {
				beforeOf[c.Key()] = before(chip, c, unit)
				p.params = append(p.params, c)
			}
		}
	}
	slices.SortStableFunc(p.params, func(a, b Param) int { return strings.Compare(a.Key(), b.Key()) })
	theta0 := make([]float64, len(p.params))
	for j, par := range p.params {
		p.defs = append(p.defs, defOf(par.Param))
		theta0[j] = toTheta(p.defs[j], beforeOf[par.Key()])
	}
	p.pools = poolsOf(p.params, p.info)

	best, err := p.multiStart(theta0, opt.Starts)
	if err != nil {
		return nil, err
	}
	final := fast
	if opt.Fidelity != sim.Analytic {
		target := NewPredictor(opt.Fidelity)
		target.Workers, target.Runtimes = opt.Workers, bare
		final = target
		for fit.Rounds = 1; fit.Rounds <= 4; fit.Rounds++ {
			moved, err := p.correct(target, best)
			if err != nil {
				return nil, err
			}
			if moved < 0.002 {
				break
			}
			if best, err = p.multiStart(best, 1); err != nil {
				return nil, err
			}
		}
	}
	r0, J, err := p.linearize(best)
	if err != nil {
		return nil, err
	}
	fit.Params = p.report(best, r0, J, beforeOf)
	for j := range p.params {
		if fp := &fit.Params[j]; !fp.Identified {
			if fp.Limit, err = p.matters(best, r0, j, beforeOf[fp.Key()]); err != nil {
				return nil, err
			}
		}
	}
	fit.Overlay = &Overlay{Source: opt.Source}
	for _, fp := range fit.Params {
		if fp.Identified || fp.Limit {
			fit.Overlay.Params = append(fit.Overlay.Params, fp.Param)
		}
	}
	pred, err := final.PredictEach(ctx, use, p.overlays(best))
	if err != nil {
		return nil, err
	}
	for i, r := range use {
		fit.Residuals = append(fit.Residuals, Residual{Record: r, Measured: r.Value, Predicted: pred[i], Error: pred[i]/r.Value - 1})
	}
	fit.Runs = p.runs
	return fit, nil
}

// predictable splits records into those the simulator can predict and the
// rest with the reason; none predictable is an error for verb.
func predictable(recs []Record, verb string) (use []Record, skipped []Unused, err error) {
	for _, r := range recs {
		if ok, why := Predictable(r); !ok {
			skipped = append(skipped, Unused{Record: r, Reason: why})
			continue
		}
		use = append(use, r)
	}
	if len(use) == 0 {
		return nil, nil, spec.Errorf("%w: %s needs prefill, decode, gemv or gemm records", ErrNoRecord, verb)
	}
	return use, skipped, nil
}

// multiStart minimises from θ0; for starts > 1, again from that minimum
// with every parameter the records do not see there moved to where it
// would limit the time, and for starts > 2 from points displaced from θ0
// by ±1, ±2, … on the transformed scale (alternating by parameter); it
// keeps the best minimum.
//
// A local minimiser stays in the basin it starts in, and a parameter the
// residuals do not depend on has no gradient to leave it by: from the
// defaults, a GEMV efficiency of 0.5 leaves every decode memory-bound, so
// the fit never learns that the decode of the Apple M1 family slows with
// fewer GPU cores at the same bandwidth. Started where the efficiency
// binds, it finds that minimum (cost 0.0181 against 0.0262 on the M1
// records).
func (p *problem) multiStart(theta0 []float64, starts int) ([]float64, error) {
	best, bestF, err := p.minimize(theta0)
	if err != nil || starts < 2 {
		return best, err
	}
	try := func(start []float64) error {
		x, f, err := p.minimize(start)
		if err == nil && f < bestF {
			best, bestF = x, f
		}
		return err
	}
	unseen, err := p.unseenBound(best)
	if err != nil {
		return nil, err
	}
	if unseen != nil {
		if err := try(unseen); err != nil {
			return nil, err
		}
		starts--
	}
	for s := 1; s < starts; s++ {
		start := slices.Clone(theta0)
		sign := float64(2*(s%2) - 1)
		for j := range start {
			start[j] += sign * float64((s+1)/2)
			sign = -sign
		}
		if err := try(start); err != nil {
			return nil, err
		}
	}
	return best, nil
}

// toward moves a parameter from θ toward where it binds: a fraction by
// 2.5 on its logit scale (0.5 to 0.076), a log-scaled figure tenfold.
func toward(d *paramDef, theta float64) float64 {
	if !d.log {
		return theta + 2.5*d.binds
	}
	return toTheta(d, fromTheta(d, theta)*math.Pow(10, d.binds))
}

// unseenBound is θ with each parameter the residuals do not depend on
// (as report judges it) moved toward where it limits the time; nil when
// the residuals see every parameter.
func (p *problem) unseenBound(theta []float64) ([]float64, error) {
	_, J, err := p.linearize(theta)
	if err != nil {
		return nil, err
	}
	norms, top := p.influence(theta, J)
	var start []float64
	for j, n := range norms {
		if n > seenShare*top {
			continue
		}
		if start == nil {
			start = slices.Clone(theta)
		}
		start[j] = toward(p.defs[j], start[j])
	}
	return start, nil
}

// correct reruns every record at the target fidelity at θ and sets the
// correction to target / analytic; it returns the largest relative change
// of a correction.
func (p *problem) correct(target *Predictor, theta []float64) (float64, error) {
	ovs := p.overlays(theta)
	slow, err := target.PredictEach(p.ctx, p.recs, ovs)
	if err != nil {
		return 0, err
	}
	fast, err := p.fast.PredictEach(p.ctx, p.recs, ovs)
	if err != nil {
		return 0, err
	}
	p.runs += 2 * len(p.recs)
	var moved float64
	for i := range slow {
		c := slow[i] / fast[i]
		moved = math.Max(moved, math.Abs(c/p.corr[i]-1))
		p.corr[i] = c
	}
	return moved, nil
}

// report turns θ into fitted parameters with one-sigma uncertainties from
// the residual Jacobian: cov(θ) = s²(JᵀJ)⁻¹ with s² = ‖r‖²/(n − p) over the
// identified parameters, carried to the value by the transform's slope.
func (p *problem) report(theta, r []float64, J *mat.Dense, beforeOf map[string]float64) []FitParam {
	n, k := J.Dims()
	// A parameter is determined when the residuals depend on it: on the
	// log scale of both, at least a thousandth as much as on the one they
	// depend on most (a GEMV efficiency on a memory-bound chip reaches the
	// predictions a hundred thousand times more weakly than that). One
	// pushed to a bound of its range has a flat column (the logistic
	// saturates) and is kept at the bound, with no uncertainty.
	var ids []int
	norms, maxNorm := p.influence(theta, J)
	atBound := make([]bool, k)
	for j := range k {
		u := 1 / (1 + math.Exp(-theta[j]))
		atBound[j] = u < 1e-3 || u > 1-1e-3
	}
	for j := range k {
		if !atBound[j] && norms[j] > seenShare*maxNorm && norms[j] > 1e-9 {
			ids = append(ids, j)
		}
	}
	stderr := make([]float64, k)
	unresolved := make([]bool, k)
	if len(ids) > 0 && n > len(ids) {
		sub := mat.NewDense(n, len(ids), nil)
		for c, j := range ids {
			for i := range n {
				sub.Set(i, c, J.At(i, j))
			}
		}
		var ssr float64
		for _, v := range r {
			ssr += v * v
		}
		s2 := ssr / float64(n-len(ids))
		for c, v := range thetaVariances(sub) {
			j := ids[c]
			if math.IsInf(v, 1) {
				unresolved[j] = true
				continue
			}
			stderr[j] = math.Sqrt(s2*v) * math.Abs(dxdTheta(p.defs[j], theta[j]))
		}
	}
	out := make([]FitParam, k, k+len(p.pools))
	for j, par := range p.params {
		v := fromTheta(p.defs[j], theta[j])
		se := stderr[j]
		if math.IsNaN(se) || math.IsInf(se, 0) {
			se = 0
		}
		out[j] = FitParam{
			Param:      newParam(par.Param, par.UnitKind, par.Dtype, par.Memory, v, se, 5).withCore(par.Core),
			Before:     beforeOf[par.Key()],
			Identified: slices.Contains(ids, j) || atBound[j],
			AtBound:    atBound[j],
			Unresolved: unresolved[j],
			Runtimes:   runtimesOf(par, p.info),
		}
	}
	for _, pl := range p.pools {
		out = append(out, pl.report(theta, out, p.defs, beforeOf))
	}
	return out
}

// thetaVariances are the diagonal of (JᵀJ)⁻¹ for the Jacobian's columns,
// through J's singular value decomposition, so that parameters the
// records see only in combination (one direction of θ they cannot
// resolve) get +Inf and leave the others' variances finite; inverting JᵀJ
// whole failed for all of them at once.
func thetaVariances(J *mat.Dense) []float64 {
	_, k := J.Dims()
	out := make([]float64, k)
	var svd mat.SVD
	if !svd.Factorize(J, mat.SVDThin) {
		for c := range out {
			out[c] = math.Inf(1)
		}
		return out
	}
	sigma := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	for c := range k {
		for i, s := range sigma {
			w := v.At(c, i)
			switch {
			case s > 1e-9*sigma[0]:
				out[c] += w * w / (s * s)
			case math.Abs(w) > 1e-6:
				out[c] = math.Inf(1)
			}
		}
	}
	return out
}

// matters reports whether putting parameter j back to its value before
// the fit moves any record's prediction at θ by more than 0.1%. Leaving
// such a parameter out of the overlay would hand the chips that value:
// a tile fit of the M1 family pushed dma_setup to 4.6 ns, where the
// records no longer see it, and without it the M2 family, predicted at
// the default 500 ns, decoded with MAPE 21.4% instead of 5.9%.
func (p *problem) matters(theta, r0 []float64, j int, before float64) (bool, error) {
	t := slices.Clone(theta)
	t[j] = toTheta(p.defs[j], before)
	r, err := p.residuals(t)
	if err != nil {
		return false, err
	}
	for i := range r {
		if math.Abs(r[i]-r0[i]) > 1e-3 {
			return true, nil
		}
	}
	return false, nil
}

// seenShare is how strongly, against the parameter they depend on most,
// the residuals must depend on a parameter for the records to see it.
const seenShare = 1e-3

// influence is how strongly the residuals depend on each parameter at θ,
// on the log scale of both (so parameters compare), and the largest.
func (p *problem) influence(theta []float64, J *mat.Dense) (norms []float64, top float64) {
	norms = make([]float64, len(theta))
	for j := range theta {
		if s := dxdTheta(p.defs[j], theta[j]); s > 0 {
			norms[j] = mat.Norm(J.ColView(j), 2) / s * fromTheta(p.defs[j], theta[j])
		}
		top = math.Max(top, norms[j])
	}
	return norms, top
}

// report is the pool's fitted fallback: the members' weighted mean, with
// an uncertainty that adds their weighted spread to their mean variance
// (the error of carrying one DRAM type's or format's figure to another).
// It is determined when a member is.
func (pl pool) report(theta []float64, fitted []FitParam, defs []*paramDef, beforeOf map[string]float64) FitParam {
	mean := pl.value(theta, defs)
	var spread, variance, w float64
	identified, unresolved := false, false
	for i, j := range pl.members {
		d := fitted[j].Float() - mean
		spread += pl.weights[i] * d * d
		variance += pl.weights[i] * fitted[j].StderrFloat() * fitted[j].StderrFloat()
		w += pl.weights[i]
		identified = identified || fitted[j].Identified
		unresolved = unresolved || fitted[j].Unresolved
	}
	par := pl.param
	return FitParam{
		Param:      newParam(par.Param, par.UnitKind, par.Dtype, "", mean, math.Sqrt((spread+variance)/w), 5),
		Before:     beforeOf[fitted[pl.members[0]].Key()],
		Identified: identified,
		Unresolved: unresolved,
		Pooled:     true,
	}
}

// ErrNoRecord is what a fit left with no record it can use wraps (a
// *spec.Error, the user's input): errors.Is tells it from other failures.
var ErrNoRecord = errors.New("no record the simulator can predict")

// Refused reports whether err is the simulator's refusal of a record's run
// (a unit that cannot read its format, a model that does not fit): an
// input error about the run itself, located by no file, as opposed to a
// record naming a chip, model or file that does not load.
func Refused(err error) bool {
	var se *spec.Error
	return errors.As(err, &se) && se.File == "" && !referenceKeys[se.Field]
}
