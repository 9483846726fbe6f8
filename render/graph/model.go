package graph

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/routetest"
	"github.com/contourc/contourc/translate"
)

// NodeKind is what a node stands for; the kinds are also the graph's
// layers, left to right, after the objects.
type NodeKind string

const (
	KindObject      NodeKind = "object"
	KindListener    NodeKind = "listener"
	KindVirtualHost NodeKind = "vhost"
	KindRoute       NodeKind = "route"
	KindCluster     NodeKind = "cluster"
	KindService     NodeKind = "service"
)

// Node is one box of the graph.
type Node struct {
	ID    string
	Kind  NodeKind
	Label string // first line: a name, a host, a route's match
	Sub   string // second line: a kind, a route configuration, an action
	// Status colours the node; Message says why it is not valid.
	Status  Status
	Message string
	// Source is the file and line of the object the node comes from.
	Source loader.Source
	// Host is a virtual host's name, or the host of a route's virtual host.
	Host string
	// Order is a route's index in its virtual host (Envoy's order).
	Order int
	// layer and key place the node (layout.go).
	layer int
	key   string
}

// Edge is an arrow between two nodes.
type Edge struct {
	From, To string
	Label    string
}

// Graph is the routing as nodes and edges, in a deterministic order.
type Graph struct {
	Nodes []*Node
	Edges []Edge
	// VirtualHosts are the virtual host nodes with their routes in Envoy's
	// order, for the page's table of routes.
	VirtualHosts []VirtualHostRoutes
	// Width and Height are the drawing's size.
	Width, Height int

	byID  map[string]*Node
	boxes map[string]Box
}

// VirtualHostRoutes is a virtual host and its routes, in order.
type VirtualHostRoutes struct {
	VirtualHost *Node
	Routes      []*Node
}

// Input is what the graph is built from.
type Input struct {
	Resources *translate.Resources
	Status    []translate.ObjectStatus
	Notices   []translate.Notice
	// Objects, from ObjectsFrom, may be nil: then objects have no file
	// and line and no includes or parents are drawn.
	Objects *Objects
}

// builder accumulates a graph.
type builder struct {
	g       *Graph
	in      Input
	judged  map[objectKey]judged
	targets map[string]*routetest.ServiceRef // cluster name -> Service
	exists  map[string]bool                  // cluster names
	noEPs   map[objectKey]string             // Services with a notice
}

// Build draws in's routing.
func Build(in Input) *Graph {
	b := &builder{
		g:       &Graph{byID: map[string]*Node{}},
		in:      in,
		judged:  judge(in.Status),
		targets: map[string]*routetest.ServiceRef{},
		exists:  map[string]bool{},
		noEPs:   map[objectKey]string{},
	}
	res := in.Resources
	if res == nil {
		res = &translate.Resources{}
	}
	for _, cl := range res.Clusters {
		b.exists[cl.GetName()] = true
		if svc, _ := routetest.ClusterTarget(cl); svc != nil {
			b.targets[cl.GetName()] = svc
		}
	}
	for _, n := range in.Notices {
		if n.Kind == "Service" {
			ns, name, _ := strings.Cut(n.Name, "/")
			b.noEPs[objectKey{"Service", ns, name}] = n.Msg
		}
	}
	rcs := map[string]*routev3.RouteConfiguration{}
	for _, rc := range res.RouteConfigs {
		rcs[rc.GetName()] = rc
	}
	drawn := map[string]bool{}
	for _, l := range res.Listeners {
		b.listener(l, rcs, drawn)
	}
	b.objectLinks()
	b.unservedObjects()
	b.g.dropIdleListeners()
	b.g.finish()
	return b.g
}

// fromObject says a route has the metadata Contour puts on the routes of
// its objects.
func fromObject(r *routev3.Route) bool {
	_, ok := routetest.RouteObject(r.GetMetadata())
	return ok
}

// dropIdleListeners leaves out the listeners that lead nowhere: those of
// the bootstrap (admin, stats), whose virtual hosts are not drawn.
func (g *Graph) dropIdleListeners() {
	used := map[string]bool{}
	for _, e := range g.Edges {
		used[e.From] = true
	}
	g.Nodes = slices.DeleteFunc(g.Nodes, func(n *Node) bool {
		if n.Kind == KindListener && !used[n.ID] {
			delete(g.byID, n.ID)
			return true
		}
		return false
	})
}

// add adds n once, returning the node with its ID.
func (g *Graph) add(n *Node) *Node {
	if old, ok := g.byID[n.ID]; ok {
		return old
	}
	if n.Status == "" {
		n.Status = StatusValid
	}
	g.byID[n.ID] = n
	g.Nodes = append(g.Nodes, n)
	return n
}

func (g *Graph) edge(from, to, label string) {
	e := Edge{From: from, To: to, Label: label}
	if !slices.Contains(g.Edges, e) {
		g.Edges = append(g.Edges, e)
	}
}

// listener draws a listener, the virtual hosts of the route
// configurations its filter chains use, and the clusters its TCP proxies
// forward to.
func (b *builder) listener(l *listenerv3.Listener, rcs map[string]*routev3.RouteConfiguration, drawn map[string]bool) {
	sa := l.GetAddress().GetSocketAddress()
	ln := b.g.add(&Node{ID: "listener/" + l.GetName(), Kind: KindListener, Label: l.GetName(),
		Sub: fmt.Sprintf("listener %s:%d", sa.GetAddress(), sa.GetPortValue()), key: l.GetName()})
	for _, fc := range l.GetFilterChains() {
		sni := strings.Join(fc.GetFilterChainMatch().GetServerNames(), ",")
		for _, f := range fc.GetFilters() {
			switch tc := f.GetTypedConfig(); {
			case tc.MessageIs(&hcmv3.HttpConnectionManager{}):
				var hcm hcmv3.HttpConnectionManager
				if tc.UnmarshalTo(&hcm) != nil {
					continue
				}
				rc := hcm.GetRouteConfig()
				if rc == nil {
					rc = rcs[hcm.GetRds().GetRouteConfigName()]
				}
				if rc != nil {
					b.routeConfig(ln, rc, drawn)
				}
			case tc.MessageIs(&tcpv3.TcpProxy{}):
				var tp tcpv3.TcpProxy
				if tc.UnmarshalTo(&tp) != nil {
					continue
				}
				label := "tcp_proxy"
				if sni != "" {
					label += " " + sni
				}
				if c := tp.GetCluster(); c != "" {
					b.g.edge(ln.ID, b.cluster(c).ID, label)
				}
				for _, wc := range tp.GetWeightedClusters().GetClusters() {
					b.g.edge(ln.ID, b.cluster(wc.GetName()).ID, fmt.Sprintf("%s weight %d", label, wc.GetWeight()))
				}
			}
		}
	}
}

// routeConfig draws the virtual hosts of rc, once however many chains use it.
func (b *builder) routeConfig(ln *Node, rc *routev3.RouteConfiguration, drawn map[string]bool) {
	for _, vh := range rc.GetVirtualHosts() {
		if !slices.ContainsFunc(vh.GetRoutes(), fromObject) {
			// Not Contour's DAG: the bootstrap's admin and stats
			// listeners' routes to Envoy's admin interface.
			continue
		}
		id := "vhost/" + rc.GetName() + "/" + vh.GetName()
		b.g.edge(ln.ID, id, "")
		if drawn[id] {
			continue
		}
		drawn[id] = true
		vn := b.g.add(&Node{ID: id, Kind: KindVirtualHost, Label: vh.GetName(), Sub: "route configuration " + rc.GetName(),
			Host: vh.GetName(), key: vh.GetName() + "\x00" + rc.GetName()})
		entry := VirtualHostRoutes{VirtualHost: vn}
		var objs []objectKey
		for i, r := range vh.GetRoutes() {
			rn := b.route(vn, i, r)
			entry.Routes = append(entry.Routes, rn)
			if key, ok := routetest.RouteObject(r.GetMetadata()); ok && !slices.Contains(objs, objectKey(key)) {
				objs = append(objs, objectKey(key))
			}
		}
		b.g.VirtualHosts = append(b.g.VirtualHosts, entry)
		vn.Source = b.in.Objects.source(b.owner(vn.Host, objs))
		for _, key := range objs {
			j := b.judged[key]
			vn.Status = worse(vn.Status, j.status)
			if vn.Message == "" && j.status != StatusValid {
				vn.Message = key.Kind + " " + key.Namespace + "/" + key.Name + ": " + j.message
			}
			b.objectToVirtualHost(key, vn)
		}
	}
}

// owner is the object a virtual host is linked to: the root HTTPProxy
// claiming its name, else the first object its routes come from.
func (b *builder) owner(host string, objs []objectKey) objectKey {
	if b.in.Objects != nil {
		for _, key := range objs {
			if key.Kind == kindHTTPProxy && b.in.Objects.fqdns[key] == host {
				return key
			}
		}
	}
	if len(objs) == 0 {
		return objectKey{}
	}
	return objs[0]
}

// objectToVirtualHost links an object the virtual host's routes come from
// to it: a root HTTPProxy claiming the host and every other kind; an
// HTTPProxy that is not the root is reached through its includes instead.
func (b *builder) objectToVirtualHost(key objectKey, vn *Node) {
	if key.Kind == kindHTTPProxy && b.in.Objects != nil {
		if fqdn, root := b.in.Objects.fqdns[key]; !root || fqdn != vn.Host {
			b.object(key)
			return
		}
	}
	b.g.edge(b.object(key).ID, vn.ID, "")
}

// route draws route #i of a virtual host and what it forwards to.
func (b *builder) route(vn *Node, i int, r *routev3.Route) *Node {
	rn := b.g.add(&Node{ID: vn.ID + "#" + strconv.Itoa(i), Kind: KindRoute, Label: fmt.Sprintf("#%d %s", i, routetest.DescribeMatch(r.GetMatch())),
		Host: vn.Host, Order: i, key: fmt.Sprintf("%s\x00%06d", vn.key, i)})
	if key, ok := routetest.RouteObject(r.GetMetadata()); ok {
		k := objectKey(key)
		j := b.judged[k]
		rn.Status, rn.Message = worse("", j.status), j.message
		rn.Source = b.in.Objects.source(k)
		rn.Sub = k.Kind + " " + k.Namespace + "/" + k.Name
	}
	b.g.edge(vn.ID, rn.ID, "")
	switch {
	case r.GetRoute() != nil:
		ra := r.GetRoute()
		if c := ra.GetCluster(); c != "" {
			b.g.edge(rn.ID, b.cluster(c).ID, "")
		}
		for _, wc := range ra.GetWeightedClusters().GetClusters() {
			b.g.edge(rn.ID, b.cluster(wc.GetName()).ID, fmt.Sprintf("weight %d", wc.GetWeight().GetValue()))
		}
		for _, m := range ra.GetRequestMirrorPolicies() {
			b.g.edge(rn.ID, b.cluster(m.GetCluster()).ID, "mirror")
		}
	case r.GetRedirect() != nil:
		rn.Sub = joinSub(rn.Sub, "redirect")
	case r.GetDirectResponse() != nil:
		rn.Sub = joinSub(rn.Sub, fmt.Sprintf("direct response %d", r.GetDirectResponse().GetStatus()))
	}
	return rn
}

func joinSub(a, b string) string {
	if a == "" {
		return b
	}
	return a + " · " + b
}

// cluster draws an Envoy cluster and the Service behind it; a cluster a
// route names that does not exist is invalid (Envoy answers 503).
func (b *builder) cluster(name string) *Node {
	id := "cluster/" + name
	if n, ok := b.g.byID[id]; ok {
		return n
	}
	cn := b.g.add(&Node{ID: id, Kind: KindCluster, Label: name, Sub: "cluster", key: name})
	if !b.exists[name] {
		cn.Status, cn.Message, cn.Sub = StatusInvalid, "no such cluster: Envoy answers 503", "missing cluster"
		return cn
	}
	svc := b.targets[name]
	if svc == nil {
		return cn
	}
	key := objectKey{"Service", svc.Namespace, svc.Name}
	sn := b.g.add(&Node{ID: "service/" + svc.Namespace + "/" + svc.Name, Kind: KindService, Label: svc.Namespace + "/" + svc.Name,
		Sub: "Service", Source: b.in.Objects.source(key), key: svc.Namespace + "/" + svc.Name})
	if msg, ok := b.noEPs[key]; ok {
		sn.Status, sn.Message = StatusWarning, msg
	}
	port := strconv.Itoa(svc.Port)
	if svc.PortName != "" {
		port += " (" + svc.PortName + ")"
	}
	b.g.edge(cn.ID, sn.ID, "port "+port)
	return cn
}

func objectID(key objectKey) string {
	return "object/" + key.Kind + "/" + key.Namespace + "/" + key.Name
}

// object draws an input object.
func (b *builder) object(key objectKey) *Node {
	id := objectID(key)
	if n, ok := b.g.byID[id]; ok {
		return n
	}
	j := b.judged[key]
	return b.g.add(&Node{ID: id, Kind: KindObject, Label: key.Namespace + "/" + key.Name, Sub: key.Kind,
		Status: worse("", j.status), Message: j.message, Source: b.in.Objects.source(key), key: id})
}

// unservedObjects draws, on their own, the objects with a status that
// nothing served comes from but that are not valid: an orphaned HTTPProxy,
// an invalid one whose virtual host is not served at all.
func (b *builder) unservedObjects() {
	for _, st := range b.in.Status {
		key := objectKey{st.Kind, st.Namespace, st.Name}
		if _, drawn := b.g.byID[objectID(key)]; !drawn && b.judged[key].status != StatusValid {
			b.object(key)
		}
	}
}

// objectLinks draws the includes between HTTPProxies in the graph and the
// Gateways of the Gateway API routes in it.
func (b *builder) objectLinks() {
	if b.in.Objects == nil {
		return
	}
	// Included HTTPProxies whose includer is drawn are drawn, down the
	// tree, so that an include whose child has no routes shows too.
	for changed := true; changed; {
		changed = false
		for _, l := range b.in.Objects.links {
			from, to := objectID(l.from), objectID(l.to)
			_, fromDrawn := b.g.byID[from]
			_, toDrawn := b.g.byID[to]
			switch {
			case l.from.Kind == kindHTTPProxy && fromDrawn && !toDrawn:
				b.object(l.to)
				changed = true
			case l.from.Kind == kindGateway && toDrawn && !fromDrawn:
				b.object(l.from)
				changed = true
			}
		}
	}
	for _, l := range b.in.Objects.links {
		from, to := objectID(l.from), objectID(l.to)
		if _, ok := b.g.byID[from]; !ok {
			continue
		}
		if _, ok := b.g.byID[to]; ok {
			b.g.edge(from, to, l.label)
		}
	}
}
