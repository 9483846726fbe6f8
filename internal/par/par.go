// Package par spreads independent pieces of work over the CPUs.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ForEach calls f(0), ..., f(n-1) on up to one goroutine per CPU, and on
// the calling goroutine alone for so few calls that starting others
// would cost more than it saves. Calls for different i must not depend
// on one another; callers keep results by index, so that the outcome does
// not depend on scheduling.
func ForEach(n int, f func(int)) {
	run(n, min(runtime.GOMAXPROCS(0), n/16+1), func() func(int) { return f })
}

// Workers is ForEach for work in few or large pieces, on one goroutine
// per CPU as long as there are pieces; newWorker gives each goroutine its
// function, so that it can keep state of its own (buffers, caches).
func Workers(n int, newWorker func() func(int)) {
	run(n, min(runtime.GOMAXPROCS(0), n), newWorker)
}

// run calls the functions newWorker gives for 0, ..., n-1 on workers
// goroutines, each taking the next index from a counter, or on the
// calling goroutine alone for one worker.
func run(n, workers int, newWorker func() func(int)) {
	if n == 0 {
		return
	}
	if workers <= 1 {
		do := newWorker()
		for i := range n {
			do(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		do := newWorker()
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				do(i)
			}
		})
	}
	wg.Wait()
}
