package translate

import (
	"slices"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
)

// Reusing the Envoy route tables and filter chains of the previous
// translation (Memo).
//
// An Envoy virtual host is a function of its DAG virtual host alone (and
// of whether it is served over TLS): envoyVirtualHost reads nothing else,
// and the DAG holds values, never the DAG or the cache. So when a DAG
// virtual host is deeply equal to the one the previous translation built
// an Envoy virtual host from, that Envoy virtual host is the answer, the
// very same message: unchanged, it keeps its content hash in serve
// (snapshot.go), which then neither hashes nor validates it again. A route
// table whose virtual hosts are all the same messages is reused whole in
// the same way. At 5,000 HTTPProxies, building and hashing route tables
// was a third of a reload; comparing the DAG virtual hosts costs a fraction
// of that.
//
// reflect.DeepEqual is conservative where it matters: functions, NaNs and
// a nil slice against an empty one compare unequal, which only means a
// virtual host is built again. The DAG is not modified once frozen, so the
// virtual hosts kept stay as they were built from.
//
// A secure virtual host's filter chain is, the same way, a function of the
// virtual host without its routes, of its listener's name, route table
// prefix and websocket setting, and of the settings.

// built is what one translation built, for the next. Route tables are
// built on one goroutine and listeners on another: each writes its own
// maps.
type built struct {
	settings *settings
	vhosts   map[vhostKey]builtVhost
	tables   map[string]builtTable
	chains   map[chainKey]builtChain
}

type vhostKey struct {
	name   string // the DAG virtual host's, with the table it is in
	table  string
	secure bool
}

type builtVhost struct {
	from *VirtualHost
	out  *routev3.VirtualHost
}

type builtTable struct {
	vhosts []*routev3.VirtualHost // in name order
	out    *routev3.RouteConfiguration
}

// chainKey names a secure virtual host's filter chain; chainListener
// holds what the chain reads of its listener.
type chainKey struct{ listener, vhost string }

type chainListener struct {
	name, routeConfigName string
	websockets            bool
}

type builtChain struct {
	listener chainListener
	from     SecureVirtualHost // without its routes, which the chain does not read
	out      *listenerv3.FilterChain
}

func newBuilt() *built {
	return &built{vhosts: map[vhostKey]builtVhost{}, tables: map[string]builtTable{}, chains: map[chainKey]builtChain{}}
}

// reuse builds the route tables and filter chains of one translation,
// reusing what the previous one built when a Memo gives it; a nil *reuse
// builds everything.
type reuse struct {
	previous, current *built
	// chainsValid says the previous filter chains were built with the
	// same settings; route tables read none.
	chainsValid bool
}

// reuse returns the reuse of a translation with settings s.
func (m *Memo) reuse(s *settings) *reuse {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextBuilt.settings = s
	return &reuse{previous: m.built, current: m.nextBuilt,
		chainsValid: m.built.settings != nil && sameValue(m.built.settings, s)}
}

// virtualHost is envoyVirtualHost(vh, secure) for the table named table.
func (b *reuse) virtualHost(table string, vh *VirtualHost, secure bool) *routev3.VirtualHost {
	if b == nil {
		return envoyVirtualHost(vh, secure)
	}
	key := vhostKey{vh.Name, table, secure}
	if old, ok := b.previous.vhosts[key]; ok && sameVirtualHost(old.from, vh) {
		b.current.vhosts[key] = old
		return old.out
	}
	out := envoyVirtualHost(vh, secure)
	b.current.vhosts[key] = builtVhost{from: vh, out: out}
	return out
}

// table is routeConfiguration(name, vhosts), the previous one when it
// held the very same virtual hosts.
func (b *reuse) table(name string, vhosts []*routev3.VirtualHost) *routev3.RouteConfiguration {
	if b == nil {
		return routeConfiguration(name, vhosts)
	}
	sortVirtualHosts(vhosts)
	if old, ok := b.previous.tables[name]; ok && slices.Equal(old.vhosts, vhosts) {
		b.current.tables[name] = old
		return old.out
	}
	out := routeConfiguration(name, vhosts)
	b.current.tables[name] = builtTable{vhosts: slices.Clone(out.VirtualHosts), out: out}
	return out
}

// filterChain is build(), the secure virtual host's filter chain on l,
// or the previous one when it was built from the same.
func (b *reuse) filterChain(l *Listener, svh *SecureVirtualHost, build func() *listenerv3.FilterChain) *listenerv3.FilterChain {
	if b == nil {
		return build()
	}
	key := chainKey{l.Name, svh.Name}
	from := *svh
	from.routes, from.sorted = nil, nil
	cl := chainListener{l.Name, l.RouteConfigName, l.EnableWebsockets}
	if old, ok := b.previous.chains[key]; ok && b.chainsValid && old.listener == cl && sameValue(&old.from, &from) {
		b.current.chains[key] = old
		return old.out
	}
	out := build()
	b.current.chains[key] = builtChain{listener: cl, from: from, out: out}
	return out
}

// sameVirtualHost reports whether two frozen virtual hosts are deeply
// equal (same.go), comparing their routes in order rather than through the
// map they are kept in, which holds the same routes.
func sameVirtualHost(a, b *VirtualHost) bool {
	if len(a.sorted) != len(b.sorted) || len(a.routes) != len(b.routes) {
		return false
	}
	x, y := *a, *b
	x.routes, y.routes = nil, nil
	return sameValue(&x, &y)
}
