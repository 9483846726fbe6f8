package routetest

import "testing"

func TestCoveragePercent(t *testing.T) {
	for _, c := range []struct {
		reached, routes int
		percent         float64
		below80         bool
	}{
		{0, 0, 100, false},
		{0, 3, 0, true},
		{2, 3, 66.6, true},
		{4, 5, 80, false},
		{1999, 2000, 99.9, false}, // 99.95 is not rounded up to 100
		{79, 99, 79.7, true},
	} {
		cov := &Coverage{Reached: c.reached, Routes: c.routes}
		if got := percent(c.reached, c.routes); got != c.percent {
			t.Errorf("percent(%d, %d) = %v, want %v", c.reached, c.routes, got, c.percent)
		}
		if got := cov.Below(80); got != c.below80 {
			t.Errorf("%d of %d: Below(80) = %v, want %v", c.reached, c.routes, got, c.below80)
		}
	}
}
