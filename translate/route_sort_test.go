package translate

// Route ordering within a virtual host (reference map E.3, Contour's
// internal/sorter) and the determinism of the whole translation.

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/internal/testpki"
)

// TestIngressRouteOrder checks the order of an Ingress's routes in the
// produced virtual host: exact (greater first), then regex (longer, then
// greater first), then prefixes (longer, then greater first; segment before
// string prefix of the same value).
func TestIngressRouteOrder(t *testing.T) {
	paths := []struct {
		pathType networkingv1.PathType
		path     string
	}{
		{ptPrefix, "/"},
		{ptImplSpec, "/foo"},
		{ptExact, "/a"},
		{ptPrefix, "/foo/"},
		{ptUnset, "/b.*"},
		{ptPrefix, "/abc"},
		{ptExact, "/a/very/long/exact"},
		{ptUnset, "/longer.*"},
		{ptPrefix, "/xyz"},
		{ptExact, "/z"},
		{ptImplSpec, "/foobar"},
		{ptUnset, "/c.*"},
	}
	want := []*routev3.RouteMatch{
		wantExact("/z"),
		wantExact("/a/very/long/exact"),
		wantExact("/a"),
		wantRegex("^/longer.*"),
		wantRegex("^/c.*"),
		wantRegex("^/b.*"),
		wantPrefix("/foobar"),
		wantSegmentPrefix("/xyz"),
		wantSegmentPrefix("/foo"),
		wantPrefix("/foo"),
		wantSegmentPrefix("/abc"),
		wantPrefix("/"),
	}
	for _, host := range []string{"", "*.example.com"} {
		t.Run("host "+host, func(t *testing.T) {
			var ps []networkingv1.HTTPIngressPath
			for _, p := range paths {
				ps = append(ps, ingPath(p.pathType, p.path, "kuard", 80))
			}
			ing := mkIngress("default", "order", ingRule(host, ps...))
			res := translateIngressT(t, Options{}, withKuard(ing)...)
			vh := host
			if vh == "" {
				vh = "*"
			}
			routes := mustRoutes(t, res, "ingress_http", vh)
			if len(routes) != len(want) {
				t.Fatalf("got %d routes, want %d", len(routes), len(want))
			}
			for i := range want {
				got := proto.Clone(routes[i].Match).(*routev3.RouteMatch)
				got.Headers = nil
				if !proto.Equal(got, want[i]) {
					t.Errorf("route %d = %v, want %v\norder: %v", i, got, want[i], describeMatches(routes))
				}
			}
		})
	}
}

func describeMatches(routes []*routev3.Route) string {
	var out []string
	for _, r := range routes {
		m := r.Match
		switch {
		case m.GetPath() != "":
			out = append(out, "exact:"+m.GetPath())
		case m.GetSafeRegex() != nil:
			out = append(out, "regex:"+m.GetSafeRegex().GetRegex())
		case m.GetPathSeparatedPrefix() != "":
			out = append(out, "segment:"+m.GetPathSeparatedPrefix())
		default:
			out = append(out, "prefix:"+m.GetPrefix())
		}
	}
	return strings.Join(out, " ")
}

// determinismObjects is a varied input: several Ingresses sharing hosts and
// paths, TLS with and without delegation, default backends, wildcard hosts,
// bad references, Services with and without endpoints.
func determinismObjects(t *testing.T) []metav1.Object {
	objs := []metav1.Object{
		mkService("default", "kuard", mkPort("http", 80), mkPort("admin", 9000)),
		mkAnnotate(mkService("default", "grpc", mkPort("grpc", 50051)), "projectcontour.io/upstream-protocol.h2c", "grpc", "projectcontour.io/max-connections", "10"),
		mkService("default", "noeps", mkPort("", 8080)),
		mkService("apps", "web", mkPort("http", 80)),
		mkEndpointSlice("default", "kuard-1", "kuard", []discoveryv1.EndpointPort{mkSlicePort("http", 8080), mkSlicePort("admin", 9000)},
			mkEndpoint(nil, "10.0.0.3"), mkEndpoint(nil, "10.0.0.1"), mkEndpoint(refOf(false), "10.0.0.9")),
		mkEndpointSlice("default", "kuard-2", "kuard", []discoveryv1.EndpointPort{mkSlicePort("http", 8080)},
			mkEndpoint(nil, "10.0.0.2"), mkEndpoint(nil, "10.0.0.1")),
		mkEndpointSlice("default", "grpc-1", "grpc", []discoveryv1.EndpointPort{mkSlicePort("grpc", 50051)}, mkEndpoint(nil, "10.0.1.1")),
		mkEndpointSlice("apps", "web-1", "web", []discoveryv1.EndpointPort{mkSlicePort("http", 8080)}, mkEndpoint(nil, "10.0.2.1")),
		testpki.TLSSecret(t, "default", "tls"),
		testpki.TLSSecret(t, "certs", "wild"),
		mkDelegation("certs", "to-apps", "wild", "apps"),
		testpki.Secret("default", "broken", "kubernetes.io/tls", map[string][]byte{"tls.crt": []byte("x")}),
		mkIngress("default", "a",
			ingDefaultBackend("kuard", "http"),
			ingTLS("tls", "foo.com"),
			ingRule("foo.com",
				ingPath(ptPrefix, "/", "kuard", 80),
				ingPath(ptExact, "/admin", "kuard", "admin"),
				ingPath(ptUnset, "/api/v[0-9]+", "grpc", 50051),
				ingPath(ptPrefix, "/missing", "nosuch", 80),
			),
		),
		mkIngress("default", "b",
			ingAnnotations("ingress.kubernetes.io/force-ssl-redirect", "true", "projectcontour.io/retry-on", "5xx"),
			ingTLS("broken", "bar.com"),
			ingRule("foo.com", ingPath(ptPrefix, "/", "noeps", 8080), ingPath(ptPrefix, "/b", "kuard", 80)),
			ingRule("bar.com", ingPath(ptPrefix, "/", "kuard", 80), ingPath(ptUnset, "/bad[", "kuard", 80)),
		),
		mkIngress("apps", "wild",
			ingAnnotations("projectcontour.io/tls-cert-namespace", "certs", "projectcontour.io/websocket-routes", "/ws"),
			ingTLS("wild", "*.apps.com"),
			ingRule("*.apps.com", ingPath(ptPrefix, "/", "web", 80), ingPath(ptPrefix, "/ws", "web", "http")),
			ingRule("", ingPath(ptPrefix, "/", "web", 80)),
		),
		mkIngress("default", "ignored", ingClassName("nginx"), ingRule("foo.com", ingPath(ptExact, "/ignored", "kuard", 80))),
	}
	return objs
}

// TestTranslateDeterministic: the same objects in shuffled order give equal
// resources and notices (each object keeps its Source).
func TestTranslateDeterministic(t *testing.T) {
	objs := mkObjects(t, determinismObjects(t)...)
	want, err := Translate(objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	validateAllResources(t, want.Resources)
	if len(want.Resources.RouteConfigs) < 3 || len(want.Resources.Clusters) < 3 || len(want.Notices) < 3 {
		t.Fatalf("the input is meant to exercise much more: %d route configs, %d clusters, %d notices",
			len(want.Resources.RouteConfigs), len(want.Resources.Clusters), len(want.Notices))
	}
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 20; i++ {
		shuffled := append([]loader.Object(nil), objs...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got, err := Translate(shuffled, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := diffResources(want.Resources, got.Resources); diff != "" {
			t.Fatalf("shuffle %d: %s", i, diff)
		}
		if !reflect.DeepEqual(want.Notices, got.Notices) {
			t.Fatalf("shuffle %d: notices differ:\n%v\n%v", i, noticeTexts(want.Notices), noticeTexts(got.Notices))
		}
	}
	// Translate must not have changed its input.
	if fresh := determinismObjects(t); !reflect.DeepEqual(objectsOf(objs), fresh) {
		t.Errorf("Translate modified its input objects")
	}
}

func objectsOf(objs []loader.Object) []metav1.Object {
	out := make([]metav1.Object, len(objs))
	for i, o := range objs {
		out[i] = o.Obj
	}
	return out
}

func noticeTexts(ns []Notice) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Kind+" "+n.Name+": "+n.Msg)
	}
	return out
}

// resourcesDiff names the first resource list that differs, "" if none.
func diffResources(a, b Resources) string {
	check := func(kind string, x, y []proto.Message) string {
		if len(x) != len(y) {
			return fmt.Sprintf("%s: %d vs %d", kind, len(x), len(y))
		}
		for i := range x {
			if !proto.Equal(x[i], y[i]) {
				return fmt.Sprintf("%s[%d] differs:\n%v\n%v", kind, i, x[i], y[i])
			}
		}
		return ""
	}
	for _, c := range []struct {
		kind string
		x, y []proto.Message
	}{
		{"listeners", asMessages(a.Listeners), asMessages(b.Listeners)},
		{"route configs", asMessages(a.RouteConfigs), asMessages(b.RouteConfigs)},
		{"clusters", asMessages(a.Clusters), asMessages(b.Clusters)},
		{"endpoints", asMessages(a.Endpoints), asMessages(b.Endpoints)},
		{"secrets", asMessages(a.Secrets), asMessages(b.Secrets)},
		{"runtimes", asMessages(a.Runtimes), asMessages(b.Runtimes)},
	} {
		if d := check(c.kind, c.x, c.y); d != "" {
			return d
		}
	}
	return ""
}

func asMessages[T proto.Message](in []T) []proto.Message {
	out := make([]proto.Message, len(in))
	for i, m := range in {
		out[i] = m
	}
	return out
}
