package translate

// HTTP authorization servers (serviceType: http and httpSettings, extension
// fields the published API module lacks): Contour's checks and reasons
// (internal/dag/httpproxy_processor.go NewExternalAuthorization,
// internal/dag/conditions.go ExternalAuthAllowedHeadersValid) and its
// ext_authz http_service (internal/envoy/v3/listener.go).

import (
	"strings"
	"testing"

	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	"google.golang.org/protobuf/proto"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/internal/testpki"
)

// pxTranslateExt is pxTranslate with extension fields for the HTTPProxies
// named in ext.
func pxTranslateExt(t testing.TB, opts Options, ext map[string]*loader.Extensions, items ...any) *Result {
	t.Helper()
	in := pxObjects(t, pxFlat(items...)...)
	for i := range in {
		if p, ok := in[i].Obj.(*contourv1.HTTPProxy); ok {
			in[i].Extensions = ext[p.Name]
		}
	}
	res, err := Translate(in, opts)
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	validateAllResources(t, res.Resources)
	return res
}

// httpAuth is the extension fields of an HTTP authorization server.
func httpAuth(settings *loader.HTTPAuthorizationSettings) map[string]*loader.Extensions {
	return map[string]*loader.Extensions{"root": {Authorization: &loader.AuthorizationExtensions{ServiceType: "http", HTTPSettings: settings}}}
}

// httpAuthObjects are kuard, the TLS Secret, and ExtensionService
// auth/authz (response timeout 2s) and auth/notimeout.
func httpAuthObjects(t testing.TB) []any {
	return []any{pxBackend("default", "kuard"), pxBackend("auth", "authz"), testpki.TLSSecret(t, "default", "tls"),
		pxExtension("auth", "authz", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("authz"), TimeoutPolicy: &contourv1.TimeoutPolicy{Response: "2s"}}),
		pxExtension("auth", "notimeout", contourv1alpha1.ExtensionServiceSpec{Services: pxTargets("authz")})}
}

// httpAuthRoot is default/root over TLS with authorization server a (its
// extension defaults to auth/authz) and a route to kuard.
func httpAuthRoot(a contourv1.AuthorizationServer, opts ...pxOpt) *contourv1.HTTPProxy {
	if a.ExtensionServiceRef.Name == "" {
		a.ExtensionServiceRef = contourv1.ExtensionServiceReference{Namespace: "auth", Name: "authz"}
	}
	base := []pxOpt{pxTLSSecret("tls"), pxVhost(func(vh *contourv1.VirtualHost) { vh.Authorization = &a }), pxRoutes(pxRouteTo(pxSvc("kuard", 80)))}
	return pxRoot(append(base, opts...)...)
}

// extAuthzOf returns the ext_authz filter of example.com's secure chain.
func extAuthzOf(t testing.TB, res *Result) *extauthzv3.ExtAuthz {
	t.Helper()
	for _, f := range chainHCM(t, sniChain(findListener(res, "ingress_https"), "example.com")).HttpFilters {
		if f.Name == "envoy.filters.http.ext_authz" {
			cfg := &extauthzv3.ExtAuthz{}
			if err := f.GetTypedConfig().UnmarshalTo(cfg); err != nil {
				t.Fatal(err)
			}
			return cfg
		}
	}
	t.Fatal("no ext_authz filter on example.com")
	return nil
}

func TestHTTPAuthorizationErrors(t *testing.T) {
	ctx := &contourv1.AuthorizationPolicy{Context: map[string]string{"k": "v"}}
	headers := func(auth []loader.AllowedHeader, upstream ...loader.AllowedHeader) *loader.HTTPAuthorizationSettings {
		return &loader.HTTPAuthorizationSettings{AllowedAuthorizationHeaders: auth, AllowedUpstreamHeaders: upstream}
	}
	one := func(h loader.AllowedHeader) []loader.AllowedHeader { return []loader.AllowedHeader{h} }
	const (
		authHeaders     = "AuthError/AuthBadAllowedHeader: Spec.Virtualhost.Authorization.HTTPServerSettings.AllowedAuthorizationHeaders is invalid: "
		upstreamHeaders = "AuthError/AuthBadAllowedHeader: Spec.Virtualhost.Authorization.HTTPServerSettings.AllowedUpstreamHeaders is invalid: "
		noneSet         = "one of prefix, suffix, exact or contains is required for each allowedHeader"
		twoSet          = "only one of prefix, suffix, exact, and contains should be set in the allowedHeader"
	)
	grpc := func(settings *loader.HTTPAuthorizationSettings) map[string]*loader.Extensions {
		return map[string]*loader.Extensions{"root": {Authorization: &loader.AuthorizationExtensions{ServiceType: "grpc", HTTPSettings: settings}}}
	}
	tests := []struct {
		name   string
		auth   contourv1.AuthorizationServer
		ext    map[string]*loader.Extensions
		status pxWant
	}{
		{"context with HTTP", contourv1.AuthorizationServer{AuthPolicy: ctx}, httpAuth(nil),
			pxInvalid("AuthError/AuthContextForHTTP: Spec.Virtualhost.Authorization.AuthPolicy.Context are only applied to grpc service type")},
		{"context with gRPC", contourv1.AuthorizationServer{AuthPolicy: ctx}, grpc(nil), pxValid()},
		{"disabled policy without context with HTTP", contourv1.AuthorizationServer{AuthPolicy: &contourv1.AuthorizationPolicy{Disabled: true}}, httpAuth(nil), pxValid()},
		{"header matcher with nothing set", contourv1.AuthorizationServer{}, httpAuth(headers([]loader.AllowedHeader{{Exact: "a"}, {IgnoreCase: true}})),
			pxInvalid(authHeaders + noneSet)},
		{"header matcher with two set", contourv1.AuthorizationServer{}, httpAuth(headers(nil, loader.AllowedHeader{Prefix: "x-", Suffix: "-id"})),
			pxInvalid(upstreamHeaders + twoSet)},
		{"authorization headers checked first", contourv1.AuthorizationServer{}, httpAuth(headers([]loader.AllowedHeader{{Exact: "a", Contains: "b"}}, loader.AllowedHeader{})),
			pxInvalid(authHeaders + twoSet)},
		// Contour checks httpSettings whatever the protocol.
		{"bad header matcher with gRPC", contourv1.AuthorizationServer{}, grpc(headers(one(loader.AllowedHeader{}))),
			pxInvalid(authHeaders + noneSet)},
		{"context checked before headers", contourv1.AuthorizationServer{AuthPolicy: ctx}, httpAuth(headers(one(loader.AllowedHeader{}))),
			pxInvalid("AuthError/AuthContextForHTTP: Spec.Virtualhost.Authorization.AuthPolicy.Context are only applied to grpc service type")},
		{"bad timeout checked before the context", contourv1.AuthorizationServer{AuthPolicy: ctx, ResponseTimeout: "soon"}, httpAuth(nil),
			pxInvalid(`AuthError/AuthResponseTimeoutInvalid: Spec.Virtualhost.Authorization.ResponseTimeout is invalid: unable to parse timeout string "soon": time: invalid duration "soon"`)},
		{"unknown extension checked before the headers", contourv1.AuthorizationServer{ExtensionServiceRef: contourv1.ExtensionServiceReference{Name: "x"}}, httpAuth(headers(one(loader.AllowedHeader{}))),
			pxInvalid(`AuthError/ExtensionServiceNotFound: Spec.Virtualhost.Authorization.ServiceRef extension service "default/x" not found`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pxTranslateExt(t, Options{}, tt.ext, append(httpAuthObjects(t), httpAuthRoot(tt.auth))...)
			pxCheck(t, res, "default", "root", tt.status)
			if served := sniChain(findListener(res, "ingress_https"), "example.com") != nil; served != (tt.status.current == "valid") {
				t.Errorf("example.com served over TLS: %v", served)
			}
		})
	}
}

// TestHTTPAuthorizationFilter: serviceType http makes an http_service on
// the extension's cluster, with the path prefix and header matchers, and a
// route's own context still reaches check_settings, as in Contour.
func TestHTTPAuthorizationFilter(t *testing.T) {
	settings := &loader.HTTPAuthorizationSettings{
		PathPrefix:                  "/verify",
		AllowedAuthorizationHeaders: []loader.AllowedHeader{{Exact: "x-user"}, {Prefix: "x-auth-", IgnoreCase: true}},
		AllowedUpstreamHeaders:      []loader.AllowedHeader{{Suffix: "-id"}, {Contains: "token", IgnoreCase: true}},
	}
	root := httpAuthRoot(contourv1.AuthorizationServer{FailOpen: true, WithRequestBody: &contourv1.AuthorizationServerBufferSettings{MaxRequestBytes: 2048}},
		pxRoutes(pxRouteTo(pxSvc("kuard", 80)),
			pxEdit(pxRoute(pxConds(pxPrefix("/ctx")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
				r.AuthPolicy = &contourv1.AuthorizationPolicy{Context: map[string]string{"route": "ctx"}}
			}),
			pxEdit(pxRoute(pxConds(pxPrefix("/public")), pxSvc("kuard", 80)), func(r *contourv1.Route) {
				r.AuthPolicy = &contourv1.AuthorizationPolicy{Disabled: true}
			})))
	res := pxTranslateExt(t, Options{}, httpAuth(settings), append(httpAuthObjects(t), root)...)
	pxCheck(t, res, "default", "root", pxValid())
	cfg := extAuthzOf(t, res)
	hs := cfg.GetHttpService()
	if hs == nil || cfg.GetGrpcService() != nil {
		t.Fatalf("ext_authz %v: want an http_service only", cfg)
	}
	uri := hs.ServerUri
	if uri.Uri != "http://dummy/" || uri.GetCluster() != "extension/auth/authz" || pxDur(uri.Timeout) != "2s" || hs.PathPrefix != "/verify" {
		t.Errorf("http_service %v", hs)
	}
	m := func(ignoreCase bool, set func(*matcherv3.StringMatcher)) *matcherv3.StringMatcher {
		out := &matcherv3.StringMatcher{IgnoreCase: ignoreCase}
		set(out)
		return out
	}
	wantAllowed := []*matcherv3.StringMatcher{
		m(false, func(s *matcherv3.StringMatcher) { s.MatchPattern = &matcherv3.StringMatcher_Exact{Exact: "x-user"} }),
		m(true, func(s *matcherv3.StringMatcher) { s.MatchPattern = &matcherv3.StringMatcher_Prefix{Prefix: "x-auth-"} }),
	}
	wantUpstream := []*matcherv3.StringMatcher{
		m(false, func(s *matcherv3.StringMatcher) { s.MatchPattern = &matcherv3.StringMatcher_Suffix{Suffix: "-id"} }),
		m(true, func(s *matcherv3.StringMatcher) {
			s.MatchPattern = &matcherv3.StringMatcher_Contains{Contains: "token"}
		}),
	}
	if !proto.Equal(cfg.AllowedHeaders, &matcherv3.ListStringMatcher{Patterns: wantAllowed}) {
		t.Errorf("allowed_headers %v", cfg.AllowedHeaders)
	}
	if !proto.Equal(hs.AuthorizationResponse.GetAllowedUpstreamHeaders(), &matcherv3.ListStringMatcher{Patterns: wantUpstream}) {
		t.Errorf("allowed_upstream_headers %v", hs.AuthorizationResponse)
	}
	if !cfg.FailureModeAllow || !cfg.ClearRouteCache || !cfg.IncludePeerCertificate || cfg.StatusOnError.GetCode() != 403 || cfg.WithRequestBody.GetMaxRequestBytes() != 2048 {
		t.Errorf("ext_authz %v", cfg)
	}
	secure := pxRoutesOf(res, "https/example.com", "example.com")
	if tpfc := mustRouteWithMatch(t, secure, wantPrefix("/")).TypedPerFilterConfig; tpfc["envoy.filters.http.ext_authz"] != nil {
		t.Errorf("/ has an ext_authz override")
	}
	perRoute := pxUnpack(t, mustRouteWithMatch(t, secure, wantPrefix("/ctx")).TypedPerFilterConfig, "envoy.filters.http.ext_authz", &extauthzv3.ExtAuthzPerRoute{})
	if got := perRoute.GetCheckSettings().GetContextExtensions(); len(got) != 1 || got["route"] != "ctx" {
		t.Errorf("/ctx context %v", got)
	}
	public := pxUnpack(t, mustRouteWithMatch(t, secure, wantPrefix("/public")).TypedPerFilterConfig, "envoy.filters.http.ext_authz", &extauthzv3.ExtAuthzPerRoute{})
	if !public.GetDisabled() {
		t.Errorf("/public not disabled")
	}
}

// TestHTTPAuthorizationDefaults: without settings or any timeout the
// server_uri waits 0s (Envoy: no timeout); gRPC servers ignore httpSettings.
func TestHTTPAuthorizationDefaults(t *testing.T) {
	t.Run("no settings, no timeout", func(t *testing.T) {
		root := httpAuthRoot(contourv1.AuthorizationServer{ExtensionServiceRef: contourv1.ExtensionServiceReference{Namespace: "auth", Name: "notimeout"}})
		res := pxTranslateExt(t, Options{}, httpAuth(nil), append(httpAuthObjects(t), root)...)
		hs := extAuthzOf(t, res).GetHttpService()
		if hs == nil || pxDur(hs.ServerUri.Timeout) != "0s" || hs.PathPrefix != "" || hs.AuthorizationResponse != nil {
			t.Errorf("http_service %v", hs)
		}
	})
	t.Run("gRPC ignores httpSettings", func(t *testing.T) {
		ext := map[string]*loader.Extensions{"root": {Authorization: &loader.AuthorizationExtensions{ServiceType: "grpc",
			HTTPSettings: &loader.HTTPAuthorizationSettings{PathPrefix: "/x", AllowedUpstreamHeaders: []loader.AllowedHeader{{Exact: "a"}}}}}}
		res := pxTranslateExt(t, Options{}, ext, append(httpAuthObjects(t), httpAuthRoot(contourv1.AuthorizationServer{}))...)
		cfg := extAuthzOf(t, res)
		if cfg.GetGrpcService() == nil || cfg.AllowedHeaders != nil || cfg.GetHttpService() != nil {
			t.Errorf("ext_authz %v: want Contour's gRPC service only", cfg)
		}
	})
}

// TestGlobalHTTPAuthorization: the configuration's globalExtAuth with
// serviceType http checks the plain listener and secure virtual hosts
// without their own server; what Contour refuses at start-up is an error.
func TestGlobalHTTPAuthorization(t *testing.T) {
	const file = "globalExtAuth:\n  extensionService: projectcontour/authz\n  serviceType: http\n"
	t.Run("filter", func(t *testing.T) {
		cfg := configFileText(file + "  httpSettings: {pathPrefix: /check, allowedUpstreamHeaders: [{exact: x-user}]}\n")
		res, err := Translate(configInputs(t, ""), Options{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		validateAllResources(t, res.Resources)
		n := 0
		for _, l := range res.Resources.Listeners {
			for _, fc := range l.FilterChains {
				for _, f := range chainHCM(t, fc).HttpFilters {
					if f.Name != "envoy.filters.http.ext_authz" {
						continue
					}
					a := &extauthzv3.ExtAuthz{}
					if err := f.GetTypedConfig().UnmarshalTo(a); err != nil {
						t.Fatal(err)
					}
					hs := a.GetHttpService()
					if hs.GetPathPrefix() != "/check" || hs.GetServerUri().GetCluster() != "extension/projectcontour/authz" ||
						len(hs.GetAuthorizationResponse().GetAllowedUpstreamHeaders().GetPatterns()) != 1 {
						t.Errorf("%s: ext_authz %v", l.Name, a)
					}
					n++
				}
			}
		}
		if n < 2 {
			t.Errorf("%d ext_authz filters, want one on ingress_http and on each secure virtual host", n)
		}
	})
	for _, tc := range []struct{ name, text, want string }{
		{"context", file + "  authPolicy: {context: {k: v}}\n",
			"globalExtAuth: Spec.Virtualhost.Authorization.AuthPolicy.Context are only applied to grpc service type"},
		{"header matcher", file + "  httpSettings: {allowedAuthorizationHeaders: [{exact: a, prefix: b}]}\n",
			"globalExtAuth: Spec.Virtualhost.Authorization.HTTPServerSettings.AllowedAuthorizationHeaders is invalid: only one of prefix, suffix, exact, and contains should be set in the allowedHeader"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Translate(configInputs(t, ""), Options{Config: configFileText(tc.text)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("ContourConfiguration", func(t *testing.T) {
		crd := "apiVersion: projectcontour.io/v1alpha1\nkind: ContourConfiguration\nmetadata: {name: contour, namespace: projectcontour}\nspec:\n" +
			"  globalExtAuth:\n    extensionRef: {namespace: projectcontour, name: authz}\n    serviceType: http\n    httpSettings: {pathPrefix: /crd}\n"
		res, err := Translate(configInputs(t, crd), Options{ContourConfiguration: testCRDName})
		if err != nil {
			t.Fatal(err)
		}
		validateAllResources(t, res.Resources)
		for _, f := range chainHCM(t, findListener(res, "ingress_http").FilterChains[0]).HttpFilters {
			if f.Name == "envoy.filters.http.ext_authz" {
				a := &extauthzv3.ExtAuthz{}
				_ = f.GetTypedConfig().UnmarshalTo(a)
				if a.GetHttpService().GetPathPrefix() != "/crd" {
					t.Errorf("ext_authz %v", a)
				}
				return
			}
		}
		t.Error("no ext_authz filter on ingress_http")
	})
	t.Run("ContourConfiguration with a context", func(t *testing.T) {
		crd := "apiVersion: projectcontour.io/v1alpha1\nkind: ContourConfiguration\nmetadata: {name: contour, namespace: projectcontour}\nspec:\n" +
			"  globalExtAuth:\n    extensionRef: {namespace: projectcontour, name: authz}\n    serviceType: http\n    authPolicy: {context: {k: v}}\n"
		_, err := Translate(configInputs(t, crd), Options{ContourConfiguration: testCRDName})
		if err == nil || !strings.Contains(err.Error(), "AuthPolicy.Context are only applied to grpc service type") {
			t.Errorf("error %v", err)
		}
	})
}
