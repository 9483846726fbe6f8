package translate

// HTTPProxy route and service policies: header policies and Contour's
// header variables, prefix rewrites, redirects and direct responses,
// timeouts, retries, health checks, services (ports, protocols, mirrors,
// weights, upstream validation), load balancing, slow start and the
// settings that make cluster names distinct. Expected values follow
// Contour's internal/dag/httpproxy_processor.go, internal/dag/policy.go,
// internal/envoy/cluster.go and internal/envoy/v3/route.go.

import (
	"strings"
	"testing"
	"time"

	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/testpki"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	httpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pxStatusCase is one route (added next to a valid /other route) and
// the status it gives default/root.
type pxStatusCase struct {
	name   string
	route  contourv1.Route
	status pxWant
}

// pxRunStatusCases checks each case's status; an invalid proxy
// programs none of its routes.
func pxRunStatusCases(t *testing.T, objs []any, tests []pxStatusCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, objs, pxRoot(pxRoutes(pxRoute(pxConds(pxPrefix("/other")), pxSvc("kuard", 80)), tt.route)))
			pxCheck(t, res, "default", "root", tt.status)
			if tt.status.current != "valid" && !strings.Contains(tt.status.errors[0], "ServiceUnresolvedReference") {
				pxCheckRoutes(t, res, pxHTTPRC, "example.com")
			}
		})
	}
}

func pxHV(kv ...string) []contourv1.HeaderValue {
	var out []contourv1.HeaderValue
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, contourv1.HeaderValue{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

func TestHTTPProxyHeaderPolicyErrors(t *testing.T) {
	// A fresh route each time: pxEdit copies the route, not its services.
	kuardRoute := func() contourv1.Route { return pxRoute(pxConds(pxPrefix("/h")), pxSvc("kuard", 80)) }
	routeReq := func(p contourv1.HeadersPolicy) contourv1.Route {
		return pxEdit(kuardRoute(), func(r *contourv1.Route) { r.RequestHeadersPolicy = &p })
	}
	routeResp := func(p contourv1.HeadersPolicy) contourv1.Route {
		return pxEdit(kuardRoute(), func(r *contourv1.Route) { r.ResponseHeadersPolicy = &p })
	}
	svcReq := func(p contourv1.HeadersPolicy) contourv1.Route {
		return pxEdit(kuardRoute(), func(r *contourv1.Route) { r.Services[0].RequestHeadersPolicy = &p })
	}
	svcResp := func(p contourv1.HeadersPolicy) contourv1.Route {
		return pxEdit(kuardRoute(), func(r *contourv1.Route) { r.Services[0].ResponseHeadersPolicy = &p })
	}
	pxRunStatusCases(t, []any{pxBackend("default", "kuard")}, []pxStatusCase{
		{"route request: duplicate set, any case", routeReq(contourv1.HeadersPolicy{Set: pxHV("x-foo", "a", "X-FOO", "b")}),
			pxInvalid(`RouteError/RequestHeadersPolicyInvalid: duplicate header addition: "X-Foo" on request headers`)},
		{"route request: duplicate remove", routeReq(contourv1.HeadersPolicy{Remove: []string{"x-foo", "X-Foo"}}),
			pxInvalid(`RouteError/RequestHeadersPolicyInvalid: duplicate header removal: "X-Foo" on request headers`)},
		{"route request: invalid set name", routeReq(contourv1.HeadersPolicy{Set: pxHV("x foo", "a")}),
			pxInvalid(`RouteError/RequestHeadersPolicyInvalid: invalid set header "x foo": [a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')] on request headers`)},
		{"route request: invalid remove name", routeReq(contourv1.HeadersPolicy{Remove: []string{"x@foo"}}),
			pxInvalid(`RouteError/RequestHeadersPolicyInvalid: invalid remove header "x@foo": *`)},
		{"route request: Host twice", routeReq(contourv1.HeadersPolicy{Set: pxHV("Host", "a", "host", "b")}),
			pxValid()},
		{"route response: Host", routeResp(contourv1.HeadersPolicy{Set: pxHV("host", "a")}),
			pxInvalid(`RouteError/ResponseHeaderPolicyInvalid: rewriting "Host" header is not supported on response headers`)},
		{"route response: duplicate set", routeResp(contourv1.HeadersPolicy{Set: pxHV("x-a", "1", "x-a", "2")}),
			pxInvalid(`RouteError/ResponseHeaderPolicyInvalid: duplicate header addition: "X-A" on response headers`)},
		{"service request: duplicate set", svcReq(contourv1.HeadersPolicy{Set: pxHV("x-a", "1", "x-a", "2")}),
			pxInvalid(`ServiceError/RequestHeadersPolicyInvalid: duplicate header addition: "X-A" on request headers`)},
		{"service request: invalid remove", svcReq(contourv1.HeadersPolicy{Remove: []string{"a b"}}),
			pxInvalid(`ServiceError/RequestHeadersPolicyInvalid: invalid remove header "a b": *`)},
		{"service response: Host", svcResp(contourv1.HeadersPolicy{Set: pxHV("Host", "a")}),
			pxInvalid(`ServiceError/ResponseHeadersPolicyInvalid: rewriting "Host" header is not supported on response headers`)},
		{"service response: duplicate removal", svcResp(contourv1.HeadersPolicy{Remove: []string{"x-a", "x-A"}}),
			pxInvalid(`ServiceError/ResponseHeadersPolicyInvalid: duplicate header removal: "X-A" on response headers`)},
		{"route cookie rewrite: duplicate", pxEdit(kuardRoute(), func(r *contourv1.Route) {
			r.CookieRewritePolicies = []contourv1.CookieRewritePolicy{{Name: "a", Secure: refOf(true)}, {Name: "a", Secure: refOf(false)}}
		}), pxInvalid(`RouteError/CookieRewritePoliciesInvalid: duplicate cookie rewrite rule for cookie "a" on route cookie rewrite rules`)},
		{"route cookie rewrite: nothing rewritten", pxEdit(kuardRoute(), func(r *contourv1.Route) {
			r.CookieRewritePolicies = []contourv1.CookieRewritePolicy{{Name: "a"}}
		}), pxInvalid(`RouteError/CookieRewritePoliciesInvalid: no attributes rewritten for cookie "a" on route cookie rewrite rules`)},
		{"service cookie rewrite: nothing rewritten", pxEdit(kuardRoute(), func(r *contourv1.Route) {
			r.Services[0].CookieRewritePolicies = []contourv1.CookieRewritePolicy{{Name: "b"}}
		}), pxInvalid(`RouteError/CookieRewritePoliciesInvalid: no attributes rewritten for cookie "b" on service cookie rewrite rules`)},
	})
}

// TestHTTPProxyServiceDynamicHostHeader: with no configuration file
// Contour's default header policy is empty but not nil
// (cmd/contour/serve.go:1053-1083), so headersPolicyService only refuses a
// dynamic Host coming from that default policy (internal/dag/
// policy.go:130-139). A service's own "%REQ(...)%" Host is accepted and,
// as weighted clusters only carry literal host rewrites, has no effect.
func TestHTTPProxyServiceDynamicHostHeader(t *testing.T) {
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(pxEdit(pxRouteTo(pxSvc("kuard", 80)), func(r *contourv1.Route) {
		r.Services[0].RequestHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("Host", "%REQ(x-host)%")}
	}))))
	if st := pxMustStatus(t, res, "default", "root"); st.CurrentStatus != "valid" {
		t.Errorf("%q, want valid: a service-level %%REQ(...)%% Host is accepted when no default header policy sets Host (internal/dag/policy.go:118-139)", pxDetails(st.Conditions[0].Errors))
	}
	pxCheck(t, res, "default", "root", pxValid())
	pxCheckRoutes(t, res, pxHTTPRC, "example.com", "prefix / -> "+pxKuard)
}

func TestHTTPProxyHeaderPolicyOutput(t *testing.T) {
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(
		pxEdit(pxRoute(pxConds(pxPrefix("/literal")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
			r.RequestHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("x-b", "2", "x-a", "1", "host", "www.example.org"), Remove: []string{"x-z", "X-y"}}
			r.ResponseHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("x-resp", "yes"), Remove: []string{"server"}}
		}),
		pxEdit(pxRoute(pxConds(pxPrefix("/dynamic")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
			r.RequestHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("Host", "%REQ(x-target-host)%")}
		}),
		pxEdit(pxRoute(pxConds(pxPrefix("/service")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
			r.Services[0].RequestHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("x-svc", "1", "Host", "svc.example.org"), Remove: []string{"x-drop"}}
			r.Services[0].ResponseHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("x-svc-resp", "1")}
		}),
		pxEdit(pxRoute(pxConds(pxPrefix("/redirect"))), func(r *contourv1.Route) {
			r.RequestRedirectPolicy = &contourv1.HTTPRequestRedirectPolicy{Hostname: refOf("example.org")}
			r.RequestHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("x-ignored", "1")}
		}),
	)))
	pxCheck(t, res, "default", "root", pxValid())
	routes := pxRoutesOf(res, pxHTTPRC, "example.com")
	// A literal Host is the upstream SNI, which is part of the cluster name
	// even for plain HTTP (internal/envoy/cluster.go:59).
	lit := mustRouteWithMatch(t, routes, wantPrefix("/literal"))
	if got := lit.GetRoute().GetCluster(); got != "default/kuard/80/eb0dbb3418" {
		t.Errorf("/literal cluster %s, want default/kuard/80/eb0dbb3418", got)
	}
	if lit.GetRoute().GetHostRewriteLiteral() != "www.example.org" {
		t.Errorf("/literal host rewrite %v", lit.GetRoute().GetHostRewriteSpecifier())
	}
	if got := pxHeaderOpts(lit.RequestHeadersToAdd); got != "X-A=1(OVERWRITE_IF_EXISTS_OR_ADD) X-B=2(OVERWRITE_IF_EXISTS_OR_ADD)" {
		t.Errorf("/literal request headers %s", got)
	}
	if got := strings.Join(lit.RequestHeadersToRemove, " "); got != "X-Y X-Z" {
		t.Errorf("/literal request headers removed %s", got)
	}
	if got := pxHeaderOpts(lit.ResponseHeadersToAdd); got != "X-Resp=yes(OVERWRITE_IF_EXISTS_OR_ADD)" || strings.Join(lit.ResponseHeadersToRemove, " ") != "Server" {
		t.Errorf("/literal response headers %s, removed %v", got, lit.ResponseHeadersToRemove)
	}
	dyn := mustRouteWithMatch(t, routes, wantPrefix("/dynamic"))
	if dyn.GetRoute().GetHostRewriteHeader() != "X-Target-Host" || dyn.GetRoute().GetCluster() != pxKuard {
		t.Errorf("/dynamic action %v", dyn.GetRoute())
	}
	svcRoute := mustRouteWithMatch(t, routes, wantPrefix("/service"))
	wc := svcRoute.GetRoute().GetWeightedClusters().GetClusters()
	if len(wc) != 1 {
		t.Fatalf("/service: a service header policy needs a weighted cluster, got %v", svcRoute.GetRoute())
	}
	if wc[0].Name != pxClusterForSNI("svc.example.org") {
		t.Errorf("/service cluster %s", wc[0].Name)
	}
	if wc[0].GetHostRewriteLiteral() != "svc.example.org" || pxHeaderOpts(wc[0].RequestHeadersToAdd) != "X-Svc=1(OVERWRITE_IF_EXISTS_OR_ADD)" ||
		strings.Join(wc[0].RequestHeadersToRemove, " ") != "X-Drop" || pxHeaderOpts(wc[0].ResponseHeadersToAdd) != "X-Svc-Resp=1(OVERWRITE_IF_EXISTS_OR_ADD)" ||
		wc[0].Weight.GetValue() != 1 {
		t.Errorf("/service weighted cluster %v", wc[0])
	}
	red := mustRouteWithMatch(t, routes, wantPrefix("/redirect"))
	if red.GetRedirect().GetHostRedirect() != "example.org" || len(red.RequestHeadersToAdd) != 0 {
		t.Errorf("/redirect: %v (header policies do not apply to redirects)", red)
	}
}

// pxClusterForSNI is kuard:80's cluster name when its SNI is sni.
func pxClusterForSNI(sni string) string {
	return "default/kuard/80/" + dag.ShortSHA1([]byte(sni))
}

func pxHeaderOpts(hs []*corev3.HeaderValueOption) string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Header.Key+"="+h.Header.Value+"("+h.AppendAction.String()+")")
	}
	return strings.Join(out, " ")
}

// pxHeaderValue is the value the route (or its only weighted cluster) sets
// for key.
func pxHeaderValue(r *routev3.Route, key string, onCluster bool) string {
	hs := r.RequestHeadersToAdd
	if onCluster {
		hs = r.GetRoute().GetWeightedClusters().GetClusters()[0].RequestHeadersToAdd
	}
	for _, h := range hs {
		if h.Header.Key == key {
			return h.Header.Value
		}
	}
	return "<unset>"
}

func TestHTTPProxyHeaderVariables(t *testing.T) {
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxBackend("teama", "app"),
		pxRoot(pxRoutes(
			pxEdit(pxRoute(pxConds(pxPrefix("/one")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
				r.RequestHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("x-route", "%CONTOUR_NAMESPACE%/%CONTOUR_SERVICE_NAME%:%CONTOUR_SERVICE_PORT%")}
				r.Services[0].RequestHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("x-svc", "%CONTOUR_NAMESPACE%/%CONTOUR_SERVICE_NAME%:%CONTOUR_SERVICE_PORT%")}
			}),
			pxEdit(pxRoute(pxConds(pxPrefix("/two")), pxSvc("kuard", 8443)), func(r *contourv1.Route) {
				r.RequestHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("x-route", "%CONTOUR_SERVICE_NAME%:%CONTOUR_SERVICE_PORT%")}
			}),
			pxEdit(pxRoute(pxConds(pxPrefix("/escape")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
				r.RequestHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV(
					"x-percent", "50% off",
					"x-envoy", "%DOWNSTREAM_REMOTE_ADDRESS% %HOSTNAME%",
					"x-req", "%REQ(x-foo)% %REQ(:path?x-bar):10% %REQ(bad header)%",
					"x-unknown", "%START_TIME% %CONTOUR_SECRET%",
				)}
				r.ResponseHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("x-resp", "%RESPONSE_FLAGS%/%PROTOCOL%/%CONTOUR_NAMESPACE%")}
			}),
		), pxIncludes(pxInclude("child", "teama", pxPrefix("/child")))),
		pxProxy("teama", "child", pxRoutes(pxEdit(pxRouteTo(pxSvc("app", 80)), func(r *contourv1.Route) {
			r.RequestHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("x-route", "%CONTOUR_NAMESPACE%/%CONTOUR_SERVICE_NAME%")}
		}))))
	pxCheck(t, res, "default", "root", pxValid())
	routes := pxRoutesOf(res, pxHTTPRC, "example.com")
	one := mustRouteWithMatch(t, routes, wantPrefix("/one"))
	two := mustRouteWithMatch(t, routes, wantPrefix("/two"))
	esc := mustRouteWithMatch(t, routes, wantPrefix("/escape"))
	child := mustRouteWithMatch(t, routes, wantPrefix("/child"))
	for _, tt := range []struct {
		name      string
		route     *routev3.Route
		key       string
		onCluster bool
		want      string
	}{
		// The first route's own policy runs before any service is seen.
		{"route one", one, "X-Route", false, "default/%%CONTOUR_SERVICE_NAME%%:%%CONTOUR_SERVICE_PORT%%"},
		// A service's policy sees that service.
		{"service of route one", one, "X-Svc", true, "default/kuard:80"},
		// Route n sees route n-1's last service (Contour shares the map).
		{"route two", two, "X-Route", false, "kuard:80"},
		{"literal percent", esc, "X-Percent", false, "50%% off"},
		{"envoy variables", esc, "X-Envoy", false, "%DOWNSTREAM_REMOTE_ADDRESS% %HOSTNAME%"},
		{"request header variables", esc, "X-Req", false, "%REQ(x-foo)% %REQ(:path?x-bar):10% %%REQ(bad header)%%"},
		{"unknown variables", esc, "X-Unknown", false, "%%START_TIME%% %%CONTOUR_SECRET%%"},
		// An included proxy has its own variables: its namespace, no
		// service seen yet.
		{"included route", child, "X-Route", false, "teama/%%CONTOUR_SERVICE_NAME%%"},
	} {
		if got := pxHeaderValue(tt.route, tt.key, tt.onCluster); got != tt.want {
			t.Errorf("%s: %s = %q, want %q", tt.name, tt.key, got, tt.want)
		}
	}
	if got := pxHeaderOpts(esc.ResponseHeadersToAdd); got != "X-Resp=%RESPONSE_FLAGS%/%PROTOCOL%/default(OVERWRITE_IF_EXISTS_OR_ADD)" {
		t.Errorf("response header %s", got)
	}
}

// TestHTTPProxyHostRewriteHeaderPattern: Contour finds the header of a
// dynamic Host with the unanchored `%REQ\(([A-Za-z0-9-]+)\)%`
// (internal/dag/policy.go:61,228-236).
func TestHTTPProxyHostRewriteHeaderPattern(t *testing.T) {
	for _, tt := range []struct{ value, header, literal string }{
		{"%REQ(x-host)%", "X-Host", ""},
		{"%REQ(x-host)%:8080", "X-Host", ""},
		{"%REQ(x_host)%", "", "%REQ(x_host)%"},
		{"%REQ( x-host )%", "", "%REQ( x-host )%"},
	} {
		t.Run(tt.value, func(t *testing.T) {
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(pxEdit(pxRouteTo(pxSvc("kuard", 80)), func(r *contourv1.Route) {
				r.RequestHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("Host", tt.value)}
			}))))
			ra := pxRoutesOf(res, pxHTTPRC, "example.com")[0].GetRoute()
			if ra.GetHostRewriteHeader() != tt.header || ra.GetHostRewriteLiteral() != tt.literal {
				t.Errorf("Host %q gives host_rewrite_header %q, literal %q; want header %q, literal %q (internal/dag/policy.go:61,228-236)", tt.value, ra.GetHostRewriteHeader(), ra.GetHostRewriteLiteral(), tt.header, tt.literal)
			}
		})
	}
}

func TestHTTPProxyPrefixRewrite(t *testing.T) {
	rewrite := func(r contourv1.Route, rs ...contourv1.ReplacePrefix) contourv1.Route {
		return pxEdit(r, func(r *contourv1.Route) { r.PathRewritePolicy = &contourv1.PathRewritePolicy{ReplacePrefix: rs} })
	}
	to := func(cs ...contourv1.MatchCondition) contourv1.Route { return pxRoute(cs, pxSvc("kuard", 80)) }
	rp := func(prefix, replacement string) contourv1.ReplacePrefix {
		return contourv1.ReplacePrefix{Prefix: prefix, Replacement: replacement}
	}
	t.Run("errors", func(t *testing.T) {
		pxRunStatusCases(t, []any{pxBackend("default", "kuard")}, []pxStatusCase{
			{"exact path", rewrite(to(pxExact("/foo")), rp("", "/bar")),
				pxInvalid("PrefixReplaceError/MustHavePrefix: cannot specify prefix replacements without a prefix condition")},
			{"regex path", rewrite(to(pxRegex("/foo.*")), rp("", "/bar")),
				pxInvalid("PrefixReplaceError/MustHavePrefix: cannot specify prefix replacements without a prefix condition")},
			{"duplicate prefix", rewrite(to(pxPrefix("/foo")), rp("/foo", "/a"), rp("/foo", "/b")),
				pxInvalid("PrefixReplaceError/DuplicateReplacement: duplicate replacement prefix '/foo'")},
			{"two defaults", rewrite(to(pxPrefix("/foo")), rp("", "/a"), rp("", "/b")),
				pxInvalid("PrefixReplaceError/AmbiguousReplacement: ambiguous prefix replacement")},
			{"no condition is the prefix /", rewrite(to(), rp("", "/app")), pxValid()},
		})
	})
	tests := []struct {
		name   string
		routes []contourv1.Route
		want   []string // "prefix -> rewrite"
	}{
		{"a lone prefix is split in two", []contourv1.Route{rewrite(to(pxPrefix("/foo")), rp("", "/bar"))},
			[]string{"/foo/ -> /bar/", "/foo -> /bar"}},
		{"trailing slashes are trimmed", []contourv1.Route{rewrite(to(pxPrefix("/foo/")), rp("", "/bar/"))},
			[]string{"/foo/ -> /bar/", "/foo -> /bar"}},
		{"rewrite to /", []contourv1.Route{rewrite(to(pxPrefix("/foo")), rp("", "/"))},
			[]string{"/foo/ -> /", "/foo -> /"}},
		{"the entry naming the route's prefix wins", []contourv1.Route{
			rewrite(to(pxPrefix("/api")), rp("", "/default"), rp("/api", "/v1")),
			rewrite(to(pxPrefix("/other")), rp("/api", "/v1"), rp("", "/default"))},
			[]string{"/other/ -> /default/", "/other -> /default", "/api/ -> /v1/", "/api -> /v1"}},
		{"no matching entry and no default: no rewrite", []contourv1.Route{rewrite(to(pxPrefix("/foo")), rp("/bar", "/baz"))},
			[]string{"/foo -> "}},
		{"both forms given: kept as they are", []contourv1.Route{
			rewrite(to(pxPrefix("/foo")), rp("", "/a")), rewrite(to(pxPrefix("/foo/")), rp("", "/b/"))},
			[]string{"/foo/ -> /b/", "/foo -> /a"}},
		{"the root prefix is not split", []contourv1.Route{rewrite(to(), rp("", "/app"))},
			[]string{"/ -> /app"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(tt.routes...)))
			pxCheck(t, res, "default", "root", pxValid())
			var got []string
			for _, r := range pxRoutesOf(res, pxHTTPRC, "example.com") {
				got = append(got, r.Match.GetPrefix()+" -> "+r.GetRoute().GetPrefixRewrite())
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("routes %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("included: the merged prefix selects the entry", func(t *testing.T) {
		res := pxTranslate(t, Options{}, pxBackend("teama", "app"),
			pxRoot(pxIncludes(pxInclude("app", "teama", pxPrefix("/api")))),
			pxProxy("teama", "app", pxRoutes(pxEdit(pxRouteTo(pxSvc("app", 80)), func(r *contourv1.Route) {
				r.PathRewritePolicy = &contourv1.PathRewritePolicy{ReplacePrefix: []contourv1.ReplacePrefix{rp("/api", "/"), rp("", "/unused")}}
			}))))
		var got []string
		for _, r := range pxRoutesOf(res, pxHTTPRC, "example.com") {
			got = append(got, r.Match.GetPrefix()+" -> "+r.GetRoute().GetPrefixRewrite())
		}
		if want := "/api/ -> /|/api -> /"; strings.Join(got, "|") != want {
			t.Errorf("routes %q, want %s", got, want)
		}
	})
}

func TestHTTPProxyRedirectAndDirectResponse(t *testing.T) {
	redirect := func(p contourv1.HTTPRequestRedirectPolicy) contourv1.Route {
		return pxEdit(pxRoute(pxConds(pxPrefix("/r"))), func(r *contourv1.Route) { r.RequestRedirectPolicy = &p })
	}
	t.Run("path and prefix", func(t *testing.T) {
		pxRunStatusCases(t, []any{pxBackend("default", "kuard")}, []pxStatusCase{
			{"both", redirect(contourv1.HTTPRequestRedirectPolicy{Path: refOf("/a"), Prefix: refOf("/b")}),
				pxInvalid("RouteError/RequestRedirectPolicy: route.requestRedirectPolicy is invalid: cannot specify both redirect path and redirect prefix")},
		})
	})
	code := func(c contourv1.RedirectResponseCode) *contourv1.RedirectResponseCode { return &c }
	for _, tt := range []struct {
		name   string
		policy contourv1.HTTPRequestRedirectPolicy
		want   *routev3.RedirectAction
	}{
		{"everything, 301", contourv1.HTTPRequestRedirectPolicy{Scheme: refOf("https"), Hostname: refOf("example.org"), Port: refOf(int32(8443)), StatusCode: code(301), Path: refOf("/new")},
			&routev3.RedirectAction{SchemeRewriteSpecifier: &routev3.RedirectAction_SchemeRedirect{SchemeRedirect: "https"}, HostRedirect: "example.org", PortRedirect: 8443,
				PathRewriteSpecifier: &routev3.RedirectAction_PathRedirect{PathRedirect: "/new"}}},
		{"prefix, 302", contourv1.HTTPRequestRedirectPolicy{StatusCode: code(302), Prefix: refOf("/v2")},
			&routev3.RedirectAction{PathRewriteSpecifier: &routev3.RedirectAction_PrefixRewrite{PrefixRewrite: "/v2"}, ResponseCode: routev3.RedirectAction_FOUND}},
		{"no code: Envoy's 301", contourv1.HTTPRequestRedirectPolicy{Hostname: refOf("example.org")},
			&routev3.RedirectAction{HostRedirect: "example.org"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, pxRoot(pxRoutes(redirect(tt.policy))))
			pxCheck(t, res, "default", "root", pxValid())
			r := pxRoutesOf(res, pxHTTPRC, "example.com")[0]
			if !proto.Equal(r.GetRedirect(), tt.want) {
				t.Errorf("redirect %v, want %v", r.GetRedirect(), tt.want)
			}
		})
	}
	t.Run("direct responses", func(t *testing.T) {
		res := pxTranslate(t, Options{}, pxRoot(pxRoutes(
			pxEdit(pxRoute(pxConds(pxPrefix("/teapot"))), func(r *contourv1.Route) {
				r.DirectResponsePolicy = &contourv1.HTTPDirectResponsePolicy{StatusCode: 418, Body: "I'm a teapot"}
			}),
			pxEdit(pxRoute(pxConds(pxPrefix("/empty"))), func(r *contourv1.Route) {
				r.DirectResponsePolicy = &contourv1.HTTPDirectResponsePolicy{StatusCode: 204}
			}))))
		pxCheck(t, res, "default", "root", pxValid())
		routes := pxRoutesOf(res, pxHTTPRC, "example.com")
		tea := mustRouteWithMatch(t, routes, wantPrefix("/teapot")).GetDirectResponse()
		if tea.GetStatus() != 418 || tea.GetBody().GetInlineString() != "I'm a teapot" {
			t.Errorf("/teapot %v", tea)
		}
		if empty := mustRouteWithMatch(t, routes, wantPrefix("/empty")).GetDirectResponse(); empty.GetStatus() != 204 || empty.Body != nil {
			t.Errorf("/empty %v", empty)
		}
	})
}

func TestHTTPProxyTimeoutsAndRetries(t *testing.T) {
	timeouts := func(tp contourv1.TimeoutPolicy) contourv1.Route {
		return pxEdit(pxRoute(pxConds(pxPrefix("/t")), pxSvc("kuard", 80)), func(r *contourv1.Route) { r.TimeoutPolicy = &tp })
	}
	t.Run("errors", func(t *testing.T) {
		pxRunStatusCases(t, []any{pxBackend("default", "kuard")}, []pxStatusCase{
			{"response", timeouts(contourv1.TimeoutPolicy{Response: "abc"}),
				pxInvalid(`RouteError/TimeoutPolicyNotValid: route.timeoutPolicy failed to parse: error parsing response timeout: unable to parse timeout string "abc": time: invalid duration "abc"`)},
			{"idle", timeouts(contourv1.TimeoutPolicy{Idle: "1x"}),
				pxInvalid(`RouteError/TimeoutPolicyNotValid: route.timeoutPolicy failed to parse: error parsing idle timeout: unable to parse timeout string "1x": time: unknown unit "x" in duration "1x"`)},
			{"idle connection", timeouts(contourv1.TimeoutPolicy{IdleConnection: "forever"}),
				pxInvalid(`RouteError/TimeoutPolicyNotValid: route.timeoutPolicy failed to parse: error parsing idle connection timeout: unable to parse timeout string "forever": time: invalid duration "forever"`)},
		})
	})
	for _, tt := range []struct {
		name                string
		policy              contourv1.TimeoutPolicy
		response, idle      string // "" when unset
		cluster, clusterIdl string
	}{
		{"unset", contourv1.TimeoutPolicy{}, "", "", pxKuard, ""},
		{"values", contourv1.TimeoutPolicy{Response: "30s", Idle: "1m"}, "30s", "1m0s", pxKuard, ""},
		{"infinity", contourv1.TimeoutPolicy{Response: "infinity", Idle: "infinite"}, "0s", "0s", pxKuard, ""},
		{"zero is the default", contourv1.TimeoutPolicy{Response: "0s"}, "", "", pxKuard, ""},
		{"idle connection", contourv1.TimeoutPolicy{IdleConnection: "30s"}, "", "", "default/kuard/80/790739d6ba", "30s"},
		{"idle connection infinity", contourv1.TimeoutPolicy{IdleConnection: "infinity"}, "", "", "default/kuard/80/97705cb30a", "0s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(timeouts(tt.policy))))
			pxCheck(t, res, "default", "root", pxValid())
			ra := pxRoutesOf(res, pxHTTPRC, "example.com")[0].GetRoute()
			if d := pxDur(ra.Timeout); d != tt.response {
				t.Errorf("timeout %q, want %q", d, tt.response)
			}
			if d := pxDur(ra.IdleTimeout); d != tt.idle {
				t.Errorf("idle_timeout %q, want %q", d, tt.idle)
			}
			if ra.GetCluster() != tt.cluster {
				t.Fatalf("cluster %s, want %s", ra.GetCluster(), tt.cluster)
			}
			if got := pxDur(pxHTTPOptions(t, mustCluster(t, res, tt.cluster)).GetCommonHttpProtocolOptions().GetIdleTimeout()); got != tt.clusterIdl {
				t.Errorf("cluster idle_timeout %q, want %q", got, tt.clusterIdl)
			}
		})
	}
	for _, tt := range []struct {
		name   string
		policy contourv1.RetryPolicy
		want   *routev3.RetryPolicy
	}{
		{"count -1 disables", contourv1.RetryPolicy{NumRetries: -1}, &routev3.RetryPolicy{RetryOn: "5xx", NumRetries: wrapperspb.UInt32(0)}},
		{"count 0 is 1", contourv1.RetryPolicy{NumRetries: 0}, &routev3.RetryPolicy{RetryOn: "5xx", NumRetries: wrapperspb.UInt32(1)}},
		{"count 1", contourv1.RetryPolicy{NumRetries: 1}, &routev3.RetryPolicy{RetryOn: "5xx", NumRetries: wrapperspb.UInt32(1)}},
		{"count 7, per-try timeout, retry on, codes", contourv1.RetryPolicy{NumRetries: 7, PerTryTimeout: "250ms",
			RetryOn: []contourv1.RetryOn{"gateway-error", "retriable-status-codes"}, RetriableStatusCodes: []uint32{502, 503}},
			&routev3.RetryPolicy{RetryOn: "gateway-error,retriable-status-codes", NumRetries: wrapperspb.UInt32(7), PerTryTimeout: pxDurProto("250ms"), RetriableStatusCodes: []uint32{502, 503}}},
		{"an invalid per-try timeout is left out", contourv1.RetryPolicy{NumRetries: 2, PerTryTimeout: "soon"}, &routev3.RetryPolicy{RetryOn: "5xx", NumRetries: wrapperspb.UInt32(2)}},
	} {
		t.Run("retry "+tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(pxEdit(pxRouteTo(pxSvc("kuard", 80)), func(r *contourv1.Route) {
				p := tt.policy
				r.RetryPolicy = &p
			}))))
			pxCheck(t, res, "default", "root", pxValid())
			if got := pxRoutesOf(res, pxHTTPRC, "example.com")[0].GetRoute().GetRetryPolicy(); !proto.Equal(got, tt.want) {
				t.Errorf("retry policy %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHTTPProxyHealthChecks(t *testing.T) {
	health := func(hc contourv1.HTTPHealthCheckPolicy) contourv1.Route {
		return pxEdit(pxRoute(pxConds(pxPrefix("/hc")), pxSvc("kuard", 80)), func(r *contourv1.Route) { r.HealthCheckPolicy = &hc })
	}
	status := func(start, end int64) contourv1.HTTPHealthCheckPolicy {
		return contourv1.HTTPHealthCheckPolicy{Path: "/hz", ExpectedStatuses: []contourv1.HTTPStatusRange{{Start: 200, End: 300}, {Start: start, End: end}}}
	}
	const startErr = "RouteError/HealthCheckPolicyInvalid: invalid expected status range: start must be in the range [100, 599]"
	const endErr = "RouteError/HealthCheckPolicyInvalid: invalid expected status range: end must be in the range [101, 600]"
	pxRunStatusCases(t, []any{pxBackend("default", "kuard")}, []pxStatusCase{
		{"start 99", health(status(99, 200)), pxInvalid(startErr)},
		{"start 600", health(status(600, 601)), pxInvalid(startErr)},
		{"end 100", health(status(100, 100)), pxInvalid(endErr)},
		{"end 601", health(status(500, 601)), pxInvalid(endErr)},
		{"bounds", health(status(100, 600)), pxValid()},
	})

	t.Run("defaults", func(t *testing.T) {
		res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(health(status(500, 501)))))
		c := mustCluster(t, res, "default/kuard/80/57f6bd8855")
		if len(c.HealthChecks) != 1 {
			t.Fatalf("health checks %v", c.HealthChecks)
		}
		hc := c.HealthChecks[0]
		h := hc.GetHttpHealthCheck()
		if pxDur(hc.Timeout) != "2s" || pxDur(hc.Interval) != "10s" || hc.UnhealthyThreshold.GetValue() != 3 || hc.HealthyThreshold.GetValue() != 2 ||
			h.GetPath() != "/hz" || h.GetHost() != "contour-envoy-healthcheck" || len(h.ExpectedStatuses) != 2 || h.ExpectedStatuses[1].Start != 500 || h.ExpectedStatuses[1].End != 501 {
			t.Errorf("health check %v", hc)
		}
		if !c.IgnoreHealthOnHostRemoval {
			t.Errorf("ignore_health_on_host_removal not set")
		}
	})
	t.Run("health port", func(t *testing.T) {
		objs := []any{
			mkService("default", "kuard", mkPort("http", 80), mkPort("health", 8081)),
			mkEndpointSlice("default", "kuard-abc", "kuard", []discoveryv1.EndpointPort{mkSlicePort("http", 8080), mkSlicePort("health", 9001)}, mkEndpoint(nil, "10.0.0.1")),
		}
		withHealthPort := func(hc *contourv1.HTTPHealthCheckPolicy) contourv1.Route {
			return pxEdit(pxRouteTo(pxSvc("kuard", 80)), func(r *contourv1.Route) {
				r.Services[0].HealthPort = 8081
				r.HealthCheckPolicy = hc
			})
		}
		res := pxTranslate(t, Options{}, objs, pxRoot(pxRoutes(withHealthPort(&contourv1.HTTPHealthCheckPolicy{Path: "/hz"}))))
		pxCheck(t, res, "default", "root", pxValid())
		lb := findCLA(res, "default/kuard/http").GetEndpoints()[0].GetLbEndpoints()[0].GetEndpoint()
		if lb.GetAddress().GetSocketAddress().GetPortValue() != 8080 || lb.GetHealthCheckConfig().GetPortValue() != 9001 {
			t.Errorf("endpoint %v, want port 8080 health-checked on 9001", lb)
		}
		// Without a health check policy the health port is ignored.
		res = pxTranslate(t, Options{}, objs, pxRoot(pxRoutes(withHealthPort(nil))))
		lb = findCLA(res, "default/kuard/http").GetEndpoints()[0].GetLbEndpoints()[0].GetEndpoint()
		if lb.GetHealthCheckConfig() != nil {
			t.Errorf("endpoint %v has a health check port", lb)
		}
		// A health port the Service lacks is an unresolved reference.
		res = pxTranslate(t, Options{}, objs, pxRoot(pxRoutes(pxEdit(withHealthPort(&contourv1.HTTPHealthCheckPolicy{Path: "/hz"}), func(r *contourv1.Route) {
			r.Services[0].HealthPort = 9999
		}))))
		pxCheck(t, res, "default", "root", pxInvalid(`ServiceError/ServiceUnresolvedReference: Spec.Routes unresolved service reference: port "9999" on service "default/kuard" not matched`))
		pxCheckRoutes(t, res, pxHTTPRC, "example.com", "prefix / -> 503")
	})
	t.Run("settings outside the name are shared", func(t *testing.T) {
		// host and expected statuses are not part of the cluster name, so
		// both routes use one cluster (first one wins, §C.3).
		res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(
			pxEdit(pxRoute(pxConds(pxPrefix("/a")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
				r.HealthCheckPolicy = &contourv1.HTTPHealthCheckPolicy{Path: "/hz", Host: "a.example.com"}
			}),
			pxEdit(pxRoute(pxConds(pxPrefix("/b")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
				r.HealthCheckPolicy = &contourv1.HTTPHealthCheckPolicy{Path: "/hz", Host: "b.example.com"}
			}))))
		pxCheckRoutes(t, res, pxHTTPRC, "example.com", "prefix /b -> default/kuard/80/57f6bd8855", "prefix /a -> default/kuard/80/57f6bd8855")
		if n := len(res.Resources.Clusters); n != 1 {
			t.Errorf("%d clusters, want 1: %v", n, pxClusterNames(res))
		}
	})
}

func TestHTTPProxyServices(t *testing.T) {
	c := testpki.Certs(t)
	objs := pxFlat(pxBackend("default", "kuard"), pxBackend("default", "other"),
		mkService("default", "udp", corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}),
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ext"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.org", Ports: []corev1.ServicePort{mkPort("http", 80)}}},
		testpki.Secret("default", "ca", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}),
		testpki.Secret("certs", "ca", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}))
	services := func(ss ...contourv1.Service) contourv1.Route { return pxRoute(pxConds(pxPrefix("/s")), ss...) }
	weighted := func(name string, port int, w int64) contourv1.Service {
		return pxEdit(pxSvc(name, port), func(s *contourv1.Service) { s.Weight = w })
	}
	mirror := func(name string, w int64) contourv1.Service {
		return pxEdit(pxSvc(name, 80), func(s *contourv1.Service) { s.Mirror, s.Weight = true, w })
	}
	tlsTo := func(uv contourv1.UpstreamValidation) contourv1.Service {
		return pxEdit(pxSvc("kuard", 8443), func(s *contourv1.Service) { s.Protocol, s.UpstreamValidation = refOf("tls"), &uv })
	}
	const unresolved = "ServiceError/ServiceUnresolvedReference: Spec.Routes unresolved service reference: "
	tests := []struct {
		name   string
		route  contourv1.Route
		status pxWant
		route1 string // the /s route summary; "" when none
	}{
		{"port 0", services(pxSvc("kuard", 0)), pxInvalid(`ServiceError/ServicePortInvalid: service "kuard": port must be in the range 1-65535`), ""},
		{"port 65536", services(pxSvc("kuard", 80), pxSvc("kuard", 65536)), pxInvalid(`ServiceError/ServicePortInvalid: service "kuard": port must be in the range 1-65535`), ""},
		{"missing service: the others still get traffic", services(pxSvc("kuard", 80), pxSvc("missing", 80)),
			pxInvalid(unresolved + `service "default/missing" not found`), "prefix /s -> " + pxKuard},
		{"no service left: 503", services(pxSvc("kuard", 81), pxSvc("udp", 53)),
			pxInvalid(unresolved+`port "81" on service "default/kuard" not matched`, unresolved+`unsupported service protocol "UDP"`), "prefix /s -> 503"},
		{"ExternalName service", services(pxSvc("ext", 80)),
			pxInvalid(unresolved + "default/ext is an ExternalName service, these are not currently enabled. See the config.enableExternalNameService config file setting"), "prefix /s -> 503"},
		{"unsupported protocol", services(pxEdit(pxSvc("kuard", 80), func(s *contourv1.Service) { s.Protocol = refOf("http") })),
			pxInvalid("ServiceError/UnsupportedProtocol: unsupported protocol: http"), ""},
		{"protocol h2", services(pxEdit(pxSvc("kuard", 8443), func(s *contourv1.Service) { s.Protocol = refOf("h2") })),
			pxValid(), "prefix /s -> default/kuard/8443/bf1c365741"},
		{"protocol h2c", services(pxEdit(pxSvc("kuard", 80), func(s *contourv1.Service) { s.Protocol = refOf("h2c") })),
			pxValid(), "prefix /s -> default/kuard/80/f4f94965ec"},
		{"two mirrors", services(pxSvc("kuard", 80), mirror("other", 0), mirror("other", 50)),
			pxInvalid("ServiceError/OnlyOneMirror: only one service per route may be nominated as mirror"), ""},
		{"all weights zero: 1 each", services(pxSvc("kuard", 80), pxSvc("other", 80)), pxValid(),
			"prefix /s -> [" + pxKuard + ":1 " + pxPlain("default", "other") + ":1]"},
		{"a zero weight among others stays zero", services(weighted("kuard", 80, 0), weighted("other", 80, 30)), pxValid(),
			"prefix /s -> [" + pxKuard + ":0 " + pxPlain("default", "other") + ":30]"},
		{"one service: weight dropped", services(weighted("kuard", 80, 30)), pxValid(), "prefix /s -> " + pxKuard},
		{"same cluster twice", services(weighted("kuard", 80, 1), weighted("kuard", 80, 3)), pxValid(),
			"prefix /s -> [" + pxKuard + ":1 " + pxKuard + ":3]"},
		{"only a mirror: 503", services(mirror("other", 0)), pxValid(), "prefix /s -> 503"},
		{"upstream validation", services(tlsTo(contourv1.UpstreamValidation{CACertificate: "ca", SubjectName: "backend.example.com"})),
			pxValid(), "prefix /s -> default/kuard/8443/5c9e66e886"},
		{"upstream validation of a plain service is ignored", services(pxEdit(pxSvc("kuard", 80), func(s *contourv1.Service) {
			s.UpstreamValidation = &contourv1.UpstreamValidation{CACertificate: "missing", SubjectName: "x"}
		})), pxValid(), "prefix /s -> " + pxKuard},
		{"upstream validation: missing CA", services(tlsTo(contourv1.UpstreamValidation{CACertificate: "missing", SubjectName: "a"})),
			pxInvalid(`ServiceError/TLSUpstreamValidation: Service [kuard:8443] TLS upstream validation policy error: invalid CA Secret "default/missing": Secret not found`), ""},
		{"upstream validation: CA not delegated", services(tlsTo(contourv1.UpstreamValidation{CACertificate: "certs/ca", SubjectName: "a"})),
			pxInvalid(`TLSError/CACertificateNotDelegated: service.UpstreamValidation.CACertificate Secret "certs/ca" is not configured for certificate delegation`), ""},
		{"upstream validation: no subject name", services(tlsTo(contourv1.UpstreamValidation{CACertificate: "ca"})),
			pxInvalid("ServiceError/TLSUpstreamValidation: Service [kuard:8443] TLS upstream validation policy error: missing subject alternative name"), ""},
		{"upstream validation: subject names disagree", services(tlsTo(contourv1.UpstreamValidation{CACertificate: "ca", SubjectName: "a", SubjectNames: []string{"b", "a"}})),
			pxInvalid("ServiceError/TLSUpstreamValidation: Service [kuard:8443] TLS upstream validation policy error: first entry of SubjectNames (b) does not match SubjectName (a)"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, objs, pxRoot(pxRoutes(pxRouteTo(pxSvc("kuard", 80)), tt.route)))
			pxCheck(t, res, "default", "root", tt.status)
			if tt.route1 == "" {
				pxCheckRoutes(t, res, pxHTTPRC, "example.com")
				return
			}
			pxCheckRoutes(t, res, pxHTTPRC, "example.com", tt.route1, "prefix / -> "+pxKuard)
		})
	}

	t.Run("mirror", func(t *testing.T) {
		for _, tt := range []struct {
			weight int64
			want   uint32
		}{{0, 100}, {25, 25}, {100, 100}} {
			res := pxTranslate(t, Options{}, objs, pxRoot(pxRoutes(services(pxSvc("kuard", 80), mirror("other", tt.weight)))))
			pxCheck(t, res, "default", "root", pxValid())
			ra := pxRoutesOf(res, pxHTTPRC, "example.com")[0].GetRoute()
			m := ra.GetRequestMirrorPolicies()
			if ra.GetCluster() != pxKuard || len(m) != 1 || m[0].Cluster != pxPlain("default", "other") ||
				m[0].RuntimeFraction.DefaultValue.Numerator != tt.want || m[0].RuntimeFraction.DefaultValue.Denominator.String() != "HUNDRED" {
				t.Errorf("weight %d: action %v", tt.weight, ra)
			}
			if findCluster(res, pxPlain("default", "other")) == nil {
				t.Errorf("mirror cluster not published: %v", pxClusterNames(res))
			}
		}
	})

	t.Run("upstream TLS", func(t *testing.T) {
		res := pxTranslate(t, Options{}, objs, pxRoot(pxRoutes(services(tlsTo(contourv1.UpstreamValidation{
			CACertificate: "ca", SubjectName: "backend.example.com", SubjectNames: []string{"backend.example.com", "alt.example.com"},
		})))))
		cl := mustCluster(t, res, "default/kuard/8443/5c9e66e886")
		ctx := &tlsv3.UpstreamTlsContext{}
		if err := cl.GetTransportSocket().GetTypedConfig().UnmarshalTo(ctx); err != nil {
			t.Fatalf("transport socket: %v", err)
		}
		vc := ctx.GetCommonTlsContext().GetValidationContext()
		var sans []string
		for _, m := range vc.GetMatchTypedSubjectAltNames() {
			sans = append(sans, m.SanType.String()+":"+m.GetMatcher().GetExact())
		}
		if string(vc.GetTrustedCa().GetInlineBytes()) != string(c.CertPEM) || strings.Join(sans, ",") != "DNS:backend.example.com,DNS:alt.example.com" {
			t.Errorf("validation context %v", vc)
		}
		if len(ctx.GetCommonTlsContext().GetAlpnProtocols()) != 0 || ctx.Sni != "" {
			t.Errorf("tls: ALPN %v SNI %q", ctx.GetCommonTlsContext().GetAlpnProtocols(), ctx.Sni)
		}
		// HTTPProxy clusters get the configuration's upstream TLS
		// parameters, which `contour serve` always sets
		// (cmd/contour/serve.go:579-584).
		if p := ctx.GetCommonTlsContext().GetTlsParams(); p.GetTlsMinimumProtocolVersion() != tlsv3.TlsParameters_TLSv1_2 ||
			p.GetTlsMaximumProtocolVersion() != tlsv3.TlsParameters_TLSv1_3 || len(p.GetCipherSuites()) != 4 {
			t.Errorf("tls params %v", p)
		}
	})
}

func TestHTTPProxyLoadBalancing(t *testing.T) {
	lb := func(strategy string, hps ...contourv1.RequestHashPolicy) contourv1.Route {
		return pxEdit(pxRouteTo(pxSvc("kuard", 80)), func(r *contourv1.Route) {
			r.LoadBalancerPolicy = &contourv1.LoadBalancerPolicy{Strategy: strategy, RequestHashPolicies: hps}
		})
	}
	header := func(name string) contourv1.RequestHashPolicy {
		return contourv1.RequestHashPolicy{HeaderHashOptions: &contourv1.HeaderHashOptions{HeaderName: name}}
	}
	param := func(name string) contourv1.RequestHashPolicy {
		return contourv1.RequestHashPolicy{QueryParameterHashOptions: &contourv1.QueryParameterHashOptions{ParameterName: name}}
	}
	sourceIP := contourv1.RequestHashPolicy{HashSourceIP: true, Terminal: true}
	const ignored = "SpecError/IgnoredField: "
	const fallback = ignored + "ignoring invalid request hash policy options, setting load balancer strategy to default RoundRobin"
	tests := []struct {
		name    string
		route   contourv1.Route
		status  pxWant
		cluster string
		policy  clusterv3.Cluster_LbPolicy
		hashes  string
	}{
		{"round robin", lb("RoundRobin"), pxValid(), pxKuard, clusterv3.Cluster_ROUND_ROBIN, ""},
		{"unknown strategy", lb("Fastest"), pxValid(), pxKuard, clusterv3.Cluster_ROUND_ROBIN, ""},
		{"weighted least request", lb("WeightedLeastRequest"), pxValid(), "default/kuard/80/8bf87fefba", clusterv3.Cluster_LEAST_REQUEST, ""},
		{"random", lb("Random"), pxValid(), "default/kuard/80/58d888c08a", clusterv3.Cluster_RANDOM, ""},
		{"cookie", lb("Cookie"), pxValid(), "default/kuard/80/e4f81994fe", clusterv3.Cluster_RING_HASH, "cookie:X-Contour-Session-Affinity:/:0s"},
		{"request hash", lb("RequestHash", header("x-user"), param("Session"), sourceIP), pxValid(), "default/kuard/80/1a2ffc1fef", clusterv3.Cluster_RING_HASH,
			"header:X-User query:session terminal:source_ip"},
		{"request hash: invalid entries dropped", lb("RequestHash",
			contourv1.RequestHashPolicy{}, contourv1.RequestHashPolicy{HashSourceIP: true, HeaderHashOptions: &contourv1.HeaderHashOptions{HeaderName: "x"}},
			sourceIP, contourv1.RequestHashPolicy{HashSourceIP: true},
			header("x-user"), header("X-USER"), header("x user"),
			param("q"), param("Q"), param("")),
			pxValid(
				ignored+"ignoring invalid request hash policy, must set exactly one of hashSourceIP or headerHashOptions or queryParameterHashOptions",
				ignored+"ignoring invalid request hash policy, must set exactly one of hashSourceIP or headerHashOptions or queryParameterHashOptions",
				ignored+"ignoring invalid request hash policy, hashSourceIP specified multiple times",
				ignored+"ignoring invalid header hash policy options with duplicated header name X-User",
				ignored+`ignoring invalid header hash policy options with invalid header name "x user": [a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')]`,
				ignored+"ignoring invalid query parameter hash policy options with duplicated query parameter name q",
				ignored+"ignoring invalid query parameter hash policy options with an invalid empty query parameter name"),
			"default/kuard/80/1a2ffc1fef", clusterv3.Cluster_RING_HASH, "terminal:source_ip header:X-User query:q"},
		{"request hash: none valid falls back to round robin", lb("RequestHash", param("")),
			pxValid(ignored+"ignoring invalid query parameter hash policy options with an invalid empty query parameter name", fallback),
			"default/kuard/80/f3b72af6a9", clusterv3.Cluster_ROUND_ROBIN, ""},
		{"request hash without policies", lb("RequestHash"), pxValid(fallback), "default/kuard/80/f3b72af6a9", clusterv3.Cluster_ROUND_ROBIN, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(tt.route)))
			pxCheck(t, res, "default", "root", tt.status)
			ra := pxRoutesOf(res, pxHTTPRC, "example.com")[0].GetRoute()
			if ra.GetCluster() != tt.cluster {
				t.Fatalf("cluster %s, want %s", ra.GetCluster(), tt.cluster)
			}
			if got := mustCluster(t, res, tt.cluster).LbPolicy; got != tt.policy {
				t.Errorf("lb_policy %v, want %v", got, tt.policy)
			}
			if got := pxHashes(ra.HashPolicy); got != tt.hashes {
				t.Errorf("hash policies %q, want %q", got, tt.hashes)
			}
		})
	}
}

func pxHashes(hps []*routev3.RouteAction_HashPolicy) string {
	var out []string
	for _, h := range hps {
		s := ""
		if h.Terminal {
			s = "terminal:"
		}
		switch {
		case h.GetCookie() != nil:
			s += "cookie:" + h.GetCookie().Name + ":" + h.GetCookie().Path + ":" + pxDur(h.GetCookie().Ttl)
		case h.GetHeader() != nil:
			s += "header:" + h.GetHeader().HeaderName
		case h.GetQueryParameter() != nil:
			s += "query:" + h.GetQueryParameter().Name
		case h.GetConnectionProperties().GetSourceIp():
			s += "source_ip"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestHTTPProxySlowStart(t *testing.T) {
	slow := func(strategy string, ss contourv1.SlowStartPolicy, hps ...contourv1.RequestHashPolicy) contourv1.Route {
		return pxEdit(pxRoute(pxConds(pxPrefix("/slow")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
			if strategy != "" {
				r.LoadBalancerPolicy = &contourv1.LoadBalancerPolicy{Strategy: strategy, RequestHashPolicies: hps}
			}
			r.Services[0].SlowStartPolicy = &ss
		})
	}
	const lbErr = "ServiceError/SlowStartInvalid: slow start is only supported with RoundRobin or WeightedLeastRequest load balancer strategy"
	window := contourv1.SlowStartPolicy{Window: "5s"}
	pxRunStatusCases(t, []any{pxBackend("default", "kuard")}, []pxStatusCase{
		{"cookie", slow("Cookie", window), pxInvalid(lbErr)},
		{"random", slow("Random", window), pxInvalid(lbErr)},
		{"request hash", slow("RequestHash", window, contourv1.RequestHashPolicy{HashSourceIP: true}), pxInvalid(lbErr)},
		// The RequestHash fallback stores "RoundRobin", which allows slow start.
		{"request hash fallen back to round robin", slow("RequestHash", window),
			pxValid("SpecError/IgnoredField: ignoring invalid request hash policy options, setting load balancer strategy to default RoundRobin")},
		{"invalid window", slow("", contourv1.SlowStartPolicy{Window: "invalid"}),
			pxInvalid(`ServiceError/SlowStartInvalid: error parsing window: time: invalid duration "invalid" on slow start`)},
		{"invalid aggression", slow("", contourv1.SlowStartPolicy{Window: "5s", Aggression: "invalid"}),
			pxInvalid(`ServiceError/SlowStartInvalid: error parsing aggression: "invalid" is not a decimal number on slow start`)},
	})
	for _, tt := range []struct {
		name, strategy, cluster string
		ss                      contourv1.SlowStartPolicy
		aggression              float64
		minWeight               float64
	}{
		{"default strategy", "", "default/kuard/80/e1192ee92c", window, 1, 0},
		{"round robin fallback", "RequestHash", "default/kuard/80/0b082da112", window, 1, 0},
		{"weighted least request", "WeightedLeastRequest", "default/kuard/80/59d25996e8", window, 1, 0},
		{"every setting", "", "default/kuard/80/c3e762b777", contourv1.SlowStartPolicy{Window: "10s", Aggression: "0.5", MinimumWeightPercent: 20}, 0.5, 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(slow(tt.strategy, tt.ss))))
			c := mustCluster(t, res, tt.cluster)
			cfg := c.GetRoundRobinLbConfig().GetSlowStartConfig()
			if tt.strategy == "WeightedLeastRequest" {
				cfg = c.GetLeastRequestLbConfig().GetSlowStartConfig()
			}
			if cfg == nil {
				t.Fatalf("no slow start config in %v", c)
			}
			if pxDur(cfg.SlowStartWindow) != tt.ss.Window || cfg.GetAggression().GetDefaultValue() != tt.aggression ||
				cfg.GetAggression().GetRuntimeKey() != "contour.slowstart.aggression" || cfg.GetMinWeightPercent().GetValue() != tt.minWeight {
				t.Errorf("slow start %v", cfg)
			}
		})
	}
}

// TestHTTPProxyClusterNames: the settings Contour hashes into a cluster name
// (internal/envoy/cluster.go:31-71), each giving kuard:80 its own cluster.
func TestHTTPProxyClusterNames(t *testing.T) {
	c := testpki.Certs(t)
	objs := pxFlat(pxBackend("default", "kuard"), testpki.Secret("default", "ca", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}))
	variants := []struct {
		name, hashed string // hashed is the string Contour hashes
		edit         func(*contourv1.Route)
	}{
		{"plain", "", func(*contourv1.Route) {}},
		{"health check", "2s5s32/healthz", func(r *contourv1.Route) {
			r.HealthCheckPolicy = &contourv1.HTTPHealthCheckPolicy{Path: "/healthz", IntervalSeconds: 5, TimeoutSeconds: 2, UnhealthyThresholdCount: 3, HealthyThresholdCount: 2}
		}},
		{"health check path only", "/hz", func(r *contourv1.Route) { r.HealthCheckPolicy = &contourv1.HTTPHealthCheckPolicy{Path: "/hz"} }},
		{"validation", "cabackend.example.comtls", func(r *contourv1.Route) {
			r.Services[0].Protocol = refOf("tls")
			r.Services[0].UpstreamValidation = &contourv1.UpstreamValidation{CACertificate: "ca", SubjectName: "backend.example.com"}
		}},
		{"protocol and SNI", "tlswww.example.org", func(r *contourv1.Route) {
			r.Services[0].Protocol = refOf("tls")
			r.RequestHeadersPolicy = &contourv1.HeadersPolicy{Set: pxHV("Host", "www.example.org")}
		}},
		{"idle connection timeout and protocol", "h2c30s", func(r *contourv1.Route) {
			r.Services[0].Protocol = refOf("h2c")
			r.TimeoutPolicy = &contourv1.TimeoutPolicy{IdleConnection: "30s"}
		}},
		{"slow start", "5s1.0000000", func(r *contourv1.Route) { r.Services[0].SlowStartPolicy = &contourv1.SlowStartPolicy{Window: "5s"} }},
		{"load balancer", "Random", func(r *contourv1.Route) { r.LoadBalancerPolicy = &contourv1.LoadBalancerPolicy{Strategy: "Random"} }},
	}
	var rs []contourv1.Route
	want := map[string]string{}
	for i, v := range variants {
		path := "/" + strings.Repeat("v", i+1)
		rs = append(rs, pxEdit(pxRoute(pxConds(pxPrefix(path)), pxSvc("kuard", 80)), v.edit))
		want[path] = "default/kuard/80/" + dag.ShortSHA1([]byte(v.hashed))
	}
	res := pxTranslate(t, Options{}, objs, pxRoot(pxRoutes(rs...)))
	pxCheck(t, res, "default", "root", pxValid())
	for i, v := range variants {
		path := "/" + strings.Repeat("v", i+1)
		got := mustRouteWithMatch(t, pxRoutesOf(res, pxHTTPRC, "example.com"), wantPrefix(path)).GetRoute().GetCluster()
		if got != want[path] {
			t.Errorf("%s: cluster %s, want %s", v.name, got, want[path])
		}
		if findCluster(res, want[path]) == nil {
			t.Errorf("%s: cluster %s not published", v.name, want[path])
		}
	}
	if len(res.Resources.Clusters) != len(variants) {
		t.Errorf("%d clusters, want %d: %v", len(res.Resources.Clusters), len(variants), pxClusterNames(res))
	}
}

func TestHTTPProxyRouteMisc(t *testing.T) {
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(
		pxEdit(pxRoute(pxConds(pxPrefix("/ws")), pxSvc("kuard", 80)), func(r *contourv1.Route) { r.EnableWebsockets = true }),
		pxEdit(pxRoute(pxConds(pxPrefix("/internal")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
			r.InternalRedirectPolicy = &contourv1.HTTPInternalRedirectPolicy{MaxInternalRedirects: 3, RedirectResponseCodes: []contourv1.RedirectResponseCode{301, 307},
				AllowCrossSchemeRedirect: "SafeOnly", DenyRepeatedRouteRedirect: true}
		}),
		pxEdit(pxRoute(pxConds(pxPrefix("/cookies")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
			r.CookieRewritePolicies = []contourv1.CookieRewritePolicy{{Name: "session", PathRewrite: &contourv1.CookiePathRewrite{Value: "/app"}}}
		}),
	)))
	pxCheck(t, res, "default", "root", pxValid())
	routes := pxRoutesOf(res, pxHTTPRC, "example.com")
	ws := mustRouteWithMatch(t, routes, wantPrefix("/ws")).GetRoute()
	if len(ws.UpgradeConfigs) != 1 || ws.UpgradeConfigs[0].UpgradeType != "websocket" {
		t.Errorf("/ws upgrade configs %v", ws.UpgradeConfigs)
	}
	ir := mustRouteWithMatch(t, routes, wantPrefix("/internal")).GetRoute().GetInternalRedirectPolicy()
	var preds []string
	for _, p := range ir.GetPredicates() {
		preds = append(preds, p.Name)
	}
	if ir.GetMaxInternalRedirects().GetValue() != 3 || !ir.AllowCrossSchemeRedirect || len(ir.RedirectResponseCodes) != 2 ||
		strings.Join(preds, ",") != "envoy.internal_redirect_predicates.safe_cross_scheme,envoy.internal_redirect_predicates.previous_routes" {
		t.Errorf("/internal internal redirect policy %v", ir)
	}
	ck := mustRouteWithMatch(t, routes, wantPrefix("/cookies")).GetRoute()
	if wc := ck.GetWeightedClusters().GetClusters(); len(wc) != 1 || wc[0].TypedPerFilterConfig["envoy.filters.http.lua"] == nil {
		t.Errorf("/cookies: cookie rewrites need a weighted cluster with a Lua config: %v", ck)
	}
}

// pxDur is a duration as Go prints it, "" for nil.
func pxDur(d *durationpb.Duration) string {
	if d == nil {
		return ""
	}
	return d.AsDuration().String()
}

func pxDurProto(s string) *durationpb.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return durationpb.New(d)
}

// pxHTTPOptions unpacks a cluster's upstream HTTP protocol options (nil if
// none).
func pxHTTPOptions(t testing.TB, c *clusterv3.Cluster) *httpv3.HttpProtocolOptions {
	t.Helper()
	a := c.TypedExtensionProtocolOptions["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]
	if a == nil {
		return nil
	}
	o := &httpv3.HttpProtocolOptions{}
	if err := a.UnmarshalTo(o); err != nil {
		t.Fatalf("HttpProtocolOptions: %v", err)
	}
	return o
}
