package translate

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/translate/dag"
)

// The HTTPProxy processor: root HTTPProxies become virtual hosts, their
// routes and those of the proxies they include become routes, and every
// HTTPProxy gets the status Contour would write.

type httpProxyProcessor struct {
	dag            *DAG
	cache          *cache
	status         statuses
	rootNamespaces []string
	// disablePermitInsecure ignores routes' permitInsecure (configuration).
	disablePermitInsecure bool
	// settings are the configuration's (nil: Contour's defaults).
	settings *settings
	orphaned map[types.NamespacedName]bool
	// apart says each root can be processed on its own, in parallel
	// (rootsApart); memo, when set, takes roots' work from a Memo and
	// records it; recording is the record of the root being processed
	// apart (httpproxy_memo.go).
	apart     bool
	memo      *rootMemo
	recording *rootRun
}

func (p *httpProxyProcessor) run() {
	p.orphaned = map[types.NamespacedName]bool{}
	var roots []*contourv1.HTTPProxy
	for _, proxy := range p.cache.httpproxies {
		key := namespacedName(proxy)
		p.status[statusKey{"HTTPProxy", key}] = &proxyStatus{generation: proxy.Generation}
		if proxy.Spec.VirtualHost == nil {
			p.orphaned[key] = true
			continue
		}
		roots = append(roots, proxy)
	}
	if unique := p.uniqueFQDNs(roots); p.apart {
		p.rootsApart(unique)
	} else {
		for _, root := range unique {
			p.root(root)
		}
	}
	for key := range p.orphaned {
		p.status.forProxy(key).addError("Orphaned", "Orphaned", orphanMessage)
	}
}

// uniqueFQDNs returns the roots whose fqdn (compared case-insensitively) no
// other root uses; every root sharing an fqdn is invalid.
func (p *httpProxyProcessor) uniqueFQDNs(roots []*contourv1.HTTPProxy) []*contourv1.HTTPProxy {
	// Counted first, and the names of the HTTPProxies sharing one listed
	// only for those: a list per fqdn was 4 ms of every reload at 5,000.
	fqdns := make([]string, len(roots))
	count := make(map[string]int, len(roots))
	for i, r := range roots {
		fqdns[i] = strings.ToLower(r.Spec.VirtualHost.Fqdn)
		count[fqdns[i]]++
	}
	var shared map[string][]string
	unique := make([]*contourv1.HTTPProxy, 0, len(roots))
	for i, r := range roots {
		if count[fqdns[i]] == 1 {
			unique = append(unique, r)
		} else if shared == nil {
			shared = sharingNames(roots, fqdns, count)
		}
	}
	for i, r := range roots {
		if names := shared[fqdns[i]]; names != nil {
			p.status.forProxy(namespacedName(r)).addError("VirtualHostError", "DuplicateVhost",
				"fqdn %q is used in multiple HTTPProxies: %s", fqdns[i], strings.Join(names, ", "))
		}
	}
	return unique
}

// sharingNames lists, for each fqdn more than one of roots has, their
// names sorted; fqdns are the roots' fqdns and count how many have each.
func sharingNames(roots []*contourv1.HTTPProxy, fqdns []string, count map[string]int) map[string][]string {
	shared := map[string][]string{}
	for i, r := range roots {
		if count[fqdns[i]] > 1 {
			shared[fqdns[i]] = append(shared[fqdns[i]], namespacedName(r).String())
		}
	}
	for _, names := range shared {
		sort.Strings(names)
	}
	return shared
}

// root programs one root HTTPProxy's virtual host(s).
func (p *httpProxyProcessor) root(proxy *contourv1.HTTPProxy) {
	st := p.status.forProxy(namespacedName(proxy))
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
	if len(vh.JWTProviders) > 0 && (vh.TLS == nil || vh.TLS.SecretName == "") {
		st.addError("JWTVerificationError", "JWTVerificationNotPermitted", "Spec.VirtualHost.JWTProviders can only be defined for root HTTPProxies that terminate TLS")
		return
	}
	if vh.TLS == nil && vh.Authorization != nil && vh.Authorization.ExtensionServiceRef.Name != "" {
		st.addError("AuthError", "AuthNotPermitted", "Spec.VirtualHost.Authorization.ExtensionServiceRef can only be defined for root HTTPProxies that terminate TLS")
		return
	}
	if len(vh.IPAllowFilterPolicy) > 0 && len(vh.IPDenyFilterPolicy) > 0 {
		st.addError("IPFilterError", "IncompatibleIPAddressFilters", "Spec.VirtualHost.IPAllowFilterPolicy and Spec.VirtualHost.IPDepnyFilterPolicy cannot both be defined.")
		return
	}
	var secure *SecureVirtualHost
	if vh.TLS != nil {
		var ok bool
		if secure, ok = p.secureVirtualHost(st, proxy); !ok {
			return
		}
	}
	if proxy.Spec.TCPProxy != nil {
		if secure == nil {
			st.addError("TCPProxyError", "TLSMustBeConfigured", "Spec.TCPProxy requires that either Spec.TLS.Passthrough or Spec.TLS.SecretName be set")
			return
		}
		tcp, ok := p.tcpProxy(st, proxy, &includePath{})
		if !ok {
			return
		}
		secure.TCPProxy = tcp // nil when the included proxy has no tcpproxy
	}

	routes := p.routes(st, proxy, proxy, secure != nil)
	if http := p.dag.listener("http"); http != nil {
		insecure := http.ensureVirtualHost(host)
		if !p.virtualHostPolicies(st, proxy, insecure) {
			return
		}
		p.checkGlobalAuthorization(st, proxy)
		for _, r := range routes {
			insecure.addRoute(r)
		}
	}
	// With a TCP proxy, routes only serve plain HTTP (mostly redirects).
	if secure != nil && proxy.Spec.TCPProxy == nil {
		if !p.virtualHostPolicies(st, proxy, &secure.VirtualHost) {
			return
		}
		for _, r := range routes {
			secure.addRoute(r)
		}
		checkRouteJWTProviders(st, secure, routes)
	}
}

// virtualHostPolicies sets a virtual host's CORS, rate-limit and IP filter
// policies; false means an error stops the proxy.
func (p *httpProxyProcessor) virtualHostPolicies(st *proxyStatus, proxy *contourv1.HTTPProxy, vh *VirtualHost) bool {
	spec := proxy.Spec.VirtualHost
	var err error
	if vh.CORS, err = corsPolicy(spec.CORSPolicy); err != nil {
		st.addError("CORSError", "PolicyDidNotParse", "Spec.VirtualHost.CORSPolicy: %s", err)
		return false
	}
	if vh.RateLimit, err = rateLimitPolicy(spec.RateLimitPolicy); err != nil {
		st.addError("VirtualHostError", "RateLimitPolicyNotValid", "Spec.VirtualHost.RateLimitPolicy is invalid: %s", err)
		return false
	}
	if vh.RateLimit, err = withDefaultGlobalRateLimit(vh.RateLimit, spec.RateLimitPolicy, p.settings); err != nil {
		st.addError("VirtualHostError", "RateLimitPolicyNotValid", "Default Global RateLimit Policy is invalid: %s", err)
		return false
	}
	if vh.IPFilter, err = ipFilter(spec.IPAllowFilterPolicy, spec.IPDenyFilterPolicy, st); err != nil {
		st.addError("IPFilterError", "IPFilterPolicyNotValid", "Spec.VirtualHost.IPAllowFilterPolicy or Spec.VirtualHost.IPDenyFilterPolicy is invalid: %s", err)
		return false
	}
	return true
}

// secureVirtualHost validates a root's TLS settings and creates its secure
// virtual host; ok is false when an error stops the proxy.
func (p *httpProxyProcessor) secureVirtualHost(st *proxyStatus, proxy *contourv1.HTTPProxy) (*SecureVirtualHost, bool) {
	tls := proxy.Spec.VirtualHost.TLS
	fail := func(reason, format string, args ...any) (*SecureVirtualHost, bool) {
		st.addError("TLSError", reason, format, args...)
		return nil, false
	}
	if tls.Passthrough && tls.EnableFallbackCertificate {
		// Reported, but Contour still programs the proxy.
		st.addError("TLSError", "TLSIncompatibleFeatures", "Spec.VirtualHost.TLS: both Passthrough and enableFallbackCertificate were specified")
	}
	switch {
	case tls.SecretName != "" && tls.Passthrough:
		return fail("TLSConfigNotValid", "Spec.VirtualHost.TLS: both Passthrough and SecretName were specified")
	case tls.SecretName == "" && !tls.Passthrough:
		return fail("TLSConfigNotValid", "Spec.VirtualHost.TLS: neither Passthrough nor SecretName were specified")
	case tls.Passthrough && tls.ClientValidation != nil:
		return fail("TLSIncompatibleFeatures", "Spec.VirtualHost.TLS passthrough cannot be combined with tls.clientValidation")
	}
	https := p.dag.listener("https")
	if https == nil {
		st.addError("ListenerError", "ErrorIdentifyingListener", "more than one https listener configured")
		return nil, false
	}
	if tls.Passthrough {
		return https.ensureSecureVirtualHost(proxy.Spec.VirtualHost.Fqdn), true
	}
	secret, err := p.cache.lookupTLSSecret(secretReference(tls.SecretName, "", proxy.Namespace), proxy.Namespace)
	if err != nil {
		if _, ok := err.(errDelegationNotPermitted); ok {
			return fail("DelegationNotPermitted", "Spec.VirtualHost.TLS Secret %q certificate delegation not permitted", tls.SecretName)
		}
		return fail("SecretNotValid", "Spec.VirtualHost.TLS Secret %q is invalid: %s", tls.SecretName, err)
	}
	minTLS := tlsVersionAnnotation(tls.MinimumProtocolVersion, "1.2")
	maxTLS := tlsVersionAnnotation(tls.MaximumProtocolVersion, "1.3")
	if maxTLS < minTLS {
		return fail("TLSConfigNotValid", "Spec.Virtualhost.TLS the minimum protocol version is greater than the maximum protocol version")
	}
	svh := https.ensureSecureVirtualHost(proxy.Spec.VirtualHost.Fqdn)
	svh.Secret, svh.MinTLSVersion, svh.MaxTLSVersion = secret, minTLS, maxTLS
	vh := proxy.Spec.VirtualHost
	switch {
	case tls.EnableFallbackCertificate && tls.ClientValidation != nil:
		return fail("TLSIncompatibleFeatures", "Spec.Virtualhost.TLS fallback & client validation are incompatible")
	case tls.EnableFallbackCertificate && vh.Authorization != nil:
		return fail("TLSIncompatibleFeatures", "Spec.Virtualhost.TLS fallback & client authorization are incompatible")
	case tls.EnableFallbackCertificate && len(vh.JWTProviders) > 0:
		return fail("TLSIncompatibleFeatures", "Spec.Virtualhost.TLS fallback & JWT providers are incompatible")
	case tls.EnableFallbackCertificate && (p.settings == nil || p.settings.fallbackCert == nil):
		return fail("FallbackNotPresent", "Spec.Virtualhost.TLS enabled fallback but the fallback Certificate Secret is not configured in Contour configuration file")
	case tls.EnableFallbackCertificate:
		ref := p.settings.fallbackCert
		sec, err := p.cache.lookupTLSSecret(*ref, proxy.Namespace)
		if _, denied := err.(errDelegationNotPermitted); denied {
			return fail("FallbackNotDelegated", "Spec.VirtualHost.TLS Secret %q is not configured for certificate delegation", ref)
		} else if err != nil {
			return fail("FallbackNotValid", "Spec.Virtualhost.TLS Secret %q fallback certificate is invalid: %s", ref, err)
		}
		svh.FallbackCertificate = sec
	}
	if cv := tls.ClientValidation; cv != nil {
		v, ok := p.clientValidation(st, proxy, cv)
		if !ok {
			return nil, false
		}
		svh.ClientValidation = v
	}
	auth, ok := p.externalAuthorization(st, proxy)
	if !ok {
		return nil, false
	}
	svh.Authorization = auth
	if !p.jwtProviders(st, proxy, svh) {
		return nil, false
	}
	return svh, true
}

// clientValidation resolves the CA and CRL of a secure virtual host's client
// certificate validation. A missing CA is reported but, as in Contour, does
// not stop the proxy.
func (p *httpProxyProcessor) clientValidation(st *proxyStatus, proxy *contourv1.HTTPProxy, cv *contourv1.DownstreamValidation) (*ClientValidation, bool) {
	out := &ClientValidation{SkipValidation: cv.SkipClientCertValidation, Optional: cv.OptionalClientCertificate}
	if f := cv.ForwardClientCertificate; f != nil {
		out.Forward = &dag.ForwardClientCert{Subject: f.Subject, Cert: f.Cert, Chain: f.Chain, DNS: f.DNS, URI: f.URI}
	}
	lookup := func(ref, what string, get func(types.NamespacedName, string) ([]byte, error)) ([]byte, bool) {
		name := secretReference(ref, "", proxy.Namespace)
		data, err := get(name, proxy.Namespace)
		if _, denied := err.(errDelegationNotPermitted); denied {
			st.addError("TLSError", "DelegationNotPermitted", "Spec.VirtualHost.TLS %s Secret %q is invalid: %s", what, ref, err)
			return nil, false
		}
		if err != nil {
			st.addError("TLSError", "ClientValidationInvalid", "Spec.VirtualHost.TLS client validation is invalid: invalid %s Secret %q: %s", what, name, err)
			return nil, false
		}
		return data, true
	}
	var ok bool
	switch {
	case cv.CACertificate != "":
		if out.CACert, ok = lookup(cv.CACertificate, "CA", p.cache.lookupCASecret); !ok {
			return nil, false
		}
	case !cv.SkipClientCertValidation:
		st.addError("TLSError", "ClientValidationInvalid", "Spec.VirtualHost.TLS client validation is invalid: CA Secret must be specified")
	}
	if cv.CertificateRevocationList != "" {
		if out.CRL, ok = lookup(cv.CertificateRevocationList, "CRL", p.cache.lookupCRLSecret); !ok {
			return nil, false
		}
		out.OnlyVerifyLeafCertCRL = cv.OnlyVerifyLeafCertCrl
	}
	return out, true
}

// tcpProxy resolves a proxy's tcpproxy: services of its own, or those of
// the non-root proxy it includes (followed transitively).
func (p *httpProxyProcessor) tcpProxy(st *proxyStatus, proxy *contourv1.HTTPProxy, path *includePath) (*TCPProxy, bool) {
	tp := proxy.Spec.TCPProxy
	path.push(namespacedName(proxy))
	defer path.pop()
	include := tp.Include
	if include == nil {
		include = tp.IncludesDeprecated
	}
	fail := func(errType, reason, format string, args ...any) (*TCPProxy, bool) {
		st.addError(errType, reason, format, args...)
		return nil, false
	}
	if len(tp.Services) > 0 && include != nil {
		return fail("TCPProxyError", "NoServicesAndInclude", "cannot specify services and include in the same httpproxy")
	}
	lbPolicy := ""
	if lb := tp.LoadBalancerPolicy; lb != nil {
		switch lb.Strategy {
		case "WeightedLeastRequest", "Random":
			lbPolicy = lb.Strategy
		case "Cookie", "RequestHash":
			// Hashing needs HTTP; the strategy is ignored, not its policies.
			st.addWarning("TCPProxyError", "IgnoredField", "ignoring field %q; %s load balancer policy is not supported for TCPProxies", "Spec.TCPProxy.LoadBalancerPolicy", lb.Strategy)
		}
	}
	if len(tp.Services) > 0 {
		out := &TCPProxy{}
		health := tcpHealthCheck(tp.HealthCheckPolicy)
		for _, svc := range tp.Services {
			healthPort := svc.Port
			if health != nil && svc.HealthPort > 0 {
				healthPort = svc.HealthPort
			}
			s, err := p.cache.serviceWithHealthPort(types.NamespacedName{Namespace: proxy.Namespace, Name: svc.Name}, svc.Port, healthPort)
			if err != nil {
				return fail("TCPProxyError", "ServiceUnresolvedReference", "Spec.TCPProxy unresolved service reference: %s", err)
			}
			protocol := s.Protocol
			if svc.Protocol != nil {
				if protocol = *svc.Protocol; protocol != "h2" && protocol != "h2c" && protocol != "tls" {
					return fail("ServiceError", "UnsupportedProtocol", "unsupported protocol: %v", protocol)
				}
			}
			c := &Cluster{Upstream: s, Weight: uint32(svc.Weight), Protocol: protocol, LoadBalancerPolicy: lbPolicy, TCPHealthCheck: health, SNI: s.ExternalName, httpProxyTCP: true}
			if c.ClientCertificate, err = p.cache.clientCertificate(); err != nil {
				return fail("TLSError", "SecretNotValid", "tls.envoy-client-certificate Secret %q is invalid: %s", p.settings.clientCert, err)
			}
			if uv := svc.UpstreamValidation; uv != nil && (protocol == "tls" || protocol == "h2") {
				v, err := p.cache.upstreamValidation(uv, proxy.Namespace)
				if e, denied := err.(errDelegationNotPermitted); denied {
					return fail("TLSError", "CACertificateNotDelegated", "service.UpstreamValidation.CACertificate Secret %q is not configured for certificate delegation", e.secret.String())
				} else if err != nil {
					return fail("ServiceError", "TLSUpstreamValidation", "Service [%s:%d] TLS upstream validation policy error: %s", svc.Name, svc.Port, err)
				}
				c.Validation = v
			}
			out.Clusters = append(out.Clusters, c)
		}
		return out, true
	}
	if include == nil {
		return fail("TCPProxyError", "NothingDefined", "either services or inclusion must be specified")
	}
	ns := include.Namespace
	if ns == "" {
		ns = proxy.Namespace
	}
	key := types.NamespacedName{Namespace: ns, Name: include.Name}
	child, ok := p.proxyByName(key)
	switch {
	case !ok:
		return fail("TCPProxyIncludeError", "IncludeNotFound", "include %s/%s not found", ns, include.Name)
	case child.Spec.VirtualHost != nil:
		return fail("TCPProxyIncludeError", "RootIncludesRoot", "root httpproxy cannot include another root httpproxy (%s/%s)", child.Namespace, child.Name)
	}
	p.unorphan(key)
	if path.contains(key) {
		return fail("TCPProxyIncludeError", "IncludeCreatesCycle", "include creates a cycle: %s", path.cycle(key))
	}
	if child.Spec.TCPProxy == nil {
		// Contour finds nothing to do: no error, and nothing is forwarded.
		return nil, true
	}
	return visit(p, key, child.Generation, func(st *proxyStatus) (*TCPProxy, bool) {
		return p.tcpProxy(st, child, path)
	})
}

// routes computes the routes of proxy and of the proxies it includes, with
// the include chain's conditions. An error in a proxy's own routes discards
// all of them (its includes' routes too), as in Contour.
func (p *httpProxyProcessor) routes(st *proxyStatus, root, proxy *contourv1.HTTPProxy, enforceTLS bool) []*Route {
	var routes []*Route
	p.collectRoutes(st, root, proxy, includeConditions{}, &includePath{}, enforceTLS, &routes)
	return routes
}

// collectRoutes appends the routes of proxy and of the proxies it
// includes to out, which the whole walk shares: a proxy's routes are the
// tail it added. Returning them proxy by proxy copied every route into
// the slice of each of its ancestors, quadratic in a chain's depth.
func (p *httpProxyProcessor) collectRoutes(st *proxyStatus, root, proxy *contourv1.HTTPProxy, conds includeConditions, path *includePath, enforceTLS bool, out *[]*Route) {
	key := namespacedName(proxy)
	if path.contains(key) {
		st.addError("IncludeError", "IncludeCreatesCycle", "include creates an include cycle: %s", path.cycle(key))
		return
	}
	path.push(key)
	defer path.pop()
	start := len(*out)
	p.includedRoutes(st, root, proxy, conds, path, enforceTLS, out)
	included := len(*out) - start
	dynamic := map[string]string{"CONTOUR_NAMESPACE": proxy.Namespace}
	for _, route := range proxy.Spec.Routes {
		r, ok := p.route(st, root, proxy, route, conds.conditions(route.Conditions), enforceTLS, dynamic)
		if !ok {
			*out = (*out)[:start]
			return
		}
		*out = append(*out, r)
	}
	*out = append((*out)[:start], expandPrefixRewrites((*out)[start:], included)...)
}

// visit processes an included proxy with a fresh status and keeps it, as
// Contour keeps the status of each visit: the latest, unless an earlier
// visit found errors and this one none.
func visit[T any](p *httpProxyProcessor, key types.NamespacedName, generation int64, f func(*proxyStatus) (T, bool)) (T, bool) {
	fresh := &proxyStatus{generation: generation}
	out, ok := f(fresh)
	p.keepVisit(key, fresh)
	p.did(rootEffect{name: key, visit: fresh})
	return out, ok
}

// keepVisit keeps the status of a visit of the HTTPProxy key, as visit
// says.
func (p *httpProxyProcessor) keepVisit(key types.NamespacedName, fresh *proxyStatus) {
	skey := statusKey{"HTTPProxy", key}
	if old := p.status[skey]; old == nil || old.valid() || !fresh.valid() || !old.visited {
		p.status[skey] = fresh
	}
	fresh.visited = true
}

// proxyByName looks an included HTTPProxy up.
func (p *httpProxyProcessor) proxyByName(key types.NamespacedName) (*contourv1.HTTPProxy, bool) {
	p.lookedUp(key)
	child, ok := p.cache.httpproxyByName[key]
	return child, ok
}

// unorphan takes key off the orphans: a root includes it.
func (p *httpProxyProcessor) unorphan(key types.NamespacedName) {
	delete(p.orphaned, key)
	p.did(rootEffect{name: key})
}

// includedRoutes follows proxy's includes. A bad include is skipped; a
// missing include or one of a root gets a 502 route for its conditions.
func (p *httpProxyProcessor) includedRoutes(st *proxyStatus, root, proxy *contourv1.HTTPProxy, conds includeConditions, path *includePath, enforceTLS bool, out *[]*Route) {
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
		child, ok := p.proxyByName(types.NamespacedName{Namespace: ns, Name: inc.Name})
		switch {
		case !ok:
			st.addError("IncludeError", "IncludeNotFound", "include %s/%s not found", ns, inc.Name)
			*out = append(*out, badGatewayRoute(proxy, inc.Conditions)...)
			continue
		case child.Spec.VirtualHost != nil:
			st.addError("IncludeError", "RootIncludesRoot", "root httpproxy cannot include another root httpproxy (%s/%s)", child.Namespace, child.Name)
			*out = append(*out, badGatewayRoute(proxy, inc.Conditions)...)
			continue
		}
		visit(p, namespacedName(child), child.Generation, func(st *proxyStatus) (struct{}, bool) {
			p.collectRoutes(st, root, child, conds.with(inc.Conditions), path, enforceTLS, out)
			return struct{}{}, true
		})
		p.unorphan(namespacedName(child))
	}
}

// includeConditionsKey identifies an include's conditions for the duplicate
// check, as Contour compares them: after merging (repeated slashes
// collapsed, header matches in their DAG form), ignoring order. A lone "/"
// (or no condition) is never a duplicate, so it has no key.
func includeConditionsKey(conds []contourv1.MatchCondition) string {
	path := mergeIncludePath(conds)
	headers, queries := mergeHeaderMatch(conds), mergeQueryMatch(conds)
	if path.Value == "/" && len(headers) == 0 && len(queries) == 0 {
		return ""
	}
	parts := make([]string, 0, len(headers)+len(queries))
	for _, h := range headers {
		parts = append(parts, fmt.Sprintf("header=%+v", h))
	}
	for _, q := range queries {
		parts = append(parts, fmt.Sprintf("query=%+v", q))
	}
	sort.Strings(parts)
	return "prefix=" + path.Value + "," + strings.Join(parts, ",")
}

// badGatewayRoute answers 502 for an include that cannot be followed.
func badGatewayRoute(proxy *contourv1.HTTPProxy, conds []contourv1.MatchCondition) []*Route {
	if len(conds) == 0 {
		return nil
	}
	return []*Route{{
		PathMatch:      mergeIncludePath(conds),
		HeaderMatch:    mergeHeaderMatch(conds),
		QueryMatch:     mergeQueryMatch(conds),
		DirectResponse: &dag.DirectResponse{StatusCode: 502},
		Kind:           "HTTPProxy", Namespace: proxy.Namespace, Name: proxy.Name,
	}}
}

// route builds one route of proxy; ok is false when an error discards the
// proxy's routes. The checks run in Contour's order, so that the first
// error reported is the one Contour reports.
func (p *httpProxyProcessor) route(st *proxyStatus, root, proxy *contourv1.HTTPProxy, route contourv1.Route, conds []contourv1.MatchCondition, enforceTLS bool, dynamic map[string]string) (*Route, bool) {
	fail := func(errType, reason, format string, args ...any) (*Route, bool) {
		st.addError(errType, reason, format, args...)
		return nil, false
	}
	actions := 0
	for _, set := range []bool{len(route.Services) > 0, route.RequestRedirectPolicy != nil, route.DirectResponsePolicy != nil} {
		if set {
			actions++
		}
	}
	if actions != 1 {
		return fail("RouteError", "RouteActionCountNotValid", "must set exactly one of route.services or route.requestRedirectPolicy or route.directResponsePolicy")
	}
	if err := pathConditionsValid(route.Conditions); err != nil {
		return fail("RouteError", "PathMatchConditionsNotValid", "route: %s", err)
	}
	if err := headerConditionsValid(conds); err != nil {
		return fail("RouteError", "HeaderMatchConditionsNotValid", "%s", err)
	}
	if err := queryConditionsValid(conds); err != nil {
		return fail("RouteError", "QueryParameterMatchConditionsNotValid", "%s", err)
	}
	reqHeaders, err := headersPolicy(route.RequestHeadersPolicy, true, dynamic)
	if err != nil {
		return fail("RouteError", "RequestHeadersPolicyInvalid", "%s on request headers", err)
	}
	respHeaders, err := headersPolicy(route.ResponseHeadersPolicy, false, dynamic)
	if err != nil {
		return fail("RouteError", "ResponseHeaderPolicyInvalid", "%s on response headers", err)
	}
	cookies, err := cookieRewrites(route.CookieRewritePolicies)
	if err != nil {
		return fail("RouteError", "CookieRewritePoliciesInvalid", "%s on route cookie rewrite rules", err)
	}
	timeouts, idleConnection, err := httpProxyTimeouts(route.TimeoutPolicy)
	if err != nil {
		return fail("RouteError", "TimeoutPolicyNotValid", "route.timeoutPolicy failed to parse: %s", err)
	}
	rateLimit, err := rateLimitPolicy(route.RateLimitPolicy)
	if err != nil {
		return fail("RouteError", "RateLimitPolicyNotValid", "route.rateLimitPolicy is invalid: %s", err)
	}
	lbPolicy, hashPolicies := loadBalancing(route.LoadBalancerPolicy, st)
	redirect, err := redirectPolicy(route.RequestRedirectPolicy)
	if err != nil {
		return fail("RouteError", "RequestRedirectPolicy", "route.requestRedirectPolicy is invalid: %s", err)
	}
	path, err := mergePathMatch(conds)
	if err != nil {
		return fail("RouteError", "PathMatchConditionsNotValid", "route: %s", err)
	}
	r := &Route{
		PathMatch:                   path,
		HeaderMatch:                 mergeHeaderMatch(conds),
		QueryMatch:                  mergeQueryMatch(conds),
		Websocket:                   route.EnableWebsockets,
		HTTPSUpgrade:                enforceTLS && !(route.PermitInsecure && !p.disablePermitInsecure),
		Timeout:                     timeouts,
		Retry:                       httpProxyRetryPolicy(route.RetryPolicy),
		RequestHeaders:              reqHeaders,
		ResponseHeaders:             respHeaders,
		CookieRewrites:              cookies,
		RequestHashPolicies:         hashPolicies,
		Redirect:                    redirect,
		InternalRedirect:            internalRedirectPolicy(route.InternalRedirectPolicy),
		RateLimit:                   rateLimit,
		IgnoreVirtualHostRateLimits: route.RateLimitPolicy != nil && route.RateLimitPolicy.Global != nil && route.RateLimitPolicy.Global.Disabled,
		Kind:                        "HTTPProxy", Namespace: proxy.Namespace, Name: proxy.Name,
	}
	routeAuthorization(r, root, route, p.globalAuth())
	if d := route.DirectResponsePolicy; d != nil {
		r.DirectResponse = &dag.DirectResponse{StatusCode: uint32(d.StatusCode), Body: d.Body}
	}
	if rp := route.PathRewritePolicy; rp != nil && len(rp.ReplacePrefix) > 0 {
		if r.PathMatch.Kind != dag.PathPrefix {
			return fail("PrefixReplaceError", "MustHavePrefix", "cannot specify prefix replacements without a prefix condition")
		}
		if reason, err := prefixReplacementsValid(rp.ReplacePrefix); err != nil {
			return fail("PrefixReplaceError", reason, "%s", err)
		}
		r.PathRewrite = prefixRewrite(rp.ReplacePrefix, r.PathMatch.Value)
	}
	health, err := httpHealthCheck(route.HealthCheckPolicy)
	if err != nil {
		return fail("RouteError", "HealthCheckPolicyInvalid", "%s", err)
	}
	for _, svc := range route.Services {
		c, ok := p.cluster(st, proxy, svc, r, clusterSettings{lbPolicy: lbPolicy, health: health, idleConnection: idleConnection}, dynamic)
		if !ok {
			return nil, false
		}
		switch {
		case c == nil:
		case svc.Mirror && len(r.Mirrors) > 0:
			return fail("ServiceError", "OnlyOneMirror", "only one service per route may be nominated as mirror")
		case svc.Mirror:
			// An unset (or 0) weight mirrors everything.
			percent := uint32(svc.Weight)
			if percent == 0 {
				percent = 100
			}
			r.Mirrors = []*MirrorPolicy{{Cluster: c, Percent: percent}}
		default:
			r.Clusters = append(r.Clusters, c)
		}
	}
	if len(r.Clusters) == 0 && route.RequestRedirectPolicy == nil && route.DirectResponsePolicy == nil {
		r.DirectResponse = &dag.DirectResponse{StatusCode: 503}
	}
	if strings.HasPrefix(root.Spec.VirtualHost.Fqdn, "*.") {
		r.HeaderMatch = append(r.HeaderMatch, wildcardAuthorityMatch(root.Spec.VirtualHost.Fqdn))
	}
	if !routeJWTProvider(st, r, root, route) {
		return nil, false
	}
	if r.IPFilter, err = ipFilter(route.IPAllowFilterPolicy, route.IPDenyFilterPolicy, st); err != nil {
		return nil, false
	}
	return r, true
}

// clusterSettings are the route-level settings every cluster of a route
// shares.
type clusterSettings struct {
	lbPolicy       string
	health         *dag.HTTPHealthCheck
	idleConnection dag.Timeout
}

// cluster resolves one route service. A nil cluster with ok means the
// Service could not be resolved (skipped, not fatal); !ok means an error
// discards the proxy's routes.
func (p *httpProxyProcessor) cluster(st *proxyStatus, proxy *contourv1.HTTPProxy, svc contourv1.Service, r *Route, cs clusterSettings, dynamic map[string]string) (*Cluster, bool) {
	if svc.Port < 1 || svc.Port > 65535 {
		st.addError("ServiceError", "ServicePortInvalid", "service %q: port must be in the range 1-65535", svc.Name)
		return nil, false
	}
	name := types.NamespacedName{Namespace: proxy.Namespace, Name: svc.Name}
	healthPort := svc.Port
	if cs.health != nil && svc.HealthPort > 0 {
		healthPort = svc.HealthPort
	}
	s, err := p.cache.serviceWithHealthPort(name, svc.Port, healthPort)
	if err != nil {
		st.addError("ServiceError", "ServiceUnresolvedReference", "Spec.Routes unresolved service reference: %s", err)
		return nil, true
	}
	s = p.cache.withDefaultCircuitBreakers(s)
	protocol := s.Protocol
	if svc.Protocol != nil {
		protocol = *svc.Protocol
		if protocol != "h2" && protocol != "h2c" && protocol != "tls" {
			st.addError("ServiceError", "UnsupportedProtocol", "unsupported protocol: %v", protocol)
			return nil, false
		}
	}
	c := &Cluster{
		Upstream: s, Protocol: protocol, Weight: uint32(svc.Weight), LoadBalancerPolicy: cs.lbPolicy,
		HealthCheck: cs.health, IdleConnectionTimeout: cs.idleConnection,
	}
	if p.settings != nil {
		c.DNSLookupFamily = p.settings.dnsLookupFamily
	}
	// Upstream validation only applies to Services that speak TLS.
	if uv := svc.UpstreamValidation; uv != nil && (protocol == "tls" || protocol == "h2") {
		v, err := p.cache.upstreamValidation(uv, proxy.Namespace)
		if err != nil {
			if e, ok := err.(errDelegationNotPermitted); ok {
				st.addError("TLSError", "CACertificateNotDelegated", "service.UpstreamValidation.CACertificate Secret %q is not configured for certificate delegation", e.secret.String())
			} else {
				st.addError("ServiceError", "TLSUpstreamValidation", "Service [%s:%d] TLS upstream validation policy error: %s", svc.Name, svc.Port, err)
			}
			return nil, false
		}
		c.Validation = v
	}
	// Contour shares these variables across the proxy's routes, so a route's
	// own header policy sees the previous route's last service.
	dynamic["CONTOUR_SERVICE_NAME"] = svc.Name
	dynamic["CONTOUR_SERVICE_PORT"] = strconv.Itoa(svc.Port)
	var defReq, defResp *dag.HeadersPolicy
	if p.settings != nil {
		defReq, defResp = p.settings.requestHeaders, p.settings.responseHeaders
	}
	if c.RequestHeaders, err = headersPolicy(svc.RequestHeadersPolicy, true, dynamic); err == nil {
		c.RequestHeaders, err = withDefaultHeaders(defReq, c.RequestHeaders, true, dynamic)
	}
	if err != nil {
		st.addError("ServiceError", "RequestHeadersPolicyInvalid", "%s on request headers", err)
		return nil, false
	}
	if c.ResponseHeaders, err = headersPolicy(svc.ResponseHeadersPolicy, false, dynamic); err == nil {
		c.ResponseHeaders, err = withDefaultHeaders(defResp, c.ResponseHeaders, false, dynamic)
	}
	if err != nil {
		st.addError("ServiceError", "ResponseHeadersPolicyInvalid", "%s on response headers", err)
		return nil, false
	}
	if c.CookieRewrites, err = cookieRewrites(svc.CookieRewritePolicies); err != nil {
		st.addError("RouteError", "CookieRewritePoliciesInvalid", "%s on service cookie rewrite rules", err)
		return nil, false
	}
	if svc.SlowStartPolicy != nil {
		if cs.lbPolicy != "" && cs.lbPolicy != "RoundRobin" && cs.lbPolicy != "WeightedLeastRequest" {
			st.addError("ServiceError", "SlowStartInvalid", "slow start is only supported with RoundRobin or WeightedLeastRequest load balancer strategy")
			return nil, false
		}
		if c.SlowStart, err = slowStart(svc.SlowStartPolicy); err != nil {
			st.addError("ServiceError", "SlowStartInvalid", "%s on slow start", err)
			return nil, false
		}
	}
	if c.ClientCertificate, err = p.cache.clientCertificate(); err != nil {
		st.addError("TLSError", "SecretNotValid", "tls.envoy-client-certificate Secret %q is invalid: %s", p.settings.clientCert, err)
		return nil, false
	}
	c.SNI = upstreamSNI(r.RequestHeaders, c.RequestHeaders)
	if c.SNI == "" {
		c.SNI = s.ExternalName
	}
	return c, true
}

// upstreamSNI is the host a service's or else the route's request header
// policy rewrites to.
func upstreamSNI(route, service *dag.HeadersPolicy) string {
	if service != nil && service.HostRewrite != "" {
		return service.HostRewrite
	}
	if route != nil && route.HostRewrite != "" {
		return route.HostRewrite
	}
	return ""
}

// cookieRewrites converts cookie rewrite policies: one per cookie, each
// rewriting at least one attribute.
func cookieRewrites(in []contourv1.CookieRewritePolicy) ([]dag.CookieRewrite, error) {
	var out []dag.CookieRewrite
	seen := map[string]bool{}
	for _, p := range in {
		if seen[p.Name] {
			return nil, fmt.Errorf("duplicate cookie rewrite rule for cookie %q", p.Name)
		}
		seen[p.Name] = true
		c := dag.CookieRewrite{Name: p.Name, Secure: p.Secure, SameSite: p.SameSite}
		if p.PathRewrite != nil {
			c.Path = &p.PathRewrite.Value
		}
		if p.DomainRewrite != nil {
			c.Domain = &p.DomainRewrite.Value
		}
		if c.Path == nil && c.Domain == nil && c.Secure == nil && c.SameSite == nil {
			return nil, fmt.Errorf("no attributes rewritten for cookie %q", p.Name)
		}
		out = append(out, c)
	}
	return out, nil
}

// httpProxyTimeouts parses a route's response and idle timeouts and its
// clusters' idle connection timeout.
func httpProxyTimeouts(tp *contourv1.TimeoutPolicy) (dag.RouteTimeout, dag.Timeout, error) {
	if tp == nil {
		return dag.RouteTimeout{}, dag.Timeout{}, nil
	}
	response, err := parseTimeout(tp.Response)
	if err != nil {
		return dag.RouteTimeout{}, dag.Timeout{}, fmt.Errorf("error parsing response timeout: %w", err)
	}
	idle, err := parseTimeout(tp.Idle)
	if err != nil {
		return dag.RouteTimeout{}, dag.Timeout{}, fmt.Errorf("error parsing idle timeout: %w", err)
	}
	idleConnection, err := parseTimeout(tp.IdleConnection)
	if err != nil {
		return dag.RouteTimeout{}, dag.Timeout{}, fmt.Errorf("error parsing idle connection timeout: %w", err)
	}
	return dag.RouteTimeout{Response: response, Idle: idle}, idleConnection, nil
}

// httpProxyRetryPolicy: retryOn defaults to 5xx; count -1 disables
// retries, 0 and 1 mean 1; an unparsable perTryTimeout is left out.
func httpProxyRetryPolicy(rp *contourv1.RetryPolicy) *dag.RetryPolicy {
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
	out := &dag.RetryPolicy{RetryOn: on, NumRetries: uint32(n), RetriableStatusCodes: rp.RetriableStatusCodes}
	if d, err := timeDuration(rp.PerTryTimeout); err == nil {
		out.PerTryTimeout = dag.Timeout{Set: true, Duration: d}
	}
	return out
}
