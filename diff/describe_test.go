package diff

import (
	"testing"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func TestDescribeMatch(t *testing.T) {
	exact := func(s string) *matcherv3.StringMatcher {
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: s}}
	}
	tests := []struct {
		m    *routev3.RouteMatch
		want string
	}{
		{&routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}}, "prefix /"},
		{&routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Path{Path: "/healthz"}}, "exact /healthz"},
		{&routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: "/a, b"}}}, `regex "/a, b"`},
		{&routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_PathSeparatedPrefix{PathSeparatedPrefix: "/api"}}, "segment prefix /api"},
		{&routev3.RouteMatch{
			PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"},
			CaseSensitive: wrapperspb.Bool(false),
			Headers: []*routev3.HeaderMatcher{
				{Name: "x-env", HeaderMatchSpecifier: &routev3.HeaderMatcher_StringMatch{StringMatch: exact("canary")}},
				{Name: "x-bot", HeaderMatchSpecifier: &routev3.HeaderMatcher_PresentMatch{PresentMatch: true}, InvertMatch: true},
			},
			QueryParameters: []*routev3.QueryParameterMatcher{
				{Name: "q", QueryParameterMatchSpecifier: &routev3.QueryParameterMatcher_StringMatch{StringMatch: &matcherv3.StringMatcher{
					MatchPattern: &matcherv3.StringMatcher_Prefix{Prefix: "ab"}, IgnoreCase: true}}},
			},
		}, `prefix / (ignore case), header x-env = "canary", header not x-bot present, query q prefix "ab" (ignore case)`},
		// Criteria without a wording are still shown.
		{&routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}, RuntimeFraction: &corev3.RuntimeFractionalPercent{RuntimeKey: "k"}},
			`prefix /, {"runtime_fraction":{"runtime_key":"k"}}`},
	}
	for _, tt := range tests {
		if got := describeMatch(tt.m); got != tt.want {
			t.Errorf("describeMatch() = %q, want %q", got, tt.want)
		}
	}
}

func TestDescribeAction(t *testing.T) {
	fwd := func(a *routev3.RouteAction) *routev3.Route {
		return &routev3.Route{Action: &routev3.Route_Route{Route: a}}
	}
	tests := []struct {
		r    *routev3.Route
		want string
	}{
		{fwd(&routev3.RouteAction{ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: "ns/svc/80/h"}}), "ns/svc/80/h"},
		{weighted("a", 90, "b", 10), "a weight 90, b weight 10"},
		{fwd(&routev3.RouteAction{
			ClusterSpecifier:      &routev3.RouteAction_Cluster{Cluster: "c"},
			PrefixRewrite:         "/v2",
			Timeout:               durationpb.New(30 * time.Second),
			RetryPolicy:           &routev3.RetryPolicy{RetryOn: "5xx", NumRetries: wrapperspb.UInt32(3)},
			RequestMirrorPolicies: []*routev3.RouteAction_RequestMirrorPolicy{{Cluster: "shadow"}},
			UpgradeConfigs:        []*routev3.RouteAction_UpgradeConfig{{UpgradeType: "websocket"}},
		}), `c (rewrite prefix "/v2", timeout 30s, retries 3 on 5xx, mirror to shadow, upgrade websocket)`},
		{&routev3.Route{Action: &routev3.Route_Redirect{Redirect: &routev3.RedirectAction{
			SchemeRewriteSpecifier: &routev3.RedirectAction_HttpsRedirect{HttpsRedirect: true}}}}, "redirect 301 to https"},
		{&routev3.Route{Action: &routev3.Route_Redirect{Redirect: &routev3.RedirectAction{
			HostRedirect: "example.org", PortRedirect: 8443, ResponseCode: routev3.RedirectAction_FOUND,
			PathRewriteSpecifier: &routev3.RedirectAction_PathRedirect{PathRedirect: "/new"}}}}, "redirect 302 to example.org:8443/new"},
		{&routev3.Route{Action: &routev3.Route_DirectResponse{DirectResponse: &routev3.DirectResponseAction{Status: 503,
			Body: &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: "a body that goes on and on and on and on and on"}}}}},
			`respond 503 "a body that goes on and on and on and on…"`},
		{&routev3.Route{
			Action: &routev3.Route_DirectResponse{DirectResponse: &routev3.DirectResponseAction{Status: 200}},
			RequestHeadersToAdd: []*corev3.HeaderValueOption{
				{Header: &corev3.HeaderValue{Key: "x-a", Value: "1"}, AppendAction: corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD},
				{Header: &corev3.HeaderValue{Key: "x-b", Value: "2"}},
			},
			ResponseHeadersToRemove: []string{"server"},
		}, "respond 200 (set request header x-a: 1, add request header x-b: 2, remove response header server)"},
	}
	for _, tt := range tests {
		if got := describeAction(tt.r); got != tt.want {
			t.Errorf("describeAction() = %q, want %q", got, tt.want)
		}
	}
}
