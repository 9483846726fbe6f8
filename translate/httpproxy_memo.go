package translate

import (
	"maps"
	"slices"

	"github.com/contourc/contourc/loader"
)

// Doing the HTTPProxy processor's work again from a Memo (serve).
//
// The processor is a function of the objects the cache holds, the settings,
// the root namespaces and the plain and secure listeners it finds in the
// DAG; it writes virtual hosts into those two listeners and the status of
// every HTTPProxy, nothing else. It reads no EndpointSlice, Ingress or
// Gateway API object: those reach the DAG through other processors, or
// only the Envoy resources. So when a reload changes only such objects
// (endpoints, the commonest change of all; an Ingress; an HTTPRoute), the
// processor would do exactly what it did the time before, and its work is
// taken from the Memo instead: at 5,000 HTTPProxies that is 100 ms, and
// the routes it hands on are the very same, so comparing virtual hosts
// with the previous translation's (xds_memo.go) stops at their pointers.
//
// Two things would make the answer depend on the DAG it runs on, and rule
// the replay out: a virtual host of a root's fqdn that the Ingress
// processor made first, which the processor would add to rather than
// create; and a different pair of listeners. The processor's virtual
// hosts are kept as it left them, before later processors add to them,
// and copied into the DAG at each replay.

// proxyRun is one run of the HTTPProxy processor and what it depended on.
type proxyRun struct {
	inputs         []loader.Object // the objects of the kinds it reads, as given
	settings       *settings
	rootNamespaces []string
	listeners      [2]string // the names of the plain and secure listeners, "" for none
	// fqdns are the roots' fqdns, which no virtual host may have before
	// the processor runs.
	fqdns []string

	vhosts  map[string]*VirtualHost // by host, as the processor left them
	svhosts map[string]*SecureVirtualHost
	status  statuses // the HTTPProxies'

	// placed pairs each kept virtual host with the one in the DAG of the
	// translation under way, whose route order freeze works out.
	placed []placedHost
}

// placedHost is a kept virtual host and its counterpart in the DAG.
type placedHost struct{ kept, dag *VirtualHost }

// ignoredByProxies are the kinds the HTTPProxy processor never reads.
var ignoredByProxies = map[string]bool{
	"EndpointSlice": true, "Ingress": true,
	"Gateway": true, "GatewayClass": true, "HTTPRoute": true, "GRPCRoute": true,
	"TLSRoute": true, "TCPRoute": true, "ReferenceGrant": true, "BackendTLSPolicy": true,
}

// proxyInputs are the objects of objs the HTTPProxy processor may read.
func proxyInputs(objs []loader.Object) []loader.Object {
	out := make([]loader.Object, 0, len(objs))
	for _, o := range objs {
		if !ignoredByProxies[o.Kind] {
			out = append(out, o)
		}
	}
	return out
}

// runProxies runs p, or does what it did the last time from m when that is
// the same; objs are the translation's objects.
func (m *Memo) runProxies(p *httpProxyProcessor, objs []loader.Object) {
	if m == nil {
		p.run()
		return
	}
	now := &proxyRun{
		inputs:         proxyInputs(objs),
		settings:       p.settings,
		rootNamespaces: p.rootNamespaces,
		listeners:      proxyListeners(p.dag),
		fqdns:          rootFQDNs(p.cache),
	}
	m.mu.Lock()
	last := m.proxies
	m.mu.Unlock()
	taken := hostsTaken(p.dag, now.fqdns)
	if last != nil && !taken && last.sameDependencies(now) {
		last.replay(p)
		m.replayedProxies.Add(1)
		return
	}
	p.run()
	if taken {
		now = nil // the processor added to hosts it did not create
	} else {
		now.keep(p)
	}
	m.mu.Lock()
	m.proxies = now
	m.mu.Unlock()
}

// sameDependencies says whether the processor reads the same in now as in
// r: the same objects (the loader's cache hands unchanged ones out as the
// same pointers), root namespaces, listeners and settings.
func (r *proxyRun) sameDependencies(now *proxyRun) bool {
	return r.listeners == now.listeners &&
		slices.Equal(r.inputs, now.inputs) &&
		slices.Equal(r.rootNamespaces, now.rootNamespaces) &&
		(r.settings == now.settings || r.settings != nil && now.settings != nil && sameValue(r.settings, now.settings))
}

// proxyListeners names the listeners the processor writes to.
func proxyListeners(d *DAG) [2]string {
	var names [2]string
	for i, protocol := range []string{"http", "https"} {
		if l := d.listener(protocol); l != nil {
			names[i] = l.Name
		}
	}
	return names
}

// rootFQDNs are the fqdns of the HTTPProxies that have a virtual host.
func rootFQDNs(c *cache) []string {
	var out []string
	for _, proxy := range c.httpproxies {
		if vh := proxy.Spec.VirtualHost; vh != nil {
			out = append(out, vh.Fqdn)
		}
	}
	return out
}

// hostsTaken says whether a listener the processor writes to already has a
// virtual host of one of fqdns.
func hostsTaken(d *DAG, fqdns []string) bool {
	http, https := d.listener("http"), d.listener("https")
	for _, fqdn := range fqdns {
		if http.virtualHostOf(fqdn) != nil || https.secureVirtualHostOf(fqdn) != nil {
			return true
		}
	}
	return false
}

// keep records what p did: the virtual hosts of the roots' fqdns, which
// it created, copied, and the HTTPProxies' status.
func (r *proxyRun) keep(p *httpProxyProcessor) {
	r.vhosts, r.svhosts, r.status = map[string]*VirtualHost{}, map[string]*SecureVirtualHost{}, statuses{}
	http, https := p.dag.listener("http"), p.dag.listener("https")
	for _, fqdn := range r.fqdns {
		if vh := http.virtualHostOf(fqdn); vh != nil {
			r.vhosts[fqdn] = vh.copy()
			r.placed = append(r.placed, placedHost{r.vhosts[fqdn], vh})
		}
		if svh := https.secureVirtualHostOf(fqdn); svh != nil {
			r.svhosts[fqdn] = svh.copy()
			r.placed = append(r.placed, placedHost{&r.svhosts[fqdn].VirtualHost, &svh.VirtualHost})
		}
	}
	for key, st := range p.status {
		if key.kind == "HTTPProxy" {
			r.status[key] = st
		}
	}
}

// replay does to p's DAG and status what the recorded run did.
func (r *proxyRun) replay(p *httpProxyProcessor) {
	r.placed = r.placed[:0]
	if l := p.dag.listener("http"); l != nil {
		for host, vh := range r.vhosts {
			l.vhosts[host] = vh.copy()
			r.placed = append(r.placed, placedHost{vh, l.vhosts[host]})
		}
	}
	if l := p.dag.listener("https"); l != nil {
		for host, svh := range r.svhosts {
			l.svhosts[host] = svh.copy()
			r.placed = append(r.placed, placedHost{&svh.VirtualHost, &l.svhosts[host].VirtualHost})
		}
	}
	maps.Copy(p.status, r.status)
}

// frozen keeps, for each kept virtual host, the route order the DAG's
// freeze worked out, when no later processor added to its counterpart:
// the next replay hands it on, and that virtual host is not sorted again.
func (m *Memo) frozen() {
	if m == nil {
		return
	}
	m.mu.Lock()
	r := m.proxies
	m.mu.Unlock()
	if r == nil {
		return
	}
	for _, p := range r.placed {
		if p.kept.sorted == nil && maps.Equal(p.kept.routes, p.dag.routes) {
			p.kept.sorted = p.dag.sorted
		}
	}
	r.placed = nil
}

// copy is a copy of vh that routes can be added to without changing vh;
// the routes themselves are shared, as they are never changed once made,
// and so is their order, which adding a route works out again.
func (vh *VirtualHost) copy() *VirtualHost {
	c := *vh
	c.routes = maps.Clone(vh.routes)
	return &c
}

// copy is svh's copy as VirtualHost.copy makes it.
func (svh *SecureVirtualHost) copy() *SecureVirtualHost {
	c := *svh
	c.VirtualHost = *svh.VirtualHost.copy()
	return &c
}

// virtualHostOf is l's virtual host of host, nil when l is nil or has none.
func (l *Listener) virtualHostOf(host string) *VirtualHost {
	if l == nil {
		return nil
	}
	return l.vhosts[host]
}

// secureVirtualHostOf is l's secure virtual host of host, nil when l is nil
// or has none.
func (l *Listener) secureVirtualHostOf(host string) *SecureVirtualHost {
	if l == nil {
		return nil
	}
	return l.svhosts[host]
}
