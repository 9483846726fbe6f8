package translate

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The HTTPProxy processor: root HTTPProxies become virtual hosts, their
// routes and those of the proxies they include become routes, and every
// HTTPProxy gets the status Contour would write.

type httpProxyProcessor struct {
	dag            *DAG
	cache          *cache
	status         proxyStatuses
	rootNamespaces []string
	notices        *[]Notice
	orphaned       map[types.NamespacedName]bool
}

func (p *httpProxyProcessor) run() {
	p.orphaned = map[types.NamespacedName]bool{}
	var roots []*contourv1.HTTPProxy
	for _, proxy := range p.cache.httpproxies {
		key := namespacedName(proxy)
		p.status[key] = &proxyStatus{generation: proxy.Generation}
		if proxy.Spec.VirtualHost == nil {
			p.orphaned[key] = true
			continue
		}
		roots = append(roots, proxy)
	}
	for _, root := range p.uniqueFQDNs(roots) {
		p.root(root)
	}
	for key := range p.orphaned {
		p.status[key].addError("Orphaned", "Orphaned", orphanMessage)
	}
}

func (p *httpProxyProcessor) unsupported(proxy *contourv1.HTTPProxy, field string) {
	*p.notices = append(*p.notices, Notice{
		Source: p.cache.source("HTTPProxy", namespacedName(proxy)),
		Kind:   "HTTPProxy", Name: namespacedName(proxy).String(),
		Msg: field + " is not supported by contourc yet and was ignored",
	})
}

// uniqueFQDNs returns the roots whose fqdn (compared case-insensitively) no
// other root uses; every root sharing an fqdn is invalid.
func (p *httpProxyProcessor) uniqueFQDNs(roots []*contourv1.HTTPProxy) []*contourv1.HTTPProxy {
	byFQDN := map[string][]*contourv1.HTTPProxy{}
	for _, r := range roots {
		fqdn := strings.ToLower(r.Spec.VirtualHost.Fqdn)
		byFQDN[fqdn] = append(byFQDN[fqdn], r)
	}
	var unique []*contourv1.HTTPProxy
	for _, r := range roots {
		fqdn := strings.ToLower(r.Spec.VirtualHost.Fqdn)
		same := byFQDN[fqdn]
		if len(same) == 1 {
			unique = append(unique, r)
			continue
		}
		var names []string
		for _, s := range same {
			names = append(names, namespacedName(s).String())
		}
		sort.Strings(names)
		p.status[namespacedName(r)].addError("VirtualHostError", "DuplicateVhost",
			"fqdn %q is used in multiple HTTPProxies: %s", fqdn, strings.Join(names, ", "))
	}
	return unique
}

// root programs one root HTTPProxy's virtual host(s).
func (p *httpProxyProcessor) root(proxy *contourv1.HTTPProxy) {
	st := p.status[namespacedName(proxy)]
	vh := proxy.Spec.VirtualHost
	host := vh.Fqdn
	switch {
	case strings.TrimSpace(host) == "":
		st.addError("VirtualHostError", "FQDNNotSpecified", "Spec.VirtualHost.Fqdn must be specified")
		return
	case len(p.rootNamespaces) > 0 && !slices.Contains(p.rootNamespaces, proxy.Namespace):
		st.addError("RootNamespaceError", "RootProxyNotAllowedInNamespace", "root HTTPProxy cannot be defined in this namespace")
		return
	case len(proxy.Spec.Routes) == 0 && len(proxy.Spec.Includes) == 0 && proxy.Spec.TCPProxy == nil:
		st.addError("SpecError", "NothingDefined", "HTTPProxy.Spec must have at least one Route, Include, or a TCPProxy")
		return
	}
	p.reportUnsupportedVirtualHostFields(proxy)

	var secret *Secret
	minTLS, maxTLS := "", ""
	tlsEnabled := false
	if tls := vh.TLS; tls != nil {
		switch {
		case tls.SecretName != "" && tls.Passthrough:
			st.addError("TLSError", "TLSConfigNotValid", "Spec.VirtualHost.TLS: both Passthrough and SecretName were specified")
			return
		case tls.SecretName == "" && !tls.Passthrough:
			st.addError("TLSError", "TLSConfigNotValid", "Spec.VirtualHost.TLS: neither Passthrough nor SecretName were specified")
			return
		case tls.Passthrough:
			p.unsupported(proxy, "spec.virtualhost.tls.passthrough")
			return
		}
		tlsEnabled = true
		name := secretReference(tls.SecretName, "", proxy.Namespace)
		s, err := p.cache.lookupTLSSecret(name, proxy.Namespace)
		if err != nil {
			if _, ok := err.(errDelegationNotPermitted); ok {
				st.addError("TLSError", "DelegationNotPermitted", "Spec.VirtualHost.TLS Secret %q certificate delegation not permitted", tls.SecretName)
			} else {
				st.addError("TLSError", "SecretNotValid", "Spec.VirtualHost.TLS Secret %q is invalid: %s", tls.SecretName, err)
			}
			return
		}
		secret = s
		minTLS = tlsVersionAnnotation(tls.MinimumProtocolVersion, "1.2")
		maxTLS = tlsVersionAnnotation(tls.MaximumProtocolVersion, "1.3")
		if maxTLS < minTLS {
			st.addError("TLSError", "TLSConfigNotValid", "Spec.VirtualHost.TLS: minimum protocol version %s is greater than maximum protocol version %s", minTLS, maxTLS)
			return
		}
	}
	if proxy.Spec.TCPProxy != nil {
		if !tlsEnabled {
			st.addError("TCPProxyError", "TLSMustBeConfigured", "Spec.TCPProxy requires that either Spec.TLS.Passthrough or Spec.TLS.SecretName be set")
			return
		}
		p.unsupported(proxy, "spec.tcpproxy")
		return
	}

	routes := p.routes(st, proxy, proxy, nil, nil, tlsEnabled)
	if http := p.dag.listener("http"); http != nil {
		insecure := http.ensureVirtualHost(host)
		for _, r := range routes {
			insecure.addRoute(r)
		}
	}
	if tlsEnabled {
		if https := p.dag.listener("https"); https != nil {
			secure := https.ensureSecureVirtualHost(host)
			secure.Secret, secure.MinTLSVersion, secure.MaxTLSVersion = secret, minTLS, maxTLS
			for _, r := range routes {
				secure.addRoute(r)
			}
		}
	}
}

// reportUnsupportedVirtualHostFields tells the user which virtual-host
// features contourc does not translate yet.
func (p *httpProxyProcessor) reportUnsupportedVirtualHostFields(proxy *contourv1.HTTPProxy) {
	vh := proxy.Spec.VirtualHost
	for field, set := range map[string]bool{
		"spec.virtualhost.corsPolicy":                    vh.CORSPolicy != nil,
		"spec.virtualhost.rateLimitPolicy":               vh.RateLimitPolicy != nil,
		"spec.virtualhost.authorization":                 vh.Authorization != nil,
		"spec.virtualhost.jwtProviders":                  len(vh.JWTProviders) > 0,
		"spec.virtualhost.ipAllowPolicy/ipDenyPolicy":    len(vh.IPAllowFilterPolicy)+len(vh.IPDenyFilterPolicy) > 0,
		"spec.virtualhost.tls.clientValidation":          vh.TLS != nil && vh.TLS.ClientValidation != nil,
		"spec.virtualhost.tls.enableFallbackCertificate": vh.TLS != nil && vh.TLS.EnableFallbackCertificate,
	} {
		if set {
			p.unsupported(proxy, field)
		}
	}
}

// routes computes the routes of proxy and of the proxies it includes, with
// the include chain's conditions. An error in a proxy's own routes discards
// all of them (its includes' routes too), as in Contour.
func (p *httpProxyProcessor) routes(st *proxyStatus, root, proxy *contourv1.HTTPProxy, conds []contourv1.MatchCondition, visited []types.NamespacedName, enforceTLS bool) []*Route {
	key := namespacedName(proxy)
	if slices.Contains(visited, key) {
		var path []string
		for _, v := range append(visited, key) {
			path = append(path, v.String())
		}
		st.addError("IncludeError", "IncludeCreatesCycle", "include creates an include cycle: %s", strings.Join(path, " -> "))
		return nil
	}
	visited = append(visited, key)
	routes := p.includedRoutes(st, root, proxy, conds, visited, enforceTLS)
	for _, route := range proxy.Spec.Routes {
		r, ok := p.route(st, root, proxy, route, append(slices.Clone(conds), route.Conditions...), enforceTLS)
		if !ok {
			return nil
		}
		routes = append(routes, r)
	}
	return routes
}

// includedRoutes follows proxy's includes. A bad include is skipped; a
// missing include or one of a root gets a 502 route for its conditions.
func (p *httpProxyProcessor) includedRoutes(st *proxyStatus, root, proxy *contourv1.HTTPProxy, conds []contourv1.MatchCondition, visited []types.NamespacedName, enforceTLS bool) []*Route {
	var routes []*Route
	var seen []string
	for _, inc := range proxy.Spec.Includes {
		ns := inc.Namespace
		if ns == "" {
			ns = proxy.Namespace
		}
		if err := includeConditionsValid(inc.Conditions); err != nil {
			st.addError("IncludeError", "PathMatchConditionsNotValid", "include: %s", err)
			continue
		}
		if err := pathConditionsValid(inc.Conditions); err != nil {
			st.addError("IncludeError", "PathMatchConditionsNotValid", "include: %s", err)
			continue
		}
		if err := headerConditionsValid(inc.Conditions); err != nil {
			st.addError("RouteError", "HeaderMatchConditionsNotValid", "%s", err)
			continue
		}
		if err := queryConditionsValid(inc.Conditions); err != nil {
			st.addError("RouteError", "QueryParameterMatchConditionsNotValid", "%s", err)
			continue
		}
		if k := includeConditionsKey(inc.Conditions); k != "" {
			if slices.Contains(seen, k) {
				st.addError("IncludeError", "DuplicateMatchConditions", "duplicate conditions defined on an include")
				continue
			}
			seen = append(seen, k)
		}
		child, ok := p.cache.httpproxyByName[types.NamespacedName{Namespace: ns, Name: inc.Name}]
		switch {
		case !ok:
			st.addError("IncludeError", "IncludeNotFound", "include %s/%s not found", ns, inc.Name)
			routes = append(routes, badGatewayRoute(proxy, inc.Conditions)...)
			continue
		case child.Spec.VirtualHost != nil:
			st.addError("IncludeError", "RootIncludesRoot", "root httpproxy cannot include another root httpproxy (%s/%s)", child.Namespace, child.Name)
			routes = append(routes, badGatewayRoute(proxy, inc.Conditions)...)
			continue
		}
		childStatus := p.status[namespacedName(child)]
		routes = append(routes, p.routes(childStatus, root, child, append(slices.Clone(conds), inc.Conditions...), visited, enforceTLS)...)
		delete(p.orphaned, namespacedName(child))
	}
	return routes
}

// includeConditionsKey identifies an include's conditions for the duplicate
// check; an include with only "/" (or nothing) never counts as a duplicate.
func includeConditionsKey(conds []contourv1.MatchCondition) string {
	var parts []string
	for _, c := range conds {
		switch {
		case c.Prefix != "" && c.Prefix != "/":
			parts = append(parts, "prefix="+c.Prefix)
		case c.Header != nil:
			parts = append(parts, fmt.Sprintf("header=%+v", *c.Header))
		case c.QueryParameter != nil:
			parts = append(parts, fmt.Sprintf("query=%+v", *c.QueryParameter))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// badGatewayRoute answers 502 for an include that cannot be followed.
func badGatewayRoute(proxy *contourv1.HTTPProxy, conds []contourv1.MatchCondition) []*Route {
	if len(conds) == 0 {
		return nil
	}
	return []*Route{{
		PathMatch:      mergePathMatch(conds),
		HeaderMatch:    mergeHeaderMatch(conds),
		QueryMatch:     mergeQueryMatch(conds),
		DirectResponse: &DirectResponse{StatusCode: 502},
		Kind:           "HTTPProxy", Namespace: proxy.Namespace, Name: proxy.Name,
	}}
}

// route builds one route of proxy; ok is false when an error discards the
// proxy's routes.
func (p *httpProxyProcessor) route(st *proxyStatus, root, proxy *contourv1.HTTPProxy, route contourv1.Route, conds []contourv1.MatchCondition, enforceTLS bool) (*Route, bool) {
	actions := 0
	for _, set := range []bool{len(route.Services) > 0, route.RequestRedirectPolicy != nil, route.DirectResponsePolicy != nil} {
		if set {
			actions++
		}
	}
	if actions != 1 {
		st.addError("RouteError", "RouteActionCountNotValid", "must set exactly one of route.services or route.requestRedirectPolicy or route.directResponsePolicy")
		return nil, false
	}
	if err := pathConditionsValid(route.Conditions); err != nil {
		st.addError("RouteError", "PathMatchConditionsNotValid", "route: %s", err)
		return nil, false
	}
	if err := headerConditionsValid(conds); err != nil {
		st.addError("RouteError", "HeaderMatchConditionsNotValid", "%s", err)
		return nil, false
	}
	if err := queryConditionsValid(conds); err != nil {
		st.addError("RouteError", "QueryParameterMatchConditionsNotValid", "%s", err)
		return nil, false
	}
	timeouts, err := httpProxyTimeouts(route.TimeoutPolicy)
	if err != nil {
		st.addError("RouteError", "TimeoutPolicyNotValid", "route.timeoutPolicy failed to parse: %s", err)
		return nil, false
	}
	p.reportUnsupportedRouteFields(proxy, route)
	r := &Route{
		PathMatch:    mergePathMatch(conds),
		HeaderMatch:  mergeHeaderMatch(conds),
		QueryMatch:   mergeQueryMatch(conds),
		Websocket:    route.EnableWebsockets,
		HTTPSUpgrade: enforceTLS && !route.PermitInsecure,
		Timeout:      timeouts,
		Retry:        httpProxyRetryPolicy(route.RetryPolicy),
		Kind:         "HTTPProxy", Namespace: proxy.Namespace, Name: proxy.Name,
	}
	lbPolicy := ""
	if route.LoadBalancerPolicy != nil {
		switch s := route.LoadBalancerPolicy.Strategy; s {
		case "WeightedLeastRequest", "Random", "Cookie":
			lbPolicy = s
		case "RequestHash":
			p.unsupported(proxy, "routes[].loadBalancerPolicy.strategy RequestHash")
		}
	}
	if lbPolicy == "Cookie" {
		r.CookieHashPolicy = true
	}
	if route.DirectResponsePolicy != nil {
		r.DirectResponse = &DirectResponse{StatusCode: uint32(route.DirectResponsePolicy.StatusCode), Body: route.DirectResponsePolicy.Body}
	}
	for _, svc := range route.Services {
		c, fatal := p.cluster(st, proxy, svc, lbPolicy)
		if fatal {
			return nil, false
		}
		if c != nil {
			r.Clusters = append(r.Clusters, c)
		}
	}
	if len(r.Clusters) == 0 && route.RequestRedirectPolicy == nil && route.DirectResponsePolicy == nil {
		r.DirectResponse = &DirectResponse{StatusCode: 503}
	}
	if strings.HasPrefix(root.Spec.VirtualHost.Fqdn, "*.") {
		r.HeaderMatch = append(r.HeaderMatch, wildcardAuthorityMatch(root.Spec.VirtualHost.Fqdn))
	}
	return r, true
}

// cluster resolves one route service. An unresolvable Service is skipped
// (non-fatal); a bad port or protocol discards the proxy's routes.
func (p *httpProxyProcessor) cluster(st *proxyStatus, proxy *contourv1.HTTPProxy, svc contourv1.Service, lbPolicy string) (c *Cluster, fatal bool) {
	if svc.Port < 1 || svc.Port > 65535 {
		st.addError("ServiceError", "ServicePortInvalid", "service %q: port must be in the range 1-65535", svc.Name)
		return nil, true
	}
	s, err := p.cache.service(types.NamespacedName{Namespace: proxy.Namespace, Name: svc.Name}, intstr.FromInt(svc.Port))
	if err != nil {
		st.addError("ServiceError", "ServiceUnresolvedReference", "Spec.Routes unresolved service reference: %s", err)
		return nil, false
	}
	protocol := s.Protocol
	if svc.Protocol != nil {
		protocol = *svc.Protocol
		if protocol != "h2" && protocol != "h2c" && protocol != "tls" {
			st.addError("ServiceError", "UnsupportedProtocol", "unsupported protocol: %v", protocol)
			return nil, true
		}
	}
	if svc.Mirror {
		p.unsupported(proxy, "routes[].services[].mirror")
		return nil, false
	}
	return &Cluster{Upstream: s, Protocol: protocol, Weight: uint32(svc.Weight), LoadBalancerPolicy: lbPolicy}, false
}

// reportUnsupportedRouteFields tells the user which route features contourc
// does not translate yet.
func (p *httpProxyProcessor) reportUnsupportedRouteFields(proxy *contourv1.HTTPProxy, route contourv1.Route) {
	idleConn := route.TimeoutPolicy != nil && route.TimeoutPolicy.IdleConnection != ""
	perService := false
	for _, s := range route.Services {
		perService = perService || s.RequestHeadersPolicy != nil || s.ResponseHeadersPolicy != nil || s.UpstreamValidation != nil ||
			len(s.CookieRewritePolicies) > 0 || s.SlowStartPolicy != nil || s.HealthPort != 0
	}
	for field, set := range map[string]bool{
		"routes[].requestHeadersPolicy/responseHeadersPolicy":                          route.RequestHeadersPolicy != nil || route.ResponseHeadersPolicy != nil,
		"routes[].pathRewritePolicy":                                                   route.PathRewritePolicy != nil,
		"routes[].requestRedirectPolicy":                                               route.RequestRedirectPolicy != nil,
		"routes[].internalRedirectPolicy":                                              route.InternalRedirectPolicy != nil,
		"routes[].healthCheckPolicy":                                                   route.HealthCheckPolicy != nil,
		"routes[].rateLimitPolicy":                                                     route.RateLimitPolicy != nil,
		"routes[].cookieRewritePolicies":                                               len(route.CookieRewritePolicies) > 0,
		"routes[].ipAllowPolicy/ipDenyPolicy":                                          len(route.IPAllowFilterPolicy)+len(route.IPDenyFilterPolicy) > 0,
		"routes[].jwtVerificationPolicy":                                               route.JWTVerificationPolicy != nil,
		"routes[].authPolicy":                                                          route.AuthPolicy != nil,
		"routes[].timeoutPolicy.idleConnection":                                        idleConn,
		"routes[].services[] header/cookie/validation/slow-start/health-port policies": perService,
	} {
		if set {
			p.unsupported(proxy, field)
		}
	}
}

// httpProxyTimeouts parses a route's response and idle timeouts.
func httpProxyTimeouts(tp *contourv1.TimeoutPolicy) (RouteTimeout, error) {
	if tp == nil {
		return RouteTimeout{}, nil
	}
	response, err := parseTimeout(tp.Response)
	if err != nil {
		return RouteTimeout{}, fmt.Errorf("error parsing response timeout: %w", err)
	}
	idle, err := parseTimeout(tp.Idle)
	if err != nil {
		return RouteTimeout{}, fmt.Errorf("error parsing idle timeout: %w", err)
	}
	if _, err := parseTimeout(tp.IdleConnection); err != nil {
		return RouteTimeout{}, fmt.Errorf("error parsing idle connection timeout: %w", err)
	}
	return RouteTimeout{Response: response, Idle: idle}, nil
}

// httpProxyRetryPolicy: retryOn defaults to 5xx; count -1 disables
// retries, 0 and 1 mean 1; an unparsable perTryTimeout is left out.
func httpProxyRetryPolicy(rp *contourv1.RetryPolicy) *RetryPolicy {
	if rp == nil {
		return nil
	}
	on := "5xx"
	if len(rp.RetryOn) > 0 {
		parts := make([]string, len(rp.RetryOn))
		for i, v := range rp.RetryOn {
			parts[i] = string(v)
		}
		on = strings.Join(parts, ",")
	}
	n := rp.NumRetries
	switch n {
	case -1:
		n = 0
	case 0:
		n = 1
	}
	out := &RetryPolicy{RetryOn: on, NumRetries: uint32(n), RetriableStatusCodes: rp.RetriableStatusCodes}
	if d, err := timeDuration(rp.PerTryTimeout); err == nil {
		out.PerTryTimeout = Timeout{Set: true, Duration: d}
	}
	return out
}
