package diff

import (
	"slices"
	"sort"
	"strconv"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
)

// vhostKey places a virtual host: the listener serving it (empty when no
// listener fetches its route configuration), the route configuration and
// its name. A route configuration shared by two listeners is reported
// under each, as each serves it.
type vhostKey struct {
	listener, routeConfig, vhost string
}

func (k vhostKey) less(o vhostKey) bool {
	if k.listener != o.listener {
		return k.listener < o.listener
	}
	if k.vhost != o.vhost {
		return k.vhost < o.vhost
	}
	return k.routeConfig < o.routeConfig
}

// served lists every virtual host of one side by where it is served. The
// settings of a route configuration itself sit under an empty vhost name,
// with the virtual hosts taken out.
func served(rcs []*routev3.RouteConfiguration, listenersOf map[string][]string) map[vhostKey]*routev3.VirtualHost {
	out := map[vhostKey]*routev3.VirtualHost{}
	for _, rc := range rcs {
		listeners := listenersOf[rc.GetName()]
		if len(listeners) == 0 {
			listeners = []string{""}
		}
		for _, l := range listeners {
			for _, vh := range rc.GetVirtualHosts() {
				out[vhostKey{l, rc.GetName(), vh.GetName()}] = vh
			}
		}
	}
	return out
}

// routeConfigSettings indexes route configurations without their virtual
// hosts by name, to compare what applies to all of their hosts.
func routeConfigSettings(rcs []*routev3.RouteConfiguration) map[string]*routev3.RouteConfiguration {
	out := map[string]*routev3.RouteConfiguration{}
	for _, rc := range rcs {
		out[rc.GetName()] = withoutField(rc, "virtual_hosts")
	}
	return out
}

// diffRouteConfigs compares the virtual hosts of two sides, host by host and
// route by route, and the settings of route configurations both sides have.
func diffRouteConfigs(old, new []*routev3.RouteConfiguration, oldListeners, newListeners map[string][]string) []VirtualHostChange {
	olds, news := served(old, oldListeners), served(new, newListeners)
	keys := map[vhostKey]bool{}
	for k := range olds {
		keys[k] = true
	}
	for k := range news {
		keys[k] = true
	}
	var out []VirtualHostChange
	for k := range keys {
		ch := VirtualHostChange{Listener: k.listener, RouteConfig: k.routeConfig, VirtualHost: k.vhost}
		o, n := olds[k], news[k]
		switch {
		case o == nil:
			ch.Op = Added
			ch.Routes, _ = diffRoutes(nil, n.GetRoutes())
		case n == nil:
			ch.Op = Removed
			ch.Routes, _ = diffRoutes(o.GetRoutes(), nil)
		default:
			ch.Op = Changed
			ch.Fields = fieldDiff(withoutField(o, "routes"), withoutField(n, "routes"))
			ch.Routes, ch.OrderChanged = diffRoutes(o.GetRoutes(), n.GetRoutes())
			if len(ch.Fields)+len(ch.Routes) == 0 && !ch.OrderChanged {
				continue
			}
		}
		out = append(out, ch)
	}
	oldRC, newRC := routeConfigSettings(old), routeConfigSettings(new)
	for name, o := range oldRC {
		n, ok := newRC[name]
		if !ok {
			continue // its virtual hosts are reported as removed
		}
		if f := fieldDiff(o, n); len(f) > 0 {
			for _, l := range orNone(newListeners[name]) {
				out = append(out, VirtualHostChange{Op: Changed, Listener: l, RouteConfig: name, Fields: f})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return vhostKey{a.Listener, a.RouteConfig, a.VirtualHost}.less(vhostKey{b.Listener, b.RouteConfig, b.VirtualHost})
	})
	return out
}

func orNone(list []string) []string {
	if len(list) == 0 {
		return []string{""}
	}
	return list
}

// keyedRoute is a route and what identifies it in its virtual host: its
// match, as described and as bytes (the description is for people and
// sorting, the bytes make sure two different matches are never confused).
type keyedRoute struct {
	desc, key string
	route     *routev3.Route
}

// keyRoutes identifies each route of a virtual host by its match, in order.
// Envoy only ever uses the first of two routes with the same match; the
// second gets a #2 suffix so that neither is lost.
func keyRoutes(routes []*routev3.Route) []keyedRoute {
	out := make([]keyedRoute, 0, len(routes))
	seen := map[string]int{}
	for _, r := range routes {
		b, _ := deterministic.Marshal(r.GetMatch())
		desc, key := describeMatch(r.GetMatch()), string(b)
		seen[key]++
		if n := seen[key]; n > 1 {
			desc += " #" + strconv.Itoa(n)
			key += "#" + strconv.Itoa(n)
		}
		out = append(out, keyedRoute{desc: desc, key: key, route: r})
	}
	return out
}

// diffRoutes compares two route lists by match, and says whether the
// routes both have are in another order.
func diffRoutes(old, new []*routev3.Route) ([]RouteChange, bool) {
	ko, kn := keyRoutes(old), keyRoutes(new)
	olds, news := map[string]keyedRoute{}, map[string]keyedRoute{}
	for _, r := range ko {
		olds[r.key] = r
	}
	for _, r := range kn {
		news[r.key] = r
	}
	all := append(slices.Clone(ko), kn...)
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].desc != all[j].desc {
			return all[i].desc < all[j].desc
		}
		return all[i].key < all[j].key
	})
	var out []RouteChange
	for i, r := range all {
		if i > 0 && all[i-1].key == r.key {
			continue
		}
		o, inOld := olds[r.key]
		n, inNew := news[r.key]
		switch {
		case !inOld:
			out = append(out, RouteChange{Op: Added, Match: r.desc, Action: describeAction(n.route)})
		case !inNew:
			out = append(out, RouteChange{Op: Removed, Match: r.desc, Action: describeAction(o.route)})
		default:
			fields := fieldDiff(withoutField(o.route, "match"), withoutField(n.route, "match"))
			if len(fields) == 0 {
				continue
			}
			ch := RouteChange{Op: Changed, Match: r.desc, Action: describeAction(n.route), Fields: fields}
			if oa := describeAction(o.route); oa != ch.Action {
				ch.OldAction = oa
			}
			out = append(out, ch)
		}
	}
	return out, !slices.Equal(commonOrder(ko, news), commonOrder(kn, olds))
}

// commonOrder lists the keys of routes that other also has, in order.
func commonOrder(routes []keyedRoute, other map[string]keyedRoute) []string {
	var keys []string
	for _, r := range routes {
		if _, ok := other[r.key]; ok {
			keys = append(keys, r.key)
		}
	}
	return keys
}
