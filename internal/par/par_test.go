package par

import (
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
