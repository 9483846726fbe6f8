package httpproxy

import (
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"

	"github.com/contourc/contourc/translate/dag"
)

// An include chain's path conditions concatenate into one match, repeated
// slashes collapsed; the last condition decides the kind, any regex makes
// it a regex, and no path at all is the prefix "/". In a regex the
// prefixes are quoted and the child's regex grouped, as in Contour
// v1.33.8, so that "|" cannot escape the prefix.
func TestMergePathMatch(t *testing.T) {
	prefix := func(p string) contourv1.MatchCondition { return contourv1.MatchCondition{Prefix: p} }
	exact := func(p string) contourv1.MatchCondition { return contourv1.MatchCondition{Exact: p} }
	regex := func(p string) contourv1.MatchCondition { return contourv1.MatchCondition{Regex: p} }
	for _, tc := range []struct {
		name    string
		conds   []contourv1.MatchCondition
		want    dag.PathMatch
		wantErr string
	}{
		{name: "one prefix", conds: []contourv1.MatchCondition{prefix("/api")}, want: dag.PathMatch{Kind: dag.PathPrefix, Value: "/api"}},
		{name: "slashes between includes", conds: []contourv1.MatchCondition{prefix("/api/"), prefix("/v1")}, want: dag.PathMatch{Kind: dag.PathPrefix, Value: "/api/v1"}},
		{name: "many slashes", conds: []contourv1.MatchCondition{prefix("/a///"), prefix("//b//c")}, want: dag.PathMatch{Kind: dag.PathPrefix, Value: "/a/b/c"}},
		{name: "exact last", conds: []contourv1.MatchCondition{prefix("/api"), exact("/x")}, want: dag.PathMatch{Kind: dag.PathExact, Value: "/api/x"}},
		{name: "a lone regex is kept as written", conds: []contourv1.MatchCondition{regex("/r.*|/s")}, want: dag.PathMatch{Kind: dag.PathRegex, Value: "/r.*|/s"}},
		{name: "regex under a prefix is grouped", conds: []contourv1.MatchCondition{prefix("/team-a/"), regex("/x|/admin.*")}, want: dag.PathMatch{Kind: dag.PathRegex, Value: "/team-a(?:/x|/admin.*)"}},
		{name: "prefixes are quoted", conds: []contourv1.MatchCondition{prefix("/v1.0+"), prefix("/a(b)"), regex("/.*")}, want: dag.PathMatch{Kind: dag.PathRegex, Value: `/v1\.0\+/a\(b\)(?:/.*)`}},
		{name: "every trailing slash dropped", conds: []contourv1.MatchCondition{prefix("/a//"), regex("/x")}, want: dag.PathMatch{Kind: dag.PathRegex, Value: "/a(?:/x)"}},
		{name: "the root prefix adds nothing", conds: []contourv1.MatchCondition{prefix("/"), regex("/x|/y")}, want: dag.PathMatch{Kind: dag.PathRegex, Value: "/x|/y"}},
		{name: "slashes collapsed in the regex too", conds: []contourv1.MatchCondition{prefix("/a"), regex("//x")}, want: dag.PathMatch{Kind: dag.PathRegex, Value: "/a(?:/x)"}},
		{name: "a regex before a prefix", conds: []contourv1.MatchCondition{regex("/r.*"), prefix("/p")}, want: dag.PathMatch{Kind: dag.PathRegex, Value: "/r.*/p"}},
		{name: "valid alone, not once grouped", conds: []contourv1.MatchCondition{prefix("/a/"), regex(`/x\Q`)}, wantErr: "regex invalid after merging with include prefix"},
		{name: "no path", conds: []contourv1.MatchCondition{{Header: &contourv1.HeaderMatchCondition{Name: "x"}}}, want: dag.PathMatch{Kind: dag.PathPrefix, Value: "/"}},
	} {
		got, err := mergePathMatch(tc.conds)
		switch {
		case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.name, err)
		case got != tc.want:
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
