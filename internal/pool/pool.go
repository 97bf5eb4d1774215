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
	Run(ctx, 0, n, func(i int) {
		work(i)
		p.Step()
	})
}

// Run is ForEach without progress, on at most workers workers (0 or less:
// runtime.GOMAXPROCS(0)). It reports how many indices it handed out: all n
// unless ctx was done first, in which case the rest never ran.
func Run(ctx context.Context, workers, n int, work func(i int)) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				work(i)
			}
		})
	}
	handed := 0
	for ; handed < n; handed++ {
		if ctx.Err() != nil {
			break
		}
		next <- handed
	}
	close(next)
	wg.Wait()
	return handed
}
