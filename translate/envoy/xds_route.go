package envoy

import (
	"sort"
	"sync"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Envoy route configurations from the DAG: one for plain HTTP (always
// present, even when empty) and one per secure virtual host.

func RouteConfigurations(d *dag.DAG, b *Reuse) []*routev3.RouteConfiguration {
	var out []*routev3.RouteConfiguration
	for _, l := range d.SortedListeners() {
		switch l.Protocol {
		case "http":
			// Virtual hosts are built (or compared) on every CPU.
			dagVhosts := l.VirtualHosts()
			vhosts := make([]*routev3.VirtualHost, len(dagVhosts))
			par.ForEach(len(dagVhosts), func(i int) {
				vhosts[i] = b.virtualHost(l.RouteConfigName, dagVhosts[i], false)
			})
			// Contour always serves ingress_http, even empty; a Gateway
			// listener's only when it has virtual hosts.
			if len(vhosts) > 0 || !d.DynamicListeners {
				out = append(out, b.table(l.RouteConfigName, vhosts))
			}
		case "https":
			var svhs []*dag.SecureVirtualHost
			for _, svh := range l.SecureVirtualHosts() {
				if svh.TCPProxy == nil { // TCP-proxied hosts have no HTTP routes
					svhs = append(svhs, svh)
				}
			}
			tables := make([]*routev3.RouteConfiguration, len(svhs))
			par.ForEach(len(svhs), func(i int) {
				name := secureRouteConfigName(l, svhs[i])
				tables[i] = b.table(name, []*routev3.VirtualHost{b.virtualHost(name, &svhs[i].VirtualHost, true)})
			})
			out = append(out, tables...)
			var fallback []*routev3.VirtualHost
			for _, svh := range svhs {
				if svh.FallbackCertificate != nil {
					fallback = append(fallback, b.virtualHost(fallbackRouteConfigName(l), &svh.VirtualHost, true))
				}
			}
			if len(fallback) > 0 {
				out = append(out, b.table(fallbackRouteConfigName(l), fallback))
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// secureRouteConfigName is "<prefix>/<fqdn>", e.g. "https/example.com" or,
// on a Gateway listener, "https-443/example.com".
func secureRouteConfigName(l *dag.Listener, svh *dag.SecureVirtualHost) string {
	return l.RouteConfigName + "/" + svh.Name
}

// fallbackRouteConfigName is the route configuration of a listener's
// fallback-certificate chain: "ingress_fallbackcert" for ingress_https,
// "<prefix>/fallbackcert" on a Gateway listener.
func fallbackRouteConfigName(l *dag.Listener) string {
	if l.Name == config.HTTPSListenerName {
		return "ingress_fallbackcert"
	}
	return l.RouteConfigName + "/fallbackcert"
}

// sortVirtualHosts puts a route table's virtual hosts in name order.
func sortVirtualHosts(vhosts []*routev3.VirtualHost) {
	sort.Slice(vhosts, func(i, j int) bool { return vhosts[i].Name < vhosts[j].Name })
}

// routeConfiguration adds Contour's x-request-start header and ignores the
// port when matching the Host header.
func routeConfiguration(name string, vhosts []*routev3.VirtualHost) *routev3.RouteConfiguration {
	sortVirtualHosts(vhosts)
	return &routev3.RouteConfiguration{
		Name:         name,
		VirtualHosts: vhosts,
		RequestHeadersToAdd: []*corev3.HeaderValueOption{{
			Header:       &corev3.HeaderValue{Key: "x-request-start", Value: "t=%START_TIME(%s.%3f)%"},
			AppendAction: corev3.HeaderValueOption_APPEND_IF_EXISTS_OR_ADD,
		}},
		IgnorePortInHostMatching: true,
	}
}

func envoyVirtualHost(vh *dag.VirtualHost, secure bool) *routev3.VirtualHost {
	routes := vh.Ordered()
	out := &routev3.VirtualHost{Name: dag.VirtualHostName(vh.Name), Domains: []string{vh.Name}}
	out.Routes = make([]*routev3.Route, len(routes))
	var meta *corev3.Metadata
	for i, r := range routes {
		// Routes of one object, which come together, share their
		// metadata: it is only read, and is a map of maps to build.
		if i == 0 || !sameOrigin(r, routes[i-1]) {
			meta = routeMetadata(r)
		}
		out.Routes[i] = envoyRoute(r, vh.Name, secure, meta)
	}
	tpfc := map[string]*anypb.Any{}
	if vh.CORS != nil {
		tpfc["envoy.filters.http.cors"] = mustAny(envoyCORSPolicy(vh.CORS))
	}
	if rl := vh.RateLimit; rl != nil {
		if rl.Local != nil {
			tpfc["envoy.filters.http.local_ratelimit"] = localRateLimitConfig(rl.Local, "vhost."+vh.Name)
		}
		out.RateLimits = envoyRateLimits(rl.Global)
	}
	if vh.IPFilter != nil && len(vh.IPFilter.Rules) > 0 {
		tpfc["envoy.filters.http.rbac"] = ipFilterConfig(vh.IPFilter)
	}
	if len(tpfc) > 0 {
		out.TypedPerFilterConfig = tpfc
	}
	return out
}

// sameOrigin says whether two routes come from the same object.
func sameOrigin(a, b *dag.Route) bool {
	return a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name
}

// envoyRoute builds r's Envoy route, with meta (routeMetadata) naming
// its object.
func envoyRoute(r *dag.Route, vhostName string, secure bool, meta *corev3.Metadata) *routev3.Route {
	route := &routev3.Route{Match: routeMatch(r), Metadata: meta}
	switch {
	case r.HTTPSUpgrade && !secure:
		route.Action = httpsRedirect()
		// A redirect never needs authorising.
		route.TypedPerFilterConfig = redirectFilterConfig()
	case r.DirectResponse != nil:
		route.Action = directResponse(r.DirectResponse)
		if a := routeAuthzConfig(r); a != nil {
			route.TypedPerFilterConfig = map[string]*anypb.Any{"envoy.filters.http.ext_authz": a}
		}
	case r.Redirect != nil:
		// Header policies do not apply to redirects, as in Contour.
		route.Action = redirectAction(r.Redirect)
	default:
		route.Action = &routev3.Route_Route{Route: routeAction(r)}
		route.RequestHeadersToAdd, route.RequestHeadersToRemove = headerOptions(r.RequestHeaders)
		route.ResponseHeadersToAdd, route.ResponseHeadersToRemove = headerOptions(r.ResponseHeaders)
		route.TypedPerFilterConfig = routeFilterConfig(r, vhostName)
	}
	return route
}

// httpsRedirect and redirectFilterConfig are the action and per-filter
// configuration of every HTTP-to-HTTPS redirect, built once and shared (a
// message is never modified once built): the HTTP route table holds one
// redirect per secure route, 25,000 at 5,000 HTTPProxies.
var (
	httpsRedirect = sync.OnceValue(func() *routev3.Route_Redirect {
		return &routev3.Route_Redirect{Redirect: &routev3.RedirectAction{
			SchemeRewriteSpecifier: &routev3.RedirectAction_HttpsRedirect{HttpsRedirect: true},
		}}
	})
	redirectFilterConfig = sync.OnceValue(func() map[string]*anypb.Any {
		return map[string]*anypb.Any{"envoy.filters.http.ext_authz": authzDisabled()}
	})
)

// directResponse answers with a fixed status and optional body.
func directResponse(d *dag.DirectResponse) *routev3.Route_DirectResponse {
	action := &routev3.DirectResponseAction{Status: d.StatusCode}
	if d.Body != "" {
		action.Body = &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: d.Body}}
	}
	return &routev3.Route_DirectResponse{DirectResponse: action}
}

// routeMetadata names the object a route came from, for access logs.
func routeMetadata(r *dag.Route) *corev3.Metadata {
	if r.Kind == "" && r.Namespace == "" && r.Name == "" {
		return nil
	}
	fields := make(map[string]*structpb.Value, 3)
	for _, kv := range [...]struct{ key, value string }{
		{"io.projectcontour.kind", r.Kind},
		{"io.projectcontour.namespace", r.Namespace},
		{"io.projectcontour.name", r.Name},
	} {
		if kv.value != "" {
			fields[kv.key] = structpb.NewStringValue(kv.value)
		}
	}
	return &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{
		"envoy.access_loggers.file": {Fields: fields},
	}}
}

func routeMatch(r *dag.Route) *routev3.RouteMatch {
	m := &routev3.RouteMatch{}
	switch r.PathMatch.Kind {
	case dag.PathExact:
		m.PathSpecifier = &routev3.RouteMatch_Path{Path: r.PathMatch.Value}
	case dag.PathRegex:
		// Anchored: the regex starts at the path's beginning, which also
		// keeps Envoy's regex program small.
		m.PathSpecifier = &routev3.RouteMatch_SafeRegex{SafeRegex: safeRegex("^" + r.PathMatch.Value)}
	case dag.PathSegmentPrefix:
		m.PathSpecifier = &routev3.RouteMatch_PathSeparatedPrefix{PathSeparatedPrefix: r.PathMatch.Value}
	default:
		m.PathSpecifier = &routev3.RouteMatch_Prefix{Prefix: r.PathMatch.Value}
	}
	for _, h := range r.HeaderMatch {
		m.Headers = append(m.Headers, headerMatcher(h))
	}
	for _, q := range r.QueryMatch {
		m.QueryParameters = append(m.QueryParameters, queryMatcher(q))
	}
	return m
}

func safeRegex(regex string) *matcherv3.RegexMatcher {
	return &matcherv3.RegexMatcher{Regex: regex}
}

func headerMatcher(h dag.HeaderMatch) *routev3.HeaderMatcher {
	out := &routev3.HeaderMatcher{
		Name:        h.Name,
		InvertMatch: h.Invert,
		// Only an inverted match may treat a missing header as empty.
		TreatMissingHeaderAsEmpty: h.Invert && h.TreatMissingAsEmpty,
	}
	switch h.Type {
	case dag.HeaderPresent:
		out.HeaderMatchSpecifier = &routev3.HeaderMatcher_PresentMatch{PresentMatch: true}
	case dag.HeaderRegex:
		out.HeaderMatchSpecifier = stringMatch(&matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{SafeRegex: safeRegex(h.Value)}})
	case dag.HeaderContains:
		out.HeaderMatchSpecifier = stringMatch(&matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Contains{Contains: h.Value}, IgnoreCase: h.IgnoreCase})
	default:
		out.HeaderMatchSpecifier = stringMatch(&matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: h.Value}, IgnoreCase: h.IgnoreCase})
	}
	return out
}

func stringMatch(m *matcherv3.StringMatcher) *routev3.HeaderMatcher_StringMatch {
	return &routev3.HeaderMatcher_StringMatch{StringMatch: m}
}

func queryMatcher(q dag.QueryMatch) *routev3.QueryParameterMatcher {
	out := &routev3.QueryParameterMatcher{Name: q.Name}
	var pattern matcherv3.StringMatcher
	switch q.Type {
	case "present":
		out.QueryParameterMatchSpecifier = &routev3.QueryParameterMatcher_PresentMatch{PresentMatch: true}
		return out
	case "regex":
		pattern.MatchPattern = &matcherv3.StringMatcher_SafeRegex{SafeRegex: safeRegex(q.Value)}
	case "prefix":
		pattern.MatchPattern = &matcherv3.StringMatcher_Prefix{Prefix: q.Value}
	case "suffix":
		pattern.MatchPattern = &matcherv3.StringMatcher_Suffix{Suffix: q.Value}
	case "contains":
		pattern.MatchPattern = &matcherv3.StringMatcher_Contains{Contains: q.Value}
	default:
		pattern.MatchPattern = &matcherv3.StringMatcher_Exact{Exact: q.Value}
	}
	if q.Type != "regex" {
		pattern.IgnoreCase = q.IgnoreCase
	}
	out.QueryParameterMatchSpecifier = &routev3.QueryParameterMatcher_StringMatch{StringMatch: &pattern}
	return out
}

func routeAction(r *dag.Route) *routev3.RouteAction {
	ra := &routev3.RouteAction{
		RetryPolicy: retryPolicy(r.Retry),
		Timeout:     envoyTimeout(r.Timeout.Response),
		IdleTimeout: envoyTimeout(r.Timeout.Idle),
	}
	ra.HashPolicy = hashPolicies(r.RequestHashPolicies)
	if r.RateLimit != nil {
		ra.RateLimits = envoyRateLimits(r.RateLimit.Global)
	}
	ra.RequestMirrorPolicies = mirrorPolicies(r.Mirrors)
	ra.InternalRedirectPolicy = internalRedirect(r.InternalRedirect)
	if pr := r.PathRewrite; pr != nil {
		switch {
		case pr.Prefix != "":
			ra.PrefixRewrite = pr.Prefix
		case pr.FullPath != "":
			ra.RegexRewrite = &matcherv3.RegexMatchAndSubstitute{Pattern: safeRegex("^/.*$"), Substitution: pr.FullPath}
		case pr.PrefixRegexRemove != "":
			ra.RegexRewrite = &matcherv3.RegexMatchAndSubstitute{Pattern: safeRegex(pr.PrefixRegexRemove), Substitution: "/"}
		}
	}
	if h := r.RequestHeaders; h != nil && h.HostRewrite != "" {
		ra.HostRewriteSpecifier = &routev3.RouteAction_HostRewriteLiteral{HostRewriteLiteral: h.HostRewrite}
	} else if h != nil && h.HostRewriteHeader != "" {
		ra.HostRewriteSpecifier = &routev3.RouteAction_HostRewriteHeader{HostRewriteHeader: h.HostRewriteHeader}
	}
	if r.Websocket {
		ra.UpgradeConfigs = []*routev3.RouteAction_UpgradeConfig{{UpgradeType: "websocket"}}
	}
	if singleSimpleCluster(r) {
		ra.ClusterSpecifier = &routev3.RouteAction_Cluster{Cluster: dag.ClusterName(r.Clusters[0])}
	} else {
		ra.ClusterSpecifier = &routev3.RouteAction_WeightedClusters{WeightedClusters: weightedClusters(r)}
	}
	return ra
}

// singleSimpleCluster says whether a route can name its one cluster
// directly: per-cluster header or cookie policies need a weighted entry.
func singleSimpleCluster(r *dag.Route) bool {
	if len(r.Clusters) != 1 || len(r.CookieRewrites) > 0 {
		return false
	}
	c := r.Clusters[0]
	resp := c.ResponseHeaders
	return c.RequestHeaders.Empty() && (resp == nil || (len(resp.Set) == 0 && len(resp.Remove) == 0)) && len(c.CookieRewrites) == 0
}

// weightedClusters spreads traffic by weight; when no weight is set at all
// every cluster gets 1. Ordered by name, then weight.
func weightedClusters(r *dag.Route) *routev3.WeightedCluster {
	var total uint32
	wc := &routev3.WeightedCluster{}
	for _, c := range r.Clusters {
		total += c.Weight
		wc.Clusters = append(wc.Clusters, clusterWeight(r, c))
	}
	for _, c := range wc.Clusters {
		if total == 0 {
			c.Weight.Value = 1
		}
	}
	sort.SliceStable(wc.Clusters, func(i, j int) bool {
		a, b := wc.Clusters[i], wc.Clusters[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Weight.GetValue() < b.Weight.GetValue()
	})
	return wc
}

func retryPolicy(rp *dag.RetryPolicy) *routev3.RetryPolicy {
	if rp == nil || rp.RetryOn == "" {
		return nil
	}
	return &routev3.RetryPolicy{
		RetryOn:              rp.RetryOn,
		RetriableStatusCodes: rp.RetriableStatusCodes,
		// Always set, so that 0 really means no retry (Envoy's default is 1).
		NumRetries:    wrapperspb.UInt32(rp.NumRetries),
		PerTryTimeout: envoyTimeout(rp.PerTryTimeout),
	}
}

// envoyTimeout is nil for Envoy's default, 0 for disabled, else the value.
func envoyTimeout(t dag.Timeout) *durationpb.Duration {
	switch {
	case !t.Set:
		return nil
	case t.Disabled:
		return durationpb.New(0)
	default:
		return durationpb.New(t.Duration)
	}
}
