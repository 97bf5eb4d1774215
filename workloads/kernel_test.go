package workloads

import "testing"

// TestMatMul: a lone product carries the FLOPs and the weight bytes of
// its format, exactly as the same product inside a model.
func TestMatMul(t *testing.T) {
	q, err := ParseQuant("Q4_0")
	if err != nil {
		t.Fatal(err)
	}
	op := MatMul(q, 1, 4096, 4096)
	// Q4_0: 18 bytes per block of 32 weights.
	if want := 4096.0 * 4096 / 32 * 18; op.Touch(Weights) != want {
		t.Errorf("weights %g B, want %g", op.Touch(Weights), want)
	}
	if want := 2.0 * 4096 * 4096; op.FLOPs != want || op.Kind != KindMatMul || !op.Matrix {
		t.Errorf("%+v: want a matrix op of %g FLOPs", op, want)
	}
	if want := (4096.0 + 4096) * actBytes; op.Touch(Activations) != want {
		t.Errorf("activations %g B, want %g", op.Touch(Activations), want)
	}
}
