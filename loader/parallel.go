package loader

import "github.com/contourc/contourc/internal/par"

// forEachParallel calls fn for every i in [0, n) on up to GOMAXPROCS
// goroutines. Callers store results by index, so the outcome does not
// depend on scheduling. (Workers take the next index from a counter:
// handing indexes out over a channel needed the sending goroutine
// scheduled for each one, and with thousands of small documents a file,
// loading kept 1.7 of 2 CPUs busy instead of 1.95.)
func forEachParallel(n int, fn func(i int)) { par.Workers(n, func() func(int) { return fn }) }
