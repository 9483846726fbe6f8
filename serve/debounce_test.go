package serve

import (
	"testing"
	"time"
)

func TestHoldoffDelay(t *testing.T) {
	const holdoff, maxHold = 100 * time.Millisecond, 500 * time.Millisecond
	for _, tt := range []struct {
		elapsed, want time.Duration
	}{
		{0, holdoff},                                    // an isolated change waits the hold-off
		{350 * time.Millisecond, holdoff},               // room left for a whole hold-off
		{450 * time.Millisecond, 50 * time.Millisecond}, // cut short to end by max
		{500 * time.Millisecond, 0},                     // the burst has lasted long enough
		{2 * time.Second, 0},
	} {
		if got := holdoffDelay(tt.elapsed, holdoff, maxHold); got != tt.want {
			t.Errorf("holdoffDelay(%s) = %s, want %s", tt.elapsed, got, tt.want)
		}
	}
}

// TestDebounceMeasuresFromTheBurst checks that the maximum counts from the
// first event of a burst, and that a reload starts a new burst.
func TestDebounceMeasuresFromTheBurst(t *testing.T) {
	d := debounce{holdoff: 100 * time.Millisecond, max: 500 * time.Millisecond}
	start := time.Unix(1000, 0)
	if got := d.event(start); got != 100*time.Millisecond {
		t.Errorf("first event: %s", got)
	}
	if got := d.event(start.Add(480 * time.Millisecond)); got != 20*time.Millisecond {
		t.Errorf("late in the burst: %s", got)
	}
	d.fired()
	if got := d.event(start.Add(time.Hour)); got != 100*time.Millisecond {
		t.Errorf("after a reload: %s", got)
	}
}
