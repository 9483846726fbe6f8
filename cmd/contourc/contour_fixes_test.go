package main

// End-to-end tests of the fixes of Contour's release branch (v1.33.7,
// v1.33.8) and main branch that contourc follows, from manifest text to
// what the commands print.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resourceBackendIngress has a path and a default backend naming a
// resource rather than a Service, and a path to a Service.
const resourceBackendIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: default
spec:
  defaultBackend:
    resource:
      apiGroup: k8s.example.com
      kind: StorageBucket
      name: static-assets
  rules:
  - host: web.example.com
    http:
      paths:
      - path: /static
        pathType: Prefix
        backend:
          resource:
            apiGroup: k8s.example.com
            kind: StorageBucket
            name: static-assets
      - path: /
        pathType: Prefix
        backend:
          service:
            name: web
            port:
              number: 80
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  ports:
  - port: 80
`

// Resource backends are skipped with a warning naming the Ingress and the
// path, and the rest is rendered, as in Contour v1.33.8 (earlier releases
// dereferenced the missing Service).
func TestIngressResourceBackendsSkipped(t *testing.T) {
	got := runCLI(t, resourceBackendIngress, "render", "-o", "json", "-")
	got.wantExit(t, exitOK)
	for _, want := range []string{
		`warning: <stdin>:1: Ingress default/web: path "/static" left out: ingress backend does not reference a service, resource backends are not supported`,
		`warning: <stdin>:1: Ingress default/web: path "/" left out: ingress backend does not reference a service, resource backends are not supported`,
	} {
		if !strings.Contains(got.stderr, want) {
			t.Errorf("stderr does not contain %q:\n%s", want, got.stderr)
		}
	}
	if !strings.Contains(got.stdout, `"cluster": "default/web/80/da39a3ee5e"`) || strings.Contains(got.stdout, `"/static"`) {
		t.Errorf("want the / route to default/web and no /static route:\n%s", got.stdout)
	}
}

// tlsProxy is a root HTTPProxy serving TLS with the Secret default/tls.
const tlsProxy = `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: web
  namespace: default
spec:
  virtualhost:
    fqdn: web.example.com
    tls:
      secretName: tls
  routes:
  - services:
    - name: web
      port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  ports:
  - port: 80
`

// A Helm release record or service-account token is not kept (Contour's
// main branch does not cache them): an HTTPProxy naming one gets the
// status of one naming a missing Secret, and -v counts it as skipped.
func TestUnkeptSecretIsMissing(t *testing.T) {
	missing := runCLI(t, tlsProxy, "check", "-o", "json", "-")
	missing.wantExit(t, exitFindings)
	if !strings.Contains(missing.stdout, `Secret \"tls\" is invalid: Secret not found`) {
		t.Fatalf("check without the Secret:\n%s", missing.stdout)
	}
	for _, secretType := range []string{"helm.sh/release.v1", "kubernetes.io/service-account-token"} {
		secret := "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\n  namespace: default\n  annotations: {kubernetes.io/service-account.name: builder}\ntype: " + secretType +
			"\ndata:\n  tls.crt: Y2VydA==\n  tls.key: a2V5\n"
		got := runCLI(t, tlsProxy+secret, "-v", "check", "-o", "json", "-")
		got.wantExit(t, exitFindings)
		if got.stdout != missing.stdout {
			t.Errorf("%s: status\n%s\nwant that of a missing Secret\n%s", secretType, got.stdout, missing.stdout)
		}
		if want := "skipped 1 v1/Secret of type " + secretType + "\n"; !strings.Contains(got.stderr, want) {
			t.Errorf("%s: stderr does not contain %q:\n%s", secretType, want, got.stderr)
		}
	}
}

// mainBranchProxy uses the HTTPProxy fields only Contour's main branch has.
const mainBranchProxy = `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: app, namespace: default}
spec:
  virtualhost:
    fqdn: app.example.com
    authorization:
      extensionRef: {namespace: auth, name: authz}
      serviceType: http
      httpSettings: {pathPrefix: /check}
    jwtProviders:
    - name: local
      localJWKS: {secretName: jwks, key: jwks.json}
  routes:
  - services: [{name: app, port: 80}]
`

// Fields of Contour's main branch are accepted, with one warning per use
// naming the file, line and field, in manifests and in the configuration
// file alike.
func TestMainBranchFieldWarnings(t *testing.T) {
	dir := t.TempDir()
	config := writeTestFile(t, dir, "contour.yaml", "tls:\n  ecdh-curves: [X25519]\nlistener:\n  max-connections-to-accept-per-socket-event: 4\n")
	manifests := writeTestFile(t, dir, "proxy.yaml", mainBranchProxy)
	got := runCLI(t, "", "render", "-o", "json", "--config-path", config, manifests)
	got.wantExit(t, exitOK)
	wantLines := []string{
		"warning: " + config + ":2: configuration: tls.ecdh-curves is not in Contour v1.33.x (main branch only)",
		"warning: " + config + ":4: configuration: listener.max-connections-to-accept-per-socket-event is not in Contour v1.33.x (main branch only)",
		"warning: " + manifests + ":9: HTTPProxy default/app: spec.virtualhost.authorization.serviceType is not in Contour v1.33.x (main branch only)",
		"warning: " + manifests + ":10: HTTPProxy default/app: spec.virtualhost.authorization.httpSettings is not in Contour v1.33.x (main branch only)",
		"warning: " + manifests + ":13: HTTPProxy default/app: spec.virtualhost.jwtProviders[0].localJWKS is not in Contour v1.33.x (main branch only)",
	}
	for _, want := range wantLines {
		if n := strings.Count(got.stderr, want+"\n"); n != 1 {
			t.Errorf("stderr has %q %d times, want once:\n%s", want, n, got.stderr)
		}
	}
	if n := strings.Count(got.stderr, "main branch only"); n != len(wantLines) {
		t.Errorf("%d main-branch warnings, want %d:\n%s", n, len(wantLines), got.stderr)
	}
}

// writeTestFile writes text to dir/name and returns its path.
func writeTestFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The configuration's main-branch fields are warned about when it comes
// from a contour ConfigMap (at the ConfigMap, with the key's line in
// contour.yaml) or from a ContourConfiguration.
func TestMainBranchFieldWarningsInConfigObjects(t *testing.T) {
	configMap := `apiVersion: v1
kind: ConfigMap
metadata: {name: contour, namespace: projectcontour}
data:
  contour.yaml: |
    tls:
      fingerprint: {ja4: true}
`
	got := runCLI(t, configMap, "render", "-o", "json", "-")
	got.wantExit(t, exitOK)
	if want := "warning: <stdin>:1: ConfigMap projectcontour/contour: contour.yaml line 2: tls.fingerprint is not in Contour v1.33.x (main branch only)\n"; !strings.Contains(got.stderr, want) {
		t.Errorf("stderr does not contain %q:\n%s", want, got.stderr)
	}

	contourConfiguration := `apiVersion: projectcontour.io/v1alpha1
kind: ContourConfiguration
metadata: {name: contour, namespace: projectcontour}
spec:
  globalExtAuth:
    extensionRef: {namespace: auth, name: authz}
    serviceType: http
---
apiVersion: projectcontour.io/v1alpha1
kind: ExtensionService
metadata: {name: authz, namespace: auth}
spec:
  services: [{name: authz, port: 9000}]
`
	got = runCLI(t, contourConfiguration, "render", "-o", "json", "--contour-config", "projectcontour/contour", "-")
	got.wantExit(t, exitOK)
	if want := "warning: <stdin>:7: ContourConfiguration projectcontour/contour: spec.globalExtAuth.serviceType is not in Contour v1.33.x (main branch only)\n"; !strings.Contains(got.stderr, want) {
		t.Errorf("stderr does not contain %q:\n%s", want, got.stderr)
	}
}
