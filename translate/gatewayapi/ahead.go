package gatewayapi

import (
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/translate/dag/index"
)

// HTTPRoutes are attached one after the other, in Contour's order, since
// the first route to claim a match keeps it. Converting their rules reads
// only the cache, and was most of the processor's 110–120 ms at 5,000
// HTTPRoutes, on one CPU while the other idled; so the routes attached to
// the Gateway are converted first, on every CPU, and attaching takes their
// conversions in order.

// convertAhead converts, side by side, the rules of the routes with a
// parentRef to the Gateway.
func (p *Processor) convertAhead(routes []*gatewayv1.HTTPRoute) {
	if p.InOrder {
		return
	}
	var todo []*gatewayv1.HTTPRoute
	for _, r := range routes {
		if p.refersToThisGateway(r.Spec.ParentRefs) {
			todo = append(todo, r)
		}
	}
	converted := make([][]convertedRule, len(todo))
	par.ForEach(len(todo), func(i int) { converted[i] = p.convertHTTPRules(todo[i]) })
	p.converted = make(map[*gatewayv1.HTTPRoute][]convertedRule, len(todo))
	for i, r := range todo {
		p.converted[r] = converted[i]
	}
}

// httpRulesOf returns route's rules converted. A conversion made ahead is
// used once: each further listener or parentRef the route is added for
// gets routes of its own, converted again.
func (p *Processor) httpRulesOf(route *gatewayv1.HTTPRoute) []convertedRule {
	if rules, ok := p.converted[route]; ok {
		delete(p.converted, route)
		return rules
	}
	return p.convertHTTPRules(route)
}

func (p *Processor) refersToThisGateway(refs []gatewayv1.ParentReference) bool {
	gw := index.NamespacedName(p.Gateway)
	return slices.ContainsFunc(refs, func(ref gatewayv1.ParentReference) bool { return refersToGateway(ref, gw) })
}
