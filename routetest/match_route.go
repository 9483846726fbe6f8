package routetest

import (
	"fmt"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
)

// RouteTry is one route of the chosen virtual host as the router tried it.
type RouteTry struct {
	Index int `json:"index"`
	// Match is the route's match for humans: `prefix "/api", header x-a exact "b"`.
	Match   string `json:"match"`
	Matched bool   `json:"matched"`
	// Reason says why a route did not match: the first criterion that failed.
	Reason string  `json:"reason,omitempty"`
	Source *Source `json:"source,omitempty"`
}

// matchRoute tries one route's match against q, criteria in the order
// Envoy checks them: path specifier, then headers, then query parameters
// (and the other RouteMatch fields). The first failed criterion is the
// reason. err is set for criteria contourc cannot evaluate; such a route
// is reported as not matching.
func matchRoute(m *routev3.RouteMatch, q *request) (ok bool, reason string, err error) {
	ok, reason, err = matchPath(m, q)
	if !ok || err != nil {
		return false, reason, err
	}
	for _, h := range m.GetHeaders() {
		if ok, reason, err = matchHeader(h, q); !ok {
			return false, reason, err
		}
	}
	for _, qp := range m.GetQueryParameters() {
		if ok, reason, err = matchQuery(qp, q); !ok {
			return false, reason, err
		}
	}
	if m.GetGrpc() != nil {
		ct, _ := q.header("content-type")
		if ct != "application/grpc" && !strings.HasPrefix(ct, "application/grpc+") {
			return false, fmt.Sprintf("not a gRPC request (content-type %q)", ct), nil
		}
	}
	if unsupported := unsupportedMatch(m); unsupported != "" {
		return false, unsupported + " is not evaluated by contourc", fmt.Errorf("route match uses %s, which contourc does not evaluate", unsupported)
	}
	return true, "", nil
}

// unsupportedMatch names a RouteMatch criterion contourc cannot evaluate
// (Contour generates none of them).
func unsupportedMatch(m *routev3.RouteMatch) string {
	switch {
	case m.GetRuntimeFraction() != nil:
		return "runtime_fraction"
	case m.GetTlsContext() != nil:
		return "tls_context"
	case len(m.GetDynamicMetadata()) > 0:
		return "dynamic_metadata"
	case len(m.GetFilterState()) > 0:
		return "filter_state"
	case len(m.GetCookies()) > 0:
		return "cookies"
	}
	return ""
}

// matchPath applies the path specifier. prefix is matched against the
// whole :path, query string included, as Envoy documents; path,
// path_separated_prefix and safe_regex against the path without the query
// string. case_sensitive (default true) applies to all but safe_regex, which
// must match the whole path.
func matchPath(m *routev3.RouteMatch, q *request) (ok bool, reason string, err error) {
	caseSensitive := m.GetCaseSensitive() == nil || m.GetCaseSensitive().GetValue()
	fold := func(s string) string {
		if caseSensitive {
			return s
		}
		return strings.ToLower(s)
	}
	switch spec := m.GetPathSpecifier().(type) {
	case *routev3.RouteMatch_Prefix:
		if strings.HasPrefix(fold(q.path), fold(spec.Prefix)) {
			return true, "", nil
		}
		return false, fmt.Sprintf("path %q does not start with %q", q.path, spec.Prefix), nil
	case *routev3.RouteMatch_Path:
		if fold(q.pathOnly) == fold(spec.Path) {
			return true, "", nil
		}
		return false, fmt.Sprintf("path %q is not %q", q.pathOnly, spec.Path), nil
	case *routev3.RouteMatch_PathSeparatedPrefix:
		if pathSeparatedPrefix(fold(spec.PathSeparatedPrefix), fold(q.pathOnly)) {
			return true, "", nil
		}
		return false, fmt.Sprintf("path %q is neither %q nor below it", q.pathOnly, spec.PathSeparatedPrefix), nil
	case *routev3.RouteMatch_SafeRegex:
		ok, err := fullMatch(spec.SafeRegex.GetRegex(), q.pathOnly)
		if err != nil {
			return false, err.Error(), err
		}
		if ok {
			return true, "", nil
		}
		return false, fmt.Sprintf("path %q does not fully match regex %q", q.pathOnly, spec.SafeRegex.GetRegex()), nil
	case *routev3.RouteMatch_ConnectMatcher_:
		if q.Method == "CONNECT" {
			return true, "", nil
		}
		return false, "not a CONNECT request", nil
	case nil:
		return false, "route has no path specifier", fmt.Errorf("route match has no path specifier")
	}
	name := fmt.Sprintf("%T", m.GetPathSpecifier())
	return false, name + " is not evaluated by contourc", fmt.Errorf("route match uses %s, which contourc does not evaluate", name)
}

// pathSeparatedPrefix reports whether path is prefix or lies below it: the
// prefix must be followed by "/" or the end of the path ("/api" accepts
// "/api", "/api/" and "/api/v1", not "/apis").
func pathSeparatedPrefix(prefix, path string) bool {
	if !strings.HasPrefix(path, prefix) {
		return false
	}
	return len(path) == len(prefix) || path[len(prefix)] == '/'
}

// describeMatch is a RouteMatch for humans.
func describeMatch(m *routev3.RouteMatch) string {
	var parts []string
	switch spec := m.GetPathSpecifier().(type) {
	case *routev3.RouteMatch_Prefix:
		parts = append(parts, fmt.Sprintf("prefix %q", spec.Prefix))
	case *routev3.RouteMatch_Path:
		parts = append(parts, fmt.Sprintf("path %q", spec.Path))
	case *routev3.RouteMatch_PathSeparatedPrefix:
		parts = append(parts, fmt.Sprintf("path_separated_prefix %q", spec.PathSeparatedPrefix))
	case *routev3.RouteMatch_SafeRegex:
		parts = append(parts, fmt.Sprintf("safe_regex %q", spec.SafeRegex.GetRegex()))
	case *routev3.RouteMatch_ConnectMatcher_:
		parts = append(parts, "connect")
	default:
		parts = append(parts, fmt.Sprintf("%T", m.GetPathSpecifier()))
	}
	if cs := m.GetCaseSensitive(); cs != nil && !cs.GetValue() {
		parts[0] += " (case-insensitive)"
	}
	for _, h := range m.GetHeaders() {
		parts = append(parts, describeHeader(h))
	}
	for _, qp := range m.GetQueryParameters() {
		parts = append(parts, describeQuery(qp))
	}
	if m.GetGrpc() != nil {
		parts = append(parts, "grpc")
	}
	if u := unsupportedMatch(m); u != "" {
		parts = append(parts, u)
	}
	return strings.Join(parts, ", ")
}
