package routetest

import (
	"fmt"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
)

// Evaluate follows r through the configuration: listener, filter chain,
// route configuration, virtual host, routes, action. The error is for a
// request that cannot be sent at all (no authority, a path without a
// leading "/"); everything Envoy would answer, including refusals, is in
// the decision.
func (c *Config) Evaluate(r Request) (*Decision, error) {
	q, err := prepare(r)
	if err != nil {
		return nil, err
	}
	d := &Decision{RouteIndex: -1}
	defer func() { d.Request = q.effective() }()

	l, tls, port, msg := c.findListener(q)
	q.Port = port
	q.setScheme(tls)
	d.step("listener", "%s", msg)
	if l == nil {
		d.Action.NoMatch = &Refusal{Reason: msg}
		return d, nil
	}
	d.Listener = l.GetName()

	cm, msg := selectFilterChain(l, q)
	d.step("filterChain", "%s", msg)
	if cm.chain == nil {
		d.Action.NoMatch = &Refusal{Reason: msg}
		return d, nil
	}
	d.FilterChain = cm.String()

	net, err := chainFilters(cm.chain)
	if err != nil {
		d.Action.NoMatch = &Refusal{Reason: err.Error()}
		d.note("%v", err)
		return d, nil
	}
	switch {
	case net.tcp != nil:
		d.Action.TCPProxy = c.tcpProxy(net.tcp)
		d.step("network", "tcp_proxy %s: the connection is proxied, not routed", net.tcp.GetStatPrefix())
		return d, nil
	case net.hcm == nil:
		reason := fmt.Sprintf("%s has neither an HTTP connection manager nor a TCP proxy", cm)
		d.Action.NoMatch = &Refusal{Reason: reason}
		return d, nil
	}
	c.evaluateHTTP(d, q, net.hcm, cm)
	return d, nil
}

// effective is the request with the defaults that were applied, the SNI
// of a TLS connection included ("" when the client sends none).
func (q *request) effective() Request {
	r := q.Request
	r.Path = q.rawPath
	if q.tls && r.SNI == nil {
		sni := q.sni
		r.SNI = &sni
	}
	return r
}

// evaluateHTTP is the HTTP connection manager's part: path normalisation,
// route configuration, virtual host, routes, then the filters that may
// answer before the router (Contour's misdirected-request check, the IP
// filter) and the chosen route's action.
func (c *Config) evaluateHTTP(d *Decision, q *request, hcm *hcmv3.HttpConnectionManager, cm chainMatch) {
	if p := normalizePath(q.path, hcm.GetNormalizePath().GetValue(), hcm.GetMergeSlashes()); p != q.path {
		d.step("path", "the connection manager normalises the path %q to %q", q.path, p)
		q.setPath(p)
	}
	rc, msg := c.routeConfigFor(hcm)
	d.step("routeConfig", "%s", msg)
	if rc == nil {
		d.Action.NoMatch = &Refusal{Status: 404, Reason: msg}
		return
	}
	d.RouteConfig = rc.GetName()
	filters := httpFilters(hcm)

	// Contour's Lua filter runs first on per-SNI chains and answers 421 to
	// a request for another host than the connection's SNI, whatever the
	// routes say.
	if filters.misdirected && len(cm.chain.GetFilterChainMatch().GetServerNames()) > 0 && q.host != q.sni {
		d.Action.Denied = &Refusal{Status: 421, Reason: fmt.Sprintf("misdirected request: host %q is not the connection's SNI %q", q.host, q.sni)}
		d.step("filter", "Contour's misdirected-request check answers 421: host %q, SNI %q", q.host, q.sni)
		return
	}

	vm, msg := findVirtualHost(rc, q.Authority)
	d.step("virtualHost", "%s", msg)
	if vm.vhost == nil {
		d.Action.NoMatch = &Refusal{Status: 404, Reason: msg}
		return
	}
	d.VirtualHost = vm.vhost.GetName()
	d.vhost = vm.vhost

	route := c.matchRoutes(d, q, vm.vhost)
	if route == nil {
		d.Action.NoMatch = &Refusal{Status: 404, Reason: fmt.Sprintf("no route of virtual host %s matches", vm.vhost.GetName())}
		return
	}
	d.route = route
	d.RequestHeaders, d.ResponseHeaders = headerChanges(rc, vm.vhost, route)
	defer d.dropEmptyHeaderChanges()
	if filters.extAuthz != "" {
		d.ExtAuthz = extAuthzState(filters.extAuthz, vm.vhost, route, d)
	}
	if filters.rbac != "" {
		d.IPFilter = ipFilterFor(filters.rbac, vm.vhost, route, q, d)
		if d.IPFilter != nil && d.IPFilter.Verdict == "denied" {
			d.Action.Denied = &Refusal{Status: 403, Reason: fmt.Sprintf("IP filter (%s %v) denies source address %s", d.IPFilter.Action, d.IPFilter.CIDRs, q.SourceAddress)}
			return
		}
	}
	c.routeAction(d, q, route)
}

// routeConfigFor finds the connection manager's route configuration: by
// RDS name, or inline.
func (c *Config) routeConfigFor(hcm *hcmv3.HttpConnectionManager) (*routev3.RouteConfiguration, string) {
	if rc := hcm.GetRouteConfig(); rc != nil {
		return rc, fmt.Sprintf("inline route configuration %q", rc.GetName())
	}
	name := hcm.GetRds().GetRouteConfigName()
	if name == "" {
		return nil, "the connection manager has neither RDS nor an inline route configuration"
	}
	rc, ok := c.routeConfigs[name]
	if !ok {
		return nil, fmt.Sprintf("route configuration %q (RDS) does not exist: Envoy answers 404", name)
	}
	return rc, fmt.Sprintf("route configuration %s (RDS)", name)
}

// matchRoutes tries the virtual host's routes in order and returns the
// first that matches, recording each attempt.
func (c *Config) matchRoutes(d *Decision, q *request, vh *routev3.VirtualHost) *routev3.Route {
	for i, r := range vh.GetRoutes() {
		ok, reason, err := matchRoute(r.GetMatch(), q)
		if err != nil {
			d.note("route #%d: %v; treated as not matching", i, err)
		}
		d.Routes = append(d.Routes, RouteTry{
			Index:   i,
			Match:   describeMatch(r.GetMatch()),
			Matched: ok,
			Reason:  reason,
			Source:  c.routeSource(r.GetMetadata()),
		})
		if ok {
			d.RouteIndex = i
			d.Source = c.routeSource(r.GetMetadata())
			return r
		}
	}
	return nil
}

// responseCode is the HTTP status of a redirect response code.
func responseCode(rc routev3.RedirectAction_RedirectResponseCode) int {
	switch rc {
	case routev3.RedirectAction_FOUND:
		return 302
	case routev3.RedirectAction_SEE_OTHER:
		return 303
	case routev3.RedirectAction_TEMPORARY_REDIRECT:
		return 307
	case routev3.RedirectAction_PERMANENT_REDIRECT:
		return 308
	}
	return 301
}

// dropEmptyHeaderChanges leaves out what does not apply: request header
// changes when the request is not forwarded, and empty lists.
func (d *Decision) dropEmptyHeaderChanges() {
	if d.Forwarding == nil || d.RequestHeaders != nil && len(d.RequestHeaders.Set)+len(d.RequestHeaders.Remove) == 0 {
		d.RequestHeaders = nil
	}
	if d.ResponseHeaders != nil && len(d.ResponseHeaders.Set)+len(d.ResponseHeaders.Remove) == 0 {
		d.ResponseHeaders = nil
	}
}
