package main

// End-to-end tests of render and check on the bundled examples and on small
// inputs under testdata/cli. They need the real loader, translate and
// render packages.

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/cli")

// repoRoot is the module root, seen from this package's directory.
var repoRoot = filepath.Join("..", "..")

var examplesDir = filepath.Join(repoRoot, "examples")

// golden compares got with testdata/cli/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(repoRoot, "testdata", "cli", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./cmd/contourc -update` to create it, then review it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s at %s (run `go test ./cmd/contourc -update` and review the diff)", path, firstDifference(want, got))
	}
}

// firstDifference says where two texts part: "line N: want ..., got ...".
func firstDifference(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, w, g)
		}
	}
	return "no line"
}

// renderOK runs render and insists that it succeeded.
func renderOK(t *testing.T, stdin string, args ...string) []byte {
	t.Helper()
	got := runCLI(t, stdin, append([]string{"render"}, args...)...)
	got.wantExit(t, exitOK)
	if got.stdout == "" {
		t.Fatalf("render %v wrote nothing", args)
	}
	return []byte(got.stdout)
}

func TestRenderExamplesGolden(t *testing.T) {
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			golden(t, "examples."+format+".golden", renderOK(t, "", "-o", format, examplesDir))
		})
	}
}

// TestRenderExamplesContent checks what Contour does with the examples,
// independently of how render lays the output out.
func TestRenderExamplesContent(t *testing.T) {
	xds := decodeXDS(t, renderOK(t, "", "-o", "json", examplesDir))
	const (
		listeners = "type.googleapis.com/envoy.config.listener.v3.Listener"
		routes    = "type.googleapis.com/envoy.config.route.v3.RouteConfiguration"
		clusters  = "type.googleapis.com/envoy.config.cluster.v3.Cluster"
		endpoints = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment"
		secrets   = "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret"
	)
	for _, name := range []string{"ingress_http", "ingress_https"} {
		if xds[listeners][name] == nil {
			t.Errorf("no listener %s", name)
		}
	}
	if got := jsonAt(xds[listeners]["ingress_https"], "filter_chains", 0, "filter_chain_match", "server_names", 0); got != "kuard.example.com" {
		t.Errorf("ingress_https's first filter chain matches SNI %v, want kuard.example.com", got)
	}

	// Plain HTTP: the TLS host redirects (force-ssl-redirect), the internal
	// host is proxied. Both use the Service port named http, port 80.
	const cluster = "default/kuard/80/da39a3ee5e"
	vhosts := map[string]any{}
	for _, vh := range asList(jsonAt(xds[routes]["ingress_http"], "virtual_hosts")) {
		vhosts[fmt.Sprint(jsonAt(vh, "name"))] = vh
	}
	if got := jsonAt(vhosts["kuard.example.com"], "routes", 0, "redirect", "https_redirect"); got != true {
		t.Errorf("http://kuard.example.com/ is not redirected to https: redirect.https_redirect = %v", got)
	}
	if got := jsonAt(vhosts["kuard.internal.example.com"], "routes", 0, "route", "cluster"); got != cluster {
		t.Errorf("http://kuard.internal.example.com/ goes to %v, want %s", got, cluster)
	}
	if got := jsonAt(xds[routes]["https/kuard.example.com"], "virtual_hosts", 0, "routes", 0, "route", "cluster"); got != cluster {
		t.Errorf("https://kuard.example.com/ goes to %v, want %s", got, cluster)
	}

	if got := jsonAt(xds[clusters][cluster], "eds_cluster_config", "service_name"); got != "default/kuard/http" {
		t.Errorf("cluster %s reads endpoints of %v, want default/kuard/http (the named port)", cluster, got)
	}
	var addrs []string
	for _, lb := range asList(jsonAt(xds[endpoints]["default/kuard/http"], "endpoints", 0, "lb_endpoints")) {
		sa := jsonAt(lb, "endpoint", "address", "socket_address")
		addrs = append(addrs, fmt.Sprintf("%v:%v", jsonAt(sa, "address"), jsonAt(sa, "port_value")))
	}
	slices.Sort(addrs)
	if want := []string{"10.244.1.17:8080", "10.244.2.23:8080"}; !slices.Equal(addrs, want) {
		t.Errorf("endpoints of default/kuard/http = %v, want %v", addrs, want)
	}

	var secretNames []string
	for name := range xds[secrets] {
		secretNames = append(secretNames, name)
	}
	if len(secretNames) != 1 || !strings.HasPrefix(secretNames[0], "default/kuard-tls/") {
		t.Errorf("secrets = %v, want one default/kuard-tls/<hash>", secretNames)
	}
}

// TestRenderDeterministic renders the examples split into one file per
// object, named and nested so that they are read in another order: the
// output must not change by a byte.
func TestRenderDeterministic(t *testing.T) {
	docs := exampleDocuments(t)
	dir := t.TempDir()
	for i, doc := range docs {
		sub := dir
		if i%2 == 1 {
			sub = filepath.Join(dir, "nested")
		}
		name := filepath.Join(sub, fmt.Sprintf("%02d-object.yml", len(docs)-i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			want := renderOK(t, "", "-o", format, examplesDir)
			if got := renderOK(t, "", "-o", format, dir); !bytes.Equal(got, want) {
				t.Errorf("reordered input renders differently at %s", firstDifference(want, got))
			}
			if got := renderOK(t, "", "-o", format, examplesDir); !bytes.Equal(got, want) {
				t.Errorf("a second run renders differently at %s", firstDifference(want, got))
			}
		})
	}
}

// TestRenderStdin checks that - reads the same manifests from stdin.
func TestRenderStdin(t *testing.T) {
	want := renderOK(t, "", "-o", "json", examplesDir)
	stdin := strings.Join(exampleDocuments(t), "\n---\n")
	if got := renderOK(t, stdin, "-o", "json", "-"); !bytes.Equal(got, want) {
		t.Errorf("stdin renders differently at %s", firstDifference(want, got))
	}
}

func TestRenderOutputFile(t *testing.T) {
	want := renderOK(t, "", examplesDir)
	dir := t.TempDir()
	out := filepath.Join(dir, "envoy.yaml")
	if err := os.WriteFile(out, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runCLI(t, "", "render", "--output", out, examplesDir)
	got.wantExit(t, exitOK)
	if got.stdout != "" {
		t.Errorf("render --output also wrote %d bytes on stdout", len(got.stdout))
	}
	if b, _ := os.ReadFile(out); !bytes.Equal(b, want) {
		t.Errorf("%s differs from what render writes on stdout", out)
	}
	wantOnly(t, dir, 1)
}

// With standard output a file (render > file) and with --output, -o json
// and -o yaml are written as they are printed; the bytes are those written
// to a pipe.
func TestRenderToFilesAsToPipes(t *testing.T) {
	for _, format := range []string{"json", "yaml"} {
		want := renderOK(t, "", "-o", format, examplesDir)
		dir := t.TempDir()
		stdout, err := os.Create(filepath.Join(dir, "stdout."+format))
		if err != nil {
			t.Fatal(err)
		}
		defer stdout.Close()
		var errOut bytes.Buffer
		if code := run([]string{"render", "-o", format, examplesDir}, IOStreams{Out: stdout, ErrOut: &errOut}); code != exitOK {
			t.Fatalf("-o %s: exit code %d: %s", format, code, errOut.String())
		}
		viaFlag := filepath.Join(dir, "flag."+format)
		runCLI(t, "", "render", "-o", format, "--output", viaFlag, examplesDir).wantExit(t, exitOK)
		for _, path := range []string{stdout.Name(), viaFlag} {
			if b, _ := os.ReadFile(path); !bytes.Equal(b, want) {
				t.Errorf("%s differs from what render writes to a pipe at %s", filepath.Base(path), firstDifference(want, b))
			}
		}
	}
}

func TestUnreadablePath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-manifests")
	for _, cmd := range []string{"render", "check"} {
		got := runCLI(t, "", cmd, "-o", "json", examplesDir, missing)
		got.wantExit(t, exitFailure)
		if got.stdout != "" {
			t.Errorf("%s: stdout = %q, want nothing", cmd, got.stdout)
		}
		if !strings.Contains(got.stderr, missing) {
			t.Errorf("%s: stderr does not name %s:\n%s", cmd, missing, got.stderr)
		}
	}
}

// TestCheckIngressOnly: Contour writes no status on Ingresses (only the
// load balancer address, which contourc does not know); check lists each
// with its verdict, from its findings: here none, both served as written.
func TestCheckIngressOnly(t *testing.T) {
	entry := func(name string) string {
		return `  {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "Ingress",
    "namespace": "default",
    "name": "` + name + `",
    "status": null,
    "findings": []
  }`
	}
	for format, want := range map[string]string{
		"json": "[\n" + entry("kuard") + ",\n" + entry("kuard-internal") + "\n]\n",
		"table": "KIND     NAMESPACE/NAME          SOURCE                        VERDICT  REASONS\n" +
			"Ingress  default/kuard           ../../examples/kuard.yaml:53  valid    -\n" +
			"Ingress  default/kuard-internal  ../../examples/kuard.yaml:78  valid    -\n",
	} {
		got := runCLI(t, "", "check", "-o", format, examplesDir)
		got.wantExit(t, exitOK)
		if got.stdout != want {
			t.Errorf("check -o %s: stdout = %q, want %q", format, got.stdout, want)
		}
	}
}

// invalidProxy is an HTTPProxy whose only route sends traffic to a Service
// that is not in the input: Contour marks it invalid and serves nothing for it.
var invalidProxy = filepath.Join(repoRoot, "testdata", "cli", "invalid-httpproxy.yaml")

func TestRenderInvalidObject(t *testing.T) {
	got := runCLI(t, "", "render", "-o", "json", invalidProxy)
	got.wantExit(t, exitOK)
	if !regexp.MustCompile(`(?m)^warning: .*invalid-httpproxy\.yaml:\d+: HTTPProxy default/kuard: invalid: `).MatchString(got.stderr) {
		t.Errorf("render does not warn about the invalid HTTPProxy:\n%s", got.stderr)
	}

	got = runCLI(t, "", "render", "--strict", "-o", "json", invalidProxy)
	got.wantExit(t, exitFindings)
	if got.stdout != "" {
		t.Errorf("render --strict wrote %d bytes although an object is invalid", len(got.stdout))
	}
}

func TestCheckInvalidObject(t *testing.T) {
	got := runCLI(t, "", "check", "-o", "json", invalidProxy)
	got.wantExit(t, exitFindings)
	var list []struct {
		APIVersion, Kind, Namespace, Name string
		Status                            map[string]any
	}
	if err := json.Unmarshal([]byte(got.stdout), &list); err != nil {
		t.Fatalf("check -o json: %v\n%s", err, got.stdout)
	}
	if len(list) != 1 || list[0].Kind != "HTTPProxy" || list[0].APIVersion != "projectcontour.io/v1" ||
		list[0].Namespace != "default" || list[0].Name != "kuard" || list[0].Status["currentStatus"] != "invalid" {
		t.Errorf("check -o json = %s, want one invalid HTTPProxy default/kuard", got.stdout)
	}

	got = runCLI(t, "", "check", invalidProxy)
	got.wantExit(t, exitFindings)
	lines := strings.Split(strings.TrimSpace(got.stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "KIND") ||
		!regexp.MustCompile(`^HTTPProxy +default/kuard +\S*invalid-httpproxy\.yaml:\d+ +invalid +\S`).MatchString(lines[1]) {
		t.Errorf("check table =\n%s", got.stdout)
	}
}

// exampleDocuments returns the YAML documents of the examples, in file order.
func exampleDocuments(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	separator := regexp.MustCompile(`(?m)^---[ \t]*\n`)
	var docs []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range separator.Split(string(b), -1) {
			if strings.TrimSpace(d) != "" {
				docs = append(docs, d)
			}
		}
	}
	return docs
}

// TestExampleCertificate keeps the example Secret usable: a key pair that
// matches, for the host the Ingress serves over TLS.
func TestExampleCertificate(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(examplesDir, "kuard-tls-secret.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var secret struct {
		Type string
		Data map[string]string
	}
	if err := yaml.Unmarshal(b, &secret); err != nil {
		t.Fatal(err)
	}
	crt, err1 := base64.StdEncoding.DecodeString(secret.Data["tls.crt"])
	key, err2 := base64.StdEncoding.DecodeString(secret.Data["tls.key"])
	if err1 != nil || err2 != nil {
		t.Fatalf("secret data is not base64: %v %v", err1, err2)
	}
	pair, err := tls.X509KeyPair(crt, key)
	if err != nil {
		t.Fatalf("tls.crt and tls.key: %v", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := leaf.VerifyHostname("kuard.example.com"); err != nil {
		t.Error(err)
	}
	if secret.Type != "kubernetes.io/tls" {
		t.Errorf("secret type %q, want kubernetes.io/tls", secret.Type)
	}
}
