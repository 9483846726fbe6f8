package gatewayapi

import (
	"sort"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/status"
)

// The status Contour writes on the Gateway and on the routes attached to
// it. Conditions are kept in the order they were first set; setting a
// condition type again replaces it and appends its message to the old one,
// as Contour's status accessors do.

// gatewayStatus accumulates a Gateway's status.
type gatewayStatus struct {
	generation int64
	conditions status.Conditions
	// listeners by name, in the order they were first touched
	listeners []*status.ListenerStatus
}

func (g *gatewayStatus) listener(name string) *status.ListenerStatus {
	for _, l := range g.listeners {
		if l.Name == name {
			return l
		}
	}
	l := &status.ListenerStatus{Name: name, SupportedKinds: []status.RouteGroupKind{}, Conditions: status.Conditions{}}
	g.listeners = append(g.listeners, l)
	return l
}

func (g *gatewayStatus) addListenerCondition(listener, typ, status, reason, message string) {
	g.listener(listener).Conditions.Set(g.generation, typ, status, reason, message)
}

func (g *gatewayStatus) toStatus() status.GatewayStatus {
	return status.GatewayStatus{Conditions: g.conditions, Listeners: g.listeners}
}

// routeStatus accumulates one route's (or policy's) status per parentRef.
type routeStatus struct {
	generation int64
	controller string // the GatewayClass's controllerName
	parents    []*status.RouteParentStatus
	refs       []gatewayv1.ParentReference // parallel to parents
}

// parent returns the handle on a parentRef's status. Like Contour, refs are
// the same parent when they are equal as Go values (their pointers point
// into the same route spec).
func (r *routeStatus) parent(ref gatewayv1.ParentReference) *routeParent {
	rp := &routeParent{route: r, ref: ref}
	for i, existing := range r.refs {
		if existing == ref {
			rp.status = r.parents[i]
		}
	}
	return rp
}

// routeParent is a handle on one parentRef's status, created on first use.
type routeParent struct {
	route  *routeStatus
	ref    gatewayv1.ParentReference
	status *status.RouteParentStatus
}

func (rp *routeParent) get() *status.RouteParentStatus {
	if rp.status == nil {
		rp.status = &status.RouteParentStatus{ParentRef: toParentRefJSON(rp.ref), ControllerName: rp.route.controller, Conditions: status.Conditions{}}
		rp.route.parents = append(rp.route.parents, rp.status)
		rp.route.refs = append(rp.route.refs, rp.ref)
	}
	return rp.status
}

func (rp *routeParent) add(typ, status, reason, message string) {
	rp.get().Conditions.Set(rp.route.generation, typ, status, reason, message)
}

// conditionSink takes the conditions converting a route reports: a
// parentRef's status, or a record to add to one later.
type conditionSink interface {
	add(typ, status, reason, message string)
}

// conditionRecord keeps conditions, in the order reported, for addTo.
type conditionRecord []status.Condition

func (r *conditionRecord) add(typ, st, reason, message string) {
	*r = append(*r, status.Condition{Type: typ, Status: st, Reason: reason, Message: message})
}

// addTo reports the recorded conditions to sink, in order.
func (r conditionRecord) addTo(sink conditionSink) {
	for _, c := range r {
		sink.add(c.Type, c.Status, c.Reason, c.Message)
	}
}

func (rp *routeParent) has(typ string) bool {
	return rp.status != nil && rp.status.Conditions.Has(typ)
}

func toParentRefJSON(ref gatewayv1.ParentReference) status.ParentRef {
	out := status.ParentRef{Name: string(ref.Name)}
	if ref.Group != nil {
		g := string(*ref.Group)
		out.Group = &g
	}
	if ref.Kind != nil {
		k := string(*ref.Kind)
		out.Kind = &k
	}
	if ref.Namespace != nil {
		n := string(*ref.Namespace)
		out.Namespace = &n
	}
	if ref.SectionName != nil {
		s := string(*ref.SectionName)
		out.SectionName = &s
	}
	if ref.Port != nil {
		p := int32(*ref.Port)
		out.Port = &p
	}
	return out
}

// watchedAPIVersion is the version of each kind Contour watches, which is
// the object its status is written on.
// "" for a kind it does not watch.
func watchedAPIVersion(kind string) string {
	switch kind {
	case kindHTTPRoute, kindGRPCRoute:
		return "gateway.networking.k8s.io/v1"
	case kindTLSRoute, kindTCPRoute:
		return "gateway.networking.k8s.io/v1alpha2"
	case "BackendTLSPolicy":
		return "gateway.networking.k8s.io/v1alpha3"
	}
	return ""
}

// Statuses are the Gateway API statuses of one translation.
type Statuses struct {
	gateway     *gatewayStatus
	gatewayName types.NamespacedName
	routes      map[status.Key]*routeStatus
	policies    map[types.NamespacedName]*routeStatus // BackendTLSPolicy ancestors
}

// NewStatuses returns the Statuses a Processor writes, with room for about
// routes routes.
func NewStatuses(routes int) *Statuses {
	return &Statuses{routes: make(map[status.Key]*routeStatus, routes)}
}

// resetPolicy starts a BackendTLSPolicy's status anew; its ancestors are
// kept like a route's parents.
func (gs *Statuses) resetPolicy(name types.NamespacedName, generation int64, controller string) *routeStatus {
	if gs.policies == nil {
		gs.policies = map[types.NamespacedName]*routeStatus{}
	}
	r := &routeStatus{generation: generation, controller: controller}
	gs.policies[name] = r
	return r
}

func (gs *Statuses) route(kind string, name types.NamespacedName, generation int64, controller string) *routeStatus {
	key := status.Key{Kind: kind, Name: name}
	r, ok := gs.routes[key]
	if !ok {
		r = &routeStatus{generation: generation, controller: controller}
		gs.routes[key] = r
	}
	return r
}

// ObjectStatuses lists the Gateway and route statuses. A route with no
// parent status for the Gateway gets none, as in Contour.
func (gs *Statuses) ObjectStatuses(c *index.Index) []status.ObjectStatus {
	var out []status.ObjectStatus
	if gs.gateway != nil {
		out = append(out, status.ObjectStatus{
			APIVersion: "gateway.networking.k8s.io/v1", Kind: "Gateway",
			Namespace: gs.gatewayName.Namespace, Name: gs.gatewayName.Name,
			Status: gs.gateway.toStatus(), Source: c.Source("Gateway", gs.gatewayName),
		})
	}
	var keys []status.Key
	for k, r := range gs.routes {
		if len(r.parents) > 0 {
			keys = append(keys, k)
		}
	}
	// Any fixed order will do: translate sorts all statuses afterwards.
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return index.LessQualified(a.Name.Namespace, a.Name.Name, b.Name.Namespace, b.Name.Name)
	})
	for _, k := range keys {
		out = append(out, status.ObjectStatus{
			APIVersion: watchedAPIVersion(k.Kind), Kind: k.Kind, Namespace: k.Name.Namespace, Name: k.Name.Name,
			Status: status.RouteStatus{Parents: gs.routes[k].parents}, Source: c.Source(k.Kind, k.Name),
		})
	}
	return append(out, gs.policyStatuses(c)...)
}
