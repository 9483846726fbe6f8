package render

// The static_resources.clusters of a static bootstrap: EDS clusters become
// clusters that carry their endpoints inline.

import (
	"net/netip"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	"google.golang.org/protobuf/proto"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/render/internal/protowalk"
)

// staticClusters returns copies of clusters, sorted by name, each EDS cluster
// given its endpoints inline and every secret reference made static.
// leftOut is the load assignments no cluster took. The clusters are
// copied and inlined on every CPU (on one, 70 ms of `-o yaml` at 5,000
// HTTPProxies); the error is the first cluster's in name order. When
// decoded lets the bootstrap share the resources' messages, a cluster's
// copy, and its endpoints', is of its own fields alone, and its typed
// configs' rewrites go to decoded: copying each whole was 4% of `-o
// yaml`'s CPU at 5,000 HTTPProxies.
func staticClusters(clusters []*clusterv3.Cluster, endpoints []*endpointv3.ClusterLoadAssignment, decoded *protowalk.Decoded) (out []*clusterv3.Cluster, leftOut []proto.Message, err error) {
	clas := loadAssignmentsByName(endpoints)
	sorted := sortedByName(clusters, (*clusterv3.Cluster).GetName)
	out = make([]*clusterv3.Cluster, len(sorted), len(sorted)+1)
	services := make([]string, len(sorted)) // the service of each EDS cluster
	errs := make([]error, len(sorted))
	shared := decoded.SharesResources()
	par.Workers(len(sorted), func() func(int) {
		in := &inliner{} // a memo per worker
		if shared {
			in.decoded = decoded
		}
		return func(i int) {
			c := protowalk.CopyOf(sorted[i], shared)
			if c.GetType() == clusterv3.Cluster_EDS {
				services[i] = inlineEndpoints(c, clas, shared)
			}
			if err := in.inline(c); err != nil {
				errs[i] = &ResourceError{Kind: "cluster", Name: c.GetName(), Err: err}
			}
			out[i] = c
		}
	})
	if bad := nonNil(errs); len(bad) > 0 {
		return nil, nil, bad[0]
	}
	taken := make(map[string]bool, len(services))
	for _, service := range services {
		if service != "" {
			taken[service] = true
		}
	}
	for _, cla := range endpoints {
		if !taken[cla.GetClusterName()] || clas[cla.GetClusterName()] != cla {
			leftOut = append(leftOut, cla)
		}
	}
	return out, leftOut, nil
}

// inlineEndpoints turns EDS cluster c into one with a load_assignment: a
// copy of the ClusterLoadAssignment EDS would have served it, renamed to the
// cluster as Envoy expects of an inline one. Several clusters (one per set of
// upstream options) can share a service, hence the copy. With no assignment
// to copy the cluster gets an empty one: Envoy accepts that, and answers 503
// for it, as it does for an EDS cluster whose service has no endpoints.
// It returns the service name it looked the assignment up by. shared is
// staticClusters'.
func inlineEndpoints(c *clusterv3.Cluster, clas map[string]*endpointv3.ClusterLoadAssignment, shared bool) string {
	// Envoy's default: the service name is the cluster name.
	service := c.GetEdsClusterConfig().GetServiceName()
	if service == "" {
		service = c.GetName()
	}
	cla := &endpointv3.ClusterLoadAssignment{}
	if found, ok := clas[service]; ok {
		cla = protowalk.CopyOf(found, shared)
	}
	cla.ClusterName = c.GetName()
	c.EdsClusterConfig = nil
	c.LoadAssignment = cla
	c.ClusterDiscoveryType = &clusterv3.Cluster_Type{Type: discoveryTypeFor(cla)}
	return service
}

// discoveryTypeFor is STATIC when every endpoint is an IP address (or a Unix
// socket), which is all EDS serves in Contour. Envoy refuses host names in a
// STATIC cluster, so any other assignment gets STRICT_DNS, which resolves
// them and treats IP addresses as themselves.
func discoveryTypeFor(cla *endpointv3.ClusterLoadAssignment) clusterv3.Cluster_DiscoveryType {
	for _, locality := range cla.GetEndpoints() {
		for _, lb := range locality.GetLbEndpoints() {
			sa := lb.GetEndpoint().GetAddress().GetSocketAddress()
			if sa == nil {
				continue
			}
			if _, err := netip.ParseAddr(sa.GetAddress()); err != nil {
				return clusterv3.Cluster_STRICT_DNS
			}
		}
	}
	return clusterv3.Cluster_STATIC
}

// loadAssignmentsByName indexes assignments by cluster_name, which for EDS is
// the service name; if two share one the first wins.
func loadAssignmentsByName(clas []*endpointv3.ClusterLoadAssignment) map[string]*endpointv3.ClusterLoadAssignment {
	m := make(map[string]*endpointv3.ClusterLoadAssignment, len(clas))
	for _, cla := range clas {
		if _, ok := m[cla.GetClusterName()]; !ok {
			m[cla.GetClusterName()] = cla
		}
	}
	return m
}
