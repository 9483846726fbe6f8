package routetest

import (
	"strconv"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
)

// redirect computes a redirect response the way RedirectAction documents
// it:
//   - scheme: https_redirect or scheme_redirect, else the request's;
//   - host: host_redirect, else the request's authority, whose port is
//     dropped when port_redirect replaces it, or when the scheme changes
//     and the port was the old scheme's default (http and :80, https and
//     :443);
//   - port: port_redirect, appended as ":port";
//   - path: path_redirect (whose own query string, if any, replaces the
//     request's), or the matched prefix swapped by prefix_rewrite, or
//     regex_rewrite applied, else the request's path; strip_query drops
//     the request's query string;
//   - status: response_code, 301 by default.
func redirect(ra *routev3.RedirectAction, m *routev3.RouteMatch, q *request) *Redirect {
	scheme := q.Scheme
	switch s := ra.GetSchemeRewriteSpecifier().(type) {
	case *routev3.RedirectAction_HttpsRedirect:
		if s.HttpsRedirect {
			scheme = "https"
		}
	case *routev3.RedirectAction_SchemeRedirect:
		scheme = strings.ToLower(s.SchemeRedirect)
	}

	host := ra.GetHostRedirect()
	if host == "" {
		host = q.Authority
		if i := portIndex(host); i >= 0 {
			port := host[i:]
			drop := ra.GetPortRedirect() != 0
			if scheme != q.Scheme {
				drop = drop || q.Scheme == "http" && port == ":80" || q.Scheme == "https" && port == ":443"
			}
			if drop {
				host = host[:i]
			}
		}
	}
	if p := ra.GetPortRedirect(); p != 0 {
		host += ":" + strconv.Itoa(int(p))
	}

	path := q.path
	strip := ra.GetStripQuery()
	switch spec := ra.GetPathRewriteSpecifier().(type) {
	case *routev3.RedirectAction_PathRedirect:
		if strings.Contains(spec.PathRedirect, "?") {
			// Its own query string replaces the request's, and is kept.
			path, strip = spec.PathRedirect, false
		} else {
			path = spec.PathRedirect + querySuffix(q.path)
		}
	case *routev3.RedirectAction_PrefixRewrite:
		path = rewritePrefix(m, q, spec.PrefixRewrite)
	case *routev3.RedirectAction_RegexRewrite:
		if p, err := rewriteRegex(spec.RegexRewrite, q.path); err == nil {
			path = p
		}
	}
	if strip {
		path, _, _ = strings.Cut(path, "?")
	}
	return &Redirect{Status: responseCode(ra.GetResponseCode()), Location: scheme + "://" + host + path}
}

// portIndex is the index of the ":" before an authority's port, -1 when
// it has none (an IPv6 literal's colons are not a port).
func portIndex(authority string) int {
	i := strings.LastIndexByte(authority, ':')
	if i < 0 || strings.Contains(authority[i:], "]") {
		return -1
	}
	return i
}

// querySuffix is "?query" of a request target, or "".
func querySuffix(target string) string {
	if i := strings.IndexByte(target, '?'); i >= 0 {
		return target[i:]
	}
	return ""
}
