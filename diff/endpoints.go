package diff

import (
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"

	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
)

// diffEndpoints compares ClusterLoadAssignments by cluster name: the
// number of endpoints, the addresses that came and went, changes to an
// endpoint that stayed (health, weight), and the other settings.
func diffEndpoints(old, new []*endpointv3.ClusterLoadAssignment) []EndpointsChange {
	name := (*endpointv3.ClusterLoadAssignment).GetClusterName
	olds, news := byName(old, name), byName(new, name)
	var out []EndpointsChange
	for _, n := range unionKeys(olds, news) {
		o, nw := olds[n], news[n]
		oe, ne := lbEndpoints(o), lbEndpoints(nw)
		ch := EndpointsChange{Name: n, OldCount: countEndpoints(o), NewCount: countEndpoints(nw)}
		switch {
		case o == nil:
			ch.Op = Added
			ch.Added = slices.Sorted(maps.Keys(ne))
		case nw == nil:
			ch.Op = Removed
			ch.Removed = slices.Sorted(maps.Keys(oe))
		default:
			ch.Op = Changed
			for _, addr := range unionKeys(oe, ne) {
				switch a, b := oe[addr], ne[addr]; {
				case a == nil:
					ch.Added = append(ch.Added, addr)
				case b == nil:
					ch.Removed = append(ch.Removed, addr)
				default:
					for _, f := range fieldDiff(a.ep, b.ep) {
						f.Path = "[" + addr + "]." + f.Path
						ch.Fields = append(ch.Fields, f)
					}
					if a.locality != b.locality {
						ch.Fields = append(ch.Fields, FieldChange{Path: "[" + addr + "] (locality)", Old: a.locality, New: b.locality})
					}
				}
			}
			ch.Fields = append(ch.Fields, fieldDiff(withoutEndpoints(o), withoutEndpoints(nw))...)
			if len(ch.Added)+len(ch.Removed)+len(ch.Fields) == 0 {
				continue
			}
		}
		out = append(out, ch)
	}
	return out
}

// located is one endpoint and the locality (priority and region) it sits in.
type located struct {
	ep       *endpointv3.LbEndpoint
	locality string
}

// lbEndpoints indexes the endpoints of a ClusterLoadAssignment by address.
// An address served twice keeps a #2 suffix so that none is lost.
func lbEndpoints(cla *endpointv3.ClusterLoadAssignment) map[string]*located {
	m := map[string]*located{}
	for _, lle := range cla.GetEndpoints() {
		loc := fmt.Sprintf("priority %d", lle.GetPriority())
		if l := lle.GetLocality(); l != nil {
			loc += " " + formatMessage(l.ProtoReflect())
		}
		for _, lb := range lle.GetLbEndpoints() {
			key := endpointAddress(lb)
			for i := 2; m[key] != nil; i++ {
				key = endpointAddress(lb) + "#" + strconv.Itoa(i)
			}
			m[key] = &located{ep: lb, locality: loc}
		}
	}
	return m
}

func countEndpoints(cla *endpointv3.ClusterLoadAssignment) int {
	n := 0
	for _, lle := range cla.GetEndpoints() {
		n += len(lle.GetLbEndpoints())
	}
	return n
}

// endpointAddress is host:port of a socket address, the path of a pipe, or
// the endpoint's address as JSON for anything else.
func endpointAddress(lb *endpointv3.LbEndpoint) string {
	addr := lb.GetEndpoint().GetAddress()
	if sa := addr.GetSocketAddress(); sa != nil {
		port := sa.GetPortValue()
		if sa.GetNamedPort() != "" {
			return net.JoinHostPort(sa.GetAddress(), sa.GetNamedPort())
		}
		return net.JoinHostPort(sa.GetAddress(), strconv.Itoa(int(port)))
	}
	if p := addr.GetPipe(); p != nil {
		return p.GetPath()
	}
	return formatMessage(lb.ProtoReflect())
}

// withoutEndpoints is cla without its endpoints and name.
func withoutEndpoints(cla *endpointv3.ClusterLoadAssignment) *endpointv3.ClusterLoadAssignment {
	return withoutField(cla, "cluster_name", "endpoints")
}
