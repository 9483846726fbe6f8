package routetest

import (
	"fmt"
	"regexp"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
)

// rewritePrefix swaps the part of :path the route matched for rewrite, as
// prefix_rewrite does for prefix, path and path_separated_prefix routes;
// whatever followed (the rest of the path, the query string) is kept.
// Routes of other kinds cannot carry a prefix_rewrite.
func rewritePrefix(m *routev3.RouteMatch, q *request, rewrite string) string {
	var n int
	switch spec := m.GetPathSpecifier().(type) {
	case *routev3.RouteMatch_Prefix:
		n = len(spec.Prefix)
	case *routev3.RouteMatch_Path:
		n = len(spec.Path)
	case *routev3.RouteMatch_PathSeparatedPrefix:
		n = len(spec.PathSeparatedPrefix)
	default:
		return q.path
	}
	if n > len(q.path) {
		return q.path
	}
	return rewrite + q.path[n:]
}

// rewriteRegex applies a regex_rewrite: every match of the pattern in the
// path (not the query string) is replaced. Unlike route matching the
// pattern is not anchored.
func rewriteRegex(rr *matcherv3.RegexMatchAndSubstitute, path string) (string, error) {
	re, err := regexp.Compile(rr.GetPattern().GetRegex())
	if err != nil {
		return "", fmt.Errorf("regex_rewrite pattern %q: %v", rr.GetPattern().GetRegex(), err)
	}
	p, query, hasQuery := strings.Cut(path, "?")
	p = re.ReplaceAllString(p, goSubstitution(rr.GetSubstitution()))
	if hasQuery {
		p += "?" + query
	}
	return p, nil
}

// goSubstitution turns an RE2 substitution (\1 for a group, \\ for a
// backslash) into Go's template syntax (${1}, with "$" escaped as "$$").
func goSubstitution(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '$':
			b.WriteString("$$")
		case c == '\\' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			b.WriteString("${" + string(s[i+1]) + "}")
			i++
		case c == '\\' && i+1 < len(s) && s[i+1] == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
