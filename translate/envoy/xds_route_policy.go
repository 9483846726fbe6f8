package envoy

import (
	"net/http"
	"sort"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	luav3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/lua/v3"
	previousroutesv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/internal_redirect/previous_routes/v3"
	safecrossschemev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/internal_redirect/safe_cross_scheme/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/translate/dag"
)

// Envoy forms of the per-route policies.

// headerOptions returns the headers to add (set ones overwrite and come
// first, added ones append; each group sorted by name) and to remove.
func headerOptions(h *dag.HeadersPolicy) ([]*corev3.HeaderValueOption, []string) {
	if h == nil {
		return nil, nil
	}
	add := append(headerValues(h.Set, corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD),
		headerValues(h.Add, corev3.HeaderValueOption_APPEND_IF_EXISTS_OR_ADD)...)
	return add, h.Remove
}

func headerValues(m map[string]string, action corev3.HeaderValueOption_HeaderAppendAction) []*corev3.HeaderValueOption {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []*corev3.HeaderValueOption
	for _, k := range keys {
		out = append(out, &corev3.HeaderValueOption{Header: &corev3.HeaderValue{Key: k, Value: m[k]}, AppendAction: action})
	}
	return out
}

// clusterWeight is a weighted_clusters entry, carrying the cluster's own
// header and cookie policies.
func clusterWeight(r *dag.Route, c *dag.Cluster) *routev3.WeightedCluster_ClusterWeight {
	cw := &routev3.WeightedCluster_ClusterWeight{Name: dag.ClusterName(c), Weight: wrapperspb.UInt32(c.Weight)}
	if c.RequestHeaders != nil {
		cw.RequestHeadersToAdd, cw.RequestHeadersToRemove = headerOptions(c.RequestHeaders)
		if c.RequestHeaders.HostRewrite != "" {
			cw.HostRewriteSpecifier = &routev3.WeightedCluster_ClusterWeight_HostRewriteLiteral{HostRewriteLiteral: c.RequestHeaders.HostRewrite}
		}
	}
	if c.ResponseHeaders != nil {
		cw.ResponseHeadersToAdd, cw.ResponseHeadersToRemove = headerOptions(c.ResponseHeaders)
	}
	if len(r.CookieRewrites) > 0 || len(c.CookieRewrites) > 0 {
		cw.TypedPerFilterConfig = map[string]*anypb.Any{hcmLuaFilterName: cookieRewriteConfig(append(append([]dag.CookieRewrite(nil), r.CookieRewrites...), c.CookieRewrites...))}
	}
	return cw
}

// cookieRewriteConfig selects the cookie-rewrite Lua script for a cluster
// and hands it the rules, later policies for a cookie overriding earlier
// ones attribute by attribute (service policies come after route ones).
func cookieRewriteConfig(policies []dag.CookieRewrite) *anypb.Any {
	rules := map[string]any{}
	for _, p := range policies {
		rule, _ := rules[p.Name].(map[string]any)
		if rule == nil {
			rule = map[string]any{}
		}
		if p.Path != nil {
			rule["Path"] = *p.Path
		}
		if p.Domain != nil {
			rule["Domain"] = *p.Domain
		}
		if p.Secure != nil {
			rule["Secure"] = *p.Secure
		}
		if p.SameSite != nil {
			rule["SameSite"] = *p.SameSite
		}
		rules[p.Name] = rule
	}
	ctx, err := structpb.NewStruct(map[string]any{hcmCookieRewriteRulesKey: rules})
	if err != nil {
		panic(err) // only strings and bools go in
	}
	return mustAny(&luav3.LuaPerRoute{Override: &luav3.LuaPerRoute_Name{Name: hcmCookieRewriteLuaName}, FilterContext: ctx})
}

// redirectAction is a redirect; Envoy's default code is 301, so only
// other codes are written.
func redirectAction(r *dag.Redirect) *routev3.Route_Redirect {
	ra := &routev3.RedirectAction{HostRedirect: r.Hostname, PortRedirect: r.Port}
	if r.Scheme != "" {
		ra.SchemeRewriteSpecifier = &routev3.RedirectAction_SchemeRedirect{SchemeRedirect: r.Scheme}
	}
	switch {
	case r.Path != "":
		ra.PathRewriteSpecifier = &routev3.RedirectAction_PathRedirect{PathRedirect: r.Path}
	case r.Prefix != "":
		ra.PathRewriteSpecifier = &routev3.RedirectAction_PrefixRewrite{PrefixRewrite: r.Prefix}
	case r.PrefixRegexRemove != "":
		ra.PathRewriteSpecifier = &routev3.RedirectAction_RegexRewrite{RegexRewrite: &matcherv3.RegexMatchAndSubstitute{
			Pattern: safeRegex(r.PrefixRegexRemove), Substitution: "/",
		}}
	}
	switch r.StatusCode {
	case http.StatusFound:
		ra.ResponseCode = routev3.RedirectAction_FOUND
	case http.StatusSeeOther:
		ra.ResponseCode = routev3.RedirectAction_SEE_OTHER
	case http.StatusTemporaryRedirect:
		ra.ResponseCode = routev3.RedirectAction_TEMPORARY_REDIRECT
	case http.StatusPermanentRedirect:
		ra.ResponseCode = routev3.RedirectAction_PERMANENT_REDIRECT
	}
	return &routev3.Route_Redirect{Redirect: ra}
}

// hashPolicies are the consistent-hash inputs of a route.
func hashPolicies(in []dag.RequestHashPolicy) []*routev3.RouteAction_HashPolicy {
	var out []*routev3.RouteAction_HashPolicy
	for _, p := range in {
		hp := &routev3.RouteAction_HashPolicy{Terminal: p.Terminal}
		switch {
		case p.Cookie:
			hp.PolicySpecifier = &routev3.RouteAction_HashPolicy_Cookie_{Cookie: &routev3.RouteAction_HashPolicy_Cookie{
				Name: "X-Contour-Session-Affinity", Ttl: durationpb.New(0), Path: "/",
			}}
		case p.Header != "":
			hp.PolicySpecifier = &routev3.RouteAction_HashPolicy_Header_{Header: &routev3.RouteAction_HashPolicy_Header{HeaderName: p.Header}}
		case p.QueryParameter != "":
			hp.PolicySpecifier = &routev3.RouteAction_HashPolicy_QueryParameter_{QueryParameter: &routev3.RouteAction_HashPolicy_QueryParameter{Name: p.QueryParameter}}
		case p.SourceIP:
			hp.PolicySpecifier = &routev3.RouteAction_HashPolicy_ConnectionProperties_{ConnectionProperties: &routev3.RouteAction_HashPolicy_ConnectionProperties{SourceIp: true}}
		}
		out = append(out, hp)
	}
	return out
}

func mirrorPolicies(in []*dag.MirrorPolicy) []*routev3.RouteAction_RequestMirrorPolicy {
	var out []*routev3.RouteAction_RequestMirrorPolicy
	for _, m := range in {
		out = append(out, &routev3.RouteAction_RequestMirrorPolicy{
			Cluster: dag.ClusterName(m.Cluster),
			RuntimeFraction: &corev3.RuntimeFractionalPercent{DefaultValue: &typev3.FractionalPercent{
				Numerator: m.Percent, Denominator: typev3.FractionalPercent_HUNDRED,
			}},
		})
	}
	return out
}

// internalRedirect lets Envoy follow redirects; SafeOnly allows crossing
// scheme only from http to https, via a predicate.
func internalRedirect(p *dag.InternalRedirectPolicy) *routev3.InternalRedirectPolicy {
	if p == nil {
		return nil
	}
	out := &routev3.InternalRedirectPolicy{RedirectResponseCodes: p.RedirectResponseCodes}
	if p.MaxInternalRedirects > 0 {
		out.MaxInternalRedirects = wrapperspb.UInt32(p.MaxInternalRedirects)
	}
	switch p.AllowCrossScheme {
	case "Always":
		out.AllowCrossSchemeRedirect = true
	case "SafeOnly":
		out.AllowCrossSchemeRedirect = true
		out.Predicates = append(out.Predicates, &corev3.TypedExtensionConfig{
			Name: "envoy.internal_redirect_predicates.safe_cross_scheme", TypedConfig: mustAny(&safecrossschemev3.SafeCrossSchemeConfig{}),
		})
	}
	if p.DenyRepeatedRouteRedirect {
		out.Predicates = append(out.Predicates, &corev3.TypedExtensionConfig{
			Name: "envoy.internal_redirect_predicates.previous_routes", TypedConfig: mustAny(&previousroutesv3.PreviousRoutesConfig{}),
		})
	}
	return out
}
