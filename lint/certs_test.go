package lint

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// testCert is a self-signed certificate for names valid from notBefore
// to notAfter, and its key, as PEM. The key is random: no message may
// depend on it.
func testCert(t *testing.T, names []string, notBefore, notAfter time.Time) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: notBefore, NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

func tlsSecret(name string, cert, key []byte) string {
	return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: default}\ntype: kubernetes.io/tls\ndata:\n" +
		"  tls.crt: " + base64.StdEncoding.EncodeToString(cert) + "\n  tls.key: " + base64.StdEncoding.EncodeToString(key) + "\n"
}

func tlsProxy(fqdn, secret string) string {
	return "---\napiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: p, namespace: default}\nspec:\n" +
		"  virtualhost: {fqdn: " + fqdn + ", tls: {secretName: " + secret + "}}\n  routes:\n  - services: [{name: s1, port: 80}]\n"
}

func TestCertRules(t *testing.T) {
	day := 24 * time.Hour
	good, goodKey := testCert(t, []string{"a.example.com", "*.b.example.com"}, testNow.Add(-day), testNow.Add(100*day))
	soon, soonKey := testCert(t, []string{"a.example.com"}, testNow.Add(-day), testNow.Add(10*day))
	old, oldKey := testCert(t, []string{"a.example.com"}, testNow.Add(-100*day), testNow.Add(-day))
	future, futureKey := testCert(t, []string{"a.example.com"}, testNow.Add(day), testNow.Add(100*day))
	ingress := "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i, namespace: default}\nspec:\n" +
		"  tls: [{hosts: [c.example.com], secretName: good}]\n  rules:\n  - host: c.example.com\n    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: s1, port: {number: 80}}}}]}\n"
	runRuleCases(t, []ruleCase{
		{name: "a name the certificate lacks", rule: ruleCertName, want: 1, has: []string{"Secret default/good does not cover z.example.com", "a.example.com, *.b.example.com"},
			docs: services + tlsSecret("good", good, goodKey) + tlsProxy("z.example.com", "good")},
		{name: "an Ingress's host the certificate lacks", rule: ruleCertName, want: 1, has: []string{"c.example.com"},
			docs: services + tlsSecret("good", good, goodKey) + ingress},
		{name: "a name and a wildcard it covers", rule: ruleCertName, want: 0,
			docs: services + tlsSecret("good", good, goodKey) + tlsProxy("x.b.example.com", "good")},
		{name: "expires in 10 days", rule: ruleCertExpiring, want: 1, has: []string{"expires on 2026-06-11, in 10 day(s)"},
			docs: services + tlsSecret("soon", soon, soonKey) + tlsProxy("a.example.com", "soon")},
		{name: "expires in 100 days", rule: ruleCertExpiring, want: 0,
			docs: services + tlsSecret("good", good, goodKey) + tlsProxy("a.example.com", "good")},
		{name: "expired", rule: ruleCertExpired, want: 1, has: []string{"expired on 2026-05-31"},
			docs: services + tlsSecret("old", old, oldKey) + tlsProxy("a.example.com", "old")},
		{name: "not valid yet", rule: ruleCertExpired, want: 1, has: []string{"not valid before 2026-06-02"},
			docs: services + tlsSecret("future", future, futureKey) + tlsProxy("a.example.com", "future")},
		{name: "valid", rule: ruleCertExpired, want: 0,
			docs: services + tlsSecret("good", good, goodKey) + tlsProxy("a.example.com", "good")},
		{name: "another certificate's key", rule: ruleCertKey, want: 1,
			docs: services + tlsSecret("mixed", good, soonKey) + tlsProxy("a.example.com", "mixed")},
		{name: "the certificate's key", rule: ruleCertKey, want: 0,
			docs: services + tlsSecret("good", good, goodKey) + tlsProxy("a.example.com", "good")},
	})
	t.Run("no key material in any message", func(t *testing.T) {
		for _, f := range lintYAML(t, services+tlsSecret("mixed", old, soonKey)+tlsProxy("z.example.com", "mixed"), Options{}) {
			for _, secret := range [][]byte{soonKey, old} {
				body := strings.Split(string(secret), "\n")[1]
				if strings.Contains(f.Message, body[:20]) || strings.Contains(f.Message, "PRIVATE") {
					t.Errorf("%s: message carries key material: %s", f.Rule, f.Message)
				}
			}
		}
	})
	t.Run("--cert-expiry-days", func(t *testing.T) {
		docs := services + tlsSecret("good", good, goodKey) + tlsProxy("a.example.com", "good")
		if got := ofRule(lintYAML(t, docs, Options{CertExpiryDays: 120}), ruleCertExpiring); len(got) != 1 {
			t.Errorf("120 days: %d finding(s), want 1", len(got))
		}
	})
}

// TestStandInSecretsNotChecked: a stand-in is made up for its hosts; what
// it holds says nothing of the repository's certificates.
func TestStandInSecretsNotChecked(t *testing.T) {
	old, oldKey := testCert(t, []string{"a.example.com"}, testNow.Add(-100*24*time.Hour), testNow.Add(-time.Hour))
	docs := services + tlsSecret("old", old, oldKey) + tlsProxy("z.example.com", "old")
	loaded, err := loader.Load([]string{"-"}, loader.Options{Stdin: strings.NewReader(docs)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := translate.Translate(loaded.Objects, translate.Options{StatusOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Now: testNow, CertExpiryDays: DefaultCertExpiryDays}
	if got := Run(loaded.Objects, res, opts); len(got) != 2 {
		t.Fatalf("read from the input: %d findings, want CTC1201 and CTC1203: %+v", len(got), got)
	}
	for i := range loaded.Objects {
		if loaded.Objects[i].Kind == "Secret" {
			loaded.Objects[i].StandIn = "Certificate default/old"
		}
	}
	if got := Run(loaded.Objects, res, opts); len(got) != 0 {
		t.Errorf("a stand-in: %+v, want no finding", got)
	}
}

func TestGatewayListenerCertificates(t *testing.T) {
	day := 24 * time.Hour
	cert, key := testCert(t, []string{"a.example.com"}, testNow.Add(-day), testNow.Add(5*day))
	gateway := func(hostname string) string {
		h := ""
		if hostname != "" {
			h = ", hostname: " + hostname
		}
		return `
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: contour}
spec: {controllerName: projectcontour.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: default}
spec:
  gatewayClassName: contour
  listeners:
  - {name: https, protocol: HTTPS, port: 443` + h + `, tls: {certificateRefs: [{name: cert}]}}
`
	}
	for _, c := range []struct {
		name     string
		hostname string
		want     []string
	}{
		{"a hostname the certificate lacks", "z.example.com", []string{ruleCertExpiring, ruleCertName}},
		{"the certificate's hostname", "a.example.com", []string{ruleCertExpiring}},
		{"no hostname", "", []string{ruleCertExpiring}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, f := range lintYAML(t, services+tlsSecret("cert", cert, key)+gateway(c.hostname), Options{}) {
				if f.Object.Kind != "Gateway" || f.Rule == ruleCertName {
					got = append(got, f.Rule)
				}
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("rules %v, want %v", got, c.want)
			}
		})
	}
}
