package httpproxy

import (
	"strings"
	"testing"

	"github.com/contourc/contourc/translate/dag"
)

// Only a proxy's own rewritten routes can still be lone in their prefix
// group: an included one was expanded by its proxy already, so it is
// grouped with, never expanded again; an own route is grouped with the
// included ones, as Contour groups all of them.
func TestExpandPrefixRewritesOwnRoutes(t *testing.T) {
	rewritten := func(prefix string) *dag.Route {
		return &dag.Route{PathMatch: dag.PathMatch{Kind: dag.PathPrefix, Value: prefix}, PathRewrite: &dag.PathRewrite{Prefix: "/x/"}}
	}
	plain := func(prefix string) *dag.Route {
		return &dag.Route{PathMatch: dag.PathMatch{Kind: dag.PathPrefix, Value: prefix}}
	}
	describe := func(rs []*dag.Route) []string {
		var out []string
		for _, r := range rs {
			s := r.PathMatch.Value
			if r.PathRewrite != nil {
				s += " => " + r.PathRewrite.Prefix
			}
			out = append(out, s)
		}
		return out
	}
	tests := []struct {
		name   string
		routes []*dag.Route
		from   int
		want   []string
	}{{
		name:   "own lone rewrite expands",
		routes: []*dag.Route{plain("/b"), rewritten("/a/")},
		from:   1,
		want:   []string{"/b", "/a => /x", "/a/ => /x/"},
	}, {
		name:   "own rewrite grouped with an included route",
		routes: []*dag.Route{plain("/a/"), rewritten("/a")},
		from:   1,
		want:   []string{"/a/", "/a => /x/"},
	}, {
		name:   "included rewrite left alone",
		routes: []*dag.Route{rewritten("/c"), plain("/d")},
		from:   1,
		want:   []string{"/c => /x/", "/d"},
	}, {
		name:   "two own rewrites of one prefix",
		routes: []*dag.Route{rewritten("/e"), rewritten("/e/")},
		from:   0,
		want:   []string{"/e => /x/", "/e/ => /x/"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := describe(expandPrefixRewrites(tt.routes, tt.from))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
