package envoy

import (
	"fmt"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	corsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	localratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	rbacfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/translate/dag"
)

// Envoy forms of the CORS, rate-limit and IP filter policies.

// routeFilterConfig is a forwarding route's per-filter configuration, or
// nil when it has none.
func routeFilterConfig(r *dag.Route, vhostName string) map[string]*anypb.Any {
	tpfc := map[string]*anypb.Any{}
	if r.RateLimit != nil && r.RateLimit.Local != nil {
		tpfc["envoy.filters.http.local_ratelimit"] = localRateLimitConfig(r.RateLimit.Local, "vhost."+vhostName)
	}
	if r.IgnoreVirtualHostRateLimits {
		tpfc["envoy.filters.http.ratelimit"] = mustAny(&ratelimitv3.RateLimitPerRoute{VhRateLimits: ratelimitv3.RateLimitPerRoute_IGNORE})
	}
	if r.IPFilter != nil && len(r.IPFilter.Rules) > 0 {
		tpfc["envoy.filters.http.rbac"] = ipFilterConfig(r.IPFilter)
	}
	if a := routeAuthzConfig(r); a != nil {
		tpfc["envoy.filters.http.ext_authz"] = a
	}
	if r.JWTProvider != "" {
		tpfc[jwtAuthnFilterName] = jwtPerRouteConfig(r.JWTProvider)
	}
	if len(tpfc) == 0 {
		return nil
	}
	return tpfc
}

func envoyCORSPolicy(p *dag.CORSPolicy) *corsv3.CorsPolicy {
	out := &corsv3.CorsPolicy{
		AllowCredentials:          wrapperspb.Bool(p.AllowCredentials),
		AllowHeaders:              strings.Join(p.AllowHeaders, ","),
		AllowMethods:              strings.Join(p.AllowMethods, ","),
		ExposeHeaders:             strings.Join(p.ExposeHeaders, ","),
		AllowPrivateNetworkAccess: wrapperspb.Bool(p.AllowPrivateNetwork),
		AllowOriginStringMatch:    []*matcherv3.StringMatcher{},
	}
	switch {
	case p.MaxAge.Disabled:
		out.MaxAge = "0"
	case p.MaxAge.Set:
		out.MaxAge = fmt.Sprintf("%.0f", p.MaxAge.Duration.Seconds())
	}
	for _, o := range p.AllowOrigin {
		m := &matcherv3.StringMatcher{}
		if o.Regex {
			m.MatchPattern = &matcherv3.StringMatcher_SafeRegex{SafeRegex: safeRegex(o.Value)}
		} else {
			// Envoy treats an exact "*" as any origin.
			m.MatchPattern = &matcherv3.StringMatcher_Exact{Exact: o.Value}
			m.IgnoreCase = true
		}
		out.AllowOriginStringMatch = append(out.AllowOriginStringMatch, m)
	}
	return out
}

// localRateLimitConfig is the local_ratelimit filter's per-route config;
// Envoy answers 429 unless another status is set.
func localRateLimitConfig(l *dag.LocalRateLimit, statPrefix string) *anypb.Any {
	enabled := &corev3.RuntimeFractionalPercent{DefaultValue: &typev3.FractionalPercent{Numerator: 100, Denominator: typev3.FractionalPercent_HUNDRED}}
	c := &localratelimitv3.LocalRateLimit{
		StatPrefix: statPrefix,
		TokenBucket: &typev3.TokenBucket{
			MaxTokens:     l.MaxTokens,
			TokensPerFill: wrapperspb.UInt32(l.TokensPerFill),
			FillInterval:  durationpb.New(l.FillInterval),
		},
		ResponseHeadersToAdd: headerValues(l.ResponseHeaders, corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD),
		FilterEnabled:        enabled,
		FilterEnforced:       enabled,
	}
	if l.ResponseStatusCode > 0 {
		c.Status = &typev3.HttpStatus{Code: typev3.StatusCode(l.ResponseStatusCode)}
	}
	return mustAny(c)
}

// envoyRateLimits turns global rate limit descriptors into rate limit
// actions.
func envoyRateLimits(descriptors []dag.RateLimitDescriptor) []*routev3.RateLimit {
	var out []*routev3.RateLimit
	for _, d := range descriptors {
		rl := &routev3.RateLimit{}
		for _, e := range d.Entries {
			var a routev3.RateLimit_Action
			switch {
			case e.GenericKey != nil:
				a.ActionSpecifier = &routev3.RateLimit_Action_GenericKey_{GenericKey: &routev3.RateLimit_Action_GenericKey{DescriptorKey: e.GenericKey[0], DescriptorValue: e.GenericKey[1]}}
			case e.RequestHeader != nil:
				a.ActionSpecifier = &routev3.RateLimit_Action_RequestHeaders_{RequestHeaders: &routev3.RateLimit_Action_RequestHeaders{HeaderName: e.RequestHeader[0], DescriptorKey: e.RequestHeader[1]}}
			case e.HeaderValueMatch != nil:
				hv := &routev3.RateLimit_Action_HeaderValueMatch{DescriptorValue: e.HeaderValueMatch.Value, ExpectMatch: wrapperspb.Bool(e.HeaderValueMatch.ExpectMatch)}
				for _, h := range e.HeaderValueMatch.Headers {
					hv.Headers = append(hv.Headers, headerMatcher(h))
				}
				a.ActionSpecifier = &routev3.RateLimit_Action_HeaderValueMatch_{HeaderValueMatch: hv}
			case e.RemoteAddress:
				a.ActionSpecifier = &routev3.RateLimit_Action_RemoteAddress_{RemoteAddress: &routev3.RateLimit_Action_RemoteAddress{}}
			}
			rl.Actions = append(rl.Actions, &a)
		}
		out = append(out, rl)
	}
	return out
}

// ipFilterConfig is the RBAC per-route config of an IP filter: a single
// "ip-rules" policy allowing or denying the listed addresses.
func ipFilterConfig(f *dag.IPFilter) *anypb.Any {
	action := rbacv3.RBAC_DENY
	if f.Allow {
		action = rbacv3.RBAC_ALLOW
	}
	var principals []*rbacv3.Principal
	for _, r := range f.Rules {
		ones, _ := r.CIDR.Mask.Size()
		cidr := &corev3.CidrRange{AddressPrefix: r.CIDR.IP.String(), PrefixLen: wrapperspb.UInt32(uint32(ones))}
		p := &rbacv3.Principal{Identifier: &rbacv3.Principal_DirectRemoteIp{DirectRemoteIp: cidr}}
		if r.Remote {
			p.Identifier = &rbacv3.Principal_RemoteIp{RemoteIp: cidr}
		}
		principals = append(principals, p)
	}
	return mustAny(&rbacfilterv3.RBACPerRoute{Rbac: &rbacfilterv3.RBAC{Rules: &rbacv3.RBAC{
		Action: action,
		Policies: map[string]*rbacv3.Policy{"ip-rules": {
			Permissions: []*rbacv3.Permission{{Rule: &rbacv3.Permission_Any{Any: true}}},
			Principals:  principals,
		}},
	}}})
}
