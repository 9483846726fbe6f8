package routetest

import (
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
)

// The readings of Contour's Envoy resources that other views of them
// (render/graph) share with request matching.

// DescribeMatch is a route's match for humans, as decisions print it.
func DescribeMatch(m *routev3.RouteMatch) string { return describeMatch(m) }

// ClusterTarget is what a cluster of Contour's stands for: a Service port,
// an ExtensionService, or neither (nil, nil).
func ClusterTarget(cl *clusterv3.Cluster) (*ServiceRef, *ObjectRef) { return clusterTarget(cl) }

// RouteObject is the object a route was generated from, by the metadata
// Contour puts on every route; ok is false when the route has none.
func RouteObject(md *corev3.Metadata) (key ObjectKey, ok bool) {
	f := md.GetFilterMetadata()[routeMetadataKey].GetFields()
	key = ObjectKey{f[metadataKind].GetStringValue(), f[metadataNamespace].GetStringValue(), f[metadataObjectName].GetStringValue()}
	return key, key.Kind != ""
}
