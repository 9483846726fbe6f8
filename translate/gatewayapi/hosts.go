package gatewayapi

import (
	"sort"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Hostname intersection of a route and a listener.

// routeHosts returns the hosts a route serves on a listener: without route
// hostnames, the listener's (or "*"); otherwise the route hostnames the
// listener hostname admits, leaving to other listeners the hostnames that
// match them more specifically. Syntactically invalid route hostnames are
// returned as errors.
func routeHosts(routeHostnames []gatewayv1.Hostname, listenerHostname string, otherListenerHostnames []string) ([]string, []error) {
	if len(routeHostnames) == 0 {
		if listenerHostname != "" {
			return []string{listenerHostname}, nil
		}
		return []string{"*"}, nil
	}
	// betterElsewhere says whether another listener's hostname matches h
	// exactly, or by a wildcard more specific than this listener's.
	betterElsewhere := func(h string) bool {
		for _, other := range otherListenerHostnames {
			if h == other || (strings.HasPrefix(other, "*") && matchesWildcard(h, other) && len(other) > len(listenerHostname)) {
				return true
			}
		}
		return false
	}
	set := map[string]bool{}
	var errs []error
	for _, rh := range routeHostnames {
		h := string(rh)
		if err := validHostname(h); err != nil {
			errs = append(errs, err)
			continue
		}
		switch {
		case listenerHostname == "":
			if !betterElsewhere(h) {
				set[h] = true
			}
		case listenerHostname == h:
			set[h] = true
		case strings.HasPrefix(listenerHostname, "*"):
			if matchesWildcard(h, listenerHostname) && !betterElsewhere(h) {
				set[h] = true
			}
		case strings.HasPrefix(h, "*"):
			if matchesWildcard(listenerHostname, h) {
				set[listenerHostname] = true
			}
		}
	}
	hosts := make([]string, 0, len(set))
	for h := range set {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	return hosts, errs
}

// matchesWildcard says whether hostname is the wildcard's suffix preceded
// by at least one more character (one or more labels).
func matchesWildcard(hostname, wildcard string) bool {
	suffix := strings.TrimPrefix(wildcard, "*")
	return strings.HasSuffix(hostname, suffix) && len(hostname) > len(suffix)
}
