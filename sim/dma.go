package sim

import "github.com/edgetwin/edgetwin/sim/des"

// dmaQueue hands DMA descriptors to a fixed number of channels. A
// descriptor waits for a free channel and pays the set-up there (the
// channels set up several at once); its transfers then move in the order
// the descriptors were set up, one at a time on each link at the link's
// full rate, as a DMA engine's in-order queue moves them: the tile the unit
// needs next arrives first, and while it computes, the transfer of the tile
// after it hides the set-up of the next. (Shared fairly instead, two
// buffers' transfers finish together, free their buffers together and pay
// their set-ups together with the link idle: double-buffering lost.)
type dmaQueue struct {
	sim      *des.Sim
	dram, l3 inOrder
	free     []int // idle channels, lowest first
	setup    des.Time
	waiting  []*descriptor // waiting[head:] wait for a channel, in order
	head     int
	spare    []*descriptor // finished descriptors, for reuse
	// trace, when the run records a timeline, receives each descriptor's
	// channel, start time and bytes as it completes; now reads the clock.
	trace func(channel int, start, bytes float64)
	now   func() float64
}

// descriptor is one DMA transfer of a tile's span. Descriptors are reused,
// with their callbacks bound once, so a pass allocates none per span.
type descriptor struct {
	q           *dmaQueue
	bytes       float64 // the span's size
	dram, l3    float64 // bytes over each link (DRAM: as dramCost prices them)
	done        func()  // called once both transfers are done
	ch, parts   int
	start       float64
	runFn, part func() // d.run and d.transferred, bound once
}

// inOrder moves the DMA's transfers over one link one at a time, in the
// order they are queued. A transfer's first bytes arrive latency after its
// request (the memory's load-to-use latency): behind a busy link that wait
// overlaps the transfer before it, on an idle one it shows.
type inOrder struct {
	sim     *des.Sim
	link    *des.Link
	latency des.Time
	queue   []inOrderPart // queue[head] is moving when head < len(queue)
	head    int
	doneFn  func() // i.done, bound once the inOrder has its place in the dmaQueue
	startFn func() // i.startHead, bound likewise
}

type inOrderPart struct {
	bytes float64
	ready des.Time // request time + latency: when its first bytes can flow
	done  func()
}

// send queues a transfer of bytes requested now and calls done once it
// has moved.
func (i *inOrder) send(bytes float64, done func()) {
	i.queue = append(i.queue, inOrderPart{bytes, i.sim.Now() + i.latency, done})
	if len(i.queue)-i.head == 1 {
		i.startHead()
	}
}

// startHead starts the transfer at the head of the queue once its first
// bytes can flow.
func (i *inOrder) startHead() {
	part := &i.queue[i.head]
	if wait := part.ready - i.sim.Now(); wait > 0 {
		i.sim.After(wait, i.startFn)
		return
	}
	i.link.Send(part.bytes, 0, i.doneFn)
}

// done ends the moving transfer and starts the next. A drained queue
// starts again at the front of its array, so a busy link allocates
// nothing.
func (i *inOrder) done() {
	finished := i.queue[i.head].done
	i.queue[i.head] = inOrderPart{}
	if i.head++; i.head == len(i.queue) {
		i.queue, i.head = i.queue[:0], 0
	} else {
		i.startHead()
	}
	finished()
}

// newDMAQueue is a queue of channels DMA channels, each descriptor paying
// setup seconds, over the dram and l3 links with their latencies.
func newDMAQueue(s *des.Sim, dram, l3 *des.Link, dramLatency, l3Latency float64, channels int, setup float64) *dmaQueue {
	q := &dmaQueue{sim: s, setup: des.Seconds(setup),
		dram: inOrder{sim: s, link: dram, latency: des.Seconds(dramLatency)},
		l3:   inOrder{sim: s, link: l3, latency: des.Seconds(l3Latency)}}
	q.dram.doneFn, q.l3.doneFn = q.dram.done, q.l3.done
	q.dram.startFn, q.l3.startFn = q.dram.startHead, q.l3.startHead
	for ch := channels - 1; ch >= 0; ch-- {
		q.free = append(q.free, ch)
	}
	return q
}

// submit queues a descriptor of bytes moving dram bytes over DRAM and l3
// over the L3, and calls done when both have arrived.
func (q *dmaQueue) submit(bytes, dram, l3 float64, done func()) {
	var d *descriptor
	if n := len(q.spare); n > 0 {
		d, q.spare = q.spare[n-1], q.spare[:n-1]
	} else {
		d = &descriptor{q: q}
		d.runFn, d.part = d.run, d.transferred
	}
	d.bytes, d.dram, d.l3, d.done = bytes, dram, l3, done
	if q.head > 0 && len(q.waiting) == cap(q.waiting) {
		// Full, with room at the front: move the waiting there.
		n := copy(q.waiting, q.waiting[q.head:])
		clear(q.waiting[n:])
		q.waiting, q.head = q.waiting[:n], 0
	}
	q.waiting = append(q.waiting, d)
	q.start()
}

func (q *dmaQueue) start() {
	for len(q.free) > 0 && q.head < len(q.waiting) {
		d := q.waiting[q.head]
		q.waiting[q.head] = nil
		if q.head++; q.head == len(q.waiting) {
			// Drained: start again at the front, so a busy queue
			// allocates nothing.
			q.waiting, q.head = q.waiting[:0], 0
		}
		d.ch = q.free[len(q.free)-1]
		q.free = q.free[:len(q.free)-1]
		if q.trace != nil {
			d.start = q.now()
		}
		q.sim.After(q.setup, d.runFn)
	}
}

// run queues the descriptor's transfers once its set-up is paid. Both
// parts are counted before either is queued, so the first to finish does
// not take itself for the last.
func (d *descriptor) run() {
	d.parts = 0
	if d.dram > 0 {
		d.parts++
	}
	if d.l3 > 0 {
		d.parts++
	}
	if d.dram > 0 {
		d.q.dram.send(d.dram, d.part)
	}
	if d.l3 > 0 {
		d.q.l3.send(d.l3, d.part)
	}
	if d.parts == 0 {
		d.parts = 1
		d.transferred()
	}
}

// transferred ends one of the descriptor's transfers; after the last it
// frees the channel, starts what waits, and reports done.
func (d *descriptor) transferred() {
	if d.parts--; d.parts > 0 {
		return
	}
	q := d.q
	if q.trace != nil {
		q.trace(d.ch, d.start, d.bytes)
	}
	q.free = append(q.free, d.ch)
	q.start()
	done := d.done
	d.done = nil
	q.spare = append(q.spare, d)
	done()
}
