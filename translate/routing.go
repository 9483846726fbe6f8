package translate

// Read-only views of a translation's DAG for contourc lint, which needs
// each virtual host's routes in the order Envoy matches them (a route an
// earlier one covers can never match) and the key by which Contour drops
// a route with the same match as another.

import (
	"fmt"

	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/httpproxy"
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
)

// VirtualHostRoutes is one virtual host of one listener and its routes in
// Envoy's match order. The routes are the DAG's: callers must not change
// them.
type VirtualHostRoutes struct {
	Listener string // ingress_http, ingress_https, or a Gateway listener's
	Name     string // the fqdn, or "*"
	Routes   []*dag.Route
}

// VirtualHostRoutes lists the served virtual hosts of every listener,
// ordered by listener then name, each with its routes in Envoy's order.
func (r *Result) VirtualHostRoutes() []VirtualHostRoutes {
	if r.dag == nil {
		return nil
	}
	var out []VirtualHostRoutes
	for _, l := range r.dag.SortedListeners() {
		for _, vh := range l.VirtualHosts() {
			out = append(out, VirtualHostRoutes{Listener: l.Name, Name: vh.Name, Routes: vh.Ordered()})
		}
		for _, svh := range l.SecureVirtualHosts() {
			if svh.TCPProxy != nil && len(svh.Routes) == 0 {
				continue
			}
			out = append(out, VirtualHostRoutes{Listener: l.Name, Name: svh.Name, Routes: svh.Ordered()})
		}
	}
	return out
}

// RouteKey identifies a route's match conditions as Contour does when it
// adds a route to a virtual host: a later route with the same key replaces
// the earlier one.
func RouteKey(r *dag.Route) string { return dag.ConditionsKey(r) }

// HTTPProxyRouteKey is the RouteKey of the HTTPProxy route whose own
// conditions are own under includes whose conditions are chain (parents
// first); false when Contour would refuse them.
func HTTPProxyRouteKey(chain, own []contourv1.MatchCondition) (string, bool) {
	return httpproxy.RouteKey(chain, own)
}

// ParentRefName is the namespace/name of a route status's parentRef
// (sectionName or port after a colon), its namespace defaulting to the
// route's, ns.
func ParentRefName(p *RouteParentStatus, ns string) string {
	r := p.ParentRef
	if r.Namespace != nil {
		ns = *r.Namespace
	}
	s := ns + "/" + r.Name
	switch {
	case r.SectionName != nil:
		s += ":" + *r.SectionName
	case r.Port != nil:
		s += fmt.Sprintf(":%d", *r.Port)
	}
	return s
}
