package translate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/internal/testpki"
	"k8s.io/apimachinery/pkg/types"
)

// TestHTTPRoutesConvertedAheadMatchInOrder checks that converting the
// HTTPRoutes on every CPU before attaching them gives what converting each
// as it is attached gives: routes that conflict, attach to two listeners
// or twice, report problems, and use a BackendTLSPolicy whose status
// names the last parentRef it was applied for.
func TestHTTPRoutesConvertedAheadMatchInOrder(t *testing.T) {
	objs := loadYAMLForTest(t, manyHTTPRoutes(t, 64))
	gateway := Options{Gateway: &gatewayName}
	want := translatedWithOptions(t, objs, Options{Gateway: &gatewayName, httpRoutesInOrder: true})
	if !strings.Contains(want, "RuleMatchConflict") || !strings.Contains(want, "BackendNotFound") || !strings.Contains(want, "Accepted BackendTLSPolicy") {
		t.Fatalf("the input does not exercise conflicts, bad references and policies:\n%s", want)
	}
	for i := range 3 {
		if got := translatedWithOptions(t, objs, gateway); got != want {
			t.Fatalf("run %d: HTTPRoutes converted ahead differ from HTTPRoutes converted in order", i+1)
		}
	}
}

var gatewayName = types.NamespacedName{Namespace: "gw", Name: "edge"}

// manyHTTPRoutes is a Gateway with two HTTP listeners and n HTTPRoutes of
// many kinds.
func manyHTTPRoutes(t *testing.T, n int) string {
	ca := strings.ReplaceAll(strings.TrimSpace(string(testpki.Certs(t).CertPEM)), "\n", "\n    ")
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: contour}
spec: {controllerName: projectcontour.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: gw}
spec:
  gatewayClassName: contour
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
  - {name: alt, protocol: HTTP, port: 8080, hostname: "*.example.com", allowedRoutes: {namespaces: {from: All}}}
status:
  addresses: [{type: IPAddress, value: 10.0.0.1}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: secure, namespace: default}
spec: {ports: [{name: https, port: 443}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ca, namespace: default}
data:
  ca.crt: |
    %s
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: secure, namespace: default}
spec:
  targetRefs: [{group: "", kind: Service, name: secure}]
  validation: {hostname: secure.example.com, caCertificateRefs: [{group: "", kind: ConfigMap, name: ca}]}
`, ca)
	for i := range n {
		host := fmt.Sprintf("host-%d.example.com", i%20)
		parents := "[{name: edge, namespace: gw}]"
		switch i % 5 {
		case 1:
			parents = "[{name: edge, namespace: gw, sectionName: http}, {name: edge, namespace: gw, sectionName: alt}]"
		case 2:
			parents = "[{name: other, namespace: gw}]"
		}
		rule := fmt.Sprintf("{matches: [{path: {type: PathPrefix, value: /p%d}}], backendRefs: [{name: web, port: 80}]}", i%7)
		switch i % 6 {
		case 1:
			rule = "{backendRefs: [{name: missing, port: 80}, {name: web, port: 80, weight: 3}]}"
		case 2:
			rule = "{matches: [{path: {type: Exact, value: /secure}}], backendRefs: [{name: secure, port: 443}]}"
		case 3:
			rule = "{filters: [{type: RequestRedirect, requestRedirect: {scheme: https}}, {type: RequestMirror, requestMirror: {backendRef: {name: gone, port: 80}}}]}"
		case 4:
			rule = "{matches: [{path: {type: PathPrefix, value: /bad}}, {headers: [{name: x, value: \"y\"}]}], timeouts: {request: 1s}, backendRefs: [{name: web, port: 80}]}"
		case 5:
			rule = "{timeouts: {request: 2s, backendRequest: 1s}, backendRefs: [{name: web, port: 80}]}"
		}
		fmt.Fprintf(&b, `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route-%02d, namespace: default}
spec:
  parentRefs: %s
  hostnames: [%s]
  rules: [%s, {matches: [{path: {type: PathPrefix, value: /shared}}], backendRefs: [{name: web, port: 80}]}]
`, i, parents, host, rule)
	}
	return b.String()
}

// loadYAMLForTest loads YAML text as the loader loads standard input.
func loadYAMLForTest(t *testing.T, text string) []loader.Object {
	t.Helper()
	res, err := loader.Load([]string{"-"}, loader.Options{Stdin: strings.NewReader(text)})
	if err != nil {
		t.Fatal(err)
	}
	return res.Objects
}
