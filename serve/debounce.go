package serve

// Debouncing file events into reloads.
//
// Contour waits for a quiet spell before rebuilding: each change restarts a
// 100 ms hold-off, and when changes keep coming the rebuild is forced once
// 500 ms have passed. Contour measures the 500 ms from its previous rebuild,
// so the first event after a quiet period rebuilds at once; that suits
// Kubernetes watch events, each a whole object, but a file event is usually
// the first of several (an editor's write-and-rename, a `git pull` touching
// many files), and reading at the first one would catch the files half
// written. contourc therefore measures the maximum from the first event of
// the burst: an isolated change waits the hold-off, a burst is read at most
// the maximum after it began.

import "time"

// debounce holds the state of one burst of changes.
type debounce struct {
	holdoff, max time.Duration
	// first is when the pending burst began; zero when none is pending.
	first time.Time
}

// event records a change at now and returns how long to wait before
// reloading.
func (d *debounce) event(now time.Time) time.Duration {
	if d.first.IsZero() {
		d.first = now
	}
	return holdoffDelay(now.Sub(d.first), d.holdoff, d.max)
}

// fired ends the burst: the reload it waited for is starting.
func (d *debounce) fired() { d.first = time.Time{} }

// holdoffDelay is the wait before reloading after a change, elapsed into a
// burst: the hold-off, cut short so the burst ends by holdoffMax.
func holdoffDelay(elapsed, holdoff, holdoffMax time.Duration) time.Duration {
	if left := holdoffMax - elapsed; left < holdoff {
		return max(left, 0)
	}
	return holdoff
}
