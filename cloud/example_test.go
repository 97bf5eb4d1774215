package cloud_test

import (
	"context"
	"fmt"
	"os"

	"github.com/edgetwin/edgetwin/cloud"
)

// Advise weighs the device fleet of a deployment profile against its
// cloud options: here the offline assistant of examples/cloud, whose
// users are often without a network.
func ExampleAdvise() {
	const file = "../examples/cloud/offline-assistant.yaml"
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := cloud.LoadProfile(file, data)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := cloud.Advise(context.Background(), p, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Recommendation)
	// Output: device
}
