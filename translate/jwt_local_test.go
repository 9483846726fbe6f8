package translate

// Local JWKS (a JWT provider's localJWKS, an extension field the published
// API module lacks): Contour's source checks and Secret validation, with
// its reasons and messages, and the inlined local_jwks.

import (
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/internal/testpki"
)

// jwksDoc is a JWKS with one (public) RSA key.
const jwksDoc = `{"keys":[{"kty":"RSA","kid":"k1","alg":"RS256","n":"sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw","e":"AQAB"}]}`

// jwksSecret is an Opaque Secret default/jwks holding data in key.
func jwksSecret(key, data string) *corev1.Secret {
	return testpki.Secret("default", "jwks", corev1.SecretTypeOpaque, map[string][]byte{key: []byte(data)})
}

// translateLocalJWKS is translateJWT with the proxy's localJWKS extension
// fields, by provider index.
func translateLocalJWKS(t *testing.T, proxy *contourv1.HTTPProxy, local map[int]*loader.LocalJWKS, extra ...metav1.Object) *Result {
	t.Helper()
	objs := append([]metav1.Object{testpki.TLSSecret(t, "default", "secret")}, kuardObjects()...)
	in := mkObjects(t, append(objs, extra...)...)
	o := loader.Object{Kind: "HTTPProxy", Obj: proxy, Source: mkSource("HTTPProxy", 1)}
	if local != nil {
		o.Extensions = &loader.Extensions{LocalJWKS: local}
	}
	res, err := Translate(append(in, o), Options{})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	validateAllResources(t, res.Resources)
	return res
}

func TestLocalJWKSErrors(t *testing.T) {
	ref := map[int]*loader.LocalJWKS{0: {SecretName: "jwks", Key: "jwks.json"}}
	provider := jwtProxy(jwtWithProviders(contourv1.JWTProvider{Name: "provider-1"}))
	const invalid = `Spec.VirtualHost.JWTProviders.LocalJWKS for provider "provider-1" is invalid: `
	tests := []struct {
		name   string
		proxy  *contourv1.HTTPProxy
		local  map[int]*loader.LocalJWKS
		secret *corev1.Secret
		reason string
		msg    string
	}{
		{"both sources", jwtProxy(jwtWithProviders(jwtRemote("provider-1", "https://jwt.example.com/jwks.json"))), ref, jwksSecret("jwks.json", jwksDoc),
			"JWKSSourceConflict", `Spec.VirtualHost.JWTProviders for provider "provider-1" is invalid: at most one of remoteJWKS or localJWKS may be set`},
		{"neither source", provider, nil, jwksSecret("jwks.json", jwksDoc),
			"JWKSSourceMissing", `Spec.VirtualHost.JWTProviders for provider "provider-1" is invalid: exactly one of remoteJWKS or localJWKS must be set`},
		{"local JWKS of another provider", provider, map[int]*loader.LocalJWKS{1: ref[0]}, jwksSecret("jwks.json", jwksDoc),
			"JWKSSourceMissing", `Spec.VirtualHost.JWTProviders for provider "provider-1" is invalid: exactly one of remoteJWKS or localJWKS must be set`},
		{"secret missing", provider, ref, nil, "LocalJWKSInvalid", invalid + "Secret not found"},
		{"secret in another namespace", provider, ref,
			testpki.Secret("other", "jwks", corev1.SecretTypeOpaque, map[string][]byte{"jwks.json": []byte(jwksDoc)}), "LocalJWKSInvalid", invalid + "Secret not found"},
		{"wrong secret type", provider, ref,
			testpki.Secret("default", "jwks", corev1.SecretTypeTLS, map[string][]byte{"jwks.json": []byte(jwksDoc)}), "LocalJWKSInvalid", invalid + `secret type is not "Opaque"`},
		{"key missing", provider, ref, jwksSecret("keys.json", jwksDoc), "LocalJWKSInvalid", invalid + `missing "jwks.json" key or empty value`},
		{"empty value", provider, ref, jwksSecret("jwks.json", ""), "LocalJWKSInvalid", invalid + `missing "jwks.json" key or empty value`},
		{"blank value", provider, ref, jwksSecret("jwks.json", " \n\t"), "LocalJWKSInvalid", invalid + "empty JWKS"},
		{"not JSON", provider, ref, jwksSecret("jwks.json", "Q9{"), "LocalJWKSInvalid", invalid + "not valid JSON: invalid character at offset 1"},
		{"truncated JSON", provider, ref, jwksSecret("jwks.json", `{"keys": [`), "LocalJWKSInvalid", invalid + "not valid JSON: unexpected end of JSON input"},
		{"not UTF-8", provider, ref, jwksSecret("jwks.json", "{\"keys\":[\"\xff\"]}"), "LocalJWKSInvalid", invalid + "not valid JSON: invalid UTF-8"},
		{"not an object", provider, ref, jwksSecret("jwks.json", `[{"keys":[]}]`), "LocalJWKSInvalid", invalid + "JWKS must be a JSON object"},
		{"no keys array", provider, ref, jwksSecret("jwks.json", `{"kty":"RSA","n":"x","e":"AQAB"}`), "LocalJWKSInvalid", invalid + `JWKS must contain a "keys" array`},
		{"keys not an array", provider, ref, jwksSecret("jwks.json", `{"keys":{"kty":"RSA"}}`), "LocalJWKSInvalid", invalid + `JWKS "keys" must be an array`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var extra []metav1.Object
			if tc.secret != nil {
				extra = append(extra, tc.secret)
			}
			res := translateLocalJWKS(t, tc.proxy, tc.local, extra...)
			errs := jwtProxyErrors(t, res, "default", "simple")
			if len(errs) != 1 {
				t.Fatalf("errors = %+v, want exactly one", errs)
			}
			e := errs[0]
			if e.Type != "JWTVerificationError" || e.Reason != tc.reason || e.Message != tc.msg {
				t.Errorf("error = %s/%s %q, want JWTVerificationError/%s %q", e.Type, e.Reason, e.Message, tc.reason, tc.msg)
			}
			if jwtRouteConfig(res, "https/"+jwtFQDN) != nil {
				t.Errorf("secure route configuration published for an invalid proxy")
			}
			// Secret data is never quoted back.
			if strings.Contains(e.Message, "Q9") || strings.Contains(e.Message, "\xff") {
				t.Errorf("message quotes the Secret's data: %q", e.Message)
			}
		})
	}
}

// TestLocalJWKSProvider: a local JWKS is inlined as Contour inlines it, the
// Secret's bytes as they are; a remote provider beside it keeps its cluster.
func TestLocalJWKSProvider(t *testing.T) {
	local := jwksDoc + "\n"
	proxy := jwtProxy(
		jwtWithProviders(
			contourv1.JWTProvider{Name: "local", Issuer: "issuer.example.com", Audiences: []string{"app"}, ForwardJWT: true, Default: true},
			jwtRemote("remote", "https://jwt.example.com/jwks.json"),
		),
		jwtWithRoute("/remote", &contourv1.JWTVerificationPolicy{Require: "remote"}),
	)
	res := translateLocalJWKS(t, proxy, map[int]*loader.LocalJWKS{0: {SecretName: "jwks", Key: "jwks.json"}}, jwksSecret("jwks.json", local))
	if errs := jwtProxyErrors(t, res, "default", "simple"); len(errs) != 0 {
		t.Fatalf("errors: %+v", errs)
	}
	cfg := jwtFilterConfig(t, jwtSecureHCM(t, res, jwtFQDN))
	if cfg == nil {
		t.Fatal("no jwt_authn filter")
	}
	p := cfg.Providers["local"]
	if got := p.GetLocalJwks().GetInlineString(); got != local {
		t.Errorf("local_jwks.inline_string = %q, want the Secret's value", got)
	}
	if p.Issuer != "issuer.example.com" || len(p.Audiences) != 1 || !p.Forward {
		t.Errorf("provider %v", p)
	}
	if cfg.Providers["remote"].GetRemoteJwks() == nil || cfg.RequirementMap["local"].GetProviderName() != "local" {
		t.Errorf("jwt_authn %v", cfg)
	}
	rc := jwtRouteConfig(res, "https/"+jwtFQDN)
	if got := jwtRouteRequirement(t, rc, "/"); got != "local" {
		t.Errorf("/ requires %q, want the default provider", got)
	}
	if got := jwtRouteRequirement(t, rc, "/remote"); got != "remote" {
		t.Errorf("/remote requires %q", got)
	}
	if jwtCluster(res, jwksJWTExample) == nil {
		t.Errorf("no cluster for the remote provider")
	}
}
