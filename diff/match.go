package diff

import (
	"fmt"
	"strconv"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
)

// describeMatch writes a route match the way a reviewer reads it:
// "prefix /api, header x-canary present, query q prefix "abc"". Anything
// it does not know how to say is printed as JSON, so two different matches
// never read the same.
func describeMatch(m *routev3.RouteMatch) string {
	var parts []string
	switch p := m.GetPathSpecifier().(type) {
	case *routev3.RouteMatch_Prefix:
		parts = append(parts, "prefix "+orQuoted(p.Prefix))
	case *routev3.RouteMatch_Path:
		parts = append(parts, "exact "+orQuoted(p.Path))
	case *routev3.RouteMatch_SafeRegex:
		parts = append(parts, "regex "+orQuoted(p.SafeRegex.GetRegex()))
	case *routev3.RouteMatch_PathSeparatedPrefix:
		parts = append(parts, "segment prefix "+orQuoted(p.PathSeparatedPrefix))
	case *routev3.RouteMatch_ConnectMatcher_:
		parts = append(parts, "CONNECT")
	case nil:
		parts = append(parts, "any path")
	default:
		parts = append(parts, "path "+formatMessage(m.ProtoReflect()))
	}
	if cs := m.GetCaseSensitive(); cs != nil && !cs.GetValue() {
		parts[0] += " (ignore case)"
	}
	for _, h := range m.GetHeaders() {
		parts = append(parts, "header "+describeHeaderMatch(h))
	}
	for _, q := range m.GetQueryParameters() {
		parts = append(parts, "query "+describeQueryMatch(q))
	}
	if m.GetGrpc() != nil {
		parts = append(parts, "grpc")
	}
	rest := withoutField(m, "prefix", "path", "safe_regex", "path_separated_prefix", "connect_matcher",
		"case_sensitive", "headers", "query_parameters", "grpc")
	if s := formatMessage(rest.ProtoReflect()); s != "{}" {
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func describeHeaderMatch(h *routev3.HeaderMatcher) string {
	var s string
	switch v := h.GetHeaderMatchSpecifier().(type) {
	case *routev3.HeaderMatcher_StringMatch:
		s = h.GetName() + " " + describeStringMatch(v.StringMatch)
	case *routev3.HeaderMatcher_PresentMatch:
		if v.PresentMatch {
			s = h.GetName() + " present"
		} else {
			s = h.GetName() + " absent"
		}
	case *routev3.HeaderMatcher_ExactMatch:
		s = h.GetName() + " = " + strconv.Quote(v.ExactMatch)
	case *routev3.HeaderMatcher_PrefixMatch:
		s = h.GetName() + " prefix " + strconv.Quote(v.PrefixMatch)
	case *routev3.HeaderMatcher_SuffixMatch:
		s = h.GetName() + " suffix " + strconv.Quote(v.SuffixMatch)
	case *routev3.HeaderMatcher_ContainsMatch:
		s = h.GetName() + " contains " + strconv.Quote(v.ContainsMatch)
	case *routev3.HeaderMatcher_SafeRegexMatch:
		s = h.GetName() + " regex " + strconv.Quote(v.SafeRegexMatch.GetRegex())
	case *routev3.HeaderMatcher_RangeMatch:
		s = fmt.Sprintf("%s in [%d,%d)", h.GetName(), v.RangeMatch.GetStart(), v.RangeMatch.GetEnd())
	default:
		s = h.GetName() + " present"
	}
	if h.GetInvertMatch() {
		s = "not " + s
	}
	if h.GetTreatMissingHeaderAsEmpty() {
		s += " (missing as empty)"
	}
	return s
}

func describeQueryMatch(q *routev3.QueryParameterMatcher) string {
	switch v := q.GetQueryParameterMatchSpecifier().(type) {
	case *routev3.QueryParameterMatcher_StringMatch:
		return q.GetName() + " " + describeStringMatch(v.StringMatch)
	case *routev3.QueryParameterMatcher_PresentMatch:
		if v.PresentMatch {
			return q.GetName() + " present"
		}
		return q.GetName() + " absent"
	default:
		return q.GetName() + " present"
	}
}

// describeStringMatch writes a StringMatcher: `= "v"`, `prefix "v"`...
func describeStringMatch(m *matcherv3.StringMatcher) string {
	var s string
	switch v := m.GetMatchPattern().(type) {
	case *matcherv3.StringMatcher_Exact:
		s = "= " + strconv.Quote(v.Exact)
	case *matcherv3.StringMatcher_Prefix:
		s = "prefix " + strconv.Quote(v.Prefix)
	case *matcherv3.StringMatcher_Suffix:
		s = "suffix " + strconv.Quote(v.Suffix)
	case *matcherv3.StringMatcher_Contains:
		s = "contains " + strconv.Quote(v.Contains)
	case *matcherv3.StringMatcher_SafeRegex:
		s = "regex " + strconv.Quote(v.SafeRegex.GetRegex())
	default:
		s = formatMessage(m.ProtoReflect())
	}
	if m.GetIgnoreCase() {
		s += " (ignore case)"
	}
	return s
}

// orQuoted leaves a path as is unless it is empty or has spaces, which
// would make the description ambiguous.
func orQuoted(s string) string {
	if s == "" || strings.ContainsAny(s, " ,\t\n\"") {
		return strconv.Quote(s)
	}
	return s
}
