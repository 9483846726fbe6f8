package main

// End-to-end tests of the fixes of Contour's release branch (v1.33.7,
// v1.33.8) and main branch that contourc follows, from manifest text to
// what the commands print.

import (
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
		secret := "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\n  namespace: default\ntype: " + secretType +
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
