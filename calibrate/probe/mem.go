package probe

import (
	"context"
	"math/rand/v2"
	"sync"
)

// sink keeps the compiler from dropping reads whose values are unused.
var sink uint64

// readWords sums the words of buf with eight independent accumulators, so
// the loads are not serialised behind one addition chain.
func readWords(buf []uint64) uint64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 uint64
	i := 0
	for ; i+8 <= len(buf); i += 8 {
		b := buf[i : i+8 : i+8]
		s0 += b[0]
		s1 += b[1]
		s2 += b[2]
		s3 += b[3]
		s4 += b[4]
		s5 += b[5]
		s6 += b[6]
		s7 += b[7]
	}
	for ; i < len(buf); i++ {
		s0 += buf[i]
	}
	return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7
}

// readParallel reads buf once, split in threads contiguous shares, and
// returns the bytes read.
func readParallel(buf []uint64, threads int) float64 {
	if threads <= 1 {
		sink += readWords(buf)
		return float64(8 * len(buf))
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for t := range threads {
		part := buf[len(buf)*t/threads : len(buf)*(t+1)/threads]
		wg.Go(func() {
			s := readWords(part)
			mu.Lock()
			sink += s
			mu.Unlock()
		})
	}
	wg.Wait()
	return float64(8 * len(buf))
}

// copyParallel copies src to dst in threads shares and returns the bytes
// copied (each counted once, though it is read and written).
func copyParallel(dst, src []uint64, threads int) float64 {
	if threads <= 1 {
		copy(dst, src)
		return float64(8 * len(src))
	}
	var wg sync.WaitGroup
	for t := range threads {
		lo, hi := len(src)*t/threads, len(src)*(t+1)/threads
		wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
	}
	wg.Wait()
	return float64(8 * len(src))
}

// chain links the cache lines of buf (line bytes apart) into one random
// cycle: word 0 of each line holds the word index of the next line, in an
// order drawn by Sattolo's algorithm so that every line is visited before
// the cycle closes and no prefetcher can guess the next address.
// Linking hundreds of MiB takes seconds: it stops with ctx's error.
func chain(ctx context.Context, buf []uint64, line int, seed uint64) error {
	stride := line / 8
	n := len(buf) / stride
	order := make([]uint32, n)
	for i := range order {
		order[i] = uint32(i)
	}
	r := rand.New(rand.NewPCG(seed, 1))
	for i := n - 1; i > 0; i-- {
		if i%(1<<20) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		j := r.IntN(i) // j < i: one single cycle
		order[i], order[j] = order[j], order[i]
	}
	for i := range n {
		if i%(1<<20) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		next := order[(i+1)%n]
		buf[int(order[i])*stride] = uint64(next) * uint64(stride)
	}
	return nil
}

// chase follows the chain from word 0 for loads dependent loads and
// returns the number of loads.
func chase(buf []uint64, loads int) float64 {
	p := uint64(0)
	for i := 0; i < loads; i += 4 {
		p = buf[p]
		p = buf[p]
		p = buf[p]
		p = buf[p]
	}
	sink += p
	return float64(loads)
}

// blockReader reads 4 KiB blocks of a buffer in a fixed order, a batch at a
// time, wrapping around.
type blockReader struct {
	buf   []uint64
	order []uint32 // block indices
	next  int
}

const (
	blockBytes = 4096
	blockWords = blockBytes / 8
	blockBatch = 1024 // blocks per call: 4 MiB
)

func newBlockReader(buf []uint64, random bool, seed uint64) *blockReader {
	n := len(buf) / blockWords
	order := make([]uint32, n)
	for i := range order {
		order[i] = uint32(i)
	}
	if random {
		r := rand.New(rand.NewPCG(seed, 2))
		r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	return &blockReader{buf: buf, order: order}
}

// read reads the next batch of blocks and returns the bytes read.
func (b *blockReader) read() float64 {
	var s uint64
	for range blockBatch {
		o := int(b.order[b.next]) * blockWords
		s += readWords(b.buf[o : o+blockWords])
		b.next++
		if b.next == len(b.order) {
			b.next = 0
		}
	}
	sink += s
	return blockBatch * blockBytes
}

// touch writes every page of buf so it is mapped before anything is
// timed; mapping a GiB takes a while, so it stops with ctx's error.
func touch(ctx context.Context, buf []uint64) error {
	for i := 0; i < len(buf); i += 512 {
		if i%(1<<22) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		buf[i] = uint64(i)
	}
	return nil
}

// streamChunk is the most one call of a streaming kernel moves: a pass
// over a large buffer is cut into calls of this size, in address order and
// wrapping around, so a cancelled probe stops within milliseconds while
// the access pattern stays one sequential sweep.
const streamChunk = 64 << 20

// stream walks a buffer in chunks of at most streamChunk bytes.
type stream struct {
	n, next int // words in the buffer, the next word to read
}

// chunk is the next range of words, wrapping at the end of the buffer.
func (s *stream) chunk() (lo, hi int) {
	if s.next >= s.n {
		s.next = 0
	}
	lo, hi = s.next, min(s.n, s.next+streamChunk/8)
	s.next = hi
	return lo, hi
}
