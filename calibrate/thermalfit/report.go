package thermalfit

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// nullRatio is the singular value, relative to the largest, below which a
// direction of the Jacobian counts as undetermined by the series.
const nullRatio = 1e-7

// report builds the Result at the optimum logv with sum of squares f.
func (m *model) report(logv []float64, f float64) *Result {
	net, fitted, _ := m.network(logv)
	startNet, _, _ := m.network(m.logStart)
	fitted.Ambient = m.ambient
	r := &Result{Spec: fitted, Rows: len(m.d.Times) - 1, Warnings: []string{}}
	cov, null, dirs := m.covariance(logv, f)
	for j, p := range m.params {
		v := math.Exp(logv[j])
		fp := Fitted{Path: p.Path, Unit: p.Unit(), Start: p.get(m.spec), Value: v}
		if cov != nil && !null[j] {
			fp.StdErr = ptr(v * math.Sqrt(cov.At(j, j)))
		}
		if math.Abs(logv[j]-m.logStart[j]) > 0.99*bound {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s ended at ×%.3g of its start, the edge of the ×1000 box: the series does not pin it down", p.Path, v/fp.Start))
		}
		r.Params = append(r.Params, fp)
	}
	var loose []string
	for j, p := range m.params {
		if null[j] {
			loose = append(loose, p.Path)
		}
	}
	if len(loose) > 0 {
		r.Warnings = append(r.Warnings, "the series cannot tell apart changes of "+strings.Join(loose, ", ")+" (their uncertainty is unbounded): fit fewer parameters (--fit) or measure more sensors or power steps")
	}
	taus, startTaus := net.TimeConstants(), startNet.TimeConstants()
	tauCov := m.tauCovariance(logv, cov, dirs)
	for k, tau := range taus {
		tc := TimeConstant{Start: startTaus[k], Value: tau}
		if tauCov != nil && !math.IsNaN(tauCov[k]) {
			tc.StdErr = ptr(tau * math.Sqrt(tauCov[k]))
		}
		r.TimeConstants = append(r.TimeConstants, tc)
	}
	// The fit error, from the residuals at the optimum.
	_, _ = m.ssr(logv)
	ns := len(m.d.Sensors)
	var all float64
	for k, node := range m.d.Sensors {
		sf := SensorFit{Node: m.d.Nodes[node]}
		var sum float64
		for i := 1; i < len(m.d.Times); i++ {
			e := m.res[(i-1)*ns+k]
			sum += e * e
			if math.Abs(e) > math.Abs(sf.WorstC) {
				sf.WorstC, sf.WorstAtS, sf.WorstLine = e, m.d.Times[i], m.d.Lines[i]
			}
		}
		all += sum
		sf.RMSC = math.Sqrt(sum / float64(r.Rows))
		r.WorstC = math.Max(r.WorstC, math.Abs(sf.WorstC))
		r.Sensors = append(r.Sensors, sf)
	}
	r.RMSC = math.Sqrt(all / float64(len(m.res)))
	r.Evaluations = m.evals
	return r
}

// jacobian is the central-difference Jacobian of the residuals in log v.
func (m *model) jacobian(logv []float64) *mat.Dense {
	const h = 1e-4
	n, p := len(m.res), len(logv)
	j := mat.NewDense(n, p, nil)
	lo, hi := make([]float64, n), make([]float64, n)
	x := slices.Clone(logv)
	for c := range p {
		x[c] = logv[c] - h
		errLo := m.residuals(x, lo)
		x[c] = logv[c] + h
		errHi := m.residuals(x, hi)
		x[c] = logv[c]
		if errLo != nil || errHi != nil {
			continue // a column of zeros: reported as undetermined
		}
		for i := range n {
			j.Set(i, c, (hi[i]-lo[i])/(2*h))
		}
	}
	return j
}

// covariance is σ²(JᵀJ)⁺ of the log values, σ² = f/(N − p), computed from
// the SVD of J. dirs are the directions J does not see (the residuals do
// not change along them), and null marks the parameters that load on one:
// their variance is unbounded.
func (m *model) covariance(logv []float64, f float64) (cov *mat.Dense, null []bool, dirs [][]float64) {
	p := len(logv)
	null = make([]bool, p)
	var svd mat.SVD
	if !svd.Factorize(m.jacobian(logv), mat.SVDThin) {
		for j := range null {
			null[j] = true
		}
		return nil, null, nil
	}
	s := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	sigma2 := f / float64(len(m.res)-p)
	cov = mat.NewDense(p, p, nil)
	for k, sk := range s {
		if sk <= nullRatio*s[0] {
			dir := make([]float64, p)
			for j := range p {
				dir[j] = v.At(j, k)
				if dir[j]*dir[j] > 0.01 {
					null[j] = true
				}
			}
			dirs = append(dirs, dir)
			continue
		}
		for a := range p {
			for b := range p {
				cov.Set(a, b, cov.At(a, b)+sigma2*v.At(a, k)*v.At(b, k)/(sk*sk))
			}
		}
	}
	return cov, null, dirs
}

// tauCovariance is the variance of log τ for every time constant, from the
// Jacobian of log τ in log v; NaN where τ changes along a direction the
// series does not see.
func (m *model) tauCovariance(logv []float64, cov *mat.Dense, dirs [][]float64) []float64 {
	if cov == nil {
		return nil
	}
	const h = 1e-5
	net, _, err := m.network(logv)
	if err != nil {
		return nil
	}
	n, p := net.Len(), len(logv)
	jac := make([][]float64, n)
	for k := range jac {
		jac[k] = make([]float64, p)
	}
	x := slices.Clone(logv)
	for c := range p {
		x[c] = logv[c] - h
		lo, _, err1 := m.network(x)
		x[c] = logv[c] + h
		hi, _, err2 := m.network(x)
		x[c] = logv[c]
		if err1 != nil || err2 != nil {
			return nil
		}
		tl, th := lo.TimeConstants(), hi.TimeConstants()
		for k := range n {
			jac[k][c] = (math.Log(th[k]) - math.Log(tl[k])) / (2 * h)
		}
	}
	out := make([]float64, n)
	for k := range n {
		var v float64
		for a := range p {
			for b := range p {
				v += jac[k][a] * cov.At(a, b) * jac[k][b]
			}
		}
		for _, dir := range dirs {
			if math.Abs(floats.Dot(jac[k], dir)) > 1e-3 {
				v = math.NaN()
			}
		}
		out[k] = v
	}
	return out
}

func ptr(v float64) *float64 { return &v }
