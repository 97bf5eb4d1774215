package pool

import (
	"context"
	"io"
	"runtime"
	"sync"
)

// ForEach runs work(i) for every i in [0, n) on runtime.GOMAXPROCS(0)
// workers, hands out no more once ctx is done, and draws progress on
// stderr when it is a terminal. work keeps its result by index, so the
// output does not depend on the parallelism.
func ForEach(ctx context.Context, stderr io.Writer, label string, n int, work func(i int)) {
	p := NewProgress(stderr, label, n)
	defer p.Done()
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := range next {
				work(i)
				p.Step()
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
}
