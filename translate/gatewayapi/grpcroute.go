package gatewayapi

import (
	"fmt"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/translate/dag"
)

// GRPCRoute translation: methods become exact paths "/<service>/<method>".

func (p *Processor) grpcRoute(route *gatewayv1.GRPCRoute, parent *routeParent, l *gatewayListener, hosts []string) {
	invalid := 0
	for index, rule := range route.Spec.Rules {
		var matches []gatewayMatch
		for _, m := range rule.Matches {
			path, ok := grpcMethodMatch(m.Method, parent)
			if !ok {
				continue
			}
			headers, err := grpcHeaderMatches(m.Headers)
			if err != nil {
				parent.add("Accepted", "False", "UnsupportedValue", err.Error())
				continue
			}
			matches = append(matches, gatewayMatch{path: path, headers: headers})
		}
		// No matches match every request.
		if len(rule.Matches) == 0 {
			matches = append(matches, gatewayMatch{path: dag.PathMatch{Kind: dag.PathPrefix, Value: "/"}})
		}
		hr := p.grpcFilters(route, rule.Filters, parent, l)
		clusters, total, ok := p.grpcClusters(route, rule.BackendRefs, parent, l)
		if !ok {
			continue
		}
		routes := matchRoutes(matches, func(m gatewayMatch) *dag.Route {
			r := &dag.Route{
				PathMatch: m.path, HeaderMatch: m.headers, Clusters: clusters,
				RequestHeaders: hr.requestHeaders, ResponseHeaders: hr.responseHeaders, Mirrors: hr.mirrors,
				Priority: index, Kind: kindGRPCRoute, Namespace: route.Namespace, Name: route.Name,
			}
			if len(clusters) == 0 || total == 0 {
				r.DirectResponse = &dag.DirectResponse{StatusCode: 500}
			}
			return r
		})
		if !p.addGatewayRoutes(l, hosts, routes, conditionsKeys(routes)) {
			invalid++
		}
	}
	ruleConflicts(parent, kindGRPCRoute, invalid, len(route.Spec.Rules))
}

// grpcMethodMatch supports only exact matches naming both service and
// method.
func grpcMethodMatch(m *gatewayv1.GRPCMethodMatch, parent *routeParent) (dag.PathMatch, bool) {
	if m == nil {
		return dag.PathMatch{Kind: dag.PathPrefix, Value: "/"}, true
	}
	if m.Type != nil && *m.Type != gatewayv1.GRPCMethodMatchExact {
		parent.add("Accepted", "False", "UnsupportedValue", "GRPCRoute.Spec.Rules.Matches.Method: Only Exact match type is supported.")
		return dag.PathMatch{}, false
	}
	if m.Service == nil || strings.TrimSpace(*m.Service) == "" || m.Method == nil || strings.TrimSpace(*m.Method) == "" {
		parent.add("Accepted", "False", "InvalidMethodMatch", "GRPCRoute.Spec.Rules.Matches.Method: Both Service and Method need be configured.")
		return dag.PathMatch{}, false
	}
	return dag.PathMatch{Kind: dag.PathExact, Value: "/" + *m.Service + "/" + *m.Method}, true
}

func grpcHeaderMatches(in []gatewayv1.GRPCHeaderMatch) ([]dag.HeaderMatch, error) {
	return gatewayHeaderMatches("GRPCRoute", in, func(m gatewayv1.GRPCHeaderMatch) (string, string, *string) {
		return string(m.Name), m.Value, (*string)(m.Type)
	})
}

func (p *Processor) grpcFilters(route *gatewayv1.GRPCRoute, filters []gatewayv1.GRPCRouteFilter, parent *routeParent, l *gatewayListener) *httpRule {
	hr := &httpRule{}
	for _, f := range filters {
		switch f.Type {
		case gatewayv1.GRPCRouteFilterRequestHeaderModifier:
			applyHeaderFilter(&hr.requestHeaders, f.RequestHeaderModifier, true, parent)
		case gatewayv1.GRPCRouteFilterResponseHeaderModifier:
			applyHeaderFilter(&hr.responseHeaders, f.ResponseHeaderModifier, false, parent)
		case gatewayv1.GRPCRouteFilterRequestMirror:
			if f.RequestMirror == nil {
				continue
			}
			svc, c := p.backendService(f.RequestMirror.BackendRef, "Spec.Rules.Filters.RequestMirror.BackendRef", kindGRPCRoute, route.Namespace)
			if c != nil {
				parent.add(c.Type, c.Status, c.Reason, c.Message)
				continue
			}
			// The Service gets the default protocol, but Contour's mirror
			// cluster itself carries none.
			grpcDefaultProtocol(svc, l.spec.Protocol)
			hr.mirrors = append(hr.mirrors, &dag.MirrorPolicy{Cluster: &dag.Cluster{Upstream: svc, OmitTLSParams: true}, Percent: 100})
		default:
			parent.add("Accepted", "False", "UnsupportedValue", fmt.Sprintf("GRPCRoute.Spec.Rules.Filters: invalid type %q: only RequestHeaderModifier, ResponseHeaderModifier and RequestMirror are supported.", f.Type))
		}
	}
	return hr
}

func (p *Processor) grpcClusters(route *gatewayv1.GRPCRoute, refs []gatewayv1.GRPCBackendRef, parent *routeParent, l *gatewayListener) ([]*dag.Cluster, uint32, bool) {
	if len(refs) == 0 {
		parent.add("ResolvedRefs", "False", "Degraded", "At least one Spec.Rules.BackendRef must be specified.")
		return nil, 0, false
	}
	var clusters []*dag.Cluster
	var total uint32
	for _, ref := range refs {
		svc, c := p.backendService(ref.BackendObjectReference, "Spec.Rules.BackendRef", kindGRPCRoute, route.Namespace)
		if c != nil {
			parent.add(c.Type, c.Status, c.Reason, c.Message)
			continue
		}
		cl := &dag.Cluster{OmitTLSParams: true}
		for _, f := range ref.Filters {
			switch f.Type {
			case gatewayv1.GRPCRouteFilterRequestHeaderModifier:
				applyHeaderFilter(&cl.RequestHeaders, f.RequestHeaderModifier, true, parent)
			case gatewayv1.GRPCRouteFilterResponseHeaderModifier:
				applyHeaderFilter(&cl.ResponseHeaders, f.ResponseHeaderModifier, false, parent)
			default:
				parent.add("Accepted", "False", "UnsupportedValue", "GRPCRoute.Spec.Rules.BackendRef.Filters: Only RequestHeaderModifier and ResponseHeaderModifier type is supported.")
			}
		}
		weight := backendWeight(ref.Weight)
		total += weight
		grpcDefaultProtocol(svc, l.spec.Protocol)
		svc.LocalityWeight = weight
		cl.Upstream, cl.Protocol, cl.Weight = svc, svc.Protocol, weight
		clusters = append(clusters, cl)
	}
	return clusters, total, true
}

// grpcDefaultProtocol speaks HTTP/2 to a gRPC backend whose Service does
// not say: cleartext behind an HTTP listener, TLS behind an HTTPS one.
func grpcDefaultProtocol(svc *dag.Service, listenerProtocol gatewayv1.ProtocolType) {
	if strings.TrimSpace(svc.Protocol) != "" {
		return
	}
	switch listenerProtocol {
	case gatewayv1.HTTPProtocolType:
		svc.Protocol = "h2c"
	case gatewayv1.HTTPSProtocolType:
		svc.Protocol = "h2"
	}
}
