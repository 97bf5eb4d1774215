// Package thermal is the time-free physics of heat in an edge device and of
// the DVFS governor that reacts to it: a thermal RC network advanced exactly
// between events, and the Linux step_wise and power_allocator governors as
// pure state machines. It holds no clock; package sim calls it between
// events, while power is constant.
//
// # The network
//
// A [Spec] lists nodes (junction hot spots, package, board, skin) with heat
// capacities, thermal resistances between them and to ambient air, and the
// ambient temperature. [Compile] validates it and factorises it once:
//
//	net, err := thermal.Compile(thermal.PhoneDefault())
//	t := net.Ambient()                         // every node at 25 °C
//	p := []float64{3.6, 1.2, 0, 1.2, 0, 0}     // W into npu, cpu, gpu, package, board, skin
//	t = net.Advance(t, t, p, 30)               // exact state 30 s later
//	when := net.TimeToReach(t, p, net.Index("skin"), 43) // seconds until the skin hits 43 °C
//
// Temperatures obey C dT/dt = P − G (T − Ta). Between two events P is
// constant and the solution is T(t) = T∞ + e^(At)(T(0) − T∞) with
// T∞ = Ta + G⁻¹P and A = −C⁻¹G. A is similar to the symmetric matrix
// −C^(-1/2) G C^(-1/2), so Compile takes its eigendecomposition once (gonum
// [mat.EigenSym], O(n³)); each [Network.Advance] is then three n×n
// matrix-vector products and n exponentials, O(n²), exact for any step from
// a microsecond to an hour, with no Euler step to choose and no error that
// grows with the number of events. It allocates nothing when the caller
// passes a destination (about 0.3 µs for six nodes).
//
// [Network.TimeToReach] and [Network.TimeToFall] solve the same closed form
// for the first time a node crosses a temperature, so the simulator can
// schedule a trip point as an event instead of stepping until it happens.
// [Network.Steady] is T∞; [Network.TimeConstants] the 1/λ of the modes.
//
// # Governors
//
// A [GovernorSpec] describes the governor; [NewGovernor] builds it for a
// network and the OPP tables of the units it caps (relative power per OPP,
// f·V² from [RelativePower]; "dram" is a unit like the others when its clock
// can be capped). The caller polls it at its own interval with the node
// temperatures and the power each unit drew, and applies the [Caps] it
// returns, the highest OPP index each unit may use, until the next poll:
//
//	gov, err := thermal.NewGovernor(thermal.PhoneGovernor(), net, opps)
//	for { // in sim: one poll event every gov.Interval() seconds
//	        caps := gov.Poll(sinceLastPoll, temps, powerByUnit)
//	        // map caps to clocks; slower clocks lengthen operator times
//	}
//
// [StepWise] follows drivers/thermal/gov_step_wise.c: each trip is a zone
// read at its own interval; one OPP step down per reading while the zone is
// at or above its trip and not cooling, one step back per reading once it
// is at or below trip − hysteresis and not heating, a hold otherwise, with
// the trend read to 0.1 °C. [PowerAllocator] follows
// drivers/thermal/gov_power_allocator.c (Arm's Intelligent Power
// Allocation): a PID controller on one node's temperature sets a power
// budget that is shared between units in proportion to their weighted
// power; gains default as the kernel estimates them. [SkinController]
// (kind skin_limit) is a vendor thermal HAL's skin controller, as Android
// phones run one: a skin limit keeps a power cap that the units' OPPs are
// fitted to, over the kernel's step_wise junction zones. A skin limit
// (42–45 °C on phones) is a trip, a power_allocator target or a skin_limit
// on a node of kind skin.
//
// # The default phone
//
// [PhoneDefault] and [PhoneGovernor] model a fanless 6.1-inch phone and its
// step_wise governor, every figure cited or reasoned in [PhoneSources]. Its
// time constants are 564 s, 26 s, 2 s and 60 ms; with 6 W of LLM decode the
// skin reaches 43 °C after about 80 s, and an NPU-heavy 10 W prefill burst
// reaches a 95 °C junction after about 17 s.
//
// # Errors
//
// Problems in a spec are returned as [*spec.Error] with the dotted field
// path (thermal.links.2.b, governor.trips.0.node) for the loader to turn
// into file:line messages. Programming errors — a state of the wrong length,
// a negative step — panic.
package thermal
