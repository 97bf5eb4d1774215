package thermal_test

import (
	"fmt"

	"github.com/edgetwin/edgetwin/hw/thermal"
)

// A die of 10 J/K with 5 K/W to 25 °C air heats under 2 W towards
// 25 + 2·5 = 35 °C with a time constant of 5·10 = 50 s.
func Example() {
	net, err := thermal.Compile(thermal.Spec{
		Ambient: 25,
		Nodes:   []thermal.Node{{Name: "die", Kind: thermal.Junction, Capacity: 10, ToAmbient: 5}},
	})
	if err != nil {
		panic(err)
	}
	power := []float64{2}
	t := net.Ambient()
	for _, step := range []float64{10, 40, 50, 100} {
		t = net.Advance(t, t, power, step) // exact, whatever the step
		fmt.Printf("%.2f °C\n", t[0])
	}
	fmt.Printf("steady %.2f °C, τ = %.0f s\n", net.Steady(power)[0], net.TimeConstants()[0])
	fmt.Printf("reaches 34 °C after %.1f s\n", net.TimeToReach(net.Ambient(), power, 0, 34))
	// Output:
	// 26.81 °C
	// 31.32 °C
	// 33.65 °C
	// 34.82 °C
	// steady 35.00 °C, τ = 50 s
	// reaches 34 °C after 115.1 s
}

// The default phone running 6 W of LLM decode: when does the skin reach the
// governor's 43 °C trip?
func ExampleNetwork_TimeToReach() {
	net, err := thermal.Compile(thermal.PhoneDefault())
	if err != nil {
		panic(err)
	}
	p := []float64{3.6, 1.2, 0, 1.2, 0, 0} // npu, cpu, gpu, package, board, skin
	skin := net.Index("skin")
	tm := net.TimeToReach(net.Ambient(), p, skin, 43)
	fmt.Printf("skin at 43 °C after %.0f s; NPU junction then %.1f °C\n", tm, net.Advance(nil, net.Ambient(), p, tm)[net.Index("npu")])
	// Output:
	// skin at 43 °C after 81 s; NPU junction then 69.5 °C
}
