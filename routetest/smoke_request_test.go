package routetest

import (
	"fmt"
	"strconv"
	"strings"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
)

// wildLabel replaces a wildcard in a generated host name; it is unlikely
// to be some other virtual host's exact domain.
const wildLabel = "smoke-wild"

// smokeRequest builds a request meant for one route from the route's own
// match: the listener's port and scheme, the virtual host's domain (a
// leading or trailing "*" replaced by a label) as authority and SNI, a path
// the path specifier accepts, headers and query parameters that satisfy
// the matchers (inverted ones by omission when a missing header passes,
// else by a value that fails the matcher). why says why no request could
// be built.
func smokeRequest(l *listenerv3.Listener, fc *listenerv3.FilterChain, vh *routev3.VirtualHost, r *routev3.Route) (Request, string) {
	tls := chainTakesTLS(fc)
	req := Request{Port: clientPort(l), Scheme: "http"}
	if tls {
		req.Scheme = "https"
	}
	host := ""
	for _, d := range vh.GetDomains() {
		if d != "*" {
			host = hostFor(d)
			break
		}
	}
	names := fc.GetFilterChainMatch().GetServerNames()
	if host == "" {
		host = "smoke-any.invalid"
		if len(names) > 0 {
			host = hostFor(names[0])
		}
	}
	req.Authority = host
	if len(names) > 0 && !serverNamesAccept(names, host) {
		sni := hostFor(names[0])
		req.SNI = &sni
	}

	m := r.GetMatch()
	switch spec := m.GetPathSpecifier().(type) {
	case *routev3.RouteMatch_Prefix:
		req.Path = spec.Prefix
	case *routev3.RouteMatch_Path:
		req.Path = spec.Path
	case *routev3.RouteMatch_PathSeparatedPrefix:
		req.Path = spec.PathSeparatedPrefix
	case *routev3.RouteMatch_SafeRegex:
		p, ok := sampleRegex(spec.SafeRegex.GetRegex())
		if !ok {
			return req, fmt.Sprintf("no sample for regex %q", spec.SafeRegex.GetRegex())
		}
		req.Path = p
	default:
		return req, fmt.Sprintf("path specifier %T", spec)
	}
	if req.Path == "" {
		req.Path = "/"
	}
	if !strings.HasPrefix(req.Path, "/") {
		return req, fmt.Sprintf("path %q does not start with /", req.Path)
	}

	var query []string
	for _, qp := range m.GetQueryParameters() {
		v := "1"
		if sm := qp.GetStringMatch(); sm != nil {
			s, ok := satisfy(sm)
			if !ok {
				return req, "no value for " + describeQuery(qp)
			}
			v = s
		}
		query = append(query, qp.GetName()+"="+v)
	}
	if len(query) > 0 {
		sep := "?"
		if strings.Contains(req.Path, "?") {
			sep = "&"
		}
		req.Path += sep + strings.Join(query, "&")
	}

	seen := map[string]bool{}
	for _, h := range m.GetHeaders() {
		name := strings.ToLower(h.GetName())
		if seen[name] {
			return req, "several matchers on header " + name
		}
		seen[name] = true
		value, send, ok := headerValueFor(h)
		if !ok {
			return req, "no value for " + describeHeader(h)
		}
		switch {
		case !send:
		case name == ":method":
			req.Method = value
		case strings.HasPrefix(name, ":"):
			return req, "matcher on pseudo-header " + name
		default:
			req.Headers = append(req.Headers, Header{Name: h.GetName(), Value: value})
		}
	}
	if m.GetGrpc() != nil {
		req.Headers = append(req.Headers, Header{Name: "content-type", Value: "application/grpc"})
	}

	// The request is not checked against the route's match here: that
	// would use the matchers under test and turn their bugs into skips.
	// It is correct by construction; samples of regexes are checked by
	// sampleRegex's own test and by satisfy.
	return req, ""
}

// clientPort is the port a client uses for a listener: the Gateway
// listener's port its name ends with (http-80 binds 8080), else the port
// it binds.
func clientPort(l *listenerv3.Listener) int {
	if i := strings.LastIndexByte(l.GetName(), '-'); i >= 0 {
		if p, err := strconv.Atoi(l.GetName()[i+1:]); err == nil {
			return p
		}
	}
	return bindPort(l)
}

// hostFor turns a domain or server name into a host it matches.
func hostFor(domain string) string {
	switch {
	case strings.HasPrefix(domain, "*"):
		return wildLabel + domain[1:]
	case strings.HasSuffix(domain, "*"):
		return domain[:len(domain)-1] + wildLabel
	}
	return domain
}

func serverNamesAccept(names []string, host string) bool {
	for _, cand := range serverNameCandidates(host) {
		for _, n := range names {
			if strings.EqualFold(n, cand) {
				return true
			}
		}
	}
	return false
}

// headerValueFor returns a value that satisfies h, or send=false when
// leaving the header out satisfies it.
func headerValueFor(h *routev3.HeaderMatcher) (value string, send, ok bool) {
	invert := h.GetInvertMatch()
	switch spec := h.GetHeaderMatchSpecifier().(type) {
	case nil:
		return "present", !invert, true
	case *routev3.HeaderMatcher_PresentMatch:
		return "present", spec.PresentMatch != invert, true
	case *routev3.HeaderMatcher_RangeMatch:
		if invert {
			return "not-a-number", true, true
		}
		return strconv.FormatInt(spec.RangeMatch.GetStart(), 10), true, true
	}
	sm := headerSpec(h)
	if !invert {
		v, ok := satisfy(sm)
		return v, true, ok
	}
	if h.GetTreatMissingHeaderAsEmpty() {
		if m, _ := matchString(sm, ""); !m {
			return "", false, true
		}
	}
	for _, v := range []string{"smoke-value", "0", "x", "-"} {
		if m, err := matchString(sm, v); err == nil && !m {
			return v, true, true
		}
	}
	return "", false, false
}

// satisfy returns a value a string matcher accepts.
func satisfy(sm *matcherv3.StringMatcher) (string, bool) {
	var v string
	switch p := sm.GetMatchPattern().(type) {
	case *matcherv3.StringMatcher_Exact:
		v = p.Exact
	case *matcherv3.StringMatcher_Prefix:
		v = p.Prefix + "x"
	case *matcherv3.StringMatcher_Suffix:
		v = "x" + p.Suffix
	case *matcherv3.StringMatcher_Contains:
		v = "x" + p.Contains + "x"
	case *matcherv3.StringMatcher_SafeRegex:
		s, ok := sampleRegex(p.SafeRegex.GetRegex())
		if !ok {
			return "", false
		}
		v = s
	default:
		return "", false
	}
	m, err := matchString(sm, v)
	return v, err == nil && m
}
