package config

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"sort"

	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/httpheader"
)

// The configuration's defaults that every processor applies to what it
// builds: default header policies and circuit breaker thresholds.

// WithDefaultHeaders merges the configuration's default header policy into
// a service's: the service's own values win, a default Host becomes the
// host rewrite unless the service rewrites it.
func WithDefaultHeaders(def, user *dag.HeadersPolicy, allowHost bool, dynamic map[string]string) (*dag.HeadersPolicy, error) {
	if def == nil {
		return user, nil
	}
	out := &dag.HeadersPolicy{Set: map[string]string{}}
	if user != nil {
		*out = *user
		out.Set = map[string]string{}
		for k, v := range user.Set {
			out.Set[k] = v
		}
		out.Remove = slices.Clone(user.Remove)
	}
	keys := make([]string, 0, len(def.Set))
	for k := range def.Set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := def.Set[k]
		key := http.CanonicalHeaderKey(k)
		if key == "Host" {
			if !allowHost {
				return nil, fmt.Errorf("rewriting %q header is not supported", key)
			}
			if out.HostRewrite == "" {
				if httpheader.HostRewriteValue().MatchString(v) {
					return nil, fmt.Errorf("rewriting %q host header with dynamic value is not supported on service", key)
				}
				out.HostRewrite = v
			}
			continue
		}
		if msgs := httpheader.NameProblems(key); len(msgs) != 0 {
			return nil, fmt.Errorf("invalid set header %q: %v", key, msgs)
		}
		if _, exists := out.Set[key]; !exists {
			out.Set[key] = httpheader.EscapeValue(v, dynamic)
		}
	}
	for _, entry := range def.Remove {
		key := http.CanonicalHeaderKey(entry)
		if msgs := httpheader.NameProblems(key); len(msgs) != 0 {
			return nil, fmt.Errorf("invalid set header %q: %v", key, msgs)
		}
		if !slices.Contains(out.Remove, key) {
			out.Remove = append(out.Remove, key)
		}
	}
	if len(out.Set) == 0 {
		out.Set = nil
	}
	return out, nil
}

// WithDefaultCircuitBreakers fills a Service's unset thresholds from the
// configuration's cluster.circuit-breakers (set; nil: Contour's defaults).
func WithDefaultCircuitBreakers(s *dag.Service, set *Settings) *dag.Service {
	if s == nil || set == nil || set.CircuitBreakers == nil {
		return s
	}
	d := set.CircuitBreakers
	cb := &s.CircuitBreakers
	cb.MaxConnections = cmp.Or(cb.MaxConnections, d.MaxConnections)
	cb.MaxPendingRequests = cmp.Or(cb.MaxPendingRequests, d.MaxPendingRequests)
	cb.MaxRequests = cmp.Or(cb.MaxRequests, d.MaxRequests)
	cb.MaxRetries = cmp.Or(cb.MaxRetries, d.MaxRetries)
	cb.PerHostMaxConnections = cmp.Or(cb.PerHostMaxConnections, d.PerHostMaxConnections)
	return s
}
