package routetest

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
)

// regexCache holds compiled safe_regex patterns. Go's regexp is RE2, the
// engine Envoy uses; every safe_regex in Envoy's route matching must match
// the whole input, so patterns are compiled anchored at both ends.
var regexCache sync.Map // pattern -> *regexp.Regexp or error

func fullRegexp(pattern string) (*regexp.Regexp, error) {
	if v, ok := regexCache.Load(pattern); ok {
		if err, bad := v.(error); bad {
			return nil, err
		}
		return v.(*regexp.Regexp), nil
	}
	re, err := anchoredRegexp(pattern)
	if err != nil {
		err = fmt.Errorf("regex %q: %v", pattern, err)
		regexCache.Store(pattern, err)
		return nil, err
	}
	regexCache.Store(pattern, re)
	return re, nil
}

// anchoredRegexp compiles pattern to match whole strings only. The parsed
// pattern is anchored, not its text: wrapped as "^(?:" + pattern + ")$",
// a pattern ending in an open \Q (quoting to its end, valid in RE2) would
// quote the closing ")$" and no longer compile.
func anchoredRegexp(pattern string) (*regexp.Regexp, error) {
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	anchored := &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{
		{Op: syntax.OpBeginText}, parsed, {Op: syntax.OpEndText},
	}}
	return regexp.Compile(anchored.String())
}

// fullMatch reports whether the whole of s matches pattern. An invalid
// pattern (Envoy would have refused the configuration) matches nothing.
func fullMatch(pattern, s string) (bool, error) {
	re, err := fullRegexp(pattern)
	if err != nil {
		return false, err
	}
	return re.MatchString(s), nil
}

// matchString applies an Envoy StringMatcher to s. ignore_case applies to
// exact, prefix, suffix and contains, never to safe_regex.
func matchString(m *matcherv3.StringMatcher, s string) (bool, error) {
	fold := func(x string) string {
		if m.GetIgnoreCase() {
			return strings.ToLower(x)
		}
		return x
	}
	switch p := m.GetMatchPattern().(type) {
	case *matcherv3.StringMatcher_Exact:
		return fold(s) == fold(p.Exact), nil
	case *matcherv3.StringMatcher_Prefix:
		return strings.HasPrefix(fold(s), fold(p.Prefix)), nil
	case *matcherv3.StringMatcher_Suffix:
		return strings.HasSuffix(fold(s), fold(p.Suffix)), nil
	case *matcherv3.StringMatcher_Contains:
		return strings.Contains(fold(s), fold(p.Contains)), nil
	case *matcherv3.StringMatcher_SafeRegex:
		return fullMatch(p.SafeRegex.GetRegex(), s)
	}
	return false, fmt.Errorf("string matcher %T is not supported", m.GetMatchPattern())
}

// describeString is a StringMatcher for humans: `exact "v"`.
func describeString(m *matcherv3.StringMatcher) string {
	var s string
	switch p := m.GetMatchPattern().(type) {
	case *matcherv3.StringMatcher_Exact:
		s = fmt.Sprintf("exact %q", p.Exact)
	case *matcherv3.StringMatcher_Prefix:
		s = fmt.Sprintf("prefix %q", p.Prefix)
	case *matcherv3.StringMatcher_Suffix:
		s = fmt.Sprintf("suffix %q", p.Suffix)
	case *matcherv3.StringMatcher_Contains:
		s = fmt.Sprintf("contains %q", p.Contains)
	case *matcherv3.StringMatcher_SafeRegex:
		s = fmt.Sprintf("regex %q", p.SafeRegex.GetRegex())
	default:
		s = fmt.Sprintf("%T", m.GetMatchPattern())
	}
	if m.GetIgnoreCase() {
		s += " (ignore case)"
	}
	return s
}

// headerSpec turns the deprecated one-field header matchers into a
// StringMatcher, so that only present_match, range_match and string_match
// need their own code.
func headerSpec(h *routev3.HeaderMatcher) *matcherv3.StringMatcher {
	switch s := h.GetHeaderMatchSpecifier().(type) {
	case *routev3.HeaderMatcher_StringMatch:
		return s.StringMatch
	case *routev3.HeaderMatcher_ExactMatch:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: s.ExactMatch}}
	case *routev3.HeaderMatcher_PrefixMatch:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Prefix{Prefix: s.PrefixMatch}}
	case *routev3.HeaderMatcher_SuffixMatch:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Suffix{Suffix: s.SuffixMatch}}
	case *routev3.HeaderMatcher_ContainsMatch:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Contains{Contains: s.ContainsMatch}}
	case *routev3.HeaderMatcher_SafeRegexMatch:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{SafeRegex: s.SafeRegexMatch}}
	}
	return nil
}

// describeHeader is a header matcher for humans: `header x-a exact "b"`.
func describeHeader(h *routev3.HeaderMatcher) string {
	var s string
	switch spec := h.GetHeaderMatchSpecifier().(type) {
	case nil:
		s = "present"
	case *routev3.HeaderMatcher_PresentMatch:
		s = "present"
		if !spec.PresentMatch {
			s = "absent"
		}
	case *routev3.HeaderMatcher_RangeMatch:
		s = fmt.Sprintf("in [%d,%d)", spec.RangeMatch.GetStart(), spec.RangeMatch.GetEnd())
	default:
		s = describeString(headerSpec(h))
	}
	if h.GetInvertMatch() {
		s = "not " + s
	}
	if h.GetTreatMissingHeaderAsEmpty() {
		s += " (missing = empty)"
	}
	return fmt.Sprintf("header %s %s", h.GetName(), s)
}

// matchHeader applies one HeaderMatcher, following HeaderMatcher's
// documentation: a missing header never matches (inverted or not) unless
// treat_missing_header_as_empty makes it the empty string; present_match
// tests presence, or absence when false; invert_match flips the result of
// the test on the value. reason says why it failed, for explain.
func matchHeader(h *routev3.HeaderMatcher, q *request) (ok bool, reason string, err error) {
	value, present := q.header(h.GetName())
	invert := h.GetInvertMatch()
	switch spec := h.GetHeaderMatchSpecifier().(type) {
	case nil:
		// No specifier: Envoy checks presence only.
		if present != invert {
			return true, "", nil
		}
		return false, presenceReason(h.GetName(), present), nil
	case *routev3.HeaderMatcher_PresentMatch:
		if (present == spec.PresentMatch) != invert {
			return true, "", nil
		}
		return false, presenceReason(h.GetName(), present), nil
	}
	if !present {
		if !h.GetTreatMissingHeaderAsEmpty() {
			return false, fmt.Sprintf("header %s is absent", h.GetName()), nil
		}
		value = ""
	}
	var matched bool
	if r, isRange := h.GetHeaderMatchSpecifier().(*routev3.HeaderMatcher_RangeMatch); isRange {
		n, perr := strconv.ParseInt(value, 10, 64)
		matched = perr == nil && n >= r.RangeMatch.GetStart() && n < r.RangeMatch.GetEnd()
	} else {
		matched, err = matchString(headerSpec(h), value)
		if err != nil {
			return false, err.Error(), err
		}
	}
	if matched != invert {
		return true, "", nil
	}
	return false, fmt.Sprintf("header %s is %q", h.GetName(), value), nil
}

func presenceReason(name string, present bool) string {
	if present {
		return fmt.Sprintf("header %s is present", name)
	}
	return fmt.Sprintf("header %s is absent", name)
}

// describeQuery is a query parameter matcher for humans.
func describeQuery(m *routev3.QueryParameterMatcher) string {
	switch s := m.GetQueryParameterMatchSpecifier().(type) {
	case *routev3.QueryParameterMatcher_StringMatch:
		return fmt.Sprintf("query %s %s", m.GetName(), describeString(s.StringMatch))
	case *routev3.QueryParameterMatcher_PresentMatch:
		if !s.PresentMatch {
			// Envoy's validation rejects present_match: false; if it ever
			// gets here it is treated like "present".
			return fmt.Sprintf("query %s present (present_match: false)", m.GetName())
		}
	}
	return fmt.Sprintf("query %s present", m.GetName())
}

// matchQuery applies one QueryParameterMatcher: the parameter must be in
// the query string (only its first value counts) and match string_match
// when there is one.
func matchQuery(m *routev3.QueryParameterMatcher, q *request) (ok bool, reason string, err error) {
	value, present := q.queryParam(m.GetName())
	if !present {
		return false, fmt.Sprintf("query parameter %s is absent", m.GetName()), nil
	}
	sm := m.GetStringMatch()
	if sm == nil {
		return true, "", nil
	}
	matched, err := matchString(sm, value)
	if err != nil {
		return false, err.Error(), err
	}
	if !matched {
		return false, fmt.Sprintf("query parameter %s is %q", m.GetName(), value), nil
	}
	return true, "", nil
}
