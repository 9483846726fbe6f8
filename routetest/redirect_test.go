package routetest

import (
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
)

func TestRedirect(t *testing.T) {
	https := &routev3.RedirectAction_HttpsRedirect{HttpsRedirect: true}
	tests := []struct {
		name      string
		ra        *routev3.RedirectAction
		m         *routev3.RouteMatch
		scheme    string
		authority string
		path      string
		want      string
		status    int
	}{
		{"https redirect keeps the path and query", &routev3.RedirectAction{SchemeRewriteSpecifier: https}, nil, "http", "a.com", "/x?y=1", "https://a.com/x?y=1", 301},
		{"https redirect drops an explicit :80", &routev3.RedirectAction{SchemeRewriteSpecifier: https}, nil, "http", "a.com:80", "/", "https://a.com/", 301},
		{"https redirect keeps another port", &routev3.RedirectAction{SchemeRewriteSpecifier: https}, nil, "http", "a.com:8080", "/", "https://a.com:8080/", 301},
		{"same scheme keeps :80", &routev3.RedirectAction{SchemeRewriteSpecifier: &routev3.RedirectAction_SchemeRedirect{SchemeRedirect: "http"}}, nil, "http", "a.com:80", "/", "http://a.com:80/", 301},
		{"http redirect from https drops :443", &routev3.RedirectAction{SchemeRewriteSpecifier: &routev3.RedirectAction_SchemeRedirect{SchemeRedirect: "http"}}, nil, "https", "a.com:443", "/", "http://a.com/", 301},
		{"port redirect replaces the port", &routev3.RedirectAction{PortRedirect: 8443}, nil, "http", "a.com:8080", "/", "http://a.com:8443/", 301},
		{"host redirect drops the request's port", &routev3.RedirectAction{HostRedirect: "b.com"}, nil, "http", "a.com:8080", "/p", "http://b.com/p", 301},
		{"host and port", &routev3.RedirectAction{HostRedirect: "b.com", PortRedirect: 81, SchemeRewriteSpecifier: https}, nil, "http", "a.com", "/", "https://b.com:81/", 301},
		{"IPv6 literal", &routev3.RedirectAction{SchemeRewriteSpecifier: https}, nil, "http", "[::1]:80", "/", "https://[::1]/", 301},

		// path_redirect, the documentation's three examples.
		{"path_redirect keeps the query", &routev3.RedirectAction{PathRewriteSpecifier: &routev3.RedirectAction_PathRedirect{PathRedirect: "/new-path-1"}}, matchExactPath("/old-path-1"), "http", "a.com", "/old-path-1?bar=1", "http://a.com/new-path-1?bar=1", 301},
		{"path_redirect strip_query", &routev3.RedirectAction{StripQuery: true, PathRewriteSpecifier: &routev3.RedirectAction_PathRedirect{PathRedirect: "/new-path-2"}}, matchExactPath("/old-path-2"), "http", "a.com", "/old-path-2?bar=1", "http://a.com/new-path-2", 301},
		{"path_redirect with its own query", &routev3.RedirectAction{StripQuery: true, PathRewriteSpecifier: &routev3.RedirectAction_PathRedirect{PathRedirect: "/new-path-3?foo=1"}}, matchExactPath("/old-path-3"), "http", "a.com", "/old-path-3?bar=1", "http://a.com/new-path-3?foo=1", 301},

		{"prefix_rewrite swaps the matched prefix", &routev3.RedirectAction{PathRewriteSpecifier: &routev3.RedirectAction_PrefixRewrite{PrefixRewrite: "/new"}}, matchPrefix("/old"), "http", "a.com", "/old/x?q", "http://a.com/new/x?q", 301},
		{"prefix_rewrite on path_separated_prefix", &routev3.RedirectAction{PathRewriteSpecifier: &routev3.RedirectAction_PrefixRewrite{PrefixRewrite: "/"}}, matchSeparated("/old"), "http", "a.com", "/old/x", "http://a.com//x", 301},
		{"strip_query", &routev3.RedirectAction{StripQuery: true}, nil, "http", "a.com", "/p?q=1", "http://a.com/p", 301},
		{"regex_rewrite", &routev3.RedirectAction{PathRewriteSpecifier: &routev3.RedirectAction_RegexRewrite{RegexRewrite: &matcherv3.RegexMatchAndSubstitute{
			Pattern: &matcherv3.RegexMatcher{Regex: `^/service/([^/]+)(/.*)$`}, Substitution: `\2/instance/\1`,
		}}}, nil, "http", "a.com", "/service/foo/v1/api?x", "http://a.com/v1/api/instance/foo?x", 301},

		{"302", &routev3.RedirectAction{ResponseCode: routev3.RedirectAction_FOUND}, nil, "http", "a.com", "/", "http://a.com/", 302},
		{"303", &routev3.RedirectAction{ResponseCode: routev3.RedirectAction_SEE_OTHER}, nil, "http", "a.com", "/", "http://a.com/", 303},
		{"307", &routev3.RedirectAction{ResponseCode: routev3.RedirectAction_TEMPORARY_REDIRECT}, nil, "http", "a.com", "/", "http://a.com/", 307},
		{"308", &routev3.RedirectAction{ResponseCode: routev3.RedirectAction_PERMANENT_REDIRECT}, nil, "http", "a.com", "/", "http://a.com/", 308},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := prepare(Request{Authority: tt.authority, Path: tt.path})
			if err != nil {
				t.Fatal(err)
			}
			q.setScheme(tt.scheme == "https")
			m := tt.m
			if m == nil {
				m = matchPrefix("/")
			}
			got := redirect(tt.ra, m, q)
			if got.Location != tt.want || got.Status != tt.status {
				t.Errorf("redirect %d %s, want %d %s", got.Status, got.Location, tt.status, tt.want)
			}
		})
	}
}

func TestRewrites(t *testing.T) {
	q := func(path string) *request {
		r, err := prepare(Request{Authority: "a.com", Path: path})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	prefix := []struct {
		m          *routev3.RouteMatch
		path, with string
		want       string
	}{
		{matchPrefix("/api"), "/api/v1?x=1", "/", "//v1?x=1"},
		{matchPrefix("/api/"), "/api/v1", "/", "/v1"},
		{matchExactPath("/a"), "/a?x=1", "/b", "/b?x=1"},
		{matchSeparated("/api"), "/api", "/v2", "/v2"},
		{matchSeparated("/api"), "/api/x", "/v2", "/v2/x"},
		{matchRegex("/a.*"), "/abc", "/z", "/abc"}, // not allowed with safe_regex: unchanged
	}
	for _, tt := range prefix {
		if got := rewritePrefix(tt.m, q(tt.path), tt.with); got != tt.want {
			t.Errorf("prefix_rewrite %q of %s on %s = %s, want %s", tt.with, describeMatch(tt.m), tt.path, got, tt.want)
		}
	}
	// regex_rewrite: RouteAction's documented examples.
	regexes := []struct {
		pattern, sub, path, want string
	}{
		{`^/service/([^/]+)(/.*)$`, `\2/instance/\1`, "/service/foo/v1/api", "/v1/api/instance/foo"},
		{`one`, `two`, "/xxx/one/yyy/one/zzz", "/xxx/two/yyy/two/zzz"},
		{`^(.*?)one(.*)$`, `\1two\2`, "/xxx/one/yyy/one/zzz", "/xxx/two/yyy/one/zzz"},
		{`(?i)/xxx/`, `/yyy/`, "/aaa/XxX/bbb", "/aaa/yyy/bbb"},
		{`/a`, `/$b\\`, "/a?q=/a", `/$b\?q=/a`}, // "$" literal, "\\" a backslash, query untouched
	}
	for _, tt := range regexes {
		rr := &matcherv3.RegexMatchAndSubstitute{Pattern: &matcherv3.RegexMatcher{Regex: tt.pattern}, Substitution: tt.sub}
		got, err := rewriteRegex(rr, tt.path)
		if err != nil || got != tt.want {
			t.Errorf("regex_rewrite %q -> %q on %s = %s (%v), want %s", tt.pattern, tt.sub, tt.path, got, err, tt.want)
		}
	}
}

func TestNormalizePath(t *testing.T) {
	tests := []struct {
		in               string
		normalize, merge bool
		want             string
	}{
		{"/a/./b/../c", true, false, "/a/c"},
		{"/../../a", true, false, "/a"},
		{"/a/b/..", true, false, "/a/"},
		{"/a/.", true, false, "/a/"},
		{"/%7Euser/%2f%2a", true, false, "/~user/%2F%2A"},
		{"/a//b///c", false, true, "/a/b/c"},
		{"/a/../b?x=/../", true, false, "/b?x=/../"},
		{"/a/./b", false, false, "/a/./b"},
		{"/p#frag", true, true, "/p"},
	}
	for _, tt := range tests {
		if got := normalizePath(tt.in, tt.normalize, tt.merge); got != tt.want {
			t.Errorf("normalizePath(%q, %v, %v) = %q, want %q", tt.in, tt.normalize, tt.merge, got, tt.want)
		}
	}
}
