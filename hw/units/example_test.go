package units_test

import (
	"fmt"

	"github.com/edgetwin/edgetwin/hw/units"
)

func ExampleParse() {
	bw, err := units.Parse("68.3 GB/s", units.KindByteRate)
	fmt.Println(bw, err, bw == 68.3e9)

	cache, _ := units.Parse("4 MiB", units.KindBytes)
	fmt.Println(cache)

	window, _ := units.Parse("1h30m", units.KindDuration)
	fmt.Println(window)

	_, err = units.Parse("fast", units.KindByteRate)
	fmt.Println(err)

	_, err = units.Parse("5 GHz", units.KindBytes)
	fmt.Println(err)
	// Output:
	// 6.83e+10 <nil> true
	// 4.194304e+06
	// 5400
	// "fast" is not a bandwidth: use a number with B/s, KB/s, MB/s, GB/s or GiB/s (e.g. 68.3 GB/s)
	// "5 GHz": GHz is a frequency, not a size; use a number with B, KB, MB, GB, TB, KiB, MiB, GiB or TiB (e.g. 16 GiB)
}

func ExampleFormat() {
	fmt.Println(units.Format(68.3e9, units.KindByteRate))
	fmt.Println(units.Format(8<<20, units.KindBytes))
	fmt.Println(units.Format(0.0005, units.KindDuration))
	fmt.Println(units.Format(0.5, units.KindFraction))
	// Output:
	// 68.3 GB/s
	// 8 MiB
	// 500 µs
	// 50%
}

func ExampleBytes() {
	var l2 units.Bytes
	if err := l2.UnmarshalText([]byte("12 MiB")); err != nil {
		panic(err)
	}
	fmt.Println(float64(l2), l2)
	// Output:
	// 1.2582912e+07 12 MiB
}
