package routetest

import (
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// RouteMatch path specifiers as RouteMatch documents them: prefix on the
// whole :path (query included); path, path_separated_prefix and
// safe_regex on the path without the query string; safe_regex anchored;
// case_sensitive for all but safe_regex.
func TestMatchPath(t *testing.T) {
	insensitive := func(m *routev3.RouteMatch) *routev3.RouteMatch {
		m.CaseSensitive = wrapperspb.Bool(false)
		return m
	}
	tests := []struct {
		name string
		m    *routev3.RouteMatch
		path string
		want bool
	}{
		{"prefix", matchPrefix("/api"), "/api/v1", true},
		{"prefix is not path-aware", matchPrefix("/api"), "/apis", true},
		{"prefix /", matchPrefix("/"), "/anything", true},
		{"empty prefix", matchPrefix(""), "/", true},
		{"prefix sees the query string", matchPrefix("/search?q="), "/search?q=x", true},
		{"prefix is case-sensitive", matchPrefix("/API"), "/api", false},
		{"prefix case-insensitive", insensitive(matchPrefix("/API")), "/api/x", true},
		{"path", matchExactPath("/a"), "/a", true},
		{"path ignores the query", matchExactPath("/a"), "/a?x=1", true},
		{"path is exact", matchExactPath("/a"), "/a/", false},
		{"path case-insensitive", insensitive(matchExactPath("/A")), "/a", true},

		// path_separated_prefix: the documentation's own examples.
		{"separated: itself", matchSeparated("/api/dev"), "/api/dev", true},
		{"separated: trailing slash", matchSeparated("/api/dev"), "/api/dev/", true},
		{"separated: below", matchSeparated("/api/dev"), "/api/dev/v1", true},
		{"separated: query", matchSeparated("/api/dev"), "/api/dev?param=true", true},
		{"separated: not a longer segment", matchSeparated("/api/dev"), "/api/developer", false},
		{"separated: not a parent", matchSeparated("/api/dev"), "/api", false},
		{"separated: query is not a segment", matchSeparated("/api"), "/apix?y", false},
		{"separated: case-sensitive", matchSeparated("/Api"), "/api/x", false},
		{"separated: case-insensitive", insensitive(matchSeparated("/Api")), "/api/x", true},
		{"separated: fragment", matchSeparated("/api"), "/api#frag", true},

		{"regex full path", matchRegex(`/a/[0-9]+`), "/a/12", true},
		{"regex must match the whole path", matchRegex(`/a/[0-9]+`), "/a/12/b", false},
		{"regex is not a search", matchRegex(`[0-9]+`), "/a/12", false},
		{"regex ignores the query", matchRegex(`/a`), "/a?x=1", true},
		{"regex cannot see the query", matchRegex(`/a\?x=1`), "/a?x=1", false},
		{"regex ignores case_sensitive", insensitive(matchRegex(`/A`)), "/a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason, err := matchRoute(tt.m, req(t, tt.path))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%s on %s = %v (%s), want %v", describeMatch(tt.m), tt.path, got, reason, tt.want)
			}
		})
	}
}

// All criteria must hold; the first that fails is the reason.
func TestMatchRouteCriteria(t *testing.T) {
	m := matchPrefix("/")
	m.Headers = []*routev3.HeaderMatcher{hdr("x-a", exact("1")), hdrPresent("x-b", true)}
	m.QueryParameters = []*routev3.QueryParameterMatcher{{Name: "v", QueryParameterMatchSpecifier: &routev3.QueryParameterMatcher_PresentMatch{PresentMatch: true}}}
	tests := []struct {
		path    string
		headers []string
		want    bool
		reason  string
	}{
		{"/?v", []string{"x-a", "1", "x-b", ""}, true, ""},
		{"/?v", []string{"x-a", "2", "x-b", ""}, false, `header x-a is "2"`},
		{"/?v", []string{"x-a", "1"}, false, "header x-b is absent"},
		{"/", []string{"x-a", "1", "x-b", ""}, false, "query parameter v is absent"},
	}
	for _, tt := range tests {
		got, reason, _ := matchRoute(m, req(t, tt.path, tt.headers...))
		if got != tt.want || reason != tt.reason {
			t.Errorf("%s %v = %v (%q), want %v (%q)", tt.path, tt.headers, got, reason, tt.want, tt.reason)
		}
	}
}

func TestMatchGRPC(t *testing.T) {
	m := matchPrefix("/")
	m.Grpc = &routev3.RouteMatch_GrpcRouteMatchOptions{}
	for ct, want := range map[string]bool{"application/grpc": true, "application/grpc+proto": true, "application/json": false, "": false} {
		if got, _, _ := matchRoute(m, req(t, "/", "content-type", ct)); got != want {
			t.Errorf("grpc route, content-type %q = %v, want %v", ct, got, want)
		}
	}
}

// A criterion contourc cannot evaluate never matches silently: it is an
// error the decision notes.
func TestUnsupportedMatch(t *testing.T) {
	m := matchPrefix("/")
	m.Cookies = []*routev3.CookieMatcher{{Name: "c"}}
	ok, _, err := matchRoute(m, req(t, "/"))
	if ok || err == nil {
		t.Errorf("cookie matcher: matched %v, err %v; want no match and an error", ok, err)
	}
}
