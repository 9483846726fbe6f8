package loader

import (
	"fmt"
	"strings"
	"testing"
)

// TestLoadErrors checks that each kind of bad input is refused with an
// error at the right file and line, saying what is wrong.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		file string
		line int
		want string // substring of the message
	}{
		{"unknown-field.yaml", 17, `HTTPProxy default/typo: unknown field "spec.routes[0].loadBalancerPolicy.requestHashPolicies[0].queryParameterHashOptions.prameterName"`},
		{"duplicate-key.yaml", 9, `Service default/web: duplicate field "spec.ports"`},
		{"duplicate-label.yaml", 8, `Service default/web: duplicate key "metadata.labels.app"`},
		{"label-not-a-string.yaml", 7, `metadata.labels.app: expected a string, got the number 1234`},
		{"wrong-type.yaml", 10, `spec.rules[0].matches[0].queryParams[0].value: Invalid value: "integer": spec.rules[0].matches[0].queryParams[0].value in body must be of type string: "integer"`},
		{"wrong-type-int.yaml", 7, `spec.ports[0].port: expected an integer, got the string "80"`},
		{"missing-kind.yaml", 2, "kind is missing"},
		{"missing-apiversion.yaml", 1, "Service web: apiVersion is missing"},
		{"missing-name.yaml", 4, "ConfigMap: metadata.name: Required value: name or generateName is required"},
		{"invalid-name.yaml", 4, `HTTPProxy default/my_proxy: metadata.name: Invalid value: "my_proxy": a lowercase RFC 1123 subdomain`},
		{"invalid-namespace.yaml", 5, `Secret Prod/tls: metadata.namespace: Invalid value: "Prod": a lowercase RFC 1123 label`},
		{"invalid-namespace-object.yaml", 4, `Namespace Team.A: metadata.name: Invalid value: "Team.A": a lowercase RFC 1123 label`},
		{"wrong-apiversion-ingress.yaml", 1, "extensions/v1beta1 Ingress was removed"},
		{"wrong-apiversion-gateway.yaml", 1, `Gateway old: no matches for kind "Gateway" in version "gateway.networking.k8s.io/v1alpha1"; use gateway.networking.k8s.io/v1 or gateway.networking.k8s.io/v1beta1`},
		{"misspelt-kind-httpproxy.yaml", 2, `HttpProxy web: no matches for kind "HttpProxy" in version "projectcontour.io/v1"; did you mean "HTTPProxy"?`},
		{"misspelt-kind-ingress.yaml", 2, `no matches for kind "ingress" in version "networking.k8s.io/v1"; did you mean "Ingress"?`},
		{"plural-kind-httproute.yaml", 2, `no matches for kind "HTTPRoutes" in version "gateway.networking.k8s.io/v1"; did you mean "HTTPRoute"?`},
		{"unserved-version-contour.yaml", 1, `no matches for kind "TLSCertificateDelegation" in version "projectcontour.io/v2"; use projectcontour.io/v1`},
		{"unserved-version-other-kind.yaml", 1, `no matches for kind "NetworkPolicy" in version "networking.k8s.io/v2"; NetworkPolicy is served as networking.k8s.io/v1`},
		{"duplicate-apiversion.yaml", 5, `mapping key "apiVersion" already defined at line 1`},
		{"ingressroute.yaml", 1, "IngressRoute was removed from Contour; use HTTPProxy"},
		{"bad-base64.yaml", 7, "data.tls.crt: invalid base64 data"},
		{"bad-fqdn.yaml", 7, `spec.virtualhost.fqdn: Invalid value: "Example.COM": spec.virtualhost.fqdn in body should match`},
		{"bad-redirect-code.yaml", 11, `requestRedirectPolicy.statusCode: Unsupported value: 305: supported values: "301", "302", "303", "307", "308"`},
		{"missing-required.yaml", 10, `HTTPProxy default/noport: spec.routes[0].services[0].port: Required value`},
		{"list-item-without-kind.yaml", 8, "List item 1: kind is missing"},
		{"not-a-mapping.yaml", 1, "expected a Kubernetes object"},
		{"bad-syntax.yaml", 10, "invalid YAML: mapping values are not allowed"},
		{"truncated.json", 5, "invalid JSON"},
		{"alias-bomb.yaml", 11, "YAML aliases expand to more than"},
		{"binary.yaml", 6, "not a UTF-8 text file"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := "testdata/errors/" + tt.file
			errs := loadErrors(t, Options{}, path)
			e := errs[0]
			if e.Source.File != path || e.Source.Line != tt.line {
				t.Errorf("error at %s, want %s:%d: %v", e.Source, path, tt.line, e)
			}
			if !strings.Contains(e.Error(), tt.want) {
				t.Errorf("error %q does not say %q", e.Error(), tt.want)
			}
			if prefix := fmt.Sprintf("%s:%d: ", path, tt.line); !strings.HasPrefix(e.Error(), prefix) {
				t.Errorf("error %q does not start with %q", e.Error(), prefix)
			}
		})
	}
}

// TestLoadReportsEveryError checks that Load does not stop at the first
// problem: every broken object of every file is reported.
func TestLoadReportsEveryError(t *testing.T) {
	errs := loadErrors(t, Options{}, "testdata/errors")
	files := map[string]bool{}
	for _, e := range errs {
		files[e.Source.File] = true
	}
	if len(files) < 20 {
		t.Errorf("errors name %d files, want one per file of testdata/errors (23): %v", len(files), errs)
	}
}

// TestMissingPath checks that a path that does not exist is an error
// naming it, alongside the other problems.
func TestMissingPath(t *testing.T) {
	errs := loadErrors(t, Options{}, "testdata/ok/core.yaml", "testdata/no-such-dir", "testdata/no-such-file.yaml")
	if len(errs) != 2 {
		t.Fatalf("got %d errors, want 2: %v", len(errs), errs)
	}
	for i, want := range []string{"testdata/no-such-dir", "testdata/no-such-file.yaml"} {
		if errs[i].Source.File != want || !strings.Contains(errs[i].Msg, "no such file") {
			t.Errorf("error %d = %v, want one naming %s", i, errs[i], want)
		}
	}
}

// TestStdinWithoutReader checks that "-" without Options.Stdin is an error,
// not a panic.
func TestStdinWithoutReader(t *testing.T) {
	errs := loadErrors(t, Options{}, "-")
	if errs[0].Source.File != "<stdin>" {
		t.Errorf("error names %q, want <stdin>", errs[0].Source.File)
	}
}
