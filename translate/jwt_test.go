package translate

// HTTPProxy JWT verification (translate/httpproxy's jwt.go, translate/envoy's
// xds_jwt.go): every JWTVerificationError reason in Contour's order and with
// Contour's messages, and the exact jwt_authn filter, remote JWKS cluster and
// per-route requirement, shaped after Contour's
// featuretests/v3/jwtverification_test.go with the upstream TLS parameters
// `contour serve` adds.

import (
	"slices"
	"strings"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	jwtauthnv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/status"
	"github.com/contourc/contourc/translate/internal/testpki"
)

// ---- inputs ----------------------------------------------------------------

const jwtFQDN = "jwt.example.com"

// jwtProxy is a root HTTPProxy default/simple for jwt.example.com with TLS
// Secret "secret" and a route to kuard (see kuardObjects); mutate adjusts it.
func jwtProxy(mutate ...func(*contourv1.HTTPProxy)) *contourv1.HTTPProxy {
	p := &contourv1.HTTPProxy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "simple", Generation: 1},
		Spec: contourv1.HTTPProxySpec{
			VirtualHost: &contourv1.VirtualHost{Fqdn: jwtFQDN, TLS: &contourv1.TLS{SecretName: "secret"}},
			Routes:      []contourv1.Route{{Services: []contourv1.Service{{Name: "kuard", Port: 80}}}},
		},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

// jwtRemote is a provider fetching its JWKS from uri.
func jwtRemote(name, uri string) contourv1.JWTProvider {
	return contourv1.JWTProvider{Name: name, RemoteJWKS: contourv1.RemoteJWKS{URI: uri}}
}

func jwtWithProviders(ps ...contourv1.JWTProvider) func(*contourv1.HTTPProxy) {
	return func(p *contourv1.HTTPProxy) { p.Spec.VirtualHost.JWTProviders = ps }
}

// jwtWithRoutePolicy sets the JWT policy of the proxy's first route.
func jwtWithRoutePolicy(require string, disabled bool) func(*contourv1.HTTPProxy) {
	return func(p *contourv1.HTTPProxy) {
		p.Spec.Routes[0].JWTVerificationPolicy = &contourv1.JWTVerificationPolicy{Require: require, Disabled: disabled}
	}
}

// jwtWithRoute appends a route to kuard with a prefix condition.
func jwtWithRoute(prefix string, policy *contourv1.JWTVerificationPolicy) func(*contourv1.HTTPProxy) {
	return func(p *contourv1.HTTPProxy) {
		p.Spec.Routes = append(p.Spec.Routes, contourv1.Route{
			Conditions:            []contourv1.MatchCondition{{Prefix: prefix}},
			Services:              []contourv1.Service{{Name: "kuard", Port: 80}},
			JWTVerificationPolicy: policy,
		})
	}
}

// jwtCASecret is an Opaque Secret with the test certificate as ca.crt.
func jwtCASecret(t testing.TB, ns, name string) *corev1.Secret {
	return testpki.Secret(ns, name, corev1.SecretTypeOpaque, map[string][]byte{"ca.crt": testpki.Certs(t).CertPEM})
}

// translateJWT translates the proxies with the TLS Secret default/secret,
// kuard, and extra objects; every resource must pass ValidateAll.
func translateJWT(t *testing.T, proxies []*contourv1.HTTPProxy, extra ...metav1.Object) *Result {
	t.Helper()
	objs := append([]metav1.Object{testpki.TLSSecret(t, "default", "secret")}, kuardObjects()...)
	in := mkObjects(t, append(objs, extra...)...)
	for i, p := range proxies {
		in = append(in, loader.Object{Kind: "HTTPProxy", Obj: p, Source: mkSource("HTTPProxy", i+1)})
	}
	res, err := Translate(in, Options{})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	validateAllResources(t, res.Resources)
	return res
}

// ---- finders ---------------------------------------------------------------

// jwtProxyErrors returns the errors of the Valid condition of HTTPProxy ns/name.
func jwtProxyErrors(t *testing.T, res *Result, ns, name string) []status.Detail {
	t.Helper()
	for _, s := range res.Status {
		if s.Kind == "HTTPProxy" && s.Namespace == ns && s.Name == name {
			st, ok := s.Status.(HTTPProxyStatus)
			if !ok {
				t.Fatalf("status of %s/%s is %T", ns, name, s.Status)
			}
			for _, c := range st.Conditions {
				if c.Type == "Valid" {
					return c.Errors
				}
			}
			return nil
		}
	}
	t.Fatalf("no status for HTTPProxy %s/%s", ns, name)
	return nil
}

func jwtCluster(res *Result, name string) *clusterv3.Cluster {
	for _, c := range res.Resources.Clusters {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func jwtRouteConfig(res *Result, name string) *routev3.RouteConfiguration {
	for _, rc := range res.Resources.RouteConfigs {
		if rc.Name == name {
			return rc
		}
	}
	return nil
}

// jwtSecureHCM returns the HTTP connection manager of the ingress_https filter
// chain for server name host, nil if there is none.
func jwtSecureHCM(t *testing.T, res *Result, host string) *hcmv3.HttpConnectionManager {
	t.Helper()
	for _, l := range res.Resources.Listeners {
		if l.Name != "ingress_https" {
			continue
		}
		for _, fc := range l.FilterChains {
			if !slices.Contains(fc.GetFilterChainMatch().GetServerNames(), host) {
				continue
			}
			hcm := &hcmv3.HttpConnectionManager{}
			if err := fc.Filters[0].GetTypedConfig().UnmarshalTo(hcm); err != nil {
				t.Fatalf("unpacking HCM: %v", err)
			}
			return hcm
		}
	}
	return nil
}

// jwtFilterConfig returns the jwt_authn configuration of hcm, nil if none.
func jwtFilterConfig(t *testing.T, hcm *hcmv3.HttpConnectionManager) *jwtauthnv3.JwtAuthentication {
	t.Helper()
	for _, f := range hcm.GetHttpFilters() {
		if f.Name == "envoy.filters.http.jwt_authn" {
			cfg := &jwtauthnv3.JwtAuthentication{}
			if err := f.GetTypedConfig().UnmarshalTo(cfg); err != nil {
				t.Fatalf("unpacking jwt_authn: %v", err)
			}
			return cfg
		}
	}
	return nil
}

func jwtFilterNames(hcm *hcmv3.HttpConnectionManager) []string {
	var out []string
	for _, f := range hcm.GetHttpFilters() {
		out = append(out, f.Name)
	}
	return out
}

// jwtRouteRequirement returns the jwt_authn requirement of the route matching
// prefix in the route configuration's only virtual host; "" if none.
func jwtRouteRequirement(t *testing.T, rc *routev3.RouteConfiguration, prefix string) string {
	t.Helper()
	for _, r := range rc.GetVirtualHosts()[0].GetRoutes() {
		if r.GetMatch().GetPrefix() != prefix {
			continue
		}
		a, ok := r.TypedPerFilterConfig["envoy.filters.http.jwt_authn"]
		if !ok {
			return ""
		}
		cfg := &jwtauthnv3.PerRouteConfig{}
		if err := a.UnmarshalTo(cfg); err != nil {
			t.Fatalf("unpacking PerRouteConfig: %v", err)
		}
		return cfg.GetRequirementName()
	}
	t.Fatalf("%s: no route for prefix %q", rc.Name, prefix)
	return ""
}

// ---- validity --------------------------------------------------------------

func TestJWTVerificationErrors(t *testing.T) {
	uri := "https://jwt.example.com/jwks.json"
	remote := func(mutate func(*contourv1.RemoteJWKS)) func(*contourv1.HTTPProxy) {
		jp := jwtRemote("provider-1", uri)
		mutate(&jp.RemoteJWKS)
		return jwtWithProviders(jp)
	}
	validation := func(ca string) *contourv1.UpstreamValidation {
		return &contourv1.UpstreamValidation{CACertificate: ca, SubjectName: "jwt.example.com"}
	}
	tests := []struct {
		name   string
		proxy  *contourv1.HTTPProxy
		extra  []metav1.Object
		reason string
		msg    string // a prefix of the message
		// programmed: Contour reports the error after adding the routes.
		programmed bool
	}{{
		name: "providers without TLS",
		proxy: jwtProxy(jwtWithProviders(jwtRemote("provider-1", uri)), func(p *contourv1.HTTPProxy) {
			p.Spec.VirtualHost.TLS = nil
		}),
		reason: "JWTVerificationNotPermitted",
		msg:    "Spec.VirtualHost.JWTProviders can only be defined for root HTTPProxies that terminate TLS",
	}, {
		name: "providers with TLS passthrough",
		proxy: jwtProxy(jwtWithProviders(jwtRemote("provider-1", uri)), func(p *contourv1.HTTPProxy) {
			p.Spec.VirtualHost.TLS = &contourv1.TLS{Passthrough: true}
		}),
		reason: "JWTVerificationNotPermitted",
		msg:    "Spec.VirtualHost.JWTProviders can only be defined for root HTTPProxies that terminate TLS",
	}, {
		name:   "duplicate provider names",
		proxy:  jwtProxy(jwtWithProviders(jwtRemote("provider-1", uri), jwtRemote("provider-1", "https://other.example.com/jwks.json"))),
		reason: "DuplicateProviderName",
		msg:    "Spec.VirtualHost.JWTProviders is invalid: duplicate name provider-1",
	}, {
		name: "two default providers",
		proxy: jwtProxy(func(p *contourv1.HTTPProxy) {
			a, b := jwtRemote("provider-1", uri), jwtRemote("provider-2", uri)
			a.Default, b.Default = true, true
			p.Spec.VirtualHost.JWTProviders = []contourv1.JWTProvider{a, b}
		}),
		reason: "MultipleDefaultProvidersSpecified",
		msg:    "Spec.VirtualHost.JWTProviders is invalid: at most one provider can be set as the default",
	}, {
		// The duplicate name is found before the second default.
		name: "duplicate name before second default",
		proxy: jwtProxy(func(p *contourv1.HTTPProxy) {
			a, b := jwtRemote("provider-1", uri), jwtRemote("provider-1", uri)
			a.Default, b.Default = true, true
			p.Spec.VirtualHost.JWTProviders = []contourv1.JWTProvider{a, b}
		}),
		reason: "DuplicateProviderName",
		msg:    "Spec.VirtualHost.JWTProviders is invalid: duplicate name provider-1",
	}, {
		name:   "no JWKS source",
		proxy:  jwtProxy(jwtWithProviders(contourv1.JWTProvider{Name: "provider-1"})),
		reason: "JWKSSourceMissing",
		msg:    `Spec.VirtualHost.JWTProviders for provider "provider-1" is invalid: exactly one of remoteJWKS or localJWKS must be set`,
	}, {
		name:   "URI does not parse",
		proxy:  jwtProxy(remote(func(r *contourv1.RemoteJWKS) { r.URI = "://jwt.example.com" })),
		reason: "RemoteJWKSURIInvalid",
		msg:    `Spec.VirtualHost.JWTProviders.RemoteJWKS.URI is invalid: parse "://jwt.example.com": missing protocol scheme`,
	}, {
		name:   "URI scheme",
		proxy:  jwtProxy(remote(func(r *contourv1.RemoteJWKS) { r.URI = "ftp://jwt.example.com/jwks.json" })),
		reason: "RemoteJWKSSchemeInvalid",
		msg:    `Spec.VirtualHost.JWTProviders.RemoteJWKS.URI has invalid scheme "ftp", must be http or https`,
	}, {
		name: "validation with http",
		proxy: jwtProxy(remote(func(r *contourv1.RemoteJWKS) {
			r.URI = "http://jwt.example.com/jwks.json"
			r.UpstreamValidation = validation("ca")
		})),
		extra:  []metav1.Object{jwtCASecret(t, "default", "ca")},
		reason: "RemoteJWKSUpstreamValidationInvalid",
		msg:    "Spec.VirtualHost.JWTProviders.RemoteJWKS.UpstreamValidation must not be specified when URI scheme is http.",
	}, {
		name:   "validation CA missing",
		proxy:  jwtProxy(remote(func(r *contourv1.RemoteJWKS) { r.UpstreamValidation = validation("missing") })),
		reason: "RemoteJWKSUpstreamValidationInvalid",
		msg:    `Spec.VirtualHost.JWTProviders.RemoteJWKS.UpstreamValidation is invalid: invalid CA Secret "default/missing": `,
	}, {
		name: "validation without subject name",
		proxy: jwtProxy(remote(func(r *contourv1.RemoteJWKS) {
			r.UpstreamValidation = &contourv1.UpstreamValidation{CACertificate: "ca"}
		})),
		extra:  []metav1.Object{jwtCASecret(t, "default", "ca")},
		reason: "RemoteJWKSUpstreamValidationInvalid",
		msg:    "Spec.VirtualHost.JWTProviders.RemoteJWKS.UpstreamValidation is invalid: missing subject alternative name",
	}, {
		name:   "validation CA not delegated",
		proxy:  jwtProxy(remote(func(r *contourv1.RemoteJWKS) { r.UpstreamValidation = validation("other/ca") })),
		extra:  []metav1.Object{jwtCASecret(t, "other", "ca")},
		reason: "RemoteJWKSCACertificateNotDelegated",
		msg:    `Spec.VirtualHost.JWTProviders.RemoteJWKS.UpstreamValidation.CACertificate Secret "other/ca" is not configured for certificate delegation`,
	}, {
		name:   "timeout",
		proxy:  jwtProxy(remote(func(r *contourv1.RemoteJWKS) { r.Timeout = "7 seconds" })),
		reason: "RemoteJWKSTimeoutInvalid",
		msg:    `Spec.VirtualHost.JWTProviders.RemoteJWKS.Timeout is invalid: time: unknown unit " seconds" in duration "7 seconds"`,
	}, {
		name:   "cache duration",
		proxy:  jwtProxy(remote(func(r *contourv1.RemoteJWKS) { r.CacheDuration = "forever" })),
		reason: "RemoteJWKSCacheDurationInvalid",
		msg:    `Spec.VirtualHost.JWTProviders.RemoteJWKS.CacheDuration is invalid: time: invalid duration "forever"`,
	}, {
		name:   "port out of range",
		proxy:  jwtProxy(remote(func(r *contourv1.RemoteJWKS) { r.URI = "https://jwt.example.com:99999999999999999999/jwks.json" })),
		reason: "RemoteJWKSPortInvalid",
		msg:    `Spec.VirtualHost.JWTProviders.RemoteJWKS.URI has an invalid port: strconv.Atoi: parsing "99999999999999999999": value out of range`,
	}, {
		name:   "DNS lookup family",
		proxy:  jwtProxy(remote(func(r *contourv1.RemoteJWKS) { r.DNSLookupFamily = "v5" })),
		reason: "RemoteJWKSDNSLookupFamilyInvalid",
		msg:    `Spec.VirtualHost.JWTProviders.RemoteJWKS.DNSLookupFamily has an invalid value "v5", must be auto, all, v4 or v6`,
	}, {
		// Checks run in order: the timeout before the DNS family.
		name: "first error wins",
		proxy: jwtProxy(remote(func(r *contourv1.RemoteJWKS) {
			r.Timeout, r.DNSLookupFamily = "x", "v5"
		})),
		reason: "RemoteJWKSTimeoutInvalid",
		msg:    "Spec.VirtualHost.JWTProviders.RemoteJWKS.Timeout is invalid: ",
	}, {
		// The first provider is fine; the second one's error stops the proxy.
		name: "second provider invalid",
		proxy: jwtProxy(jwtWithProviders(jwtRemote("provider-1", uri), func() contourv1.JWTProvider {
			jp := jwtRemote("provider-2", uri)
			jp.RemoteJWKS.CacheDuration = "x"
			return jp
		}())),
		reason: "RemoteJWKSCacheDurationInvalid",
		msg:    "Spec.VirtualHost.JWTProviders.RemoteJWKS.CacheDuration is invalid: ",
	}, {
		name:   "fallback certificate",
		proxy:  jwtProxy(jwtWithProviders(jwtRemote("provider-1", uri)), func(p *contourv1.HTTPProxy) { p.Spec.VirtualHost.TLS.EnableFallbackCertificate = true }),
		reason: "TLSIncompatibleFeatures",
		msg:    "Spec.Virtualhost.TLS fallback & JWT providers are incompatible",
	}, {
		name:   "require and disabled",
		proxy:  jwtProxy(jwtWithProviders(jwtRemote("provider-1", uri)), jwtWithRoutePolicy("provider-1", true)),
		reason: "InvalidJWTVerificationPolicy",
		msg:    "route's JWT verification policy cannot specify both require and disabled",
	}, {
		name:       "route requires an unknown provider",
		proxy:      jwtProxy(jwtWithProviders(jwtRemote("provider-1", uri)), jwtWithRoutePolicy("provider-2", false)),
		reason:     "JWTProviderNotDefined",
		msg:        `Route references an undefined JWT provider "provider-2"`,
		programmed: true,
	}, {
		name:       "route requires a provider, none defined",
		proxy:      jwtProxy(jwtWithRoutePolicy("provider-1", false)),
		reason:     "JWTProviderNotDefined",
		msg:        `Route references an undefined JWT provider "provider-1"`,
		programmed: true,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := translateJWT(t, []*contourv1.HTTPProxy{tc.proxy}, tc.extra...)
			errs := jwtProxyErrors(t, res, "default", "simple")
			if len(errs) != 1 {
				t.Fatalf("errors = %+v, want exactly one", errs)
			}
			e := errs[0]
			wantType := "JWTVerificationError"
			if tc.reason == "TLSIncompatibleFeatures" {
				wantType = "TLSError"
			}
			if e.Type != wantType || e.Reason != tc.reason || !strings.HasPrefix(e.Message, tc.msg) {
				t.Errorf("error = %s/%s %q, want %s/%s %q...", e.Type, e.Reason, e.Message, wantType, tc.reason, tc.msg)
			}
			if got := jwtRouteConfig(res, "https/"+jwtFQDN) != nil; got != tc.programmed {
				t.Errorf("secure route configuration published = %v, want %v", got, tc.programmed)
			}
			if hasJWKS := jwtCluster(res, jwksJWTExample) != nil; hasJWKS != (tc.programmed && tc.proxy.Spec.VirtualHost.JWTProviders != nil) {
				t.Errorf("JWKS cluster published = %v", hasJWKS)
			}
			for _, n := range res.Notices {
				if strings.Contains(n.Msg, "jwt") {
					t.Errorf("unexpected notice %s", n)
				}
			}
		})
	}
}

// The undefined provider stays on the route, as Contour leaves it: Envoy
// then refuses the route's requests for want of the requirement.
func TestJWTProviderNotDefinedKeepsRoutes(t *testing.T) {
	res := translateJWT(t, []*contourv1.HTTPProxy{jwtProxy(
		jwtWithProviders(jwtRemote("provider-1", "https://jwt.example.com/jwks.json")),
		jwtWithRoutePolicy("provider-2", false),
	)})
	rc := jwtRouteConfig(res, "https/"+jwtFQDN)
	if got := jwtRouteRequirement(t, rc, "/"); got != "provider-2" {
		t.Errorf("requirement = %q, want provider-2", got)
	}
	if cfg := jwtFilterConfig(t, jwtSecureHCM(t, res, jwtFQDN)); cfg == nil || cfg.Providers["provider-1"] == nil {
		t.Errorf("jwt_authn filter = %v, want provider-1", cfg)
	}
}

// Without TLS the providers' check never runs, so a route requiring one is
// not an error; it keeps the requirement on the plain-HTTP route.
func TestJWTRouteRequireWithoutTLS(t *testing.T) {
	res := translateJWT(t, []*contourv1.HTTPProxy{jwtProxy(jwtWithRoutePolicy("provider-1", false), func(p *contourv1.HTTPProxy) {
		p.Spec.VirtualHost.TLS = nil
	})})
	if errs := jwtProxyErrors(t, res, "default", "simple"); len(errs) != 0 {
		t.Fatalf("errors = %+v, want none", errs)
	}
	if got := jwtRouteRequirement(t, jwtRouteConfig(res, "ingress_http"), "/"); got != "provider-1" {
		t.Errorf("requirement = %q, want provider-1", got)
	}
}

// ---- Envoy output ----------------------------------------------------------

// TestJWTVerificationRemoteJWKS is the featuretest's provider-1 case.
func TestJWTVerificationRemoteJWKS(t *testing.T) {
	jp := jwtRemote("provider-1", "https://jwt.example.com/jwks.json")
	jp.Issuer = "issuer.jwt.example.com"
	jp.RemoteJWKS.Timeout, jp.RemoteJWKS.CacheDuration = "7s", "30s"
	res := translateJWT(t, []*contourv1.HTTPProxy{jwtProxy(jwtWithProviders(jp), jwtWithRoutePolicy("provider-1", false))})
	if errs := jwtProxyErrors(t, res, "default", "simple"); len(errs) != 0 {
		t.Fatalf("errors = %+v, want none", errs)
	}

	hcm := jwtSecureHCM(t, res, jwtFQDN)
	wantFilters := []string{
		"envoy.filters.http.lua", "envoy.filters.http.compressor", "envoy.filters.http.grpc_web",
		"envoy.filters.http.grpc_stats", "envoy.filters.http.cors", "envoy.filters.http.local_ratelimit",
		"envoy.filters.http.lua", "envoy.filters.http.rbac", "envoy.filters.http.jwt_authn", "router",
	}
	if got := jwtFilterNames(hcm); !slices.Equal(got, wantFilters) {
		t.Errorf("HTTP filters = %q, want %q", got, wantFilters)
	}
	wantCfg := &jwtauthnv3.JwtAuthentication{
		Providers: map[string]*jwtauthnv3.JwtProvider{"provider-1": {
			Issuer: "issuer.jwt.example.com",
			JwksSourceSpecifier: &jwtauthnv3.JwtProvider_RemoteJwks{RemoteJwks: &jwtauthnv3.RemoteJwks{
				HttpUri: &corev3.HttpUri{
					Uri:              "https://jwt.example.com/jwks.json",
					HttpUpstreamType: &corev3.HttpUri_Cluster{Cluster: jwksJWTExample},
					Timeout:          durationpb.New(7 * time.Second),
				},
				CacheDuration: durationpb.New(30 * time.Second),
			}},
		}},
		RequirementMap: map[string]*jwtauthnv3.JwtRequirement{"provider-1": {
			RequiresType: &jwtauthnv3.JwtRequirement_ProviderName{ProviderName: "provider-1"},
		}},
	}
	jwtAssertProtoEqual(t, "jwt_authn", wantCfg, jwtFilterConfig(t, hcm))

	wantCluster := &clusterv3.Cluster{
		Name:                 jwksJWTExample,
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STRICT_DNS},
		CommonLbConfig:       &clusterv3.Cluster_CommonLbConfig{HealthyPanicThreshold: &typev3.Percent{Value: 0}},
		ConnectTimeout:       durationpb.New(2 * time.Second),
		LoadAssignment: &endpointv3.ClusterLoadAssignment{
			ClusterName: jwksJWTExample,
			Endpoints: []*endpointv3.LocalityLbEndpoints{{LbEndpoints: []*endpointv3.LbEndpoint{{
				HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{
					Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
						Protocol: corev3.SocketAddress_TCP, Address: "jwt.example.com",
						PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: 443},
					}}},
				}},
			}}}},
		},
	}
	// The TLS context is compared unpacked: Any bytes need not be stable.
	wantTLS := &tlsv3.UpstreamTlsContext{
		CommonTlsContext: &tlsv3.CommonTlsContext{TlsParams: &tlsv3.TlsParameters{
			TlsMinimumProtocolVersion: tlsv3.TlsParameters_TLSv1_2,
			TlsMaximumProtocolVersion: tlsv3.TlsParameters_TLSv1_3,
			CipherSuites: []string{
				"[ECDHE-ECDSA-AES128-GCM-SHA256|ECDHE-ECDSA-CHACHA20-POLY1305]",
				"[ECDHE-RSA-AES128-GCM-SHA256|ECDHE-RSA-CHACHA20-POLY1305]",
				"ECDHE-ECDSA-AES256-GCM-SHA384",
				"ECDHE-RSA-AES256-GCM-SHA384",
			},
		}},
		Sni: "jwt.example.com",
	}
	got := proto.Clone(jwtCluster(res, jwksJWTExample)).(*clusterv3.Cluster)
	ts := got.TransportSocket
	got.TransportSocket = nil
	jwtAssertProtoEqual(t, "JWKS cluster", wantCluster, got)
	if ts.GetName() != "envoy.transport_sockets.tls" {
		t.Errorf("transport socket name = %q", ts.GetName())
	}
	gotTLS := &tlsv3.UpstreamTlsContext{}
	if err := ts.GetTypedConfig().UnmarshalTo(gotTLS); err != nil {
		t.Fatal(err)
	}
	jwtAssertProtoEqual(t, "JWKS upstream TLS", wantTLS, gotTLS)
	// JWKS clusters have no EDS resource.
	for _, cla := range res.Resources.Endpoints {
		if strings.HasPrefix(cla.ClusterName, "dnsname/") {
			t.Errorf("unexpected ClusterLoadAssignment %s", cla.ClusterName)
		}
	}

	rc := jwtRouteConfig(res, "https/"+jwtFQDN)
	tpfc := rc.VirtualHosts[0].Routes[0].TypedPerFilterConfig
	if len(tpfc) != 1 || tpfc["envoy.filters.http.jwt_authn"] == nil {
		t.Fatalf("route typed_per_filter_config = %v, want only jwt_authn", tpfc)
	}
	perRoute := &jwtauthnv3.PerRouteConfig{}
	if err := tpfc["envoy.filters.http.jwt_authn"].UnmarshalTo(perRoute); err != nil {
		t.Fatal(err)
	}
	jwtAssertProtoEqual(t, "PerRouteConfig", &jwtauthnv3.PerRouteConfig{
		RequirementSpecifier: &jwtauthnv3.PerRouteConfig_RequirementName{RequirementName: "provider-1"},
	}, perRoute)
	// The plain-HTTP route redirects; redirects carry no JWT requirement.
	if got := jwtRouteRequirement(t, jwtRouteConfig(res, "ingress_http"), "/"); got != "" {
		t.Errorf("HTTP redirect route requirement = %q, want none", got)
	}
}

// jwtAssertProtoEqual fails the test unless got equals want, showing both.
func jwtAssertProtoEqual(t *testing.T, what string, want, got proto.Message) {
	t.Helper()
	if !proto.Equal(want, got) {
		opts := protojson.MarshalOptions{Multiline: true}
		t.Errorf("%s:\ngot  %s\nwant %s", what, opts.Format(got), opts.Format(want))
	}
}

// The default provider applies to routes without a policy; disabled opts
// out; require picks another provider. Routes with permitInsecure keep
// their requirement on the plain-HTTP virtual host too.
func TestJWTDefaultProviderAndPolicies(t *testing.T) {
	a := jwtRemote("provider-1", "https://jwt.example.com/jwks.json")
	a.Default = true
	b := jwtRemote("provider-2", "http://keys.example.com:8080/jwks.json")
	b.Audiences, b.ForwardJWT = []string{"aud-1", "aud-2"}, true
	res := translateJWT(t, []*contourv1.HTTPProxy{jwtProxy(jwtWithProviders(a, b),
		jwtWithRoute("/css", &contourv1.JWTVerificationPolicy{Disabled: true}),
		jwtWithRoute("/api", &contourv1.JWTVerificationPolicy{Require: "provider-2"}),
		jwtWithRoute("/open", nil),
		func(p *contourv1.HTTPProxy) { p.Spec.Routes[3].PermitInsecure = true },
	)})
	if errs := jwtProxyErrors(t, res, "default", "simple"); len(errs) != 0 {
		t.Fatalf("errors = %+v, want none", errs)
	}
	secure := jwtRouteConfig(res, "https/"+jwtFQDN)
	for prefix, want := range map[string]string{"/": "provider-1", "/css": "", "/api": "provider-2", "/open": "provider-1"} {
		if got := jwtRouteRequirement(t, secure, prefix); got != want {
			t.Errorf("secure route %s requirement = %q, want %q", prefix, got, want)
		}
	}
	if got := jwtRouteRequirement(t, jwtRouteConfig(res, "ingress_http"), "/open"); got != "provider-1" {
		t.Errorf("insecure /open requirement = %q, want provider-1", got)
	}

	cfg := jwtFilterConfig(t, jwtSecureHCM(t, res, jwtFQDN))
	p2 := cfg.Providers["provider-2"]
	if !p2.Forward || !slices.Equal(p2.Audiences, []string{"aud-1", "aud-2"}) {
		t.Errorf("provider-2 = %v", p2)
	}
	if got := p2.GetRemoteJwks().GetHttpUri().GetTimeout().AsDuration(); got != time.Second {
		t.Errorf("default timeout = %v, want 1s", got)
	}
	if p2.GetRemoteJwks().CacheDuration != nil {
		t.Errorf("cache_duration set without cacheDuration")
	}
	if len(cfg.RequirementMap) != 2 || cfg.RequirementMap["provider-2"].GetProviderName() != "provider-2" {
		t.Errorf("requirement_map = %v", cfg.RequirementMap)
	}

	http := jwtCluster(res, "dnsname/http/keys.example.com/8080/decaef4dfc71757d6c78")
	if http == nil {
		t.Fatal("no JWKS cluster for http://keys.example.com:8080")
	}
	if http.TransportSocket != nil {
		t.Errorf("http JWKS cluster has a transport socket")
	}
	if got := http.LoadAssignment.Endpoints[0].LbEndpoints[0].GetEndpoint().GetAddress().GetSocketAddress(); got.GetAddress() != "keys.example.com" || got.GetPortValue() != 8080 {
		t.Errorf("http JWKS endpoint = %v", got)
	}
}

func TestJWKSClusterVariants(t *testing.T) {
	tests := []struct {
		name          string
		uri, family   string
		validation    bool
		wantName      string
		wantSNI       string // jwks.example.com unless set
		wantType      clusterv3.Cluster_DiscoveryType
		wantFamily    clusterv3.Cluster_DnsLookupFamily
		wantPort      uint32
		wantTLS       bool
		wantValidated bool
	}{
		{name: "http default port", uri: "http://jwks.example.com/keys", wantName: "dnsname/http/jwks.example.com/80/92cde129b8c0d64b386c", wantType: clusterv3.Cluster_STRICT_DNS, wantPort: 80},
		{name: "https own port", uri: "https://jwks.example.com:9443/keys", wantName: "dnsname/https/jwks.example.com/9443/4f2100140ed08df0a178", wantType: clusterv3.Cluster_STRICT_DNS, wantPort: 9443, wantTLS: true},
		{name: "auto", uri: "https://jwks.example.com/keys", family: "auto", wantName: "dnsname/https/jwks.example.com/443/d550536a130069dad35a", wantType: clusterv3.Cluster_STRICT_DNS, wantFamily: clusterv3.Cluster_AUTO, wantPort: 443, wantTLS: true},
		{name: "v4", uri: "https://jwks.example.com/keys", family: "v4", wantName: "dnsname/https/jwks.example.com/443/a8f949f511becddd0cb8", wantType: clusterv3.Cluster_STRICT_DNS, wantFamily: clusterv3.Cluster_V4_ONLY, wantPort: 443, wantTLS: true},
		{name: "v6", uri: "http://jwks.example.com/keys", family: "v6", wantName: "dnsname/http/jwks.example.com/80/19db52641edba0086e65", wantType: clusterv3.Cluster_STRICT_DNS, wantFamily: clusterv3.Cluster_V6_ONLY, wantPort: 80},
		{name: "all is logical DNS", uri: "https://jwks.example.com/keys", family: "all", wantName: "dnsname/https/jwks.example.com/443/dc185ec2b775ff57222c", wantType: clusterv3.Cluster_LOGICAL_DNS, wantFamily: clusterv3.Cluster_ALL, wantPort: 443, wantTLS: true},
		{name: "IPv6 literal", uri: "https://[2001:db8::1]:8443/keys", wantName: "dnsname/https/2001:db8::1/8443/3529a56da69b0105924d", wantSNI: "2001:db8::1", wantType: clusterv3.Cluster_STRICT_DNS, wantPort: 8443, wantTLS: true},
		{name: "validated", uri: "https://jwks.example.com/keys", validation: true, wantName: "dnsname/https/jwks.example.com/443/45b2c477e0f527bee299", wantType: clusterv3.Cluster_STRICT_DNS, wantPort: 443, wantTLS: true, wantValidated: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jp := jwtRemote("provider-1", tc.uri)
			jp.RemoteJWKS.DNSLookupFamily = tc.family
			if tc.validation {
				jp.RemoteJWKS.UpstreamValidation = &contourv1.UpstreamValidation{CACertificate: "ca", SubjectName: "jwks.internal"}
			}
			res := translateJWT(t, []*contourv1.HTTPProxy{jwtProxy(jwtWithProviders(jp))}, jwtCASecret(t, "default", "ca"))
			if errs := jwtProxyErrors(t, res, "default", "simple"); len(errs) != 0 {
				t.Fatalf("errors = %+v, want none", errs)
			}
			c := jwtCluster(res, tc.wantName)
			if c == nil {
				t.Fatalf("no cluster %s", tc.wantName)
			}
			if c.GetType() != tc.wantType || c.DnsLookupFamily != tc.wantFamily {
				t.Errorf("type/family = %v/%v, want %v/%v", c.GetType(), c.DnsLookupFamily, tc.wantType, tc.wantFamily)
			}
			if c.LoadAssignment.ClusterName != tc.wantName {
				t.Errorf("load_assignment.cluster_name = %q", c.LoadAssignment.ClusterName)
			}
			if got := c.LoadAssignment.Endpoints[0].LbEndpoints[0].GetEndpoint().GetAddress().GetSocketAddress().GetPortValue(); got != tc.wantPort {
				t.Errorf("port = %d, want %d", got, tc.wantPort)
			}
			if (c.TransportSocket != nil) != tc.wantTLS {
				t.Fatalf("transport socket = %v, want TLS %v", c.TransportSocket, tc.wantTLS)
			}
			if !tc.wantTLS {
				return
			}
			ctx := &tlsv3.UpstreamTlsContext{}
			if err := c.TransportSocket.GetTypedConfig().UnmarshalTo(ctx); err != nil {
				t.Fatal(err)
			}
			host := "jwks.example.com"
			if tc.wantSNI != "" {
				host = tc.wantSNI
			}
			if ctx.Sni != host {
				t.Errorf("sni = %q, want %q", ctx.Sni, host)
			}
			vc := ctx.GetCommonTlsContext().GetValidationContext()
			if (vc != nil) != tc.wantValidated {
				t.Fatalf("validation context = %v, want %v", vc, tc.wantValidated)
			}
			if vc != nil {
				want := &tlsv3.CertificateValidationContext{
					TrustedCa: &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: testpki.Certs(t).CertPEM}},
					MatchTypedSubjectAltNames: []*tlsv3.SubjectAltNameMatcher{{
						SanType: tlsv3.SubjectAltNameMatcher_DNS,
						Matcher: &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: "jwks.internal"}},
					}},
				}
				jwtAssertProtoEqual(t, "validation context", want, vc)
			}
		})
	}
}

// jwksJWTExample is the cluster of https://jwt.example.com/... with the
// default DNS family: "dnsname/<scheme>/<host>/<port>/" and the first 10
// bytes, in hex, of the SHA-256 of "https""jwt.example.com""443""auto" (as
// `printf %s '"https""jwt.example.com""443""auto"' | sha256sum` gives it).
// Contour v1.33.8's own tests give 0771aeda175c510932e2 for the same URI
// with the DNS family unset (""), which TestDNSNameClusterNameVectors checks.
const jwksJWTExample = "dnsname/https/jwt.example.com/443/df1d10ce22e19db7e54e"

// Contour v1.33.8's DNSNameClusterName vectors, from its own tests.
func TestDNSNameClusterNameVectors(t *testing.T) {
	caFor := func(ns, name string, subjects ...string) *dag.UpstreamValidation {
		return &dag.UpstreamValidation{CANamespace: ns, CAName: name, SubjectNames: subjects}
	}
	for _, tc := range []struct {
		c    dag.DNSNameCluster
		want string
	}{
		{dag.DNSNameCluster{Scheme: "http", Address: "foo.projectcontour.io", Port: 80, DNSLookupFamily: "auto"}, "dnsname/http/foo.projectcontour.io/80/c1a5cfb578cafae01a91"},
		{dag.DNSNameCluster{Scheme: "http", Address: "foo.projectcontour.io", Port: 80, DNSLookupFamily: "v4"}, "dnsname/http/foo.projectcontour.io/80/23b4f1ac31c67cc50a67"},
		{dag.DNSNameCluster{Scheme: "http", Address: "foo.projectcontour.io", Port: 80, DNSLookupFamily: "all"}, "dnsname/http/foo.projectcontour.io/80/3fc4a884a77ef80f294e"},
		{dag.DNSNameCluster{Scheme: "https", Address: "foo.projectcontour.io", Port: 443, DNSLookupFamily: "auto"}, "dnsname/https/foo.projectcontour.io/443/92e2d87ab4868b426840"},
		{dag.DNSNameCluster{Scheme: "https", Address: "foo.projectcontour.io", Port: 443, DNSLookupFamily: "auto", Validation: caFor("", "", "foo.projectcontour.io")}, "dnsname/https/foo.projectcontour.io/443/4177316d05096dff8011"},
		{dag.DNSNameCluster{Scheme: "https", Address: "jwt.example.com", Port: 443}, "dnsname/https/jwt.example.com/443/0771aeda175c510932e2"},
		{dag.DNSNameCluster{Scheme: "https", Address: "jwt.example.com", Port: 8443}, "dnsname/https/jwt.example.com/8443/f3c7698ae471934ed629"},
	} {
		if got := tc.c.ClusterName(); got != tc.want {
			t.Errorf("%+v: name %q, want %q", tc.c, got, tc.want)
		}
	}
	// Quoting keeps the boundaries: tenant-a/idp-ca is not tenant-ai/dp-ca.
	a := dag.DNSNameCluster{Scheme: "https", Address: "idp", Port: 443, Validation: caFor("tenant-a", "idp-ca", "idp")}
	b := dag.DNSNameCluster{Scheme: "https", Address: "idp", Port: 443, Validation: caFor("tenant-ai", "dp-ca", "idp")}
	if a.ClusterName() == b.ClusterName() {
		t.Errorf("CA Secrets tenant-a/idp-ca and tenant-ai/dp-ca share cluster %s", a.ClusterName())
	}
}

// Providers whose JWKS differ in port, CA or subject names get a cluster
// each, even on one host and from different namespaces (Contour v1.33.8:
// before, the first one's settings served them all); the same settings
// share one.
func TestJWKSClustersPerSettings(t *testing.T) {
	validated := func(ca, subject string) func(*contourv1.JWTProvider) {
		return func(jp *contourv1.JWTProvider) {
			jp.RemoteJWKS.UpstreamValidation = &contourv1.UpstreamValidation{CACertificate: ca, SubjectName: subject}
		}
	}
	provider := func(name, uri string, opts ...func(*contourv1.JWTProvider)) contourv1.JWTProvider {
		jp := jwtRemote(name, uri)
		for _, o := range opts {
			o(&jp)
		}
		return jp
	}
	inNamespace := func(ns, fqdn string, providers ...contourv1.JWTProvider) *contourv1.HTTPProxy {
		return jwtProxy(jwtWithProviders(providers...), func(p *contourv1.HTTPProxy) {
			p.Namespace, p.Spec.VirtualHost.Fqdn = ns, fqdn
		})
	}
	tenantA := inNamespace("tenant-a", "a.example.com",
		provider("p1", "https://idp.example.com/keys", validated("idp-ca", "idp.example.com")),
		provider("p2", "https://idp.example.com:8443/keys"))
	tenantB := inNamespace("tenant-b", "b.example.com",
		provider("p1", "https://idp.example.com/keys", validated("idp-ca", "idp.example.com")),
		provider("p2", "https://idp.example.com:8443/keys"),
		provider("p3", "https://idp.example.com/other", validated("idp-ca", "other.example.com")))
	res := translateJWT(t, []*contourv1.HTTPProxy{tenantB, tenantA},
		jwtCASecret(t, "tenant-a", "idp-ca"), jwtCASecret(t, "tenant-b", "idp-ca"),
		testpki.TLSSecret(t, "tenant-a", "secret"), testpki.TLSSecret(t, "tenant-b", "secret"),
		mkService("tenant-a", "kuard", mkPort("http", 80)), mkService("tenant-b", "kuard", mkPort("http", 80)))
	for _, ns := range []string{"tenant-a", "tenant-b"} {
		if errs := jwtProxyErrors(t, res, ns, "simple"); len(errs) != 0 {
			t.Fatalf("%s: errors = %+v, want none", ns, errs)
		}
	}
	var names []string
	for _, c := range res.Resources.Clusters {
		if strings.HasPrefix(c.Name, "dnsname/") {
			names = append(names, c.Name)
		}
	}
	// Names worked out with sha256sum over the quoted settings, e.g.
	// "https""idp.example.com""443""auto""tenant-a""idp-ca""idp.example.com".
	want := []string{
		"dnsname/https/idp.example.com/443/2e6254b7892ab0eccffc",  // tenant-b's CA, other subject name
		"dnsname/https/idp.example.com/443/8144bd25444f83904ab1",  // tenant-b's CA
		"dnsname/https/idp.example.com/443/b9f0e810276d3185d119",  // tenant-a's CA
		"dnsname/https/idp.example.com/8443/639d4dc172425db4123f", // both tenants: no CA, same settings
	}
	if !slices.Equal(names, want) {
		t.Errorf("JWKS clusters = %q, want %q", names, want)
	}
}

// JWKS clusters are published only for valid secure virtual hosts; a TLS
// virtual host with a TCP proxy is valid (and has no HTTP filters), so its
// providers' clusters are published as in Contour.
func TestJWKSClustersOnlyForValidVirtualHosts(t *testing.T) {
	noRoutes := jwtProxy(jwtWithProviders(jwtRemote("p1", "https://invalid.example.com/keys")), func(p *contourv1.HTTPProxy) {
		p.Spec.Routes[0].Services[0].Port = 0 // ServicePortInvalid: no routes
	})
	tcp := jwtProxy(jwtWithProviders(jwtRemote("p1", "https://tcp.example.com/keys")), func(p *contourv1.HTTPProxy) {
		p.Name, p.Spec.VirtualHost.Fqdn = "tcp", "tcp.example.com"
		p.Spec.TCPProxy = &contourv1.TCPProxy{Services: []contourv1.Service{{Name: "kuard", Port: 80}}}
	})
	res := translateJWT(t, []*contourv1.HTTPProxy{noRoutes, tcp})
	if jwtCluster(res, "dnsname/https/invalid.example.com/443/1295eac4fc2eb888aa3a") != nil {
		t.Errorf("JWKS cluster of an invalid virtual host published")
	}
	if jwtCluster(res, "dnsname/https/tcp.example.com/443/954ca0ee7389c617c15e") == nil {
		t.Errorf("JWKS cluster of the TCP proxy virtual host not published")
	}
}

// jwt_authn comes before ext_authz, as Contour adds them.
func TestJWTFilterBeforeExtAuthz(t *testing.T) {
	h2c := "h2c"
	ext := &contourv1alpha1.ExtensionService{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "authz", Generation: 1},
		Spec: contourv1alpha1.ExtensionServiceSpec{
			Services: []contourv1alpha1.ExtensionServiceTarget{{Name: "authz", Port: 9000}},
			Protocol: &h2c,
		},
	}
	proxy := jwtProxy(jwtWithProviders(jwtRemote("p1", "https://keys.example.com/a")), func(p *contourv1.HTTPProxy) {
		p.Spec.VirtualHost.Authorization = &contourv1.AuthorizationServer{
			ExtensionServiceRef: contourv1.ExtensionServiceReference{Name: "authz"},
		}
	})
	objs := append([]metav1.Object{testpki.TLSSecret(t, "default", "secret"), mkService("default", "authz", mkPort("grpc", 9000)),
		mkEndpointSlice("default", "authz-abc", "authz", []discoveryv1.EndpointPort{mkSlicePort("grpc", 9000)}, mkEndpoint(nil, "10.0.0.2")),
	}, kuardObjects()...)
	in := append(mkObjects(t, objs...),
		loader.Object{Kind: "ExtensionService", Obj: ext, Source: mkSource("ExtensionService", 1)},
		loader.Object{Kind: "HTTPProxy", Obj: proxy, Source: mkSource("HTTPProxy", 1)})
	res, err := Translate(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	validateAllResources(t, res.Resources)
	if errs := jwtProxyErrors(t, res, "default", "simple"); len(errs) != 0 {
		t.Fatalf("errors = %+v, want none", errs)
	}
	names := jwtFilterNames(jwtSecureHCM(t, res, jwtFQDN))
	tail := names[len(names)-3:]
	if want := []string{"envoy.filters.http.jwt_authn", "envoy.filters.http.ext_authz", "router"}; !slices.Equal(tail, want) {
		t.Errorf("last HTTP filters = %q, want %q", tail, want)
	}
}

// A secure virtual host without providers has no jwt_authn filter.
func TestNoJWTFilterWithoutProviders(t *testing.T) {
	res := translateJWT(t, []*contourv1.HTTPProxy{jwtProxy()})
	if cfg := jwtFilterConfig(t, jwtSecureHCM(t, res, jwtFQDN)); cfg != nil {
		t.Errorf("jwt_authn filter without providers: %v", cfg)
	}
	for _, l := range res.Resources.Listeners {
		if l.Name == "ingress_https" && len(l.FilterChains) != 1 {
			t.Errorf("filter chains = %d", len(l.FilterChains))
		}
	}
}

// Included proxies' routes get the root's default provider; a bad policy in
// an included proxy is reported on that proxy and drops its routes.
func TestJWTIncludedRoutes(t *testing.T) {
	def := jwtRemote("provider-1", "https://jwt.example.com/jwks.json")
	def.Default = true
	root := jwtProxy(jwtWithProviders(def), func(p *contourv1.HTTPProxy) {
		p.Spec.Includes = []contourv1.Include{
			{Name: "child", Conditions: []contourv1.MatchCondition{{Prefix: "/child"}}},
			{Name: "bad", Conditions: []contourv1.MatchCondition{{Prefix: "/bad"}}},
		}
	})
	child := &contourv1.HTTPProxy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "child", Generation: 1},
		Spec: contourv1.HTTPProxySpec{Routes: []contourv1.Route{
			{Services: []contourv1.Service{{Name: "kuard", Port: 80}}},
		}},
	}
	bad := child.DeepCopy()
	bad.Name = "bad"
	bad.Spec.Routes[0].JWTVerificationPolicy = &contourv1.JWTVerificationPolicy{Require: "provider-1", Disabled: true}
	res := translateJWT(t, []*contourv1.HTTPProxy{root, child, bad})
	if errs := jwtProxyErrors(t, res, "default", "simple"); len(errs) != 0 {
		t.Errorf("root errors = %+v, want none", errs)
	}
	if errs := jwtProxyErrors(t, res, "default", "bad"); len(errs) != 1 || errs[0].Reason != "InvalidJWTVerificationPolicy" {
		t.Errorf("bad errors = %+v, want InvalidJWTVerificationPolicy", errs)
	}
	rc := jwtRouteConfig(res, "https/"+jwtFQDN)
	if got := jwtRouteRequirement(t, rc, "/child"); got != "provider-1" {
		t.Errorf("/child requirement = %q, want provider-1", got)
	}
	for _, r := range rc.VirtualHosts[0].Routes {
		if r.GetMatch().GetPrefix() == "/bad" {
			t.Errorf("route of the invalid included proxy programmed")
		}
	}
}
