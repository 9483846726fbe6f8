package diff

import (
	"fmt"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// diffClusters compares clusters by name, old names already rewritten
// where Contour renamed a cluster (was maps them back).
func diffClusters(old, new []*clusterv3.Cluster, was map[string]string) []ClusterChange {
	olds, news := byName(old, (*clusterv3.Cluster).GetName), byName(new, (*clusterv3.Cluster).GetName)
	var out []ClusterChange
	for _, name := range unionKeys(olds, news) {
		o, n := olds[name], news[name]
		switch {
		case o == nil:
			out = append(out, ClusterChange{Op: Added, Name: name, Summary: clusterSummary(n)})
		case n == nil:
			out = append(out, ClusterChange{Op: Removed, Name: name, Summary: clusterSummary(o)})
		default:
			fields := fieldDiff(o, n)
			if len(fields) == 0 && was[name] == "" {
				continue
			}
			out = append(out, ClusterChange{Op: Changed, Name: name, OldName: was[name], Summary: clusterSummary(n), Fields: fields})
		}
	}
	return out
}

// clusterSummary says in a few words where a cluster sends traffic: its
// discovery type and EDS service or DNS names, and its load balancing
// policy when not Envoy's default.
func clusterSummary(c *clusterv3.Cluster) string {
	parts := []string{c.GetType().String()}
	if c.GetClusterType() != nil {
		parts[0] = c.GetClusterType().GetName()
	}
	if svc := c.GetEdsClusterConfig().GetServiceName(); svc != "" {
		parts = append(parts, svc)
	}
	for _, lle := range c.GetLoadAssignment().GetEndpoints() {
		for _, lb := range lle.GetLbEndpoints() {
			if a := endpointAddress(lb); a != "" {
				parts = append(parts, a)
			}
		}
	}
	if p := c.GetLbPolicy(); p != clusterv3.Cluster_ROUND_ROBIN {
		parts = append(parts, p.String())
	}
	return strings.Join(parts, " ")
}

// withoutField returns a copy of m with the named top-level fields
// cleared, for comparing the rest of a message.
func withoutField[T proto.Message](m T, names ...string) T {
	c := proto.Clone(m).(T)
	r := c.ProtoReflect()
	for _, n := range names {
		fd := r.Descriptor().Fields().ByName(protoreflect.Name(n))
		if fd == nil {
			panic(fmt.Sprintf("diff: %s has no field %s", r.Descriptor().FullName(), n))
		}
		r.Clear(fd)
	}
	return c
}
