package main

// End-to-end tests of the stand-ins for the Secrets Contour's
// configuration names, on testdata/gitops/stand-ins-fallback: a `contour`
// ConfigMap whose fallback certificate cert-manager issues, and two
// HTTPProxies with enableFallbackCertificate, one of whose own Secret
// comes from cert-manager too.

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
	"github.com/contourc/contourc/loader/standin"
)

var fallbackRepo = filepath.Join(gitopsDir, "stand-ins-fallback")

const fallbackStandIn = "StandIn: Secret projectcontour/fallback-cert for Certificate projectcontour/fallback"

func TestConfiguredStandInsCLI(t *testing.T) {
	for _, c := range []struct {
		name    string
		args    []string
		exit    int
		says    []string
		saysNot []string
	}{
		{"stand-ins-fallback-check", []string{"check", fallbackRepo}, exitOK,
			[]string{fallbackStandIn, "StandIn: Secret default/app-tls for Certificate default/app"}, []string{"FallbackNotValid"}},
		{"stand-ins-fallback-check-json", []string{"check", "-o", "json", fallbackRepo}, exitOK,
			[]string{`"for": "Certificate projectcontour/fallback"`}, nil},
		// As Contour would find it with nothing issuing the Secret.
		{"stand-ins-fallback-off", []string{"check", "--no-stand-ins", fallbackRepo}, exitFindings,
			[]string{`FallbackNotValid: Spec.Virtualhost.TLS Secret "projectcontour/fallback-cert" fallback certificate is invalid: Secret not found`},
			[]string{"StandIn:"}},
	} {
		t.Run(c.name, func(t *testing.T) { checkGoldenRun(t, c.name, c.args, c.exit, c.says, c.saysNot) })
	}
}

// TestConfiguredStandInRender: render warns of the fallback certificate's
// stand-in and serves it, marked, for its Certificate's names.
func TestConfiguredStandInRender(t *testing.T) {
	r := runCLI(t, "", "render", "-o", "json", fallbackRepo)
	r.wantExit(t, exitOK)
	if want := "warning: stand-in Secret projectcontour/fallback-cert for Certificate projectcontour/fallback: not in the input"; !strings.Contains(r.stderr, want) {
		t.Errorf("render does not warn %q:\n%s", want, r.stderr)
	}
	var xds map[string][]struct {
		Name           string `json:"name"`
		TLSCertificate struct {
			CertificateChain struct {
				InlineBytes string `json:"inline_bytes"`
			} `json:"certificate_chain"`
		} `json:"tls_certificate"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &xds); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, s := range xds["type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret"] {
		if !strings.HasPrefix(s.Name, "projectcontour/fallback-cert/") {
			continue
		}
		der, _ := base64.StdEncoding.DecodeString(s.TLSCertificate.CertificateChain.InlineBytes)
		b, _ := pem.Decode(der)
		if b == nil {
			t.Fatalf("secret %s: no certificate", s.Name)
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		found = true
		if !slices.Equal(c.Subject.Organization, []string{standin.Organization}) || !slices.Equal(c.DNSNames, []string{"fallback.example.com"}) {
			t.Errorf("secret %s: subject %s for %v", s.Name, c.Subject, c.DNSNames)
		}
	}
	if !found {
		t.Errorf("no fallback certificate served:\n%s", r.stdout)
	}
}

// TestServeRefusesConfiguredStandIn: serve refuses the fallback
// certificate's stand-in as any other's.
func TestServeRefusesConfiguredStandIn(t *testing.T) {
	r := runCLI(t, "", "serve", "--xds-port", "0", "--http-port", "0", fallbackRepo)
	r.wantExit(t, exitFailure)
	if want := "Secret projectcontour/fallback-cert for Certificate projectcontour/fallback"; !strings.Contains(r.stderr, "the input needs stand-in Secrets: ") || !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not name %q:\n%s", want, r.stderr)
	}
}

// TestDiffConfiguredStandIn: diff makes the configured Secrets' stand-ins
// on both sides; a side without the Certificate has none, and the change
// that adds it shows the HTTPProxy recovering.
func TestDiffConfiguredStandIn(t *testing.T) {
	old := t.TempDir()
	for _, f := range []string{"contour/config.yaml", "apps/app.yaml", "apps/www.yaml"} {
		b, err := os.ReadFile(filepath.Join(fallbackRepo, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "contour/config.yaml" { // the Certificate is what the change adds
			b = []byte(strings.ReplaceAll(string(b), "kind: Certificate", "kind: NotACertificate"))
		}
		testfs.Write(t, old, map[string]string{f: string(b)})
	}
	runCLI(t, "", "diff", fallbackRepo, fallbackRepo).wantExit(t, exitOK)
	r := runCLI(t, "", "diff", "-o", "json", old, fallbackRepo)
	r.wantExit(t, exitFindings)
	if !strings.Contains(r.stdout, "FallbackNotValid") || !strings.Contains(r.stdout, `"www"`) {
		t.Errorf("diff does not show default/www recovering:\n%s\n%s", r.stdout, r.stderr)
	}
}

// TestClientCertificateStandIn: Envoy's client certificate, named by a
// ContourConfiguration and issued by cert-manager, gets a stand-in that
// every HTTPProxy with a Service rests on (Contour looks it up for each
// of their clusters); without stand-ins they are all invalid.
func TestClientCertificateStandIn(t *testing.T) {
	repo := t.TempDir()
	testfs.Write(t, repo, map[string]string{"contour.yaml": `apiVersion: projectcontour.io/v1alpha1
kind: ContourConfiguration
metadata: {name: contour, namespace: projectcontour}
spec:
  envoy: {clientCertificate: {name: envoy-client, namespace: projectcontour}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: envoy-client, namespace: projectcontour}
spec:
  secretName: envoy-client
  commonName: envoy
  privateKey: {algorithm: ECDSA, size: 256}
  issuerRef: {name: internal-ca, kind: ClusterIssuer}
`, "proxy.yaml": `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: api, namespace: default}
spec:
  virtualhost: {fqdn: api.example.com}
  routes:
  - services: [{name: kubernetes, port: 443, protocol: tls}]
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: redirect, namespace: default}
spec:
  virtualhost: {fqdn: old.example.com}
  routes:
  - requestRedirectPolicy: {hostname: api.example.com}
`})
	const reason = "StandIn: Secret projectcontour/envoy-client for Certificate projectcontour/envoy-client"
	r := runCLI(t, "", "check", "--contour-config", "projectcontour/contour", repo)
	r.wantExit(t, exitOK)
	var api, redirect string
	for _, l := range strings.Split(r.stdout, "\n") {
		switch {
		case strings.HasPrefix(l, "HTTPProxy  default/api "):
			api = l
		case strings.HasPrefix(l, "HTTPProxy  default/redirect "):
			redirect = l
		}
	}
	if !strings.Contains(api, reason) || strings.Contains(redirect, "StandIn:") {
		t.Errorf("default/api should rest on the stand-in, default/redirect (no Service) not:\n%s\n%s", r.stdout, r.stderr)
	}
	off := runCLI(t, "", "check", "--no-stand-ins", "--contour-config", "projectcontour/contour", repo)
	off.wantExit(t, exitFindings)
	if want := `tls.envoy-client-certificate Secret "projectcontour/envoy-client" is invalid: Secret not found`; !strings.Contains(off.stdout, want) {
		t.Errorf("without stand-ins, check does not say %q:\n%s", want, off.stdout)
	}
}
