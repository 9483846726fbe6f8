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
	workers := min(runtime.GOMAXPROCS(0), n/16+1)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
