package sweep_test

import (
	"fmt"

	"github.com/edgetwin/edgetwin/sweep"
)

// A KV-cache range doubling from 1 MiB, beside a list of L3 sizes: eight
// points, the L3 size turning fastest. Shard 1 of 3 runs every third
// point from the second.
func Example() {
	axes, err := sweep.ParseVaries([]string{"kv=1MiB..8MiB:x2", "memory.l3.size=6MiB,12MiB"})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := &sweep.Sweep{Axes: axes}
	for _, a := range axes {
		fmt.Println(a.Field, a.Kind, a.Values)
	}
	for _, f := range s.Fields() {
		fmt.Printf("%s: %s\n", f.Name, f.Label)
	}
	sh, _ := sweep.ParseShard("1/3", 0, nil)
	fmt.Println(s.Len(), "points; shard", sh, "runs", sh.Indices(s.Len()))
	// Output:
	// kv size [1.048576e+06 2.097152e+06 4.194304e+06 8.388608e+06]
	// memory.l3.size size [6.291456e+06 1.2582912e+07]
	// kv: KV cache
	// ctx: context (tokens)
	// memory.l3.size: memory.l3.size
	// 8 points; shard 1/3 runs [1 4 7]
}
