package dag

import (
	"fmt"
	"time"
)

// The DAG's values as Contour reads them from strings, the same in every
// API: timeouts and TLS versions. Each processor reads them from its own
// fields and annotations.

// ParseTimeout reads a Contour timeout string: "" leaves Envoy's default,
// "infinity"/"infinite" disables the timeout, "0s" is the default too.
func ParseTimeout(s string) (Timeout, error) {
	switch s {
	case "":
		return Timeout{}, nil
	case "infinity", "infinite":
		return Timeout{Set: true, Disabled: true}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return Timeout{}, fmt.Errorf("unable to parse timeout string %q: %w", s, err)
	}
	if d < 0 {
		// Envoy rejects negative durations, which would take down the
		// whole route configuration.
		return Timeout{}, fmt.Errorf("timeout %q is negative", s)
	}
	if d == 0 {
		return Timeout{}, nil
	}
	return Timeout{Set: true, Duration: d}, nil
}

// TLSVersion reads a minimum or maximum TLS version, of an Ingress
// annotation or an HTTPProxy's tls: "1.2" or "1.3", or def for anything
// else, as Contour does.
func TLSVersion(v, def string) string {
	if v == "1.2" || v == "1.3" {
		return v
	}
	return def
}
