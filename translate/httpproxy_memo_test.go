package translate

import (
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
)

// The HTTPProxy processor's work is taken from the Memo exactly when what
// it reads is the same as the last time: after changes to EndpointSlices
// and Ingresses, but not after one to an HTTPProxy, a Service or the
// options, nor when an Ingress takes a root's fqdn first. Every
// translation matches one without a Memo.
func TestMemoReplaysProxiesOnlyWhenTheirInputsAreTheSame(t *testing.T) {
	backend := pxBackend("default", "kuard") // the Service, then its EndpointSlice
	secret := mkTLSSecret(t, "default", "tls")
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
		replay bool
	}{
		{"first translation", base, Options{}, false},
		{"the same objects", base, Options{}, true},
		{"an EndpointSlice changed", objects(backend[0], moved, secure, ingress("ing.example.com")), Options{}, true},
		{"an Ingress changed", objects(backend[0], backend[1], secure, ingress("ing2.example.com")), Options{}, true},
		{"an Ingress takes a root's fqdn", objects(backend[0], backend[1], secure, ingress("example.com")), Options{}, false},
		{"the first objects again", base, Options{}, false},
		{"an HTTPProxy changed", objects(backend[0], backend[1], otherRoute, ingress("ing.example.com")), Options{}, false},
		{"the first objects, once more", base, Options{}, false},
		{"a Service changed", objects(otherPorts, backend[1], secure, ingress("ing.example.com")), Options{}, false},
		{"the first objects, again", base, Options{}, false},
		{"other root namespaces", base, Options{RootNamespaces: []string{"default", "other"}}, false},
	} {
		before := memo.replayedProxies.Load()
		opts := step.opts
		opts.Memo = memo
		got := translatedWithOptions(t, step.objs, opts)
		if want := translatedWithOptions(t, step.objs, step.opts); got != want {
			t.Errorf("%s: a translation with a memo differs from one without", step.name)
		}
		if replayed := memo.replayedProxies.Load() > before; replayed != step.replay {
			t.Errorf("%s: the processor's work taken from the memo: %v, want %v", step.name, replayed, step.replay)
		}
	}
}
