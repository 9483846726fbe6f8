package envoy

import (
	"bytes"
	"maps"
	"slices"
	"sync"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/same"
)

// Reusing the Envoy messages of the previous translation (Memo, the Envoy
// half of translate's Memo): route
// tables and virtual hosts, secure filter chains, clusters, load
// assignments and secrets.
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
// Deep equality (same.go, as reflect.DeepEqual decides it) is conservative
// where it matters: functions, NaNs and a nil slice against an empty one
// compare unequal, which only means a message is built again. The DAG is
// not modified once frozen, so the values kept stay as they were built
// from.
//
// The same way, a secure virtual host's filter chain is a function of the
// virtual host without its routes, of its listener's name, route table
// prefix and websocket setting, and of the settings; a cluster of its DAG
// cluster, DNS domain and the settings; a load assignment of its DAG
// Service and EndpointSlice objects (the loader's cache hands unchanged
// ones out as the same pointers); a secret of its name, certificate and
// key. Tests translate the golden inputs and the parity corpus with one
// Memo against translations without one, and change the settings between
// translations.

// built is what one translation built, for the next. Route tables,
// listeners, secrets and clusters are built on goroutines of their own:
// each writes its own maps.
type built struct {
	settings *config.Settings
	tables   map[string]builtTable
	// The values of more than a pointer or two are kept by pointer: a
	// map keeps a larger value out of line anyway, allocating it at every
	// insert, and a translation copies all of them into the next map.
	chains      map[chainKey]*builtChain
	clusters    map[builtClusterKey]*builtCluster
	assignments map[string]*builtAssignment
	secrets     map[string]builtSecret
}

// builtClusterKey names a cluster built for a DAG cluster; dns is the domain
// it resolves its Service in, "" for EDS.
type builtClusterKey struct{ name, dns string }

type builtCluster struct {
	from dag.Cluster
	out  *clusterv3.Cluster
}

// builtAssignment is a Service's load assignment, a function of the DAG
// Service and of the EndpointSlice objects, which the loader's cache hands
// out again as the same pointers when they did not change.
type builtAssignment struct {
	svc    dag.Service
	slices []*discoveryv1.EndpointSlice
	out    *endpointv3.ClusterLoadAssignment
}

type builtSecret struct {
	cert, key []byte
	out       *tlsv3.Secret
}

type vhostKey struct {
	name   string // the DAG virtual host's, with the table it is in
	table  string
	secure bool
}

type builtVhost struct {
	from *dag.VirtualHost
	out  *routev3.VirtualHost
	// used is the last translation that asked for it.
	used uint64
}

// vhostMemo holds the Envoy virtual hosts built, by the table they are in.
// Unlike the other records it is one map, updated in place: a translation
// builds 10,000 virtual hosts at 5,000 HTTPProxies, and looking each up in
// the last translation's map and storing it into the next one, under a
// lock, was half of building the route tables. Each record is reached by
// the one goroutine that builds its virtual host, which updates it
// through its pointer; only new ones are added to the map, after the
// translation, and those not asked for by it then dropped.
type vhostMemo struct {
	records map[vhostKey]*builtVhost // read only during a translation
	mu      sync.Mutex
	added   map[vhostKey]*builtVhost
	// translation counts the translations.
	translation uint64
}

// begin starts a translation, taking in what the last one added and
// dropping what it did not use.
func (m *vhostMemo) begin() {
	if m.records == nil {
		m.records = map[vhostKey]*builtVhost{}
	}
	if m.translation > 0 {
		last := m.translation
		maps.DeleteFunc(m.records, func(_ vhostKey, r *builtVhost) bool { return r.used != last })
	}
	maps.Copy(m.records, m.added)
	m.added = map[vhostKey]*builtVhost{}
	m.translation++
}

// virtualHost is envoyVirtualHost(vh, secure) for the table named table,
// the one built before when it was built from the same.
func (m *vhostMemo) virtualHost(table string, vh *dag.VirtualHost, secure bool) *routev3.VirtualHost {
	key := vhostKey{vh.Name, table, secure}
	if r := m.records[key]; r != nil {
		if !sameVirtualHost(r.from, vh) {
			r.from, r.out = vh, envoyVirtualHost(vh, secure)
		}
		r.used = m.translation
		return r.out
	}
	r := &builtVhost{from: vh, out: envoyVirtualHost(vh, secure), used: m.translation}
	m.mu.Lock()
	m.added[key] = r
	m.mu.Unlock()
	return r.out
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
	from     dag.SecureVirtualHost // without its routes, which the chain does not read
	out      *listenerv3.FilterChain
}

func newBuilt() *built {
	return &built{tables: map[string]builtTable{}, chains: map[chainKey]*builtChain{},
		clusters: map[builtClusterKey]*builtCluster{}, assignments: map[string]*builtAssignment{}, secrets: map[string]builtSecret{}}
}

// sizedAlike is an empty built whose maps have room for what b holds: the
// next translation builds about as much, and growing the maps (10,000
// virtual hosts, 5,000 of each other thing at 5,000 HTTPProxies) was a
// tenth of building a reload's resources.
func (b *built) sizedAlike() *built {
	return &built{
		tables:      make(map[string]builtTable, len(b.tables)),
		chains:      make(map[chainKey]*builtChain, len(b.chains)),
		clusters:    make(map[builtClusterKey]*builtCluster, len(b.clusters)),
		assignments: make(map[string]*builtAssignment, len(b.assignments)),
		secrets:     make(map[string]builtSecret, len(b.secrets)),
	}
}

// reuse builds the Envoy messages of one translation, reusing what the
// previous one built when a Memo gives it; a nil *Reuse builds everything.
type Reuse struct {
	previous, current *built
	vhosts            *vhostMemo
	// routes guards current's route tables, which are built on every CPU.
	routes sync.Mutex
	// sameSettings says the previous translation had the same settings,
	// which filter chains and clusters read; route tables read none.
	sameSettings bool
	// chainFrom is where filterChain, which one goroutine calls
	// (ListenersFor's), works out what a filter chain is built from:
	// a copy on the heap at each call was 3.6 MB a reload at 5,000
	// HTTPProxies.
	chainFrom dag.SecureVirtualHost
}

// Memo is the Envoy half of translate's Memo: the messages the last
// translation built, with what they were built from. The zero Memo is
// ready to use; a Memo serves one translation at a time.
type Memo struct {
	mu sync.Mutex
	// built is what the last translation built, and nextBuilt what the
	// one under way builds.
	built, nextBuilt *built
	// vhosts are the Envoy virtual hosts built, updated in place.
	vhosts vhostMemo
}

// Begin starts a translation: the messages of all but the last are
// dropped.
func (m *Memo) Begin() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.nextBuilt != nil {
		m.built = m.nextBuilt
	}
	if m.built == nil {
		m.built = newBuilt()
	}
	m.nextBuilt = m.built.sizedAlike()
	m.vhosts.begin()
}

// Reuse returns the Reuse of a translation with settings s, after Begin;
// a nil Memo gives a nil *Reuse, which builds everything.
func (m *Memo) Reuse(s *config.Settings) *Reuse {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextBuilt.settings = s
	return &Reuse{previous: m.built, current: m.nextBuilt, vhosts: &m.vhosts,
		sameSettings: m.built.settings != nil && same.Value(m.built.settings, s)}
}

// virtualHost is envoyVirtualHost(vh, secure) for the table named table.
func (b *Reuse) virtualHost(table string, vh *dag.VirtualHost, secure bool) *routev3.VirtualHost {
	if b == nil {
		return envoyVirtualHost(vh, secure)
	}
	return b.vhosts.virtualHost(table, vh, secure)
}

// table is routeConfiguration(name, vhosts), the previous one when it
// held the very same virtual hosts.
func (b *Reuse) table(name string, vhosts []*routev3.VirtualHost) *routev3.RouteConfiguration {
	if b == nil {
		return routeConfiguration(name, vhosts)
	}
	sortVirtualHosts(vhosts)
	built, ok := b.previous.tables[name]
	if !ok || !slices.Equal(built.vhosts, vhosts) {
		out := routeConfiguration(name, vhosts)
		built = builtTable{vhosts: slices.Clone(out.VirtualHosts), out: out}
	}
	b.routes.Lock()
	b.current.tables[name] = built
	b.routes.Unlock()
	return built.out
}

// filterChain is build(), the secure virtual host's filter chain on l,
// or the previous one when it was built from the same.
func (b *Reuse) filterChain(l *dag.Listener, svh *dag.SecureVirtualHost, build func() *listenerv3.FilterChain) *listenerv3.FilterChain {
	if b == nil {
		return build()
	}
	key := chainKey{l.Name, svh.Name}
	from := &b.chainFrom
	*from = *svh
	from.Routes, from.Sorted, from.Uses, from.Named, from.RoutesShared = nil, nil, nil, nil, false
	cl := chainListener{l.Name, l.RouteConfigName, l.EnableWebsockets}
	if old, ok := b.previous.chains[key]; ok && b.sameSettings && old.listener == cl && same.Value(&old.from, from) {
		b.current.chains[key] = old
		return old.out
	}
	out := build()
	b.current.chains[key] = &builtChain{listener: cl, from: *from, out: out}
	return out
}

// sameVirtualHost reports whether two frozen virtual hosts are deeply
// equal (same.go), comparing their routes in order rather than through the
// map they are kept in, which holds the same routes.
func sameVirtualHost(a, b *dag.VirtualHost) bool {
	if len(a.Sorted) != len(b.Sorted) || len(a.Routes) != len(b.Routes) {
		return false
	}
	pair := vhostPairs.Get().(*[2]dag.VirtualHost)
	defer vhostPairs.Put(pair)
	x, y := &pair[0], &pair[1]
	*x, *y = *a, *b
	x.Routes, y.Routes = nil, nil
	x.Uses, y.Uses = nil, nil // derived from the routes, compared in order
	x.Named, y.Named = nil, nil
	x.RoutesShared, y.RoutesShared = false, false
	equal := same.Value(x, y)
	*x, *y = dag.VirtualHost{}, dag.VirtualHost{} // holding nothing of the DAG
	return equal
}

// vhostPairs are where sameVirtualHost, which the route tables' goroutines
// call, compares: copies on the heap were 2 MB a reload at 5,000
// HTTPProxies. A pool holds nothing between uses (sameVirtualHost clears
// the pair before putting it back), so it may be shared by every Memo.
var vhostPairs = sync.Pool{New: func() any { return new([2]dag.VirtualHost) }}

// Cluster is clusterWith(dc, dns, s), the previous one when it was built
// from the same.
func (b *Reuse) Cluster(dc *dag.Cluster, dns string, s *config.Settings) *clusterv3.Cluster {
	if b == nil {
		return clusterWith(dc, dns, s)
	}
	key := builtClusterKey{dag.ClusterName(dc), dns}
	if old, ok := b.previous.clusters[key]; ok && b.sameSettings && same.Value(&old.from, dc) {
		b.current.clusters[key] = old
		return old.out
	}
	out := clusterWith(dc, dns, s)
	b.current.clusters[key] = &builtCluster{from: *dc, out: out}
	return out
}

// Assignment is loadAssignment(svc, slices), the previous one when it was
// built from the same.
func (b *Reuse) Assignment(svc *dag.Service, eps []*discoveryv1.EndpointSlice) *endpointv3.ClusterLoadAssignment {
	if b == nil {
		return loadAssignment(svc, eps)
	}
	name := dag.EndpointsName(svc)
	if old, ok := b.previous.assignments[name]; ok && old.svc == *svc && slices.Equal(old.slices, eps) {
		b.current.assignments[name] = old
		return old.out
	}
	out := loadAssignment(svc, eps)
	b.current.assignments[name] = &builtAssignment{svc: *svc, slices: slices.Clone(eps), out: out}
	return out
}

// secret is the SDS secret name serves sec as, the previous one when it
// held the same certificate and key.
func (b *Reuse) secret(name string, sec *dag.Secret) *tlsv3.Secret {
	if b == nil {
		return tlsCertificateSecret(name, sec.Cert, sec.Key)
	}
	if old, ok := b.previous.secrets[name]; ok && bytes.Equal(old.cert, sec.Cert) && bytes.Equal(old.key, sec.Key) {
		b.current.secrets[name] = old
		return old.out
	}
	out := tlsCertificateSecret(name, sec.Cert, sec.Key)
	b.current.secrets[name] = builtSecret{cert: sec.Cert, key: sec.Key, out: out}
	return out
}
