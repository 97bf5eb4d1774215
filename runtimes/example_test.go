package runtimes_test

import (
	"fmt"

	"github.com/edgetwin/edgetwin/runtimes"
)

// The runtime a user of a Snapdragon phone runs for a GGUF Q4_0 model on its
// GPU, and what its figures rest on.
func ExampleDefault() {
	p := runtimes.Default("gpu", "Qualcomm", []string{"Q4_0", "Q6_K"})
	fmt.Println(p.ID, p.Graph, p.Efficiency.GEMM["q4_0"])
	// Output: llama.cpp-opencl per-op 12.419%
}
