package workloads

// MatMul is one matrix product on its own, as a kernel benchmark runs it:
// m rows of activations times an n×k weight matrix stored in q's FFN
// format — the operator Lower emits for such a product in a model.
func MatMul(q Quant, m, n, k int) Op {
	l := &lowering{}
	l.matmul("kernel", 0, RoleFFN, m, tensors{q: q}.make("kernel", 0, RoleFFN, -1, n, k, 0))
	return l.ops[0]
}
