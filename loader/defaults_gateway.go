package loader

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// CRD defaults of the gateway.networking.k8s.io kinds, from the
// "+kubebuilder:default" markers of the sigs.k8s.io/gateway-api v1.6 Go
// types (the experimental channel's, a superset of the standard one's:
// defaults of fields the standard channel lacks only apply when the field
// is given). Contour relies on them being there: a listener without
// allowedRoutes admits routes from its own namespace, a backendRef without
// kind is a Service, a route rule without matches matches every path.
//
// Unlike for HTTPProxy, the enums and patterns of the Gateway API schemas
// are not enforced: Contour checks Gateway API values itself and reports
// bad ones in the route's or Gateway's status (an unsupported redirect
// status code, an invalid header name), which is what a user of contourc
// should see too, and offline translators' test inputs rely on it.
func init() {
	defaultGatewayListeners()
	defaultGatewayReferences()
	defaultGatewayRoutes()
}

func defaultGatewayListeners() {
	defaultField(gatewayv1.GatewaySpecAddress{}, "type", "IPAddress")
	defaultField(gatewayv1.AllowedListeners{}, "namespaces", "{from: None}")
	defaultField(gatewayv1.ListenerNamespaces{}, "from", "None")
	defaultField(gatewayv1.Listener{}, "allowedRoutes", "{namespaces: {from: Same}}")
	defaultField(gatewayv1.ListenerEntry{}, "allowedRoutes", "{namespaces: {from: Same}}")
	defaultField(gatewayv1.AllowedRoutes{}, "namespaces", "{from: Same}")
	defaultField(gatewayv1.RouteNamespaces{}, "from", "Same")
	defaultField(gatewayv1.RouteGroupKind{}, "group", "gateway.networking.k8s.io")
	defaultField(gatewayv1.ListenerTLSConfig{}, "mode", "Terminate")
	defaultField(gatewayv1.FrontendTLSValidation{}, "mode", "AllowValidOnly")
}

func defaultGatewayReferences() {
	defaultField(gatewayv1.SecretObjectReference{}, "group", `""`)
	defaultField(gatewayv1.SecretObjectReference{}, "kind", "Secret")
	defaultField(gatewayv1.BackendObjectReference{}, "group", `""`)
	defaultField(gatewayv1.BackendObjectReference{}, "kind", "Service")
	defaultField(gatewayv1.ParentReference{}, "group", "gateway.networking.k8s.io")
	defaultField(gatewayv1.ParentReference{}, "kind", "Gateway")
	defaultField(gatewayv1.ParentGatewayReference{}, "group", "gateway.networking.k8s.io")
	defaultField(gatewayv1.ParentGatewayReference{}, "kind", "Gateway")
	defaultField(gatewayv1.BackendRef{}, "weight", "1")
}

func defaultGatewayRoutes() {
	defaultField(gatewayv1.HTTPRouteSpec{}, "rules", `[{matches: [{path: {type: PathPrefix, value: "/"}}]}]`)
	defaultField(gatewayv1.HTTPRouteRule{}, "matches", `[{path: {type: PathPrefix, value: "/"}}]`)
	defaultField(gatewayv1.HTTPRouteMatch{}, "path", `{type: PathPrefix, value: "/"}`)
	defaultField(gatewayv1.HTTPPathMatch{}, "type", "PathPrefix")
	defaultField(gatewayv1.HTTPPathMatch{}, "value", `"/"`)
	defaultField(gatewayv1.HTTPHeaderMatch{}, "type", "Exact")
	defaultField(gatewayv1.HTTPQueryParamMatch{}, "type", "Exact")
	defaultField(gatewayv1.HTTPRequestRedirectFilter{}, "statusCode", "302")
	defaultField(gatewayv1.HTTPCORSFilter{}, "maxAge", "5")
	defaultField(gatewayv1.GRPCMethodMatch{}, "type", "Exact")
	defaultField(gatewayv1.GRPCHeaderMatch{}, "type", "Exact")
	defaultField(gatewayv1.SessionPersistence{}, "type", "Cookie")
	defaultField(gatewayv1.CookieConfig{}, "lifetimeType", "Session")
	defaultField(gatewayv1.Fraction{}, "denominator", "100")
}
