package main

// End-to-end tests of the objects the cluster provides: default/kubernetes,
// --assume-service, --cluster-context, the default IngressClass and
// --gateway without its class, on the repository of testdata/cluster.
// Each case's exit code, stdout and stderr are compared with
// testdata/cli/cluster/<case>.txt (rewrite with -update, then review).

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

var clusterDir = filepath.Join(repoRoot, "testdata", "cluster")

func TestClusterProvidedObjects(t *testing.T) {
	repo := filepath.Join(clusterDir, "repo")
	platform := filepath.Join(clusterDir, "platform")
	nginx := filepath.Join(clusterDir, "nginx-default")
	kibana := "logging/kibana-kb-http:5601/tls"
	for _, c := range []struct {
		name string
		args []string
		exit int
		// says are substrings the output must hold, beyond the golden
		// file; never, substrings it must not.
		says, never []string
	}{
		// default/kubernetes resolves without a flag; the operator's
		// Service, the platform's certificate and delegation do not.
		{"repository-alone", []string{"check", repo}, exitFindings,
			[]string{"HTTPProxy  default/api", "ServiceUnresolvedReference", "certificate delegation not permitted", `path "/old" left out`},
			[]string{"Gateway "}},
		{"with-the-cluster", []string{"check", "--assume-service", kibana, "--cluster-context", platform, repo}, exitFindings,
			[]string{
				"Service web/web: also the cluster's (../../testdata/cluster/platform/dump.yaml:30): the input's is used",
				"Ingress    web/web         ../../testdata/cluster/repo/apps/web.yaml:3     valid",
				"contourc: 1 of 4 object(s) not valid",
			},
			// The cluster's own objects are not the repository's.
			[]string{"platform-root", "IngressClass", "TLSCertificateDelegation"}},
		{"gateway-class-assumed", []string{"check", "--gateway", "infra/edge", "--assume-service", "web/web:80", filepath.Join(repo, "gateway")}, exitOK,
			[]string{
				"GatewayClass platform: not in the input: assumed to be the cluster's, with controller projectcontour.io/gateway-controller, for Gateway infra/edge",
				"HTTPRoute  web/shop", "Gateway    infra/edge",
			},
			[]string{"GatewayClass  "}},
		{"with-the-cluster-json", []string{"check", "-o", "json", "--assume-service", kibana, "--cluster-context", platform, repo}, exitFindings,
			[]string{`"findings": []`, `"findings": [` + "\n" + `      "path \"/old\" left out: service \"web/retired\" not found"`},
			[]string{"platform-root"}},
		// Another controller's default IngressClass: the class-less
		// Ingresses are not Contour's, nothing fails.
		{"nginx-default-class", []string{"check", "--assume-service", kibana, "--cluster-context", nginx, repo}, exitOK,
			[]string{`ignored  ingress class "nginx", the cluster's default IngressClass, is not served`}, nil},
		{"gateway-not-in-the-input", []string{"check", "--gateway", "infra/nope", repo}, exitFailure,
			[]string{"--gateway infra/nope: no Gateway infra/nope in the input"}, nil},
		{"cluster-context-unreadable", []string{"check", "--cluster-context", filepath.Join(clusterDir, "no-such-dump"), repo}, exitFailure,
			[]string{"--cluster-context: ", "no-such-dump"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, "", c.args...)
			if r.code != c.exit {
				t.Errorf("exit code %d, want %d\nstderr:\n%s", r.code, c.exit, r.stderr)
			}
			got := fmt.Sprintf("$ contourc %s\nexit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(c.args, " "), r.code, r.stdout, r.stderr)
			golden(t, filepath.Join("cluster", c.name+".txt"), []byte(got))
			for _, s := range c.says {
				if !strings.Contains(r.stdout+r.stderr, s) {
					t.Errorf("output does not say %q:\n%s", s, got)
				}
			}
			for _, s := range c.never {
				if strings.Contains(r.stdout, s) {
					t.Errorf("stdout says %q:\n%s", s, r.stdout)
				}
			}
		})
	}
}

// TestClusterContextIsRendered checks that render serves what only the
// cluster context has (the platform's root HTTPProxy) and the assumed
// Services with their upstream protocols.
func TestClusterContextIsRendered(t *testing.T) {
	r := runCLI(t, "", "render", "-o", "json", "--assume-service", "logging/kibana-kb-http:5601/tls",
		"--cluster-context", filepath.Join(clusterDir, "platform"), filepath.Join(clusterDir, "repo"))
	r.wantExit(t, exitOK)
	var res map[string][]map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	clusters := map[string]map[string]any{}
	for _, c := range res["type.googleapis.com/envoy.config.cluster.v3.Cluster"] {
		clusters[c["alt_stat_name"].(string)] = c
	}
	if c := clusters["logging_kibana-kb-http_5601"]; c == nil || c["transport_socket"] == nil {
		t.Errorf("the assumed Service's cluster does not speak TLS: %v", c)
	}
	if clusters["platform_status_80"] == nil {
		t.Errorf("no cluster for the cluster context's root HTTPProxy")
	}
	if !strings.Contains(r.stdout, `"status.example.com"`) {
		t.Errorf("the cluster context's root HTTPProxy is not served")
	}
}

// TestIngressGitHubAnnotations checks that an Ingress not served as
// written is an error annotation on its line, its findings said once.
func TestIngressGitHubAnnotations(t *testing.T) {
	r := runCLI(t, "", "check", "-o", "github", "--assume-service", "logging/kibana-kb-http:5601/tls",
		"--cluster-context", filepath.Join(clusterDir, "platform"), filepath.Join(clusterDir, "repo"))
	r.wantExit(t, exitFindings)
	want := "::error file=../../testdata/cluster/repo/apps/web.yaml,line=26,title=Ingress web/legacy is invalid::path \"/old\" left out: service \"web/retired\" not found\n"
	if !strings.Contains(r.stdout, want) || strings.Count(r.stdout, `"/old" left out`) != 1 {
		t.Errorf("annotations:\n%s\nwant once:\n%s", r.stdout, want)
	}
}

// TestDiffGatewayOnOneSide checks that diff --gateway takes a side without
// the Gateway (a change that adds it) as serving nothing for it, not as a
// usage error.
func TestDiffGatewayOnOneSide(t *testing.T) {
	repo := filepath.Join(clusterDir, "repo")
	r := runCLI(t, "", "diff", "--gateway", "infra/edge", "--assume-service", "web/web:80", filepath.Join(repo, "apps"), filepath.Join(repo, "gateway"))
	r.wantExit(t, exitFindings)
	if !strings.Contains(r.stdout, "+ http-80 shop.example.com") {
		t.Errorf("the diff does not show the Gateway's listener added:\n%s", r.stdout)
	}
}

// TestRenderIngressVerdicts checks that render warns about an Ingress not
// served as written once (its notice), and that --strict refuses it.
func TestRenderIngressVerdicts(t *testing.T) {
	args := []string{"--assume-service", "logging/kibana-kb-http:5601/tls", "--cluster-context", filepath.Join(clusterDir, "platform"), filepath.Join(clusterDir, "repo")}
	r := runCLI(t, "", append([]string{"render", "-o", "json"}, args...)...)
	r.wantExit(t, exitOK)
	if n := strings.Count(r.stderr, `"/old" left out`); n != 1 {
		t.Errorf("render says the Ingress's finding %d times:\n%s", n, r.stderr)
	}
	r = runCLI(t, "", append([]string{"render", "--strict", "-o", "json"}, args...)...)
	r.wantExit(t, exitFindings)
	if r.stdout != "" || !strings.Contains(r.stderr, "Ingress web/legacy: invalid: path \"/old\" left out") {
		t.Errorf("render --strict: stdout %d bytes, stderr:\n%s", len(r.stdout), r.stderr)
	}
}
