package thermalfit_test

import (
	"fmt"

	"github.com/edgetwin/edgetwin/calibrate/thermalfit"
	"github.com/edgetwin/edgetwin/hw/thermal"
)

// The parameters of the default phone network that --fit r picks: every
// resistance, by the path `simulate --set` takes.
func ExampleSelectParams() {
	ps, _ := thermalfit.SelectParams(thermal.PhoneDefault(), []string{"r"})
	for _, p := range ps {
		fmt.Println(p.Path, p.Unit())
	}
	// Output:
	// thermal.nodes.board.to_ambient K/W
	// thermal.nodes.skin.to_ambient K/W
	// thermal.links.0.resistance K/W
	// thermal.links.1.resistance K/W
	// thermal.links.2.resistance K/W
	// thermal.links.3.resistance K/W
	// thermal.links.4.resistance K/W
	// thermal.links.5.resistance K/W
}

// A series is strict: a time that goes back is an error on one line that
// names the file, line and column.
func ExampleReadSeries() {
	_, err := thermalfit.ReadSeries("phone.csv", []byte("time_s,power_npu_w,temp_skin_c\n0,2.5,30.1\n2,2.5,30.4\n1,2.5,30.6\n"))
	fmt.Println(err)
	// Output:
	// phone.csv:4: field time_s: time 1 s does not increase (the row before, line 3, is at 2 s); rows must be in strictly increasing time
}
