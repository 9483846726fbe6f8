// Package gcpace paces the garbage collector of one contourc run: no
// collection until the heap is worth collecting (DeferFirstCollection, put
// off further for large inputs), Go's default pacing for serve, and a bound
// on the heap while a render is written. GOGC or GOMEMLIMIT in the
// environment leave the collector to the user.
package gcpace
