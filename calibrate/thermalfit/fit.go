package thermalfit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/edgetwin/edgetwin/hw/thermal"
	"github.com/edgetwin/edgetwin/hw/units"
)

// Options choose what [Fit] fits and how hard it tries.
type Options struct {
	// Params are the figures to fit (see SelectParams); nil fits all.
	Params []Param
	// Starts is the number of optimiser runs: the first from the spec's
	// values, the others from values spread by up to ×4 either way around
	// them (fixed seed). Zero means DefaultStarts.
	Starts int
}

// DefaultStarts is the number of optimiser runs when Options.Starts is 0.
const DefaultStarts = 4

// bound is how far a fitted value may move from its starting value, in
// natural log: ×1000 either way. The optimiser works on θ with
// log v = log v₀ + bound·tanh(θ/bound), smooth and near the identity close
// to the start, so it never leaves the box.
var bound = math.Log(1000)

// Result is what a fit found.
type Result struct {
	Params        []Fitted       `json:"params"`
	TimeConstants []TimeConstant `json:"time_constants"` // slowest first
	Sensors       []SensorFit    `json:"sensors"`
	RMSC          float64        `json:"rms_c"`   // over every sensor and row
	WorstC        float64        `json:"worst_c"` // the largest |residual|
	Rows          int            `json:"rows"`    // rows fitted (the first only starts the network)
	Starts        int            `json:"starts"`
	Agreeing      int            `json:"starts_agreeing"` // runs that ended within 0.1% of the best
	Evaluations   int            `json:"evaluations"`     // network simulations over the series
	Warnings      []string       `json:"warnings"`
	// Spec is the network with the fitted values.
	Spec thermal.Spec `json:"-"`
}

// Fitted is one parameter after the fit. StdErr is the 1σ uncertainty from
// the residuals' Jacobian at the optimum, nil when the series cannot pin
// the parameter down (it moves along a direction that leaves the residuals
// unchanged).
type Fitted struct {
	Path   string   `json:"path"`
	Unit   string   `json:"unit"`
	Start  float64  `json:"start"`
	Value  float64  `json:"value"`
	StdErr *float64 `json:"std_err"`
}

// TimeConstant is one time constant 1/λ of the network, in seconds, before
// and after the fit, with its 1σ uncertainty (nil when undetermined).
type TimeConstant struct {
	Start  float64  `json:"start_s"`
	Value  float64  `json:"value_s"`
	StdErr *float64 `json:"std_err_s"`
}

// SensorFit is the fit error at one sensor: the root mean square and the
// largest residual (fitted − measured) in °C, and the row of the largest.
type SensorFit struct {
	Node      string  `json:"node"`
	RMSC      float64 `json:"rms_c"`
	WorstC    float64 `json:"worst_c"`
	WorstAtS  float64 `json:"worst_at_s"`
	WorstLine int     `json:"worst_line"`
}

// Fit fits the chosen R and C values of spec to the series d by least
// squares on the temperatures: for every candidate the network is compiled
// and advanced exactly from row to row with each row's power held constant
// over its interval. The optimiser is gonum's Newton method on θ (see bound)
// with the Gauss–Newton Hessian (see minimize); the best of opt.Starts runs
// wins. Uncertainties are sqrt(diag(σ²(JᵀJ)⁻¹)) with J the
// central-difference Jacobian in log v and σ² = SSR/(N − p), carried to the
// time constants through their own Jacobian.
//
// The first row starts the network: sensors at their readings, nodes
// without a sensor where they balance their neighbours under the first
// row's power (the power before the series); that start is then refined
// with the parameters (see correctStart), so noise in the first row does
// not bias the fit.
func Fit(ctx context.Context, spec thermal.Spec, d *Data, opt Options) (*Result, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	params := opt.Params
	if params == nil {
		params = AllParams(spec)
	}
	if len(params) == 0 {
		return nil, errors.New("thermalfit: no parameters to fit")
	}
	starts := opt.Starts
	if starts <= 0 {
		starts = DefaultStarts
	}
	m := newModel(spec, d, params)
	if len(m.res) <= len(params) {
		return nil, fmt.Errorf("%s: %d residuals (rows after the first × sensors) for %d parameters: the series is too short to fit them", d.File, len(m.res), len(params))
	}
	if _, err := m.ssr(m.logStart); err != nil {
		return nil, fmt.Errorf("thermalfit: the starting network: %w", err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	thetas := make([][]float64, starts)
	for k := range thetas {
		thetas[k] = make([]float64, len(params))
		if k > 0 {
			for j := range thetas[k] {
				thetas[k][j] = toTheta((rng.Float64()*2 - 1) * math.Log(4))
			}
		}
	}
	// The runs are independent, so they share the cores; each has its own
	// model (scratch space), and the best is picked in start order.
	type run struct {
		x     []float64
		f     float64
		evals int
	}
	runs := make([]run, starts)
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for k := range starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				runs[k].f = math.Inf(1)
				return
			}
			mk := newModel(spec, d, params)
			x, f := mk.minimize(thetas[k])
			runs[k] = run{x, f, mk.evals}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	best, bestF := []float64(nil), math.Inf(1)
	for _, r := range runs {
		m.evals += r.evals
		if r.f < bestF {
			best, bestF = r.x, r.f
		}
	}
	if best == nil {
		return nil, errors.New("thermalfit: no optimiser run gave a network that can be simulated")
	}
	r := m.report(best, bestF)
	r.Starts = starts
	for _, run := range runs {
		if run.f <= bestF*1.001+m.tol {
			r.Agreeing++
		}
	}
	if r.Agreeing < starts {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d of %d optimiser runs ended elsewhere (a worse local minimum): the best is reported", starts-r.Agreeing, starts))
	}
	return r, nil
}

func toTheta(dlog float64) float64 {
	return bound * math.Atanh(math.Max(-0.999999, math.Min(0.999999, dlog/bound)))
}

func fromTheta(theta float64) float64 { return bound * math.Tanh(theta/bound) }

// model simulates the network over the series for a vector of log values.
type model struct {
	d        *Data
	spec     thermal.Spec // ambient 0: the network runs in kelvins above ambient
	params   []Param
	ambient  units.Celsius // the spec's, for the fitted spec
	logStart []float64
	res      []float64 // scratch residuals
	tol      float64   // a change of the sum of squares too small to matter
	evals    int
}

// resolution is the temperature change, in °C, below which the fit does
// not look: a thousandth of the 0.1 °C of a good thermal sensor.
const resolution = 1e-4

func newModel(spec thermal.Spec, d *Data, params []Param) *model {
	m := &model{d: d, spec: cloneSpec(spec), params: params, ambient: spec.Ambient}
	m.spec.Ambient = 0
	for _, p := range params {
		m.logStart = append(m.logStart, math.Log(p.get(spec)))
	}
	m.res = make([]float64, (len(d.Times)-1)*len(d.Sensors))
	m.tol = float64(len(m.res)) * resolution * resolution
	return m
}

// network compiles the network with the parameters at exp(logv).
func (m *model) network(logv []float64) (*thermal.Network, thermal.Spec, error) {
	s := cloneSpec(m.spec)
	for j, p := range m.params {
		p.set(&s, math.Exp(logv[j]))
	}
	net, err := thermal.Compile(s)
	return net, s, err
}

// residuals writes fitted − measured for every row after the first and
// every sensor into dst.
func (m *model) residuals(logv, dst []float64) error {
	m.evals++
	net, _, err := m.network(logv)
	if err != nil {
		return err
	}
	d := m.d
	temps := m.start(net, d.Ambient[0])
	x := make(thermal.State, len(temps))
	ns := len(d.Sensors)
	for i := 1; i < len(d.Times); i++ {
		ta := d.Ambient[i]
		for j, t := range temps {
			x[j] = t - ta
		}
		net.Advance(x, x, d.Power[i], d.Times[i]-d.Times[i-1])
		for j, v := range x {
			temps[j] = v + ta
		}
		for k, node := range d.Sensors {
			dst[(i-1)*ns+k] = temps[node] - d.Temps[i][k]
		}
	}
	m.correctStart(net, dst)
	return nil
}

// correctStart moves the starting state to where it fits best. The first
// row's readings carry the sensors' noise, and a slow mode keeps an error
// in them for minutes, which would bias the fit; so the start is refined
// too, in closed form, since the temperatures are linear in it. A change ζ
// of the start in modal coordinates adds S·L·D(t)·ζ to the sensors' readings
// at time t (S picks the sensors, D(t) = diag(e^(−λt))), so the best ζ
// solves (Σ D·M·D) ζ = −Σ D·(SL)ᵀ r with M = (SL)ᵀSL, summed over the rows:
// O(n²) a row, about the cost of the simulation itself. A small ridge keeps
// modes that have decayed by the second row (invisible to the data) at 0.
func (m *model) correctStart(net *thermal.Network, res []float64) {
	d := m.d
	rates, left, _ := net.Modes()
	n, ns := len(rates), len(d.Sensors)
	sl := make([]float64, ns*n) // S·L, row-major
	for k, node := range d.Sensors {
		copy(sl[k*n:(k+1)*n], left[node*n:(node+1)*n])
	}
	mm := make([]float64, n*n) // M = (SL)ᵀSL
	for k := range n {
		for l := range n {
			for s := range ns {
				mm[k*n+l] += sl[s*n+k] * sl[s*n+l]
			}
		}
	}
	gram := make([]float64, n*n)
	b := make([]float64, n)
	decay := make([]float64, n)
	for i := 1; i < len(d.Times); i++ {
		tau := d.Times[i] - d.Times[0]
		live := 0
		for k, l := range rates {
			decay[k] = math.Exp(-l * tau)
			if decay[k] > 0 {
				live = k + 1 // rates ascend, so the live modes come first
			}
		}
		if live == 0 {
			break
		}
		r := res[(i-1)*ns : i*ns]
		for k := range live {
			var v float64
			for s, rs := range r {
				v += sl[s*n+k] * rs
			}
			b[k] -= decay[k] * v
			for l := range live {
				gram[k*n+l] += decay[k] * decay[l] * mm[k*n+l]
			}
		}
	}
	var top float64
	for k := range n {
		top = math.Max(top, gram[k*n+k])
	}
	if top == 0 {
		return
	}
	for k := range n {
		gram[k*n+k] += 1e-10 * top
	}
	var chol mat.Cholesky
	if !chol.Factorize(mat.NewSymDense(n, gram)) {
		return
	}
	var zeta mat.VecDense
	if err := chol.SolveVecTo(&zeta, mat.NewVecDense(n, b)); err != nil {
		return
	}
	for i := 1; i < len(d.Times); i++ {
		tau := d.Times[i] - d.Times[0]
		live := 0
		for k, l := range rates {
			decay[k] = math.Exp(-l*tau) * zeta.AtVec(k)
			if decay[k] != 0 {
				live = k + 1
			}
		}
		if live == 0 {
			break
		}
		for s := range ns {
			var v float64
			for k := range live {
				v += sl[s*n+k] * decay[k]
			}
			res[(i-1)*ns+s] += v
		}
	}
}

// start is the state at the first row: sensors as read; the other nodes u
// where their heat balance holds with the sensors' nodes m held, under the
// first row's power P: G_uu x_u = P_u − G_um x_m, x = T − Ta. G_uu is a
// principal block of a positive definite matrix, so it is invertible.
func (m *model) start(net *thermal.Network, ta float64) []float64 {
	d := m.d
	n := net.Len()
	temps := make([]float64, n)
	known := make([]bool, n)
	for k, node := range d.Sensors {
		temps[node] = d.Temps[0][k]
		known[node] = true
	}
	var free []int
	for i := range n {
		if !known[i] {
			free = append(free, i)
		}
	}
	if len(free) == 0 {
		return temps
	}
	g := net.Conductance()
	a := mat.NewDense(len(free), len(free), nil)
	b := mat.NewVecDense(len(free), nil)
	for r, i := range free {
		rhs := d.Power[0][i]
		for j := range n {
			if known[j] {
				rhs -= g[i*n+j] * (temps[j] - ta)
			}
		}
		b.SetVec(r, rhs)
		for c, j := range free {
			a.Set(r, c, g[i*n+j])
		}
	}
	var x mat.VecDense
	if err := x.SolveVec(a, b); err != nil {
		for _, i := range free {
			temps[i] = ta
		}
		return temps
	}
	for r, i := range free {
		temps[i] = ta + x.AtVec(r)
	}
	return temps
}

// ssr is the sum of squared residuals at logv, leaving them in m.res.
func (m *model) ssr(logv []float64) (float64, error) {
	if err := m.residuals(logv, m.res); err != nil {
		return 0, err
	}
	var f float64
	for _, r := range m.res {
		f += r * r
	}
	return f, nil
}

func (m *model) logv(theta []float64) []float64 {
	lv := make([]float64, len(theta))
	for j, t := range theta {
		lv[j] = m.logStart[j] + fromTheta(t)
	}
	return lv
}

// penalty stands for the objective where the network cannot be simulated
// (rounding makes it singular at the far edge of the box); the line search
// backs off from it.
const penalty = 1e300

// minimize runs gonum's Newton method from theta with the Gauss–Newton
// Hessian 2JᵀJ and gradient 2Jᵀr, J from forward differences of the
// residuals: a damped Gauss–Newton, which Newton's own shift (H + τI) turns
// into Levenberg–Marquardt where JᵀJ is singular. It returns the log values
// it ends at and their sum of squares.
func (m *model) minimize(theta0 []float64) ([]float64, float64) {
	p, n := len(theta0), len(m.res)
	var at []float64 // where r0 and jac were computed
	r0, r1 := make([]float64, n), make([]float64, n)
	jac := make([][]float64, p)
	for j := range jac {
		jac[j] = make([]float64, n)
	}
	ok := false
	linearise := func(theta []float64) bool {
		if at != nil && slices.Equal(at, theta) {
			return ok
		}
		at = slices.Clone(theta)
		if ok = m.residuals(m.logv(theta), r0) == nil; !ok {
			return false
		}
		const h = 1e-6
		th := slices.Clone(theta)
		for j := range p {
			th[j] = theta[j] + h
			err := m.residuals(m.logv(th), r1)
			th[j] = theta[j]
			for i := range n {
				if err != nil {
					jac[j][i] = 0
				} else {
					jac[j][i] = (r1[i] - r0[i]) / h
				}
			}
		}
		return true
	}
	problem := optimize.Problem{
		Func: func(theta []float64) float64 {
			f, err := m.ssr(m.logv(theta))
			if err != nil {
				return penalty
			}
			return f
		},
		Grad: func(grad, theta []float64) {
			clear(grad)
			if !linearise(theta) {
				return
			}
			for j := range p {
				grad[j] = 2 * floats.Dot(jac[j], r0)
			}
		},
		Hess: func(hess *mat.SymDense, theta []float64) {
			if !linearise(theta) {
				for j := range p {
					hess.SetSym(j, j, 1)
				}
				return
			}
			for a := range p {
				for b := a; b < p; b++ {
					hess.SetSym(a, b, 2*floats.Dot(jac[a], jac[b]))
				}
			}
		},
	}
	settings := &optimize.Settings{
		MajorIterations: 200,
		Converger:       &optimize.FunctionConverge{Relative: 1e-10, Absolute: m.tol, Iterations: 3},
	}
	res, err := optimize.Minimize(problem, theta0, settings, &optimize.Newton{})
	if res == nil || (err != nil && res.F >= penalty) {
		return nil, math.Inf(1)
	}
	return m.logv(res.X), res.F
}
