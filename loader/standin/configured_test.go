package standin

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
)

// The objects of the configured Secrets' tests: a fallback certificate
// and a client certificate in projectcontour, what stands for them, and
// what rests on them.
const (
	fallbackCert   = "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: fallback, namespace: projectcontour}\nspec: {secretName: fallback-cert, dnsNames: [fallback.example.com]}\n"
	fallbackSealed = "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata: {name: fallback-cert, namespace: projectcontour}\nspec: {encryptedData: {tls.crt: x, tls.key: y}, template: {type: kubernetes.io/tls}}\n"
	fallbackReal   = "apiVersion: v1\nkind: Secret\nmetadata: {name: fallback-cert, namespace: projectcontour}\ntype: Opaque\ndata: {a: YQ==}\n"
	clientExternal = "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: envoy-client, namespace: projectcontour}\nspec: {target: {template: {type: kubernetes.io/tls}}, data: [{secretKey: tls.crt}, {secretKey: tls.key}]}\n"
	clientSOPS     = "apiVersion: v1\nkind: Secret\nmetadata: {name: envoy-client, namespace: projectcontour}\ntype: kubernetes.io/tls\n" +
		"data: {tls.crt: 'ENC[AES256_GCM,data:eA==,type:str]', tls.key: 'ENC[AES256_GCM,data:eA==,type:str]'}\nsops: {mac: x, version: 3.8.1}\n"
	clientShimIngress = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: issuer\n  namespace: projectcontour\n  annotations: {cert-manager.io/cluster-issuer: le}\n" +
		"spec:\n  tls: [{hosts: [client.example.com], secretName: envoy-client}]\n  rules: [{host: client.example.com}]\n"

	fallbackProxy    = "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: app, namespace: default}\nspec:\n  virtualhost: {fqdn: app.example.com, tls: {secretName: app-tls, enableFallbackCertificate: true}}\n  routes: [{services: [{name: app, port: 80}]}]\n"
	noFallbackProxy  = "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: plain, namespace: default}\nspec:\n  virtualhost: {fqdn: plain.example.com, tls: {secretName: app-tls}}\n  routes: [{services: [{name: app, port: 80}]}]\n"
	passthroughProxy = "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: pass, namespace: default}\nspec:\n  virtualhost: {fqdn: pass.example.com, tls: {passthrough: true, enableFallbackCertificate: true}}\n  tcpproxy: {services: [{name: app, port: 443}]}\n"
	redirectProxy    = "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: redirect, namespace: default}\nspec:\n  virtualhost: {fqdn: redirect.example.com}\n  routes: [{requestRedirectPolicy: {hostname: app.example.com}}]\n"
	backendIngress   = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: default}\nspec:\n  defaultBackend: {service: {name: web, port: {number: 80}}}\n"
	extension        = "apiVersion: projectcontour.io/v1alpha1\nkind: ExtensionService\nmetadata: {name: authz, namespace: default}\nspec:\n  services: [{name: authz, port: 9443}]\n"
)

var (
	fallback = ConfiguredSecret{Namespace: "projectcontour", Name: "fallback-cert", Use: FallbackCertificate}
	client   = ConfiguredSecret{Namespace: "projectcontour", Name: "envoy-client", Use: ClientCertificate}
)

// TestConfiguredSecrets: the Secrets Contour's configuration names get
// stand-ins under the rules of the others, and the report names the
// objects resting on them.
func TestConfiguredSecrets(t *testing.T) {
	mustAssume := func(s string) Assumed {
		a, err := ParseAssumed(s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	clusterSecret := loader.Object{Kind: "Secret", APIVersion: "v1", Obj: &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "projectcontour", Name: "fallback-cert"}, Type: corev1.SecretTypeTLS,
	}}
	onlyDefault := func(obj any) bool { // an instance serving the namespace default alone
		p, ok := obj.(*contourv1.HTTPProxy)
		return !ok || p.Namespace == "default" && p.Name != "app"
	}
	for _, tc := range []struct {
		name string
		opts Options
		docs []string
		// want are the stand-ins made, "ns/name for what", and for
		// each, the objects resting on it.
		want map[string][]Ref
	}{
		{"fallback from a Certificate", Options{Configured: []ConfiguredSecret{fallback}},
			[]string{fallbackCert, fallbackProxy, noFallbackProxy, passthroughProxy},
			map[string][]Ref{"projectcontour/fallback-cert for Certificate projectcontour/fallback": {{"HTTPProxy", "default", "app"}}}},
		{"fallback from a SealedSecret", Options{Configured: []ConfiguredSecret{fallback}},
			[]string{fallbackSealed, fallbackProxy},
			map[string][]Ref{"projectcontour/fallback-cert for SealedSecret projectcontour/fallback-cert": {{"HTTPProxy", "default", "app"}}}},
		{"fallback assumed", Options{Configured: []ConfiguredSecret{fallback}, Assume: []Assumed{mustAssume("projectcontour/fallback-cert:*")}},
			[]string{fallbackProxy},
			map[string][]Ref{"projectcontour/fallback-cert for --assume-secret": {{"HTTPProxy", "default", "app"}}}},
		{"fallback used by no proxy", Options{Configured: []ConfiguredSecret{fallback}},
			[]string{fallbackCert, noFallbackProxy, passthroughProxy}, nil},
		{"fallback not configured", Options{},
			[]string{fallbackCert, fallbackProxy}, nil},
		{"fallback stood for by nothing", Options{Configured: []ConfiguredSecret{fallback}},
			[]string{fallbackProxy}, nil},
		{"fallback in the input", Options{Configured: []ConfiguredSecret{fallback}},
			[]string{fallbackCert, fallbackReal, fallbackProxy}, nil},
		{"fallback in the cluster context", Options{Configured: []ConfiguredSecret{fallback}, Cluster: []loader.Object{clusterSecret}},
			[]string{fallbackCert, fallbackProxy}, nil},
		{"stand-ins off", Options{Disabled: true, Configured: []ConfiguredSecret{fallback, client}},
			[]string{fallbackCert, fallbackProxy, clientExternal, backendIngress}, nil},
		{"fallback of another instance", Options{Configured: []ConfiguredSecret{{Namespace: "projectcontour", Name: "fallback-cert", Use: FallbackCertificate, Served: onlyDefault}}},
			[]string{fallbackCert, fallbackProxy}, nil},
		{"proxy Contour does not serve", Options{Configured: []ConfiguredSecret{fallback}, Served: onlyDefault},
			[]string{fallbackCert, fallbackProxy}, nil},
		{"client certificate from an ExternalSecret", Options{Configured: []ConfiguredSecret{client}},
			[]string{clientExternal, fallbackProxy, passthroughProxy, redirectProxy, backendIngress, extension},
			map[string][]Ref{"projectcontour/envoy-client for ExternalSecret projectcontour/envoy-client": {
				{"ExtensionService", "default", "authz"}, {"HTTPProxy", "default", "app"}, {"HTTPProxy", "default", "pass"}, {"Ingress", "default", "web"},
			}}},
		{"client certificate from SOPS", Options{Configured: []ConfiguredSecret{client}},
			[]string{clientSOPS, extension},
			map[string][]Ref{"projectcontour/envoy-client for SOPS-encrypted Secret projectcontour/envoy-client": {{"ExtensionService", "default", "authz"}}}},
		// The shim's Ingress refers to the Secret by its TLS entry; the
		// other Ingress rests on it as the client certificate.
		{"client certificate from a shim annotation", Options{Configured: []ConfiguredSecret{client}},
			[]string{clientShimIngress, backendIngress},
			map[string][]Ref{"projectcontour/envoy-client for Ingress projectcontour/issuer": {{"Ingress", "default", "web"}, {"Ingress", "projectcontour", "issuer"}}}},
		{"client certificate used by nothing", Options{Configured: []ConfiguredSecret{client}},
			[]string{clientExternal, redirectProxy}, nil},
		{"both", Options{Configured: []ConfiguredSecret{fallback, client}},
			[]string{fallbackCert, clientExternal, fallbackProxy},
			map[string][]Ref{
				"projectcontour/envoy-client for ExternalSecret projectcontour/envoy-client": {{"HTTPProxy", "default", "app"}},
				"projectcontour/fallback-cert for Certificate projectcontour/fallback":       {{"HTTPProxy", "default", "app"}},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, report := load(t, tc.opts, tc.docs...)
			got := map[string][]Ref{}
			for _, s := range report.StandIns {
				key := s.Namespace + "/" + s.Name + " for " + s.For
				got[key] = []Ref{}
				for from, list := range report.ByObject {
					if slices.Contains(list, s) {
						got[key] = append(got[key], from)
					}
				}
				slices.SortFunc(got[key], func(a, b Ref) int { return strings.Compare(a.String(), b.String()) })
				secretOf(t, res, s.Namespace, s.Name) // made, and marked
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) && (len(got) > 0 || len(tc.want) > 0) {
				t.Errorf("stand-ins and what rests on them:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// A configured Secret's stand-in is for no host of the objects resting on
// it (they have certificates of their own), and its key is derived from
// what it stands for, the same from run to run.
func TestConfiguredSecretDeterministic(t *testing.T) {
	opts := Options{Configured: []ConfiguredSecret{fallback}, Assume: []Assumed{{Namespace: "projectcontour", Name: "fallback-cert"}}}
	first, _ := load(t, opts, fallbackProxy)
	second, _ := load(t, opts, fallbackProxy, noFallbackProxy)
	a, b := secretOf(t, first, "projectcontour", "fallback-cert"), secretOf(t, second, "projectcontour", "fallback-cert")
	if !bytes.Equal(a.Data[corev1.TLSPrivateKeyKey], b.Data[corev1.TLSPrivateKeyKey]) || !bytes.Equal(a.Data[corev1.TLSCertKey], b.Data[corev1.TLSCertKey]) {
		t.Error("the fallback certificate's stand-in differs from run to run")
	}
	if c := certOf(t, a); len(c.DNSNames) != 0 {
		t.Errorf("the fallback certificate's stand-in is for %v", c.DNSNames)
	}
}

func TestSecretUseString(t *testing.T) {
	if FallbackCertificate.String() != "fallback certificate" || ClientCertificate.String() != "client certificate" || SecretUse(0).String() != "unknown use" {
		t.Error(FallbackCertificate, ClientCertificate, SecretUse(0))
	}
}
