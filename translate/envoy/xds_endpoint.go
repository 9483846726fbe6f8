package envoy

import (
	"sort"
	"strconv"

	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
)

// ClusterLoadAssignments from EndpointSlices, as Contour's EndpointSlice
// translator builds them.

// loadAssignment returns the CLA of a Service port: every ready endpoint
// (an unset ready condition counts as ready) on every TCP slice port that
// matches the Service port's name (all of them for an unnamed port), using
// each endpoint's first address, without duplicates. No endpoints gives a
// CLA with only its name.
func loadAssignment(svc *dag.Service, slices []*discoveryv1.EndpointSlice) *endpointv3.ClusterLoadAssignment {
	cla := &endpointv3.ClusterLoadAssignment{ClusterName: dag.EndpointsName(svc)}
	type hostPort struct {
		addr string
		port int32
	}
	seen := map[hostPort]bool{}
	var hosts []hostPort
	var healthPort int32
	for _, slice := range slices {
		for _, port := range slice.Ports {
			// A separate health-check port is found by its name.
			if port.Port != nil && port.Name != nil && svc.HealthPort.Name != "" && svc.HealthPort.Name == *port.Name && svc.Port.Name != svc.HealthPort.Name {
				healthPort = *port.Port
			}
		}
		for _, ep := range slice.Endpoints {
			if len(ep.Addresses) == 0 || (ep.Conditions.Ready != nil && !*ep.Conditions.Ready) {
				continue
			}
			for _, port := range slice.Ports {
				if !slicePortMatches(port, svc.Port) {
					continue
				}
				hp := hostPort{ep.Addresses[0], *port.Port}
				if !seen[hp] {
					seen[hp] = true
					hosts = append(hosts, hp)
				}
			}
		}
	}
	if len(hosts) == 0 {
		return cla
	}
	// Contour's order depends on map iteration; contourc sorts by address.
	sort.Slice(hosts, func(i, j int) bool {
		if hosts[i].addr != hosts[j].addr {
			return hosts[i].addr < hosts[j].addr
		}
		return hosts[i].port < hosts[j].port
	})
	locality := &endpointv3.LocalityLbEndpoints{LoadBalancingWeight: wrapperspb.UInt32(max(svc.LocalityWeight, 1))}
	for _, hp := range hosts {
		ep := lbEndpoint(hp.addr, uint32(hp.port))
		if healthPort > 0 {
			ep.GetEndpoint().HealthCheckConfig = &endpointv3.Endpoint_HealthCheckConfig{PortValue: uint32(healthPort)}
		}
		locality.LbEndpoints = append(locality.LbEndpoints, ep)
	}
	cla.Endpoints = []*endpointv3.LocalityLbEndpoints{locality}
	return cla
}

// slicePortMatches says whether an EndpointSlice port serves a Service port.
// A missing protocol is TCP, as the API server defaults it.
func slicePortMatches(p discoveryv1.EndpointPort, svcPort corev1.ServicePort) bool {
	if p.Port == nil || (p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP) {
		return false
	}
	return svcPort.Name == "" || p.Name == nil || *p.Name == svcPort.Name
}

// HasEndpoints says whether the input holds any EndpointSlice for svc.
func HasEndpoints(c *index.Index, svc *dag.Service) bool {
	return len(c.EndpointSlices(svc)) > 0
}

// DNSTarget is how a Service is resolved by DNS: <svc>.<ns>.svc.<domain>:<port>.
func DNSTarget(svc *dag.Service, domain string) string {
	return svc.Name + "." + svc.Namespace + ".svc." + domain + ":" + strconv.Itoa(int(svc.Port.Port))
}

// ExtensionLoadAssignment has one locality per target Service of an
// extension, weighted by the target's weight (all 1 when none is set; a
// zero weight among others is left unset).
func ExtensionLoadAssignment(e *dag.ExtensionCluster, c *index.Index) *endpointv3.ClusterLoadAssignment {
	cla := &endpointv3.ClusterLoadAssignment{ClusterName: e.ClusterName()}
	var total uint32
	for _, t := range e.Targets {
		total += t.Weight
	}
	for _, t := range e.Targets {
		endpoints := loadAssignment(t.Service, c.EndpointSlices(t.Service)).Endpoints
		if len(endpoints) == 0 {
			continue
		}
		weight := t.Weight
		if total == 0 {
			weight = 1
		}
		locality := endpoints[0]
		locality.LoadBalancingWeight = nil
		if weight > 0 {
			locality.LoadBalancingWeight = wrapperspb.UInt32(weight)
		}
		cla.Endpoints = append(cla.Endpoints, locality)
	}
	return cla
}
