package translate

// One table test per Ingress rule of Contour's IngressProcessor (reference
// map A.1, A.2, A.14-A.16), asserting on the Envoy resources Translate
// produces. Facts come from Contour's ingress_processor.go and its
// featuretests (route_test.go, ingressclass_test.go, wildcardhost_test.go).

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/contourc/contourc/translate/internal/testpki"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	httpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Cluster names of default/kuard port 80: the hash is sha1(protocol)[:10].
const (
	kuardCluster    = "default/kuard/80/da39a3ee5e"
	kuardClusterH2  = "default/kuard/80/bf1c365741"
	kuardClusterH2C = "default/kuard/80/f4f94965ec"
	kuardClusterTLS = "default/kuard/80/4929fca9d4"
)

// withKuard prepends the kuard Service and its endpoints to objs.
func withKuard(objs ...metav1.Object) []metav1.Object {
	return append(kuardObjects(), objs...)
}

func TestIngressClassFilter(t *testing.T) {
	const (
		pcClass  = "projectcontour.io/ingress.class"
		k8sClass = "kubernetes.io/ingress.class"
	)
	tests := []struct {
		name    string
		classes []string // Options.IngressClassNames
		opts    []func(*ingressBuilder)
		served  bool
	}{
		{name: "no class, default config", served: true},
		{name: "spec contour", opts: specClass("contour"), served: true},
		{name: "spec other", opts: specClass("nginx"), served: false},
		{name: "kubernetes.io annotation contour", opts: annotClass(k8sClass, "contour"), served: true},
		{name: "kubernetes.io annotation other", opts: annotClass(k8sClass, "nginx"), served: false},
		{name: "projectcontour.io annotation contour", opts: annotClass(pcClass, "contour"), served: true},
		{name: "projectcontour.io annotation other", opts: annotClass(pcClass, "nginx"), served: false},
		{name: "configured list, spec matches second", classes: []string{"one", "two"}, opts: specClass("two"), served: true},
		{name: "configured list, annotation matches", classes: []string{"one", "two"}, opts: annotClass(k8sClass, "one"), served: true},
		{name: "configured list, contour not in it", classes: []string{"one", "two"}, opts: specClass("contour"), served: false},
		{name: "configured list, no class", classes: []string{"one", "two"}, served: false},
		{name: "configured list, exact match only", classes: []string{"one"}, opts: specClass("One"), served: false},
		{name: "annotation beats spec (served)", opts: classOpts(annotClass(k8sClass, "contour"), specClass("nginx")), served: true},
		{name: "annotation beats spec (ignored)", opts: classOpts(annotClass(k8sClass, "nginx"), specClass("contour")), served: false},
		{name: "projectcontour.io beats kubernetes.io (served)", opts: annotClass(pcClass, "contour", k8sClass, "nginx"), served: true},
		{name: "projectcontour.io beats kubernetes.io (ignored)", opts: annotClass(pcClass, "nginx", k8sClass, "contour"), served: false},
		// An empty annotation is no class: spec.ingressClassName decides.
		{name: "empty annotation falls back to spec (ignored)", opts: classOpts(annotClass(k8sClass, ""), specClass("nginx")), served: false},
		{name: "empty annotation falls back to spec (served)", classes: []string{"one"}, opts: classOpts(annotClass(pcClass, ""), specClass("one")), served: true},
		// Contour reads projectcontour.io first even when empty, so an empty
		// projectcontour.io annotation hides kubernetes.io.
		{name: "empty projectcontour.io hides kubernetes.io", opts: annotClass(pcClass, "", k8sClass, "nginx"), served: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &ingressBuilder{}
			for _, o := range tt.opts {
				o(b)
			}
			ing := mkIngress("default", "ing", append(b.opts, ingRule("", ingPath(ptPrefix, "/", "kuard", 80)))...)
			res := translateIngressT(t, Options{IngressClassNames: tt.classes}, withKuard(ing)...)
			rc := findRouteConfig(res, "ingress_http")
			if rc == nil {
				t.Fatalf("route config ingress_http missing (it is always emitted)")
			}
			served := findVirtualHost(rc, "*") != nil
			if served != tt.served {
				t.Fatalf("served = %v, want %v (virtual hosts %v)", served, tt.served, vhostNames(rc))
			}
			if got := findListener(res, "ingress_http") != nil; got != tt.served {
				t.Errorf("ingress_http listener present = %v, want %v", got, tt.served)
			}
			if !tt.served && len(res.Resources.Clusters) != 0 {
				t.Errorf("an ignored Ingress must publish no cluster, got %d", len(res.Resources.Clusters))
			}
		})
	}
}

// ingressBuilder collects Ingress options for table cases.
type ingressBuilder struct{ opts []func(*networkingv1.Ingress) }

func specClass(c string) []func(*ingressBuilder) {
	return []func(*ingressBuilder){func(b *ingressBuilder) { b.opts = append(b.opts, ingClassName(c)) }}
}

func annotClass(kv ...string) []func(*ingressBuilder) {
	return []func(*ingressBuilder){func(b *ingressBuilder) { b.opts = append(b.opts, ingAnnotations(kv...)) }}
}

func classOpts(a, b []func(*ingressBuilder)) []func(*ingressBuilder) { return append(a, b...) }

func TestIngressPathTypes(t *testing.T) {
	tests := []struct {
		pathType networkingv1.PathType
		path     string
		want     *routev3.RouteMatch
	}{
		{ptPrefix, "/", wantPrefix("/")},
		{ptPrefix, "/foo/", wantSegmentPrefix("/foo")},
		{ptPrefix, "/foo", wantSegmentPrefix("/foo")},
		{ptPrefix, "/foo//", wantSegmentPrefix("/foo")},
		{ptPrefix, "", wantPrefix("/")},
		{ptExact, "/foo/", wantExact("/foo/")},
		{ptExact, "/foo", wantExact("/foo")},
		{ptExact, "", wantExact("/")},
		// An Exact path that looks like a regex is still exact.
		{ptExact, "/exact_with_regex/.*", wantExact("/exact_with_regex/.*")},
		{ptImplSpec, "/foo", wantPrefix("/foo")},
		{ptImplSpec, "/foo/", wantPrefix("/foo/")},
		{ptImplSpec, "", wantPrefix("/")},
		{ptUnset, "/foo/", wantPrefix("/foo/")},
		{ptUnset, "", wantPrefix("/")},
		// A dot alone does not make a regex: only ^+*[]% do.
		{ptUnset, "/foo.bar", wantPrefix("/foo.bar")},
		{ptImplSpec, "/foo.*", wantRegex("^/foo.*")},
		{ptUnset, "/[^/]+/invoices(/.*|/?)", wantRegex("^/[^/]+/invoices(/.*|/?)")},
		{ptUnset, "/api/v1+", wantRegex("^/api/v1+")},
		{ptUnset, "/a%20b", wantRegex("^/a%20b")},
		{ptUnset, "^/anchored", wantRegex("^^/anchored")},
	}
	for _, tt := range tests {
		t.Run(string(tt.pathType)+" "+tt.path, func(t *testing.T) {
			ing := mkIngress("default", "paths", ingRule("", ingPath(tt.pathType, tt.path, "kuard", 80)))
			res := translateIngressT(t, Options{}, withKuard(ing)...)
			routes := mustRoutes(t, res, "ingress_http", "*")
			if len(routes) != 1 {
				t.Fatalf("got %d routes, want 1: %v", len(routes), routes)
			}
			if !proto.Equal(routes[0].Match, tt.want) {
				t.Errorf("match = %v, want %v", routes[0].Match, tt.want)
			}
			if got := forwardedCluster(routes[0]); got != kuardCluster {
				t.Errorf("cluster = %q, want %q", got, kuardCluster)
			}
			if len(res.Notices) != 0 {
				t.Errorf("unexpected notices: %v", res.Notices)
			}
		})
	}
}

func TestIngressInvalidRegexPathLeftOut(t *testing.T) {
	ing := mkIngress("default", "regex", ingRule("",
		ingPath(ptPrefix, "/valid", "kuard", 80),
		ingPath(ptImplSpec, "/foo[", "kuard", 80),
	))
	res := translateIngressT(t, Options{}, withKuard(ing)...)
	routes := mustRoutes(t, res, "ingress_http", "*")
	mustRouteWithMatch(t, routes, wantSegmentPrefix("/valid"))
	for _, r := range routes {
		if strings.Contains(r.Match.GetSafeRegex().GetRegex(), "foo[") || r.Match.GetPrefix() == "/foo[" {
			t.Errorf("invalid regex path was programmed: %v", r.Match)
		}
	}
	n := mustNotice(t, res, "Ingress", "default/regex", `"/foo["`, "regex")
	if n.Source != mkSource("Ingress", 3) {
		t.Errorf("notice source = %v, want the Ingress's %v", n.Source, mkSource("Ingress", 3))
	}
}

// A backend naming a resource rather than a Service (a rule's path or the
// default backend) is skipped with a notice naming the Ingress and the
// path, as Contour v1.33.8 logs it; the Ingress's other paths are served.
func TestIngressResourceBackendLeftOut(t *testing.T) {
	bucket := networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{
		APIGroup: refOf("k8s.example.com"), Kind: "StorageBucket", Name: "static-assets",
	}}
	static := ingPath(ptPrefix, "/static", "", 80)
	static.Backend = bucket
	ing := mkIngress("default", "web",
		ingRule("web.example.com", static, ingPath(ptPrefix, "/", "kuard", 80)),
		func(ing *networkingv1.Ingress) { ing.Spec.DefaultBackend = &bucket })
	res := translateIngressT(t, Options{}, withKuard(ing)...)
	routes := mustRoutes(t, res, "ingress_http", "web.example.com")
	if len(routes) != 1 || routes[0].Match.GetPrefix() != "/" || forwardedCluster(routes[0]) != "default/kuard/80/da39a3ee5e" {
		t.Errorf("web.example.com routes = %v, want only / to kuard", routes)
	}
	if rc := findRouteConfig(res, "ingress_http"); rc != nil && findVirtualHost(rc, "*") != nil {
		t.Errorf("the resource default backend made a * virtual host")
	}
	const msg = "left out: ingress backend does not reference a service, resource backends are not supported"
	for _, path := range []string{`path "/static" `, `path "/" `} {
		n := mustNotice(t, res, "Ingress", "default/web", path+msg)
		if n.Source != mkSource("Ingress", 3) {
			t.Errorf("notice source = %v, want the Ingress's %v", n.Source, mkSource("Ingress", 3))
		}
	}
	if got := len(noticesAbout(res, "Ingress", "default/web")); got != 2 {
		t.Errorf("%d notices about the Ingress, want 2: %v", got, res.Notices)
	}
}

func TestIngressHosts(t *testing.T) {
	t.Run("empty host is the * virtual host", func(t *testing.T) {
		ing := mkIngress("default", "h", ingRule("", ingPath(ptPrefix, "/", "kuard", 80)))
		res := translateIngressT(t, Options{}, withKuard(ing)...)
		vh := findVirtualHost(findRouteConfig(res, "ingress_http"), "*")
		if vh == nil {
			t.Fatal("no * virtual host")
		}
		if want := []string{"*"}; !equalStringsT(vh.Domains, want) {
			t.Errorf("domains = %v, want %v", vh.Domains, want)
		}
		if len(vh.Routes[0].Match.Headers) != 0 {
			t.Errorf("host-less route has header matches: %v", vh.Routes[0].Match.Headers)
		}
	})
	t.Run("named host", func(t *testing.T) {
		ing := mkIngress("default", "h", ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)))
		res := translateIngressT(t, Options{}, withKuard(ing)...)
		vh := findVirtualHost(findRouteConfig(res, "ingress_http"), "foo.com")
		if vh == nil {
			t.Fatal("no foo.com virtual host")
		}
		if want := []string{"foo.com"}; !equalStringsT(vh.Domains, want) {
			t.Errorf("domains = %v, want %v", vh.Domains, want)
		}
		if findVirtualHost(findRouteConfig(res, "ingress_http"), "*") != nil {
			t.Errorf("unexpected * virtual host")
		}
	})
	t.Run("wildcard host adds an :authority regex", func(t *testing.T) {
		ing := mkIngress("default", "h", ingRule("*.foo.com",
			ingPath(ptPrefix, "/", "kuard", 80),
			ingPath(ptExact, "/x", "kuard", 80),
		))
		res := translateIngressT(t, Options{}, withKuard(ing)...)
		vh := findVirtualHost(findRouteConfig(res, "ingress_http"), "*.foo.com")
		if vh == nil {
			t.Fatal("no *.foo.com virtual host")
		}
		if want := []string{"*.foo.com"}; !equalStringsT(vh.Domains, want) {
			t.Errorf("domains = %v, want %v", vh.Domains, want)
		}
		want := []*routev3.HeaderMatcher{{
			Name: ":authority",
			HeaderMatchSpecifier: &routev3.HeaderMatcher_StringMatch{StringMatch: &matcherv3.StringMatcher{
				MatchPattern: &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{
					Regex: `^[a-z0-9]([-a-z0-9]*[a-z0-9])?\.foo\.com(:[0-9]+)?`,
				}},
			}},
		}}
		if len(vh.Routes) != 2 {
			t.Fatalf("got %d routes, want 2", len(vh.Routes))
		}
		for _, r := range vh.Routes {
			if !proto.Equal(&routev3.RouteMatch{Headers: r.Match.Headers}, &routev3.RouteMatch{Headers: want}) {
				t.Errorf("route %v headers = %v, want %v", r.Match.PathSpecifier, r.Match.Headers, want)
			}
		}
	})
	t.Run("a non-wildcard host with a star inside gets no header match", func(t *testing.T) {
		// Only a leading "*." makes a wildcard.
		ing := mkIngress("default", "h", ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)))
		res := translateIngressT(t, Options{}, withKuard(ing)...)
		if hs := mustRoutes(t, res, "ingress_http", "foo.com")[0].Match.Headers; len(hs) != 0 {
			t.Errorf("headers = %v, want none", hs)
		}
	})
	t.Run("default backend is a host-less / route", func(t *testing.T) {
		ing := mkIngress("default", "h", ingDefaultBackend("kuard", "http"))
		res := translateIngressT(t, Options{}, withKuard(ing)...)
		routes := mustRoutes(t, res, "ingress_http", "*")
		if len(routes) != 1 || !proto.Equal(routes[0].Match, wantPrefix("/")) || forwardedCluster(routes[0]) != kuardCluster {
			t.Fatalf("routes = %v, want one prefix / route to %s", routes, kuardCluster)
		}
	})
	t.Run("a * / rule overrides the default backend", func(t *testing.T) {
		ing := mkIngress("default", "h",
			ingDefaultBackend("other", 8080),
			ingRule("", ingPath(ptPrefix, "/", "kuard", 80)),
		)
		objs := withKuard(ing, mkService("default", "other", mkPort("", 8080)))
		res := translateIngressT(t, Options{}, objs...)
		routes := mustRoutes(t, res, "ingress_http", "*")
		if len(routes) != 1 || forwardedCluster(routes[0]) != kuardCluster {
			t.Fatalf("routes = %v, want only the rule's route to %s", routes, kuardCluster)
		}
		if c := findCluster(res, "default/other/8080/da39a3ee5e"); c != nil {
			t.Errorf("the overridden default backend's cluster is still published")
		}
	})
	t.Run("default backend and a named host", func(t *testing.T) {
		ing := mkIngress("default", "h",
			ingDefaultBackend("kuard", 80),
			ingRule("foo.com", ingPath(ptPrefix, "/app", "kuard", 80)),
		)
		res := translateIngressT(t, Options{}, withKuard(ing)...)
		mustRouteWithMatch(t, mustRoutes(t, res, "ingress_http", "*"), wantPrefix("/"))
		foo := mustRoutes(t, res, "ingress_http", "foo.com")
		if len(foo) != 1 || !proto.Equal(foo[0].Match, wantSegmentPrefix("/app")) {
			t.Errorf("foo.com routes = %v, want only /app (the default backend is host-less)", foo)
		}
	})
	t.Run("long host: hashed virtual host name, full domain", func(t *testing.T) {
		host := strings.Repeat("a", 50) + ".long.example.com"
		ing := mkIngress("default", "h", ingTLS("tls", host), ingRule(host, ingPath(ptPrefix, "/", "kuard", 80)))
		res := translateIngressT(t, Options{}, withKuard(ing, testpki.TLSSecret(t, "default", "tls"))...)
		sum := sha256.Sum256([]byte(host))
		vhName := hex.EncodeToString(sum[:])[:60]
		for _, rc := range []string{"ingress_http", "https/" + host} {
			vh := findVirtualHost(findRouteConfig(res, rc), vhName)
			if vh == nil {
				t.Fatalf("%s: no virtual host %q; have %v", rc, vhName, vhostNames(findRouteConfig(res, rc)))
			}
			if !equalStringsT(vh.Domains, []string{host}) {
				t.Errorf("%s: domains = %v, want [%s]", rc, vh.Domains, host)
			}
		}
		if sniChain(findListener(res, "ingress_https"), host) == nil {
			t.Errorf("no filter chain for the full server name")
		}
	})
	t.Run("rule without http is ignored", func(t *testing.T) {
		ing := mkIngress("default", "h", func(i *networkingv1.Ingress) {
			i.Spec.Rules = append(i.Spec.Rules, networkingv1.IngressRule{Host: "foo.com"})
		})
		res := translateIngressT(t, Options{}, withKuard(ing)...)
		if rc := findRouteConfig(res, "ingress_http"); len(rc.GetVirtualHosts()) != 0 {
			t.Errorf("virtual hosts = %v, want none", vhostNames(rc))
		}
	})
}

func TestIngressRouteMetadata(t *testing.T) {
	ing := mkIngress("apps", "web", ingRule("", ingPath(ptPrefix, "/", "kuard", 80)))
	objs := []metav1.Object{ing, mkService("apps", "kuard", mkPort("http", 80))}
	res := translateIngressT(t, Options{}, objs...)
	r := mustRoutes(t, res, "ingress_http", "*")[0]
	want := &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{
		"envoy.access_loggers.file": {Fields: map[string]*structpb.Value{
			"io.projectcontour.kind":      structpb.NewStringValue("Ingress"),
			"io.projectcontour.namespace": structpb.NewStringValue("apps"),
			"io.projectcontour.name":      structpb.NewStringValue("web"),
		}},
	}}
	if !proto.Equal(r.Metadata, want) {
		t.Errorf("metadata = %v, want %v", r.Metadata, want)
	}
	if got := forwardedCluster(r); got != "apps/kuard/80/da39a3ee5e" {
		t.Errorf("cluster = %q: the backend Service is looked up in the Ingress's namespace", got)
	}
}

// tlsIngress is an Ingress for foo.com with TLS from SecretName.
func tlsIngress(name, secretName string, opts ...func(*networkingv1.Ingress)) *networkingv1.Ingress {
	return mkIngress("default", name, append([]func(*networkingv1.Ingress){
		ingTLS(secretName, "foo.com"),
		ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)),
	}, opts...)...)
}

// assertHTTPS checks that foo.com is served over TLS with the SDS secret
// sds and TLS versions min..max.
func assertHTTPS(t *testing.T, res *Result, host, sds string, minV, maxV tlsv3.TlsParameters_TlsProtocol) {
	t.Helper()
	rcName := "https/" + host
	routes := mustRoutes(t, res, rcName, host)
	if len(routes) == 0 {
		t.Fatalf("%s has no routes", rcName)
	}
	l := findListener(res, "ingress_https")
	if l == nil {
		t.Fatalf("no ingress_https listener")
	}
	fc := sniChain(l, host)
	if fc == nil {
		t.Fatalf("ingress_https has no filter chain for SNI %q", host)
	}
	if got := fc.FilterChainMatch.ServerNames; !equalStringsT(got, []string{host}) {
		t.Errorf("server_names = %v, want [%s]", got, host)
	}
	ctx := chainTLSContext(t, fc)
	sdsCfgs := ctx.GetCommonTlsContext().GetTlsCertificateSdsSecretConfigs()
	if len(sdsCfgs) != 1 || sdsCfgs[0].Name != sds {
		t.Errorf("SDS secret configs = %v, want one named %q", sdsCfgs, sds)
	}
	params := ctx.GetCommonTlsContext().GetTlsParams()
	if params.GetTlsMinimumProtocolVersion() != minV || params.GetTlsMaximumProtocolVersion() != maxV {
		t.Errorf("TLS versions = %v..%v, want %v..%v", params.GetTlsMinimumProtocolVersion(), params.GetTlsMaximumProtocolVersion(), minV, maxV)
	}
	if hcm := chainHCM(t, fc); hcm.GetRds().GetRouteConfigName() != rcName {
		t.Errorf("filter chain RDS name = %q, want %q", hcm.GetRds().GetRouteConfigName(), rcName)
	}
	s := findSecret(res, sds)
	if s == nil {
		t.Fatalf("SDS secret %q not published", sds)
	}
}

// assertNoHTTPS checks that nothing is served over TLS but HTTP still is.
func assertNoHTTPS(t *testing.T, res *Result) {
	t.Helper()
	if l := findListener(res, "ingress_https"); l != nil {
		t.Errorf("unexpected ingress_https listener")
	}
	for _, rc := range res.Resources.RouteConfigs {
		if strings.HasPrefix(rc.Name, "https/") {
			t.Errorf("unexpected route config %s", rc.Name)
		}
	}
	if len(res.Resources.Secrets) != 0 {
		t.Errorf("unexpected secrets: %d", len(res.Resources.Secrets))
	}
	if routes := mustRoutes(t, res, "ingress_http", "foo.com"); len(routes) != 1 || forwardedCluster(routes[0]) != kuardCluster {
		t.Errorf("HTTP routes = %v, want the plain route to %s", routes, kuardCluster)
	}
}

func TestIngressTLS(t *testing.T) {
	c := testpki.Certs(t)
	v12, v13 := tlsv3.TlsParameters_TLSv1_2, tlsv3.TlsParameters_TLSv1_3

	t.Run("secure virtual host, SNI chain and SDS secret", func(t *testing.T) {
		ing := mkIngress("default", "tls",
			ingTLS("tls", "foo.com", "bar.com", "nohttp.com"),
			ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)),
			ingRule("bar.com", ingPath(ptPrefix, "/", "kuard", 80)),
		)
		res := translateIngressT(t, Options{}, withKuard(ing, testpki.TLSSecret(t, "default", "tls"))...)
		sds := wantSDSName("default", "tls", c.CertPEM)
		assertHTTPS(t, res, "foo.com", sds, v12, v13)
		assertHTTPS(t, res, "bar.com", sds, v12, v13)
		// A TLS host without rules has no routes, so no secure virtual host.
		if rc := findRouteConfig(res, "https/nohttp.com"); rc != nil {
			t.Errorf("unexpected route config for a TLS host without rules")
		}
		l := findListener(res, "ingress_https")
		if len(l.FilterChains) != 2 {
			t.Fatalf("ingress_https has %d filter chains, want 2", len(l.FilterChains))
		}
		if first := l.FilterChains[0].FilterChainMatch.ServerNames[0]; first != "bar.com" {
			t.Errorf("filter chains not sorted by server name: first is %q", first)
		}
		// One SDS secret shared by both hosts, holding the PEM bytes.
		if len(res.Resources.Secrets) != 1 {
			t.Fatalf("got %d secrets, want 1", len(res.Resources.Secrets))
		}
		tc := res.Resources.Secrets[0].GetTlsCertificate()
		if !equalBytesT(tc.GetCertificateChain().GetInlineBytes(), c.CertPEM) || !equalBytesT(tc.GetPrivateKey().GetInlineBytes(), c.KeyPEM) {
			t.Errorf("SDS secret does not carry the Secret's tls.crt/tls.key")
		}
		// HTTP is still served (allow-http defaults to true).
		mustRoutes(t, res, "ingress_http", "foo.com")
		// The secure route forwards normally.
		if r := mustRoutes(t, res, "https/foo.com", "foo.com")[0]; forwardedCluster(r) != kuardCluster {
			t.Errorf("HTTPS route = %v, want a route to %s", r, kuardCluster)
		}
	})

	t.Run("rules of another Ingress for a TLS host are served over TLS", func(t *testing.T) {
		a := mkIngress("default", "a", ingTLS("tls", "foo.com"))
		b := mkIngress("default", "b", ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)))
		res := translateIngressT(t, Options{}, withKuard(a, b, testpki.TLSSecret(t, "default", "tls"))...)
		assertHTTPS(t, res, "foo.com", wantSDSName("default", "tls", c.CertPEM), v12, v13)
	})

	t.Run("wildcard TLS host", func(t *testing.T) {
		ing := mkIngress("default", "w",
			ingTLS("tls", "*.foo.com"),
			ingRule("*.foo.com", ingPath(ptPrefix, "/", "kuard", 80)),
		)
		res := translateIngressT(t, Options{}, withKuard(ing, testpki.TLSSecret(t, "default", "tls"))...)
		assertHTTPS(t, res, "*.foo.com", wantSDSName("default", "tls", c.CertPEM), v12, v13)
		if hs := mustRoutes(t, res, "https/*.foo.com", "*.foo.com")[0].Match.Headers; len(hs) != 1 || hs[0].Name != ":authority" {
			t.Errorf("secure wildcard route headers = %v, want the :authority match", hs)
		}
	})

	t.Run("host-less rules and the default backend are never served over TLS", func(t *testing.T) {
		ing := mkIngress("default", "star",
			ingTLS("tls", "*"),
			ingDefaultBackend("kuard", 80),
			ingRule("", ingPath(ptPrefix, "/app", "kuard", 80)),
		)
		res := translateIngressT(t, Options{}, withKuard(ing, testpki.TLSSecret(t, "default", "tls"))...)
		if rc := findRouteConfig(res, "https/*"); rc != nil {
			t.Errorf("host-less routes served over TLS: %v", rc)
		}
		if findListener(res, "ingress_https") != nil || len(res.Resources.Secrets) != 0 {
			t.Errorf("ingress_https listener or secrets published without a secure virtual host")
		}
		if routes := mustRoutes(t, res, "ingress_http", "*"); len(routes) != 2 {
			t.Errorf("HTTP * routes = %v, want / and /app", routes)
		}
	})

	t.Run("Opaque secret is accepted", func(t *testing.T) {
		s := testpki.TLSSecret(t, "default", "tls")
		s.Type = corev1.SecretTypeOpaque
		res := translateIngressT(t, Options{}, withKuard(tlsIngress("i", "tls"), s)...)
		assertHTTPS(t, res, "foo.com", wantSDSName("default", "tls", c.CertPEM), v12, v13)
	})

	badSecrets := []struct {
		name   string
		secret *corev1.Secret
		msg    string
	}{
		{"missing secret", nil, "not found"},
		{"wrong type", func() *corev1.Secret {
			s := testpki.TLSSecret(t, "default", "tls")
			s.Type = corev1.SecretTypeDockerConfigJson
			return s
		}(), "secret type"},
		{"missing key", testpki.Secret("default", "tls", corev1.SecretTypeTLS, map[string][]byte{corev1.TLSCertKey: c.CertPEM}), "private key"},
		{"garbage certificate", testpki.Secret("default", "tls", corev1.SecretTypeTLS, map[string][]byte{
			corev1.TLSCertKey: []byte("not a certificate"), corev1.TLSPrivateKeyKey: c.KeyPEM,
		}), "certificate"},
	}
	for _, bs := range badSecrets {
		t.Run("invalid secret: "+bs.name, func(t *testing.T) {
			objs := withKuard(tlsIngress("i", "tls"))
			if bs.secret != nil {
				objs = append(objs, bs.secret)
			}
			res := translateIngressT(t, Options{}, objs...)
			assertNoHTTPS(t, res)
			n := mustNotice(t, res, "Ingress", "default/i", "default/tls", bs.msg)
			if n.Source != mkSource("Ingress", 3) {
				t.Errorf("notice source = %v, want the Ingress's", n.Source)
			}
		})
	}

	t.Run("TLS host without a valid secret does not stop other TLS entries", func(t *testing.T) {
		ing := mkIngress("default", "i",
			ingTLS("missing", "bar.com"),
			ingTLS("tls", "foo.com"),
			ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)),
			ingRule("bar.com", ingPath(ptPrefix, "/", "kuard", 80)),
		)
		res := translateIngressT(t, Options{}, withKuard(ing, testpki.TLSSecret(t, "default", "tls"))...)
		assertHTTPS(t, res, "foo.com", wantSDSName("default", "tls", c.CertPEM), v12, v13)
		if findRouteConfig(res, "https/bar.com") != nil {
			t.Errorf("bar.com served over TLS without a secret")
		}
		mustRoutes(t, res, "ingress_http", "bar.com")
	})
}

func TestIngressTLSCrossNamespace(t *testing.T) {
	c := testpki.Certs(t)
	v12, v13 := tlsv3.TlsParameters_TLSv1_2, tlsv3.TlsParameters_TLSv1_3
	certsTLS := wantSDSName("certs", "tls", c.CertPEM)
	annot := ingAnnotations("projectcontour.io/tls-cert-namespace", "certs")

	tests := []struct {
		name       string
		secretName string
		ingOpts    []func(*networkingv1.Ingress)
		delegation metav1.Object
		served     bool
	}{
		{name: "annotation without delegation", secretName: "tls", ingOpts: ingOpts(annot), served: false},
		{name: "ns/name without delegation", secretName: "certs/tls", served: false},
		{name: "annotation with delegation", secretName: "tls", ingOpts: ingOpts(annot), delegation: mkDelegation("certs", "d", "tls", "default"), served: true},
		{name: "ns/name with delegation", secretName: "certs/tls", delegation: mkDelegation("certs", "d", "tls", "default"), served: true},
		{name: "delegation to *", secretName: "certs/tls", delegation: mkDelegation("certs", "d", "tls", "*"), served: true},
		{name: "delegation to another namespace", secretName: "certs/tls", delegation: mkDelegation("certs", "d", "tls", "other"), served: false},
		{name: "delegation of another secret", secretName: "certs/tls", delegation: mkDelegation("certs", "d", "other", "default"), served: false},
		{name: "delegation object outside the secret's namespace", secretName: "certs/tls", delegation: mkDelegation("default", "d", "tls", "default"), served: false},
		// "*" only means all namespaces when it is the only entry.
		{name: "* among other namespaces", secretName: "certs/tls", delegation: mkDelegation("certs", "d", "tls", "*", "other"), served: false},
		{name: "explicit namespace beats the annotation", secretName: "certs/tls", ingOpts: ingOpts(ingAnnotations("projectcontour.io/tls-cert-namespace", "elsewhere")), delegation: mkDelegation("certs", "d", "tls", "default"), served: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := withKuard(tlsIngress("i", tt.secretName, tt.ingOpts...), testpki.TLSSecret(t, "certs", "tls"))
			if tt.delegation != nil {
				objs = append(objs, tt.delegation)
			}
			res := translateIngressT(t, Options{}, objs...)
			if tt.served {
				assertHTTPS(t, res, "foo.com", certsTLS, v12, v13)
				if len(noticesAbout(res, "Ingress", "default/i")) != 0 {
					t.Errorf("unexpected notices: %v", res.Notices)
				}
				return
			}
			assertNoHTTPS(t, res)
			mustNotice(t, res, "Ingress", "default/i", "certs/tls", "delegation")
		})
	}

	t.Run("same-namespace secret needs no delegation", func(t *testing.T) {
		res := translateIngressT(t, Options{}, withKuard(tlsIngress("i", "default/tls"), testpki.TLSSecret(t, "default", "tls"))...)
		assertHTTPS(t, res, "foo.com", wantSDSName("default", "tls", c.CertPEM), v12, v13)
	})

	t.Run("secretName with an empty namespace part", func(t *testing.T) {
		// Contour's NamespacedNameFrom splits "/tls" into namespace "" and
		// name "tls", then fills the namespace from the annotation or the
		// Ingress: the Secret default/tls is used.
		res := translateIngressT(t, Options{}, withKuard(tlsIngress("i", "/tls"), testpki.TLSSecret(t, "default", "tls"))...)
		if findRouteConfig(res, "https/foo.com") == nil {
			t.Fatal(`index.SecretReference("/tls", "", "default") returns {default, "/tls"} instead of {default, tls} as Contour's NamespacedNameFrom does`)
		}
		assertHTTPS(t, res, "foo.com", wantSDSName("default", "tls", c.CertPEM), v12, v13)
	})
}

func ingOpts(o ...func(*networkingv1.Ingress)) []func(*networkingv1.Ingress) { return o }

func TestIngressTLSVersions(t *testing.T) {
	c := testpki.Certs(t)
	sds := wantSDSName("default", "tls", c.CertPEM)
	v12, v13 := tlsv3.TlsParameters_TLSv1_2, tlsv3.TlsParameters_TLSv1_3
	const (
		minKey = "projectcontour.io/tls-minimum-protocol-version"
		maxKey = "projectcontour.io/tls-maximum-protocol-version"
	)
	tests := []struct {
		name     string
		min, max string // "" leaves the annotation out
		wantMin  tlsv3.TlsParameters_TlsProtocol
		wantMax  tlsv3.TlsParameters_TlsProtocol
	}{
		{"defaults", "", "", v12, v13},
		{"1.3 only", "1.3", "1.3", v13, v13},
		{"1.2 only", "1.2", "1.2", v12, v12},
		{"min 1.3", "1.3", "", v13, v13},
		{"max 1.2", "", "1.2", v12, v12},
		{"bad min falls back to 1.2", "1.1", "", v12, v13},
		{"bad max falls back to 1.3", "", "1.4", v12, v13},
		{"garbage both", "TLSv1.3", "abc", v12, v13},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var kv []string
			if tt.min != "" {
				kv = append(kv, minKey, tt.min)
			}
			if tt.max != "" {
				kv = append(kv, maxKey, tt.max)
			}
			res := translateIngressT(t, Options{}, withKuard(tlsIngress("i", "tls", ingAnnotations(kv...)), testpki.TLSSecret(t, "default", "tls"))...)
			assertHTTPS(t, res, "foo.com", sds, tt.wantMin, tt.wantMax)
		})
	}

	t.Run("max below min ignores this Ingress's TLS only", func(t *testing.T) {
		bad := tlsIngress("bad", "tls", ingAnnotations(minKey, "1.3", maxKey, "1.2"))
		good := mkIngress("default", "good",
			ingTLS("tls", "bar.com"),
			ingRule("bar.com", ingPath(ptPrefix, "/", "kuard", 80)),
		)
		res := translateIngressT(t, Options{}, withKuard(bad, good, testpki.TLSSecret(t, "default", "tls"))...)
		if findRouteConfig(res, "https/foo.com") != nil {
			t.Errorf("foo.com served over TLS despite max < min")
		}
		mustRoutes(t, res, "ingress_http", "foo.com")
		mustNotice(t, res, "Ingress", "default/bad", "1.2", "1.3")
		assertHTTPS(t, res, "bar.com", sds, v12, v13)
	})

	t.Run("max below min on an Ingress without TLS is not reported", func(t *testing.T) {
		// Contour checks the versions only while creating secure virtual
		// hosts, so an Ingress without spec.tls never triggers it.
		ing := mkIngress("default", "plain",
			ingAnnotations(minKey, "1.3", maxKey, "1.2"),
			ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)),
		)
		res := translateIngressT(t, Options{}, withKuard(ing)...)
		mustRoutes(t, res, "ingress_http", "foo.com")
		if ns := noticesAbout(res, "Ingress", "default/plain"); len(ns) != 0 {
			t.Error("secureVirtualHosts reports \"TLS ignored\" for an Ingress that has no spec.tls: " + ns[0].Msg)
		}
	})
}

func TestIngressForceSSLRedirect(t *testing.T) {
	tests := []struct {
		name string
		kv   []string
	}{
		{"force-ssl-redirect", []string{"ingress.kubernetes.io/force-ssl-redirect", "true"}},
		// force-ssl-redirect puts routes on HTTP even when HTTP is not allowed.
		{"force-ssl-redirect with allow-http false", []string{"ingress.kubernetes.io/force-ssl-redirect", "true", "kubernetes.io/ingress.allow-http", "false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := translateIngressT(t, Options{}, withKuard(tlsIngress("i", "tls", ingAnnotations(tt.kv...)), testpki.TLSSecret(t, "default", "tls"))...)
			httpRoutes := mustRoutes(t, res, "ingress_http", "foo.com")
			if len(httpRoutes) != 1 {
				t.Fatalf("got %d HTTP routes, want 1", len(httpRoutes))
			}
			r := httpRoutes[0]
			wantRedirect := &routev3.RedirectAction{SchemeRewriteSpecifier: &routev3.RedirectAction_HttpsRedirect{HttpsRedirect: true}}
			if !proto.Equal(r.GetRedirect(), wantRedirect) {
				t.Errorf("HTTP route action = %v, want https_redirect", r.Action)
			}
			authz := r.TypedPerFilterConfig["envoy.filters.http.ext_authz"]
			if authz == nil {
				t.Fatalf("HTTP redirect route has no ext_authz per-filter config: %v", r.TypedPerFilterConfig)
			}
			var per extauthzv3.ExtAuthzPerRoute
			if err := authz.UnmarshalTo(&per); err != nil || !per.GetDisabled() {
				t.Errorf("ext_authz per-route = %v (%v), want disabled", &per, err)
			}
			if len(r.TypedPerFilterConfig) != 1 {
				t.Errorf("typed_per_filter_config has %d entries, want 1", len(r.TypedPerFilterConfig))
			}
			if findListener(res, "ingress_http") == nil {
				t.Errorf("ingress_http listener missing")
			}
			secure := mustRoutes(t, res, "https/foo.com", "foo.com")
			if len(secure) != 1 || forwardedCluster(secure[0]) != kuardCluster || secure[0].TypedPerFilterConfig != nil {
				t.Errorf("HTTPS routes = %v, want a plain route to %s", secure, kuardCluster)
			}
		})
	}

	t.Run("force-ssl-redirect without TLS still redirects", func(t *testing.T) {
		ing := mkIngress("default", "i",
			ingAnnotations("ingress.kubernetes.io/force-ssl-redirect", "true"),
			ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)))
		res := translateIngressT(t, Options{}, withKuard(ing)...)
		if r := mustRoutes(t, res, "ingress_http", "foo.com")[0]; r.GetRedirect() == nil {
			t.Errorf("route = %v, want a redirect", r)
		}
	})

	t.Run("only the value true counts", func(t *testing.T) {
		ing := mkIngress("default", "i",
			ingAnnotations("ingress.kubernetes.io/force-ssl-redirect", "True"),
			ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)))
		res := translateIngressT(t, Options{}, withKuard(ing)...)
		if r := mustRoutes(t, res, "ingress_http", "foo.com")[0]; r.GetRedirect() != nil {
			t.Errorf("route = %v, want a plain route", r)
		}
	})
}

func TestIngressAllowHTTPFalse(t *testing.T) {
	allowFalse := ingAnnotations("kubernetes.io/ingress.allow-http", "false")

	t.Run("TLS only", func(t *testing.T) {
		res := translateIngressT(t, Options{}, withKuard(tlsIngress("i", "tls", allowFalse), testpki.TLSSecret(t, "default", "tls"))...)
		rc := findRouteConfig(res, "ingress_http")
		if rc == nil {
			t.Fatalf("ingress_http route config must still be emitted")
		}
		if len(rc.VirtualHosts) != 0 {
			t.Errorf("ingress_http virtual hosts = %v, want none", vhostNames(rc))
		}
		if findListener(res, "ingress_http") != nil {
			t.Errorf("ingress_http listener emitted with nothing to serve")
		}
		mustRoutes(t, res, "https/foo.com", "foo.com")
		if findListener(res, "ingress_https") == nil {
			t.Errorf("ingress_https listener missing")
		}
	})

	t.Run("other Ingresses keep the HTTP listener", func(t *testing.T) {
		other := mkIngress("default", "other", ingRule("bar.com", ingPath(ptPrefix, "/", "kuard", 80)))
		res := translateIngressT(t, Options{}, withKuard(tlsIngress("i", "tls", allowFalse), other, testpki.TLSSecret(t, "default", "tls"))...)
		rc := findRouteConfig(res, "ingress_http")
		if got := vhostNames(rc); !equalStringsT(got, []string{"bar.com"}) {
			t.Errorf("ingress_http virtual hosts = %v, want [bar.com]", got)
		}
		if findListener(res, "ingress_http") == nil {
			t.Errorf("ingress_http listener missing")
		}
	})

	t.Run("no TLS: nothing is served", func(t *testing.T) {
		ing := mkIngress("default", "i", allowFalse, ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)))
		res := translateIngressT(t, Options{}, withKuard(ing)...)
		if rc := findRouteConfig(res, "ingress_http"); rc == nil || len(rc.VirtualHosts) != 0 {
			t.Errorf("ingress_http = %v, want an empty route config", rc)
		}
		if n := len(res.Resources.RouteConfigs); n != 1 {
			t.Errorf("got %d route configs, want only ingress_http", n)
		}
		if len(res.Resources.Clusters) != 0 || len(res.Resources.Endpoints) != 0 {
			t.Errorf("clusters/CLAs published for an unserved Ingress: %d/%d", len(res.Resources.Clusters), len(res.Resources.Endpoints))
		}
		if l := findListener(res, "ingress_http"); l != nil {
			t.Errorf("unexpected ingress_http listener")
		}
	})

	t.Run("only the value false counts", func(t *testing.T) {
		ing := mkIngress("default", "i",
			ingAnnotations("kubernetes.io/ingress.allow-http", "no"),
			ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)))
		res := translateIngressT(t, Options{}, withKuard(ing)...)
		mustRoutes(t, res, "ingress_http", "foo.com")
	})
}

func TestIngressServices(t *testing.T) {
	t.Run("named and numbered ports", func(t *testing.T) {
		svc := mkService("default", "app", mkPort("http", 8080), mkPort("admin", 9000))
		ing := mkIngress("default", "i", ingRule("foo.com",
			ingPath(ptPrefix, "/byname", "app", "http"),
			ingPath(ptPrefix, "/bynumber", "app", 9000),
		))
		res := translateIngressT(t, Options{}, ing, svc)
		routes := mustRoutes(t, res, "ingress_http", "foo.com")
		if got := forwardedCluster(mustRouteWithMatch(t, routes, wantSegmentPrefix("/byname"))); got != "default/app/8080/da39a3ee5e" {
			t.Errorf("by name: cluster %q", got)
		}
		if got := forwardedCluster(mustRouteWithMatch(t, routes, wantSegmentPrefix("/bynumber"))); got != "default/app/9000/da39a3ee5e" {
			t.Errorf("by number: cluster %q", got)
		}
		cl := mustCluster(t, res, "default/app/8080/da39a3ee5e")
		if cl.AltStatName != "default_app_8080" {
			t.Errorf("alt_stat_name = %q", cl.AltStatName)
		}
		if cl.GetType() != clusterv3.Cluster_EDS || cl.GetEdsClusterConfig().GetServiceName() != "default/app/http" {
			t.Errorf("EDS config = %v %v, want EDS default/app/http", cl.GetType(), cl.GetEdsClusterConfig())
		}
		if got := mustCluster(t, res, "default/app/9000/da39a3ee5e").GetEdsClusterConfig().GetServiceName(); got != "default/app/admin" {
			t.Errorf("EDS service name = %q, want default/app/admin", got)
		}
	})

	t.Run("unnamed port", func(t *testing.T) {
		svc := mkService("default", "app", mkPort("", 80))
		ing := mkIngress("default", "i", ingRule("", ingPath(ptPrefix, "/", "app", 80)))
		res := translateIngressT(t, Options{}, ing, svc)
		cl := mustCluster(t, res, "default/app/80/da39a3ee5e")
		if got := cl.GetEdsClusterConfig().GetServiceName(); got != "default/app" {
			t.Errorf("EDS service name = %q, want default/app", got)
		}
		if findCLA(res, "default/app") == nil {
			t.Errorf("no CLA named default/app")
		}
	})

	unusable := []struct {
		name string
		svc  *corev1.Service
		port any
		msg  string
	}{
		{"missing service", nil, 80, "not found"},
		{"missing port number", mkService("default", "app", mkPort("http", 8080)), 80, "not matched"},
		{"missing port name", mkService("default", "app", mkPort("http", 8080)), "grpc", "not matched"},
		{"UDP port", func() *corev1.Service {
			s := mkService("default", "app", mkPort("dns", 53))
			s.Spec.Ports[0].Protocol = corev1.ProtocolUDP
			return s
		}(), 53, "UDP"},
		{"SCTP port by name", func() *corev1.Service {
			s := mkService("default", "app", mkPort("sctp", 5000))
			s.Spec.Ports[0].Protocol = corev1.ProtocolSCTP
			return s
		}(), "sctp", "SCTP"},
		{"ExternalName", func() *corev1.Service {
			s := mkService("default", "app", mkPort("http", 80))
			s.Spec.Type = corev1.ServiceTypeExternalName
			s.Spec.ExternalName = "example.com"
			return s
		}(), 80, "ExternalName"},
	}
	for _, tt := range unusable {
		t.Run(tt.name, func(t *testing.T) {
			ing := mkIngress("default", "i", ingRule("foo.com",
				ingPath(ptPrefix, "/bad", "app", tt.port),
				ingPath(ptPrefix, "/good", "kuard", 80),
			))
			objs := withKuard(ing)
			if tt.svc != nil {
				objs = append(objs, tt.svc)
			}
			res := translateIngressT(t, Options{}, objs...)
			routes := mustRoutes(t, res, "ingress_http", "foo.com")
			if len(routes) != 1 || !proto.Equal(routes[0].Match, wantSegmentPrefix("/good")) {
				t.Errorf("routes = %v, want only /good", routes)
			}
			mustNotice(t, res, "Ingress", "default/i", `"/bad"`, tt.msg)
			for _, cl := range res.Resources.Clusters {
				if strings.HasPrefix(cl.Name, "default/app/") {
					t.Errorf("cluster %s published for an unusable backend", cl.Name)
				}
			}
		})
	}

	t.Run("service in another namespace is not used", func(t *testing.T) {
		ing := mkIngress("default", "i", ingRule("", ingPath(ptPrefix, "/", "app", 80)))
		res := translateIngressT(t, Options{}, ing, mkService("other", "app", mkPort("", 80)))
		if rc := findRouteConfig(res, "ingress_http"); len(rc.VirtualHosts) != 0 {
			t.Errorf("virtual hosts = %v, want none", vhostNames(rc))
		}
		mustNotice(t, res, "Ingress", "default/i", "not found")
	})
}

func TestIngressUpstreamProtocol(t *testing.T) {
	h2Options := mustAnyForTest(t, &httpv3.HttpProtocolOptions{
		UpstreamProtocolOptions: &httpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: &httpv3.HttpProtocolOptions_ExplicitHttpConfig{
			ProtocolConfig: &httpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{},
		}},
	})
	const optionsKey = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions"

	tests := []struct {
		name        string
		annotations []string
		appProtocol string // "" leaves it unset
		cluster     string
		tls         bool
		alpn        []string
		http2       bool
	}{
		{name: "none", cluster: kuardCluster},
		{name: "h2 by name", annotations: []string{"projectcontour.io/upstream-protocol.h2", "http"}, cluster: kuardClusterH2, tls: true, alpn: []string{"h2"}, http2: true},
		{name: "h2 by number", annotations: []string{"projectcontour.io/upstream-protocol.h2", "80"}, cluster: kuardClusterH2, tls: true, alpn: []string{"h2"}, http2: true},
		{name: "h2c by name", annotations: []string{"projectcontour.io/upstream-protocol.h2c", "http"}, cluster: kuardClusterH2C, http2: true},
		{name: "h2c by number in a list", annotations: []string{"projectcontour.io/upstream-protocol.h2c", "443, 80"}, cluster: kuardClusterH2C, http2: true},
		{name: "tls by name", annotations: []string{"projectcontour.io/upstream-protocol.tls", "http"}, cluster: kuardClusterTLS, tls: true},
		{name: "tls by number", annotations: []string{"projectcontour.io/upstream-protocol.tls", "80"}, cluster: kuardClusterTLS, tls: true},
		{name: "other port only", annotations: []string{"projectcontour.io/upstream-protocol.tls", "443,https"}, cluster: kuardCluster},
		{name: "name beats number", annotations: []string{"projectcontour.io/upstream-protocol.h2c", "80", "projectcontour.io/upstream-protocol.tls", "http"}, cluster: kuardClusterTLS, tls: true},
		{name: "appProtocol h2c beats annotation", annotations: []string{"projectcontour.io/upstream-protocol.tls", "http"}, appProtocol: "kubernetes.io/h2c", cluster: kuardClusterH2C, http2: true},
		{name: "appProtocol https", appProtocol: "https", cluster: kuardClusterTLS, tls: true},
		{name: "appProtocol http disables annotation", annotations: []string{"projectcontour.io/upstream-protocol.h2", "http"}, appProtocol: "http", cluster: kuardCluster},
		{name: "unknown appProtocol disables annotation", annotations: []string{"projectcontour.io/upstream-protocol.h2", "80"}, appProtocol: "kubernetes.io/ws", cluster: kuardCluster},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := mkAnnotate(mkService("default", "kuard", mkPort("http", 80)), tt.annotations...)
			if tt.appProtocol != "" {
				svc.Spec.Ports[0].AppProtocol = refOf(tt.appProtocol)
			}
			ing := mkIngress("default", "i", ingRule("", ingPath(ptPrefix, "/", "kuard", 80)))
			res := translateIngressT(t, Options{}, ing, svc)
			if got := forwardedCluster(mustRoutes(t, res, "ingress_http", "*")[0]); got != tt.cluster {
				t.Errorf("route cluster = %q, want %q", got, tt.cluster)
			}
			cl := mustCluster(t, res, tt.cluster)
			if len(res.Resources.Clusters) != 1 {
				t.Errorf("got %d clusters, want 1", len(res.Resources.Clusters))
			}
			if cl.GetEdsClusterConfig().GetServiceName() != "default/kuard/http" || cl.AltStatName != "default_kuard_80" {
				t.Errorf("EDS name %q / alt_stat_name %q", cl.GetEdsClusterConfig().GetServiceName(), cl.AltStatName)
			}
			if !tt.tls {
				if cl.TransportSocket != nil {
					t.Errorf("unexpected transport socket %v", cl.TransportSocket)
				}
			} else {
				if cl.GetTransportSocket().GetName() != "envoy.transport_sockets.tls" {
					t.Fatalf("transport socket = %v, want envoy.transport_sockets.tls", cl.TransportSocket)
				}
				var up tlsv3.UpstreamTlsContext
				if err := cl.TransportSocket.GetTypedConfig().UnmarshalTo(&up); err != nil {
					t.Fatalf("transport socket: %v", err)
				}
				if got := up.GetCommonTlsContext().GetAlpnProtocols(); !equalStringsT(got, tt.alpn) {
					t.Errorf("ALPN = %v, want %v", got, tt.alpn)
				}
				if up.Sni != "" {
					t.Errorf("SNI = %q, want none", up.Sni)
				}
			}
			opts := cl.TypedExtensionProtocolOptions[optionsKey]
			switch {
			case tt.http2 && !proto.Equal(opts, h2Options):
				t.Errorf("protocol options = %v, want explicit HTTP/2", opts)
			case !tt.http2 && opts != nil:
				t.Errorf("unexpected protocol options %v", opts)
			}
		})
	}
}

func TestIngressCircuitBreakers(t *testing.T) {
	u := wrapperspb.UInt32
	tests := []struct {
		name        string
		annotations []string
		want        *clusterv3.CircuitBreakers
	}{
		{name: "none"},
		{
			name: "all",
			annotations: []string{
				"projectcontour.io/max-connections", "9000",
				"projectcontour.io/max-pending-requests", "4096",
				"projectcontour.io/max-requests", "404",
				"projectcontour.io/max-retries", "7",
				"projectcontour.io/per-host-max-connections", "45",
			},
			want: &clusterv3.CircuitBreakers{
				Thresholds:        []*clusterv3.CircuitBreakers_Thresholds{{MaxConnections: u(9000), MaxPendingRequests: u(4096), MaxRequests: u(404), MaxRetries: u(7), TrackRemaining: true}},
				PerHostThresholds: []*clusterv3.CircuitBreakers_Thresholds{{MaxConnections: u(45), TrackRemaining: true}},
			},
		},
		{
			name:        "one",
			annotations: []string{"projectcontour.io/max-pending-requests", "12"},
			want: &clusterv3.CircuitBreakers{
				Thresholds:        []*clusterv3.CircuitBreakers_Thresholds{{MaxPendingRequests: u(12), TrackRemaining: true}},
				PerHostThresholds: []*clusterv3.CircuitBreakers_Thresholds{{TrackRemaining: true}},
			},
		},
		{
			name:        "per host only",
			annotations: []string{"projectcontour.io/per-host-max-connections", "3"},
			want: &clusterv3.CircuitBreakers{
				Thresholds:        []*clusterv3.CircuitBreakers_Thresholds{{TrackRemaining: true}},
				PerHostThresholds: []*clusterv3.CircuitBreakers_Thresholds{{MaxConnections: u(3), TrackRemaining: true}},
			},
		},
		{name: "unparsable and zero are unset", annotations: []string{"projectcontour.io/max-connections", "lots", "projectcontour.io/max-requests", "-1", "projectcontour.io/max-retries", "0"}},
		{name: "wrong prefix is ignored", annotations: []string{"contour.heptio.com/max-connections", "10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := mkAnnotate(mkService("default", "kuard", mkPort("http", 80)), tt.annotations...)
			ing := mkIngress("default", "i", ingRule("", ingPath(ptPrefix, "/", "kuard", 80)))
			res := translateIngressT(t, Options{}, ing, svc)
			// Circuit breakers are not part of the cluster name.
			cl := mustCluster(t, res, kuardCluster)
			if !proto.Equal(cl.CircuitBreakers, tt.want) {
				t.Errorf("circuit_breakers = %v, want %v", cl.CircuitBreakers, tt.want)
			}
		})
	}
}

func TestIngressEndpoints(t *testing.T) {
	yes, no := refOf(true), refOf(false)
	udp := func(name string, port int32) discoveryv1.EndpointPort {
		p := mkSlicePort(name, port)
		p.Protocol = refOf(corev1.ProtocolUDP)
		return p
	}
	type hp struct {
		addr string
		port uint32
	}
	tests := []struct {
		name    string
		svcPort corev1.ServicePort
		slices  []metav1.Object
		want    []hp // nil: CLA without endpoints
	}{
		{
			name:    "ready unset counts, ready false skipped, first address only",
			svcPort: mkPort("http", 80),
			slices: []metav1.Object{mkEndpointSlice("default", "s1", "app",
				[]discoveryv1.EndpointPort{mkSlicePort("http", 8080)},
				mkEndpoint(nil, "10.0.0.3"),
				mkEndpoint(yes, "10.0.0.1", "10.0.0.100"),
				mkEndpoint(no, "10.0.0.2"),
			)},
			want: []hp{{"10.0.0.1", 8080}, {"10.0.0.3", 8080}},
		},
		{
			name:    "named service port matches the slice port of that name",
			svcPort: mkPort("http", 80),
			slices: []metav1.Object{mkEndpointSlice("default", "s1", "app",
				[]discoveryv1.EndpointPort{mkSlicePort("metrics", 9000), mkSlicePort("http", 8080)},
				mkEndpoint(nil, "10.0.0.1"),
			)},
			want: []hp{{"10.0.0.1", 8080}},
		},
		{
			name:    "unnamed service port takes every TCP port",
			svcPort: mkPort("", 80),
			slices: []metav1.Object{mkEndpointSlice("default", "s1", "app",
				[]discoveryv1.EndpointPort{mkSlicePort("", 8080), mkSlicePort("metrics", 9000), udp("dns", 53)},
				mkEndpoint(nil, "10.0.0.1"),
			)},
			want: []hp{{"10.0.0.1", 8080}, {"10.0.0.1", 9000}},
		},
		{
			name:    "duplicates across slices are removed",
			svcPort: mkPort("http", 80),
			slices: []metav1.Object{
				mkEndpointSlice("default", "s1", "app", []discoveryv1.EndpointPort{mkSlicePort("http", 8080)}, mkEndpoint(nil, "10.0.0.1"), mkEndpoint(nil, "10.0.0.2")),
				mkEndpointSlice("default", "s2", "app", []discoveryv1.EndpointPort{mkSlicePort("http", 8080)}, mkEndpoint(nil, "10.0.0.2"), mkEndpoint(nil, "10.0.0.3")),
			},
			want: []hp{{"10.0.0.1", 8080}, {"10.0.0.2", 8080}, {"10.0.0.3", 8080}},
		},
		{
			name:    "slices of other services or namespaces are not used",
			svcPort: mkPort("http", 80),
			slices: []metav1.Object{
				mkEndpointSlice("default", "s1", "app", []discoveryv1.EndpointPort{mkSlicePort("http", 8080)}, mkEndpoint(nil, "10.0.0.1")),
				mkEndpointSlice("default", "s2", "other", []discoveryv1.EndpointPort{mkSlicePort("http", 8080)}, mkEndpoint(nil, "10.0.0.2")),
				mkEndpointSlice("other", "s3", "app", []discoveryv1.EndpointPort{mkSlicePort("http", 8080)}, mkEndpoint(nil, "10.0.0.3")),
			},
			want: []hp{{"10.0.0.1", 8080}},
		},
		{
			name:    "slices without a matching ready endpoint give an empty CLA",
			svcPort: mkPort("http", 80),
			slices: []metav1.Object{mkEndpointSlice("default", "s1", "app",
				[]discoveryv1.EndpointPort{mkSlicePort("metrics", 9000)},
				mkEndpoint(nil, "10.0.0.1"),
			)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ing := mkIngress("default", "i", ingRule("", ingPath(ptPrefix, "/", "app", 80)))
			objs := append([]metav1.Object{ing, mkService("default", "app", tt.svcPort)}, tt.slices...)
			res := translateIngressT(t, Options{}, objs...)
			edsName := "default/app"
			if tt.svcPort.Name != "" {
				edsName += "/" + tt.svcPort.Name
			}
			cla := findCLA(res, edsName)
			if cla == nil {
				t.Fatalf("no CLA %q", edsName)
			}
			want := &endpointv3.ClusterLoadAssignment{ClusterName: edsName}
			if tt.want != nil {
				loc := &endpointv3.LocalityLbEndpoints{LoadBalancingWeight: wrapperspb.UInt32(1)}
				for _, h := range tt.want {
					loc.LbEndpoints = append(loc.LbEndpoints, &endpointv3.LbEndpoint{HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{
						Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
							Address: h.addr, PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: h.port},
						}}},
					}}})
				}
				want.Endpoints = []*endpointv3.LocalityLbEndpoints{loc}
			}
			if !proto.Equal(cla, want) {
				t.Errorf("CLA =\n%v\nwant\n%v", cla, want)
			}
			if len(res.Notices) != 0 {
				t.Errorf("unexpected notices (the Service has slices): %v", res.Notices)
			}
		})
	}

	t.Run("no slices: CLA with only its name and a notice", func(t *testing.T) {
		ing := mkIngress("default", "i", ingRule("", ingPath(ptPrefix, "/", "app", 80)))
		res := translateIngressT(t, Options{}, ing, mkService("default", "app", mkPort("http", 80)))
		cla := findCLA(res, "default/app/http")
		if !proto.Equal(cla, &endpointv3.ClusterLoadAssignment{ClusterName: "default/app/http"}) {
			t.Errorf("CLA = %v, want only cluster_name", cla)
		}
		n := mustNotice(t, res, "Service", "default/app", "no endpoints")
		if n.Source != mkSource("Service", 2) {
			t.Errorf("notice source = %v, want the Service's %v", n.Source, mkSource("Service", 2))
		}
		if cl := mustCluster(t, res, "default/app/80/da39a3ee5e"); cl.GetType() != clusterv3.Cluster_EDS {
			t.Errorf("cluster type = %v, want EDS", cl.GetType())
		}
	})

	t.Run("upstream DNS for a Service without slices", func(t *testing.T) {
		ing := mkIngress("default", "i", ingRule("",
			ingPath(ptPrefix, "/", "app", 80),
			ingPath(ptPrefix, "/kuard", "kuard", 80),
		))
		objs := withKuard(ing, mkService("default", "app", mkPort("http", 80)))
		res := translateIngressT(t, Options{UpstreamDNS: "cluster.local"}, objs...)
		cl := mustCluster(t, res, "default/app/80/da39a3ee5e")
		if cl.GetType() != clusterv3.Cluster_STRICT_DNS {
			t.Errorf("cluster type = %v, want STRICT_DNS", cl.GetType())
		}
		if cl.EdsClusterConfig != nil {
			t.Errorf("a DNS cluster has an EDS config")
		}
		eps := cl.GetLoadAssignment().GetEndpoints()
		if len(eps) != 1 || len(eps[0].LbEndpoints) != 1 {
			t.Fatalf("load_assignment = %v, want one endpoint", cl.LoadAssignment)
		}
		sa := eps[0].LbEndpoints[0].GetEndpoint().GetAddress().GetSocketAddress()
		if sa.GetAddress() != "app.default.svc.cluster.local" || sa.GetPortValue() != 80 {
			t.Errorf("DNS target = %s:%d, want app.default.svc.cluster.local:80", sa.GetAddress(), sa.GetPortValue())
		}
		if findCLA(res, "default/app/http") != nil {
			t.Errorf("a DNS cluster must have no EDS CLA")
		}
		mustNotice(t, res, "Service", "default/app", "app.default.svc.cluster.local:80")
		// A Service with slices keeps EDS.
		if k := mustCluster(t, res, kuardCluster); k.GetType() != clusterv3.Cluster_EDS || findCLA(res, "default/kuard/http") == nil {
			t.Errorf("kuard: type %v, want EDS with a CLA", k.GetType())
		}
	})
}

func TestIngressLaterRouteWins(t *testing.T) {
	// Two Ingresses with the same host and path: the one sorting later by
	// namespace/name wins, whatever the input order (Contour: map order).
	a := mkIngress("default", "a", ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)))
	b := mkIngress("default", "b", ingRule("foo.com", ingPath(ptPrefix, "/", "app", 80)))
	app := mkService("default", "app", mkPort("", 80))
	for _, order := range [][]metav1.Object{withKuard(a, b, app), withKuard(b, a, app)} {
		res := translateIngressT(t, Options{}, order...)
		routes := mustRoutes(t, res, "ingress_http", "foo.com")
		if len(routes) != 1 || forwardedCluster(routes[0]) != "default/app/80/da39a3ee5e" {
			t.Errorf("routes = %v, want one route to default/app", routes)
		}
	}
}

func mustAnyForTest(t *testing.T, m proto.Message) *anypb.Any {
	t.Helper()
	a, err := anypb.New(m)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func equalStringsT(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalBytesT(a, b []byte) bool { return string(a) == string(b) }
