package sim

import "github.com/edgetwin/edgetwin/hw"

// Sampling. After each pass the host draws a token per sequence from the
// logits: llama.cpp's default sampler chain (repetition penalties, top-k
// 40, typical, top-p, min-p, temperature, the draw) runs on one core and
// walks the whole vocabulary, mostly scalar code (a partial sort for top-k,
// a softmax over what survives). Its cost is cycles per logit on the core
// that runs it, which an in-order little core pays many times over.

// samplerCycles is what sampling costs per logit on the CPU u: on its
// first cluster's core design (threads go to the fastest cores first), or
// its own, with where the figure comes from.
func samplerCycles(u *hw.Unit) (cycles float64, source string) {
	core := u.Core
	if len(u.Clusters) > 0 && u.Clusters[0].Core != "" {
		core = u.Clusters[0].Core
	}
	switch core {
	case "cortex-a55":
		return 17.7, inOrderSampling
	case "cortex-a53", "cortex-a510", "cortex-a520":
		return 17.7, "assumed: an in-order core as the Cortex-A55; " + inOrderSampling
	}
	return 2.2, outOfOrderSampling
}

const (
	inOrderSampling    = "llama-cli sampling Llama-3.2-1B's 128,256 logits took 1.26 ms a token on an RK3566's Cortex-A55 at 1.8 GHz, 17.7 cycles a logit (ggml-org/llama.cpp issue #34, comment of 2024-12-15)"
	outOfOrderSampling = "assumed for an out-of-order core: the same measurement took 0.06 ms a token on an i5-13400F (Raptor Cove at 4.6 GHz, 2.2 cycles a logit; ggml-org/llama.cpp issue #34, comment of 2024-12-15); no Arm big core was measured"
)

// hostCPU is the chip's CPU, which samples and runs fallbacks: its first
// CPU unit, or nil.
func hostCPU(c *hw.Chip) *hw.Unit {
	for i := range c.Units {
		if c.Units[i].Kind == hw.CPU {
			return &c.Units[i]
		}
	}
	return nil
}
