package par

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestForEachCallsEachIndexOnce covers the sequential and the parallel
// paths.
func TestForEachCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 17, 1000} {
		calls := make([]atomic.Int32, n)
		ForEach(n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("n=%d: f(%d) called %d times", n, i, c)
			}
		}
	}
}

// TestWorkersCallsEachIndexOnce covers both paths, with one function per
// goroutine at most.
func TestWorkersCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 1000} {
		calls := make([]atomic.Int32, n)
		var workers atomic.Int32
		Workers(n, func() func(int) {
			workers.Add(1)
			return func(i int) { calls[i].Add(1) }
		})
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("n=%d: f(%d) called %d times", n, i, c)
			}
		}
		if w := int(workers.Load()); w > max(n, 0) || w > runtime.GOMAXPROCS(0) || (n > 0 && w == 0) {
			t.Errorf("n=%d: %d workers", n, w)
		}
	}
}
