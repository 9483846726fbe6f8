package httpproxy

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/same"
	"github.com/contourc/contourc/translate/internal/status"
)

// Records of the HTTPProxy processor's work, root by root: done again
// from a Memo (serve), and made apart, on every CPU (rootsApart).
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
// with the previous translation's (translate/envoy's xds_memo.go) stops at their pointers.
//
// When HTTPProxies changed too, but nothing else it reads, each root is
// taken from the Memo on its own when it reads the same as before: the
// same root object, and the same answer to every HTTPProxy it looked up by
// name (its includes, followed down). Whether a root is processed at all
// (a duplicate fqdn), and which HTTPProxies are orphans, is worked out
// afresh. A root's work is what it did to its virtual hosts and its own
// status, and, in order, each status it gave an included HTTPProxy (kept
// or not by the rule visit applies, which is applied again) and each
// HTTPProxy it took off the orphans.
//
// Two things would make the answer depend on the DAG it runs on, and rule
// the replay out: a virtual host of a root's fqdn that the Ingress
// processor made first, which the processor would add to rather than
// create; and a different pair of listeners. A root's virtual hosts are
// kept as it left them, before later processors add to them, and copied
// into the DAG at each replay.
//
// The same records let any translation process its roots apart: no root
// writes to another's virtual hosts, and what a root does to other
// HTTPProxies is in its record, so each root can be processed on a DAG,
// statuses and orphans of its own, in parallel, and the records applied
// in root order; that is what processing the roots in order does.

// proxyRun is one run of the HTTPProxy processor and what it depended on.
type proxyRun struct {
	inputs         []loader.Object // the objects of the kinds it reads, as given
	settings       *config.Settings
	rootNamespaces []string
	listeners      [2]string // the names of the plain and secure listeners, "" for none
	// fqdns are the roots' fqdns, which no virtual host may have before
	// the processor runs.
	fqdns []string

	roots  map[types.NamespacedName]*rootRun // the work of each root processed
	status status.Map                        // every HTTPProxy's, as the run left it

	// placed pairs each kept virtual host with the one in the DAG of the
	// translation under way, whose route order freeze works out.
	placed []placedHost
}

// rootRun is the processing of one root: what it read, and what it did.
type rootRun struct {
	proxy   *contourv1.HTTPProxy
	ext     *loader.Extensions
	lookups []proxyLookup
	status  *status.Proxy // the root's own, as its processing left it
	effects []rootEffect
	vhost   *dag.VirtualHost // as its processing left them; nil for none
	svhost  *dag.SecureVirtualHost
}

// proxyLookup is an HTTPProxy looked up by name and what was found (nil:
// nothing), with its extensions.
type proxyLookup struct {
	name  types.NamespacedName
	found *contourv1.HTTPProxy
	ext   *loader.Extensions
}

// rootEffect is what a root did to another HTTPProxy: gave it the status
// visit, or, when visit is nil, took it off the orphans.
type rootEffect struct {
	name  types.NamespacedName
	visit *status.Proxy
}

// placedHost is a kept virtual host and its counterpart in the DAG.
type placedHost struct{ kept, dag *dag.VirtualHost }

// ignoredByProxies reports whether the HTTPProxy processor never reads
// objects of the kind.
func ignoredByProxies(kind string) bool {
	switch kind {
	case "EndpointSlice", "Ingress",
		"Gateway", "GatewayClass", "HTTPRoute", "GRPCRoute",
		"TLSRoute", "TCPRoute", "ReferenceGrant", "BackendTLSPolicy":
		return true
	}
	return false
}

// Inputs are the objects of objs the HTTPProxy processor may read: a
// change to any other leaves its work to be taken from the Memo whole.
func Inputs(objs []loader.Object) []loader.Object {
	out := make([]loader.Object, 0, len(objs))
	for _, o := range objs {
		if !ignoredByProxies(o.Kind) {
			out = append(out, o)
		}
	}
	return out
}

// Memo is the HTTPProxy processor's part of serve's memo (a field of
// translate's Memo): its last run, which the next one takes again, whole
// or root by root, where it reads the same. A nil *Memo remembers
// nothing. A Memo serves one translation at a time.
type Memo struct {
	mu sync.Mutex
	// proxies is the last run of the HTTPProxy processor, nil when it
	// cannot be done again; replayedProxies counts the times it was done
	// again whole, for tests.
	proxies         *proxyRun
	replayedProxies atomic.Int64
	// replayedRoots counts the roots whose work was taken from the Memo
	// on their own, for tests.
	replayedRoots atomic.Int64
}

// Replays are, for tests, the number of runs taken from m whole and of
// roots whose work was taken from it on their own.
func (m *Memo) Replays() (runs, roots int64) {
	return m.replayedProxies.Load(), m.replayedRoots.Load()
}

// Run runs p, taking from m what it did the last time where that is
// the same; objs are the translation's objects.
func (m *Memo) Run(p *Processor, objs []loader.Object) {
	fqdns := rootFQDNs(p.Index)
	// Roots that create every virtual host they write to can each be
	// processed on its own (rootsApart), which records what each did.
	apart := !hostsTaken(p.DAG, fqdns) && !p.InOrder
	p.apart = apart
	if m == nil {
		p.run()
		return
	}
	now := &proxyRun{
		inputs:         Inputs(objs),
		settings:       p.Settings,
		rootNamespaces: p.RootNamespaces,
		listeners:      proxyListeners(p.DAG),
		fqdns:          fqdns,
		// About a root per HTTPProxy: growing it was a third of
		// placing 5,000 roots' work.
		roots: make(map[types.NamespacedName]*rootRun, len(p.Index.HTTPProxies)),
	}
	m.mu.Lock()
	last := m.proxies
	m.mu.Unlock()
	switch {
	case last != nil && apart && last.sameDependencies(now, false):
		last.replay(p)
		m.replayedProxies.Add(1)
		return
	case last != nil && apart && last.sameDependencies(now, true):
		p.memo = &rootMemo{last: last, next: now, replayed: &m.replayedRoots}
	case apart:
		p.memo = &rootMemo{next: now}
	}
	p.run()
	p.memo = nil
	if apart {
		now.keepStatus(p.Status)
	} else {
		now = nil // no records: the roots were processed in order
	}
	m.mu.Lock()
	m.proxies = now
	m.mu.Unlock()
}

// sameDependencies says whether the processor reads the same in now as in
// r: the same objects (the loader's cache hands unchanged ones out as the
// same pointers), root namespaces, listeners and settings. With
// butProxies, the HTTPProxies may differ.
func (r *proxyRun) sameDependencies(now *proxyRun, butProxies bool) bool {
	return r.listeners == now.listeners &&
		equalBut(r.inputs, now.inputs, func(o loader.Object) bool { return butProxies && o.Kind == "HTTPProxy" }) &&
		slices.Equal(r.rootNamespaces, now.rootNamespaces) &&
		(r.settings == now.settings || r.settings != nil && now.settings != nil && same.Value(r.settings, now.settings))
}

// equalBut says whether a and b hold the same objects in the same order
// once those skip holds for are left out.
func equalBut(a, b []loader.Object, skip func(loader.Object) bool) bool {
	i, j := 0, 0
	for {
		for i < len(a) && skip(a[i]) {
			i++
		}
		for j < len(b) && skip(b[j]) {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if a[i] != b[j] {
			return false
		}
		i, j = i+1, j+1
	}
}

// proxyListeners names the listeners the processor writes to.
func proxyListeners(d *dag.DAG) [2]string {
	var names [2]string
	for i, protocol := range []string{"http", "https"} {
		if l := d.Listener(protocol); l != nil {
			names[i] = l.Name
		}
	}
	return names
}

// rootFQDNs are the fqdns of the HTTPProxies that have a virtual host.
func rootFQDNs(c *index.Index) []string {
	var out []string
	for _, proxy := range c.HTTPProxies {
		if vh := proxy.Spec.VirtualHost; vh != nil {
			out = append(out, vh.Fqdn)
		}
	}
	return out
}

// hostsTaken says whether a listener the processor writes to already has a
// virtual host of one of fqdns.
func hostsTaken(d *dag.DAG, fqdns []string) bool {
	http, https := d.Listener("http"), d.Listener("https")
	for _, fqdn := range fqdns {
		if http.VirtualHostOf(fqdn) != nil || https.SecureVirtualHostOf(fqdn) != nil {
			return true
		}
	}
	return false
}

// keepStatus records every HTTPProxy's status as the run left it.
func (r *proxyRun) keepStatus(statuses status.Map) {
	r.status = make(status.Map, len(statuses))
	for key, st := range statuses {
		if key.Kind == "HTTPProxy" {
			r.status[key] = st
		}
	}
}

// replay does to p's DAG and status what the recorded run did. The HTTP
// and the HTTPS virtual hosts are placed side by side, and the statuses
// copied meanwhile: one after the other, on one CPU, they were the
// longest step of a reload's HTTPProxy processing at 5,000 HTTPProxies.
func (r *proxyRun) replay(p *Processor) {
	to := hostListenersOf(p.DAG)
	var secure []placedHost
	var placing sync.WaitGroup
	placing.Go(func() {
		for _, rr := range r.roots {
			secure = to.placeSecure(rr, secure)
		}
	})
	r.placed = r.placed[:0]
	for _, rr := range r.roots {
		r.placed = to.placePlain(rr, r.placed)
	}
	maps.Copy(p.Status, r.status)
	placing.Wait()
	r.placed = append(r.placed, secure...)
}

// hostListeners are the listeners HTTPProxies' virtual hosts go on, found
// once for all the roots placed: finding them in the DAG's map for every
// root was a fifth of placing 5,000 roots at each reload.
type hostListeners struct{ http, https *dag.Listener }

func hostListenersOf(d *dag.DAG) hostListeners {
	return hostListeners{http: d.Listener("http"), https: d.Listener("https")}
}

// place copies rr's virtual hosts onto the listeners, and appends each
// with its copy to placed.
func (to hostListeners) place(rr *rootRun, placed []placedHost) []placedHost {
	return to.placeSecure(rr, to.placePlain(rr, placed))
}

// placePlain is place for rr's plain virtual host alone, placeSecure for
// its secure one: they write to different listeners and records.
func (to hostListeners) placePlain(rr *rootRun, placed []placedHost) []placedHost {
	if l := to.http; l != nil && rr.vhost != nil {
		vh := rr.vhost.Copy()
		l.VHosts[vh.Name] = vh
		placed = append(placed, placedHost{rr.vhost, vh})
	}
	return placed
}

func (to hostListeners) placeSecure(rr *rootRun, placed []placedHost) []placedHost {
	if l := to.https; l != nil && rr.svhost != nil {
		svh := rr.svhost.Copy()
		l.SecureVHosts[svh.Name] = svh
		placed = append(placed, placedHost{&rr.svhost.VirtualHost, &svh.VirtualHost})
	}
	return placed
}

// rootMemo is, for one run of the processor, the last run whose roots it
// may take again (nil for none) and the run it records.
type rootMemo struct {
	last, next *proxyRun
	replayed   *atomic.Int64
}

// reusable returns last's record of root when root reads the same now.
func (rm *rootMemo) reusable(c *index.Index, root *contourv1.HTTPProxy) *rootRun {
	if rm == nil || rm.last == nil {
		return nil
	}
	rr := rm.last.roots[index.NamespacedName(root)]
	if rr == nil || !rr.readsTheSame(c, root) {
		return nil
	}
	rm.replayed.Add(1)
	return rr
}

// rootsApart processes each root on its own, in parallel, into a record
// (those it can take from the Memo it takes), then does what the records
// say in root order: what processing the roots one after the other does,
// since no root writes to another's virtual hosts, and what a root does
// to other HTTPProxies (a status, taking them off the orphans) is done
// again, in order, from its record.
func (p *Processor) rootsApart(roots []*contourv1.HTTPProxy) {
	runs := make([]*rootRun, len(roots))
	var todo []int
	for i, root := range roots {
		if runs[i] = p.memo.reusable(p.Index, root); runs[i] == nil {
			todo = append(todo, i)
		}
	}
	par.ForEach(len(todo), func(j int) { runs[todo[j]] = p.recordRoot(roots[todo[j]]) })
	to := hostListenersOf(p.DAG)
	for _, rr := range runs {
		rr.replay(p)
		p.place(rr, to)
	}
}

// recordRoot processes root apart: on a DAG of its own, with listeners
// like p's but empty, and statuses and orphans of its own, recording what
// it read and did to other HTTPProxies.
func (p *Processor) recordRoot(root *contourv1.HTTPProxy) *rootRun {
	name := index.NamespacedName(root)
	rr := &rootRun{proxy: root, ext: p.Index.HTTPProxyExt[name]}
	apart := *p
	apart.DAG = &dag.DAG{Listeners: make(map[string]*dag.Listener, len(p.DAG.Listeners)), DynamicListeners: p.DAG.DynamicListeners, Extensions: p.DAG.Extensions}
	for key, l := range p.DAG.Listeners {
		empty := *l
		empty.VHosts, empty.SecureVHosts = nil, nil // made when the root adds a host
		apart.DAG.Listeners[key] = &empty
	}
	rr.status = p.Status.ForProxy(name) // set before the roots are processed; only this root writes it
	apart.Status = status.Map{status.Key{Kind: "HTTPProxy", Name: name}: rr.status}
	apart.orphaned = nil // only deleted from
	apart.memo, apart.recording = nil, rr
	apart.root(root)
	fqdn := root.Spec.VirtualHost.Fqdn
	rr.vhost = apart.DAG.Listener("http").VirtualHostOf(fqdn)
	rr.svhost = apart.DAG.Listener("https").SecureVirtualHostOf(fqdn)
	return rr
}

// place copies rr's virtual hosts onto p's DAG's listeners to, and keeps
// rr for the next run.
func (p *Processor) place(rr *rootRun, to hostListeners) {
	if p.memo == nil {
		to.place(rr, nil)
		return
	}
	next := p.memo.next
	next.placed = to.place(rr, next.placed)
	next.roots[index.NamespacedName(rr.proxy)] = rr
}

// lookedUp records that the root being processed looked name up.
func (p *Processor) lookedUp(name types.NamespacedName) {
	if rr := p.recording; rr != nil {
		rr.lookups = append(rr.lookups, proxyLookup{name, p.Index.HTTPProxyByName[name], p.Index.HTTPProxyExt[name]})
	}
}

// did records an effect of the root being processed on another HTTPProxy.
func (p *Processor) did(e rootEffect) {
	if rr := p.recording; rr != nil {
		rr.effects = append(rr.effects, e)
	}
}

// readsTheSame says whether processing root would read what rr read.
func (rr *rootRun) readsTheSame(c *index.Index, root *contourv1.HTTPProxy) bool {
	if root != rr.proxy || c.HTTPProxyExt[index.NamespacedName(root)] != rr.ext {
		return false
	}
	for _, l := range rr.lookups {
		if c.HTTPProxyByName[l.name] != l.found || c.HTTPProxyExt[l.name] != l.ext {
			return false
		}
	}
	return true
}

// replay does to p's status and orphans what rr's processing did; its
// virtual hosts are placed by the caller.
func (rr *rootRun) replay(p *Processor) {
	p.Status[status.Key{Kind: "HTTPProxy", Name: index.NamespacedName(rr.proxy)}] = rr.status
	for _, e := range rr.effects {
		if e.visit != nil {
			p.keepVisit(e.name, e.visit)
		} else {
			delete(p.orphaned, e.name)
		}
	}
}

// Frozen keeps, for each kept virtual host, the route order the DAG's
// freeze worked out, when no later processor added to its counterpart:
// the next replay hands it on, and that virtual host is not sorted again.
func (m *Memo) Frozen() {
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
		if p.kept.Sorted == nil && maps.Equal(p.kept.Routes, p.dag.Routes) {
			p.kept.Sorted, p.kept.Uses, p.kept.Named = p.dag.Sorted, p.dag.Uses, p.dag.Named
		}
	}
	r.placed = nil
}
