package standin

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/contourc/contourc/loader"
)

// load reads the YAML documents given, each in a file of its own, in
// the order given, and applies stand-ins.
func load(t *testing.T, opts Options, docs ...string) (*loader.Result, *Report) {
	t.Helper()
	dir := t.TempDir()
	for i, d := range docs {
		// Names that sort against the order given: the file order must
		// not matter.
		name := filepath.Join(dir, string(rune('z'-i))+".yaml")
		if err := os.WriteFile(name, []byte(d), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res, err := loader.Load([]string{dir}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	report, err := Apply(res, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, report
}

func secretOf(t *testing.T, res *loader.Result, ns, name string) *corev1.Secret {
	t.Helper()
	for _, o := range res.Objects {
		if s, ok := o.Obj.(*corev1.Secret); ok && s.Namespace == ns && s.Name == name {
			if o.StandIn == "" || s.Annotations[AnnotationStandIn] != o.StandIn {
				t.Errorf("Secret %s/%s is not marked as a stand-in: %q", ns, name, o.StandIn)
			}
			return s
		}
	}
	t.Fatalf("no Secret %s/%s among %d objects", ns, name, len(res.Objects))
	return nil
}

func certOf(t *testing.T, s *corev1.Secret) *x509.Certificate {
	t.Helper()
	b, _ := pem.Decode(s.Data[corev1.TLSCertKey])
	if b == nil {
		t.Fatalf("Secret %s/%s: no certificate in tls.crt", s.Namespace, s.Name)
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Subject.Organization, []string{Organization}) {
		t.Errorf("subject organization %v, want %q", c.Subject.Organization, Organization)
	}
	if c.NotBefore != notBefore || !c.NotAfter.Equal(notAfter) {
		t.Errorf("validity %s to %s", c.NotBefore, c.NotAfter)
	}
	return c
}

const proxy = `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: web, namespace: web}
spec:
  virtualhost:
    fqdn: web.example.com
    tls: {secretName: SECRET}
  routes:
  - services: [{name: web, port: 80}]
`

func proxyFor(secret string) string { return strings.ReplaceAll(proxy, "SECRET", secret) }

func TestCertificate(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		check      func(*testing.T, *x509.Certificate, *pem.Block)
	}{
		{"v1 ECDSA 384", `apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web, namespace: web}
spec:
  secretName: web-tls
  commonName: web.example.com
  dnsNames: [web.example.com, www.example.com]
  ipAddresses: [192.0.2.1]
  privateKey: {algorithm: ECDSA, size: 384}
`, func(t *testing.T, c *x509.Certificate, key *pem.Block) {
			if c.Subject.CommonName != "web.example.com" || !slices.Equal(c.DNSNames, []string{"web.example.com", "www.example.com"}) ||
				len(c.IPAddresses) != 1 || c.IPAddresses[0].String() != "192.0.2.1" {
				t.Errorf("names: CN %q, DNS %v, IP %v", c.Subject.CommonName, c.DNSNames, c.IPAddresses)
			}
			pub, ok := c.PublicKey.(*ecdsa.PublicKey)
			if !ok || pub.Curve.Params().BitSize != 384 || key.Type != "EC PRIVATE KEY" {
				t.Errorf("key %T, %s", c.PublicKey, key.Type)
			}
		}},
		{"v1 default RSA 2048", `apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web, namespace: web}
spec: {secretName: web-tls, dnsNames: [web.example.com]}
`, func(t *testing.T, c *x509.Certificate, key *pem.Block) {
			pub, ok := c.PublicKey.(*rsa.PublicKey)
			if !ok || pub.N.BitLen() != 2048 || key.Type != "RSA PRIVATE KEY" {
				t.Errorf("key %T, %s", c.PublicKey, key.Type)
			}
		}},
		{"v1alpha2 rsa pkcs8", `apiVersion: cert-manager.io/v1alpha2
kind: Certificate
metadata: {name: web, namespace: web}
spec: {secretName: web-tls, dnsNames: [web.example.com], keyAlgorithm: rsa, keySize: 3072, keyEncoding: pkcs8}
`, func(t *testing.T, c *x509.Certificate, key *pem.Block) {
			pub, ok := c.PublicKey.(*rsa.PublicKey)
			if !ok || pub.N.BitLen() != 3072 || key.Type != "PRIVATE KEY" {
				t.Errorf("key %T, %s", c.PublicKey, key.Type)
			}
		}},
		{"v1beta1 Ed25519", `apiVersion: cert-manager.io/v1beta1
kind: Certificate
metadata: {name: web, namespace: web}
spec: {secretName: web-tls, dnsNames: [web.example.com], privateKey: {algorithm: Ed25519}}
`, func(t *testing.T, c *x509.Certificate, key *pem.Block) {
			if _, ok := c.PublicKey.(ed25519.PublicKey); !ok || key.Type != "PRIVATE KEY" {
				t.Errorf("key %T, %s", c.PublicKey, key.Type)
			}
		}},
		{"v1alpha3 ecdsa", `apiVersion: cert-manager.io/v1alpha3
kind: Certificate
metadata: {name: web, namespace: web}
spec: {secretName: web-tls, dnsNames: [web.example.com], keyAlgorithm: ecdsa}
`, func(t *testing.T, c *x509.Certificate, key *pem.Block) {
			if pub, ok := c.PublicKey.(*ecdsa.PublicKey); !ok || pub.Curve.Params().BitSize != 256 {
				t.Errorf("key %T", c.PublicKey)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, report := load(t, Options{}, tc.spec, proxyFor("web-tls"))
			s := secretOf(t, res, "web", "web-tls")
			if s.Type != corev1.SecretTypeTLS {
				t.Errorf("type %q", s.Type)
			}
			key, _ := pem.Decode(s.Data[corev1.TLSPrivateKeyKey])
			if key == nil {
				t.Fatal("no key in tls.key")
			}
			tc.check(t, certOf(t, s), key)
			want := []loader.StandIn{{Kind: "Secret", Namespace: "web", Name: "web-tls", For: "Certificate web/web"}}
			if !slices.Equal(report.StandIns, want) || !slices.Equal(report.Of("HTTPProxy", "web", "web"), want) {
				t.Errorf("report %+v, by object %+v", report.StandIns, report.ByObject)
			}
		})
	}
}

func TestStandInsAreDeterministic(t *testing.T) {
	docs := []string{
		"apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web, namespace: web}\nspec: {secretName: web-tls, dnsNames: [web.example.com]}\n",
		proxyFor("web-tls"),
		"apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata: {name: other, namespace: web}\nspec: {encryptedData: {tls.crt: x, tls.key: y}, template: {type: kubernetes.io/tls}}\n",
		strings.ReplaceAll(proxyFor("other"), "name: web, namespace", "name: other, namespace"),
	}
	first, _ := load(t, Options{}, docs...)
	reversed := slices.Clone(docs)
	slices.Reverse(reversed)
	second, _ := load(t, Options{}, reversed...)
	for _, name := range []string{"web-tls", "other"} {
		a, b := secretOf(t, first, "web", name), secretOf(t, second, "web", name)
		for k, v := range a.Data {
			if !bytes.Equal(v, b.Data[k]) {
				t.Errorf("Secret web/%s %s differs from run to run", name, k)
			}
		}
	}
	if bytes.Equal(secretOf(t, first, "web", "web-tls").Data["tls.key"], secretOf(t, first, "web", "other").Data["tls.key"]) {
		t.Error("two stand-ins share a key")
	}
	if !slices.IsSortedFunc(first.Objects, loader.Compare) {
		t.Error("objects are not in the loader's order")
	}
}

func TestSealedSecret(t *testing.T) {
	res, report := load(t, Options{},
		`apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata: {name: web-tls, namespace: web}
spec:
  encryptedData: {tls.crt: AgBy, tls.key: AgAx, extra: AgAz}
  template: {type: kubernetes.io/tls}
`, proxyFor("web-tls"))
	s := secretOf(t, res, "web", "web-tls")
	if s.Type != corev1.SecretTypeTLS || string(s.Data["extra"]) != Organization {
		t.Errorf("type %q, data keys %v", s.Type, sortedKeysOf(s.Data))
	}
	if c := certOf(t, s); !slices.Equal(c.DNSNames, []string{"web.example.com"}) {
		t.Errorf("names %v, want the referring HTTPProxy's", c.DNSNames)
	}
	if report.StandIns[0].For != "SealedSecret web/web-tls" {
		t.Errorf("for %q", report.StandIns[0].For)
	}
}

func TestExternalSecret(t *testing.T) {
	for _, tc := range []struct{ name, doc, secret string }{
		{"target name", "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: es, namespace: web}\nspec: {target: {name: web-tls, template: {type: kubernetes.io/tls}}}\n", "web-tls"},
		{"own name", "apiVersion: external-secrets.io/v1beta1\nkind: ExternalSecret\nmetadata: {name: es-tls, namespace: web}\nspec: {target: {template: {type: kubernetes.io/tls}}}\n", "es-tls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := load(t, Options{}, tc.doc, proxyFor(tc.secret))
			if s := secretOf(t, res, "web", tc.secret); s.Type != corev1.SecretTypeTLS {
				t.Errorf("type %q", s.Type)
			}
		})
	}
}

func TestSOPSSecret(t *testing.T) {
	sops := `apiVersion: v1
kind: Secret
metadata: {name: web-tls, namespace: web}
type: kubernetes.io/tls
data:
  tls.crt: ENC[AES256_GCM,data:abcd,iv:efgh,tag:ijkl,type:str]
  tls.key: ENC[AES256_GCM,data:abcd,iv:efgh,tag:ijkl,type:str]
sops:
  mac: ENC[AES256_GCM,data:mmmm,iv:nnnn,tag:oooo,type:str]
  version: 3.8.1
`
	res, report := load(t, Options{}, sops, proxyFor("web-tls"))
	certOf(t, secretOf(t, res, "web", "web-tls"))
	if len(report.StandIns) != 1 || report.StandIns[0].For != "SOPS-encrypted Secret web/web-tls" {
		t.Errorf("report %+v", report.StandIns)
	}
	// Off, the SOPS Secret is still read (not refused), and absent.
	res, report = load(t, Options{Disabled: true}, sops, proxyFor("web-tls"))
	if len(report.StandIns) != 0 || slices.ContainsFunc(res.Objects, func(o loader.Object) bool { return o.Kind == "Secret" }) {
		t.Errorf("--no-stand-ins made %+v", report.StandIns)
	}
	if len(res.SecretSources) != 1 {
		t.Errorf("secret sources %d, want the SOPS Secret", len(res.SecretSources))
	}
}

func TestIngressShim(t *testing.T) {
	for _, annotation := range []string{"cert-manager.io/cluster-issuer: le", "cert-manager.io/issuer: le", `kubernetes.io/tls-acme: "true"`} {
		t.Run(annotation, func(t *testing.T) {
			res, report := load(t, Options{}, `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  namespace: shop
  annotations: {`+annotation+`, cert-manager.io/private-key-algorithm: ECDSA}
spec:
  tls:
  - {hosts: [shop.example.com], secretName: shop-tls}
  - {hosts: [a.example.com, b.example.com], secretName: ab-tls}
  rules:
  - host: shop.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: shop, port: {number: 80}}}}]}
`)
			c := certOf(t, secretOf(t, res, "shop", "ab-tls"))
			if !slices.Equal(c.DNSNames, []string{"a.example.com", "b.example.com"}) {
				t.Errorf("names %v", c.DNSNames)
			}
			if _, ok := c.PublicKey.(*ecdsa.PublicKey); !ok {
				t.Errorf("key %T, want the annotation's ECDSA", c.PublicKey)
			}
			certOf(t, secretOf(t, res, "shop", "shop-tls"))
			if got := report.Of("Ingress", "shop", "shop"); len(got) != 2 {
				t.Errorf("Ingress's stand-ins %+v", got)
			}
		})
	}
	// Without an annotation, nothing.
	_, report := load(t, Options{}, "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: s, namespace: s}\nspec:\n  tls: [{hosts: [s.example.com], secretName: s-tls}]\n  defaultBackend: {service: {name: s, port: {number: 80}}}\n")
	if len(report.StandIns) != 0 {
		t.Errorf("stand-ins without an annotation: %+v", report.StandIns)
	}
}

func TestGatewayShim(t *testing.T) {
	res, report := load(t, Options{}, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: infra
  annotations: {cert-manager.io/cluster-issuer: le}
spec:
  gatewayClassName: contour
  listeners:
  - name: https
    protocol: HTTPS
    port: 443
    hostname: shop.example.com
    tls: {certificateRefs: [{name: shop-tls}]}
  - name: other-ns
    protocol: HTTPS
    port: 443
    hostname: x.example.com
    tls: {certificateRefs: [{name: x-tls, namespace: elsewhere}]}
`)
	c := certOf(t, secretOf(t, res, "infra", "shop-tls"))
	if !slices.Equal(c.DNSNames, []string{"shop.example.com"}) {
		t.Errorf("names %v", c.DNSNames)
	}
	if len(report.StandIns) != 1 {
		t.Errorf("stand-ins %+v, want none for another namespace's Secret", report.StandIns)
	}
}

func TestAssumeSecret(t *testing.T) {
	a, err := ParseAssumed("platform/wildcard-tls:web,*")
	if err != nil {
		t.Fatal(err)
	}
	res, report := load(t, Options{Assume: []Assumed{a}}, proxyFor("platform/wildcard-tls"))
	c := certOf(t, secretOf(t, res, "platform", "wildcard-tls"))
	if !slices.Equal(c.DNSNames, []string{"web.example.com"}) {
		t.Errorf("names %v", c.DNSNames)
	}
	var delegated bool
	for _, o := range res.Objects {
		delegated = delegated || (o.Kind == "TLSCertificateDelegation" && o.Obj.GetNamespace() == "platform")
	}
	if !delegated || len(report.Of("HTTPProxy", "web", "web")) != 1 {
		t.Errorf("delegation %v, report %+v", delegated, report.ByObject)
	}
	for _, bad := range []string{"wildcard", "platform/", "/x", "platform/x:", "platform/x:Bad_NS", "Plat form/x"} {
		if _, err := ParseAssumed(bad); err == nil {
			t.Errorf("ParseAssumed(%q): no error", bad)
		}
	}
}

func TestRealSecretWins(t *testing.T) {
	res, report := load(t, Options{}, "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web, namespace: web}\nspec: {secretName: web-tls}\n",
		"apiVersion: v1\nkind: Secret\nmetadata: {name: web-tls, namespace: web}\ntype: Opaque\ndata: {a: YQ==}\n", proxyFor("web-tls"))
	if len(report.StandIns) != 0 {
		t.Errorf("stand-ins beside the real Secret: %+v", report.StandIns)
	}
	for _, o := range res.Objects {
		if o.StandIn != "" {
			t.Errorf("stand-in %s", o.StandIn)
		}
	}
}

func TestUnreferencedMadeNot(t *testing.T) {
	_, report := load(t, Options{}, "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web, namespace: web}\nspec: {secretName: web-tls}\n")
	if len(report.StandIns) != 0 {
		t.Errorf("stand-ins nothing refers to: %+v", report.StandIns)
	}
}

// An object Contour ignores (an Ingress of another class) needs no
// stand-in for the Secrets it refers to.
func TestIgnoredObjectsNeedNone(t *testing.T) {
	ingress := "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: s\n  namespace: s\n  annotations: {cert-manager.io/cluster-issuer: le}\n" +
		"spec:\n  ingressClassName: haproxy\n  tls: [{hosts: [s.example.com], secretName: s-tls}]\n  defaultBackend: {service: {name: s, port: {number: 80}}}\n"
	if _, report := load(t, Options{}, ingress); len(report.StandIns) != 1 {
		t.Fatalf("every object served: stand-ins %+v, want one", report.StandIns)
	}
	notHAProxy := func(obj any) bool {
		ing, ok := obj.(*networkingv1.Ingress)
		return !ok || ing.Spec.IngressClassName == nil || *ing.Spec.IngressClassName != "haproxy"
	}
	if _, report := load(t, Options{Served: notHAProxy}, ingress); len(report.StandIns) != 0 {
		t.Errorf("stand-ins for an ignored Ingress: %+v", report.StandIns)
	}
}

func TestBadCertificate(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c.yaml"), []byte("apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web, namespace: web}\nspec:\n  secretName: web-tls\n  privateKey: {algorithm: DSA}\n"), 0o600)
	res, err := loader.Load([]string{dir}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Apply(res, Options{})
	if err == nil || !strings.Contains(err.Error(), "c.yaml:1: Certificate web/web: cannot make its stand-in: spec.privateKey: algorithm: Unsupported value: \"DSA\"") {
		t.Errorf("error %v", err)
	}
}

func sortedKeysOf(m map[string][]byte) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestClientCAAndCRL: ca.crt and crl.pem stand-ins are one CA's, so that
// an HTTPProxy validating clients against both is valid.
func TestClientCAAndCRL(t *testing.T) {
	sealed := func(name, key string) string {
		return "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata: {name: " + name + ", namespace: web}\nspec: {encryptedData: {" + key + ": x}}\n"
	}
	res, report := load(t, Options{}, sealed("ca", "ca.crt"), sealed("crl", "crl.pem"), `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: web, namespace: web}
spec:
  virtualhost:
    fqdn: web.example.com
    tls: {secretName: web-tls, clientValidation: {caSecret: ca, crlSecret: crl}}
  routes:
  - services: [{name: web, port: 80}]
`)
	if len(report.Of("HTTPProxy", "web", "web")) != 2 {
		t.Fatalf("stand-ins %+v", report.ByObject)
	}
	caBlock, _ := pem.Decode(secretOf(t, res, "web", "ca").Data["ca.crt"])
	ca, err := x509.ParseCertificate(caBlock.Bytes)
	if err != nil || !ca.IsCA {
		t.Fatalf("ca.crt: %v, CA %v", err, ca != nil && ca.IsCA)
	}
	crlBlock, _ := pem.Decode(secretOf(t, res, "web", "crl").Data["crl.pem"])
	crl, err := x509.ParseRevocationList(crlBlock.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if err := crl.CheckSignatureFrom(ca); err != nil {
		t.Errorf("the stand-in CRL is not the stand-in CA's: %v", err)
	}
}

func TestCacheKeepsWhatWasUsed(t *testing.T) {
	cache := NewCache()
	docs := []string{"apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web, namespace: web}\nspec: {secretName: web-tls, dnsNames: [web.example.com]}\n", proxyFor("web-tls")}
	uncached, _ := load(t, Options{}, docs...)
	first, _ := load(t, Options{Cache: cache}, docs...)
	if len(cache.last) != 1 {
		t.Fatalf("cache holds %d certificates, want 1", len(cache.last))
	}
	second, _ := load(t, Options{Cache: cache}, docs...)
	for _, res := range []*loader.Result{first, second} {
		if !bytes.Equal(secretOf(t, res, "web", "web-tls").Data["tls.key"], secretOf(t, uncached, "web", "web-tls").Data["tls.key"]) {
			t.Error("a cached stand-in differs from one made afresh")
		}
	}
	load(t, Options{Cache: cache}, docs[1])
	if len(cache.last) != 0 {
		t.Errorf("cache holds %d certificates after an Apply that used none", len(cache.last))
	}
}
