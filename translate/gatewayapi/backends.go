package gatewayapi

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/httpheader"
	"github.com/contourc/contourc/translate/internal/status"
)

// Gateway API backend references, header filters and shared route helpers.

// backendService resolves a backend reference to a Service port. A
// failure is the ResolvedRefs=False condition to report.
func (p *Processor) backendService(ref gatewayv1.BackendObjectReference, field, routeKind, routeNamespace string) (*dag.Service, *status.Condition) {
	fail := func(reason, msg string) (*dag.Service, *status.Condition) {
		return nil, &status.Condition{Type: "ResolvedRefs", Status: "False", Reason: reason, Message: msg}
	}
	switch {
	case ref.Group != nil && *ref.Group != "":
		return fail("InvalidKind", fmt.Sprintf("%s.Group must be \"\"", field))
	case ref.Kind == nil || *ref.Kind != "Service":
		return fail("InvalidKind", fmt.Sprintf("%s.Kind must be 'Service'", field))
	case ref.Name == "":
		return fail("Degraded", fmt.Sprintf("%s.Name must be specified", field))
	case ref.Port == nil:
		return fail("Degraded", fmt.Sprintf("%s.Port must be specified", field))
	}
	name := types.NamespacedName{Namespace: routeNamespace, Name: string(ref.Name)}
	if ref.Namespace != nil {
		name.Namespace = string(*ref.Namespace)
	}
	if name.Namespace != routeNamespace && !p.referenceGranted(gatewayv1.GroupName, routeKind, routeNamespace, "", "Service", name) {
		return fail("RefNotPermitted", fmt.Sprintf("%s.Namespace must match the route's namespace or be covered by a ReferenceGrant", field))
	}
	svc, err := p.Index.Service(name, intstr.FromInt32(int32(*ref.Port)))
	if err != nil {
		return fail("BackendNotFound", fmt.Sprintf("service %q is invalid: %s", name.Name, err))
	}
	svc = config.WithDefaultCircuitBreakers(svc, p.Settings)
	if ap := svc.Port.AppProtocol; ap != nil && !knownAppProtocol(*ap) {
		return fail("UnsupportedProtocol", fmt.Sprintf("AppProtocol: \"%s\" is unsupported", *ap))
	}
	return svc, nil
}

// knownAppProtocol is an appProtocol Contour understands.
func knownAppProtocol(p string) bool {
	switch p {
	case "kubernetes.io/h2c", "kubernetes.io/ws", "http", "https":
		return true
	}
	return false
}

// applyHeaderFilter sets *dst from a header modifier filter: only the first
// filter of a kind counts, and invalid entries degrade the route.
func applyHeaderFilter(dst **dag.HeadersPolicy, f *gatewayv1.HTTPHeaderFilter, request bool, parent conditionSink) {
	if f == nil || *dst != nil {
		return
	}
	var err error
	if *dst, err = gatewayHeadersPolicy(f, request); err != nil {
		which := "response"
		if request {
			which = "request"
		}
		parent.add("ResolvedRefs", "False", "Degraded", err.Error()+" on "+which+" headers")
	}
}

// gatewayHeadersPolicy converts a header modifier filter; for requests a
// Host header becomes a host rewrite. Invalid entries are skipped and
// reported together.
func gatewayHeadersPolicy(f *gatewayv1.HTTPHeaderFilter, request bool) (*dag.HeadersPolicy, error) {
	var errs []string
	out := &dag.HeadersPolicy{}
	headers := func(in []gatewayv1.HTTPHeader, op string) map[string]string {
		m := map[string]string{}
		for _, h := range in {
			key := http.CanonicalHeaderKey(string(h.Name))
			if _, dup := m[key]; dup {
				errs = append(errs, fmt.Sprintf("duplicate header addition: %q", key))
				continue
			}
			if key == "Host" && request {
				out.HostRewrite = h.Value
				continue
			}
			if msgs := httpheader.NameProblems(key); len(msgs) != 0 {
				errs = append(errs, fmt.Sprintf("invalid %s header %q: %v", op, key, msgs))
				continue
			}
			if err := httpheader.ValidValue(key, h.Value); err != nil {
				errs = append(errs, err.Error())
				continue
			}
			m[key] = httpheader.EscapeValue(h.Value, nil)
		}
		return m
	}
	if set := headers(f.Set, "set"); len(set) > 0 {
		out.Set = set
	}
	if add := headers(f.Add, "add"); len(add) > 0 {
		out.Add = add
	}
	removed := map[string]bool{}
	for _, name := range f.Remove {
		key := http.CanonicalHeaderKey(name)
		if removed[key] {
			errs = append(errs, fmt.Sprintf("duplicate header removal: %q", key))
			continue
		}
		if msgs := httpheader.NameProblems(key); len(msgs) != 0 {
			errs = append(errs, fmt.Sprintf("invalid remove header %q: %v", key, msgs))
			continue
		}
		removed[key] = true
		out.Remove = append(out.Remove, key)
	}
	sort.Strings(out.Remove)
	if len(errs) > 0 {
		return out, fmt.Errorf("%s", strings.Join(errs, ", "))
	}
	return out, nil
}

// gatewayMatch is one match of a rule, as DAG conditions.
type gatewayMatch struct {
	path    dag.PathMatch
	headers []dag.HeaderMatch
	query   []dag.QueryMatch
}

// matchRoutes makes one route per match (matches are ORed), all with the
// same action.
func matchRoutes(matches []gatewayMatch, make func(m gatewayMatch) *dag.Route) []*dag.Route {
	var out []*dag.Route
	for _, m := range matches {
		out = append(out, make(m))
	}
	return out
}

// prefixRemoval turns a rewrite of a matched prefix to "/" into a regex
// removing the prefix and the slashes after it: Envoy's prefix rewrite
// would leave "//rest". Contour computes it once per rule, from the rule's
// first prefix match, and every route of the rule shares it.
func prefixRemoval(matches []gatewayMatch, prefix string) (regex string, ok bool) {
	if prefix != "/" {
		return "", false
	}
	for _, m := range matches {
		if m.path.Kind == dag.PathPrefix || m.path.Kind == dag.PathSegmentPrefix {
			return "^" + regexp.QuoteMeta(m.path.Value) + "/*", true
		}
	}
	return "", false
}

// addGatewayRoutes adds a rule's routes, whose conditionsKeys are keys, to
// the listener's virtual hosts for hosts, unless a route of the same kind
// already has one of its matches; false means the rule conflicted and was
// dropped.
func (p *Processor) addGatewayRoutes(l *gatewayListener, hosts []string, routes []*dag.Route, keys []string) bool {
	dl := p.DAG.Listeners[l.envoyListener]
	vhost := func(host string) *dag.VirtualHost {
		if l.secret != nil {
			svh := dl.EnsureSecureVirtualHost(host)
			return &svh.VirtualHost
		}
		return dl.EnsureVirtualHost(host)
	}
	for _, h := range hosts {
		for i, r := range routes {
			if vhost(h).Conflicts(keys[i], r.Kind) {
				return false
			}
		}
	}
	for _, h := range hosts {
		if l.secret != nil {
			dl.EnsureSecureVirtualHost(h).Secret = l.secret
		}
		for i, r := range routes {
			vhost(h).AddKeyedRoute(keys[i], r)
		}
	}
	return true
}

// conditionsKeys are the conditionsKeys of routes.
func conditionsKeys(routes []*dag.Route) []string {
	keys := make([]string, len(routes))
	for i, r := range routes {
		keys[i] = dag.ConditionsKey(r)
	}
	return keys
}

// ruleConflicts reports rules dropped for conflicting with other routes.
func ruleConflicts(parent *routeParent, kind string, invalid, total int) {
	switch {
	case invalid == total:
		parent.add("Accepted", "False", "RuleMatchConflict", fmt.Sprintf("%s's Match has conflict with other %s's Match", kind, kind))
	case invalid > 0:
		parent.add("PartiallyInvalid", "True", "RuleMatchPartiallyConflict",
			fmt.Sprintf("Dropped Rule: some of %s's rule(s) has(ve) been dropped because of conflict against other %s's rule(s)", kind, kind))
	}
}

// resolveRouteRefs reports the backend problems of a route attached to no
// listener, without programming it.
func (p *Processor) resolveRouteRefs(route routeObject, parent *routeParent) {
	report := func(c *status.Condition) {
		if c != nil {
			parent.add(c.Type, c.Status, c.Reason, c.Message)
		}
	}
	switch r := route.(type) {
	case *gatewayv1.HTTPRoute:
		for _, rule := range r.Spec.Rules {
			for _, f := range rule.Filters {
				if f.Type == gatewayv1.HTTPRouteFilterRequestMirror && f.RequestMirror != nil {
					_, c := p.backendService(f.RequestMirror.BackendRef, "Spec.Rules.Filters.RequestMirror.BackendRef", kindHTTPRoute, r.Namespace)
					report(c)
				}
			}
			for _, b := range rule.BackendRefs {
				_, c := p.backendService(b.BackendObjectReference, "Spec.Rules.BackendRef", kindHTTPRoute, r.Namespace)
				report(c)
			}
		}
	case *gatewayv1.GRPCRoute:
		for _, rule := range r.Spec.Rules {
			for _, f := range rule.Filters {
				if f.Type == gatewayv1.GRPCRouteFilterRequestMirror && f.RequestMirror != nil {
					_, c := p.backendService(f.RequestMirror.BackendRef, "Spec.Rules.Filters.RequestMirror.BackendRef", kindGRPCRoute, r.Namespace)
					report(c)
				}
			}
			for _, b := range rule.BackendRefs {
				_, c := p.backendService(b.BackendObjectReference, "Spec.Rules.BackendRef", kindGRPCRoute, r.Namespace)
				report(c)
			}
		}
	case *gatewayv1.TLSRoute:
		for _, rule := range r.Spec.Rules {
			for _, b := range rule.BackendRefs {
				_, c := p.backendService(b.BackendObjectReference, "Spec.Rules.BackendRef", kindTLSRoute, r.Namespace)
				report(c)
			}
		}
	}
}

// backendWeight is a backendRef's weight, 1 when unset.
func backendWeight(w *int32) uint32 {
	if w == nil {
		return 1
	}
	return uint32(*w)
}
