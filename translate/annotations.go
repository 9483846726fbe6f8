package translate

import (
	"fmt"
	"time"

	"github.com/contourc/contourc/translate/dag"
)

// Contour's object annotations (read with index.ContourAnnotation).
// Unparsable values fall back silently, as in Contour (which only logs
// them).

// parseTimeout reads a Contour timeout string: "" leaves Envoy's default,
// "infinity"/"infinite" disables the timeout, "0s" is the default too.
func parseTimeout(s string) (dag.Timeout, error) {
	switch s {
	case "":
		return dag.Timeout{}, nil
	case "infinity", "infinite":
		return dag.Timeout{Set: true, Disabled: true}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return dag.Timeout{}, fmt.Errorf("unable to parse timeout string %q: %w", s, err)
	}
	if d < 0 {
		// Envoy rejects negative durations, which would take down the
		// whole route configuration.
		return dag.Timeout{}, fmt.Errorf("timeout %q is negative", s)
	}
	if d == 0 {
		return dag.Timeout{}, nil
	}
	return dag.Timeout{Set: true, Duration: d}, nil
}

// timeDuration parses a Go duration string.
func timeDuration(s string) (time.Duration, error) { return time.ParseDuration(s) }

// tlsVersionAnnotation returns "1.2" or "1.3", or def for anything else.
func tlsVersionAnnotation(v, def string) string {
	if v == "1.2" || v == "1.3" {
		return v
	}
	return def
}
