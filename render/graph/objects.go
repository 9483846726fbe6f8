package graph

import (
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
)

// objectKey names an object by kind, namespace and name.
type objectKey struct {
	Kind, Namespace, Name string
}

// link is an edge between two objects: an HTTPProxy including another, or
// a Gateway a route attaches to (from the Gateway to the route).
type link struct {
	from, to objectKey
	label    string
}

// Objects are the facts of the loaded objects the graph needs, kept small
// so that serve can hold them beside the configuration it serves.
type Objects struct {
	sources map[objectKey]loader.Source
	// fqdns are the virtual host names claimed by root HTTPProxies.
	fqdns map[objectKey]string
	links []link
}

// routeKinds are the Gateway API kinds that attach to Gateways.
const (
	kindGateway   = "Gateway"
	kindHTTPProxy = "HTTPProxy"
)

// ObjectsFrom reads the facts of objs: where each was read, which HTTPProxy
// includes which, and the Gateways each Gateway API route names as parents.
func ObjectsFrom(objs []loader.Object) *Objects {
	o := &Objects{sources: make(map[objectKey]loader.Source, len(objs)), fqdns: map[objectKey]string{}}
	for _, obj := range objs {
		if obj.Obj == nil || obj.StandIn != "" {
			continue
		}
		if !drawnKind(obj.Kind) {
			// Secrets and EndpointSlices, most of a repository, are
			// never nodes: serve keeps these facts at every reload.
			continue
		}
		key := objectKey{obj.Kind, obj.Obj.GetNamespace(), obj.Obj.GetName()}
		o.sources[key] = obj.Source
		switch v := obj.Obj.(type) {
		case *contourv1.HTTPProxy:
			o.addProxy(key, v)
		case *gatewayv1.HTTPRoute:
			o.addParents(key, v.Spec.ParentRefs)
		case *gatewayv1.GRPCRoute:
			o.addParents(key, v.Spec.ParentRefs)
		case *gatewayv1.TLSRoute:
			o.addParents(key, v.Spec.ParentRefs)
		case *gatewayv1.TCPRoute:
			o.addParents(key, v.Spec.ParentRefs)
		}
	}
	return o
}

// drawnKind says whether objects of kind may be nodes of the graph.
func drawnKind(kind string) bool {
	switch kind {
	case kindHTTPProxy, kindGateway, "Ingress", "Service", "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute":
		return true
	}
	return false
}

func (o *Objects) addProxy(key objectKey, p *contourv1.HTTPProxy) {
	if vh := p.Spec.VirtualHost; vh != nil && vh.Fqdn != "" {
		o.fqdns[key] = vh.Fqdn
	}
	for _, inc := range p.Spec.Includes {
		// An include without a namespace is of the including one's.
		ns := inc.Namespace
		if ns == "" {
			ns = key.Namespace
		}
		label := "includes"
		for _, c := range inc.Conditions {
			if c.Prefix != "" {
				label += " " + c.Prefix
			}
		}
		o.links = append(o.links, link{from: key, to: objectKey{kindHTTPProxy, ns, inc.Name}, label: label})
	}
}

// addParents links the route to the Gateways among its parentRefs (a
// parentRef's kind defaults to Gateway, its namespace to the route's).
func (o *Objects) addParents(key objectKey, refs []gatewayv1.ParentReference) {
	for _, ref := range refs {
		if ref.Kind != nil && string(*ref.Kind) != kindGateway {
			continue
		}
		ns := key.Namespace
		if ref.Namespace != nil {
			ns = string(*ref.Namespace)
		}
		label := "parent"
		if ref.SectionName != nil {
			label += " " + string(*ref.SectionName)
		}
		o.links = append(o.links, link{from: objectKey{kindGateway, ns, string(ref.Name)}, to: key, label: label})
	}
}

// source is where key was read, the zero Source when unknown.
func (o *Objects) source(key objectKey) loader.Source {
	if o == nil {
		return loader.Source{}
	}
	return o.sources[key]
}
