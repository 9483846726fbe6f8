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
//
// At 5,000 HTTPProxies a run's heap is about 110 MiB when loading ends, and
// collecting then or during the translation (write barriers on, one CPU of
// two marking) cost render -o json 380 ms of CPU and check 80 ms, against
// collecting first at 256 MiB. The peak of render -o json stays where the
// later collections put it; check's rises from 155 to 200 MiB.
const firstCollectionAt = 256 << 20

// deferFirstCollection sets that up. GOGC or GOMEMLIMIT in the environment
// are the user's own choice and win.
func deferFirstCollection() {
	if userPacing() {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(firstCollectionAt)
	// The sentinel is unreachable from the start, so the first collection
	// queues its finalizer, which restores the default pacing. It holds a
	// pointer so that it is not batched with other tiny allocations, whose
	// finalizers may never run.
	sentinel := &struct{ p *int }{}
	runtime.SetFinalizer(sentinel, func(*struct{ p *int }) { collectAsUsual() })
}

// collectAsUsual restores Go's default pacing: for serve, which runs for
// days, often on a small configuration whose heap would take hours of
// reloads to reach firstCollectionAt. It changes nothing the user set.
func collectAsUsual() {
	if userPacing() {
		return
	}
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}

// userPacing says whether GOGC or GOMEMLIMIT is set: the user's choice,
// which wins.
func userPacing() bool { return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" }
