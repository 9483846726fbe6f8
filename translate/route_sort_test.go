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
	"github.com/contourc/contourc/translate/dag"
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

// TestSortRoutesConditions checks the order of routes with equal paths: a
// :method match first, then more headers, more query parameters, lower
// priority, then the header/query conditions themselves.
func TestSortRoutesConditions(t *testing.T) {
	hdr := func(name, value string) dag.HeaderMatch {
		return dag.HeaderMatch{Name: name, Type: dag.HeaderExact, Value: value}
	}
	qry := func(name, value string) dag.QueryMatch {
		return dag.QueryMatch{Name: name, Type: "exact", Value: value}
	}
	prefix := dag.PathMatch{Kind: dag.PathPrefix, Value: "/"}
	named := func(name string, r Route) *Route { r.Name = name; return &r }

	tests := []struct {
		name   string
		routes []*Route
		want   []string
	}{
		{
			name: "method, then header count",
			routes: []*Route{
				named("none", Route{PathMatch: prefix}),
				named("one", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{hdr("x-a", "1")}}),
				named("two", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{hdr("x-a", "1"), hdr("x-b", "2")}}),
				named("method", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{hdr(":method", "GET")}}),
				named("method+one", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{hdr("x-z", "1"), hdr(":method", "GET")}}),
			},
			want: []string{"method+one", "method", "two", "one", "none"},
		},
		{
			name: "query count after header count",
			routes: []*Route{
				named("h1", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{hdr("x-a", "1")}}),
				named("q2", Route{PathMatch: prefix, QueryMatch: []dag.QueryMatch{qry("a", "1"), qry("b", "2")}}),
				named("q1", Route{PathMatch: prefix, QueryMatch: []dag.QueryMatch{qry("a", "1")}}),
				named("h1q1", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{hdr("x-a", "1")}, QueryMatch: []dag.QueryMatch{qry("a", "1")}}),
			},
			want: []string{"h1q1", "h1", "q2", "q1"},
		},
		{
			name: "lower priority first",
			routes: []*Route{
				named("p2", Route{PathMatch: prefix, Priority: 2, HeaderMatch: []dag.HeaderMatch{hdr("x", "0")}}),
				named("p0", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{hdr("x", "a")}}),
				named("p1", Route{PathMatch: prefix, Priority: 1, HeaderMatch: []dag.HeaderMatch{hdr("x", "b")}}),
			},
			want: []string{"p0", "p1", "p2"},
		},
		{
			name: "header name, then type, then value",
			routes: []*Route{
				named("b-exact", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{hdr("x-b", "1")}}),
				named("a-present", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{{Name: "x-a", Type: dag.HeaderPresent}}}),
				named("a-exact-2", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{hdr("x-a", "2")}}),
				named("a-exact-1", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{hdr("x-a", "1")}}),
				named("a-regex", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{{Name: "x-a", Type: dag.HeaderRegex, Value: "0"}}}),
				named("a-contains", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{{Name: "x-a", Type: dag.HeaderContains, Value: "0"}}}),
			},
			want: []string{"a-exact-1", "a-exact-2", "a-regex", "a-contains", "a-present", "b-exact"},
		},
		{
			name: "non-inverted before inverted",
			routes: []*Route{
				named("inverted", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{{Name: "x", Type: dag.HeaderExact, Value: "1", Invert: true}}}),
				named("plain", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{hdr("x", "1")}}),
			},
			want: []string{"plain", "inverted"},
		},
		{
			name: "query name, type, value, case-sensitive first",
			routes: []*Route{
				named("b", Route{PathMatch: prefix, QueryMatch: []dag.QueryMatch{qry("b", "1")}}),
				named("a-prefix", Route{PathMatch: prefix, QueryMatch: []dag.QueryMatch{{Name: "a", Type: "prefix", Value: "1"}}}),
				named("a-exact-ci", Route{PathMatch: prefix, QueryMatch: []dag.QueryMatch{{Name: "a", Type: "exact", Value: "1", IgnoreCase: true}}}),
				named("a-exact", Route{PathMatch: prefix, QueryMatch: []dag.QueryMatch{qry("a", "1")}}),
			},
			want: []string{"a-exact", "a-exact-ci", "a-prefix", "b"},
		},
		{
			name: "path beats header count",
			routes: []*Route{
				named("prefix-many-headers", Route{PathMatch: prefix, HeaderMatch: []dag.HeaderMatch{hdr(":method", "GET"), hdr("a", "1"), hdr("b", "2")}}),
				named("regex", Route{PathMatch: dag.PathMatch{Kind: dag.PathRegex, Value: "/.*"}}),
				named("exact", Route{PathMatch: dag.PathMatch{Kind: dag.PathExact, Value: "/x"}}),
				named("segment", Route{PathMatch: dag.PathMatch{Kind: dag.PathSegmentPrefix, Value: "/x"}}),
				named("string", Route{PathMatch: dag.PathMatch{Kind: dag.PathPrefix, Value: "/x"}, HeaderMatch: []dag.HeaderMatch{hdr("a", "1")}}),
			},
			want: []string{"exact", "regex", "segment", "string", "prefix-many-headers"},
		},
	}
	rng := rand.New(rand.NewSource(1))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := 0; i < 20; i++ {
				routes := append([]*Route(nil), tt.routes...)
				rng.Shuffle(len(routes), func(i, j int) { routes[i], routes[j] = routes[j], routes[i] })
				sortRoutes(routes)
				var got []string
				for _, r := range routes {
					got = append(got, r.Name)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("order = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// TestSortRoutesHeaderConditionsSorted: each route's own header and query
// conditions are sorted (Contour sorts them in place before sorting routes),
// so the produced header matchers do not depend on input order.
func TestSortRoutesHeaderConditionsSorted(t *testing.T) {
	r := &Route{PathMatch: dag.PathMatch{Kind: dag.PathPrefix, Value: "/"},
		HeaderMatch: []dag.HeaderMatch{{Name: "x-b", Type: dag.HeaderExact, Value: "1"}, {Name: ":method", Type: dag.HeaderExact, Value: "GET"}, {Name: "x-a", Type: dag.HeaderPresent}},
		QueryMatch:  []dag.QueryMatch{{Name: "z", Type: "exact", Value: "1"}, {Name: "a", Type: "present"}},
	}
	sortRoutes([]*Route{r})
	var hs, qs []string
	for _, h := range r.HeaderMatch {
		hs = append(hs, h.Name)
	}
	for _, q := range r.QueryMatch {
		qs = append(qs, q.Name)
	}
	if want := []string{":method", "x-a", "x-b"}; !reflect.DeepEqual(hs, want) {
		t.Errorf("headers = %v, want %v", hs, want)
	}
	if want := []string{"a", "z"}; !reflect.DeepEqual(qs, want) {
		t.Errorf("query = %v, want %v", qs, want)
	}
}

// routeRankForTest re-states the strict-weak part of the ordering
// independently of route_sort.go: path kind, path, segment before string
// prefix, :method, header count, query count, priority. It returns <0 when a
// must come before b, >0 when after, 0 when the rest of the ordering decides.
func routeRankForTest(a, b *Route) int {
	kind := func(r *Route) int {
		switch r.PathMatch.Kind {
		case dag.PathExact:
			return 0
		case dag.PathRegex:
			return 1
		default:
			return 2
		}
	}
	if ka, kb := kind(a), kind(b); ka != kb {
		return ka - kb
	}
	va, vb := a.PathMatch.Value, b.PathMatch.Value
	if kind(a) != 0 && len(va) != len(vb) {
		return len(vb) - len(va)
	}
	if va != vb {
		return -strings.Compare(va, vb)
	}
	if kind(a) == 2 && a.PathMatch.Kind != b.PathMatch.Kind {
		if a.PathMatch.Kind == dag.PathSegmentPrefix {
			return -1
		}
		return 1
	}
	count := func(r *Route) (method bool, headers int) {
		for _, h := range r.HeaderMatch {
			if h.Name == ":method" {
				method = true
			} else {
				headers++
			}
		}
		return method, headers
	}
	ma, ha := count(a)
	mb, hb := count(b)
	switch {
	case ma != mb:
		if ma {
			return -1
		}
		return 1
	case ha != hb:
		return hb - ha
	case len(a.QueryMatch) != len(b.QueryMatch):
		return len(b.QueryMatch) - len(a.QueryMatch)
	}
	return a.Priority - b.Priority
}

// TestSortRoutesRandomized sorts random routes in random input orders: the
// result must be the same every time and respect the strict-weak part of
// the ordering for every pair, even though the last step of Contour's
// comparison (pairwise header scan) is not a strict weak order.
func TestSortRoutesRandomized(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	values := []string{"/", "/a", "/b", "/ab", "/abc", "/a/b"}
	headerNames := []string{":method", "x-a", "x-b"}
	headerTypes := []dag.HeaderMatchType{dag.HeaderExact, dag.HeaderRegex, dag.HeaderContains, dag.HeaderPresent}
	randomRoute := func() *Route {
		r := &Route{PathMatch: dag.PathMatch{Kind: dag.PathMatchKind(rng.Intn(4)), Value: values[rng.Intn(len(values))]}, Priority: rng.Intn(2)}
		seen := map[string]bool{}
		for i := rng.Intn(3); i > 0; i-- {
			name := headerNames[rng.Intn(len(headerNames))]
			if seen[name] {
				continue
			}
			seen[name] = true
			r.HeaderMatch = append(r.HeaderMatch, dag.HeaderMatch{Name: name, Type: headerTypes[rng.Intn(len(headerTypes))], Value: fmt.Sprint(rng.Intn(2)), Invert: rng.Intn(4) == 0})
		}
		for i := rng.Intn(2); i > 0; i-- {
			r.QueryMatch = append(r.QueryMatch, dag.QueryMatch{Name: "q", Type: "exact", Value: fmt.Sprint(rng.Intn(2)), IgnoreCase: rng.Intn(2) == 0})
		}
		return r
	}
	for round := 0; round < 50; round++ {
		// Routes of one virtual host have distinct conditions.
		byKey := map[string]*Route{}
		for i := 0; i < 30; i++ {
			r := randomRoute()
			byKey[conditionsKey(r)] = r
		}
		var base []*Route
		for _, r := range byKey {
			base = append(base, r)
		}
		var first []string
		for shuffle := 0; shuffle < 10; shuffle++ {
			routes := make([]*Route, len(base))
			for i, r := range base {
				c := *r
				c.HeaderMatch = append([]dag.HeaderMatch(nil), r.HeaderMatch...)
				c.QueryMatch = append([]dag.QueryMatch(nil), r.QueryMatch...)
				routes[i] = &c
			}
			rng.Shuffle(len(routes), func(i, j int) { routes[i], routes[j] = routes[j], routes[i] })
			sortRoutes(routes)
			var keys []string
			for _, r := range routes {
				keys = append(keys, conditionsKey(r))
			}
			if first == nil {
				first = keys
			} else if !reflect.DeepEqual(keys, first) {
				t.Fatalf("round %d: order depends on input order:\n%v\n%v", round, first, keys)
			}
			// A virtual host sorts its routes by the keys it holds them
			// by, worked out before their conditions were put in order.
			vh := &VirtualHost{routes: map[string]*Route{}}
			for _, r := range base {
				c := *r
				c.HeaderMatch = append([]dag.HeaderMatch(nil), r.HeaderMatch...)
				c.QueryMatch = append([]dag.QueryMatch(nil), r.QueryMatch...)
				vh.addRoute(&c)
			}
			var held []string
			for _, r := range vh.ordered() {
				held = append(held, conditionsKey(r))
			}
			if !reflect.DeepEqual(held, first) {
				t.Fatalf("round %d: a virtual host orders its routes otherwise:\n%v\n%v", round, first, held)
			}
			for i := range routes {
				for j := i + 1; j < len(routes); j++ {
					if routeRankForTest(routes[i], routes[j]) > 0 {
						t.Fatalf("round %d: %s sorted before %s", round, conditionsKey(routes[i]), conditionsKey(routes[j]))
					}
				}
			}
		}
	}
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
		mkTLSSecret(t, "default", "tls"),
		mkTLSSecret(t, "certs", "wild"),
		mkDelegation("certs", "to-apps", "wild", "apps"),
		mkSecret("default", "broken", "kubernetes.io/tls", map[string][]byte{"tls.crt": []byte("x")}),
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

// sortRoutes sorts routes in place in Envoy match order, as a virtual host
// orders the routes it holds.
func sortRoutes(routes []*Route) {
	keyed := make([]keyedRoute, len(routes))
	for i, r := range routes {
		keyed[i] = keyedRoute{conditionsKey(r), r}
	}
	sortKeyedRoutes(keyed)
	for i, k := range keyed {
		routes[i] = k.route
	}
}
