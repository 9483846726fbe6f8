package httpproxy

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"

	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/httpheader"
	"github.com/contourc/contourc/translate/internal/status"
)

// Per-route HTTPProxy policies: redirects, path rewrites, internal
// redirects and request hashing.

// redirectPolicy converts requestRedirectPolicy; path and prefix exclude
// each other.
func redirectPolicy(r *contourv1.HTTPRequestRedirectPolicy) (*dag.Redirect, error) {
	if r == nil {
		return nil, nil
	}
	if r.Path != nil && r.Prefix != nil {
		return nil, errors.New("cannot specify both redirect path and redirect prefix")
	}
	out := &dag.Redirect{}
	if r.Hostname != nil {
		out.Hostname = *r.Hostname
	}
	if r.Scheme != nil {
		out.Scheme = *r.Scheme
	}
	if r.Port != nil {
		out.Port = uint32(*r.Port)
	}
	if r.StatusCode != nil {
		out.StatusCode = int(*r.StatusCode)
	}
	if r.Path != nil {
		out.Path = *r.Path
	}
	if r.Prefix != nil {
		out.Prefix = *r.Prefix
	}
	return out, nil
}

// prefixRewrite picks the replacement for a route's merged prefix: the
// entry naming exactly that prefix, else the entry with no prefix.
func prefixRewrite(replacements []contourv1.ReplacePrefix, routePrefix string) *dag.PathRewrite {
	for _, r := range replacements {
		if r.Prefix != "" && r.Prefix == routePrefix {
			return &dag.PathRewrite{Prefix: r.Replacement}
		}
	}
	for _, r := range replacements {
		if r.Prefix == "" {
			return &dag.PathRewrite{Prefix: r.Replacement}
		}
	}
	return nil
}

// prefixReplacementsValid refuses two replacements for one prefix; the
// reason is the status reason Contour reports.
func prefixReplacementsValid(replacements []contourv1.ReplacePrefix) (reason string, err error) {
	seen := map[string]bool{}
	for _, r := range replacements {
		if seen[r.Prefix] {
			if r.Prefix != "" {
				return "DuplicateReplacement", fmt.Errorf("duplicate replacement prefix '%s'", r.Prefix)
			}
			return "AmbiguousReplacement", errors.New("ambiguous prefix replacement")
		}
		seen[r.Prefix] = true
	}
	return "", nil
}

// expandPrefixRewrites makes a rewritten prefix route behave the same with
// and without a trailing slash: a lone route for prefix P (ignoring a
// trailing "/") rewriting to R becomes P -> trimmed R (or "/") and
// P/ -> trimmed R + "/". When routes for both P and P/ exist already,
// nothing is added.
//
// Contour does this for every HTTPProxy of an include chain, over its
// routes and those of its includes. Only routes[from:], the proxy's own,
// can still be lone: an included route was expanded by its own proxy when
// it was lone there, adding a second route of its prefix. So only those
// are looked at, against all: looking at every route again at every step
// made an include chain's walk cubic in its depth.
func expandPrefixRewrites(routes []*dag.Route, from int) []*dag.Route {
	type candidate struct {
		route *dag.Route
		key   string
		n     int // routes of that prefix, ignoring a trailing "/"
	}
	var cands []candidate
	for _, r := range routes[from:] {
		if r.PathMatch.Kind == dag.PathPrefix && r.PathRewrite != nil && r.PathMatch.Value != "/" {
			cands = append(cands, candidate{route: r, key: rewriteGroupKey(r.PathMatch.Value)})
		}
	}
	if len(cands) == 0 {
		return routes // no rewrite: the common case
	}
	for _, r := range routes {
		if r.PathMatch.Kind != dag.PathPrefix {
			continue
		}
		key := rewriteGroupKey(r.PathMatch.Value)
		for i := range cands {
			if cands[i].key == key {
				cands[i].n++
			}
		}
	}
	out := routes
	for _, c := range cands {
		if c.n != 1 {
			continue
		}
		r := c.route
		trimmed := strings.TrimRight(r.PathRewrite.Prefix, "/")
		withSlash := *r
		withSlash.PathMatch = dag.PathMatch{Kind: dag.PathPrefix, Value: c.key + "/"}
		withSlash.PathRewrite = &dag.PathRewrite{Prefix: trimmed + "/"}
		if trimmed == "" {
			trimmed = "/"
		}
		r.PathMatch = dag.PathMatch{Kind: dag.PathPrefix, Value: c.key}
		r.PathRewrite = &dag.PathRewrite{Prefix: trimmed}
		out = append(out, &withSlash)
	}
	return out
}

// rewriteGroupKey is the prefix a rewritten route is grouped by: without
// its trailing slashes, except "/".
func rewriteGroupKey(prefix string) string {
	if prefix == "/" {
		return prefix
	}
	return strings.TrimRight(prefix, "/")
}

// internalRedirectPolicy converts internalRedirectPolicy.
func internalRedirectPolicy(p *contourv1.HTTPInternalRedirectPolicy) *dag.InternalRedirectPolicy {
	if p == nil {
		return nil
	}
	out := &dag.InternalRedirectPolicy{
		AllowCrossScheme:          string(p.AllowCrossSchemeRedirect),
		DenyRepeatedRouteRedirect: p.DenyRepeatedRouteRedirect,
		MaxInternalRedirects:      p.MaxInternalRedirects,
	}
	for _, c := range p.RedirectResponseCodes {
		out.RedirectResponseCodes = append(out.RedirectResponseCodes, uint32(c))
	}
	return out
}

// loadBalancing returns a route's load-balancer strategy and hash
// policies. Invalid request-hash entries are dropped with warnings; with
// none left the strategy falls back to round robin.
func loadBalancing(lb *contourv1.LoadBalancerPolicy, st *status.Proxy) (string, []dag.RequestHashPolicy) {
	if lb == nil {
		return "", nil
	}
	switch lb.Strategy {
	case "WeightedLeastRequest", "Random":
		return lb.Strategy, nil
	case "Cookie":
		return lb.Strategy, []dag.RequestHashPolicy{{Cookie: true}}
	case "RequestHash":
		return requestHashPolicies(lb.RequestHashPolicies, st)
	default:
		return "", nil
	}
}

func requestHashPolicies(in []contourv1.RequestHashPolicy, st *status.Proxy) (string, []dag.RequestHashPolicy) {
	var out []dag.RequestHashPolicy
	sourceIP := false
	headers, params := map[string]bool{}, map[string]bool{}
	ignore := func(format string, args ...any) { st.AddWarning("SpecError", "IgnoredField", format, args...) }
	for _, hp := range in {
		attrs := 0
		for _, set := range []bool{hp.HashSourceIP, hp.HeaderHashOptions != nil, hp.QueryParameterHashOptions != nil} {
			if set {
				attrs++
			}
		}
		if attrs != 1 {
			ignore("ignoring invalid request hash policy, must set exactly one of hashSourceIP or headerHashOptions or queryParameterHashOptions")
			continue
		}
		p := dag.RequestHashPolicy{Terminal: hp.Terminal}
		switch {
		case hp.HashSourceIP:
			if sourceIP {
				ignore("ignoring invalid request hash policy, hashSourceIP specified multiple times")
				continue
			}
			sourceIP, p.SourceIP = true, true
		case hp.HeaderHashOptions != nil:
			name := http.CanonicalHeaderKey(hp.HeaderHashOptions.HeaderName)
			if msgs := httpheader.NameProblems(name); len(msgs) != 0 {
				ignore("ignoring invalid header hash policy options with invalid header name %q: %v", name, msgs)
				continue
			}
			if headers[name] {
				ignore("ignoring invalid header hash policy options with duplicated header name %s", name)
				continue
			}
			headers[name], p.Header = true, name
		default:
			name := strings.ToLower(hp.QueryParameterHashOptions.ParameterName)
			if name == "" {
				ignore("ignoring invalid query parameter hash policy options with an invalid empty query parameter name")
				continue
			}
			if params[name] {
				ignore("ignoring invalid query parameter hash policy options with duplicated query parameter name %s", name)
				continue
			}
			params[name], p.QueryParameter = true, name
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		ignore("ignoring invalid request hash policy options, setting load balancer strategy to default RoundRobin")
		return "RoundRobin", nil
	}
	return "RequestHash", out
}
