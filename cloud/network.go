package cloud

import (
	"math"
	"math/rand/v2"
)

// netState is what a session finds between the device and the cloud.
type netState int

const (
	online  netState = iota // the normal link
	weak                    // a weak link, with its own RTT
	offline                 // no network: a cloud request fails
	netStates
)

// z95 is the standard normal's 95th percentile: a lognormal with median m
// and 95th percentile q has σ = ln(q/m) / z95.
const z95 = 1.6448536269514722

// lognormal is a round-trip time distribution fitted to two percentiles.
type lognormal struct{ mu, sigma float64 }

func fitRTT(r RTT) lognormal {
	return lognormal{mu: math.Log(float64(r.P50)), sigma: math.Log(float64(r.P95)/float64(r.P50)) / z95}
}

func (l lognormal) at(z float64) float64 { return math.Exp(l.mu + l.sigma*z) }

func (l lognormal) mean() float64 { return math.Exp(l.mu + l.sigma*l.sigma/2) }

// linkModel is the profile's network: the share of sessions in each state
// and the time a cloud request spends on the network in each.
type linkModel struct {
	share      [netStates]float64
	rtt        [netStates]*lognormal // nil offline, and without an RTT
	roundTrips float64
	jitter     float64
}

func newLinkModel(n Network) linkModel {
	m := linkModel{roundTrips: float64(n.RoundTrips), jitter: float64(n.Jitter)}
	m.share[offline] = float64(n.OfflineShare)
	if n.Weak != nil {
		m.share[weak] = float64(n.Weak.Share)
		l := fitRTT(n.Weak.RTT)
		m.rtt[weak] = &l
	}
	m.share[online] = max(0, 1-m.share[offline]-m.share[weak])
	if n.RTT != nil {
		l := fitRTT(*n.RTT)
		m.rtt[online] = &l
	}
	return m
}

// meanTime is the expected network time of a cloud request in state s:
// round trips × E[RTT] + E[jitter].
func (m linkModel) meanTime(s netState) float64 {
	if m.rtt[s] == nil {
		return 0
	}
	return m.roundTrips*m.rtt[s].mean() + m.jitter/2
}

// session is one drawn session: its task, the fleet device it runs on,
// the network it finds and what a cloud request would spend on it.
type session struct {
	task, device int
	state        netState
	net          float64 // s: round trips × RTT + jitter
}

// drawSessions draws n sessions with a fixed seed, so that every option
// and plan is judged on the same sessions (and the same seed gives the
// same figures).
func drawSessions(p *Profile, link linkModel, seed uint64, n int) []session {
	rng := rand.New(rand.NewPCG(seed, 0x65646765_7477696e)) // "edgetwin"
	taskShares := make([]float64, len(p.Tasks))
	for i, t := range p.Tasks {
		taskShares[i] = float64(t.Share)
	}
	devShares := []float64{1}
	if p.Device != nil {
		devShares = devShares[:0]
		for _, d := range p.Device.Devices {
			devShares = append(devShares, d.Share)
		}
	}
	out := make([]session, n)
	for i := range out {
		s := session{task: pick(taskShares, rng.Float64()), device: pick(devShares, rng.Float64())}
		u := rng.Float64()
		switch {
		case u < link.share[offline]:
			s.state = offline
		case u < link.share[offline]+link.share[weak]:
			s.state = weak
		}
		// Draw z and the jitter for every session, whatever its state, so
		// that one session's draws do not shift another's.
		z, j := rng.NormFloat64(), rng.Float64()
		if l := link.rtt[s.state]; l != nil {
			s.net = link.roundTrips*l.at(z) + j*link.jitter
		}
		out[i] = s
	}
	return out
}

// pick returns the index whose cumulative share first exceeds u.
func pick(shares []float64, u float64) int {
	acc := 0.0
	for i, s := range shares {
		acc += s
		if u < acc {
			return i
		}
	}
	return len(shares) - 1
}
