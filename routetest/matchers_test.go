package routetest

import (
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
)

// StringMatcher: ignore_case applies to every kind but safe_regex, and
// safe_regex must match the whole value.
func TestMatchString(t *testing.T) {
	tests := []struct {
		name  string
		m     *matcherv3.StringMatcher
		value string
		want  bool
	}{
		{"exact", exact("abc"), "abc", true},
		{"exact is whole", exact("abc"), "abcd", false},
		{"exact is case-sensitive", exact("abc"), "ABC", false},
		{"exact ignore_case", ignoreCase(exact("abc")), "ABC", true},
		{"prefix", prefixSM("ab"), "abc", true},
		{"prefix miss", prefixSM("bc"), "abc", false},
		{"prefix ignore_case", ignoreCase(prefixSM("AB")), "abc", true},
		{"suffix", suffixSM("bc"), "abc", true},
		{"suffix ignore_case", ignoreCase(suffixSM("BC")), "abc", true},
		{"contains", contains("b"), "abc", true},
		{"contains miss", contains("x"), "abc", false},
		{"contains ignore_case", ignoreCase(contains("B")), "abc", true},
		{"regex full match", regex(`\d{3}`), "123", true},
		// HeaderMatcher's documentation: \d{3} does not match 1234.
		{"regex is anchored at the end", regex(`\d{3}`), "1234", false},
		{"regex is anchored at the start", regex(`b.*`), "abc", false},
		{"regex with explicit anchors", regex(`^a.*$`), "abc", true},
		{"regex alternation is anchored as a whole", regex(`a|abc`), "abc", true},
		{"regex ignores ignore_case", ignoreCase(regex(`abc`)), "ABC", false},
		{"regex inline flag", regex(`(?i)abc`), "ABC", true},
		// \Q quotes to the end of an RE2 pattern: anchoring must not
		// become part of the quoted text.
		{"regex with an open \\Q", regex(`a\Q.*`), "a.*", true},
		{"regex with an open \\Q is literal", regex(`a\Q.*`), "abc", false},
		{"regex with an inline flag group", regex(`(?i:ab)c`), "ABc", true},
		{"regex with an inline flag group, anchored", regex(`(?i:ab)c`), "ABC", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := matchString(tt.m, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%s on %q = %v, want %v", describeString(tt.m), tt.value, got, tt.want)
			}
		})
	}
}

func TestInvalidRegexMatchesNothing(t *testing.T) {
	ok, err := matchString(regex(`(`), "(")
	if ok || err == nil {
		t.Errorf("invalid regex: matched %v, err %v; want no match and an error", ok, err)
	}
}

// HeaderMatcher semantics, including the examples of its documentation
// for invert_match and treat_missing_header_as_empty.
func TestMatchHeader(t *testing.T) {
	rangeMatch := func(start, end int64) *routev3.HeaderMatcher {
		return &routev3.HeaderMatcher{Name: "header1", HeaderMatchSpecifier: &routev3.HeaderMatcher_RangeMatch{
			RangeMatch: &typev3.Int64Range{Start: start, End: end}}}
	}
	tests := []struct {
		name    string
		m       *routev3.HeaderMatcher
		headers []string
		want    bool
	}{
		{"exact", hdr("x-a", exact("1")), []string{"x-a", "1"}, true},
		{"name is case-insensitive", hdr("X-A", exact("1")), []string{"x-a", "1"}, true},
		{"value is case-sensitive", hdr("x-a", exact("abc")), []string{"x-a", "ABC"}, false},
		{"ignore_case", hdr("x-a", ignoreCase(exact("abc"))), []string{"x-a", "ABC"}, true},
		{"missing header does not match", hdr("x-a", exact("1")), nil, false},
		{"repeated header values are joined with commas", hdr("x-a", exact("1,2")), []string{"x-a", "1", "x-a", "2"}, true},
		{"contains", hdr("x-a", contains("bc")), []string{"x-a", "abcd"}, true},
		{"regex is a full match", hdr("x-a", regex(`\d{3}`)), []string{"x-a", "1234"}, false},
		{"inverted regex", inverted(hdr("x-a", regex(`\d{3}`))), []string{"x-a", "1234"}, true},
		{"inverted exact on other value", inverted(hdr("x-a", exact("1"))), []string{"x-a", "2"}, true},
		{"inverted exact on same value", inverted(hdr("x-a", exact("1"))), []string{"x-a", "1"}, false},
		// A missing header is not matched, inverted or not, unless it is
		// treated as empty.
		{"inverted on missing header", inverted(hdr("x-a", exact("1"))), nil, false},
		{"inverted, missing as empty", missingAsEmpty(inverted(hdr("x-a", exact("1")))), nil, true},
		{"missing as empty, regex ^$", missingAsEmpty(hdr("header3", regex(`^$`))), nil, true},
		{"regex ^$ without missing as empty", hdr("header4", regex(`^$`)), nil, false},
		{"range", rangeMatch(-10, 0), []string{"header1", "-1"}, true},
		{"range end is exclusive", rangeMatch(-10, 0), []string{"header1", "0"}, false},
		{"inverted range", inverted(rangeMatch(-10, 0)), []string{"header1", "-1"}, false},
		{"range on non-number", rangeMatch(0, 10), []string{"header1", "x"}, false},
		{"inverted range, missing as empty", missingAsEmpty(inverted(rangeMatch(0, 10))), nil, true},
		{"inverted range, missing", inverted(rangeMatch(0, 10)), nil, false},
		{"present", hdrPresent("x-a", true), []string{"x-a", ""}, true},
		{"present on missing", hdrPresent("x-a", true), nil, false},
		{"present_match false means absent", hdrPresent("x-a", false), nil, true},
		{"present_match false on present", hdrPresent("x-a", false), []string{"x-a", "1"}, false},
		{"inverted present", inverted(hdrPresent("x-a", true)), nil, true},
		{"inverted present on present", inverted(hdrPresent("x-a", true)), []string{"x-a", "1"}, false},
		{"no specifier means present", &routev3.HeaderMatcher{Name: "x-a"}, []string{"x-a", "1"}, true},
		{"pseudo-header :method", hdr(":method", exact("POST")), nil, false},
		{"deprecated exact_match", &routev3.HeaderMatcher{Name: "x-a", HeaderMatchSpecifier: &routev3.HeaderMatcher_ExactMatch{ExactMatch: "1"}}, []string{"x-a", "1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason, err := matchHeader(tt.m, req(t, "/", tt.headers...))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%s with headers %v = %v (%s), want %v", describeHeader(tt.m), tt.headers, got, reason, tt.want)
			}
			if !got && reason == "" {
				t.Error("no reason given for a mismatch")
			}
		})
	}
}

func TestPseudoHeaders(t *testing.T) {
	q := req(t, "/p?x=1")
	q.Method = "POST"
	q.buildHeaders()
	for name, want := range map[string]string{":method": "POST", ":path": "/p?x=1", ":authority": "example.com", ":scheme": "http"} {
		if got, ok := q.header(name); !ok || got != want {
			t.Errorf("%s = %q, %v; want %q", name, got, ok, want)
		}
	}
}

// QueryParameterMatcher: the parameter must be present; only its first
// value counts; values are compared as sent (not percent-decoded).
func TestMatchQuery(t *testing.T) {
	qm := func(name string, m *matcherv3.StringMatcher) *routev3.QueryParameterMatcher {
		if m == nil {
			return &routev3.QueryParameterMatcher{Name: name, QueryParameterMatchSpecifier: &routev3.QueryParameterMatcher_PresentMatch{PresentMatch: true}}
		}
		return &routev3.QueryParameterMatcher{Name: name, QueryParameterMatchSpecifier: &routev3.QueryParameterMatcher_StringMatch{StringMatch: m}}
	}
	tests := []struct {
		name string
		m    *routev3.QueryParameterMatcher
		path string
		want bool
	}{
		{"exact", qm("a", exact("1")), "/?a=1", true},
		{"exact other value", qm("a", exact("1")), "/?a=2", false},
		{"absent", qm("a", exact("1")), "/?b=1", false},
		{"no query string", qm("a", nil), "/", false},
		{"present", qm("a", nil), "/?x=0&a=", true},
		{"present without =", qm("a", nil), "/?a", true},
		{"key without = has the empty value", qm("a", exact("")), "/?a", true},
		{"first value wins", qm("a", exact("1")), "/?a=2&a=1", false},
		{"first value wins (match)", qm("a", exact("2")), "/?a=2&a=1", true},
		{"not decoded", qm("a", exact("b c")), "/?a=b%20c", false},
		{"encoded form matches", qm("a", exact("b%20c")), "/?a=b%20c", true},
		{"name is case-sensitive", qm("A", nil), "/?a=1", false},
		{"regex full match", qm("a", regex(`\d+`)), "/?a=12x", false},
		{"ignore_case", qm("a", ignoreCase(exact("ABC"))), "/?a=abc", true},
		{"fragment is not query", qm("a", nil), "/#?a=1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason, err := matchQuery(tt.m, req(t, tt.path))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%s on %s = %v (%s), want %v", describeQuery(tt.m), tt.path, got, reason, tt.want)
			}
		})
	}
}
