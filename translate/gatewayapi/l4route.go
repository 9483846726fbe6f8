package gatewayapi

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/translate/dag"
)

// TLSRoute and TCPRoute translation: TCP proxies on SNI virtual hosts or
// on a whole listener.

// tcpBackends resolves L4 backendRefs; invalid ones are reported and
// dropped, and nil means nothing can be programmed.
func (p *Processor) tcpBackends(kind, namespace string, refs []gatewayv1.BackendRef, parent *routeParent) *dag.TCPProxy {
	proxy := &dag.TCPProxy{}
	var total uint32
	for _, ref := range refs {
		svc, c := p.backendService(ref.BackendObjectReference, "Spec.Rules.BackendRef", kind, namespace)
		if c != nil {
			parent.add(c.Type, c.Status, c.Reason, c.Message)
			continue
		}
		weight := backendWeight(ref.Weight)
		total += weight
		svc.LocalityWeight = weight
		proxy.Clusters = append(proxy.Clusters, &dag.Cluster{Upstream: svc, Weight: weight, OmitTLSParams: true})
	}
	if len(proxy.Clusters) == 0 {
		return nil
	}
	if total == 0 {
		parent.add("ValidBackendRefs", "False", "AllBackendRefsHaveZeroWeights", "At least one Spec.Rules.BackendRef must have a non-zero weight.")
		return nil
	}
	return proxy
}

func (p *Processor) tlsRoute(route *gatewayv1.TLSRoute, parent *routeParent, l *gatewayListener, hosts []string) {
	dl := p.DAG.Listeners[l.envoyListener]
	for _, rule := range route.Spec.Rules {
		if len(rule.BackendRefs) == 0 {
			parent.add("ResolvedRefs", "False", "Degraded", "At least one Spec.Rules.BackendRef must be specified.")
			continue
		}
		proxy := p.tcpBackends(kindTLSRoute, route.Namespace, rule.BackendRefs, parent)
		if proxy == nil {
			continue
		}
		for _, h := range hosts {
			svh := dl.EnsureSecureVirtualHost(h)
			if l.secret != nil {
				svh.Secret = l.secret
			}
			svh.TCPProxy = proxy
		}
	}
}

func (p *Processor) tcpRoute(route *gatewayv1.TCPRoute, parent *routeParent, l *gatewayListener) {
	if len(route.Spec.Rules) != 1 {
		parent.add("Accepted", "False", "InvalidRouteRules", "TCPRoute must have only a single rule defined")
		return
	}
	rule := route.Spec.Rules[0]
	if len(rule.BackendRefs) == 0 {
		parent.add("ResolvedRefs", "False", "Degraded", "At least one Spec.Rules.BackendRef must be specified.")
		return
	}
	proxy := p.tcpBackends(kindTCPRoute, route.Namespace, rule.BackendRefs, parent)
	if proxy == nil {
		return
	}
	dl := p.DAG.Listeners[l.envoyListener]
	if l.secret != nil {
		// A TLS-terminating listener forwards every SNI.
		svh := dl.EnsureSecureVirtualHost("*")
		svh.Secret, svh.TCPProxy = l.secret, proxy
		return
	}
	dl.TCPProxy = proxy
}
