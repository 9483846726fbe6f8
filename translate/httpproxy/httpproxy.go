package httpproxy

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/status"
)

// The HTTPProxy processor: root HTTPProxies become virtual hosts, their
// routes and those of the proxies they include become routes, and every
// HTTPProxy gets the status Contour would write.

// Processor is the HTTPProxy processor of one translation: Memo.Run runs
// it over the HTTPProxies of Index, adding their virtual hosts to the
// plain and secure listeners of DAG and their statuses to Status.
type Processor struct {
	DAG            *dag.DAG
	Index          *index.Index
	Status         status.Map
	RootNamespaces []string
	// DisablePermitInsecure ignores routes' permitInsecure (configuration).
	DisablePermitInsecure bool
	// Settings are the configuration's (nil: Contour's defaults).
	Settings *config.Settings
	orphaned map[types.NamespacedName]bool
	// apart says each root can be processed on its own, in parallel
	// (rootsApart); memo, when set, takes roots' work from a Memo and
	// records it; recording is the record of the root being processed
	// apart (memo.go).
	apart     bool
	memo      *rootMemo
	recording *rootRun
	// InOrder turns rootsApart off (translate's Options.rootsInOrder).
	InOrder bool
}

func (p *Processor) run() {
	p.orphaned = map[types.NamespacedName]bool{}
	var roots []*contourv1.HTTPProxy
	for _, proxy := range p.Index.HTTPProxies {
		key := index.NamespacedName(proxy)
		p.Status[status.Key{Kind: "HTTPProxy", Name: key}] = &status.Proxy{Generation: proxy.Generation}
		if proxy.Spec.VirtualHost == nil {
			p.orphaned[key] = true
			continue
		}
		roots = append(roots, proxy)
	}
	if unique := p.uniqueFQDNs(roots); p.apart {
		p.rootsApart(unique)
	} else {
		for _, root := range unique {
			p.root(root)
		}
	}
	for key := range p.orphaned {
		p.Status.ForProxy(key).AddError("Orphaned", "Orphaned", status.OrphanMessage)
	}
}

// uniqueFQDNs returns the roots whose fqdn (compared case-insensitively) no
// other root uses; every root sharing an fqdn is invalid.
func (p *Processor) uniqueFQDNs(roots []*contourv1.HTTPProxy) []*contourv1.HTTPProxy {
	// Counted first, and the names of the HTTPProxies sharing one listed
	// only for those: a list per fqdn was 4 ms of every reload at 5,000.
	fqdns := make([]string, len(roots))
	count := make(map[string]int, len(roots))
	for i, r := range roots {
		fqdns[i] = strings.ToLower(r.Spec.VirtualHost.Fqdn)
		count[fqdns[i]]++
	}
	var shared map[string][]string
	unique := make([]*contourv1.HTTPProxy, 0, len(roots))
	for i, r := range roots {
		if count[fqdns[i]] == 1 {
			unique = append(unique, r)
		} else if shared == nil {
			shared = sharingNames(roots, fqdns, count)
		}
	}
	for i, r := range roots {
		if names := shared[fqdns[i]]; names != nil {
			p.Status.ForProxy(index.NamespacedName(r)).AddError("VirtualHostError", "DuplicateVhost",
				"fqdn %q is used in multiple HTTPProxies: %s", fqdns[i], strings.Join(names, ", "))
		}
	}
	return unique
}

// sharingNames lists, for each fqdn more than one of roots has, their
// names sorted; fqdns are the roots' fqdns and count how many have each.
func sharingNames(roots []*contourv1.HTTPProxy, fqdns []string, count map[string]int) map[string][]string {
	shared := map[string][]string{}
	for i, r := range roots {
		if count[fqdns[i]] > 1 {
			shared[fqdns[i]] = append(shared[fqdns[i]], index.NamespacedName(r).String())
		}
	}
	for _, names := range shared {
		sort.Strings(names)
	}
	return shared
}

// root programs one root HTTPProxy's virtual host(s).
func (p *Processor) root(proxy *contourv1.HTTPProxy) {
	st := p.Status.ForProxy(index.NamespacedName(proxy))
	vh := proxy.Spec.VirtualHost
	host := vh.Fqdn
	switch {
	case strings.TrimSpace(host) == "":
		st.AddError("VirtualHostError", "FQDNNotSpecified", "Spec.VirtualHost.Fqdn must be specified")
		return
	case len(p.RootNamespaces) > 0 && !slices.Contains(p.RootNamespaces, proxy.Namespace):
		st.AddError("RootNamespaceError", "RootProxyNotAllowedInNamespace", "root HTTPProxy cannot be defined in this namespace")
		return
	case len(proxy.Spec.Routes) == 0 && len(proxy.Spec.Includes) == 0 && proxy.Spec.TCPProxy == nil:
		st.AddError("SpecError", "NothingDefined", "HTTPProxy.Spec must have at least one Route, Include, or a TCPProxy")
		return
	}
	if len(vh.JWTProviders) > 0 && (vh.TLS == nil || vh.TLS.SecretName == "") {
		st.AddError("JWTVerificationError", "JWTVerificationNotPermitted", "Spec.VirtualHost.JWTProviders can only be defined for root HTTPProxies that terminate TLS")
		return
	}
	if vh.TLS == nil && vh.Authorization != nil && vh.Authorization.ExtensionServiceRef.Name != "" {
		st.AddError("AuthError", "AuthNotPermitted", "Spec.VirtualHost.Authorization.ExtensionServiceRef can only be defined for root HTTPProxies that terminate TLS")
		return
	}
	if len(vh.IPAllowFilterPolicy) > 0 && len(vh.IPDenyFilterPolicy) > 0 {
		st.AddError("IPFilterError", "IncompatibleIPAddressFilters", "Spec.VirtualHost.IPAllowFilterPolicy and Spec.VirtualHost.IPDepnyFilterPolicy cannot both be defined.")
		return
	}
	var secure *dag.SecureVirtualHost
	if vh.TLS != nil {
		var ok bool
		if secure, ok = p.secureVirtualHost(st, proxy); !ok {
			return
		}
	}
	if proxy.Spec.TCPProxy != nil {
		if secure == nil {
			st.AddError("TCPProxyError", "TLSMustBeConfigured", "Spec.TCPProxy requires that either Spec.TLS.Passthrough or Spec.TLS.SecretName be set")
			return
		}
		tcp, ok := p.tcpProxy(st, proxy, &includePath{})
		if !ok {
			return
		}
		secure.TCPProxy = tcp // nil when the included proxy has no tcpproxy
	}

	routes := p.routes(st, proxy, proxy, secure != nil)
	if http := p.DAG.Listener("http"); http != nil {
		insecure := http.EnsureVirtualHost(host)
		if !p.virtualHostPolicies(st, proxy, insecure) {
			return
		}
		p.checkGlobalAuthorization(st, proxy)
		for _, r := range routes {
			insecure.AddRoute(r)
		}
	}
	// With a TCP proxy, routes only serve plain HTTP (mostly redirects).
	if secure != nil && proxy.Spec.TCPProxy == nil {
		if !p.virtualHostPolicies(st, proxy, &secure.VirtualHost) {
			return
		}
		for _, r := range routes {
			secure.AddRoute(r)
		}
		checkRouteJWTProviders(st, secure, routes)
	}
}

// virtualHostPolicies sets a virtual host's CORS, rate-limit and IP filter
// policies; false means an error stops the proxy.
func (p *Processor) virtualHostPolicies(st *status.Proxy, proxy *contourv1.HTTPProxy, vh *dag.VirtualHost) bool {
	spec := proxy.Spec.VirtualHost
	var err error
	if vh.CORS, err = corsPolicy(spec.CORSPolicy); err != nil {
		st.AddError("CORSError", "PolicyDidNotParse", "Spec.VirtualHost.CORSPolicy: %s", err)
		return false
	}
	if vh.RateLimit, err = rateLimitPolicy(spec.RateLimitPolicy); err != nil {
		st.AddError("VirtualHostError", "RateLimitPolicyNotValid", "Spec.VirtualHost.RateLimitPolicy is invalid: %s", err)
		return false
	}
	if vh.RateLimit, err = withDefaultGlobalRateLimit(vh.RateLimit, spec.RateLimitPolicy, p.Settings); err != nil {
		st.AddError("VirtualHostError", "RateLimitPolicyNotValid", "Default Global RateLimit Policy is invalid: %s", err)
		return false
	}
	if vh.IPFilter, err = ipFilter(spec.IPAllowFilterPolicy, spec.IPDenyFilterPolicy, st); err != nil {
		st.AddError("IPFilterError", "IPFilterPolicyNotValid", "Spec.VirtualHost.IPAllowFilterPolicy or Spec.VirtualHost.IPDenyFilterPolicy is invalid: %s", err)
		return false
	}
	return true
}

// routes computes the routes of proxy and of the proxies it includes, with
// the include chain's conditions. An error in a proxy's own routes discards
// all of them (its includes' routes too), as in Contour.
func (p *Processor) routes(st *status.Proxy, root, proxy *contourv1.HTTPProxy, enforceTLS bool) []*dag.Route {
	var routes []*dag.Route
	p.collectRoutes(st, root, proxy, includeConditions{}, &includePath{}, enforceTLS, &routes)
	return routes
}

// collectRoutes appends the routes of proxy and of the proxies it
// includes to out, which the whole walk shares: a proxy's routes are the
// tail it added. Returning them proxy by proxy copied every route into
// the slice of each of its ancestors, quadratic in a chain's depth.
func (p *Processor) collectRoutes(st *status.Proxy, root, proxy *contourv1.HTTPProxy, conds includeConditions, path *includePath, enforceTLS bool, out *[]*dag.Route) {
	key := index.NamespacedName(proxy)
	if path.contains(key) {
		st.AddError("IncludeError", "IncludeCreatesCycle", "include creates an include cycle: %s", path.cycle(key))
		return
	}
	path.push(key)
	defer path.pop()
	start := len(*out)
	p.includedRoutes(st, root, proxy, conds, path, enforceTLS, out)
	included := len(*out) - start
	dynamic := map[string]string{"CONTOUR_NAMESPACE": proxy.Namespace}
	for _, route := range proxy.Spec.Routes {
		r, ok := p.route(st, root, proxy, route, conds.conditions(route.Conditions), enforceTLS, dynamic)
		if !ok {
			*out = (*out)[:start]
			return
		}
		*out = append(*out, r)
	}
	*out = append((*out)[:start], expandPrefixRewrites((*out)[start:], included)...)
}

// visit processes an included proxy with a fresh status and keeps it, as
// Contour keeps the status of each visit: the latest, unless an earlier
// visit found errors and this one none.
func visit[T any](p *Processor, key types.NamespacedName, generation int64, f func(*status.Proxy) (T, bool)) (T, bool) {
	fresh := &status.Proxy{Generation: generation}
	out, ok := f(fresh)
	p.keepVisit(key, fresh)
	p.did(rootEffect{name: key, visit: fresh})
	return out, ok
}

// keepVisit keeps the status of a visit of the HTTPProxy key, as visit
// says.
func (p *Processor) keepVisit(key types.NamespacedName, fresh *status.Proxy) {
	skey := status.Key{Kind: "HTTPProxy", Name: key}
	if old := p.Status[skey]; old == nil || old.Valid() || !fresh.Valid() || !old.Visited {
		p.Status[skey] = fresh
	}
	fresh.Visited = true
}

// proxyByName looks an included HTTPProxy up.
func (p *Processor) proxyByName(key types.NamespacedName) (*contourv1.HTTPProxy, bool) {
	p.lookedUp(key)
	child, ok := p.Index.HTTPProxyByName[key]
	return child, ok
}

// unorphan takes key off the orphans: a root includes it.
func (p *Processor) unorphan(key types.NamespacedName) {
	delete(p.orphaned, key)
	p.did(rootEffect{name: key})
}

// includedRoutes follows proxy's includes. A bad include is skipped; a
// missing include or one of a root gets a 502 route for its conditions.
func (p *Processor) includedRoutes(st *status.Proxy, root, proxy *contourv1.HTTPProxy, conds includeConditions, path *includePath, enforceTLS bool, out *[]*dag.Route) {
	var seen []string
	for _, inc := range proxy.Spec.Includes {
		ns := inc.Namespace
		if ns == "" {
			ns = proxy.Namespace
		}
		if err := includeConditionsValid(inc.Conditions); err != nil {
			st.AddError("IncludeError", "PathMatchConditionsNotValid", "include: %s", err)
			continue
		}
		if err := pathConditionsValid(inc.Conditions); err != nil {
			st.AddError("IncludeError", "PathMatchConditionsNotValid", "include: %s", err)
			continue
		}
		if err := headerConditionsValid(inc.Conditions); err != nil {
			st.AddError("RouteError", "HeaderMatchConditionsNotValid", "%s", err)
			continue
		}
		if err := queryConditionsValid(inc.Conditions); err != nil {
			st.AddError("RouteError", "QueryParameterMatchConditionsNotValid", "%s", err)
			continue
		}
		if k := includeConditionsKey(inc.Conditions); k != "" {
			if slices.Contains(seen, k) {
				st.AddError("IncludeError", "DuplicateMatchConditions", "duplicate conditions defined on an include")
				continue
			}
			seen = append(seen, k)
		}
		child, ok := p.proxyByName(types.NamespacedName{Namespace: ns, Name: inc.Name})
		switch {
		case !ok:
			st.AddError("IncludeError", "IncludeNotFound", "include %s/%s not found", ns, inc.Name)
			*out = append(*out, badGatewayRoute(proxy, inc.Conditions)...)
			continue
		case child.Spec.VirtualHost != nil:
			st.AddError("IncludeError", "RootIncludesRoot", "root httpproxy cannot include another root httpproxy (%s/%s)", child.Namespace, child.Name)
			*out = append(*out, badGatewayRoute(proxy, inc.Conditions)...)
			continue
		}
		visit(p, index.NamespacedName(child), child.Generation, func(st *status.Proxy) (struct{}, bool) {
			p.collectRoutes(st, root, child, conds.with(inc.Conditions), path, enforceTLS, out)
			return struct{}{}, true
		})
		p.unorphan(index.NamespacedName(child))
	}
}

// includeConditionsKey identifies an include's conditions for the duplicate
// check, as Contour compares them: after merging (repeated slashes
// collapsed, header matches in their DAG form), ignoring order. A lone "/"
// (or no condition) is never a duplicate, so it has no key.
func includeConditionsKey(conds []contourv1.MatchCondition) string {
	path := mergeIncludePath(conds)
	headers, queries := mergeHeaderMatch(conds), mergeQueryMatch(conds)
	if path.Value == "/" && len(headers) == 0 && len(queries) == 0 {
		return ""
	}
	parts := make([]string, 0, len(headers)+len(queries))
	for _, h := range headers {
		parts = append(parts, fmt.Sprintf("header=%+v", h))
	}
	for _, q := range queries {
		parts = append(parts, fmt.Sprintf("query=%+v", q))
	}
	sort.Strings(parts)
	return "prefix=" + path.Value + "," + strings.Join(parts, ",")
}

// badGatewayRoute answers 502 for an include that cannot be followed.
func badGatewayRoute(proxy *contourv1.HTTPProxy, conds []contourv1.MatchCondition) []*dag.Route {
	if len(conds) == 0 {
		return nil
	}
	return []*dag.Route{{
		PathMatch:      mergeIncludePath(conds),
		HeaderMatch:    mergeHeaderMatch(conds),
		QueryMatch:     mergeQueryMatch(conds),
		DirectResponse: &dag.DirectResponse{StatusCode: 502},
		Kind:           "HTTPProxy", Namespace: proxy.Namespace, Name: proxy.Name,
	}}
}
