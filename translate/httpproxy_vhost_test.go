package translate

// HTTPProxy virtual-host policies: CORS, rate limits, IP filters,
// ExtensionServices and external authorization. Expected values follow
// Contour's internal/dag/httpproxy_processor.go, internal/dag/policy.go,
// internal/dag/extension_processor.go and internal/envoy/v3.

import (
	"strconv"
	"strings"
	"testing"

	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/testpki"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	corsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	localratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	rbacfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pxUnpack unpacks a typed per-filter config, failing when absent.
func pxUnpack[T proto.Message](t testing.TB, tpfc map[string]*anypb.Any, name string, into T) T {
	t.Helper()
	a := tpfc[name]
	if a == nil {
		t.Fatalf("no %s config among %v", name, pxKeys(tpfc))
	}
	if err := a.UnmarshalTo(into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return into
}

func pxKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// pxVirtualHost returns host's virtual host in route config rc.
func pxVirtualHost(t testing.TB, res *Result, rc, host string) *routev3.VirtualHost {
	t.Helper()
	vh := findVirtualHost(findRouteConfig(res, rc), dag.VirtualHostName(host))
	if vh == nil {
		t.Fatalf("no virtual host %s in %s", host, rc)
	}
	return vh
}

// pxVhostCase is a root's virtual-host setting and the status it gives.
type pxVhostCase struct {
	name   string
	vh     func(*contourv1.VirtualHost)
	status pxWant
}

func pxRunVhostCases(t *testing.T, tls bool, tests []pxVhostCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []pxOpt{pxVhost(tt.vh), pxRoutes(pxRouteTo(pxSvc("kuard", 80)))}
			if tls {
				opts = append(opts, pxTLSSecret("tls"))
			}
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), testpki.TLSSecret(t, "default", "tls"), pxRoot(opts...))
			pxCheck(t, res, "default", "root", tt.status)
			if tt.status.current != "valid" {
				if rs := pxRoutesOf(res, pxHTTPRC, "example.com"); len(rs) != 0 {
					t.Errorf("routes programmed for an invalid virtual host: %q", pxDescribeAll(rs))
				}
				if sniChain(findListener(res, "ingress_https"), "example.com") != nil {
					t.Errorf("example.com served over TLS")
				}
			}
		})
	}
}

// ---- CORS --------------------------------------------------------------------

func TestHTTPProxyCORS(t *testing.T) {
	cors := func(p contourv1.CORSPolicy) func(*contourv1.VirtualHost) {
		return func(vh *contourv1.VirtualHost) { vh.CORSPolicy = &p }
	}
	methods := []contourv1.CORSHeaderValue{"GET", "POST"}
	const prefix = "CORSError/PolicyDidNotParse: Spec.VirtualHost.CORSPolicy: "
	pxRunVhostCases(t, true, []pxVhostCase{
		{"no origin", cors(contourv1.CORSPolicy{AllowMethods: methods}), pxInvalid(prefix + "invalid allowed origin configuration with length 0")},
		{"bad origin", cors(contourv1.CORSPolicy{AllowOrigin: []string{"*", "(unclosed"}, AllowMethods: methods}),
			pxInvalid(prefix + `invalid allowed origin "(unclosed": allowed origin is invalid exact match and invalid regex match`)},
		{"no methods", cors(contourv1.CORSPolicy{AllowOrigin: []string{"*"}}), pxInvalid(prefix + "invalid allowed methods configuration with length 0")},
		{"bad max age", cors(contourv1.CORSPolicy{AllowOrigin: []string{"*"}, AllowMethods: methods, MaxAge: "a week"}),
			pxInvalid(prefix + `unable to parse timeout string "a week": time: invalid duration "a week"`)},
		{"negative max age", cors(contourv1.CORSPolicy{AllowOrigin: []string{"*"}, AllowMethods: methods, MaxAge: "-5s"}),
			pxInvalid(prefix + `invalid max age value "-5s"`)},
	})

	for _, tt := range []struct {
		name, maxAge, wantMaxAge string
	}{{"unset", "", ""}, {"ten minutes", "10m", "600"}, {"zero disables", "0s", "0"}} {
		t.Run("max age "+tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(pxRouteTo(pxSvc("kuard", 80))),
				pxVhost(cors(contourv1.CORSPolicy{AllowOrigin: []string{"*"}, AllowMethods: methods, MaxAge: tt.maxAge}))))
			got := pxUnpack(t, pxVirtualHost(t, res, pxHTTPRC, "example.com").TypedPerFilterConfig, "envoy.filters.http.cors", &corsv3.CorsPolicy{})
			if got.MaxAge != tt.wantMaxAge {
				t.Errorf("max_age %q, want %q", got.MaxAge, tt.wantMaxAge)
			}
		})
	}

	t.Run("policy", func(t *testing.T) {
		res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), testpki.TLSSecret(t, "default", "tls"), pxRoot(pxTLSSecret("tls"), pxRoutes(pxRouteTo(pxSvc("kuard", 80))),
			pxVhost(cors(contourv1.CORSPolicy{
				AllowCredentials: true, AllowPrivateNetwork: true,
				AllowOrigin:   []string{"*", "https://example.org", "http://example.org:8080", "https://example.org/path", `https://.*\.example\.org`},
				AllowMethods:  methods,
				AllowHeaders:  []contourv1.CORSHeaderValue{"authorization", "cache-control"},
				ExposeHeaders: []contourv1.CORSHeaderValue{"Content-Length"},
			}))))
		pxCheck(t, res, "default", "root", pxValid())
		want := &corsv3.CorsPolicy{
			AllowCredentials: wrapperspb.Bool(true), AllowPrivateNetworkAccess: wrapperspb.Bool(true),
			AllowMethods: "GET,POST", AllowHeaders: "authorization,cache-control", ExposeHeaders: "Content-Length",
			AllowOriginStringMatch: []*matcherv3.StringMatcher{pxExactIC("*"), pxExactIC("https://example.org"), pxExactIC("http://example.org:8080"),
				pxRegexMatcher("https://example.org/path"), pxRegexMatcher(`https://.*\.example\.org`)},
		}
		// Both the plain and the TLS virtual host carry the policy.
		for _, rc := range []string{pxHTTPRC, "https/example.com"} {
			got := pxUnpack(t, pxVirtualHost(t, res, rc, "example.com").TypedPerFilterConfig, "envoy.filters.http.cors", &corsv3.CorsPolicy{})
			if !proto.Equal(got, want) {
				t.Errorf("%s: cors %v\nwant %v", rc, got, want)
			}
		}
	})
}

// ---- rate limits ---------------------------------------------------------------

func TestHTTPProxyRateLimits(t *testing.T) {
	local := func(l contourv1.LocalRateLimitPolicy) *contourv1.RateLimitPolicy {
		return &contourv1.RateLimitPolicy{Local: &l}
	}
	global := func(entries ...contourv1.RateLimitDescriptorEntry) *contourv1.RateLimitPolicy {
		return &contourv1.RateLimitPolicy{Global: &contourv1.GlobalRateLimitPolicy{Descriptors: []contourv1.RateLimitDescriptor{{Entries: entries}}}}
	}
	invalid := []struct {
		name   string
		policy *contourv1.RateLimitPolicy
		msg    string
	}{
		{"no requests", local(contourv1.LocalRateLimitPolicy{Unit: "second"}), "invalid requests value 0 in local rate limit policy"},
		{"bad unit", local(contourv1.LocalRateLimitPolicy{Requests: 1, Unit: "day"}), `invalid unit "day" in local rate limit policy`},
		{"duplicate header", local(contourv1.LocalRateLimitPolicy{Requests: 1, Unit: "second", ResponseHeadersToAdd: pxHV("x-a", "1", "X-A", "2")}), `duplicate header addition: "X-A"`},
		{"invalid header", local(contourv1.LocalRateLimitPolicy{Requests: 1, Unit: "second", ResponseHeadersToAdd: pxHV("x a", "1")}),
			`invalid header name "x a": [a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')]`},
		{"empty descriptor entry", global(contourv1.RateLimitDescriptorEntry{}), "rate limit descriptor entry must have exactly one field set"},
		{"two fields in an entry", global(contourv1.RateLimitDescriptorEntry{GenericKey: &contourv1.GenericKeyDescriptor{Value: "a"}, RemoteAddress: &contourv1.RemoteAddressDescriptor{}}),
			"rate limit descriptor entry must have exactly one field set"},
	}
	t.Run("virtual host", func(t *testing.T) {
		var cases []pxVhostCase
		for _, tt := range invalid {
			p := tt.policy
			cases = append(cases, pxVhostCase{tt.name, func(vh *contourv1.VirtualHost) { vh.RateLimitPolicy = p },
				pxInvalid("VirtualHostError/RateLimitPolicyNotValid: Spec.VirtualHost.RateLimitPolicy is invalid: " + tt.msg)})
		}
		pxRunVhostCases(t, true, cases)
	})
	t.Run("route", func(t *testing.T) {
		var cases []pxStatusCase
		for _, tt := range invalid {
			p := tt.policy
			cases = append(cases, pxStatusCase{tt.name, pxEdit(pxRoute(pxConds(pxPrefix("/rl")), pxSvc("kuard", 80)), func(r *contourv1.Route) { r.RateLimitPolicy = p }),
				pxInvalid("RouteError/RateLimitPolicyNotValid: route.rateLimitPolicy is invalid: " + tt.msg)})
		}
		pxRunStatusCases(t, []any{pxBackend("default", "kuard")}, cases)
	})

	t.Run("output", func(t *testing.T) {
		res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(
			pxVhost(func(vh *contourv1.VirtualHost) {
				vh.RateLimitPolicy = &contourv1.RateLimitPolicy{
					Local: &contourv1.LocalRateLimitPolicy{Requests: 10, Unit: "minute", Burst: 5, ResponseStatusCode: 503, ResponseHeadersToAdd: pxHV("x-limited", "100%")},
					Global: &contourv1.GlobalRateLimitPolicy{Descriptors: []contourv1.RateLimitDescriptor{{Entries: []contourv1.RateLimitDescriptorEntry{
						{GenericKey: &contourv1.GenericKeyDescriptor{Key: "vhost", Value: "example"}},
						{RemoteAddress: &contourv1.RemoteAddressDescriptor{}},
					}}}},
				}
			}),
			pxRoutes(
				pxEdit(pxRoute(pxConds(pxPrefix("/local")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
					r.RateLimitPolicy = &contourv1.RateLimitPolicy{Local: &contourv1.LocalRateLimitPolicy{Requests: 1, Unit: "hour"}}
				}),
				pxEdit(pxRoute(pxConds(pxPrefix("/global")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
					r.RateLimitPolicy = &contourv1.RateLimitPolicy{Global: &contourv1.GlobalRateLimitPolicy{Descriptors: []contourv1.RateLimitDescriptor{{Entries: []contourv1.RateLimitDescriptorEntry{
						{RequestHeader: &contourv1.RequestHeaderDescriptor{HeaderName: "x-user", DescriptorKey: "user"}},
						{RequestHeaderValueMatch: &contourv1.RequestHeaderValueMatchDescriptor{Headers: []contourv1.HeaderMatchCondition{{Name: "x-beta", Present: true}}, ExpectMatch: true, Value: "beta"}},
					}}}}}
				}),
				pxEdit(pxRoute(pxConds(pxPrefix("/optout")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
					r.RateLimitPolicy = &contourv1.RateLimitPolicy{Global: &contourv1.GlobalRateLimitPolicy{Disabled: true}}
				}),
			)))
		pxCheck(t, res, "default", "root", pxValid())
		vh := pxVirtualHost(t, res, pxHTTPRC, "example.com")
		l := pxUnpack(t, vh.TypedPerFilterConfig, "envoy.filters.http.local_ratelimit", &localratelimitv3.LocalRateLimit{})
		if l.StatPrefix != "vhost.example.com" || l.TokenBucket.MaxTokens != 15 || l.TokenBucket.TokensPerFill.GetValue() != 10 || pxDur(l.TokenBucket.FillInterval) != "1m0s" ||
			l.Status.GetCode() != 503 || pxHeaderOpts(l.ResponseHeadersToAdd) != "X-Limited=100%%(OVERWRITE_IF_EXISTS_OR_ADD)" ||
			l.FilterEnabled.GetDefaultValue().GetNumerator() != 100 || l.FilterEnforced.GetDefaultValue().GetNumerator() != 100 {
			t.Errorf("virtual host local rate limit %v", l)
		}
		if len(vh.RateLimits) != 1 || len(vh.RateLimits[0].Actions) != 2 ||
			vh.RateLimits[0].Actions[0].GetGenericKey().GetDescriptorKey() != "vhost" || vh.RateLimits[0].Actions[0].GetGenericKey().GetDescriptorValue() != "example" ||
			vh.RateLimits[0].Actions[1].GetRemoteAddress() == nil {
			t.Errorf("virtual host rate limits %v", vh.RateLimits)
		}
		routes := vh.Routes
		rl := pxUnpack(t, mustRouteWithMatch(t, routes, wantPrefix("/local")).TypedPerFilterConfig, "envoy.filters.http.local_ratelimit", &localratelimitv3.LocalRateLimit{})
		if rl.StatPrefix != "vhost.example.com" || rl.TokenBucket.MaxTokens != 1 || pxDur(rl.TokenBucket.FillInterval) != "1h0m0s" || rl.Status != nil {
			t.Errorf("route local rate limit %v", rl)
		}
		g := mustRouteWithMatch(t, routes, wantPrefix("/global")).GetRoute().GetRateLimits()
		if len(g) != 1 || len(g[0].Actions) != 2 || g[0].Actions[0].GetRequestHeaders().GetHeaderName() != "x-user" ||
			g[0].Actions[1].GetHeaderValueMatch().GetDescriptorValue() != "beta" || !g[0].Actions[1].GetHeaderValueMatch().GetExpectMatch().GetValue() ||
			len(g[0].Actions[1].GetHeaderValueMatch().GetHeaders()) != 1 {
			t.Errorf("route rate limits %v", g)
		}
		opt := pxUnpack(t, mustRouteWithMatch(t, routes, wantPrefix("/optout")).TypedPerFilterConfig, "envoy.filters.http.ratelimit", &ratelimitv3.RateLimitPerRoute{})
		if opt.VhRateLimits != ratelimitv3.RateLimitPerRoute_IGNORE {
			t.Errorf("opt-out %v", opt)
		}
	})
}

// ---- IP filters ----------------------------------------------------------------

func TestHTTPProxyIPFilters(t *testing.T) {
	ip := func(source contourv1.IPFilterSource, cidr string) contourv1.IPFilterPolicy {
		return contourv1.IPFilterPolicy{Source: source, CIDR: cidr}
	}
	peer, remote := contourv1.IPFilterSourcePeer, contourv1.IPFilterSourceRemote
	const invalidCIDR = "IPFilterError/InvalidCIDR: abcd failed to parse: invalid CIDR address: abcd/32"
	t.Run("virtual host errors", func(t *testing.T) {
		pxRunVhostCases(t, false, []pxVhostCase{
			{"allow and deny", func(vh *contourv1.VirtualHost) {
				vh.IPAllowFilterPolicy = []contourv1.IPFilterPolicy{ip(peer, "10.0.0.0/8")}
				vh.IPDenyFilterPolicy = []contourv1.IPFilterPolicy{ip(peer, "10.1.0.0/16")}
			}, pxInvalid("IPFilterError/IncompatibleIPAddressFilters: Spec.VirtualHost.IPAllowFilterPolicy and Spec.VirtualHost.IPDepnyFilterPolicy cannot both be defined.")},
			{"invalid CIDR", func(vh *contourv1.VirtualHost) {
				vh.IPDenyFilterPolicy = []contourv1.IPFilterPolicy{ip(peer, "10.0.0.0/8"), ip(peer, "abcd")}
			},
				pxInvalid(invalidCIDR, "IPFilterError/IPFilterPolicyNotValid: Spec.VirtualHost.IPAllowFilterPolicy or Spec.VirtualHost.IPDenyFilterPolicy is invalid: invalid CIDR address: abcd/32")},
		})
	})
	t.Run("route errors", func(t *testing.T) {
		pxRunStatusCases(t, []any{pxBackend("default", "kuard")}, []pxStatusCase{
			{"allow and deny", pxEdit(pxRoute(pxConds(pxPrefix("/ip")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
				r.IPAllowFilterPolicy = []contourv1.IPFilterPolicy{ip(peer, "10.0.0.0/8")}
				r.IPDenyFilterPolicy = []contourv1.IPFilterPolicy{ip(peer, "10.1.0.0/16")}
			}), pxInvalid("IPFilterError/IncompatibleIPAddressFilters: cannot specify both `ipAllowPolicy` and `ipDenyPolicy`")},
			{"invalid CIDR", pxEdit(pxRoute(pxConds(pxPrefix("/ip")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
				r.IPAllowFilterPolicy = []contourv1.IPFilterPolicy{ip(peer, "abcd")}
			}), pxInvalid(invalidCIDR)},
		})
	})
	// Contour keeps only the last CIDR's parse error, so an invalid CIDR
	// followed by a valid one is reported but the filter is still
	// programmed with the valid ones (httpproxy_processor.go:1188-1212);
	// a TLS virtual host parses the policy twice, and reports it twice.
	t.Run("invalid CIDR followed by a valid one", func(t *testing.T) {
		policy := pxVhost(func(vh *contourv1.VirtualHost) {
			vh.IPAllowFilterPolicy = []contourv1.IPFilterPolicy{ip(peer, "abcd"), ip(remote, "10.0.0.0/8")}
		})
		routeFilter := pxRoutes(pxEdit(pxRoute(pxConds(pxPrefix("/ip")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
			r.IPDenyFilterPolicy = []contourv1.IPFilterPolicy{ip(peer, "abcd"), ip(peer, "192.0.2.1")}
		}))
		res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(policy, routeFilter))
		pxCheck(t, res, "default", "root", pxInvalid(invalidCIDR, invalidCIDR))
		vh := pxVirtualHost(t, res, pxHTTPRC, "example.com")
		if got := pxRBAC(t, vh.TypedPerFilterConfig); got != "ALLOW remote:10.0.0.0/8" {
			t.Errorf("virtual host rbac %s", got)
		}
		if got := pxRBAC(t, mustRouteWithMatch(t, vh.Routes, wantPrefix("/ip")).TypedPerFilterConfig); got != "DENY peer:192.0.2.1/32" {
			t.Errorf("route rbac %s", got)
		}

		res = pxTranslate(t, Options{}, pxBackend("default", "kuard"), testpki.TLSSecret(t, "default", "tls"), pxRoot(pxTLSSecret("tls"), policy, pxRoutes(pxRouteTo(pxSvc("kuard", 80)))))
		pxCheck(t, res, "default", "root", pxInvalid(invalidCIDR, invalidCIDR))
		if got := pxRBAC(t, pxVirtualHost(t, res, "https/example.com", "example.com").TypedPerFilterConfig); got != "ALLOW remote:10.0.0.0/8" {
			t.Errorf("TLS virtual host rbac %s", got)
		}
	})
	t.Run("output", func(t *testing.T) {
		res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(
			pxVhost(func(vh *contourv1.VirtualHost) {
				vh.IPDenyFilterPolicy = []contourv1.IPFilterPolicy{ip(peer, "10.1.2.3/8"), ip(remote, "2001:db8::1"), ip(peer, "192.0.2.7")}
			}),
			pxRoutes(pxEdit(pxRouteTo(pxSvc("kuard", 80)), func(r *contourv1.Route) {
				r.IPAllowFilterPolicy = []contourv1.IPFilterPolicy{ip(remote, "2001:db8::/32")}
			}))))
		pxCheck(t, res, "default", "root", pxValid())
		vh := pxVirtualHost(t, res, pxHTTPRC, "example.com")
		if got := pxRBAC(t, vh.TypedPerFilterConfig); got != "DENY peer:10.0.0.0/8 remote:2001:db8::1/128 peer:192.0.2.7/32" {
			t.Errorf("virtual host rbac %s", got)
		}
		if got := pxRBAC(t, vh.Routes[0].TypedPerFilterConfig); got != "ALLOW remote:2001:db8::/32" {
			t.Errorf("route rbac %s", got)
		}
	})
}

// pxRBAC summarises an ip-rules RBAC config: action and principals.
func pxRBAC(t testing.TB, tpfc map[string]*anypb.Any) string {
	t.Helper()
	r := pxUnpack(t, tpfc, "envoy.filters.http.rbac", &rbacfilterv3.RBACPerRoute{}).GetRbac().GetRules()
	p := r.GetPolicies()["ip-rules"]
	if len(r.GetPolicies()) != 1 || p == nil || len(p.Permissions) != 1 || !p.Permissions[0].GetAny() {
		t.Errorf("rbac policies %v", r.GetPolicies())
	}
	out := []string{r.Action.String()}
	for _, pr := range p.GetPrincipals() {
		var c = pr.GetDirectRemoteIp()
		kind := "peer"
		if pr.GetRemoteIp() != nil {
			c, kind = pr.GetRemoteIp(), "remote"
		}
		out = append(out, kind+":"+c.AddressPrefix+"/"+strconv.Itoa(int(c.PrefixLen.GetValue())))
	}
	return strings.Join(out, " ")
}

// ---- ExtensionService ------------------------------------------------------------

func pxExtension(ns, name string, spec contourv1alpha1.ExtensionServiceSpec) *contourv1alpha1.ExtensionService {
	return &contourv1alpha1.ExtensionService{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1}, Spec: spec}
}

func pxTargets(names ...string) []contourv1alpha1.ExtensionServiceTarget {
	var out []contourv1alpha1.ExtensionServiceTarget
	for _, n := range names {
		out = append(out, contourv1alpha1.ExtensionServiceTarget{Name: n, Port: 8443})
	}
	return out
}

// pxCheckExtension asserts an ExtensionService's status.
func pxCheckExtension(t testing.TB, res *Result, ns, name string, errs, warns []string) {
	t.Helper()
	s := pxFindStatus(res, "ExtensionService", ns, name)
	if s == nil {
		t.Fatalf("no status for ExtensionService %s/%s", ns, name)
	}
	st := s.Status.(ExtensionServiceStatus)
	c := st.Conditions[0]
	if s.APIVersion != "projectcontour.io/v1alpha1" || len(st.Conditions) != 1 || c.Type != "Valid" || c.ObservedGeneration != 1 {
		t.Errorf("ExtensionService %s/%s status %+v", ns, name, s)
	}
	if len(errs) == 0 && (c.Status != "True" || c.Reason != "Valid" || c.Message != "Valid ExtensionService") {
		t.Errorf("ExtensionService %s/%s: condition %s/%s %q, want valid", ns, name, c.Status, c.Reason, c.Message)
	}
	if len(errs) > 0 && (c.Status != "False" || c.Reason != "ErrorPresent" || c.Message != "At least one error present, see Errors for details") {
		t.Errorf("ExtensionService %s/%s: condition %s/%s %q, want errors", ns, name, c.Status, c.Reason, c.Message)
	}
	if got := pxDetails(c.Errors); !pxMatchDetails(got, errs) {
		t.Errorf("ExtensionService %s/%s errors:\n got  %q\n want %q", ns, name, got, errs)
	}
	if got := pxDetails(c.Warnings); !pxMatchDetails(got, warns) {
		t.Errorf("ExtensionService %s/%s warnings:\n got  %q\n want %q", ns, name, got, warns)
	}
}

func TestExtensionService(t *testing.T) {
	c := testpki.Certs(t)
	objs := pxFlat(pxBackend("default", "authz"), pxBackend("default", "authz2"),
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ext"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "auth.example.org", Ports: []corev1.ServicePort{mkPort("", 8443)}}},
		testpki.Secret("default", "ca", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}),
		testpki.Secret("certs", "ca", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}))
	h2c := "h2c"
	tests := []struct {
		name        string
		spec        contourv1alpha1.ExtensionServiceSpec
		errs, warns []string
	}{
		{"valid", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("authz")}, nil, nil},
		{"unresolved service", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("authz", "missing")},
			[]string{`ServiceError/ServiceUnresolvedReference: unresolved service "default/missing": service "default/missing" not found`}, nil},
		{"ExternalName service", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("ext")},
			[]string{`ServiceError/UnsupportedServiceType: Service "default/ext" is of unsupported type "ExternalName".`}, nil},
		{"validation with h2c", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("authz"), Protocol: &h2c,
			UpstreamValidation: &contourv1.UpstreamValidation{CACertificate: "ca", SubjectName: "authz.example.com"}},
			[]string{`SpecError/InconsistentProtocol: upstream TLS validation not supported for "h2c" protocol`}, nil},
		{"validation CA missing", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("missing"),
			UpstreamValidation: &contourv1.UpstreamValidation{CACertificate: "nope", SubjectName: "authz.example.com"}},
			[]string{`SpecError/TLSUpstreamValidation: TLS upstream validation policy error: invalid CA Secret "default/nope": Secret not found`}, nil},
		{"validation CA not delegated", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("authz"),
			UpstreamValidation: &contourv1.UpstreamValidation{CACertificate: "certs/ca", SubjectName: "authz.example.com"}},
			[]string{`TLSError/CACertificateNotDelegated: service.UpstreamValidation.CACertificate Secret "certs/ca" is not configured for certificate delegation`}, nil},
		{"response timeout", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("authz"), TimeoutPolicy: &contourv1.TimeoutPolicy{Response: "abc"}},
			[]string{`SpecError/TimeoutPolicyNotValid: spec.timeoutPolicy failed to parse: error parsing response timeout: unable to parse timeout string "abc": time: invalid duration "abc"`}, nil},
		{"idle connection timeout", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("authz"), TimeoutPolicy: &contourv1.TimeoutPolicy{IdleConnection: "1y"}},
			[]string{`SpecError/TimeoutPolicyNotValid: spec.timeoutPolicy failed to parse: error parsing idle connection timeout: unable to parse timeout string "1y": time: unknown unit "y" in duration "1y"`}, nil},
		{"ignored fields", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("authz"), TimeoutPolicy: &contourv1.TimeoutPolicy{Idle: "10s"},
			LoadBalancerPolicy: &contourv1.LoadBalancerPolicy{Strategy: "Cookie"}}, nil,
			[]string{`SpecError/IgnoredField: ignoring field ".Spec.LoadBalancerPolicy"; Cookie load balancer policy is not supported for ExtensionClusters`,
				`SpecError/IgnoredField: ignoring field ".Spec.TimeoutPolicy.Idle"; idle timeouts are not supported for ExtensionClusters`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, objs, pxExtension("default", "auth", tt.spec))
			pxCheckExtension(t, res, "default", "auth", tt.errs, tt.warns)
			published := findCluster(res, "extension/default/auth") != nil
			if published != (len(tt.errs) == 0) {
				t.Errorf("cluster extension/default/auth published: %v with %d errors", published, len(tt.errs))
			}
			if (findCLA(res, "extension/default/auth") != nil) != published {
				t.Errorf("load assignment published: %v", !published)
			}
		})
	}

	t.Run("cluster", func(t *testing.T) {
		res := pxTranslate(t, Options{}, objs, pxExtension("default", "auth", contourv1alpha1.ExtensionServiceSpec{
			Services:           []contourv1alpha1.ExtensionServiceTarget{{Name: "authz", Port: 8443, Weight: 3}, {Name: "authz2", Port: 8443, Weight: 1}},
			UpstreamValidation: &contourv1.UpstreamValidation{CACertificate: "ca", SubjectName: "authz.example.com"},
			LoadBalancerPolicy: &contourv1.LoadBalancerPolicy{Strategy: "Random"},
			TimeoutPolicy:      &contourv1.TimeoutPolicy{IdleConnection: "60s"},
		}))
		pxCheckExtension(t, res, "default", "auth", nil, nil)
		cl := mustCluster(t, res, "extension/default/auth")
		if cl.AltStatName != "extension_default_auth" || cl.LbPolicy != clusterv3.Cluster_RANDOM || cl.GetEdsClusterConfig().GetServiceName() != "extension/default/auth" {
			t.Errorf("cluster %v", cl)
		}
		ctx := &tlsv3.UpstreamTlsContext{}
		if err := cl.GetTransportSocket().GetTypedConfig().UnmarshalTo(ctx); err != nil {
			t.Fatalf("transport socket: %v", err)
		}
		if ctx.Sni != "authz.example.com" || strings.Join(ctx.GetCommonTlsContext().GetAlpnProtocols(), ",") != "h2" {
			t.Errorf("upstream TLS sni %q alpn %v", ctx.Sni, ctx.GetCommonTlsContext().GetAlpnProtocols())
		}
		if o := pxHTTPOptions(t, cl); o.GetExplicitHttpConfig().GetHttp2ProtocolOptions() == nil || pxDur(o.GetCommonHttpProtocolOptions().GetIdleTimeout()) != "1m0s" {
			t.Errorf("http protocol options %v", o)
		}
		cla := findCLA(res, "extension/default/auth")
		var weights []string
		for _, l := range cla.GetEndpoints() {
			weights = append(weights, strconv.Itoa(int(l.GetLoadBalancingWeight().GetValue())))
		}
		if strings.Join(weights, ",") != "3,1" && strings.Join(weights, ",") != "1,3" {
			t.Errorf("locality weights %v", weights)
		}
	})
}

// ---- external authorization ------------------------------------------------------

func TestHTTPProxyExternalAuthorization(t *testing.T) {
	objs := pxFlat(pxBackend("default", "kuard"), pxBackend("auth", "authz"), testpki.TLSSecret(t, "default", "tls"),
		pxExtension("auth", "authz", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("authz"), TimeoutPolicy: &contourv1.TimeoutPolicy{Response: "2s"}}),
		pxExtension("auth", "broken", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("missing")}))
	authz := func(a contourv1.AuthorizationServer) pxOpt {
		if a.ExtensionServiceRef.Name == "" {
			a.ExtensionServiceRef = contourv1.ExtensionServiceReference{Namespace: "auth", Name: "authz"}
		}
		return pxVhost(func(vh *contourv1.VirtualHost) { vh.Authorization = &a })
	}
	toKuard := pxRoutes(pxRouteTo(pxSvc("kuard", 80)))
	tests := []struct {
		name   string
		opts   []pxOpt
		status pxWant
	}{
		{"not terminating TLS", []pxOpt{authz(contourv1.AuthorizationServer{}), toKuard},
			pxInvalid("AuthError/AuthNotPermitted: Spec.VirtualHost.Authorization.ExtensionServiceRef can only be defined for root HTTPProxies that terminate TLS")},
		{"unknown extension", []pxOpt{pxTLSSecret("tls"), authz(contourv1.AuthorizationServer{ExtensionServiceRef: contourv1.ExtensionServiceReference{Name: "authz"}}), toKuard},
			pxInvalid(`AuthError/ExtensionServiceNotFound: Spec.Virtualhost.Authorization.ServiceRef extension service "default/authz" not found`)},
		{"invalid extension", []pxOpt{pxTLSSecret("tls"), authz(contourv1.AuthorizationServer{ExtensionServiceRef: contourv1.ExtensionServiceReference{Namespace: "auth", Name: "broken"}}), toKuard},
			pxInvalid(`AuthError/ExtensionServiceNotFound: Spec.Virtualhost.Authorization.ServiceRef extension service "auth/broken" not found`)},
		{"bad API version", []pxOpt{pxTLSSecret("tls"), authz(contourv1.AuthorizationServer{ExtensionServiceRef: contourv1.ExtensionServiceReference{APIVersion: "projectcontour.io/v1", Namespace: "auth", Name: "authz"}}), toKuard},
			pxInvalid(`AuthError/AuthBadResourceVersion: Spec.Virtualhost.Authorization.extensionRef specifies an unsupported resource version "projectcontour.io/v1"`)},
		{"bad response timeout", []pxOpt{pxTLSSecret("tls"), authz(contourv1.AuthorizationServer{ResponseTimeout: "soon"}), toKuard},
			pxInvalid(`AuthError/AuthResponseTimeoutInvalid: Spec.Virtualhost.Authorization.ResponseTimeout is invalid: unable to parse timeout string "soon": time: invalid duration "soon"`)},
		{"unknown extension wins over the bad timeout", []pxOpt{pxTLSSecret("tls"), authz(contourv1.AuthorizationServer{ExtensionServiceRef: contourv1.ExtensionServiceReference{Name: "x"}, ResponseTimeout: "soon"}), toKuard},
			pxInvalid(`AuthError/ExtensionServiceNotFound: Spec.Virtualhost.Authorization.ServiceRef extension service "default/x" not found`)},
		{"passthrough ignores authorization", []pxOpt{pxTLS(contourv1.TLS{Passthrough: true}), authz(contourv1.AuthorizationServer{ResponseTimeout: "soon"}),
			pxTCP(contourv1.TCPProxy{Services: []contourv1.Service{pxSvc("kuard", 8443)}})}, pxValid()},
		{"explicit API version", []pxOpt{pxTLSSecret("tls"), authz(contourv1.AuthorizationServer{ExtensionServiceRef: contourv1.ExtensionServiceReference{APIVersion: "projectcontour.io/v1alpha1", Namespace: "auth", Name: "authz"}}), toKuard},
			pxValid()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, objs, pxRoot(tt.opts...))
			pxCheck(t, res, "default", "root", tt.status)
			if tt.status.current != "valid" && sniChain(findListener(res, "ingress_https"), "example.com") != nil {
				t.Errorf("example.com served over TLS")
			}
		})
	}

	t.Run("filter and per-route settings", func(t *testing.T) {
		res := pxTranslate(t, Options{}, objs, pxRoot(pxTLSSecret("tls"),
			authz(contourv1.AuthorizationServer{FailOpen: true, WithRequestBody: &contourv1.AuthorizationServerBufferSettings{AllowPartialMessage: true},
				AuthPolicy: &contourv1.AuthorizationPolicy{Context: map[string]string{"vhost": "1", "shared": "vhost"}}}),
			pxRoutes(
				pxRouteTo(pxSvc("kuard", 80)),
				pxEdit(pxRoute(pxConds(pxPrefix("/public")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
					r.AuthPolicy = &contourv1.AuthorizationPolicy{Disabled: true}
				}),
				pxEdit(pxRoute(pxConds(pxPrefix("/ctx")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
					r.AuthPolicy = &contourv1.AuthorizationPolicy{Context: map[string]string{"route": "2", "shared": "route"}}
				}),
				pxEdit(pxRoute(pxConds(pxPrefix("/insecure")), pxSvc("kuard", 80)), func(r *contourv1.Route) { r.PermitInsecure = true }),
			)))
		pxCheck(t, res, "default", "root", pxValid())
		hcm := chainHCM(t, sniChain(findListener(res, "ingress_https"), "example.com"))
		var names []string
		var cfg *extauthzv3.ExtAuthz
		for _, f := range hcm.HttpFilters {
			names = append(names, f.Name)
			if f.Name == "envoy.filters.http.ext_authz" {
				cfg = &extauthzv3.ExtAuthz{}
				if err := f.GetTypedConfig().UnmarshalTo(cfg); err != nil {
					t.Fatal(err)
				}
			}
		}
		if cfg == nil || len(names) < 2 || names[len(names)-2] != "envoy.filters.http.ext_authz" || names[len(names)-1] != "router" {
			t.Fatalf("HTTP filters %v: want ext_authz just before router", names)
		}
		g := cfg.GetGrpcService()
		if !cfg.FailureModeAllow || !cfg.ClearRouteCache || !cfg.IncludePeerCertificate || cfg.StatusOnError.GetCode() != 403 ||
			g.GetEnvoyGrpc().GetClusterName() != "extension/auth/authz" || g.GetEnvoyGrpc().GetAuthority() != "extension.auth.authz" ||
			pxDur(g.Timeout) != "2s" || cfg.WithRequestBody.GetMaxRequestBytes() != 1024 || !cfg.WithRequestBody.GetAllowPartialMessage() {
			t.Errorf("ext_authz %v", cfg)
		}
		// The plain HTTP listener has no ext_authz filter.
		for _, f := range chainHCM(t, findListener(res, "ingress_http").FilterChains[0]).HttpFilters {
			if f.Name == "envoy.filters.http.ext_authz" {
				t.Errorf("ingress_http has an ext_authz filter")
			}
		}
		ctx := func(r *routev3.Route) string {
			a := pxUnpack(t, r.TypedPerFilterConfig, "envoy.filters.http.ext_authz", &extauthzv3.ExtAuthzPerRoute{})
			if a.GetDisabled() {
				return "disabled"
			}
			m := a.GetCheckSettings().GetContextExtensions()
			return "vhost=" + m["vhost"] + " route=" + m["route"] + " shared=" + m["shared"]
		}
		secure := pxRoutesOf(res, "https/example.com", "example.com")
		for path, want := range map[string]string{
			"/":         "vhost=1 route= shared=vhost",
			"/public":   "disabled",
			"/ctx":      "vhost=1 route=2 shared=route",
			"/insecure": "vhost=1 route= shared=vhost",
		} {
			if got := ctx(mustRouteWithMatch(t, secure, wantPrefix(path))); got != want {
				t.Errorf("https %s: %s, want %s", path, got, want)
			}
		}
		plain := pxRoutesOf(res, pxHTTPRC, "example.com")
		if got := ctx(mustRouteWithMatch(t, plain, wantPrefix("/ctx"))); got != "disabled" {
			t.Errorf("http redirect /ctx: %s, want disabled", got)
		}
		if got := ctx(mustRouteWithMatch(t, plain, wantPrefix("/insecure"))); got != "vhost=1 route= shared=vhost" {
			t.Errorf("http /insecure: %s", got)
		}
	})

	t.Run("authorization disabled for the virtual host, timeout of its own", func(t *testing.T) {
		res := pxTranslate(t, Options{}, objs, pxRoot(pxTLSSecret("tls"),
			authz(contourv1.AuthorizationServer{ResponseTimeout: "infinity", AuthPolicy: &contourv1.AuthorizationPolicy{Disabled: true}}),
			pxRoutes(pxRouteTo(pxSvc("kuard", 80)), pxEdit(pxRoute(pxConds(pxPrefix("/private")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
				r.AuthPolicy = &contourv1.AuthorizationPolicy{}
			}))))
		pxCheck(t, res, "default", "root", pxValid())
		secure := pxRoutesOf(res, "https/example.com", "example.com")
		if a := mustRouteWithMatch(t, secure, wantPrefix("/")).TypedPerFilterConfig; a == nil {
			t.Errorf("/ has no ext_authz override")
		} else if !pxUnpack(t, a, "envoy.filters.http.ext_authz", &extauthzv3.ExtAuthzPerRoute{}).GetDisabled() {
			t.Errorf("/ is not disabled")
		}
		if a := mustRouteWithMatch(t, secure, wantPrefix("/private")).TypedPerFilterConfig; a != nil && a["envoy.filters.http.ext_authz"] != nil {
			t.Errorf("/private has an ext_authz override: %v", a)
		}
		for _, f := range chainHCM(t, sniChain(findListener(res, "ingress_https"), "example.com")).HttpFilters {
			if f.Name == "envoy.filters.http.ext_authz" {
				cfg := &extauthzv3.ExtAuthz{}
				_ = f.GetTypedConfig().UnmarshalTo(cfg)
				if d := cfg.GetGrpcService().GetTimeout(); d == nil || d.AsDuration() != 0 {
					t.Errorf("timeout %v, want 0s (infinity)", d)
				}
			}
		}
	})

	t.Run("extension SNI is the gRPC authority", func(t *testing.T) {
		c := testpki.Certs(t)
		res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxBackend("auth", "authz"), testpki.TLSSecret(t, "default", "tls"),
			testpki.Secret("auth", "ca", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}),
			pxExtension("auth", "authz", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("authz"),
				UpstreamValidation: &contourv1.UpstreamValidation{CACertificate: "ca", SubjectName: "authz.auth.svc"}}),
			pxRoot(pxTLSSecret("tls"), authz(contourv1.AuthorizationServer{}), pxRoutes(pxRouteTo(pxSvc("kuard", 80)))))
		for _, f := range chainHCM(t, sniChain(findListener(res, "ingress_https"), "example.com")).HttpFilters {
			if f.Name == "envoy.filters.http.ext_authz" {
				cfg := &extauthzv3.ExtAuthz{}
				_ = f.GetTypedConfig().UnmarshalTo(cfg)
				if a := cfg.GetGrpcService().GetEnvoyGrpc().GetAuthority(); a != "authz.auth.svc" {
					t.Errorf("authority %q", a)
				}
				if cfg.GetGrpcService().GetTimeout() != nil {
					t.Errorf("timeout %v, want none", cfg.GetGrpcService().GetTimeout())
				}
			}
		}
	})
}

func pxExactIC(s string) *matcherv3.StringMatcher {
	return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: s}, IgnoreCase: true}
}

func pxRegexMatcher(s string) *matcherv3.StringMatcher {
	return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: s}}}
}
