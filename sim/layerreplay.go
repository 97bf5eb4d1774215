package sim

import (
	"math"

	"github.com/edgetwin/edgetwin/hw/cache"
	"github.com/edgetwin/edgetwin/workloads"
)

// Layer replay. A model's blocks are alike: each runs the same operators
// on weights and a KV cache of its own, and every operator spills into the
// one activation buffer. So when a prefill's layer begins with the L3 in
// the state the layer before began with (the same blocks in the same
// replacement order: cache.Matches) and its plan is that layer's but for
// its own tensors' addresses, its lookups are that layer's, and their
// hits too but for how its own weights' and KV's pages fall on the sets;
// it leaves the L3 as that layer left it, which is as it found it. Such a
// layer, and each after it that is alike, takes the hits of the layer
// before, lookup by lookup, and leaves the L3 as it is; its timing is
// simulated as ever, from those hits. The first layer that differs (or
// the operators after the blocks) looks up again from there. Only a
// prefill at tile fidelity, whose lookups are most of its cost (the long
// spills of a prompt's activations); no leap runs in such a pass, since a
// leap's skipped tiles would change which lookups a layer makes.
// TestLayerReplay holds it to looking every layer up within 0.1% on the
// catalog's chips.
type replayedLayers struct {
	sigs  []uint64 // per operator of the pass: its layer's signature, 0 outside the blocks; nil when the pass replays no layer
	layer int      // the layer whose tiles are loading (-1 outside the blocks)
	op    int      // the operator whose tiles are loading (-1 before the first)
	sig   uint64   // the signature of the layer last looked up in full (0: none to replay)
	entry *cache.State
	hits  []int64 // that layer's lookups' hits, in order
	// replaying: the loading layer takes the hits of the one looked up in
	// full; next is its next lookup's.
	replaying bool
	next      int
	replayed  int // layers replayed in the run so far
}

// beginLayers prepares the pass's layer replay (see replayedLayers).
func (e *engine) beginLayers(ops []workloads.Op, plans []opPlan) {
	l := &e.layers
	l.sigs, l.layer, l.op, l.sig, l.replaying = nil, -1, -1, 0, false
	if e.work.Phase != workloads.Prefill || e.l3c == nil || e.replaying || !e.cfg.takes(layerReplay) {
		return
	}
	l.sigs = layerSignatures(ops, plans, e.layerSigBuf[:0])
	e.layerSigBuf = l.sigs
}

// endLayers ends the pass's layer replay.
func (e *engine) endLayers() {
	e.layers.sigs, e.layers.replaying = nil, false
}

// loading notes that operator op's tiles load now: at the first of a new
// layer it decides whether the layer replays the one before.
func (e *engine) loading(ops []workloads.Op, op int) {
	l := &e.layers
	if l.sigs == nil || op == l.op {
		return
	}
	l.op = op
	if ops[op].Layer == l.layer {
		return
	}
	l.layer = ops[op].Layer
	switch sig := l.sigs[op]; {
	case sig == 0:
		l.sig, l.replaying = 0, false
	case sig == l.sig && (l.replaying || e.l3c.Matches(l.entry)):
		l.replaying, l.next = true, 0
		l.replayed++
	default:
		l.sig, l.replaying = sig, false
		l.entry = e.l3c.SaveTo(l.entry)
		l.hits = l.hits[:0]
	}
}

// layerLookup runs span s through the L3, or takes the hit of its
// lookup's twin in the layer replayed.
func (e *engine) layerLookup(s span) int64 {
	l := &e.layers
	if l.replaying && l.next < len(l.hits) {
		l.next++
		return l.hits[l.next-1]
	}
	hit := e.cachePages(s.addr, int64(s.bytes), e.requests[s.class])
	if l.sig != 0 && !l.replaying {
		l.hits = append(l.hits, hit)
	}
	return hit
}

// layerSignatures gives each operator its layer's signature: a hash of
// everything the layer's lookups depend on but its own tensors' addresses
// (its operators, their tiles and spans, where the activations spill); 0
// outside the blocks, and for a layer whose operators are not together.
func layerSignatures(ops []workloads.Op, plans []opPlan, sigs []uint64) []uint64 {
	last := -1
	for lo := 0; lo < len(ops); {
		layer, hi := ops[lo].Layer, lo
		h := uint64(14695981039346656037) // FNV-1a over words
		mix := func(w uint64) { h = (h ^ w) * 1099511628211 }
		for ; hi < len(ops) && ops[hi].Layer == layer; hi++ {
			p := &plans[hi]
			mix(uint64(len(ops[hi].Kind)))
			for _, c := range ops[hi].Kind {
				mix(uint64(c))
			}
			var off uint64
			if p.on != nil {
				off = 1
			}
			mix(off)
			mix(uint64(p.tiles))
			mix(uint64(p.spillScan.lo))
			mix(uint64(p.spillScan.hi))
			mix(uint64(len(p.spans)))
			for _, s := range p.spans {
				var flags uint64
				for k, b := range [...]bool{s.write, s.scan, s.flush} {
					if b {
						flags |= 1 << k
					}
				}
				mix(uint64(s.class)<<8 | flags)
				mix(math.Float64bits(s.bytes))
				mix(math.Float64bits(s.run))
				mix(math.Float64bits(s.stride))
				if s.class == classActivations { // one buffer for all layers
					mix(uint64(s.addr))
				}
			}
		}
		if layer < 0 || layer <= last {
			h = 0 // outside the blocks, or a layer met twice
		} else {
			h |= 1
			last = layer
		}
		for range hi - lo {
			sigs = append(sigs, h)
		}
		lo = hi
	}
	return sigs
}
