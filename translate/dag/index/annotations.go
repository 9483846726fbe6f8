package index

import (
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/translate/dag"
)

// Contour's object annotations the index reads on Services (upstream
// protocols, circuit breakers), and the helpers the processors read the
// others with. Unparsable values fall back silently, as in Contour (which
// only logs them).

// ContourAnnotation is o's projectcontour.io/<key> annotation.
func ContourAnnotation(o metav1.Object, key string) string {
	a := o.GetAnnotations()
	if len(a) == 0 {
		return "" // most objects have none; skip building the key
	}
	return a["projectcontour.io/"+key]
}

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

// CommaSet splits a comma-separated annotation into a set of trimmed,
// non-empty items.
func CommaSet(s string) map[string]bool {
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
		for port := range CommaSet(ContourAnnotation(o, "upstream-protocol."+proto)) {
			out[port] = proto
		}
	}
	return out
}

// circuitBreakers reads a Service's circuit-breaker annotations.
func circuitBreakers(o metav1.Object) dag.CircuitBreakers {
	return dag.CircuitBreakers{
		MaxConnections:        parseUint32(ContourAnnotation(o, "max-connections")),
		MaxPendingRequests:    parseUint32(ContourAnnotation(o, "max-pending-requests")),
		MaxRequests:           parseUint32(ContourAnnotation(o, "max-requests")),
		MaxRetries:            parseUint32(ContourAnnotation(o, "max-retries")),
		PerHostMaxConnections: parseUint32(ContourAnnotation(o, "per-host-max-connections")),
	}
}
