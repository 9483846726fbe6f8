package httpproxy

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/status"
)

// One HTTPProxy route and the clusters of its services: conditions,
// policies, timeouts and retries, as Contour builds them.

// route builds one route of proxy; ok is false when an error discards the
// proxy's routes. The checks run in Contour's order, so that the first
// error reported is the one Contour reports.
func (p *Processor) route(st *status.Proxy, root, proxy *contourv1.HTTPProxy, route contourv1.Route, conds []contourv1.MatchCondition, enforceTLS bool, dynamic map[string]string) (*dag.Route, bool) {
	fail := func(errType, reason, format string, args ...any) (*dag.Route, bool) {
		st.AddError(errType, reason, format, args...)
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
	r := &dag.Route{
		PathMatch:                   path,
		HeaderMatch:                 mergeHeaderMatch(conds),
		QueryMatch:                  mergeQueryMatch(conds),
		Websocket:                   route.EnableWebsockets,
		HTTPSUpgrade:                enforceTLS && !(route.PermitInsecure && !p.DisablePermitInsecure),
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
			r.Mirrors = []*dag.MirrorPolicy{{Cluster: c, Percent: percent}}
		default:
			r.Clusters = append(r.Clusters, c)
		}
	}
	if len(r.Clusters) == 0 && route.RequestRedirectPolicy == nil && route.DirectResponsePolicy == nil {
		r.DirectResponse = &dag.DirectResponse{StatusCode: 503}
	}
	if strings.HasPrefix(root.Spec.VirtualHost.Fqdn, "*.") {
		r.HeaderMatch = append(r.HeaderMatch, dag.WildcardAuthorityMatch(root.Spec.VirtualHost.Fqdn))
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
func (p *Processor) cluster(st *status.Proxy, proxy *contourv1.HTTPProxy, svc contourv1.Service, r *dag.Route, cs clusterSettings, dynamic map[string]string) (*dag.Cluster, bool) {
	if svc.Port < 1 || svc.Port > 65535 {
		st.AddError("ServiceError", "ServicePortInvalid", "service %q: port must be in the range 1-65535", svc.Name)
		return nil, false
	}
	name := types.NamespacedName{Namespace: proxy.Namespace, Name: svc.Name}
	healthPort := svc.Port
	if cs.health != nil && svc.HealthPort > 0 {
		healthPort = svc.HealthPort
	}
	s, err := p.Index.ServiceWithHealthPort(name, svc.Port, healthPort)
	if err != nil {
		st.AddError("ServiceError", "ServiceUnresolvedReference", "Spec.Routes unresolved service reference: %s", err)
		return nil, true
	}
	s = config.WithDefaultCircuitBreakers(s, p.Settings)
	protocol := s.Protocol
	if svc.Protocol != nil {
		protocol = *svc.Protocol
		if protocol != "h2" && protocol != "h2c" && protocol != "tls" {
			st.AddError("ServiceError", "UnsupportedProtocol", "unsupported protocol: %v", protocol)
			return nil, false
		}
	}
	c := &dag.Cluster{
		Upstream: s, Protocol: protocol, Weight: uint32(svc.Weight), LoadBalancerPolicy: cs.lbPolicy,
		HealthCheck: cs.health, IdleConnectionTimeout: cs.idleConnection,
	}
	if p.Settings != nil {
		c.DNSLookupFamily = p.Settings.DNSLookupFamily
	}
	// Upstream validation only applies to Services that speak TLS.
	if uv := svc.UpstreamValidation; uv != nil && (protocol == "tls" || protocol == "h2") {
		v, err := upstreamValidation(p.Index, uv, proxy.Namespace)
		if err != nil {
			if e, ok := err.(index.DelegationNotPermittedError); ok {
				st.AddError("TLSError", "CACertificateNotDelegated", "service.UpstreamValidation.CACertificate Secret %q is not configured for certificate delegation", e.Secret.String())
			} else {
				st.AddError("ServiceError", "TLSUpstreamValidation", "Service [%s:%d] TLS upstream validation policy error: %s", svc.Name, svc.Port, err)
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
	if p.Settings != nil {
		defReq, defResp = p.Settings.RequestHeaders, p.Settings.ResponseHeaders
	}
	if c.RequestHeaders, err = headersPolicy(svc.RequestHeadersPolicy, true, dynamic); err == nil {
		c.RequestHeaders, err = config.WithDefaultHeaders(defReq, c.RequestHeaders, true, dynamic)
	}
	if err != nil {
		st.AddError("ServiceError", "RequestHeadersPolicyInvalid", "%s on request headers", err)
		return nil, false
	}
	if c.ResponseHeaders, err = headersPolicy(svc.ResponseHeadersPolicy, false, dynamic); err == nil {
		c.ResponseHeaders, err = config.WithDefaultHeaders(defResp, c.ResponseHeaders, false, dynamic)
	}
	if err != nil {
		st.AddError("ServiceError", "ResponseHeadersPolicyInvalid", "%s on response headers", err)
		return nil, false
	}
	if c.CookieRewrites, err = cookieRewrites(svc.CookieRewritePolicies); err != nil {
		st.AddError("RouteError", "CookieRewritePoliciesInvalid", "%s on service cookie rewrite rules", err)
		return nil, false
	}
	if svc.SlowStartPolicy != nil {
		if cs.lbPolicy != "" && cs.lbPolicy != "RoundRobin" && cs.lbPolicy != "WeightedLeastRequest" {
			st.AddError("ServiceError", "SlowStartInvalid", "slow start is only supported with RoundRobin or WeightedLeastRequest load balancer strategy")
			return nil, false
		}
		if c.SlowStart, err = slowStart(svc.SlowStartPolicy); err != nil {
			st.AddError("ServiceError", "SlowStartInvalid", "%s on slow start", err)
			return nil, false
		}
	}
	if c.ClientCertificate, err = p.Index.ClientCertificate(); err != nil {
		st.AddError("TLSError", "SecretNotValid", "tls.envoy-client-certificate Secret %q is invalid: %s", p.Settings.ClientCertificate, err)
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
	response, err := dag.ParseTimeout(tp.Response)
	if err != nil {
		return dag.RouteTimeout{}, dag.Timeout{}, fmt.Errorf("error parsing response timeout: %w", err)
	}
	idle, err := dag.ParseTimeout(tp.Idle)
	if err != nil {
		return dag.RouteTimeout{}, dag.Timeout{}, fmt.Errorf("error parsing idle timeout: %w", err)
	}
	idleConnection, err := dag.ParseTimeout(tp.IdleConnection)
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
	if d, err := time.ParseDuration(rp.PerTryTimeout); err == nil {
		out.PerTryTimeout = dag.Timeout{Set: true, Duration: d}
	}
	return out
}
