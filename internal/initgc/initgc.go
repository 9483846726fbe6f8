// Package initgc stops the garbage collector while the program's packages
// initialise. Linking the API server's validation libraries makes package
// initialisation allocate about 4 MB (regular expressions, metric and
// format registries), past the runtime's first 4 MB heap goal: a
// collection in every run, `contourc version` included, of a heap that is
// all live. cmd/contourc's main then takes over the pacing
// (cmd/contourc/internal/gcpace); in a program that does not (a test
// binary), the first collection, when the heap reaches initHeapBound,
// turns the usual pacing back on.
//
// Go initialises packages in import-path order as their imports are ready
// (the language spec, since Go 1.21), and this one imports only what the
// runtime has initialised first, so it runs before the heavy ones. It
// leaves the collector alone when the user sets GOGC or GOMEMLIMIT.
package initgc

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

// initHeapBound bounds the heap while collection is off here; package
// initialisation stays far below it.
const initHeapBound = 256 << 20

func init() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(initHeapBound)
	// Unreachable at once: its finalizer runs after the first collection.
	sentinel := &struct{ p *int }{}
	runtime.SetFinalizer(sentinel, func(*struct{ p *int }) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}
