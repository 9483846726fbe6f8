package routetest

// The Gateway API conformance harness, part two: running a conformance
// test's requests through the routing and comparing what explain decides
// with what the test expects.
//
// The suite is the module sigs.k8s.io/gateway-api/conformance at the
// version of go.mod's sigs.k8s.io/gateway-api, read from the module cache
// (`go env GOMODCACHE`); the test skips when it is not there (`go mod
// download sigs.k8s.io/gateway-api/conformance@VERSION` fetches it). It is
// not required in go.mod: its own requirements (client-go's streaming
// modules, zap...) would have to be downloaded into this module's graph.
// Nothing of it is copied here; its files are read at test time.
//
// For every HTTPRoute test whose features Contour's latest conformance
// report supports (reports/*/projectcontour-contour/), the base manifests
// and the test's manifests, with the GatewayClass filled in as a class of
// Contour's controller, are translated once per Gateway the test sends
// requests to, as the Contour the Gateway provisioner starts for that
// Gateway would, and each http.ExpectedResponse is evaluated. The table of
// tests, requests and passes goes to the test log (go test -v -run
// TestGatewayAPIConformance ./routetest); the test fails when a test of
// gwconfExpectedPass stops passing, or when a known failure starts passing
// (move it into the list).

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

const (
	gwconfModule     = "sigs.k8s.io/gateway-api/conformance"
	gwconfController = "projectcontour.io/gateway-controller"
	gwconfClass      = "contour"
	// gwconfAddress is the Gateways' address: requests without a Host
	// carry it, as the suite's client does.
	gwconfAddress = "192.0.2.10"
)

// gwconfExpectedPass are the conformance tests whose every request
// explain decides as the suite expects: a regression in one fails the
// test. (Read-only tables; nothing writes them.)
var gwconfExpectedPass = map[string]bool{
	"GRPCExactMethodMatching":                           true,
	"GRPCRouteHeaderMatching":                           true,
	"GRPCRouteListenerHostnameMatching":                 true,
	"GRPCRouteWeight":                                   true,
	"HTTPRouteBackendProtocolH2C":                       true,
	"HTTPRouteBackendRequestHeaderModifier":             true,
	"HTTPRouteCrossNamespace":                           true,
	"HTTPRouteExactPathMatching":                        true,
	"HTTPRouteHeaderMatching":                           true,
	"HTTPRouteHostnameIntersection":                     true,
	"HTTPRouteInvalidBackendRefUnknownKind":             true,
	"HTTPRouteInvalidCrossNamespaceBackendRef":          true,
	"HTTPRouteInvalidNonExistentBackendRef":             true,
	"HTTPRouteInvalidReferenceGrant":                    true,
	"HTTPRouteListenerHostnameMatching":                 true,
	"HTTPRouteMatching":                                 true,
	"HTTPRouteMatchingAcrossRoutes":                     true,
	"HTTPRouteMethodMatching":                           true,
	"HTTPRouteMultipleGateways":                         true,
	"HTTPRoutePartiallyInvalidViaInvalidReferenceGrant": true,
	"HTTPRoutePathMatchOrder":                           true,
	"HTTPRouteQueryParamMatching":                       true,
	"HTTPRouteRedirectHostAndStatus":                    true,
	"HTTPRouteRedirectPath":                             true,
	"HTTPRouteRedirectScheme":                           true,
	"HTTPRouteReferenceGrant":                           true,
	"HTTPRouteRequestHeaderModifier":                    true,
	"HTTPRouteRequestHeaderModifierBackendWeights":      true,
	"HTTPRouteRequestMirror":                            true,
	"HTTPRouteRequestMultipleMirrors":                   true,
	"HTTPRouteResponseHeaderModifier":                   true,
	"HTTPRouteRewriteHost":                              true,
	"HTTPRouteRewritePath":                              true,
	"HTTPRouteServiceTypes":                             true,
	"HTTPRouteSimpleSameNamespace":                      true,
	"HTTPRouteTimeoutBackendRequest":                    true,
	"HTTPRouteTimeoutRequest":                           true,
	"HTTPRouteWeight":                                   true,
}

// gwconfKnownFailures are the selected tests explain does not decide as
// the suite expects, and why.
var gwconfKnownFailures = map[string]string{
	// The suite (v1.4 on) wants 500 for a rule without backendRefs;
	// Contour v1.33 skips such a rule (ResolvedRefs=False, Degraded: "At
	// least one Spec.Rules.BackendRef must be specified"), so the request
	// falls through to the route's catch-all rule. contourc is Contour:
	// parity wins. Contour's report (Gateway API v1.3.0) predates the test.
	"HTTPRouteNoBackendRefs": "Contour v1.33 drops rules without backendRefs instead of answering 500",
}

func TestGatewayAPIConformance(t *testing.T) {
	dir := gwconfModuleDir(t)
	suite, err := suiteConsts(dir)
	if err != nil {
		t.Fatal(err)
	}
	supported, skipped, report := contourReport(t, dir)
	files, _ := filepath.Glob(filepath.Join(dir, "tests", "httproute-*.go"))
	grpcFiles, _ := filepath.Glob(filepath.Join(dir, "tests", "grpcroute-*.go"))
	files = append(files, grpcFiles...)
	var tests []*confTest
	for _, f := range files {
		ts, err := parseConfFile(f, suite)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		tests = append(tests, ts...)
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i].ShortName < tests[j].ShortName })
	base, err := os.ReadFile(filepath.Join(dir, "base", "manifests.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	common := gwconfCommon(t)

	// CONTOURC_GWCONF_ALL=1 also runs, for information, the tests that
	// Contour's report does not pass (features it does not claim).
	gwconfAll := os.Getenv("CONTOURC_GWCONF_ALL") != ""
	var selected, others []gwconfRow
	seen := map[string]bool{}
	for _, ct := range tests {
		why := selectTest(ct, supported, skipped)
		if len(ct.Requests) == 0 {
			t.Logf("not run: %s: no ExpectedResponse request found (%d left unevaluated)", ct.ShortName, ct.Unknown)
			continue
		}
		if ct.Literals != len(ct.Requests) {
			t.Logf("%s: %d ExpectedResponse literals in its source, %d requests found", ct.ShortName, ct.Literals, len(ct.Requests))
		}
		if why != "" && !gwconfAll {
			t.Logf("not run: %s: %s", ct.ShortName, why)
			continue
		}
		t.Run(ct.ShortName, func(t *testing.T) {
			passed, failures := runConfTest(t, dir, base, common, ct)
			r := gwconfRow{name: ct.ShortName, requests: len(ct.Requests), passed: passed, why: why}
			if len(failures) > 0 {
				r.failure = failures[0]
			}
			if why != "" {
				others = append(others, r)
				return
			}
			selected = append(selected, r)
			seen[ct.ShortName] = true
			ok := r.passed == r.requests
			known, isKnown := gwconfKnownFailures[ct.ShortName]
			switch {
			case !ok && gwconfExpectedPass[ct.ShortName]:
				for _, f := range failures {
					t.Error(f)
				}
			case !ok && isKnown:
				t.Logf("known failure (%s): %d of %d requests pass; first failure: %s", known, r.passed, r.requests, r.failure)
			case !ok:
				t.Logf("new failure (add it to gwconfKnownFailures with the reason, or fix it): %s", r.failure)
			case isKnown:
				t.Errorf("listed as a known failure (%s) but passes: move it to gwconfExpectedPass", known)
			case !gwconfExpectedPass[ct.ShortName]:
				t.Logf("passes but is not in gwconfExpectedPass: add it")
			}
		})
	}
	for name := range gwconfExpectedPass {
		if !seen[name] {
			t.Errorf("%s is in gwconfExpectedPass but was not run (renamed, or no longer selected by Contour's report?)", name)
		}
	}
	t.Logf("Gateway API conformance %s, the tests Contour's report %s passes, through explain:\n%s",
		filepath.Base(dir), report, gwconfTable(selected, false))
	if gwconfAll {
		t.Logf("the other tests with HTTP or gRPC requests (informational; never fail):\n%s", gwconfTable(others, true))
	}
}

// gwconfRow is one line of the table.
type gwconfRow struct {
	name             string
	requests, passed int
	failure          string // the first request that failed
	why              string // why Contour's report does not select it
}

func gwconfTable(rows []gwconfRow, why bool) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "TEST\tREQUESTS\tPASSED\tFIRST FAILURE\n")
	var reqs, passed, testsPassed int
	for _, r := range rows {
		failure := r.failure
		if why {
			failure = strings.TrimSpace("(" + r.why + ") " + failure)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", r.name, r.requests, r.passed, failure)
		reqs += r.requests
		passed += r.passed
		if r.passed == r.requests {
			testsPassed++
		}
	}
	fmt.Fprintf(tw, "total: %d/%d tests pass\t%d\t%d\t\n", testsPassed, len(rows), reqs, passed)
	tw.Flush()
	return b.String()
}

// gwconfModuleDir finds the conformance module of go.mod's gateway-api
// version in the module cache, or skips.
func gwconfModuleDir(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to find %s: %v", gwconfModule, err)
	}
	out, err := exec.Command(goCmd, "list", "-m", "-f", "{{.Version}}", "sigs.k8s.io/gateway-api").Output()
	if err != nil {
		t.Skipf("go list -m sigs.k8s.io/gateway-api: %v", err)
	}
	version := strings.TrimSpace(string(out))
	cache, err := exec.Command(goCmd, "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(cache)), filepath.FromSlash(gwconfModule)+"@"+version)
	if _, err := os.Stat(filepath.Join(dir, "base", "manifests.yaml")); err != nil {
		t.Skipf("%s@%s is not in the module cache (go mod download %s@%s fetches it): %v", gwconfModule, version, gwconfModule, version, err)
	}
	return dir
}

// contourReport reads the latest of Contour's conformance reports: the
// features it supports (with the core ones of its profiles) and the tests
// it skipped.
func contourReport(t *testing.T, dir string) (supported, skipped map[string]bool, name string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "reports", "*", "projectcontour-contour", "*.yaml"))
	type report struct {
		Date     string
		Profiles []struct {
			Name string
			Core struct {
				SkippedTests []string `yaml:"skippedTests"`
			}
			Extended struct {
				SkippedTests      []string `yaml:"skippedTests"`
				SupportedFeatures []string `yaml:"supportedFeatures"`
			}
		}
		SucceededProvisionalTests []string `yaml:"succeededProvisionalTests"`
	}
	var latest *report
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r report
		if err := yaml.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if latest == nil || r.Date > latest.Date {
			latest, name = &r, strings.TrimPrefix(f, filepath.Join(dir, "reports")+string(filepath.Separator))
		}
	}
	if latest == nil {
		t.Skipf("no Contour conformance report under %s/reports", dir)
	}
	// Core features of the GATEWAY-HTTP and GATEWAY-GRPC profiles.
	supported = map[string]bool{"Gateway": true, "HTTPRoute": true, "ReferenceGrant": true, "GRPCRoute": true}
	skipped = map[string]bool{}
	for _, p := range latest.Profiles {
		for _, f := range p.Extended.SupportedFeatures {
			supported[f] = true
		}
		for _, s := range append(p.Core.SkippedTests, p.Extended.SkippedTests...) {
			skipped[s] = true
		}
	}
	for _, s := range latest.SucceededProvisionalTests {
		supported["provisional:"+s] = true
	}
	return supported, skipped, name
}

// selectTest says why a test is not run, "" when it is.
func selectTest(ct *confTest, supported, skipped map[string]bool) string {
	if skipped[ct.ShortName] {
		return "skipped in Contour's report"
	}
	if ct.Provisional && !supported["provisional:"+ct.ShortName] {
		return "provisional"
	}
	var missing []string
	for _, f := range ct.Features {
		if !supported[f] {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return "Contour's report does not support " + strings.Join(missing, ", ")
	}
	return ""
}

// gwconfCommon is what the suite creates besides the manifests: Contour's
// GatewayClass and the self-signed certificates of its HTTPS listeners.
func gwconfCommon(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: %s\nspec:\n  controllerName: %s\n", gwconfClass, gwconfController)
	for _, s := range []struct{ ns, name string }{
		{"gateway-conformance-web-backend", "certificate"},
		{"gateway-conformance-infra", "tls-validity-checks-certificate"},
	} {
		crt, key := selfSigned(t, []string{"*", "*.org", "*.wildcard.org"})
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\nmetadata:\n  name: %s\n  namespace: %s\ndata:\n  tls.crt: %s\n  tls.key: %s\n",
			s.name, s.ns, base64.StdEncoding.EncodeToString(crt), base64.StdEncoding.EncodeToString(key))
	}
	return b.String()
}

func selfSigned(t *testing.T, names []string) (crt, key []byte) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: names[0]},
		DNSNames:     names,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

// runConfTest translates the test's manifests for each Gateway it sends
// requests to and evaluates every request.
func runConfTest(t *testing.T, dir string, base []byte, common string, ct *confTest) (passed int, failures []string) {
	in := t.TempDir()
	fill := func(b []byte) []byte {
		s := strings.ReplaceAll(string(b), "{GATEWAY_CLASS_NAME}", gwconfClass)
		return []byte(strings.ReplaceAll(s, "{GATEWAY_CONTROLLER_NAME}", gwconfController))
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(in, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("base.yaml", fill(base))
	write("common.yaml", []byte(common))
	for i, m := range ct.Manifests {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(m)))
		if err != nil {
			t.Fatal(err)
		}
		write(fmt.Sprintf("test-%d.yaml", i), fill(b))
	}
	loaded, err := loader.Load([]string{in}, loader.Options{})
	if err != nil {
		t.Fatalf("loading the manifests: %v", err)
	}
	ports := gatewayPorts(loaded.Objects)
	backing := serviceBackends(loaded.Objects, loaded.Workloads)
	configs := map[string]*Config{}
	for i, r := range ct.Requests {
		nn := types.NamespacedName{Namespace: r.Gateway.Namespace, Name: r.Gateway.Name}
		key := nn.String() + " " + strings.Join(r.Deleted, ",")
		cfg := configs[key]
		if cfg == nil {
			objs := slices.DeleteFunc(slices.Clone(loaded.Objects), func(o loader.Object) bool {
				return slices.Contains(r.Deleted, o.Kind+" "+o.Obj.GetNamespace()+"/"+o.Obj.GetName())
			})
			res, err := translate.Translate(objs, translate.Options{GatewayController: gwconfController, Gateway: &nn})
			if err != nil {
				t.Fatalf("translating for Gateway %s: %v", nn, err)
			}
			cfg = New(&res.Resources, SourcesFrom(objs))
			configs[key] = cfg
		}
		req := confHTTPRequest(r, ports[nn])
		if r.GRPC {
			req = confGRPCRequest(r, ports[nn])
		}
		name := fmt.Sprintf("request %d (%s %s%s via Gateway %s)", i, req.Method, req.Authority, req.Path, nn)
		d, err := cfg.Evaluate(req)
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		compare := compareConf
		if r.GRPC {
			compare = compareGRPC
		}
		if why := compare(r.Expected, req, d, backing); why != "" {
			failures = append(failures, fmt.Sprintf("%s: %s; explain: %s", name, why, Summary(d)))
			continue
		}
		passed++
	}
	return passed, failures
}

// serviceBackends maps each Service ("ns/name") with a selector to the
// Deployments whose pods it selects. A Service without a selector is left
// out: its EndpointSlices are the test's, which the suite's tests fill
// with the pods they choose at run time, so any backend is taken as its.
func serviceBackends(objs, workloads []loader.Object) map[string][]string {
	type deployment struct {
		ns, name string
		labels   map[string]string
	}
	var deployments []deployment
	for _, o := range workloads {
		u, ok := o.Obj.(*unstructured.Unstructured)
		if !ok || u.GetKind() != "Deployment" {
			continue
		}
		labels, _, _ := unstructured.NestedStringMap(u.Object, "spec", "template", "metadata", "labels")
		deployments = append(deployments, deployment{u.GetNamespace(), u.GetName(), labels})
	}
	out := map[string][]string{}
	for _, o := range objs {
		svc, ok := o.Obj.(*corev1.Service)
		if !ok || len(svc.Spec.Selector) == 0 {
			continue
		}
		key := svc.Namespace + "/" + svc.Name
		out[key] = []string{}
		for _, d := range deployments {
			if d.ns != svc.Namespace {
				continue
			}
			selected := true
			for k, v := range svc.Spec.Selector {
				selected = selected && d.labels[k] == v
			}
			if selected {
				out[key] = append(out[key], d.name)
			}
		}
	}
	return out
}

// listenerPort is a Gateway listener's name and port.
type listenerPort struct {
	name string
	port int
}

// gatewayPorts lists each Gateway's listeners in order.
func gatewayPorts(objs []loader.Object) map[types.NamespacedName][]listenerPort {
	out := map[types.NamespacedName][]listenerPort{}
	for _, o := range objs {
		gw, ok := o.Obj.(*gatewayv1.Gateway)
		if !ok {
			continue
		}
		nn := types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
		for _, l := range gw.Spec.Listeners {
			out[nn] = append(out[nn], listenerPort{string(l.Name), int(l.Port)})
		}
	}
	return out
}

// confHTTPRequest is the request the suite's client sends for r: to the
// Gateway's address and the port of its first (or named) listener, with
// the Host given or else the address (and the port unless 80).
func confHTTPRequest(r confRequest, listeners []listenerPort) Request {
	exp := r.Expected
	rq := exp.sub("Request")
	port := 80
	if r.UsePort && len(listeners) > 0 {
		port = listeners[0].port
		if len(r.Gateway.Listeners) > 0 {
			for _, l := range listeners {
				if l.name == r.Gateway.Listeners[0] {
					port = l.port
				}
			}
		}
	}
	host := rq.str("Host")
	if host == "" {
		host = gwconfAddress
		if port != 80 {
			host += ":" + strconv.Itoa(port)
		}
	}
	req := Request{Scheme: "http", Port: port, Authority: host, Method: rq.str("Method"), Path: rq.str("Path")}
	if req.Method == "" {
		req.Method = "GET"
	}
	if req.Path == "" {
		req.Path = "/"
	}
	hs := rq.strMap("Headers")
	names := make([]string, 0, len(hs))
	for n := range hs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		req.Headers = append(req.Headers, Header{Name: n, Value: hs[n]})
	}
	return req
}

// confGRPCRequest is the request the suite's gRPC client sends for r:
// a POST of the echo service's method over HTTP/2 (h2c), its metadata as
// headers, its :authority the one given or the Gateway's address:port.
func confGRPCRequest(r confRequest, listeners []listenerPort) Request {
	exp := r.Expected
	port := 80
	if len(listeners) > 0 {
		port = listeners[0].port
	}
	md := exp.sub("RequestMetadata")
	host := md.str("Authority")
	if host == "" {
		host = gwconfAddress + ":" + strconv.Itoa(port)
	}
	method := "EchoThree"
	switch {
	case exp.sub("EchoRequest") != nil:
		method = "Echo"
	case exp.sub("EchoTwoRequest") != nil:
		method = "EchoTwo"
	}
	req := Request{Scheme: "http", Port: port, Authority: host, Method: "POST",
		Path:    "/gateway_api_conformance.echo_basic.grpcecho.GrpcEcho/" + method,
		Headers: []Header{{Name: "content-type", Value: "application/grpc"}, {Name: "te", Value: "trailers"}}}
	meta := md.strMap("Metadata")
	names := make([]string, 0, len(meta))
	for n := range meta {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		req.Headers = append(req.Headers, Header{Name: strings.ToLower(n), Value: meta[n]})
	}
	return req
}
