package sim

import (
	"math"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/workloads"
)

// flashFFN is a run's sparse FFN loading ("LLM in a flash",
// runtimes.FlashFFN): the FFN weights live on storage, a token computes
// its active neurons' rows and reads those the DRAM window lacks, one
// read per neuron of its gate, up and down rows together.
type flashFFN struct {
	runtimes.FlashFFN
	ffn    float64 // the FFN weights' bytes
	neuron float64 // one neuron's rows in all its FFN matrices: one read
}

// newFlashFFN sizes c's sparse FFN loading, or says why it cannot run.
func newFlashFFN(c *Config) (*flashFFN, error) {
	m := c.Model.Model
	if m.MoE != nil {
		return nil, spec.Errorf("%s: flash_ffn reads a dense FFN's active neurons; %s routes %d experts a layer, which the runtime's figures do not describe", c.Runtime.ID, m.Name, m.MoE.Experts)
	}
	var ffn float64
	for _, t := range m.Tensors(c.Quant) {
		if t.Role == workloads.RoleFFN {
			ffn += t.Bytes
		}
	}
	return &flashFFN{FlashFFN: *c.Runtime.FlashFFN, ffn: ffn, neuron: ffn / float64(m.Layers*m.FFN)}, nil
}

// stored is the bytes of the FFN weights that stay on storage: all but
// the cached share.
func (f *flashFFN) stored() float64 { return f.ffn * (1 - float64(f.Cached)) }

// computed is the share of the FFN neurons a pass of tokens rows
// computes: the union of the rows' active neurons, each row's drawn
// independently.
func (f *flashFFN) computed(tokens int) float64 {
	return 1 - math.Pow(1-float64(f.Active), float64(max(1, tokens)))
}

// read is the share of the FFN weights a pass of tokens rows reads from
// storage: each row's fresh neurons, at most all the DRAM does not hold.
func (f *flashFFN) read(tokens int) float64 {
	return min(float64(f.Fresh)*float64(max(1, tokens)), 1-float64(f.Cached))
}

// sparsify cuts each FFN matmul of ops to the neurons the pass computes:
// the neurons are the outputs (N) of gate and up and the inputs (K) of
// down, and the weights read and the work shrink with them.
func (f *flashFFN) sparsify(ops []workloads.Op, ffnDim int) {
	for i := range ops {
		op := &ops[i]
		if op.Role != workloads.RoleFFN || op.Kind != workloads.KindMatMul || op.Bytes.Weights == 0 {
			continue
		}
		s := f.computed(op.M)
		switch ffnDim {
		case op.N:
			op.N = max(1, int(math.Round(float64(op.N)*s)))
		case op.K:
			op.K = max(1, int(math.Round(float64(op.K)*s)))
		}
		op.FLOPs *= s
		op.Bytes.Weights *= s
	}
}

// flashIn reads a pass's fresh FFN neurons from storage at the rate reads
// of one neuron's rows reach (hw.Storage.ReadRate) and returns the time.
func (e *engine) flashIn(ops []workloads.Op) float64 {
	f := e.mem.flash
	tokens := 1
	for _, op := range ops {
		if op.Role == workloads.RoleFFN && op.Kind == workloads.KindMatMul {
			tokens = max(1, op.M)
			break
		}
	}
	bytes := f.read(tokens) * f.ffn
	t := bytes / e.cfg.Chip.Storage.ReadRate(f.neuron)
	e.st.storageBytes += bytes
	e.st.paging += t
	return t
}

// note is the warning a flash run carries: what it reads a token and
// at what rate.
func (f *flashFFN) note(c *Config, paging, total float64) string {
	return c.Runtime.ID + " keeps " + units.Approx(f.stored(), units.KindBytes) + " of " + c.Model.Name + "'s FFN weights on storage and reads the neurons each token activates that DRAM lacks (" +
		units.Format(float64(f.Fresh), units.KindFraction) + " of the FFN, " + units.Approx(f.read(1)*f.ffn, units.KindBytes) + " a token) in reads of " +
		units.Approx(f.neuron, units.KindBytes) + " at " + units.Approx(c.Chip.Storage.ReadRate(f.neuron), units.KindByteRate) + ": " + pctOf(paging, total) + " of the run waits on storage"
}
