package sim

// maxBandwidthSamples bounds the bandwidth samples a result reports. A run
// of more passes reports each sample as the average over a run of
// consecutive passes, all of one width (a power of two, the last sample
// excepted), between half this bound and this bound of them: a 24-hour
// session's samples take the same few hundred kilobytes of JSON as an
// hour's. A variable so a test can lower it.
var maxBandwidthSamples = 4096

// bandwidthLog is the run's bandwidth samples at a resolution that halves
// whenever they reach maxBandwidthSamples: what it holds does not grow
// with simulated time.
type bandwidthLog struct {
	bins  []bandwidthBin // full bins of width passes
	open  bandwidthBin   // the bin filling now, of fewer than width passes
	width int
}

// bandwidthBin sums the passes of one reported sample: the first and last
// pass's names, the first one's start, the passes' time and the DRAM and L3
// utilisation each weighted by its pass's time.
type bandwidthBin struct {
	first, last    string
	start, seconds float64
	dram, l3       float64 // utilisation × seconds, summed
	passes         int
	only           BandwidthSample // the pass's own sample, when passes is 1
}

// add puts a pass's sample, which comes after every sample added before,
// in the log.
func (l *bandwidthLog) add(s BandwidthSample) {
	if l.width == 0 {
		l.width = 1
	}
	l.open.take(bandwidthBin{first: s.Pass, last: s.Pass, start: s.StartS, seconds: s.Seconds, dram: s.DRAMUtil * s.Seconds, l3: s.L3Util * s.Seconds, passes: 1, only: s})
	if l.open.passes < l.width {
		return
	}
	l.bins = append(l.bins, l.open)
	l.open = bandwidthBin{}
	if len(l.bins) < maxBandwidthSamples {
		return
	}
	// Halve the resolution: every two neighbours become one bin.
	for i := 0; i < len(l.bins)/2; i++ {
		b := l.bins[2*i]
		b.take(l.bins[2*i+1])
		l.bins[i] = b
	}
	if len(l.bins)%2 == 1 {
		l.open = l.bins[len(l.bins)-1]
	}
	l.bins = l.bins[:len(l.bins)/2]
	l.width *= 2
}

// take adds bin b, which comes after every pass in c, to c.
func (c *bandwidthBin) take(b bandwidthBin) {
	if c.passes == 0 {
		*c = b
		return
	}
	c.last = b.last
	c.seconds += b.seconds
	c.dram += b.dram
	c.l3 += b.l3
	c.passes += b.passes
}

// samples are the log's bins as the result reports them.
func (l *bandwidthLog) samples() []BandwidthSample {
	out := make([]BandwidthSample, 0, len(l.bins)+1)
	for _, b := range l.bins {
		out = append(out, b.sample())
	}
	if l.open.passes > 0 {
		out = append(out, l.open.sample())
	}
	return out
}

// sample is the bin as the result reports it: a pass's own sample, or the
// passes' time-weighted utilisation.
func (b bandwidthBin) sample() BandwidthSample {
	if b.passes == 1 {
		return b.only
	}
	return BandwidthSample{Pass: b.first + " … " + b.last, Passes: b.passes, StartS: b.start, Seconds: b.seconds, DRAMUtil: ratio(b.dram, b.seconds), L3Util: ratio(b.l3, b.seconds)}
}

// rawSamples is how many samples addSample holds as they are before it
// moves them to the log: a request of a few hundred passes (a sweep point)
// never touches the log.
const rawSamples = 512

// addSample records a pass's bandwidth sample. Samples stay in
// e.st.samples, as they are, until there are rawSamples of them (or
// maxBandwidthSamples, if lower); then all go to the bounded log but the
// last, whose start a step may still move, and those a streamed trace has
// not read yet. A trace held in memory keeps every event anyway, and reads
// every sample at the end: then they all stay.
func (e *engine) addSample(s BandwidthSample) {
	e.st.samples = append(e.st.samples, s)
	raw := min(rawSamples, maxBandwidthSamples)
	if len(e.st.samples) < raw || (e.trace != nil && e.trace.emit == nil) {
		return
	}
	n := len(e.st.samples) - 1
	if e.trace != nil {
		n = min(n, e.trace.sampled)
	}
	if n < raw/2 {
		return // the trace has not read them yet: drain in larger batches
	}
	for _, s := range e.st.samples[:n] {
		e.st.bandwidth.add(s)
	}
	e.st.samples = append(e.st.samples[:0], e.st.samples[n:]...)
	if e.trace != nil {
		e.trace.sampled -= n
	}
}

// bandwidthSamples are the run's samples, once its trace has read them.
func (e *engine) bandwidthSamples() []BandwidthSample {
	if e.st.bandwidth.width == 0 {
		return e.st.samples // the log never took a sample
	}
	for _, s := range e.st.samples {
		e.st.bandwidth.add(s)
	}
	e.st.samples = nil
	return e.st.bandwidth.samples()
}
