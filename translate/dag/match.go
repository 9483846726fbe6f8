package dag

import "regexp"

// HeaderNameMatch matches a header name: exact, prefix, suffix or contains.
type HeaderNameMatch struct {
	Type, Value string
	IgnoreCase  bool
}

// PathMatchKind tells how a route matches the request path.
type PathMatchKind int

const (
	PathPrefix        PathMatchKind = iota // string prefix
	PathSegmentPrefix                      // prefix on path-segment boundaries
	PathExact
	PathRegex
)

// PathMatch is a route's path condition.
type PathMatch struct {
	Kind  PathMatchKind
	Value string
}

// HeaderMatchType is how a header condition compares.
type HeaderMatchType string

const (
	HeaderExact    HeaderMatchType = "exact"
	HeaderRegex    HeaderMatchType = "regex"
	HeaderContains HeaderMatchType = "contains"
	HeaderPresent  HeaderMatchType = "present"
)

// HeaderMatch is a route's header condition.
type HeaderMatch struct {
	Name                string
	Type                HeaderMatchType
	Value               string
	Invert              bool
	IgnoreCase          bool
	TreatMissingAsEmpty bool
}

// QueryMatch is a route's query-parameter condition.
type QueryMatch struct {
	Name       string
	Type       string // exact, regex, prefix, suffix, contains, present
	Value      string
	IgnoreCase bool
}

// WildcardAuthorityMatch limits a "*.example.com" virtual host to one DNS
// label, since Envoy's wildcard domains match several; a port is allowed.
func WildcardAuthorityMatch(host string) HeaderMatch {
	return HeaderMatch{
		Name:  ":authority",
		Type:  HeaderRegex,
		Value: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?" + regexp.QuoteMeta(host[1:]) + "(:[0-9]+)?",
	}
}
