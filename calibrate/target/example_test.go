package target_test

import (
	"fmt"

	"github.com/edgetwin/edgetwin/calibrate/target"
)

func ExampleParse() {
	for _, s := range []string{"local", "ssh://pi@raspberrypi.local:2222", "adb://emulator-5554", "ssh://pi@board:http"} {
		a, err := target.Parse(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: scheme %s, user %q, host %q, port %d, serial %q\n", a, a.Scheme, a.User, a.Host, a.Port, a.Serial)
	}
	// Output:
	// local: scheme local, user "", host "", port 0, serial ""
	// ssh://pi@raspberrypi.local:2222: scheme ssh, user "pi", host "raspberrypi.local", port 2222, serial ""
	// adb://emulator-5554: scheme adb, user "", host "", port 0, serial "emulator-5554"
	// target "ssh://pi@board:http": port "http" is not a number from 1 to 65535; use local, ssh://[user@]host[:port] or adb://SERIAL
}
