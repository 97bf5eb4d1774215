// Package des is the discrete-event kernel of edgetwin: a clock, a queue of
// callbacks, and fluid bandwidth sharing for the buses, ports and DMA
// engines of the simulated SoC.
//
// # Events
//
// A Sim holds the current time and the events that are due. A model
// schedules callbacks with At (absolute time) or After (relative to Now);
// Run fires them in time order until none is left, each callback free to
// schedule or cancel others:
//
//	s := des.New()
//	s.After(2*des.Microsecond, func() { fmt.Println("tile done at", s.Now()) })
//	s.Run()
//
// RunUntil stops at a time limit and Step fires a single event, for
// models that sample or interleave the simulation with other work.
//
// # Time
//
// Time is an int64 count of picoseconds: fine enough for one cycle of a
// multi-GHz clock, and wide enough for about 106 days. Integer time means
// that adding durations never drifts and that two events computed by
// different paths to the same instant really are simultaneous. Seconds and
// Time.Seconds convert to and from the float seconds of physical models.
//
// # Determinism
//
// A run depends only on its inputs. There are no goroutines, maps, wall
// clocks or random numbers inside the kernel. Events at the same instant
// fire in the order they were scheduled (each gets a sequence number), and
// a Link keeps its transfers in start order, so that the same model
// produces the same trace, event for event, on every run.
//
// # Fluid sharing
//
// A Link models a channel of a given capacity in bytes per second shared by
// concurrent transfers. Instead of simulating bursts or packets, it treats
// data as a fluid: at any instant every active transfer flows at a constant
// rate given by max-min fairness. All get an equal share, except that a
// transfer with a rate cap (say, a DMA engine slower than the bus) keeps to
// its cap and the rest is split among the others. Rates change only when a
// transfer starts or completes or the capacity changes, so the cost is one
// event per completion, however many bytes move:
//
//	bus := des.NewLink(s, "lpddr", 51.2e9)
//	bus.Start(4<<20, 0, func() { fmt.Println("weights loaded at", s.Now()) })
//	bus.Start(1<<20, 8e9, nil) // a DMA capped at 8 GB/s
//
// Progress is tracked in float64 bytes and finish times are rounded up to
// whole picoseconds, so a transfer never completes before its last byte
// has moved, and each change of its rate delays its finish by less than
// 1 ps. A transfer with less than 1e-6 bytes left counts as complete.
//
// # Cost
//
// Scheduling, cancelling and firing an event take O(log n) time for n
// pending events and allocate nothing once the queue has grown: the queue
// is a binary heap of small structs and fired events are recycled. A Link
// keeps a single pending event, and each start or completion costs
// O(k + c log c) for k active transfers of which c are capped, plus one
// allocation for the Transfer.
package des
