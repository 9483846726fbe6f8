package translate

import (
	"github.com/contourc/contourc/translate/envoy"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	runtimev3 "github.com/envoyproxy/go-control-plane/envoy/service/runtime/v3"
)

// Resources are the xDS resources Contour would serve, each list sorted by
// resource name (ClusterLoadAssignments by cluster_name), as Contour's caches
// sort them.
type Resources struct {
	Listeners    []*listenerv3.Listener
	RouteConfigs []*routev3.RouteConfiguration
	Clusters     []*clusterv3.Cluster
	Endpoints    []*endpointv3.ClusterLoadAssignment
	Secrets      []*tlsv3.Secret
	Runtimes     []*runtimev3.Runtime
	// Unpacked, when set, holds the messages of the biggest typed configs
	// in the resources above, for renderers (see Unpacked).
	Unpacked *Unpacked
}

// Unpacked is envoy.Unpacked: the messages of the biggest typed configs,
// kept for renderers.
type Unpacked = envoy.Unpacked
