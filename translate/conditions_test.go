package translate

import (
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
)

// An include chain's path conditions concatenate into one match, repeated
// slashes collapsed; the last condition decides the kind, any regex makes
// it a regex, and no path at all is the prefix "/".
func TestMergePathMatch(t *testing.T) {
	prefix := func(p string) contourv1.MatchCondition { return contourv1.MatchCondition{Prefix: p} }
	exact := func(p string) contourv1.MatchCondition { return contourv1.MatchCondition{Exact: p} }
	regex := func(p string) contourv1.MatchCondition { return contourv1.MatchCondition{Regex: p} }
	for _, tc := range []struct {
		name  string
		conds []contourv1.MatchCondition
		want  PathMatch
	}{
		{"one prefix", []contourv1.MatchCondition{prefix("/api")}, PathMatch{Kind: PathPrefix, Value: "/api"}},
		{"slashes between includes", []contourv1.MatchCondition{prefix("/api/"), prefix("/v1")}, PathMatch{Kind: PathPrefix, Value: "/api/v1"}},
		{"many slashes", []contourv1.MatchCondition{prefix("/a///"), prefix("//b//c")}, PathMatch{Kind: PathPrefix, Value: "/a/b/c"}},
		{"exact last", []contourv1.MatchCondition{prefix("/api"), exact("/x")}, PathMatch{Kind: PathExact, Value: "/api/x"}},
		{"a regex anywhere", []contourv1.MatchCondition{regex("/r.*"), prefix("/p")}, PathMatch{Kind: PathRegex, Value: "/r.*/p"}},
		{"no path", []contourv1.MatchCondition{{Header: &contourv1.HeaderMatchCondition{Name: "x"}}}, PathMatch{Kind: PathPrefix, Value: "/"}},
	} {
		if got := mergePathMatch(tc.conds); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
