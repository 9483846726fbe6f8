package routetest

import (
	"fmt"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
)

// domainKind orders Envoy's virtual host domain search: exact names first,
// then suffix wildcards (*.foo.com), then prefix wildcards (foo.*), then
// the catch-all "*". Within the wildcard kinds the longest domain wins.
type domainKind int

const (
	domainExact domainKind = iota
	domainSuffix
	domainPrefix
	domainAny
	domainNone
)

func (k domainKind) String() string {
	return [...]string{"exact", "suffix wildcard", "prefix wildcard", "catch-all", "no match"}[k]
}

// matchDomain says whether host matches one domain and how. Host and
// domain are compared case-insensitively; a wildcard never matches the
// empty string ("*-bar.foo.com" does not match "-bar.foo.com").
func matchDomain(domain, host string) domainKind {
	d := strings.ToLower(domain)
	switch {
	case d == "*":
		return domainAny
	case strings.HasPrefix(d, "*"):
		suffix := d[1:]
		if len(host) > len(suffix) && strings.HasSuffix(host, suffix) {
			return domainSuffix
		}
	case strings.HasSuffix(d, "*"):
		prefix := d[:len(d)-1]
		if len(host) > len(prefix) && strings.HasPrefix(host, prefix) {
			return domainPrefix
		}
	case d == host:
		return domainExact
	}
	return domainNone
}

// vhostMatch is the virtual host chosen for a host and why.
type vhostMatch struct {
	vhost  *routev3.VirtualHost
	domain string
	kind   domainKind
}

// findVirtualHost picks the virtual host for host the way Envoy's route
// table does. With ignore_port_in_host_matching (Contour sets it) the port
// is removed from the authority first; without it the authority is matched
// whole, port included.
func findVirtualHost(rc *routev3.RouteConfiguration, authority string) (vhostMatch, string) {
	host := strings.ToLower(authority)
	if rc.GetIgnorePortInHostMatching() {
		host = stripPort(host)
	}
	best := vhostMatch{kind: domainNone}
	for _, vh := range rc.GetVirtualHosts() {
		for _, d := range vh.GetDomains() {
			k := matchDomain(d, host)
			if k == domainNone {
				continue
			}
			// Lower kinds win; within a kind the longer (more specific)
			// domain; on a tie the first one, as Envoy refuses duplicates.
			if k < best.kind || k == best.kind && len(d) > len(best.domain) {
				best = vhostMatch{vhost: vh, domain: d, kind: k}
			}
		}
	}
	if best.vhost == nil {
		return best, fmt.Sprintf("no virtual host of %s has a domain matching %q", rc.GetName(), host)
	}
	return best, fmt.Sprintf("virtual host %s: domain %q is the %s match for %q", best.vhost.GetName(), best.domain, best.kind, host)
}
