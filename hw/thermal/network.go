package thermal

import (
	"fmt"
	"math"
	"slices"

	"github.com/edgetwin/edgetwin/hw/spec"
	"gonum.org/v1/gonum/mat"
)

// Network is a compiled RC network, immutable and safe for concurrent use.
// Its temperatures T (°C, one per node) obey
//
//	C dT/dt = P − G (T − Ta)
//
// with C the diagonal of heat capacities, P the power into each node, Ta the
// ambient temperature and G the conductance matrix: the Laplacian of the
// links plus each node's conductance to ambient on the diagonal.
//
// G is symmetric positive definite when every node has a path to ambient,
// so S = C^(-1/2) G C^(-1/2) has an orthonormal eigenbasis V with positive
// eigenvalues λ. Compile factorises S once; with L = C^(-1/2) V the solution
// for constant P is, in modal coordinates z = L⁻¹ (T − Ta),
//
//	z(t) = z∞ + e^(−λt) ∘ (z(0) − z∞),  z∞ = Λ⁻¹ Lᵀ P,
//
// exact for any step. The time constants of the network are 1/λ.
type Network struct {
	names   []string
	kinds   []string
	ambient float64
	cap     []float64 // heat capacity per node, J/K
	gAmb    []float64 // conductance to ambient per node, W/K
	g       []float64 // conductance matrix G, row-major n×n, W/K
	lambda  []float64 // eigenvalues of S, ascending, 1/s
	left    []float64 // L = C^(-1/2) V, row-major: T − Ta = L z
	leftT   []float64 // Lᵀ, row-major: modal power = Lᵀ P
	right   []float64 // L⁻¹ = Vᵀ C^(1/2), row-major: z = L⁻¹ (T − Ta)
}

// State is the temperature of every node in °C, in Nodes() order.
type State []float64

// Compile validates s and factorises its network. The cost is one symmetric
// eigendecomposition, O(n³), paid once per chip.
func Compile(s Spec) (*Network, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	n := len(s.Nodes)
	net := &Network{
		names:   names(s.Nodes),
		kinds:   make([]string, n),
		ambient: float64(s.Ambient),
		cap:     make([]float64, n),
		gAmb:    make([]float64, n),
		g:       make([]float64, n*n),
	}
	index := make(map[string]int, n)
	for i, nd := range s.Nodes {
		index[nd.Name] = i
		net.kinds[i] = nd.Kind
		net.cap[i] = float64(nd.Capacity)
		if nd.ToAmbient > 0 {
			net.gAmb[i] = 1 / float64(nd.ToAmbient)
			net.g[i*n+i] += net.gAmb[i]
		}
	}
	for _, l := range s.Links {
		a, b := index[l.A], index[l.B]
		g := 1 / float64(l.Resistance)
		net.g[a*n+a] += g
		net.g[b*n+b] += g
		net.g[a*n+b] -= g
		net.g[b*n+a] -= g
	}
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, net.g[i*n+j]/math.Sqrt(net.cap[i]*net.cap[j]))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, fmt.Errorf("thermal: eigendecomposition of the %d-node network did not converge", n)
	}
	net.lambda = eig.Values(nil)
	if !(net.lambda[0] > 0) {
		// Validate guarantees a path to ambient, so G is positive definite;
		// this only trips on conductances so far apart that the smallest
		// eigenvalue is lost to rounding.
		return nil, &spec.Error{Path: "thermal", Msg: fmt.Sprintf("network is numerically singular (smallest rate %g/s): resistances or capacities span too many orders of magnitude", net.lambda[0])}
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	net.left = make([]float64, n*n)
	net.leftT = make([]float64, n*n)
	net.right = make([]float64, n*n)
	for i := 0; i < n; i++ {
		ci := math.Sqrt(net.cap[i])
		for k := 0; k < n; k++ {
			vik := v.At(i, k)
			net.left[i*n+k] = vik / ci
			net.leftT[k*n+i] = vik / ci
			net.right[k*n+i] = vik * ci
		}
	}
	return net, nil
}

// Nodes returns the node names in file order; every State and power vector
// is indexed in this order.
func (n *Network) Nodes() []string { return slices.Clone(n.names) }

// Kinds returns the kind of every node, in Nodes() order.
func (n *Network) Kinds() []string { return slices.Clone(n.kinds) }

// Len is the number of nodes.
func (n *Network) Len() int { return len(n.names) }

// Index returns the position of the node called name, or -1.
func (n *Network) Index(name string) int { return slices.Index(n.names, name) }

// AmbientTemp is the ambient temperature in °C.
func (n *Network) AmbientTemp() float64 { return n.ambient }

// Ambient returns the state with every node at ambient temperature: a
// device that has been off long enough.
func (n *Network) Ambient() State {
	s := make(State, len(n.names))
	for i := range s {
		s[i] = n.ambient
	}
	return s
}

// TimeConstants returns the network's time constants 1/λ in seconds,
// slowest first. A step in power shows up in every node as a mix of
// exponentials with these time constants.
func (n *Network) TimeConstants() []float64 {
	tau := make([]float64, len(n.lambda))
	for k, l := range n.lambda {
		tau[k] = 1 / l
	}
	return tau
}

// Modes returns the decay rates λ (1/s, ascending; the time constants are
// 1/λ) and the two n×n maps, row-major, between temperatures above ambient
// and modal coordinates: T − Ta = left · z and z = right · (T − Ta). With no
// power, mode k decays as e^(−λₖt); fitting uses this to get the free
// response of any starting state in closed form. The slices are copies.
func (n *Network) Modes() (rates, left, right []float64) {
	return slices.Clone(n.lambda), slices.Clone(n.left), slices.Clone(n.right)
}

// Conductance returns the conductance matrix G (W/K), row-major n×n: the
// links' Laplacian plus each node's conductance to ambient on the diagonal.
// The slice is a copy.
func (n *Network) Conductance() []float64 { return slices.Clone(n.g) }

// Stored is the heat held above ambient, Σ Cᵢ (Tᵢ − Ta), in joules.
func (n *Network) Stored(s State) float64 {
	n.check(s, "state")
	var e float64
	for i, t := range s {
		e += n.cap[i] * (t - n.ambient)
	}
	return e
}

// Outflow is the heat flowing to ambient, Σ (Tᵢ − Ta)/Rᵢ, in watts.
func (n *Network) Outflow(s State) float64 {
	n.check(s, "state")
	var q float64
	for i, t := range s {
		q += n.gAmb[i] * (t - n.ambient)
	}
	return q
}

// maxStack is the largest network whose scratch vectors live on the stack;
// larger ones allocate in Advance.
const maxStack = 32

// Advance returns the state dt seconds after t0 with constant power p (W per
// node, Nodes() order). The result is exact up to rounding for any dt, from
// a microsecond to an hour (dt = +Inf gives the steady state); it costs three
// n×n matrix-vector products and n exponentials, O(n²).
//
// The result is written to dst when it has room (dst may be t0 itself) and
// a new State is allocated otherwise; nothing else is allocated for networks
// of up to 32 nodes. Advance panics when t0 or p has the wrong length or dt
// is negative or NaN: these are programming errors.
func (n *Network) Advance(dst, t0 State, p []float64, dt float64) State {
	size := len(n.names)
	n.check(t0, "state")
	n.check(p, "power")
	if !(dt >= 0) {
		panic(fmt.Sprintf("thermal: Advance by %v s; the step must be zero or positive", dt))
	}
	var buf [maxStack]float64
	z := buf[:0]
	if size <= maxStack {
		z = buf[:size]
	} else {
		z = make([]float64, size)
	}
	for k := 0; k < size; k++ {
		r := n.right[k*size : (k+1)*size]
		lt := n.leftT[k*size : (k+1)*size]
		var z0, q float64
		for j := 0; j < size; j++ {
			z0 += r[j] * (t0[j] - n.ambient)
			q += lt[j] * p[j]
		}
		zInf := q / n.lambda[k]
		z[k] = zInf + math.Exp(-n.lambda[k]*dt)*(z0-zInf)
	}
	dst = resize(dst, size)
	for i := 0; i < size; i++ {
		l := n.left[i*size : (i+1)*size]
		var y float64
		for k := 0; k < size; k++ {
			y += l[k] * z[k]
		}
		dst[i] = n.ambient + y
	}
	return dst
}

// Steady returns the temperatures the network settles at under constant
// power p: T∞ = Ta + G⁻¹ P.
func (n *Network) Steady(p []float64) State {
	n.check(p, "power")
	return n.Advance(nil, n.Ambient(), p, math.Inf(1))
}

// Heat returns dT/dt at state s under power p, in K/s: C⁻¹ (P − G (T − Ta)).
// It is what an integrator would step; tests use it to check Advance.
func (n *Network) Heat(s State, p []float64) []float64 {
	n.check(s, "state")
	n.check(p, "power")
	size := len(n.names)
	d := make([]float64, size)
	for i := 0; i < size; i++ {
		q := p[i]
		for j := 0; j < size; j++ {
			q -= n.g[i*size+j] * (s[j] - n.ambient)
		}
		d[i] = q / n.cap[i]
	}
	return d
}

func (n *Network) check(v []float64, what string) {
	if len(v) != len(n.names) {
		panic(fmt.Sprintf("thermal: %s has %d entries, the network has %d nodes", what, len(v), len(n.names)))
	}
}

func resize(dst State, size int) State {
	if cap(dst) >= size {
		return dst[:size]
	}
	return make(State, size)
}
