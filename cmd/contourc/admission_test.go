package main

import (
	"strings"
	"testing"
)

// TestAdmissionRefusals checks, end to end, that render and check refuse
// what the API server refuses in the built-in kinds and in the read
// groups' kinds (exit 2, nothing on stdout), naming file:line, the object
// and the API server's words, every problem of the run reported.
func TestAdmissionRefusals(t *testing.T) {
	const input = `apiVersion: projectcontour.io/v1
kind: HttpProxy
metadata:
  name: web
spec:
  virtualhost:
    fqdn: web.example.com
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  rules:
  - host: web.${DOMAIN}
    http:
      paths:
      - path: relative
        pathType: Prefix
        backend:
          service: {name: web, port: {number: 80}}
`
	for _, args := range [][]string{{"render", "--strict", "-"}, {"check", "-"}} {
		t.Run(args[0], func(t *testing.T) {
			got := runCLI(t, input, args...)
			got.wantExit(t, exitFailure)
			if got.stdout != "" {
				t.Errorf("stdout = %q, want nothing", got.stdout)
			}
			for _, want := range []string{
				`<stdin>:2: HttpProxy web: no matches for kind "HttpProxy" in version "projectcontour.io/v1"; did you mean "HTTPProxy"?`,
				`<stdin>:15: Ingress default/web: spec.rules[0].host: Invalid value: "web.${DOMAIN}": a lowercase RFC 1123 subdomain`,
				`<stdin>:18: Ingress default/web: spec.rules[0].http.paths[0].path: Invalid value: "relative": must be an absolute path`,
			} {
				if !strings.Contains(got.stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, got.stderr)
				}
			}
		})
	}
}
