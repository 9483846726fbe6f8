package lint

import (
	"fmt"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
)

// The backend rules: CTC1301, a route to a port its Service does not
// have (only when the Service is among the objects: a missing Service is
// Contour's own error); CTC1302, a Gateway API rule whose backendRefs all
// have weight 0, which answers every request with a 500 (an HTTPProxy's
// weight 0 is an unset weight, an even split); CTC1303, an HTTPProxy
// route mirroring to a Service it already sends to, or a RequestMirror
// filter to one of its rule's backendRefs, which doubles the traffic on
// that Service for nothing.

func serviceRules(in *input) []Finding {
	var out []Finding
	for _, o := range in.index.ofKind("HTTPProxy") {
		out = append(out, proxyBackends(in, o)...)
	}
	for _, o := range in.index.ofKind("Ingress") {
		if in.served(o) {
			out = append(out, ingressBackends(in, o)...)
		}
	}
	for _, o := range in.index.ofKind("HTTPRoute") {
		out = append(out, httpRouteBackends(in, o)...)
	}
	return out
}

func proxyBackends(in *input, o *loader.Object) []Finding {
	p := o.Obj.(*contourv1.HTTPProxy)
	var out []Finding
	for i, r := range p.Spec.Routes {
		sent := map[[2]any]bool{}
		for _, s := range r.Services {
			if !s.Mirror {
				sent[[2]any{s.Name, s.Port}] = true
			}
		}
		for _, s := range r.Services {
			field := fmt.Sprintf("spec.routes[%d].services", i)
			if f, ok := portMissing(in, o, field, p.Namespace, s.Name, int32(s.Port), ""); ok {
				out = append(out, f)
			}
			if s.Mirror && sent[[2]any{s.Name, s.Port}] {
				out = append(out, finding(ruleMirrorSelf, o, fmt.Sprintf("%s mirrors requests to Service %s port %d, which the route already sends them to",
					field, s.Name, s.Port)))
			}
		}
	}
	if tp := p.Spec.TCPProxy; tp != nil {
		for _, s := range tp.Services {
			if f, ok := portMissing(in, o, "spec.tcpproxy.services", p.Namespace, s.Name, int32(s.Port), ""); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

func ingressBackends(in *input, o *loader.Object) []Finding {
	ing := o.Obj.(*networkingv1.Ingress)
	var out []Finding
	check := func(field string, b *networkingv1.IngressBackend) {
		if b == nil || b.Service == nil {
			return
		}
		if f, ok := portMissing(in, o, field, ing.Namespace, b.Service.Name, b.Service.Port.Number, b.Service.Port.Name); ok {
			out = append(out, f)
		}
	}
	check("spec.defaultBackend", ing.Spec.DefaultBackend)
	for i, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for j := range r.HTTP.Paths {
			check(fmt.Sprintf("spec.rules[%d].http.paths[%d].backend", i, j), &r.HTTP.Paths[j].Backend)
		}
	}
	return out
}

func httpRouteBackends(in *input, o *loader.Object) []Finding {
	route := o.Obj.(*gatewayv1.HTTPRoute)
	var out []Finding
	for i, rule := range route.Spec.Rules {
		field := fmt.Sprintf("spec.rules[%d].backendRefs", i)
		zero := len(rule.BackendRefs) > 0
		sent := map[string]bool{}
		for _, b := range rule.BackendRefs {
			zero = zero && b.Weight != nil && *b.Weight == 0
			if ns, name, port, ok := serviceRef(route.Namespace, b.BackendObjectReference); ok {
				sent[fmt.Sprint(ns, "/", name, ":", port)] = true
				if f, ok := portMissing(in, o, field, ns, name, port, ""); ok {
					out = append(out, f)
				}
			}
		}
		if zero {
			out = append(out, finding(ruleZeroWeights, o, field+": every backendRef has weight 0, so every request matching the rule is answered with a 500"))
		}
		for _, f := range rule.Filters {
			if f.RequestMirror == nil {
				continue
			}
			ns, name, port, ok := serviceRef(route.Namespace, f.RequestMirror.BackendRef)
			if ok && sent[fmt.Sprint(ns, "/", name, ":", port)] {
				out = append(out, finding(ruleMirrorSelf, o, fmt.Sprintf("spec.rules[%d].filters: RequestMirror to Service %s/%s port %d, which the rule already sends requests to",
					i, ns, name, port)))
			}
		}
	}
	return out
}

// serviceRef reads a Gateway API reference to a Service.
func serviceRef(routeNS string, ref gatewayv1.BackendObjectReference) (ns, name string, port int32, ok bool) {
	if (ref.Group != nil && *ref.Group != "") || (ref.Kind != nil && *ref.Kind != "Service") || ref.Port == nil {
		return "", "", 0, false
	}
	ns = routeNS
	if ref.Namespace != nil {
		ns = string(*ref.Namespace)
	}
	return ns, string(ref.Name), int32(*ref.Port), true
}

// portMissing is CTC1301 for one reference to Service ns/name's port
// number (or, for an Ingress, its port name).
func portMissing(in *input, o *loader.Object, field, ns, name string, number int32, portName string) (Finding, bool) {
	so := in.index.get("Service", ns, name)
	if so == nil {
		return Finding{}, false
	}
	svc := so.Obj.(*corev1.Service)
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return Finding{}, false // any port: Envoy resolves the name
	}
	var ports []string
	for _, p := range svc.Spec.Ports {
		if (portName != "" && p.Name == portName) || (portName == "" && p.Port == number) {
			return Finding{}, false
		}
		if p.Name != "" {
			ports = append(ports, fmt.Sprintf("%d (%s)", p.Port, p.Name))
		} else {
			ports = append(ports, fmt.Sprint(p.Port))
		}
	}
	want := fmt.Sprint(number)
	if portName != "" {
		want = portName
	}
	return finding(rulePortMissing, o, fmt.Sprintf("%s: Service %s/%s has no port %s (its ports: %v)", field, ns, name, want, ports),
		objectOf(so)), true
}
