package translate

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/internal/testpki"
)

// The HTTPProxy processor's work is taken from the Memo exactly when what
// it reads is the same as the last time: after changes to EndpointSlices
// and Ingresses, but not after one to an HTTPProxy, a Service or the
// options, nor when an Ingress takes a root's fqdn first. Every
// translation matches one without a Memo.
func TestMemoReplaysProxiesOnlyWhenTheirInputsAreTheSame(t *testing.T) {
	backend := pxBackend("default", "kuard") // the Service, then its EndpointSlice
	secret := testpki.TLSSecret(t, "default", "tls")
	secure := pxRoot(pxTLSSecret("tls"), pxRoutes(pxRouteTo(pxSvc("kuard", 80))))
	plain := pxProxy("default", "other", pxFQDN("other.example.com"), pxRoutes(pxRouteTo(pxSvc("kuard", 80))))
	ingress := func(host string) *networkingv1.Ingress {
		return mkIngress("default", "ing", ingRule(host, ingPath(networkingv1.PathTypePrefix, "/ing", "kuard", 80)))
	}
	// objects are the input with the Service, the EndpointSlice, the
	// proxy and the Ingress given; the others stay the same objects.
	objects := func(svc, slice metav1.Object, proxy metav1.Object, ing *networkingv1.Ingress) []loader.Object {
		return pxObjects(t, svc, slice, secret, proxy, plain, ing)
	}
	base := objects(backend[0], backend[1], secure, ingress("ing.example.com"))
	moved := mkEndpointSlice("default", "kuard-abc", "kuard",
		[]discoveryv1.EndpointPort{mkSlicePort("http", 8080), mkSlicePort("", 8443)}, mkEndpoint(nil, "10.0.0.2"))
	otherRoute := pxRoot(pxTLSSecret("tls"), pxRoutes(pxRoute(pxConds(pxPrefix("/v2")), pxSvc("kuard", 80))))
	otherPorts := mkService("default", "kuard", mkPort("http", 80))

	memo := NewMemo()
	for _, step := range []struct {
		name   string
		objs   []loader.Object
		opts   Options
		replay bool // the processor's work taken whole
		roots  int  // roots whose work is taken on its own
	}{
		{"first translation", base, Options{}, false, 0},
		{"the same objects", base, Options{}, true, 0},
		{"an EndpointSlice changed", objects(backend[0], moved, secure, ingress("ing.example.com")), Options{}, true, 0},
		{"an Ingress changed", objects(backend[0], backend[1], secure, ingress("ing2.example.com")), Options{}, true, 0},
		{"an Ingress takes a root's fqdn", objects(backend[0], backend[1], secure, ingress("example.com")), Options{}, false, 0},
		{"the first objects again", base, Options{}, false, 0},
		{"one root changed: the other is taken on its own", objects(backend[0], backend[1], otherRoute, ingress("ing.example.com")), Options{}, false, 1},
		{"the first objects, once more: the other root again", base, Options{}, false, 1},
		{"a Service changed", objects(otherPorts, backend[1], secure, ingress("ing.example.com")), Options{}, false, 0},
		{"the first objects, again", base, Options{}, false, 0},
		{"other root namespaces", base, Options{RootNamespaces: []string{"default", "other"}}, false, 0},
	} {
		whole, roots := memo.proxies.Replays()
		opts := step.opts
		opts.Memo = memo
		got := translatedWithOptions(t, step.objs, opts)
		if want := translatedWithOptions(t, step.objs, step.opts); got != want {
			t.Errorf("%s: a translation with a memo differs from one without", step.name)
		}
		nowWhole, nowRoots := memo.proxies.Replays()
		if replayed := nowWhole > whole; replayed != step.replay {
			t.Errorf("%s: the processor's work taken whole from the memo: %v, want %v", step.name, replayed, step.replay)
		}
		if n := nowRoots - roots; n != int64(step.roots) {
			t.Errorf("%s: %d roots' work taken from the memo on its own, want %d", step.name, n, step.roots)
		}
	}
}

// A virtual host a later processor added routes to keeps no route order
// for the next replay: an HTTPRoute that went away must take its route
// with it.
func TestMemoReplayForgetsRoutesAddedLater(t *testing.T) {
	const common = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: contour}
spec: {controllerName: projectcontour.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: contour, namespace: projectcontour}
spec:
  gatewayClassName: contour
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: root, namespace: default}
spec:
  virtualhost: {fqdn: example.com}
  routes:
  - services: [{name: kuard, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: kuard, namespace: default}
spec:
  ports: [{name: http, port: 80}]
`
	const route = `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: gw, namespace: default}
spec:
  parentRefs: [{name: contour, namespace: projectcontour}]
  hostnames: [example.com]
  rules:
  - matches: [{path: {type: PathPrefix, value: /gw}}]
    backendRefs: [{name: kuard, port: 80}]
`
	withRoute := loadYAMLForTest(t, common+route)
	// The same objects but the HTTPRoute: the processor's inputs are
	// the same pointers.
	withoutRoute := slices.DeleteFunc(slices.Clone(withRoute), func(o loader.Object) bool { return o.Kind == "HTTPRoute" })
	gateway := &types.NamespacedName{Namespace: "projectcontour", Name: "contour"}
	memo := NewMemo()
	for i, objs := range [][]loader.Object{withRoute, withoutRoute, withRoute, withoutRoute} {
		got := translatedWithOptions(t, objs, Options{Gateway: gateway, Memo: memo})
		if want := translatedWithOptions(t, objs, Options{Gateway: gateway}); got != want {
			t.Fatalf("translation %d: a translation with a memo differs from one without", i+1)
		}
	}
	if whole, _ := memo.proxies.Replays(); whole != 3 {
		t.Errorf("the processor's work was taken from the memo %d times, want 3", whole)
	}
}

// Processing roots apart, in parallel, gives what processing them in
// order gives: many roots including one child (each visit's status kept by
// visit's rule), a missing include, a root included, an include cycle, a
// duplicate fqdn, TLS with good and missing Secrets, and an orphan; with
// and without a Memo.
func TestRootsApartMatchInOrder(t *testing.T) {
	var items []any
	items = append(items, pxBackend("default", "kuard"), testpki.TLSSecret(t, "default", "tls"))
	shared := pxProxy("default", "shared", pxRoutes(pxRoute(pxConds(pxPrefix("/s")), pxSvc("kuard", 80)), pxRoute(pxConds(pxPrefix("/bad")), pxSvc("missing", 80))))
	cycleA := pxProxy("default", "cycle-a", pxIncludes(pxInclude("cycle-b", "default")))
	cycleB := pxProxy("default", "cycle-b", pxIncludes(pxInclude("cycle-a", "default")))
	orphan := pxProxy("default", "orphan", pxRoutes(pxRouteTo(pxSvc("kuard", 80))))
	items = append(items, shared, cycleA, cycleB, orphan)
	for i := range 64 {
		opts := []pxOpt{pxFQDN(fmt.Sprintf("host-%d.example.com", i%60)), pxRoutes(pxRouteTo(pxSvc("kuard", 80)))}
		incs := []contourv1.Include{pxInclude("shared", "default", pxPrefix(fmt.Sprintf("/r%d", i)))}
		switch i % 8 {
		case 1:
			incs = append(incs, pxInclude("missing", "default", pxPrefix("/m")))
		case 2:
			incs = append(incs, pxInclude("root-0", "default", pxPrefix("/root")))
		case 3:
			incs = append(incs, pxInclude("cycle-a", "default", pxPrefix("/c")))
		case 4:
			opts = append(opts, pxTLSSecret("tls"))
		case 5:
			opts = append(opts, pxTLSSecret("no-such-secret"))
		}
		items = append(items, pxProxy("default", fmt.Sprintf("root-%d", i), append(opts, pxIncludes(incs...))...))
	}
	objs := pxObjects(t, pxFlat(items...)...)
	want := translatedWithOptions(t, objs, Options{rootsInOrder: true})
	if got := translatedWithOptions(t, objs, Options{}); got != want {
		t.Error("roots processed apart differ from roots processed in order")
	}
	// In order, with a Memo, nothing is recorded to take again.
	inOrderMemo := NewMemo()
	for i := range 2 {
		if got := translatedWithOptions(t, objs, Options{Memo: inOrderMemo, rootsInOrder: true}); got != want {
			t.Errorf("in order with a memo, translation %d differs", i+1)
		}
	}
	memo := NewMemo()
	for i := range 2 {
		if got := translatedWithOptions(t, objs, Options{Memo: memo}); got != want {
			t.Errorf("with a memo, translation %d: roots processed apart differ from roots processed in order", i+1)
		}
	}
	if !strings.Contains(want, "IncludeCreatesCycle") || !strings.Contains(want, "RootIncludesRoot") || !strings.Contains(want, "DuplicateVhost") || !strings.Contains(want, "Orphaned") {
		t.Error("the input does not exercise what it should")
	}
}
