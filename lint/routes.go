package lint

import (
	"fmt"
	"regexp/syntax"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
	"github.com/contourc/contourc/translate/dag"
)

// The route rules: CTC1001, a route an earlier route of its virtual host
// covers in Envoy's order (Envoy takes the first route that matches, so
// the later one never sees a request), read from the translated DAG where
// the include trees are already flattened; CTC1002, two HTTPProxy routes
// of one virtual host with the same match, of which Contour keeps the
// last one added and drops the other, found by walking the include trees
// because the DAG only holds the survivor.

func routeRules(in *input) []Finding {
	out := shadowedRoutes(in)
	return append(out, duplicateRoutes(in)...)
}

// shadowedRoutes is CTC1001.
func shadowedRoutes(in *input) []Finding {
	var out []Finding
	for _, vh := range in.res.VirtualHostRoutes() {
		// Each regex parsed once, not at each of the n² comparisons.
		paths := make([]dag.PathMatch, len(vh.Routes))
		for i, r := range vh.Routes {
			paths[i] = literalRegex(r.PathMatch)
		}
		for j, b := range vh.Routes {
			for i, a := range vh.Routes[:j] {
				if !covers(a, b, paths[i], paths[j]) {
					continue
				}
				o := in.index.get(b.Kind, b.Namespace, b.Name)
				if o == nil {
					break
				}
				winner := Object{Kind: a.Kind, Namespace: a.Namespace, Name: a.Name}
				out = append(out, finding(ruleShadowed, o, fmt.Sprintf(
					"route %s on virtual host %s can never match: route %s of %s comes first in Envoy's order and matches every request it would",
					describeRoute(b), vh.Name, describeRoute(a), winner), winner))
				break
			}
		}
	}
	return out
}

// covers says whether every request b matches is matched by a, whose
// paths are pa and pb (after literalRegex).
func covers(a, b *dag.Route, pa, pb dag.PathMatch) bool {
	return pathCovers(pa, pb) &&
		all(a.HeaderMatch, func(ah dag.HeaderMatch) bool {
			return some(b.HeaderMatch, func(bh dag.HeaderMatch) bool { return headerImplies(bh, ah) })
		}) &&
		all(a.QueryMatch, func(aq dag.QueryMatch) bool {
			return some(b.QueryMatch, func(bq dag.QueryMatch) bool { return queryImplies(bq, aq) })
		})
}

// pathCovers says whether path condition a matches every path b does,
// both after literalRegex: a regex that is a literal, or a literal and
// ".*", is the exact path or string prefix it amounts to (Envoy matches
// the whole path); other regexes are compared only for equality.
func pathCovers(a, b dag.PathMatch) bool {
	if a == b {
		return true
	}
	switch a.Kind {
	case dag.PathPrefix:
		return b.Kind != dag.PathRegex && strings.HasPrefix(b.Value, a.Value) || a.Value == "/"
	case dag.PathSegmentPrefix:
		if b.Kind == dag.PathRegex {
			return a.Value == "/"
		}
		if b.Kind == dag.PathSegmentPrefix && b.Value == a.Value {
			return true
		}
		seg := strings.TrimSuffix(a.Value, "/") + "/"
		return b.Value == strings.TrimSuffix(a.Value, "/") && b.Kind == dag.PathExact || strings.HasPrefix(b.Value, seg)
	}
	return false
}

// literalRegex turns a regex path that is a literal string (an exact
// path) or a literal followed by ".*" (a string prefix) into that match.
func literalRegex(p dag.PathMatch) dag.PathMatch {
	if p.Kind != dag.PathRegex {
		return p
	}
	re, err := syntax.Parse(p.Value, syntax.Perl)
	if err != nil {
		return p
	}
	re = re.Simplify()
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	var lit strings.Builder
	for i, sub := range subs {
		switch {
		case sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0:
			lit.WriteString(string(sub.Rune))
		case i == len(subs)-1 && lit.Len() > 0 && isAnyString(sub):
			return dag.PathMatch{Kind: dag.PathPrefix, Value: lit.String()}
		default:
			return p
		}
	}
	return dag.PathMatch{Kind: dag.PathExact, Value: lit.String()}
}

// isAnyString says whether re is ".*" (paths hold no newline).
func isAnyString(re *syntax.Regexp) bool {
	return re.Op == syntax.OpStar && (re.Sub[0].Op == syntax.OpAnyChar || re.Sub[0].Op == syntax.OpAnyCharNotNL)
}

// headerImplies says whether a request matching header condition b also
// matches a: the same condition; "present" by any condition that needs the
// header; "contains V" by an exact value containing V.
func headerImplies(b, a dag.HeaderMatch) bool {
	if !strings.EqualFold(a.Name, b.Name) {
		return false
	}
	if a.Type == b.Type && a.Value == b.Value && a.Invert == b.Invert && a.IgnoreCase == b.IgnoreCase && a.TreatMissingAsEmpty == b.TreatMissingAsEmpty {
		return true
	}
	if a.Invert || b.Invert || b.TreatMissingAsEmpty {
		return false
	}
	switch a.Type {
	case dag.HeaderPresent:
		return true
	case dag.HeaderContains:
		if b.Type != dag.HeaderExact || (b.IgnoreCase && !a.IgnoreCase) {
			return false
		}
		if a.IgnoreCase {
			return strings.Contains(strings.ToLower(b.Value), strings.ToLower(a.Value))
		}
		return strings.Contains(b.Value, a.Value)
	}
	return false
}

// queryImplies is headerImplies for query parameters.
func queryImplies(b, a dag.QueryMatch) bool {
	if a.Name != b.Name {
		return false
	}
	return a == b || a.Type == "present"
}

func all[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}

func some[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if f(x) {
			return true
		}
	}
	return false
}

// describeRoute writes a route's match as a person reads it:
// "prefix /api, header x-env exact canary".
func describeRoute(r *dag.Route) string {
	kinds := map[dag.PathMatchKind]string{dag.PathPrefix: "prefix", dag.PathSegmentPrefix: "prefix", dag.PathExact: "exact", dag.PathRegex: "regex"}
	parts := []string{kinds[r.PathMatch.Kind] + " " + r.PathMatch.Value}
	for _, h := range r.HeaderMatch {
		op := string(h.Type)
		if h.Invert {
			op = "not " + op
		}
		parts = append(parts, strings.TrimSpace("header "+h.Name+" "+op+" "+h.Value))
	}
	for _, q := range r.QueryMatch {
		parts = append(parts, strings.TrimSpace("query "+q.Name+" "+q.Type+" "+q.Value))
	}
	return `"` + strings.Join(parts, ", ") + `"`
}

// proxyRoute is one route of an HTTPProxy as an include walk reaches it.
type proxyRoute struct {
	obj   *loader.Object
	index int // in spec.routes
	match string
	key   string // translate.HTTPProxyRouteKey
}

// duplicateRoutes is CTC1002: for each root, the routes of its include
// tree grouped by Contour's key; all but the last added of a group are
// dropped.
func duplicateRoutes(in *input) []Finding {
	var out []Finding
	for _, root := range in.index.ofKind("HTTPProxy") {
		p := root.Obj.(*contourv1.HTTPProxy)
		if p.Spec.VirtualHost == nil || p.Spec.VirtualHost.Fqdn == "" {
			continue
		}
		var routes []proxyRoute
		keys := map[string][]int{}
		walkRoutes(in.index, root, nil, map[*loader.Object]bool{}, func(r proxyRoute) {
			keys[r.key] = append(keys[r.key], len(routes))
			routes = append(routes, r)
		})
		for i, r := range routes {
			group := keys[r.key]
			if group[len(group)-1] == i {
				continue // the one Contour keeps
			}
			last := routes[group[len(group)-1]]
			if last.obj == r.obj && last.index == r.index {
				continue // one HTTPProxy reached twice along an include tree: the same route
			}
			out = append(out, finding(ruleDuplicate, r.obj, fmt.Sprintf(
				"spec.routes[%d] (%s) on virtual host %s is dropped: spec.routes[%d] of %s has the same match conditions and Contour keeps that one",
				r.index, r.match, p.Spec.VirtualHost.Fqdn, last.index, objectOf(last.obj)), objectOf(last.obj)))
		}
	}
	return out
}

// walkRoutes visits the routes of proxy o and of the HTTPProxies it
// includes, in the order Contour adds them (includes first, then the
// proxy's own routes), with the include chain's conditions. A cycle or a
// missing include ends that branch, as Contour's walk does.
func walkRoutes(ix *index, o *loader.Object, chain []contourv1.MatchCondition, onPath map[*loader.Object]bool, visit func(proxyRoute)) {
	if onPath[o] {
		return
	}
	onPath[o] = true
	defer delete(onPath, o)
	p := o.Obj.(*contourv1.HTTPProxy)
	for _, inc := range p.Spec.Includes {
		ns := inc.Namespace
		if ns == "" {
			ns = p.Namespace
		}
		child := ix.get("HTTPProxy", ns, inc.Name)
		if child == nil || child.Obj.(*contourv1.HTTPProxy).Spec.VirtualHost != nil {
			continue
		}
		walkRoutes(ix, child, append(chain[:len(chain):len(chain)], inc.Conditions...), onPath, visit)
	}
	for i, r := range p.Spec.Routes {
		key, ok := translate.HTTPProxyRouteKey(chain, r.Conditions)
		if !ok {
			continue
		}
		visit(proxyRoute{obj: o, index: i, match: describeConditions(append(chain[:len(chain):len(chain)], r.Conditions...)), key: key})
	}
}

// describeConditions writes HTTPProxy conditions as describeRoute does.
func describeConditions(conds []contourv1.MatchCondition) string {
	path, kind := "", "prefix"
	var parts []string
	for _, c := range conds {
		switch {
		case c.Prefix != "":
			path += c.Prefix
		case c.Exact != "":
			path, kind = path+c.Exact, "exact"
		case c.Regex != "":
			path, kind = path+c.Regex, "regex"
		case c.Header != nil:
			parts = append(parts, "header "+c.Header.Name)
		case c.QueryParameter != nil:
			parts = append(parts, "query "+c.QueryParameter.Name)
		}
	}
	if path == "" {
		path = "/"
	}
	return `"` + strings.Join(append([]string{kind + " " + path}, parts...), ", ") + `"`
}
