// Package dtype names the numeric element types that compute units run and
// that tensors are stored in, and orders them by precision.
//
// Both the chip description (a unit's peak rate per dtype) and the workload
// (the activation type a quantisation implies) speak in these names, so the
// runtime can pick "the best dtype a unit supports at or above the activation
// type" with one comparison:
//
//	if d.AtLeast(dtype.INT8) { ... }
//
// Precision ranks are a partial order flattened into integers: INT4 < INT8 <
// FP8 < INT16 < FP16 = BF16 < FP32. FP16 and BF16 share a rank because
// either can carry 16-bit activations.
package dtype
