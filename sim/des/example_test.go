package des_test

import (
	"fmt"

	"github.com/edgetwin/edgetwin/sim/des"
)

func ExampleSim() {
	s := des.New()
	log := func(what string) func() {
		return func() { fmt.Printf("%-8v %s\n", s.Now(), what) }
	}

	// A MAC array computes a tile every 400 ns; the thermal model samples
	// every microsecond. Equal times fire in scheduling order.
	var tile func()
	tiles := 0
	tile = func() {
		tiles++
		log(fmt.Sprint("tile ", tiles))()
		if tiles < 4 {
			s.After(400*des.Nanosecond, tile)
		}
	}
	s.After(400*des.Nanosecond, tile)
	s.At(des.Microsecond, log("thermal sample"))
	late := s.At(2*des.Microsecond, log("never printed"))

	s.RunUntil(1200 * des.Nanosecond)
	s.Cancel(late)
	s.Run()
	fmt.Println("fired", s.Fired(), "events; now", s.Now())
	// Output:
	// 400 ns   tile 1
	// 800 ns   tile 2
	// 1 µs     thermal sample
	// 1.2 µs   tile 3
	// 1.6 µs   tile 4
	// fired 5 events; now 1.6 µs
}

func ExampleLink() {
	s := des.New()
	bus := des.NewLink(s, "lpddr", 1000) // 1000 B/s keeps the numbers simple

	done := func(name string) func() {
		return func() { fmt.Printf("%s done at %v\n", name, s.Now()) }
	}
	// A runs alone at 1000 B/s for 0.5 s, then shares with B at 500 B/s
	// each: its last 500 B take 1 s more. B then has 500 B left and the
	// whole link.
	bus.Start(1000, 0, done("A"))
	s.At(des.Seconds(0.5), func() { bus.Start(1000, 0, done("B")) })
	s.Run()

	// A DMA engine capped at 250 B/s leaves 750 B/s to the other transfer.
	dma := bus.Start(500, 250, done("dma"))
	cpu := bus.Start(1500, 0, done("cpu"))
	fmt.Printf("rates: dma %g B/s, cpu %g B/s\n", dma.Rate(), cpu.Rate())
	s.Run()

	fmt.Printf("moved %g B, busy %v, utilization %.2f\n", bus.BytesMoved(), bus.BusyTime(), bus.Utilization())
	// Output:
	// A done at 1.5 s
	// B done at 2 s
	// rates: dma 250 B/s, cpu 750 B/s
	// dma done at 4 s
	// cpu done at 4 s
	// moved 4000 B, busy 4 s, utilization 1.00
}
