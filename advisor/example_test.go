package advisor_test

import (
	"fmt"

	"github.com/edgetwin/edgetwin/advisor"
)

// Basis sorts the source of a figure in a run's provenance into what an
// answer rests on.
func ExampleBasis() {
	for _, source := range []string{
		"nextpit.com comparison table (76.8 GB/s)",
		"assumed",
		"derived: clock × 0.4…1.0 at 0.60…0.88 V (assumed)",
		"calibrated:overlay.yaml",
		"--set",
		"phone.yaml:7",
	} {
		fmt.Println(advisor.Basis(source))
	}
	// Output:
	// cited
	// assumed
	// assumed
	// calibrated
	// set
	// given
}
