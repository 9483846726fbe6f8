package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

// firstCollectionAt is the heap size at which a run first collects garbage.
//
// A run on a small repository allocates a few tens of MiB and exits. Go's
// default pacing would collect several times on the way (at 4, 8, 16 MiB
// and so on), which is a third of a 40 ms run. So a run does not collect at
// all until its memory reaches firstCollectionAt; from the first collection
// on it paces as Go does by default, so large inputs keep their usual peak.
const firstCollectionAt = 128 << 20

// deferFirstCollection sets that up. GOGC or GOMEMLIMIT in the environment
// are the user's own choice and win.
func deferFirstCollection() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(firstCollectionAt)
	// The sentinel is unreachable from the start, so the first collection
	// queues its finalizer, which restores the default pacing. It holds a
	// pointer so that it is not batched with other tiny allocations, whose
	// finalizers may never run.
	sentinel := &struct{ p *int }{}
	runtime.SetFinalizer(sentinel, func(*struct{ p *int }) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}
