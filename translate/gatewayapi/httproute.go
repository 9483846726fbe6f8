package gatewayapi

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/translate/dag"
)

// HTTPRoute translation: one DAG route per rule match, on every host the
// route shares with the listener.

// httpRule is what the filters of one rule ask for.
type httpRule struct {
	requestHeaders, responseHeaders *dag.HeadersPolicy
	redirect                        *dag.Redirect
	mirrors                         []*dag.MirrorPolicy
	rewrite                         *gatewayv1.HTTPPathModifier
	hostRewrite                     string
	timeout                         *dag.Timeout
}

// httpRoute adds route's rules to the listener's virtual hosts for hosts,
// with what converting them reported on the parentRef.
func (p *Processor) httpRoute(route *gatewayv1.HTTPRoute, parent *routeParent, ref gatewayv1.ParentReference, l *gatewayListener, hosts []string) {
	invalid := 0
	for _, rule := range p.httpRulesOf(route) {
		rule.conditions.addTo(parent)
		// A BackendTLSPolicy's status names the parentRef, so it is
		// applied here, in route order, rather than while converting.
		for _, c := range rule.backends {
			p.backendTLS(c, ref)
		}
		if rule.dropped {
			continue
		}
		if !p.addGatewayRoutes(l, hosts, rule.routes, rule.keys) {
			invalid++
		}
	}
	ruleConflicts(parent, kindHTTPRoute, invalid, len(route.Spec.Rules))
}

// convertedRule is one HTTPRoute rule converted apart from the parentRef
// and listener it is added for.
type convertedRule struct {
	conditions conditionRecord // what converting it reported
	routes     []*dag.Route
	keys       []string       // the routes' conditionsKeys
	backends   []*dag.Cluster // the rule's valid backends
	dropped    bool           // nothing of the rule is added
}

// convertHTTPRules converts each rule of route; it reads only the cache,
// so routes can be converted side by side.
func (p *Processor) convertHTTPRules(route *gatewayv1.HTTPRoute) []convertedRule {
	out := make([]convertedRule, len(route.Spec.Rules))
	for index, rule := range route.Spec.Rules {
		p.convertHTTPRule(route, index, rule, &out[index])
	}
	return out
}

func (p *Processor) convertHTTPRule(route *gatewayv1.HTTPRoute, index int, rule gatewayv1.HTTPRouteRule, out *convertedRule) {
	report := &out.conditions
	matches := p.httpMatches(rule.Matches, report)
	timeout, err := httpRouteTimeout(rule.Timeouts)
	if err != nil {
		report.add("Accepted", "False", "UnsupportedValue", err.Error())
		out.dropped = true
		return
	}
	hr := p.httpFilters(route, rule.Filters, report)
	hr.timeout = timeout
	if hr.hostRewrite != "" {
		// URLRewrite's hostname wins over a Host header modifier.
		if hr.requestHeaders == nil {
			hr.requestHeaders = &dag.HeadersPolicy{}
		}
		hr.requestHeaders.HostRewrite = hr.hostRewrite
	}
	if hr.redirect != nil {
		out.routes = httpRedirectRoutes(matches, hr, index, route)
		out.keys = conditionsKeys(out.routes)
		return
	}
	clusters, total, ok := p.httpClusters(route, rule.BackendRefs, report)
	if !ok {
		out.dropped = true
		return
	}
	out.backends = clusters
	out.routes = httpClusterRoutes(matches, hr, clusters, total, index, route)
	out.keys = conditionsKeys(out.routes)
}

// httpMatches converts a rule's matches; an invalid match is reported and
// left out.
func (p *Processor) httpMatches(in []gatewayv1.HTTPRouteMatch, parent conditionSink) []gatewayMatch {
	var out []gatewayMatch
	for _, m := range in {
		path, ok := httpPathMatch(m.Path, parent)
		if !ok {
			continue
		}
		headers, err := httpHeaderMatches(m.Headers)
		if err != nil {
			parent.add("Accepted", "False", "UnsupportedValue", err.Error())
			continue
		}
		// Envoy matches the method as the :method pseudo-header.
		if m.Method != nil {
			headers = append(headers, dag.HeaderMatch{Name: ":method", Type: dag.HeaderExact, Value: string(*m.Method)})
		}
		query, err := httpQueryMatches(m.QueryParams)
		if err != nil {
			parent.add("Accepted", "False", "UnsupportedValue", err.Error())
			continue
		}
		out = append(out, gatewayMatch{path: path, headers: headers, query: query})
	}
	return out
}

func httpPathMatch(m *gatewayv1.HTTPPathMatch, parent conditionSink) (dag.PathMatch, bool) {
	if m == nil {
		return dag.PathMatch{Kind: dag.PathPrefix, Value: "/"}, true
	}
	path := "/"
	if m.Value != nil {
		path = *m.Value
	}
	invalidPath := func(msg string) (dag.PathMatch, bool) {
		parent.add("ValidMatches", "False", "InvalidPathMatch", msg)
		return dag.PathMatch{}, false
	}
	checkPath := func() (string, bool) {
		switch {
		case !strings.HasPrefix(path, "/"):
			return "Match.Path.Value must start with '/'.", false
		case strings.Contains(path, "//"):
			return "Match.Path.Value must not contain consecutive '/' characters.", false
		}
		return "", true
	}
	switch {
	case m.Type == nil || *m.Type == gatewayv1.PathMatchPathPrefix:
		if msg, ok := checkPath(); !ok {
			return invalidPath(msg)
		}
		// "/" needs no segment matching.
		if path == "/" {
			return dag.PathMatch{Kind: dag.PathPrefix, Value: path}, true
		}
		return dag.PathMatch{Kind: dag.PathSegmentPrefix, Value: strings.TrimRight(path, "/")}, true
	case *m.Type == gatewayv1.PathMatchExact:
		if msg, ok := checkPath(); !ok {
			return invalidPath(msg)
		}
		return dag.PathMatch{Kind: dag.PathExact, Value: path}, true
	case *m.Type == gatewayv1.PathMatchRegularExpression:
		if _, err := regexp.Compile(path); err != nil {
			return invalidPath("Match.Path.Value is invalid for RegularExpression match type.")
		}
		return dag.PathMatch{Kind: dag.PathRegex, Value: path}, true
	}
	parent.add("Accepted", "False", "UnsupportedValue", "HTTPRoute.Spec.Rules.PathMatch: Only Prefix match type, Exact match type and RegularExpression match type are supported.")
	return dag.PathMatch{}, false
}

// httpHeaderMatches converts header matches; for a header named twice
// (case-insensitively) the first match wins.
func httpHeaderMatches(in []gatewayv1.HTTPHeaderMatch) ([]dag.HeaderMatch, error) {
	return gatewayHeaderMatches("HTTPRoute", in, func(m gatewayv1.HTTPHeaderMatch) (string, string, *string) {
		return string(m.Name), m.Value, (*string)(m.Type)
	})
}

// gatewayHeaderMatches converts the header matches of an HTTPRoute or a
// GRPCRoute (kind), whose types differ only in name: parts gives a match's
// header name, value and match type (nil for Exact). For a header named
// twice (case-insensitively) the first match wins.
func gatewayHeaderMatches[M any](kind string, in []M, parts func(M) (name, value string, typ *string)) ([]dag.HeaderMatch, error) {
	var out []dag.HeaderMatch
	seen := map[string]bool{}
	for _, m := range in {
		name, value, typ := parts(m)
		h := dag.HeaderMatch{Name: name, Type: dag.HeaderExact, Value: value}
		if typ != nil {
			switch *typ {
			case "Exact":
			case "RegularExpression":
				if _, err := regexp.Compile(value); err != nil {
					return nil, errors.New(kind + ".Spec.Rules.Matches.Headers: Invalid value for RegularExpression match type is specified")
				}
				h.Type = dag.HeaderRegex
			default:
				return nil, errors.New(kind + ".Spec.Rules.Matches.Headers: Only Exact match type and RegularExpression match type are supported")
			}
		}
		key := strings.ToUpper(h.Name)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, h)
	}
	return out, nil
}

// httpQueryMatches converts query parameter matches; for a parameter named
// twice the first match wins.
func httpQueryMatches(in []gatewayv1.HTTPQueryParamMatch) ([]dag.QueryMatch, error) {
	var out []dag.QueryMatch
	seen := map[string]bool{}
	for _, m := range in {
		q := dag.QueryMatch{Name: string(m.Name), Type: "exact", Value: m.Value}
		if m.Type != nil {
			switch *m.Type {
			case gatewayv1.QueryParamMatchExact:
			case gatewayv1.QueryParamMatchRegularExpression:
				if _, err := regexp.Compile(m.Value); err != nil {
					return nil, errors.New("HTTPRoute.Spec.Rules.Matches.QueryParams: Invalid value for RegularExpression match type is specified")
				}
				q.Type = "regex"
			default:
				return nil, errors.New("HTTPRoute.Spec.Rules.Matches.QueryParams: Only Exact and RegularExpression match types are supported")
			}
		}
		if seen[q.Name] {
			continue
		}
		seen[q.Name] = true
		out = append(out, q)
	}
	return out, nil
}

// httpRouteTimeout reads a rule's timeouts: "0s" disables, the backend
// request timeout (which may not exceed the request timeout) wins.
func httpRouteTimeout(t *gatewayv1.HTTPRouteTimeouts) (*dag.Timeout, error) {
	if t == nil || (t.Request == nil && t.BackendRequest == nil) {
		return nil, nil
	}
	parse := func(d *gatewayv1.Duration, field string) (dag.Timeout, error) {
		v, err := dag.ParseTimeout(string(*d))
		if err != nil {
			return dag.Timeout{}, fmt.Errorf("invalid HTTPRoute.Spec.Rules.Timeouts.%s: %v", field, err)
		}
		if v.Duration == 0 {
			v = dag.Timeout{Set: true, Disabled: true}
		}
		return v, nil
	}
	var out dag.Timeout
	if t.Request != nil {
		v, err := parse(t.Request, "Request")
		if err != nil {
			return nil, err
		}
		out = v
	}
	if t.BackendRequest != nil {
		v, err := parse(t.BackendRequest, "BackendRequest")
		if err != nil {
			return nil, err
		}
		if out.Duration > 0 && v.Duration > out.Duration {
			return nil, errors.New("HTTPRoute.Spec.Rules.Timeouts.BackendRequest must be less than/equal to HTTPRoute.Spec.Rules.Timeouts.Request when both are specified")
		}
		out = v
	}
	return &out, nil
}

// httpFilters reads a rule's filters; for each type but RequestMirror the
// first instance wins.
func (p *Processor) httpFilters(route *gatewayv1.HTTPRoute, filters []gatewayv1.HTTPRouteFilter, parent conditionSink) *httpRule {
	hr := &httpRule{}
	for _, f := range filters {
		switch f.Type {
		case gatewayv1.HTTPRouteFilterRequestHeaderModifier:
			applyHeaderFilter(&hr.requestHeaders, f.RequestHeaderModifier, true, parent)
		case gatewayv1.HTTPRouteFilterResponseHeaderModifier:
			applyHeaderFilter(&hr.responseHeaders, f.ResponseHeaderModifier, false, parent)
		case gatewayv1.HTTPRouteFilterRequestRedirect:
			if f.RequestRedirect == nil || hr.redirect != nil {
				continue
			}
			if r, ok := httpRedirect(f.RequestRedirect, parent); ok {
				hr.redirect = r
			}
		case gatewayv1.HTTPRouteFilterRequestMirror:
			if f.RequestMirror == nil {
				continue
			}
			svc, c := p.backendService(f.RequestMirror.BackendRef, "Spec.Rules.Filters.RequestMirror.BackendRef", kindHTTPRoute, route.Namespace)
			if c != nil {
				parent.add(c.Type, c.Status, c.Reason, c.Message)
				continue
			}
			// Contour mirrors everything, whatever percent is asked.
			hr.mirrors = append(hr.mirrors, &dag.MirrorPolicy{Cluster: &dag.Cluster{Upstream: svc, OmitTLSParams: true}, Percent: 100})
		case gatewayv1.HTTPRouteFilterURLRewrite:
			if f.URLRewrite == nil || hr.rewrite != nil {
				continue
			}
			if f.URLRewrite.Hostname != nil {
				hr.hostRewrite = string(*f.URLRewrite.Hostname)
			}
			if f.URLRewrite.Path == nil {
				continue
			}
			if t := f.URLRewrite.Path.Type; t != gatewayv1.PrefixMatchHTTPPathModifier && t != gatewayv1.FullPathHTTPPathModifier {
				parent.add("Accepted", "False", "UnsupportedValue", fmt.Sprintf("HTTPRoute.Spec.Rules.Filters.URLRewrite.Path.Type: invalid type %q: only ReplacePrefixMatch and ReplaceFullPath are supported.", t))
				continue
			}
			hr.rewrite = f.URLRewrite.Path
		default:
			parent.add("Accepted", "False", "UnsupportedValue", fmt.Sprintf("HTTPRoute.Spec.Rules.Filters: invalid type %q: only RequestHeaderModifier, ResponseHeaderModifier, RequestRedirect, RequestMirror and URLRewrite are supported.", f.Type))
		}
	}
	return hr
}

// httpRedirect converts a RequestRedirect filter; an empty replacement
// means "/".
func httpRedirect(r *gatewayv1.HTTPRequestRedirectFilter, parent conditionSink) (*dag.Redirect, bool) {
	out := &dag.Redirect{}
	if r.Hostname != nil {
		out.Hostname = string(*r.Hostname)
	}
	if r.Port != nil {
		out.Port = uint32(*r.Port)
	}
	if r.Scheme != nil {
		out.Scheme = *r.Scheme
	}
	if r.StatusCode != nil {
		out.StatusCode = *r.StatusCode
	}
	if pm := r.Path; pm != nil {
		switch pm.Type {
		case gatewayv1.PrefixMatchHTTPPathModifier:
			out.Prefix = orSlash(pm.ReplacePrefixMatch)
		case gatewayv1.FullPathHTTPPathModifier:
			out.Path = orSlash(pm.ReplaceFullPath)
		default:
			parent.add("Accepted", "False", "UnsupportedValue", fmt.Sprintf("HTTPRoute.Spec.Rules.Filters.RequestRedirect.Path.Type: invalid type %q: only ReplacePrefixMatch and ReplaceFullPath are supported.", pm.Type))
			return nil, false
		}
	}
	return out, true
}

func orSlash(s *string) string {
	if s == nil || *s == "" {
		return "/"
	}
	return *s
}

// httpClusters resolves a rule's backendRefs; invalid ones are reported and
// dropped. ok is false when the rule has no backendRefs at all.
func (p *Processor) httpClusters(route *gatewayv1.HTTPRoute, refs []gatewayv1.HTTPBackendRef, parent conditionSink) ([]*dag.Cluster, uint32, bool) {
	if len(refs) == 0 {
		parent.add("ResolvedRefs", "False", "Degraded", "At least one Spec.Rules.BackendRef must be specified.")
		return nil, 0, false
	}
	var clusters []*dag.Cluster
	var total uint32
	for _, ref := range refs {
		svc, c := p.backendService(ref.BackendObjectReference, "Spec.Rules.BackendRef", kindHTTPRoute, route.Namespace)
		if c != nil {
			parent.add(c.Type, c.Status, c.Reason, c.Message)
			continue
		}
		cl := &dag.Cluster{Upstream: svc, Protocol: svc.Protocol, OmitTLSParams: true}
		for _, f := range ref.Filters {
			switch f.Type {
			case gatewayv1.HTTPRouteFilterRequestHeaderModifier:
				applyHeaderFilter(&cl.RequestHeaders, f.RequestHeaderModifier, true, parent)
			case gatewayv1.HTTPRouteFilterResponseHeaderModifier:
				applyHeaderFilter(&cl.ResponseHeaders, f.ResponseHeaderModifier, false, parent)
			default:
				parent.add("Accepted", "False", "UnsupportedValue", "HTTPRoute.Spec.Rules.BackendRef.Filters: Only RequestHeaderModifier and ResponseHeaderModifier type is supported.")
			}
		}
		weight := backendWeight(ref.Weight)
		total += weight
		cl.Weight = weight
		// Contour stores the weight on the Service, where it becomes the
		// endpoints' locality weight.
		svc.LocalityWeight = weight
		clusters = append(clusters, cl)
	}
	return clusters, total, true
}

// httpClusterRoutes builds a rule's forwarding routes; without a valid or
// weighted backend they answer 500.
func httpClusterRoutes(matches []gatewayMatch, hr *httpRule, clusters []*dag.Cluster, total uint32, priority int, route *gatewayv1.HTTPRoute) []*dag.Route {
	return matchRoutes(matches, func(m gatewayMatch) *dag.Route {
		r := &dag.Route{
			PathMatch: m.path, HeaderMatch: m.headers, QueryMatch: m.query,
			Clusters: clusters, RequestHeaders: hr.requestHeaders, ResponseHeaders: hr.responseHeaders,
			Mirrors: hr.mirrors, Priority: priority, PathRewrite: pathRewrite(hr.rewrite, matches),
			Kind: kindHTTPRoute, Namespace: route.Namespace, Name: route.Name,
		}
		if hr.timeout != nil {
			r.Timeout.Response = *hr.timeout
		}
		if len(clusters) == 0 || total == 0 {
			r.DirectResponse = &dag.DirectResponse{StatusCode: 500}
		}
		return r
	})
}

// pathRewrite is a URLRewrite's path change for a rule's routes.
func pathRewrite(pm *gatewayv1.HTTPPathModifier, matches []gatewayMatch) *dag.PathRewrite {
	if pm == nil {
		return nil
	}
	if pm.Type == gatewayv1.FullPathHTTPPathModifier {
		return &dag.PathRewrite{FullPath: orSlash(pm.ReplaceFullPath)}
	}
	prefix := orSlash(pm.ReplacePrefixMatch)
	if regex, ok := prefixRemoval(matches, prefix); ok {
		return &dag.PathRewrite{PrefixRegexRemove: regex}
	}
	return &dag.PathRewrite{Prefix: prefix}
}

// httpRedirectRoutes builds a rule's redirect routes (query matches do not
// apply to redirects in Contour).
func httpRedirectRoutes(matches []gatewayMatch, hr *httpRule, priority int, route *gatewayv1.HTTPRoute) []*dag.Route {
	redirect := *hr.redirect
	if regex, ok := prefixRemoval(matches, redirect.Prefix); ok {
		redirect.Prefix, redirect.PrefixRegexRemove = "", regex
	}
	return matchRoutes(matches, func(m gatewayMatch) *dag.Route {
		return &dag.Route{
			PathMatch: m.path, HeaderMatch: m.headers, Redirect: &redirect, Priority: priority,
			RequestHeaders: hr.requestHeaders, ResponseHeaders: hr.responseHeaders,
			Kind: kindHTTPRoute, Namespace: route.Namespace, Name: route.Name,
		}
	})
}
