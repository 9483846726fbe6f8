package dag

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// TestSortRoutesConditions checks the order of routes with equal paths: a
// :method match first, then more headers, more query parameters, lower
// priority, then the header/query conditions themselves.
func TestSortRoutesConditions(t *testing.T) {
	hdr := func(name, value string) HeaderMatch {
		return HeaderMatch{Name: name, Type: HeaderExact, Value: value}
	}
	qry := func(name, value string) QueryMatch {
		return QueryMatch{Name: name, Type: "exact", Value: value}
	}
	prefix := PathMatch{Kind: PathPrefix, Value: "/"}
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
				named("one", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{hdr("x-a", "1")}}),
				named("two", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{hdr("x-a", "1"), hdr("x-b", "2")}}),
				named("method", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{hdr(":method", "GET")}}),
				named("method+one", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{hdr("x-z", "1"), hdr(":method", "GET")}}),
			},
			want: []string{"method+one", "method", "two", "one", "none"},
		},
		{
			name: "query count after header count",
			routes: []*Route{
				named("h1", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{hdr("x-a", "1")}}),
				named("q2", Route{PathMatch: prefix, QueryMatch: []QueryMatch{qry("a", "1"), qry("b", "2")}}),
				named("q1", Route{PathMatch: prefix, QueryMatch: []QueryMatch{qry("a", "1")}}),
				named("h1q1", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{hdr("x-a", "1")}, QueryMatch: []QueryMatch{qry("a", "1")}}),
			},
			want: []string{"h1q1", "h1", "q2", "q1"},
		},
		{
			name: "lower priority first",
			routes: []*Route{
				named("p2", Route{PathMatch: prefix, Priority: 2, HeaderMatch: []HeaderMatch{hdr("x", "0")}}),
				named("p0", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{hdr("x", "a")}}),
				named("p1", Route{PathMatch: prefix, Priority: 1, HeaderMatch: []HeaderMatch{hdr("x", "b")}}),
			},
			want: []string{"p0", "p1", "p2"},
		},
		{
			name: "header name, then type, then value",
			routes: []*Route{
				named("b-exact", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{hdr("x-b", "1")}}),
				named("a-present", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{{Name: "x-a", Type: HeaderPresent}}}),
				named("a-exact-2", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{hdr("x-a", "2")}}),
				named("a-exact-1", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{hdr("x-a", "1")}}),
				named("a-regex", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{{Name: "x-a", Type: HeaderRegex, Value: "0"}}}),
				named("a-contains", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{{Name: "x-a", Type: HeaderContains, Value: "0"}}}),
			},
			want: []string{"a-exact-1", "a-exact-2", "a-regex", "a-contains", "a-present", "b-exact"},
		},
		{
			name: "non-inverted before inverted",
			routes: []*Route{
				named("inverted", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{{Name: "x", Type: HeaderExact, Value: "1", Invert: true}}}),
				named("plain", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{hdr("x", "1")}}),
			},
			want: []string{"plain", "inverted"},
		},
		{
			name: "query name, type, value, case-sensitive first",
			routes: []*Route{
				named("b", Route{PathMatch: prefix, QueryMatch: []QueryMatch{qry("b", "1")}}),
				named("a-prefix", Route{PathMatch: prefix, QueryMatch: []QueryMatch{{Name: "a", Type: "prefix", Value: "1"}}}),
				named("a-exact-ci", Route{PathMatch: prefix, QueryMatch: []QueryMatch{{Name: "a", Type: "exact", Value: "1", IgnoreCase: true}}}),
				named("a-exact", Route{PathMatch: prefix, QueryMatch: []QueryMatch{qry("a", "1")}}),
			},
			want: []string{"a-exact", "a-exact-ci", "a-prefix", "b"},
		},
		{
			name: "path beats header count",
			routes: []*Route{
				named("prefix-many-headers", Route{PathMatch: prefix, HeaderMatch: []HeaderMatch{hdr(":method", "GET"), hdr("a", "1"), hdr("b", "2")}}),
				named("regex", Route{PathMatch: PathMatch{Kind: PathRegex, Value: "/.*"}}),
				named("exact", Route{PathMatch: PathMatch{Kind: PathExact, Value: "/x"}}),
				named("segment", Route{PathMatch: PathMatch{Kind: PathSegmentPrefix, Value: "/x"}}),
				named("string", Route{PathMatch: PathMatch{Kind: PathPrefix, Value: "/x"}, HeaderMatch: []HeaderMatch{hdr("a", "1")}}),
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
	r := &Route{PathMatch: PathMatch{Kind: PathPrefix, Value: "/"},
		HeaderMatch: []HeaderMatch{{Name: "x-b", Type: HeaderExact, Value: "1"}, {Name: ":method", Type: HeaderExact, Value: "GET"}, {Name: "x-a", Type: HeaderPresent}},
		QueryMatch:  []QueryMatch{{Name: "z", Type: "exact", Value: "1"}, {Name: "a", Type: "present"}},
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
		case PathExact:
			return 0
		case PathRegex:
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
		if a.PathMatch.Kind == PathSegmentPrefix {
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
	headerTypes := []HeaderMatchType{HeaderExact, HeaderRegex, HeaderContains, HeaderPresent}
	randomRoute := func() *Route {
		r := &Route{PathMatch: PathMatch{Kind: PathMatchKind(rng.Intn(4)), Value: values[rng.Intn(len(values))]}, Priority: rng.Intn(2)}
		seen := map[string]bool{}
		for i := rng.Intn(3); i > 0; i-- {
			name := headerNames[rng.Intn(len(headerNames))]
			if seen[name] {
				continue
			}
			seen[name] = true
			r.HeaderMatch = append(r.HeaderMatch, HeaderMatch{Name: name, Type: headerTypes[rng.Intn(len(headerTypes))], Value: fmt.Sprint(rng.Intn(2)), Invert: rng.Intn(4) == 0})
		}
		for i := rng.Intn(2); i > 0; i-- {
			r.QueryMatch = append(r.QueryMatch, QueryMatch{Name: "q", Type: "exact", Value: fmt.Sprint(rng.Intn(2)), IgnoreCase: rng.Intn(2) == 0})
		}
		return r
	}
	for round := 0; round < 50; round++ {
		// Routes of one virtual host have distinct conditions.
		byKey := map[string]*Route{}
		for i := 0; i < 30; i++ {
			r := randomRoute()
			byKey[ConditionsKey(r)] = r
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
				c.HeaderMatch = append([]HeaderMatch(nil), r.HeaderMatch...)
				c.QueryMatch = append([]QueryMatch(nil), r.QueryMatch...)
				routes[i] = &c
			}
			rng.Shuffle(len(routes), func(i, j int) { routes[i], routes[j] = routes[j], routes[i] })
			sortRoutes(routes)
			var keys []string
			for _, r := range routes {
				keys = append(keys, ConditionsKey(r))
			}
			if first == nil {
				first = keys
			} else if !reflect.DeepEqual(keys, first) {
				t.Fatalf("round %d: order depends on input order:\n%v\n%v", round, first, keys)
			}
			// A virtual host sorts its routes by the keys it holds them
			// by, worked out before their conditions were put in order.
			vh := &VirtualHost{Routes: map[string]*Route{}}
			for _, r := range base {
				c := *r
				c.HeaderMatch = append([]HeaderMatch(nil), r.HeaderMatch...)
				c.QueryMatch = append([]QueryMatch(nil), r.QueryMatch...)
				vh.AddRoute(&c)
			}
			var held []string
			for _, r := range vh.Ordered() {
				held = append(held, ConditionsKey(r))
			}
			if !reflect.DeepEqual(held, first) {
				t.Fatalf("round %d: a virtual host orders its routes otherwise:\n%v\n%v", round, first, held)
			}
			for i := range routes {
				for j := i + 1; j < len(routes); j++ {
					if routeRankForTest(routes[i], routes[j]) > 0 {
						t.Fatalf("round %d: %s sorted before %s", round, ConditionsKey(routes[i]), ConditionsKey(routes[j]))
					}
				}
			}
		}
	}
}

// sortRoutes sorts routes in place in Envoy match order, as a virtual host
// orders the routes it holds.
func sortRoutes(routes []*Route) {
	keyed := make([]keyedRoute, len(routes))
	for i, r := range routes {
		keyed[i] = keyedRoute{ConditionsKey(r), r}
	}
	sortKeyedRoutes(keyed)
	for i, k := range keyed {
		routes[i] = k.route
	}
}
