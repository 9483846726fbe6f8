package httpproxy

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"

	"github.com/contourc/contourc/translate/dag"
)

// HTTPProxy match conditions: merging the conditions of an include chain
// into one route match, and the validity rules Contour applies to them.

var repeatedSlashes = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`//+`) })

// mergePathMatch concatenates the path conditions of an include chain. The
// last condition decides the match type, except that any regex makes the
// whole path a regex; no path at all is the prefix "/".
//
// In a regex, as in Contour v1.33.8, the include prefixes are quoted (and
// lose their trailing "/", which the child's regex starts with) and the
// child's regex is grouped: "/team-a/" and "/x|/admin.*" give
// "/team-a(?:/x|/admin.*)", so that an alternation cannot reach paths
// outside the prefix the child was delegated. Grouped, a regex that was
// valid on its own may no longer compile ("/x\Q" quotes the closing
// parenthesis): that is errMergedRegexInvalid.
func mergePathMatch(conds []contourv1.MatchCondition) (dag.PathMatch, error) {
	isRegex := slices.ContainsFunc(conds, func(c contourv1.MatchCondition) bool { return c.Regex != "" })
	merged, grouped := "", false
	for _, c := range conds {
		switch {
		case c.Prefix != "" && isRegex:
			merged += regexp.QuoteMeta(strings.TrimRight(c.Prefix, "/"))
		case c.Prefix != "":
			merged += c.Prefix
		case c.Exact != "":
			// Includes cannot have exact (or regex) paths, so an exact
			// path is never followed by a regex: nothing to quote.
			merged += c.Exact
		case c.Regex != "" && merged != "":
			merged += "(?:" + c.Regex + ")"
			grouped = true
		case c.Regex != "":
			merged += c.Regex
		}
	}
	if strings.Contains(merged, "//") {
		// The regular expression only then: running it over every
		// route's path was 15 ms of CPU at 5,000 HTTPProxies.
		merged = repeatedSlashes().ReplaceAllString(merged, "/")
	}
	if merged == "" {
		return dag.PathMatch{Kind: dag.PathPrefix, Value: "/"}, nil
	}
	last := conds[len(conds)-1]
	switch {
	case isRegex:
		// Contour compiles every merged regex; an ungrouped one is the
		// route's own regex, which pathConditionsValid compiled already
		// (collapsing "//", never special in RE2, cannot break it).
		if grouped && !compiles(merged) {
			return dag.PathMatch{}, errMergedRegexInvalid
		}
		return dag.PathMatch{Kind: dag.PathRegex, Value: merged}, nil
	case last.Exact != "":
		return dag.PathMatch{Kind: dag.PathExact, Value: merged}, nil
	default:
		return dag.PathMatch{Kind: dag.PathPrefix, Value: merged}, nil
	}
}

// compiles reports whether regex is a valid RE2 regular expression.
func compiles(regex string) bool {
	_, err := regexp.Compile(regex)
	return err == nil
}

// errMergedRegexInvalid is Contour's error for a route regex that does not
// compile once merged with its include prefixes.
var errMergedRegexInvalid = errors.New("regex invalid after merging with include prefix")

// mergeIncludePath is mergePathMatch for include conditions, which are
// prefixes only (includeConditionsValid), so merging them cannot fail.
func mergeIncludePath(conds []contourv1.MatchCondition) dag.PathMatch {
	m, _ := mergePathMatch(conds)
	return m
}

// mergeHeaderMatch collects the header conditions of a chain, parents first.
func mergeHeaderMatch(conds []contourv1.MatchCondition) []dag.HeaderMatch {
	var out []dag.HeaderMatch
	for _, c := range conds {
		if h := c.Header; h != nil {
			if m, ok := headerCondition(*h); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func headerCondition(h contourv1.HeaderMatchCondition) (dag.HeaderMatch, bool) {
	m := dag.HeaderMatch{Name: h.Name, IgnoreCase: h.IgnoreCase}
	switch {
	case h.Present:
		m = dag.HeaderMatch{Name: h.Name, Type: dag.HeaderPresent}
	case h.NotPresent:
		m = dag.HeaderMatch{Name: h.Name, Type: dag.HeaderPresent, Invert: true}
	case h.Contains != "":
		m.Type, m.Value = dag.HeaderContains, h.Contains
	case h.NotContains != "":
		m.Type, m.Value, m.Invert, m.TreatMissingAsEmpty = dag.HeaderContains, h.NotContains, true, h.TreatMissingAsEmpty
	case h.Exact != "":
		m.Type, m.Value = dag.HeaderExact, h.Exact
	case h.NotExact != "":
		m.Type, m.Value, m.Invert, m.TreatMissingAsEmpty = dag.HeaderExact, h.NotExact, true, h.TreatMissingAsEmpty
	case h.Regex != "":
		m = dag.HeaderMatch{Name: h.Name, Type: dag.HeaderRegex, Value: h.Regex}
	default:
		return dag.HeaderMatch{}, false
	}
	return m, true
}

// mergeQueryMatch collects the query-parameter conditions of a chain.
func mergeQueryMatch(conds []contourv1.MatchCondition) []dag.QueryMatch {
	var out []dag.QueryMatch
	for _, c := range conds {
		q := c.QueryParameter
		if q == nil {
			continue
		}
		m := dag.QueryMatch{Name: q.Name, IgnoreCase: q.IgnoreCase}
		switch {
		case q.Exact != "":
			m.Type, m.Value = "exact", q.Exact
		case q.Prefix != "":
			m.Type, m.Value = "prefix", q.Prefix
		case q.Suffix != "":
			m.Type, m.Value = "suffix", q.Suffix
		case q.Regex != "":
			m = dag.QueryMatch{Name: q.Name, Type: "regex", Value: q.Regex}
		case q.Contains != "":
			m.Type, m.Value = "contains", q.Contains
		case q.Present:
			m = dag.QueryMatch{Name: q.Name, Type: "present"}
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// pathConditionsValid allows at most one path condition per block, each
// starting with "/", regexes compiling.
func pathConditionsValid(conds []contourv1.MatchCondition) error {
	n := 0
	for _, c := range conds {
		// Prefix, then exact, then regex: the order Contour checks them in,
		// which decides the error reported when several are wrong.
		for _, kv := range [][2]string{{"prefix", c.Prefix}, {"exact", c.Exact}, {"regex", c.Regex}} {
			kind, v := kv[0], kv[1]
			if v == "" {
				continue
			}
			n++
			if v[0] != '/' {
				return fmt.Errorf("%s conditions must start with /, %s was supplied", kind, v)
			}
			if kind == "regex" {
				if _, err := regexp.Compile(v); err != nil {
					return fmt.Errorf("supplied regex: %s invalid. error: %s", v, err)
				}
			}
		}
	}
	if n > 1 {
		return errors.New("more than one prefix, exact or regex is not allowed in a condition block")
	}
	return nil
}

// includeConditionsValid refuses exact and regex paths on includes.
func includeConditionsValid(conds []contourv1.MatchCondition) error {
	for _, c := range conds {
		if c.Exact != "" {
			return errors.New("exact conditions are not allowed in includes block")
		}
		if c.Regex != "" {
			return errors.New("regex conditions are not allowed in includes block")
		}
	}
	return nil
}

// headerConditionsValid rejects contradictory header conditions of a chain.
func headerConditionsValid(conds []contourv1.MatchCondition) error {
	seen := map[contourv1.HeaderMatchCondition]bool{}
	exact := map[string]bool{}
	for _, c := range conds {
		if c.Header == nil {
			continue
		}
		h := *c.Header
		name := strings.ToLower(h.Name)
		contradicts := func(other contourv1.HeaderMatchCondition) bool { other.Name = name; return seen[other] }
		switch {
		case h.Present && contradicts(contourv1.HeaderMatchCondition{NotPresent: true}),
			h.NotPresent && contradicts(contourv1.HeaderMatchCondition{Present: true}):
			return errors.New("cannot specify contradictory 'present' and 'notpresent' conditions for the same route and header")
		case h.Exact != "" && exact[name]:
			return errors.New("cannot specify duplicate header 'exact match' conditions in the same route")
		case h.Exact != "" && contradicts(contourv1.HeaderMatchCondition{NotExact: h.Exact}),
			h.NotExact != "" && contradicts(contourv1.HeaderMatchCondition{Exact: h.NotExact}):
			return errors.New("cannot specify contradictory 'exact' and 'notexact' conditions for the same route and header")
		case h.Contains != "" && contradicts(contourv1.HeaderMatchCondition{NotContains: h.Contains}),
			h.NotContains != "" && contradicts(contourv1.HeaderMatchCondition{Contains: h.NotContains}):
			return errors.New("cannot specify contradictory 'contains' and 'notcontains' conditions for the same route and header")
		case h.Regex != "":
			if _, err := regexp.Compile(h.Regex); err != nil {
				return errors.New("invalid regular expression specified for 'regex' condition")
			}
		}
		if h.Exact != "" {
			exact[name] = true
		}
		h.Name = name
		seen[h] = true
	}
	return nil
}

// queryConditionsValid requires exactly one match per query condition, no
// two exact matches on one parameter, and compiling regexes.
func queryConditionsValid(conds []contourv1.MatchCondition) error {
	exact := map[string]bool{}
	for _, c := range conds {
		q := c.QueryParameter
		if q == nil {
			continue
		}
		n := 0
		for _, v := range []string{q.Exact, q.Prefix, q.Suffix, q.Regex, q.Contains} {
			if v != "" {
				n++
			}
		}
		if q.Present {
			n++
		}
		switch {
		case n == 0:
			return errors.New("must specify at least one query parameter condition")
		case n > 1:
			return errors.New("cannot specify more than one condition in the same match condition branch")
		}
		name := strings.ToLower(q.Name)
		if q.Exact != "" {
			if exact[name] {
				return errors.New("cannot specify duplicate query parameter 'exact match' conditions in the same route")
			}
			exact[name] = true
		}
		if q.Regex != "" {
			if _, err := regexp.Compile(q.Regex); err != nil {
				return errors.New("invalid regular expression specified for 'regex' condition")
			}
		}
	}
	return nil
}

// RouteKey is the dag.ConditionsKey of the HTTPProxy route whose own
// conditions are own under includes whose conditions are chain (parents
// first); false when Contour would refuse them.
func RouteKey(chain, own []contourv1.MatchCondition) (string, bool) {
	conds := append(append(make([]contourv1.MatchCondition, 0, len(chain)+len(own)), chain...), own...)
	if pathConditionsValid(own) != nil || headerConditionsValid(conds) != nil || queryConditionsValid(conds) != nil {
		return "", false
	}
	path, err := mergePathMatch(conds)
	if err != nil {
		return "", false
	}
	return dag.ConditionsKey(&dag.Route{PathMatch: path, HeaderMatch: mergeHeaderMatch(conds), QueryMatch: mergeQueryMatch(conds)}), true
}
