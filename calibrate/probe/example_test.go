package probe_test

import (
	"fmt"

	"github.com/edgetwin/edgetwin/calibrate/probe"
)

// The steps of a probe, in the order Run takes them.
func ExamplePlan() {
	for _, s := range probe.Plan(probe.Options{Quick: true}) {
		fmt.Printf("%-12s %s\n", s.Name, s.Kind)
	}
	// Output:
	// bandwidth    bandwidth
	// latency      latency
	// random_read  random_read
	// memcpy       memcpy
	// gemv-f16     gemv
	// gemv-q8_0    gemv
	// gemv-q4_0    gemv
	// gemm-q8_0    gemm
	// decoder-s    decoder
	// decoder-m    decoder
	// decoder-l    decoder
}

// A Q4_0 block as GGUF stores it: the scale d as a half, then 16 bytes
// whose low nibbles are weights 0..15 and high nibbles weights 16..31,
// each weight (nibble − 8)·d.
func Example_q4Block() {
	blk := make([]byte, probe.Q4_0Bytes)
	d := probe.ToHalf(0.25)
	blk[0], blk[1] = byte(d), byte(d>>8)
	blk[2] = 0x0f<<4 | 0x09 // weight 0: nibble 9; weight 16: nibble 15
	w := make([]float32, probe.BlockSize)
	probe.DequantizeQ4_0(w, blk)
	fmt.Println(w[0], w[1], w[16])
	// Output: 0.25 -2 1.75
}
