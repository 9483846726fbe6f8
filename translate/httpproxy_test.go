package translate

// HTTPProxy validity rules and the status Contour writes for them: roots,
// includes, match conditions, TLS, client validation and tcpproxy. Route,
// service and virtual-host policies are in httpproxy_policy_test.go and
// httpproxy_vhost_test.go. Expected statuses follow Contour's
// internal/dag/httpproxy_processor.go and internal/dag/status_test.go.

import (
	"strconv"
	"strings"
	"testing"

	"github.com/contourc/contourc/translate/internal/testpki"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	corev1 "k8s.io/api/core/v1"
)

const (
	pxHTTPRC = "ingress_http"
	pxKuard  = "default/kuard/80/da39a3ee5e"
)

// pxRoot is default/root for example.com routing / to kuard:80.
func pxRoot(opts ...pxOpt) *contourv1.HTTPProxy {
	return pxProxy("default", "root", append([]pxOpt{pxFQDN("example.com")}, opts...)...)
}

func TestHTTPProxyRootRules(t *testing.T) {
	kuard := pxBackend("default", "kuard")
	toKuard := pxRoutes(pxRouteTo(pxSvc("kuard", 80)))
	tests := []struct {
		name   string
		opts   Options
		objs   []any
		status map[string]pxWant // "ns/name" -> status
		host   string            // ingress_http virtual host checked
		routes []string          // its routes; nil: the host is absent
	}{{
		name:   "valid root",
		objs:   []any{kuard, pxRoot(toKuard)},
		status: map[string]pxWant{"default/root": pxValid()},
		host:   "example.com", routes: []string{"prefix / -> " + pxKuard},
	}, {
		name:   "blank fqdn",
		objs:   []any{kuard, pxProxy("default", "root", pxFQDN("  "), toKuard)},
		status: map[string]pxWant{"default/root": pxInvalid("VirtualHostError/FQDNNotSpecified: Spec.VirtualHost.Fqdn must be specified")},
	}, {
		name:   "nothing defined",
		objs:   []any{kuard, pxRoot()},
		status: map[string]pxWant{"default/root": pxInvalid("SpecError/NothingDefined: HTTPProxy.Spec must have at least one Route, Include, or a TCPProxy")},
		host:   "example.com",
	}, {
		name: "root outside the root namespaces",
		opts: Options{RootNamespaces: []string{"roots", "other"}},
		objs: []any{kuard, pxBackend("roots", "kuard"), pxRoot(toKuard), pxProxy("roots", "root", pxFQDN("roots.example.com"), toKuard)},
		status: map[string]pxWant{
			"default/root": pxInvalid("RootNamespaceError/RootProxyNotAllowedInNamespace: root HTTPProxy cannot be defined in this namespace"),
			"roots/root":   pxValid(),
		},
		host: "example.com",
	}, {
		name: "root namespaces do not restrict included proxies",
		opts: Options{RootNamespaces: []string{"roots"}},
		objs: []any{kuard, pxProxy("roots", "root", pxFQDN("example.com"), pxIncludes(pxInclude("child", "default"))),
			pxProxy("default", "child", toKuard)},
		status: map[string]pxWant{"roots/root": pxValid(), "default/child": pxValid()},
		host:   "example.com", routes: []string{"prefix / -> " + pxKuard},
	}, {
		name: "duplicate fqdn, compared case-insensitively: all invalid",
		objs: []any{kuard, pxBackend("other", "kuard"),
			pxProxy("default", "a", pxFQDN("Example.com"), toKuard),
			pxProxy("other", "b", pxFQDN("example.com"), toKuard),
			pxProxy("default", "c", pxFQDN("EXAMPLE.COM"), pxIncludes(pxInclude("child", ""))),
			pxProxy("default", "child", toKuard),
			pxProxy("default", "unique", pxFQDN("unique.example.com"), toKuard)},
		status: map[string]pxWant{
			"default/a":      pxInvalid(`VirtualHostError/DuplicateVhost: fqdn "example.com" is used in multiple HTTPProxies: default/a, default/c, other/b`),
			"other/b":        pxInvalid(`VirtualHostError/DuplicateVhost: fqdn "example.com" is used in multiple HTTPProxies: default/a, default/c, other/b`),
			"default/c":      pxInvalid(`VirtualHostError/DuplicateVhost: fqdn "example.com" is used in multiple HTTPProxies: default/a, default/c, other/b`),
			"default/child":  pxOrphaned(),
			"default/unique": pxValid(),
		},
		host: "example.com",
	}, {
		name:   "a proxy nobody includes is orphaned",
		objs:   []any{kuard, pxProxy("default", "child", toKuard)},
		status: map[string]pxWant{"default/child": pxOrphaned()},
	}, {
		name: "the includes of an invalid root are orphaned",
		objs: []any{kuard, pxProxy("default", "root", pxFQDN(""), pxIncludes(pxInclude("child", ""))), pxProxy("default", "child", toKuard)},
		status: map[string]pxWant{
			"default/root":  pxInvalid("VirtualHostError/FQDNNotSpecified: Spec.VirtualHost.Fqdn must be specified"),
			"default/child": pxOrphaned(),
		},
	}, {
		name: "a child of a valid root and of an invalid one is not orphaned",
		objs: []any{kuard, pxProxy("default", "nofqdn", pxFQDN(""), pxIncludes(pxInclude("child", ""))),
			pxRoot(pxIncludes(pxInclude("child", ""))), pxProxy("default", "child", toKuard)},
		status: map[string]pxWant{
			"default/nofqdn": pxInvalid("VirtualHostError/FQDNNotSpecified: Spec.VirtualHost.Fqdn must be specified"),
			"default/root":   pxValid(),
			"default/child":  pxValid(),
		},
		host: "example.com", routes: []string{"prefix / -> " + pxKuard},
	}, {
		name:   "a child with nothing defined is valid and adds nothing",
		objs:   []any{kuard, pxRoot(toKuard, pxIncludes(pxInclude("empty", "", pxPrefix("/empty")))), pxProxy("default", "empty")},
		status: map[string]pxWant{"default/root": pxValid(), "default/empty": pxValid()},
		host:   "example.com", routes: []string{"prefix / -> " + pxKuard},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, tt.opts, tt.objs...)
			for key, w := range tt.status {
				ns, name, _ := strings.Cut(key, "/")
				pxCheck(t, res, ns, name, w)
			}
			if len(res.Status) != len(tt.status) {
				t.Errorf("%d statuses, want %d", len(res.Status), len(tt.status))
			}
			if tt.host != "" {
				pxCheckRoutes(t, res, pxHTTPRC, tt.host, tt.routes...)
			}
		})
	}
}

// TestHTTPProxyRootNamespacesHideSecrets: with root namespaces, Contour only
// watches Secrets in those namespaces (cmd/contour/serve.go:421-442,646-656),
// so a certificate delegated from elsewhere is not found.
func TestHTTPProxyRootNamespacesHideSecrets(t *testing.T) {
	res := pxTranslate(t, Options{RootNamespaces: []string{"roots"}},
		pxBackend("roots", "kuard"), testpki.TLSSecret(t, "certs", "tls"), mkDelegation("certs", "d", "tls", "roots"),
		pxProxy("roots", "root", pxFQDN("example.com"), pxTLSSecret("certs/tls"), pxRoutes(pxRouteTo(pxSvc("kuard", 80)))))
	if st := pxMustStatus(t, res, "roots", "root"); st.CurrentStatus == "valid" {
		t.Error("a Secret outside the root namespaces was found; Contour's Secret informer only watches the root namespaces (cmd/contour/serve.go:421-442,646-656)")
	}
	pxCheck(t, res, "roots", "root", pxInvalid(`TLSError/SecretNotValid: Spec.VirtualHost.TLS Secret "certs/tls" is invalid: Secret not found`))
}

func TestHTTPProxyIncludes(t *testing.T) {
	backends := pxFlat(pxBackend("default", "kuard"), pxBackend("teama", "app"), pxBackend("teamb", "app"))
	toKuard := pxRouteTo(pxSvc("kuard", 80))
	toApp := pxRouteTo(pxSvc("app", 80))
	appA, appB := pxPlain("teama", "app"), pxPlain("teamb", "app")
	tests := []struct {
		name   string
		objs   []any
		status map[string]pxWant
		routes []string // example.com's plain HTTP routes
	}{{
		name: "cross-namespace include concatenates prefixes",
		objs: []any{pxRoot(pxRoutes(toKuard), pxIncludes(pxInclude("blog", "teama", pxPrefix("/blog")))),
			pxProxy("teama", "blog", pxRoutes(toApp, pxRoute(pxConds(pxPrefix("/v1")), pxSvc("app", 80))))},
		status: map[string]pxWant{"default/root": pxValid(), "teama/blog": pxValid()},
		routes: []string{"prefix /blog/v1 -> " + appA, "prefix /blog -> " + appA, "prefix / -> " + pxKuard},
	}, {
		name: "repeated slashes of a chain collapse",
		objs: []any{pxRoot(pxIncludes(pxInclude("api", "teama", pxPrefix("/api/")))),
			pxProxy("teama", "api", pxRoutes(pxRoute(pxConds(pxPrefix("/v1/")), pxSvc("app", 80))))},
		status: map[string]pxWant{"default/root": pxValid(), "teama/api": pxValid()},
		routes: []string{"prefix /api/v1/ -> " + appA},
	}, {
		name: "the last condition of the chain decides exact, any regex makes a regex",
		objs: []any{pxRoot(pxIncludes(pxInclude("api", "teama", pxPrefix("/api")))),
			pxProxy("teama", "api", pxRoutes(
				pxRoute(pxConds(pxExact("/exact")), pxSvc("app", 80)),
				pxRoute(pxConds(pxRegex("/v[0-9]+")), pxSvc("app", 80)),
				// A header after the exact path: the last condition is not
				// exact, so Contour makes the merged path a prefix.
				pxRoute(pxConds(pxExact("/quirk"), pxHeader(contourv1.HeaderMatchCondition{Name: "x-a", Present: true})), pxSvc("app", 80))))},
		status: map[string]pxWant{"default/root": pxValid(), "teama/api": pxValid()},
		routes: []string{"exact /api/exact -> " + appA, "regex ^/api(?:/v[0-9]+) -> " + appA, "prefix /api/quirk header x-a -> " + appA},
	}, {
		// Contour v1.33.8: the include prefix is quoted and the child's
		// regex grouped, so its "|" cannot match paths outside /team-a/.
		name: "a child's regex stays under its include prefix",
		objs: []any{pxRoot(pxRoutes(toKuard), pxIncludes(pxInclude("app", "teama", pxPrefix("/team-a/")))),
			pxProxy("teama", "app", pxRoutes(pxRoute(pxConds(pxRegex("/x|/admin.*")), pxSvc("app", 80))))},
		status: map[string]pxWant{"default/root": pxValid(), "teama/app": pxValid()},
		routes: []string{"regex ^/team-a(?:/x|/admin.*) -> " + appA, "prefix / -> " + pxKuard},
	}, {
		// A regex valid alone that no longer compiles once grouped
		// discards the child's routes, its other routes included, with
		// Contour v1.33.8's route error.
		name: "a child's regex invalid once merged",
		objs: []any{pxRoot(pxRoutes(toKuard), pxIncludes(pxInclude("app", "teama", pxPrefix("/team-a/")))),
			pxProxy("teama", "app", pxRoutes(toApp, pxRoute(pxConds(pxRegex(`/x\Q`)), pxSvc("app", 80))))},
		status: map[string]pxWant{
			"default/root": pxValid(),
			"teama/app":    pxInvalid("RouteError/PathMatchConditionsNotValid: route: regex invalid after merging with include prefix"),
		},
		routes: []string{"prefix / -> " + pxKuard},
	}, {
		name: "header and query conditions of includes reach every descendant",
		objs: []any{pxRoot(pxIncludes(pxInclude("a", "teama", pxPrefix("/a"), pxHeader(contourv1.HeaderMatchCondition{Name: "x-team", Exact: "a"})))),
			pxProxy("teama", "a", pxIncludes(pxInclude("b", "teamb", pxQuery(contourv1.QueryParameterMatchCondition{Name: "q", Present: true})))),
			pxProxy("teamb", "b", pxRoutes(toApp))},
		status: map[string]pxWant{"default/root": pxValid(), "teama/a": pxValid(), "teamb/b": pxValid()},
		routes: []string{"prefix /a header x-team query q -> " + appB},
	}, {
		name: "include cycle through a child",
		objs: []any{pxRoot(pxRoutes(toKuard), pxIncludes(pxInclude("a", "", pxPrefix("/a")))),
			pxProxy("default", "a", pxRoutes(toKuard), pxIncludes(pxInclude("b", "", pxPrefix("/b")))),
			pxProxy("default", "b", pxRoutes(toKuard), pxIncludes(pxInclude("a", "", pxPrefix("/c"))))},
		status: map[string]pxWant{
			"default/root": pxValid(),
			"default/a":    pxInvalid("IncludeError/IncludeCreatesCycle: include creates an include cycle: default/root -> default/a -> default/b -> default/a"),
			"default/b":    pxValid(),
		},
		routes: []string{"prefix /a/b -> " + pxKuard, "prefix /a -> " + pxKuard, "prefix / -> " + pxKuard},
	}, {
		name: "a child including itself",
		objs: []any{pxRoot(pxIncludes(pxInclude("child", "", pxPrefix("/foo")))),
			pxProxy("default", "child", pxIncludes(pxInclude("child", "", pxPrefix("/foo"))))},
		status: map[string]pxWant{
			"default/root":  pxValid(),
			"default/child": pxInvalid("IncludeError/IncludeCreatesCycle: include creates an include cycle: default/root -> default/child -> default/child"),
		},
	}, {
		name: "root including a root gets a 502 route for the include's conditions",
		objs: []any{pxRoot(pxRoutes(toKuard), pxIncludes(pxInclude("other", "", pxPrefix("/other")))),
			pxProxy("default", "other", pxFQDN("other.example.com"), pxRoutes(toKuard))},
		status: map[string]pxWant{
			"default/root":  pxInvalid("IncludeError/RootIncludesRoot: root httpproxy cannot include another root httpproxy (default/other)"),
			"default/other": pxValid(),
		},
		routes: []string{"prefix /other -> 502", "prefix / -> " + pxKuard},
	}, {
		name:   "root including itself",
		objs:   []any{pxRoot(pxRoutes(toKuard), pxIncludes(pxInclude("root", "default", pxPrefix("/self"))))},
		status: map[string]pxWant{"default/root": pxInvalid("IncludeError/RootIncludesRoot: root httpproxy cannot include another root httpproxy (default/root)")},
		routes: []string{"prefix /self -> 502", "prefix / -> " + pxKuard},
	}, {
		name:   "missing include with conditions: 502 route",
		objs:   []any{pxRoot(pxRoutes(toKuard), pxIncludes(pxInclude("missing", "teama", pxPrefix("/missing"), pxHeader(contourv1.HeaderMatchCondition{Name: "x-a", Present: true}))))},
		status: map[string]pxWant{"default/root": pxInvalid("IncludeError/IncludeNotFound: include teama/missing not found")},
		routes: []string{"prefix /missing header x-a -> 502", "prefix / -> " + pxKuard},
	}, {
		name:   "missing include without conditions: no route",
		objs:   []any{pxRoot(pxRoutes(pxRoute(pxConds(pxPrefix("/kuard")), pxSvc("kuard", 80))), pxIncludes(pxInclude("missing", "")))},
		status: map[string]pxWant{"default/root": pxInvalid("IncludeError/IncludeNotFound: include default/missing not found")},
		routes: []string{"prefix /kuard -> " + pxKuard},
	}, {
		// Contour builds the 502 route from the include's own conditions,
		// not from the whole chain (httpproxy_processor.go:765-777).
		name: "502 route of a nested include uses only that include's conditions",
		objs: []any{pxRoot(pxIncludes(pxInclude("child", "", pxPrefix("/foo")))),
			pxProxy("default", "child", pxRoutes(toKuard), pxIncludes(pxInclude("missing", "", pxPrefix("/bar"))))},
		status: map[string]pxWant{
			"default/root":  pxValid(),
			"default/child": pxInvalid("IncludeError/IncludeNotFound: include default/missing not found"),
		},
		routes: []string{"prefix /foo -> " + pxKuard, "prefix /bar -> 502"},
	}, {
		name: "duplicate include conditions: the second include is skipped",
		objs: []any{pxRoot(pxRoutes(toKuard), pxIncludes(pxInclude("blog", "teama", pxPrefix("/blog")), pxInclude("blog", "teamb", pxPrefix("/blog")))),
			pxProxy("teama", "blog", pxRoutes(toApp)), pxProxy("teamb", "blog", pxRoutes(toApp))},
		status: map[string]pxWant{
			"default/root": pxInvalid("IncludeError/DuplicateMatchConditions: duplicate conditions defined on an include"),
			"teama/blog":   pxValid(),
			"teamb/blog":   pxOrphaned(),
		},
		routes: []string{"prefix /blog -> " + appA, "prefix / -> " + pxKuard},
	}, {
		name: "duplicate header conditions in another order",
		objs: []any{pxRoot(pxIncludes(
			pxInclude("blog", "teama", pxPrefix("/blog"), pxHeader(contourv1.HeaderMatchCondition{Name: "x-a", Exact: "1"}), pxHeader(contourv1.HeaderMatchCondition{Name: "x-b", Present: true})),
			pxInclude("blog", "teamb", pxHeader(contourv1.HeaderMatchCondition{Name: "x-b", Present: true}), pxPrefix("/blog"), pxHeader(contourv1.HeaderMatchCondition{Name: "x-a", Exact: "1"})))),
			pxProxy("teama", "blog", pxRoutes(toApp)), pxProxy("teamb", "blog", pxRoutes(toApp))},
		status: map[string]pxWant{
			"default/root": pxInvalid("IncludeError/DuplicateMatchConditions: duplicate conditions defined on an include"),
			"teama/blog":   pxValid(),
			"teamb/blog":   pxOrphaned(),
		},
		routes: []string{"prefix /blog header x-a header x-b -> " + appA},
	}, {
		name: "duplicate query conditions",
		objs: []any{pxRoot(pxIncludes(
			pxInclude("blog", "teama", pxQuery(contourv1.QueryParameterMatchCondition{Name: "v", Exact: "1"})),
			pxInclude("blog", "teamb", pxPrefix("/"), pxQuery(contourv1.QueryParameterMatchCondition{Name: "v", Exact: "1"})))),
			pxProxy("teama", "blog", pxRoutes(toApp)), pxProxy("teamb", "blog", pxRoutes(toApp))},
		status: map[string]pxWant{
			"default/root": pxInvalid("IncludeError/DuplicateMatchConditions: duplicate conditions defined on an include"),
			"teama/blog":   pxValid(),
			"teamb/blog":   pxOrphaned(),
		},
		routes: []string{"prefix / query v -> " + appA},
	}, {
		name: "includes with no conditions or only / are never duplicates",
		objs: []any{pxRoot(pxIncludes(pxInclude("a", "teama"), pxInclude("b", "teamb", pxPrefix("/")), pxInclude("c", "teamb"))),
			pxProxy("teama", "a", pxRoutes(pxRoute(pxConds(pxPrefix("/a")), pxSvc("app", 80)))),
			pxProxy("teamb", "b", pxRoutes(pxRoute(pxConds(pxPrefix("/b")), pxSvc("app", 80)))),
			pxProxy("teamb", "c", pxRoutes(pxRoute(pxConds(pxPrefix("/c")), pxSvc("app", 80))))},
		status: map[string]pxWant{"default/root": pxValid(), "teama/a": pxValid(), "teamb/b": pxValid(), "teamb/c": pxValid()},
		routes: []string{"prefix /c -> " + appB, "prefix /b -> " + appB, "prefix /a -> " + appA},
	}, {
		name: "same prefix with different headers is not a duplicate",
		objs: []any{pxRoot(pxIncludes(
			pxInclude("blog", "teama", pxPrefix("/blog")),
			pxInclude("blog", "teamb", pxPrefix("/blog"), pxHeader(contourv1.HeaderMatchCondition{Name: "x-beta", Present: true})))),
			pxProxy("teama", "blog", pxRoutes(toApp)), pxProxy("teamb", "blog", pxRoutes(toApp))},
		status: map[string]pxWant{"default/root": pxValid(), "teama/blog": pxValid(), "teamb/blog": pxValid()},
		routes: []string{"prefix /blog header x-beta -> " + appB, "prefix /blog -> " + appA},
	}, {
		name: "exact and regex conditions are not allowed on includes",
		objs: []any{pxRoot(pxRoutes(toKuard), pxIncludes(pxInclude("a", "teama", pxExact("/a")), pxInclude("b", "teamb", pxRegex("/b.*")))),
			pxProxy("teama", "a", pxRoutes(toApp)), pxProxy("teamb", "b", pxRoutes(toApp))},
		status: map[string]pxWant{
			"default/root": pxInvalid(
				"IncludeError/PathMatchConditionsNotValid: include: exact conditions are not allowed in includes block",
				"IncludeError/PathMatchConditionsNotValid: include: regex conditions are not allowed in includes block"),
			"teama/a": pxOrphaned(),
			"teamb/b": pxOrphaned(),
		},
		routes: []string{"prefix / -> " + pxKuard},
	}, {
		name: "include prefix without a leading slash, two prefixes",
		objs: []any{pxRoot(pxRoutes(toKuard), pxIncludes(pxInclude("a", "teama", pxPrefix("api")), pxInclude("b", "teamb", pxPrefix("/a"), pxPrefix("/b")))),
			pxProxy("teama", "a", pxRoutes(toApp)), pxProxy("teamb", "b", pxRoutes(toApp))},
		status: map[string]pxWant{
			"default/root": pxInvalid(
				"IncludeError/PathMatchConditionsNotValid: include: prefix conditions must start with /, api was supplied",
				"IncludeError/PathMatchConditionsNotValid: include: more than one prefix, exact or regex is not allowed in a condition block"),
			"teama/a": pxOrphaned(),
			"teamb/b": pxOrphaned(),
		},
		routes: []string{"prefix / -> " + pxKuard},
	}, {
		name: "contradictory header and invalid query conditions on includes",
		objs: []any{pxRoot(pxRoutes(toKuard), pxIncludes(
			pxInclude("a", "teama", pxPrefix("/a"), pxHeader(contourv1.HeaderMatchCondition{Name: "x-a", Present: true}), pxHeader(contourv1.HeaderMatchCondition{Name: "X-A", NotPresent: true})),
			pxInclude("b", "teamb", pxPrefix("/b"), pxQuery(contourv1.QueryParameterMatchCondition{Name: "q"})))),
			pxProxy("teama", "a", pxRoutes(toApp)), pxProxy("teamb", "b", pxRoutes(toApp))},
		status: map[string]pxWant{
			"default/root": pxInvalid(
				"RouteError/HeaderMatchConditionsNotValid: cannot specify contradictory 'present' and 'notpresent' conditions for the same route and header",
				"RouteError/QueryParameterMatchConditionsNotValid: must specify at least one query parameter condition"),
			"teama/a": pxOrphaned(),
			"teamb/b": pxOrphaned(),
		},
		routes: []string{"prefix / -> " + pxKuard},
	}, {
		name: "an error in a child only drops the child's routes",
		objs: []any{pxRoot(pxRoutes(toKuard), pxIncludes(pxInclude("a", "teama", pxPrefix("/a")), pxInclude("b", "teamb", pxPrefix("/b")))),
			pxProxy("teama", "a", pxRoutes(toApp)),
			pxProxy("teamb", "b", pxRoutes(toApp, pxRoute(pxConds(pxPrefix("/bad")), pxSvc("app", 0))))},
		status: map[string]pxWant{
			"default/root": pxValid(),
			"teama/a":      pxValid(),
			"teamb/b":      pxInvalid(`ServiceError/ServicePortInvalid: service "app": port must be in the range 1-65535`),
		},
		routes: []string{"prefix /a -> " + appA, "prefix / -> " + pxKuard},
	}, {
		name: "an error in a proxy's own routes also drops its includes' routes",
		objs: []any{pxRoot(pxIncludes(pxInclude("a", "teama", pxPrefix("/a")))),
			pxProxy("teama", "a", pxRoutes(pxRouteTo(pxSvc("app", 70000))), pxIncludes(pxInclude("b", "teamb", pxPrefix("/b")))),
			pxProxy("teamb", "b", pxRoutes(toApp))},
		status: map[string]pxWant{
			"default/root": pxValid(),
			"teama/a":      pxInvalid(`ServiceError/ServicePortInvalid: service "app": port must be in the range 1-65535`),
			"teamb/b":      pxValid(),
		},
	}, {
		name:   "the root's own route wins over an included route with the same conditions",
		objs:   []any{pxRoot(pxRoutes(toKuard), pxIncludes(pxInclude("a", "teama"))), pxProxy("teama", "a", pxRoutes(toApp))},
		status: map[string]pxWant{"default/root": pxValid(), "teama/a": pxValid()},
		routes: []string{"prefix / -> " + pxKuard},
	}, {
		name:   "the last of a proxy's routes with the same conditions wins",
		objs:   []any{pxRoot(pxRoutes(toKuard, pxRouteTo(pxSvc("kuard", 8443))))},
		status: map[string]pxWant{"default/root": pxValid()},
		routes: []string{"prefix / -> default/kuard/8443/da39a3ee5e"},
	}, {
		name: "one child included twice by the same root",
		objs: []any{pxRoot(pxIncludes(pxInclude("a", "teama", pxPrefix("/one")), pxInclude("a", "teama", pxPrefix("/two")))),
			pxProxy("teama", "a", pxRoutes(toApp))},
		status: map[string]pxWant{"default/root": pxValid(), "teama/a": pxValid()},
		routes: []string{"prefix /two -> " + appA, "prefix /one -> " + appA},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, backends, tt.objs)
			for key, w := range tt.status {
				ns, name, _ := strings.Cut(key, "/")
				pxCheck(t, res, ns, name, w)
			}
			if len(res.Status) != len(tt.status) {
				t.Errorf("%d statuses, want %d", len(res.Status), len(tt.status))
			}
			pxCheckRoutes(t, res, pxHTTPRC, "example.com", tt.routes...)
		})
	}
}

// TestHTTPProxyIncludedTwiceStatus: Contour's status cache keeps one
// update per proxy and each visit replaces the previous one
// (internal/status/cache.go:217-242), so a child reached from two roots
// reports its errors once, not once per visit.
func TestHTTPProxyIncludedTwiceStatus(t *testing.T) {
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"),
		pxProxy("default", "one", pxFQDN("one.example.com"), pxIncludes(pxInclude("child", ""))),
		pxProxy("default", "two", pxFQDN("two.example.com"), pxIncludes(pxInclude("child", ""))),
		pxProxy("default", "child", pxRoutes(
			pxRoute(pxConds(pxPrefix("/ok")), pxSvc("kuard", 80)),
			pxRoute(pxConds(pxPrefix("/missing")), pxSvc("missing", 80)),
			pxRoute(pxConds(pxPrefix("/hash")), pxSvc("kuard", 80)),
		), func(p *contourv1.HTTPProxy) {
			p.Spec.Routes[2].LoadBalancerPolicy = &contourv1.LoadBalancerPolicy{Strategy: "RequestHash"}
		}))
	for _, host := range []string{"one.example.com", "two.example.com"} {
		pxCheckRoutes(t, res, pxHTTPRC, host, "prefix /missing -> 503", "prefix /hash -> default/kuard/80/f3b72af6a9", "prefix /ok -> "+pxKuard)
	}
	got := pxMustStatus(t, res, "default", "child").Conditions[0]
	if len(got.Errors) != 1 || len(got.Warnings) != 1 {
		t.Errorf("got %d errors, %d warnings (%q %q), want 1 of each: Contour replaces the status on each visit (internal/status/cache.go:217-242)", len(got.Errors), len(got.Warnings), pxDetails(got.Errors), pxDetails(got.Warnings))
	}
	pxCheck(t, res, "default", "child", pxWant{current: "invalid",
		errors:   []string{`ServiceError/ServiceUnresolvedReference: Spec.Routes unresolved service reference: service "default/missing" not found`},
		warnings: []string{"SpecError/IgnoredField: ignoring invalid request hash policy options, setting load balancer strategy to default RoundRobin"}})
}

// TestHTTPProxyIncludeDuplicateUsesMergedConditions: Contour compares
// include conditions after merging them (internal/dag/
// httpproxy_processor.go:1870-1995): prefixes with their repeated slashes
// collapsed, header conditions in their DAG form, which drops ignoreCase
// from present matches.
func TestHTTPProxyIncludeDuplicateUsesMergedConditions(t *testing.T) {
	for name, second := range map[string]contourv1.Include{
		"repeated slashes":        pxInclude("blog", "teamb", pxPrefix("/blog//")),
		"ignoreCase on a present": pxInclude("blog", "teamb", pxPrefix("/blog/"), pxHeader(contourv1.HeaderMatchCondition{Name: "x-a", Present: true, IgnoreCase: true})),
	} {
		t.Run(name, func(t *testing.T) {
			first := pxInclude("blog", "teama", pxPrefix("/blog/"))
			if len(second.Conditions) > 1 {
				first.Conditions = append(first.Conditions, pxHeader(contourv1.HeaderMatchCondition{Name: "x-a", Present: true}))
			}
			res := pxTranslate(t, Options{}, pxBackend("teama", "app"), pxBackend("teamb", "app"),
				pxRoot(pxIncludes(first, second)),
				pxProxy("teama", "blog", pxRoutes(pxRouteTo(pxSvc("app", 80)))), pxProxy("teamb", "blog", pxRoutes(pxRouteTo(pxSvc("app", 80)))))
			if pxMustStatus(t, res, "default", "root").CurrentStatus == "valid" {
				t.Error("root valid, want DuplicateMatchConditions: Contour compares the merged include conditions (internal/dag/httpproxy_processor.go:1870-1995)")
			}
			pxCheck(t, res, "default", "root", pxInvalid("IncludeError/DuplicateMatchConditions: duplicate conditions defined on an include"))
			pxCheck(t, res, "teamb", "blog", pxOrphaned())
		})
	}
}

func TestHTTPProxyRouteConditions(t *testing.T) {
	h := func(hc contourv1.HeaderMatchCondition) contourv1.MatchCondition {
		if hc.Name == "" {
			hc.Name = "x-foo"
		}
		return pxHeader(hc)
	}
	q := func(qc contourv1.QueryParameterMatchCondition) contourv1.MatchCondition {
		if qc.Name == "" {
			qc.Name = "search"
		}
		return pxQuery(qc)
	}
	const (
		hdrErr   = "RouteError/HeaderMatchConditionsNotValid: "
		queryErr = "RouteError/QueryParameterMatchConditionsNotValid: "
		pathErr  = "RouteError/PathMatchConditionsNotValid: route: "
	)
	tests := []struct {
		name  string
		conds []contourv1.MatchCondition
		err   string // "" for valid
		route string // the route summary when valid
	}{
		{"present and notpresent, any case", pxConds(h(contourv1.HeaderMatchCondition{Name: "X-Foo", Present: true}), h(contourv1.HeaderMatchCondition{NotPresent: true})),
			hdrErr + "cannot specify contradictory 'present' and 'notpresent' conditions for the same route and header", ""},
		{"notpresent then present", pxConds(h(contourv1.HeaderMatchCondition{NotPresent: true}), h(contourv1.HeaderMatchCondition{Present: true})),
			hdrErr + "cannot specify contradictory 'present' and 'notpresent' conditions for the same route and header", ""},
		{"two exact matches of one header", pxConds(h(contourv1.HeaderMatchCondition{Exact: "a"}), h(contourv1.HeaderMatchCondition{Name: "X-FOO", Exact: "b"})),
			hdrErr + "cannot specify duplicate header 'exact match' conditions in the same route", ""},
		{"exact and notexact of one value", pxConds(h(contourv1.HeaderMatchCondition{NotExact: "a"}), h(contourv1.HeaderMatchCondition{Exact: "a"})),
			hdrErr + "cannot specify contradictory 'exact' and 'notexact' conditions for the same route and header", ""},
		{"exact then notexact of one value", pxConds(h(contourv1.HeaderMatchCondition{Exact: "a"}), h(contourv1.HeaderMatchCondition{NotExact: "a"})),
			hdrErr + "cannot specify contradictory 'exact' and 'notexact' conditions for the same route and header", ""},
		{"exact and notexact of different values", pxConds(h(contourv1.HeaderMatchCondition{Exact: "a"}), h(contourv1.HeaderMatchCondition{NotExact: "b"})),
			"", "prefix / header x-foo header x-foo -> " + pxKuard},
		{"contains and notcontains of one value", pxConds(h(contourv1.HeaderMatchCondition{Contains: "a"}), h(contourv1.HeaderMatchCondition{NotContains: "a"})),
			hdrErr + "cannot specify contradictory 'contains' and 'notcontains' conditions for the same route and header", ""},
		{"notcontains then contains", pxConds(h(contourv1.HeaderMatchCondition{NotContains: "a"}), h(contourv1.HeaderMatchCondition{Contains: "a"})),
			hdrErr + "cannot specify contradictory 'contains' and 'notcontains' conditions for the same route and header", ""},
		{"contradiction needs the same other fields", pxConds(h(contourv1.HeaderMatchCondition{Contains: "a", IgnoreCase: true}), h(contourv1.HeaderMatchCondition{NotContains: "a"})),
			"", "prefix / header x-foo header x-foo -> " + pxKuard},
		{"invalid header regex", pxConds(h(contourv1.HeaderMatchCondition{Regex: "["})),
			hdrErr + "invalid regular expression specified for 'regex' condition", ""},
		{"query with no match", pxConds(q(contourv1.QueryParameterMatchCondition{})),
			queryErr + "must specify at least one query parameter condition", ""},
		{"query with ignoreCase only", pxConds(q(contourv1.QueryParameterMatchCondition{IgnoreCase: true})),
			queryErr + "must specify at least one query parameter condition", ""},
		{"query with two matches", pxConds(q(contourv1.QueryParameterMatchCondition{Exact: "a", Present: true})),
			queryErr + "cannot specify more than one condition in the same match condition branch", ""},
		{"two exact query matches, any case", pxConds(q(contourv1.QueryParameterMatchCondition{Exact: "a"}), q(contourv1.QueryParameterMatchCondition{Name: "Search", Exact: "b"})),
			queryErr + "cannot specify duplicate query parameter 'exact match' conditions in the same route", ""},
		{"invalid query regex", pxConds(q(contourv1.QueryParameterMatchCondition{Regex: "(a"})),
			queryErr + "invalid regular expression specified for 'regex' condition", ""},
		{"every kind of query match", pxConds(q(contourv1.QueryParameterMatchCondition{Name: "a", Exact: "1"}), q(contourv1.QueryParameterMatchCondition{Name: "b", Prefix: "1"}),
			q(contourv1.QueryParameterMatchCondition{Name: "c", Suffix: "1"}), q(contourv1.QueryParameterMatchCondition{Name: "d", Regex: "1+"}),
			q(contourv1.QueryParameterMatchCondition{Name: "e", Contains: "1"}), q(contourv1.QueryParameterMatchCondition{Name: "f", Present: true})),
			"", "prefix / query a query b query c query d query e query f -> " + pxKuard},
		{"two prefixes in one block", []contourv1.MatchCondition{{Prefix: "/a", Exact: "/b"}},
			pathErr + "more than one prefix, exact or regex is not allowed in a condition block", ""},
		{"two prefix conditions", pxConds(pxPrefix("/a"), pxPrefix("/b")),
			pathErr + "more than one prefix, exact or regex is not allowed in a condition block", ""},
		{"prefix without a slash", pxConds(pxPrefix("api")), pathErr + "prefix conditions must start with /, api was supplied", ""},
		{"exact without a slash", pxConds(pxExact("api")), pathErr + "exact conditions must start with /, api was supplied", ""},
		{"regex without a slash", pxConds(pxRegex(".*")), pathErr + "regex conditions must start with /, .* was supplied", ""},
		{"invalid path regex", pxConds(pxRegex("/[")), pathErr + "supplied regex: /[ invalid. error: error parsing regexp: missing closing ]: `[`", ""},
		{"exact path", pxConds(pxExact("/exact")), "", "exact /exact -> " + pxKuard},
		{"regex path is anchored", pxConds(pxRegex("/v[0-9]+/.*")), "", "regex ^/v[0-9]+/.* -> " + pxKuard},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A valid route next to the tested one: an error drops both.
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"),
				pxRoot(pxRoutes(pxRoute(pxConds(pxPrefix("/other")), pxSvc("kuard", 80)), pxRoute(tt.conds, pxSvc("kuard", 80)))))
			if tt.err != "" {
				pxCheck(t, res, "default", "root", pxInvalid(tt.err))
				pxCheckRoutes(t, res, pxHTTPRC, "example.com")
				return
			}
			pxCheck(t, res, "default", "root", pxValid())
			found := false
			for _, r := range pxDescribeAll(pxRoutesOf(res, pxHTTPRC, "example.com")) {
				found = found || r == tt.route
			}
			if !found {
				t.Errorf("no route %q among %q", tt.route, pxDescribeAll(pxRoutesOf(res, pxHTTPRC, "example.com")))
			}
		})
	}
}

// TestHTTPProxyPathConditionErrorDeterministic: Contour checks a condition's
// prefix, then exact, then regex (internal/dag/conditions.go:87-121), so the
// reported error never depends on map iteration order.
func TestHTTPProxyPathConditionErrorDeterministic(t *testing.T) {
	want := "RouteError/PathMatchConditionsNotValid: route: prefix conditions must start with /, api was supplied"
	for i := 0; i < 30; i++ {
		res := pxTranslate(t, Options{}, pxBackend("default", "kuard"),
			pxRoot(pxRoutes(pxRoute([]contourv1.MatchCondition{{Prefix: "api", Exact: "exact", Regex: "re"}}, pxSvc("kuard", 80)))))
		got := pxDetails(pxMustStatus(t, res, "default", "root").Conditions[0].Errors)
		if len(got) != 1 || got[0] != want {
			t.Errorf("run %d reported %q: Contour checks prefix, exact, regex in that order (internal/dag/conditions.go:87-121)", i, got)
		}
	}
}

func TestHTTPProxyRouteActionCount(t *testing.T) {
	const msg = "RouteError/RouteActionCountNotValid: must set exactly one of route.services or route.requestRedirectPolicy or route.directResponsePolicy"
	for name, r := range map[string]contourv1.Route{
		"no action": {},
		"services and direct response": {Services: []contourv1.Service{pxSvc("kuard", 80)},
			DirectResponsePolicy: &contourv1.HTTPDirectResponsePolicy{StatusCode: 200}},
		"redirect and direct response": {RequestRedirectPolicy: &contourv1.HTTPRequestRedirectPolicy{},
			DirectResponsePolicy: &contourv1.HTTPDirectResponsePolicy{StatusCode: 200}},
	} {
		t.Run(name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxRoot(pxRoutes(pxRouteTo(pxSvc("kuard", 80)), r)))
			pxCheck(t, res, "default", "root", pxInvalid(msg))
			if rc := findRouteConfig(res, pxHTTPRC); len(rc.GetVirtualHosts()) != 0 {
				t.Errorf("virtual hosts programmed: %v", vhostNames(rc))
			}
		})
	}
}

func TestHTTPProxyWildcardFQDN(t *testing.T) {
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxBackend("teama", "app"),
		pxProxy("default", "root", pxFQDN("*.example.com"),
			pxRoutes(pxRoute(pxConds(pxHeader(contourv1.HeaderMatchCondition{Name: "x-a", Present: true})), pxSvc("kuard", 80))),
			pxIncludes(pxInclude("app", "teama", pxPrefix("/app")), pxInclude("missing", "teama", pxPrefix("/missing")))),
		pxProxy("teama", "app", pxRoutes(pxRouteTo(pxSvc("app", 80)))))
	pxCheck(t, res, "default", "root", pxInvalid("IncludeError/IncludeNotFound: include teama/missing not found"))
	rc := findRouteConfig(res, pxHTTPRC)
	vh := findVirtualHost(rc, "*.example.com")
	if vh == nil || len(vh.Domains) != 1 || vh.Domains[0] != "*.example.com" {
		t.Fatalf("virtual host *.example.com: %v", vh)
	}
	const authority = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?\.example\.com(:[0-9]+)?`
	// Every route of the tree gets the :authority match (header matchers
	// are sorted, so it comes first); the 502 route of the missing include
	// does not.
	pxCheckRoutes(t, res, pxHTTPRC, "*.example.com",
		"prefix /missing -> 502",
		"prefix /app header :authority -> "+pxPlain("teama", "app"),
		"prefix / header :authority header x-a -> "+pxKuard)
	for _, r := range vh.Routes {
		if r.GetDirectResponse() != nil {
			continue
		}
		first := r.Match.Headers[0]
		if first.Name != ":authority" || first.GetStringMatch().GetSafeRegex().GetRegex() != authority {
			t.Errorf("route %s: header matcher %v, want :authority regex %s", pxDescribe(r), first, authority)
		}
	}
}

func TestHTTPProxyPermitInsecure(t *testing.T) {
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), testpki.TLSSecret(t, "default", "tls"),
		pxRoot(pxTLSSecret("tls"), pxRoutes(
			pxRouteTo(pxSvc("kuard", 80)),
			pxEdit(pxRoute(pxConds(pxPrefix("/insecure")), pxSvc("kuard", 80)), func(r *contourv1.Route) { r.PermitInsecure = true }),
			pxEdit(pxRoute(pxConds(pxPrefix("/direct"))), func(r *contourv1.Route) {
				r.DirectResponsePolicy = &contourv1.HTTPDirectResponsePolicy{StatusCode: 418}
			}))))
	pxCheck(t, res, "default", "root", pxValid())
	pxCheckRoutes(t, res, pxHTTPRC, "example.com", "prefix /insecure -> "+pxKuard, "prefix /direct -> https", "prefix / -> https")
	pxCheckRoutes(t, res, "https/example.com", "example.com", "prefix /insecure -> "+pxKuard, "prefix /direct -> 418", "prefix / -> "+pxKuard)
	for _, r := range pxRoutesOf(res, pxHTTPRC, "example.com") {
		if r.GetRedirect() != nil && r.TypedPerFilterConfig["envoy.filters.http.ext_authz"] == nil {
			t.Errorf("redirect route %s does not disable ext_authz", pxDescribe(r))
		}
	}
}

// ---- TLS ---------------------------------------------------------------------

func TestHTTPProxyTLS(t *testing.T) {
	c := testpki.Certs(t)
	toKuard := pxRoutes(pxRouteTo(pxSvc("kuard", 80)))
	tcpKuard := pxTCP(contourv1.TCPProxy{Services: []contourv1.Service{pxSvc("kuard", 8443)}})
	objs := pxFlat(pxBackend("default", "kuard"), testpki.TLSSecret(t, "default", "tls"), testpki.TLSSecret(t, "certs", "tls"),
		testpki.TLSSecret(t, "certs", "wild"), mkDelegation("certs", "d", "tls", "default"), mkDelegation("certs", "w", "wild", "*"),
		testpki.Secret("default", "notls", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}),
		testpki.Secret("default", "badkey", corev1.SecretTypeTLS, map[string][]byte{"tls.crt": c.CertPEM, "tls.key": []byte("nope")}))
	tests := []struct {
		name   string
		opts   []pxOpt
		status pxWant
		// sds is the secret of the example.com filter chain; "" when TLS
		// is not served, "passthrough" for a chain without TLS.
		sds      string
		httpOnly bool // plain HTTP routes served (not redirected) for a TLS error
	}{{
		name: "secret in the proxy's namespace", opts: []pxOpt{pxTLSSecret("tls"), toKuard},
		status: pxValid(), sds: wantSDSName("default", "tls", c.CertPEM),
	}, {
		name: "delegated secret", opts: []pxOpt{pxTLSSecret("certs/tls"), toKuard},
		status: pxValid(), sds: wantSDSName("certs", "tls", c.CertPEM),
	}, {
		name: "secret delegated to every namespace", opts: []pxOpt{pxTLSSecret("certs/wild"), toKuard},
		status: pxValid(), sds: wantSDSName("certs", "wild", c.CertPEM),
	}, {
		name: "secret not delegated", opts: []pxOpt{pxTLSSecret("certs/wild2"), toKuard},
		status: pxInvalid(`TLSError/DelegationNotPermitted: Spec.VirtualHost.TLS Secret "certs/wild2" certificate delegation not permitted`),
	}, {
		name: "missing secret", opts: []pxOpt{pxTLSSecret("missing"), toKuard},
		status: pxInvalid(`TLSError/SecretNotValid: Spec.VirtualHost.TLS Secret "missing" is invalid: Secret not found`),
	}, {
		name: "secret without a certificate", opts: []pxOpt{pxTLSSecret("notls"), toKuard},
		status: pxInvalid(`TLSError/SecretNotValid: Spec.VirtualHost.TLS Secret "notls" is invalid: missing TLS certificate`),
	}, {
		name: "secret with an invalid key", opts: []pxOpt{pxTLSSecret("badkey"), toKuard},
		status: pxInvalid(`TLSError/SecretNotValid: Spec.VirtualHost.TLS Secret "badkey" is invalid: invalid TLS private key: *`),
	}, {
		name: "passthrough and secret", opts: []pxOpt{pxTLS(contourv1.TLS{SecretName: "tls", Passthrough: true}), tcpKuard},
		status: pxInvalid("TLSError/TLSConfigNotValid: Spec.VirtualHost.TLS: both Passthrough and SecretName were specified"),
	}, {
		name: "neither passthrough nor secret", opts: []pxOpt{pxTLS(contourv1.TLS{}), toKuard},
		status: pxInvalid("TLSError/TLSConfigNotValid: Spec.VirtualHost.TLS: neither Passthrough nor SecretName were specified"),
	}, {
		name: "passthrough and client validation", opts: []pxOpt{pxTLS(contourv1.TLS{Passthrough: true, ClientValidation: &contourv1.DownstreamValidation{CACertificate: "ca"}}), tcpKuard},
		status: pxInvalid("TLSError/TLSIncompatibleFeatures: Spec.VirtualHost.TLS passthrough cannot be combined with tls.clientValidation"),
	}, {
		name: "passthrough and fallback: reported but programmed", opts: []pxOpt{pxTLS(contourv1.TLS{Passthrough: true, EnableFallbackCertificate: true}), tcpKuard},
		status: pxInvalid("TLSError/TLSIncompatibleFeatures: Spec.VirtualHost.TLS: both Passthrough and enableFallbackCertificate were specified"),
		sds:    "passthrough",
	}, {
		name: "valid passthrough", opts: []pxOpt{pxTLS(contourv1.TLS{Passthrough: true}), tcpKuard},
		status: pxValid(), sds: "passthrough",
	}, {
		name: "maximum below minimum", opts: []pxOpt{pxTLS(contourv1.TLS{SecretName: "tls", MinimumProtocolVersion: "1.3", MaximumProtocolVersion: "1.2"}), toKuard},
		status: pxInvalid("TLSError/TLSConfigNotValid: Spec.Virtualhost.TLS the minimum protocol version is greater than the maximum protocol version"),
	}, {
		name: "fallback certificate is not configured", opts: []pxOpt{pxTLS(contourv1.TLS{SecretName: "tls", EnableFallbackCertificate: true}), toKuard},
		status: pxInvalid("TLSError/FallbackNotPresent: Spec.Virtualhost.TLS enabled fallback but the fallback Certificate Secret is not configured in Contour configuration file"),
	}, {
		name:   "fallback and client validation",
		opts:   []pxOpt{pxTLS(contourv1.TLS{SecretName: "tls", EnableFallbackCertificate: true, ClientValidation: &contourv1.DownstreamValidation{CACertificate: "ca"}}), toKuard},
		status: pxInvalid("TLSError/TLSIncompatibleFeatures: Spec.Virtualhost.TLS fallback & client validation are incompatible"),
	}, {
		name: "fallback and authorization",
		opts: []pxOpt{pxTLS(contourv1.TLS{SecretName: "tls", EnableFallbackCertificate: true}), toKuard, pxVhost(func(vh *contourv1.VirtualHost) {
			vh.Authorization = &contourv1.AuthorizationServer{ExtensionServiceRef: contourv1.ExtensionServiceReference{Name: "auth"}}
		})},
		status: pxInvalid("TLSError/TLSIncompatibleFeatures: Spec.Virtualhost.TLS fallback & client authorization are incompatible"),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, objs, pxRoot(tt.opts...))
			pxCheck(t, res, "default", "root", tt.status)
			l := findListener(res, "ingress_https")
			fc := sniChain(l, "example.com")
			switch tt.sds {
			case "":
				if fc != nil {
					t.Errorf("example.com is served over TLS")
				}
				if rs := pxRoutesOf(res, pxHTTPRC, "example.com"); len(rs) != 0 {
					t.Errorf("example.com is served over plain HTTP: %q", pxDescribeAll(rs))
				}
			case "passthrough":
				if fc == nil {
					t.Fatalf("no filter chain for example.com")
				}
				if fc.TransportSocket != nil {
					t.Errorf("passthrough chain terminates TLS")
				}
				tp := &tcpproxyv3.TcpProxy{}
				if len(fc.Filters) != 1 || fc.Filters[0].Name != "envoy.filters.network.tcp_proxy" || fc.Filters[0].GetTypedConfig().UnmarshalTo(tp) != nil {
					t.Fatalf("passthrough chain filters: %v", fc.Filters)
				}
				if tp.GetCluster() != "default/kuard/8443/da39a3ee5e" || tp.StatPrefix != "ingress_https" {
					t.Errorf("tcp_proxy %v", tp)
				}
			default:
				if fc == nil {
					t.Fatalf("no filter chain for example.com")
				}
				ctx := chainTLSContext(t, fc)
				sds := ctx.GetCommonTlsContext().GetTlsCertificateSdsSecretConfigs()
				if len(sds) != 1 || sds[0].Name != tt.sds {
					t.Errorf("SDS secrets %v, want %s", sds, tt.sds)
				}
				if findSecret(res, tt.sds) == nil {
					t.Errorf("secret %s not published", tt.sds)
				}
				pxCheckRoutes(t, res, pxHTTPRC, "example.com", "prefix / -> https")
				pxCheckRoutes(t, res, "https/example.com", "example.com", "prefix / -> "+pxKuard)
			}
		})
	}
}

func TestHTTPProxyTLSVersions(t *testing.T) {
	for _, tt := range []struct {
		min, max         string
		wantMin, wantMax tlsv3.TlsParameters_TlsProtocol
	}{
		{"", "", tlsv3.TlsParameters_TLSv1_2, tlsv3.TlsParameters_TLSv1_3},
		{"1.3", "", tlsv3.TlsParameters_TLSv1_3, tlsv3.TlsParameters_TLSv1_3},
		{"1.2", "1.2", tlsv3.TlsParameters_TLSv1_2, tlsv3.TlsParameters_TLSv1_2},
		// Anything else is the default (annotation.TLSVersion).
		{"1.1", "1.4", tlsv3.TlsParameters_TLSv1_2, tlsv3.TlsParameters_TLSv1_3},
	} {
		t.Run(tt.min+"-"+tt.max, func(t *testing.T) {
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), testpki.TLSSecret(t, "default", "tls"),
				pxRoot(pxTLS(contourv1.TLS{SecretName: "tls", MinimumProtocolVersion: tt.min, MaximumProtocolVersion: tt.max}), pxRoutes(pxRouteTo(pxSvc("kuard", 80)))))
			pxCheck(t, res, "default", "root", pxValid())
			p := chainTLSContext(t, sniChain(findListener(res, "ingress_https"), "example.com")).GetCommonTlsContext().GetTlsParams()
			if p.TlsMinimumProtocolVersion != tt.wantMin || p.TlsMaximumProtocolVersion != tt.wantMax {
				t.Errorf("TLS %v-%v, want %v-%v", p.TlsMinimumProtocolVersion, p.TlsMaximumProtocolVersion, tt.wantMin, tt.wantMax)
			}
		})
	}
}

// TestHTTPProxyFallbackWithAuthorizationPolicyOnly: Contour's
// AuthorizationConfigured() is only "authorization != nil"
// (apis/projectcontour/v1/helpers.go:22-24), so fallback with an
// authorization block and no extensionRef is "fallback & client
// authorization are incompatible" (internal/dag/httpproxy_processor.go:286-290).
func TestHTTPProxyFallbackWithAuthorizationPolicyOnly(t *testing.T) {
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), testpki.TLSSecret(t, "default", "tls"),
		pxRoot(pxTLS(contourv1.TLS{SecretName: "tls", EnableFallbackCertificate: true}), pxRoutes(pxRouteTo(pxSvc("kuard", 80))),
			pxVhost(func(vh *contourv1.VirtualHost) {
				vh.Authorization = &contourv1.AuthorizationServer{AuthPolicy: &contourv1.AuthorizationPolicy{Disabled: true}}
			})))
	const want = "TLSError/TLSIncompatibleFeatures: Spec.Virtualhost.TLS fallback & client authorization are incompatible"
	if got := pxDetails(pxMustStatus(t, res, "default", "root").Conditions[0].Errors); len(got) != 1 || got[0] != want {
		t.Errorf("errors %q, want TLSIncompatibleFeatures: Contour's AuthorizationConfigured() only checks authorization != nil (apis/projectcontour/v1/helpers.go:22-24)", got)
	}
	pxCheck(t, res, "default", "root", pxInvalid(want))
}

// ---- client validation --------------------------------------------------------

// pxCRLPEM is a PEM block of type X509 CRL: Contour checks the block type only.
var pxCRLPEM = []byte("-----BEGIN X509 CRL-----\nMAA=\n-----END X509 CRL-----\n")

func TestHTTPProxyClientValidation(t *testing.T) {
	c := testpki.Certs(t)
	objs := pxFlat(pxBackend("default", "kuard"), testpki.TLSSecret(t, "default", "tls"),
		testpki.Secret("default", "ca", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}),
		testpki.Secret("default", "crl", corev1.SecretTypeOpaque, map[string][]byte{"crl.pem": pxCRLPEM}),
		testpki.Secret("default", "notcrl", corev1.SecretTypeOpaque, map[string][]byte{"crl.pem": c.CertPEM}),
		testpki.Secret("default", "empty", corev1.SecretTypeOpaque, map[string][]byte{"other": c.CertPEM}),
		testpki.Secret("certs", "ca", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}),
		testpki.Secret("certs", "crl", corev1.SecretTypeOpaque, map[string][]byte{"crl.pem": pxCRLPEM}),
		testpki.Secret("shared", "ca", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}),
		mkDelegation("shared", "d", "ca", "default"))
	type chainWant struct {
		ca, crl      bool
		trust        tlsv3.CertificateValidationContext_TrustChainVerification
		require      bool
		leafCRL      bool
		notProgramed bool
	}
	tests := []struct {
		name   string
		cv     contourv1.DownstreamValidation
		status pxWant
		chain  chainWant
	}{{
		name: "CA", cv: contourv1.DownstreamValidation{CACertificate: "ca"},
		status: pxValid(), chain: chainWant{ca: true, require: true},
	}, {
		name: "delegated CA", cv: contourv1.DownstreamValidation{CACertificate: "shared/ca"},
		status: pxValid(), chain: chainWant{ca: true, require: true},
	}, {
		name: "optional client certificate", cv: contourv1.DownstreamValidation{CACertificate: "ca", OptionalClientCertificate: true},
		status: pxValid(), chain: chainWant{ca: true},
	}, {
		name: "skip validation without CA", cv: contourv1.DownstreamValidation{SkipClientCertValidation: true},
		status: pxValid(), chain: chainWant{trust: tlsv3.CertificateValidationContext_ACCEPT_UNTRUSTED, require: true},
	}, {
		name: "CA and CRL", cv: contourv1.DownstreamValidation{CACertificate: "ca", CertificateRevocationList: "crl", OnlyVerifyLeafCertCrl: true},
		status: pxValid(), chain: chainWant{ca: true, crl: true, require: true, leafCRL: true},
	}, {
		// Reported, but Contour still programs the chain, without a CA.
		name: "no CA and no skip", cv: contourv1.DownstreamValidation{},
		status: pxInvalid("TLSError/ClientValidationInvalid: Spec.VirtualHost.TLS client validation is invalid: CA Secret must be specified"),
		chain:  chainWant{require: true},
	}, {
		name: "missing CA secret", cv: contourv1.DownstreamValidation{CACertificate: "missing"},
		status: pxInvalid(`TLSError/ClientValidationInvalid: Spec.VirtualHost.TLS client validation is invalid: invalid CA Secret "default/missing": Secret not found`),
		chain:  chainWant{notProgramed: true},
	}, {
		name: "CA secret without ca.crt", cv: contourv1.DownstreamValidation{CACertificate: "empty"},
		status: pxInvalid(`TLSError/ClientValidationInvalid: Spec.VirtualHost.TLS client validation is invalid: invalid CA Secret "default/empty": empty "ca.crt" key`),
		chain:  chainWant{notProgramed: true},
	}, {
		name: "missing CRL secret", cv: contourv1.DownstreamValidation{CACertificate: "ca", CertificateRevocationList: "nocrl"},
		status: pxInvalid(`TLSError/ClientValidationInvalid: Spec.VirtualHost.TLS client validation is invalid: invalid CRL Secret "default/nocrl": Secret not found`),
		chain:  chainWant{notProgramed: true},
	}, {
		name: "CRL secret without a CRL", cv: contourv1.DownstreamValidation{CACertificate: "ca", CertificateRevocationList: "notcrl"},
		status: pxInvalid(`TLSError/ClientValidationInvalid: Spec.VirtualHost.TLS client validation is invalid: invalid CRL Secret "default/notcrl": failed to locate CRL`),
		chain:  chainWant{notProgramed: true},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv := tt.cv
			res := pxTranslate(t, Options{}, objs, pxRoot(pxTLS(contourv1.TLS{SecretName: "tls", ClientValidation: &cv}), pxRoutes(pxRouteTo(pxSvc("kuard", 80)))))
			pxCheck(t, res, "default", "root", tt.status)
			fc := sniChain(findListener(res, "ingress_https"), "example.com")
			if tt.chain.notProgramed {
				if fc != nil {
					t.Errorf("example.com is served over TLS")
				}
				return
			}
			if fc == nil {
				t.Fatal("no filter chain for example.com")
			}
			ctx := chainTLSContext(t, fc)
			vc := ctx.GetCommonTlsContext().GetValidationContext()
			if vc == nil {
				t.Fatalf("no validation context")
			}
			if got := vc.GetTrustedCa().GetInlineBytes() != nil; got != tt.chain.ca {
				t.Errorf("trusted CA set: %v, want %v", got, tt.chain.ca)
			}
			if got := vc.GetCrl().GetInlineBytes() != nil; got != tt.chain.crl {
				t.Errorf("CRL set: %v, want %v", got, tt.chain.crl)
			}
			if vc.OnlyVerifyLeafCertCrl != tt.chain.leafCRL || vc.TrustChainVerification != tt.chain.trust {
				t.Errorf("validation context %v", vc)
			}
			if ctx.GetRequireClientCertificate().GetValue() != tt.chain.require {
				t.Errorf("require_client_certificate %v, want %v", ctx.GetRequireClientCertificate(), tt.chain.require)
			}
		})
	}
}

// TestHTTPProxyClientValidationDelegation: Contour's delegation error is
// "certificate delegation not permitted" (internal/dag/cache.go:678,726),
// quoted in "Spec.VirtualHost.TLS CA Secret %q is invalid: %s"
// (internal/dag/httpproxy_processor.go:344-348,365-369).
func TestHTTPProxyClientValidationDelegation(t *testing.T) {
	c := testpki.Certs(t)
	for name, tt := range map[string]struct {
		cv   contourv1.DownstreamValidation
		want string
	}{
		"CA":  {contourv1.DownstreamValidation{CACertificate: "certs/ca"}, `TLSError/DelegationNotPermitted: Spec.VirtualHost.TLS CA Secret "certs/ca" is invalid: certificate delegation not permitted`},
		"CRL": {contourv1.DownstreamValidation{CACertificate: "ca", CertificateRevocationList: "certs/crl"}, `TLSError/DelegationNotPermitted: Spec.VirtualHost.TLS CRL Secret "certs/crl" is invalid: certificate delegation not permitted`},
	} {
		t.Run(name, func(t *testing.T) {
			cv := tt.cv
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), testpki.TLSSecret(t, "default", "tls"),
				testpki.Secret("default", "ca", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}),
				testpki.Secret("certs", "ca", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}),
				testpki.Secret("certs", "crl", corev1.SecretTypeOpaque, map[string][]byte{"crl.pem": pxCRLPEM}),
				pxRoot(pxTLS(contourv1.TLS{SecretName: "tls", ClientValidation: &cv}), pxRoutes(pxRouteTo(pxSvc("kuard", 80)))))
			got := pxDetails(pxMustStatus(t, res, "default", "root").Conditions[0].Errors)
			if len(got) != 1 || !strings.HasPrefix(got[0], "TLSError/DelegationNotPermitted: ") {
				t.Fatalf("errors %q, want one DelegationNotPermitted", got)
			}
			if got[0] != tt.want {
				t.Errorf("message %q, want %q (internal/dag/cache.go:678,726)", got[0], tt.want)
			}
			pxCheck(t, res, "default", "root", pxInvalid(tt.want))
		})
	}
}

func TestHTTPProxyForwardClientCertificate(t *testing.T) {
	c := testpki.Certs(t)
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), testpki.TLSSecret(t, "default", "tls"),
		testpki.Secret("default", "ca", corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": c.CertPEM}),
		pxRoot(pxTLS(contourv1.TLS{SecretName: "tls", ClientValidation: &contourv1.DownstreamValidation{
			CACertificate: "ca", ForwardClientCertificate: &contourv1.ClientCertificateDetails{Subject: true, URI: true},
		}}), pxRoutes(pxRouteTo(pxSvc("kuard", 80)))))
	pxCheck(t, res, "default", "root", pxValid())
	hcm := chainHCM(t, sniChain(findListener(res, "ingress_https"), "example.com"))
	d := hcm.GetSetCurrentClientCertDetails()
	if hcm.ForwardClientCertDetails.String() != "SANITIZE_SET" || d == nil || !d.GetSubject().GetValue() || !d.Uri || d.Cert || d.Chain || d.Dns {
		t.Errorf("forward_client_cert_details %v, set_current_client_cert_details %v", hcm.ForwardClientCertDetails, d)
	}
}

// ---- tcpproxy ----------------------------------------------------------------

func TestHTTPProxyTCPProxy(t *testing.T) {
	objs := pxFlat(pxBackend("default", "kuard"), pxBackend("teama", "app"), testpki.TLSSecret(t, "default", "tls"))
	passthrough := pxTLS(contourv1.TLS{Passthrough: true})
	tp := func(services ...contourv1.Service) pxOpt { return pxTCP(contourv1.TCPProxy{Services: services}) }
	tpInclude := func(name, ns string) pxOpt {
		return pxTCP(contourv1.TCPProxy{Include: &contourv1.TCPProxyInclude{Name: name, Namespace: ns}})
	}
	tests := []struct {
		name    string
		objs    []any
		status  map[string]pxWant
		cluster string // the tcp_proxy cluster of example.com, "" if not served
	}{{
		name:    "passthrough to a service",
		objs:    []any{pxRoot(passthrough, tp(pxSvc("kuard", 8443)))},
		status:  map[string]pxWant{"default/root": pxValid()},
		cluster: "default/kuard/8443/da39a3ee5e",
	}, {
		name:    "TLS terminated then proxied",
		objs:    []any{pxRoot(pxTLSSecret("tls"), tp(pxSvc("kuard", 80)))},
		status:  map[string]pxWant{"default/root": pxValid()},
		cluster: pxKuard,
	}, {
		name:   "without TLS",
		objs:   []any{pxRoot(tp(pxSvc("kuard", 80)))},
		status: map[string]pxWant{"default/root": pxInvalid("TCPProxyError/TLSMustBeConfigured: Spec.TCPProxy requires that either Spec.TLS.Passthrough or Spec.TLS.SecretName be set")},
	}, {
		name: "services and include",
		objs: []any{pxRoot(passthrough, pxTCP(contourv1.TCPProxy{Services: []contourv1.Service{pxSvc("kuard", 80)}, Include: &contourv1.TCPProxyInclude{Name: "child"}})),
			pxProxy("default", "child", tp(pxSvc("kuard", 80)))},
		status: map[string]pxWant{
			"default/root":  pxInvalid("TCPProxyError/NoServicesAndInclude: cannot specify services and include in the same httpproxy"),
			"default/child": pxOrphaned(),
		},
	}, {
		name:   "empty tcpproxy",
		objs:   []any{pxRoot(passthrough, pxTCP(contourv1.TCPProxy{}))},
		status: map[string]pxWant{"default/root": pxInvalid("TCPProxyError/NothingDefined: either services or inclusion must be specified")},
	}, {
		name:   "missing include",
		objs:   []any{pxRoot(passthrough, tpInclude("missing", "teama"))},
		status: map[string]pxWant{"default/root": pxInvalid("TCPProxyIncludeError/IncludeNotFound: include teama/missing not found")},
	}, {
		name: "include of a root",
		objs: []any{pxRoot(passthrough, tpInclude("other", "")), pxProxy("default", "other", pxFQDN("other.example.com"), passthrough, tp(pxSvc("kuard", 80)))},
		status: map[string]pxWant{
			"default/root":  pxInvalid("TCPProxyIncludeError/RootIncludesRoot: root httpproxy cannot include another root httpproxy (default/other)"),
			"default/other": pxValid(),
		},
	}, {
		name: "include chain across namespaces, legacy includes field",
		objs: []any{pxRoot(passthrough, tpInclude("a", "teama")),
			pxProxy("teama", "a", pxTCP(contourv1.TCPProxy{IncludesDeprecated: &contourv1.TCPProxyInclude{Name: "b"}})),
			pxProxy("teama", "b", tp(pxSvc("app", 8443)))},
		status:  map[string]pxWant{"default/root": pxValid(), "teama/a": pxValid(), "teama/b": pxValid()},
		cluster: "teama/app/8443/da39a3ee5e",
	}, {
		name: "include is preferred to the legacy includes",
		objs: []any{pxRoot(passthrough, pxTCP(contourv1.TCPProxy{Include: &contourv1.TCPProxyInclude{Name: "a", Namespace: "teama"}, IncludesDeprecated: &contourv1.TCPProxyInclude{Name: "missing"}})),
			pxProxy("teama", "a", tp(pxSvc("app", 8443)))},
		status:  map[string]pxWant{"default/root": pxValid(), "teama/a": pxValid()},
		cluster: "teama/app/8443/da39a3ee5e",
	}, {
		name: "include cycle",
		objs: []any{pxRoot(passthrough, tpInclude("a", "")),
			pxProxy("default", "a", tpInclude("b", "")), pxProxy("default", "b", tpInclude("a", ""))},
		status: map[string]pxWant{
			"default/root": pxValid(),
			"default/a":    pxValid(),
			"default/b":    pxInvalid("TCPProxyIncludeError/IncludeCreatesCycle: include creates a cycle: default/root -> default/a -> default/b -> default/a"),
		},
	}, {
		name: "errors of an included proxy are its own",
		objs: []any{pxRoot(passthrough, tpInclude("a", "")), pxProxy("default", "a", tp(pxSvc("missing", 80)))},
		status: map[string]pxWant{
			"default/root": pxValid(),
			"default/a":    pxInvalid(`TCPProxyError/ServiceUnresolvedReference: Spec.TCPProxy unresolved service reference: service "default/missing" not found`),
		},
	}, {
		name:   "unresolved service is fatal",
		objs:   []any{pxRoot(passthrough, tp(pxSvc("kuard", 8443), pxSvc("kuard", 9999)))},
		status: map[string]pxWant{"default/root": pxInvalid(`TCPProxyError/ServiceUnresolvedReference: Spec.TCPProxy unresolved service reference: port "9999" on service "default/kuard" not matched`)},
	}, {
		name:   "unsupported protocol",
		objs:   []any{pxRoot(passthrough, tp(pxEdit(pxSvc("kuard", 8443), func(s *contourv1.Service) { s.Protocol = refOf("h3") })))},
		status: map[string]pxWant{"default/root": pxInvalid("ServiceError/UnsupportedProtocol: unsupported protocol: h3")},
	}, {
		name: "cookie load balancing is ignored with a warning",
		objs: []any{pxRoot(passthrough, pxTCP(contourv1.TCPProxy{Services: []contourv1.Service{pxSvc("kuard", 8443)},
			LoadBalancerPolicy: &contourv1.LoadBalancerPolicy{Strategy: "Cookie"}}))},
		status:  map[string]pxWant{"default/root": pxValid(`TCPProxyError/IgnoredField: ignoring field "Spec.TCPProxy.LoadBalancerPolicy"; Cookie load balancer policy is not supported for TCPProxies`)},
		cluster: "default/kuard/8443/da39a3ee5e",
	}, {
		name: "request hash load balancing is ignored with a warning",
		objs: []any{pxRoot(passthrough, pxTCP(contourv1.TCPProxy{Services: []contourv1.Service{pxSvc("kuard", 8443)},
			LoadBalancerPolicy: &contourv1.LoadBalancerPolicy{Strategy: "RequestHash", RequestHashPolicies: []contourv1.RequestHashPolicy{{HashSourceIP: true}}}}))},
		status:  map[string]pxWant{"default/root": pxValid(`TCPProxyError/IgnoredField: ignoring field "Spec.TCPProxy.LoadBalancerPolicy"; RequestHash load balancer policy is not supported for TCPProxies`)},
		cluster: "default/kuard/8443/da39a3ee5e",
	}, {
		name: "random load balancing is kept",
		objs: []any{pxRoot(passthrough, pxTCP(contourv1.TCPProxy{Services: []contourv1.Service{pxSvc("kuard", 8443)},
			LoadBalancerPolicy: &contourv1.LoadBalancerPolicy{Strategy: "Random"}}))},
		status:  map[string]pxWant{"default/root": pxValid()},
		cluster: "default/kuard/8443/58d888c08a",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, objs, tt.objs)
			for key, w := range tt.status {
				ns, name, _ := strings.Cut(key, "/")
				pxCheck(t, res, ns, name, w)
			}
			if len(res.Status) != len(tt.status) {
				t.Errorf("%d statuses, want %d", len(res.Status), len(tt.status))
			}
			fc := sniChain(findListener(res, "ingress_https"), "example.com")
			if tt.cluster == "" {
				if fc != nil {
					t.Errorf("example.com is served over TLS")
				}
				return
			}
			if fc == nil {
				t.Fatal("no filter chain for example.com")
			}
			tcp := &tcpproxyv3.TcpProxy{}
			if len(fc.Filters) != 1 || fc.Filters[0].GetTypedConfig().UnmarshalTo(tcp) != nil {
				t.Fatalf("filters %v", fc.Filters)
			}
			if tcp.GetCluster() != tt.cluster {
				t.Errorf("tcp_proxy cluster %q, want %q", tcp.GetCluster(), tt.cluster)
			}
			if findCluster(res, tt.cluster) == nil {
				t.Errorf("cluster %s not published; have %v", tt.cluster, pxClusterNames(res))
			}
			if len(fc.GetFilterChainMatch().GetServerNames()) != 1 {
				t.Errorf("filter chain match %v", fc.GetFilterChainMatch())
			}
		})
	}
}

// TestHTTPProxyTCPProxyRequestHashWithoutPolicies: Contour's tcpproxy reads
// the strategy with loadBalancerPolicy() (internal/dag/
// httpproxy_processor.go:1242-1251), which neither validates request hash
// policies nor falls back to RoundRobin: RequestHash is simply ignored with
// a TCPProxyError warning.
func TestHTTPProxyTCPProxyRequestHashWithoutPolicies(t *testing.T) {
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"),
		pxRoot(pxTLS(contourv1.TLS{Passthrough: true}), pxTCP(contourv1.TCPProxy{Services: []contourv1.Service{pxSvc("kuard", 8443)},
			LoadBalancerPolicy: &contourv1.LoadBalancerPolicy{Strategy: "RequestHash"}})))
	want := `TCPProxyError/IgnoredField: ignoring field "Spec.TCPProxy.LoadBalancerPolicy"; RequestHash load balancer policy is not supported for TCPProxies`
	if got := pxDetails(pxMustStatus(t, res, "default", "root").Conditions[0].Warnings); len(got) != 1 || got[0] != want {
		t.Errorf("warnings %q, want only the TCPProxyError one (internal/dag/httpproxy_processor.go:1242-1251)", got)
	}
	pxCheck(t, res, "default", "root", pxValid(want))
}

// TestHTTPProxyTCPProxyIncludeWithoutTCPProxy: when the included proxy has
// no tcpproxy, Contour's processHTTPProxyTCPProxy returns true ("nothing to
// do", internal/dag/httpproxy_processor.go:1221-1225): no error anywhere,
// the child is not orphaned, and nothing is served over TLS.
func TestHTTPProxyTCPProxyIncludeWithoutTCPProxy(t *testing.T) {
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"),
		pxRoot(pxTLS(contourv1.TLS{Passthrough: true}), pxTCP(contourv1.TCPProxy{Include: &contourv1.TCPProxyInclude{Name: "child"}})),
		pxProxy("default", "child", pxRoutes(pxRouteTo(pxSvc("kuard", 80)))))
	if st := pxMustStatus(t, res, "default", "root"); st.CurrentStatus != "valid" {
		t.Errorf("root is %s (%q), want valid: a tcpproxy include of a proxy without tcpproxy is not an error (internal/dag/httpproxy_processor.go:1221-1225)", st.CurrentStatus, pxDetails(st.Conditions[0].Errors))
	}
	pxCheck(t, res, "default", "root", pxValid())
	pxCheck(t, res, "default", "child", pxValid())
	if fc := sniChain(findListener(res, "ingress_https"), "example.com"); fc != nil {
		t.Errorf("example.com is served over TLS")
	}
}

func TestHTTPProxyTCPProxyWithRoutes(t *testing.T) {
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), testpki.TLSSecret(t, "default", "tls"),
		pxRoot(pxTLSSecret("tls"), pxTCP(contourv1.TCPProxy{Services: []contourv1.Service{pxSvc("kuard", 8443)},
			HealthCheckPolicy: &contourv1.TCPHealthCheckPolicy{IntervalSeconds: 5}}),
			pxRoutes(pxRouteTo(pxSvc("kuard", 80)), pxEdit(pxRoute(pxConds(pxPrefix("/plain")), pxSvc("kuard", 80)), func(r *contourv1.Route) { r.PermitInsecure = true }))))
	pxCheck(t, res, "default", "root", pxValid())
	// The routes only serve plain HTTP; the TLS host has no route config.
	pxCheckRoutes(t, res, pxHTTPRC, "example.com", "prefix /plain -> "+pxKuard, "prefix / -> https")
	if rc := findRouteConfig(res, "https/example.com"); rc != nil {
		t.Errorf("route config https/example.com published for a tcpproxy")
	}
	fc := sniChain(findListener(res, "ingress_https"), "example.com")
	if fc == nil || fc.TransportSocket == nil {
		t.Fatalf("no TLS-terminating chain for example.com: %v", fc)
	}
	if alpn := chainTLSContext(t, fc).GetCommonTlsContext().GetAlpnProtocols(); len(alpn) != 0 {
		t.Errorf("tcpproxy chain has ALPN %v", alpn)
	}
	c := mustCluster(t, res, "default/kuard/8443/da39a3ee5e")
	if len(c.HealthChecks) != 1 || c.HealthChecks[0].GetTcpHealthCheck() == nil || c.HealthChecks[0].GetInterval().AsDuration().Seconds() != 5 {
		t.Errorf("health checks %v", c.HealthChecks)
	}
}

func TestHTTPProxyTCPProxyWeights(t *testing.T) {
	weighted := func(ws ...int64) []contourv1.Service {
		var out []contourv1.Service
		for i, w := range ws {
			out = append(out, pxEdit(pxSvc("kuard", []int{80, 8443}[i]), func(s *contourv1.Service) { s.Weight = w }))
		}
		return out
	}
	for name, tt := range map[string]struct {
		services []contourv1.Service
		want     string
	}{
		"all zero: weight 1 each": {weighted(0, 0), "[default/kuard/80/da39a3ee5e:1 default/kuard/8443/da39a3ee5e:1]"},
		"a zero is dropped":       {weighted(3, 0), "default/kuard/80/da39a3ee5e"},
		"weights as given":        {weighted(3, 7), "[default/kuard/80/da39a3ee5e:3 default/kuard/8443/da39a3ee5e:7]"},
	} {
		t.Run(name, func(t *testing.T) {
			res := pxTranslate(t, Options{}, pxBackend("default", "kuard"),
				pxRoot(pxTLS(contourv1.TLS{Passthrough: true}), pxTCP(contourv1.TCPProxy{Services: tt.services})))
			fc := sniChain(findListener(res, "ingress_https"), "example.com")
			tcp := &tcpproxyv3.TcpProxy{}
			if fc == nil || fc.Filters[0].GetTypedConfig().UnmarshalTo(tcp) != nil {
				t.Fatal("no tcp_proxy for example.com")
			}
			got := tcp.GetCluster()
			if wc := tcp.GetWeightedClusters(); wc != nil {
				var parts []string
				for _, c := range wc.Clusters {
					parts = append(parts, c.Name+":"+strconv.Itoa(int(c.Weight)))
				}
				got = "[" + strings.Join(parts, " ") + "]"
			}
			if got != tt.want {
				t.Errorf("tcp_proxy clusters %s, want %s", got, tt.want)
			}
		})
	}
}

// TestHTTPProxyIngressClass: a proxy of another ingress class is not in
// Contour's cache at all (internal/dag/cache.go Insert,
// internal/ingressclass): no status, and including it is IncludeNotFound.
func TestHTTPProxyIngressClass(t *testing.T) {
	classed := func(class string, opts ...pxOpt) pxOpt {
		return func(p *contourv1.HTTPProxy) {
			p.Spec.IngressClassName = class
			for _, o := range opts {
				o(p)
			}
		}
	}
	objs := []any{pxBackend("default", "kuard"),
		pxProxy("default", "mine", pxFQDN("mine.example.com"), classed("contour"), pxRoutes(pxRouteTo(pxSvc("kuard", 80))),
			pxIncludes(pxInclude("theirs-child", "", pxPrefix("/theirs")))),
		pxProxy("default", "theirs", pxFQDN("theirs.example.com"), classed("nginx"), pxRoutes(pxRouteTo(pxSvc("kuard", 80)))),
		pxProxy("default", "theirs-child", classed("nginx"), pxRoutes(pxRouteTo(pxSvc("kuard", 80)))),
	}
	res := pxTranslate(t, Options{}, objs...)
	pxCheck(t, res, "default", "mine", pxInvalid("IncludeError/IncludeNotFound: include default/theirs-child not found"))
	if len(res.Status) != 1 {
		t.Errorf("statuses %v, want only default/mine", res.Status)
	}
	pxCheckRoutes(t, res, pxHTTPRC, "mine.example.com", "prefix /theirs -> 502", "prefix / -> "+pxKuard)
	pxCheckRoutes(t, res, pxHTTPRC, "theirs.example.com")

	// With --ingress-class-name=nginx the roles swap.
	res = pxTranslate(t, Options{IngressClassNames: []string{"nginx"}}, objs...)
	pxCheck(t, res, "default", "theirs", pxValid())
	pxCheck(t, res, "default", "theirs-child", pxOrphaned())
	if pxFindStatus(res, "HTTPProxy", "default", "mine") != nil {
		t.Errorf("default/mine of class contour has a status")
	}
}

// TestHTTPProxyAndIngressShareHost: an Ingress and an HTTPProxy for one host
// are merged into one virtual host; HTTPProxies are processed after
// Ingresses, so the proxy's route wins a tie on identical conditions
// (reference §E.6, internal/dag/dag.go:777-808).
func TestHTTPProxyAndIngressShareHost(t *testing.T) {
	res := pxTranslate(t, Options{}, pxBackend("default", "kuard"), pxBackend("default", "other"),
		mkIngress("default", "ing", ingRule("example.com", ingPath(ptImplSpec, "/", "kuard", 80), ingPath(ptPrefix, "/ingress", "kuard", 80))),
		pxRoot(pxRoutes(pxRouteTo(pxSvc("other", 80)))))
	pxCheck(t, res, "default", "root", pxValid())
	pxCheckRoutes(t, res, pxHTTPRC, "example.com", "segment /ingress -> "+pxKuard, "prefix / -> "+pxPlain("default", "other"))
	for _, r := range pxRoutesOf(res, pxHTTPRC, "example.com") {
		kind := r.GetMetadata().GetFilterMetadata()["envoy.access_loggers.file"].GetFields()["io.projectcontour.kind"].GetStringValue()
		want := "HTTPProxy"
		if r.Match.GetPathSeparatedPrefix() != "" {
			want = "Ingress"
		}
		if kind != want {
			t.Errorf("route %s comes from %s, want %s", pxDescribe(r), kind, want)
		}
	}
}
