package translate

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/translate/dag"
)

// Contour's object annotations. Unparsable values fall back silently, as in
// Contour (which only logs them).

func contourAnnotation(o metav1.Object, key string) string {
	a := o.GetAnnotations()
	if len(a) == 0 {
		return "" // most objects have none; skip building the key
	}
	return a["projectcontour.io/"+key]
}

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

func parseUint32(s string) uint32 {
	if s == "" {
		return 0 // unset; ParseUint would allocate an error to say so
	}
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0
	}
	return uint32(v)
}

// commaSet splits a comma-separated annotation into a set of trimmed,
// non-empty items.
func commaSet(s string) map[string]bool {
	if s == "" {
		return nil
	}
	set := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			set[item] = true
		}
	}
	return set
}

// upstreamProtocols maps a Service's ports (by name or number) to the
// protocol its projectcontour.io/upstream-protocol.<proto> annotations give.
func upstreamProtocols(o metav1.Object) map[string]string {
	if len(o.GetAnnotations()) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, proto := range []string{"h2", "h2c", "tls"} {
		for port := range commaSet(contourAnnotation(o, "upstream-protocol."+proto)) {
			out[port] = proto
		}
	}
	return out
}

// circuitBreakers reads a Service's circuit-breaker annotations.
func circuitBreakers(o metav1.Object) dag.CircuitBreakers {
	return dag.CircuitBreakers{
		MaxConnections:        parseUint32(contourAnnotation(o, "max-connections")),
		MaxPendingRequests:    parseUint32(contourAnnotation(o, "max-pending-requests")),
		MaxRequests:           parseUint32(contourAnnotation(o, "max-requests")),
		MaxRetries:            parseUint32(contourAnnotation(o, "max-retries")),
		PerHostMaxConnections: parseUint32(contourAnnotation(o, "per-host-max-connections")),
	}
}

// tlsVersionAnnotation returns "1.2" or "1.3", or def for anything else.
func tlsVersionAnnotation(v, def string) string {
	if v == "1.2" || v == "1.3" {
		return v
	}
	return def
}
