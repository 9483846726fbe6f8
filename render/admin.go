package render

// Envoy's admin interface in a static bootstrap.
//
// Contour starts Envoy with the admin interface on a Unix socket and serves
// an `envoy-admin` listener on 127.0.0.1:9001 that proxies a read-only subset
// of admin paths to it, through a bootstrap cluster also named `envoy-admin`;
// the `stats-health` listener routes /ready and /stats to that cluster too.
// contourc's bootstrap instead puts the admin interface itself on
// 127.0.0.1:9001: a user running `envoy -c` by hand expects the admin page
// where Contour's docs say it is, and a Unix socket path would have to exist
// on their machine. The admin interface and the envoy-admin listener cannot
// both bind that address, so the listener is dropped (it would only proxy to
// the same interface), and the envoy-admin cluster points at the admin
// address so stats-health keeps working. Both still listen on loopback only,
// as in Contour, but unlike Contour the whole admin interface, mutating
// endpoints (/quitquitquit, /runtime_modify) included, is reachable there:
// what someone debugging a local Envoy wants. With BootstrapOptions moving
// the admin interface elsewhere, the envoy-admin listener is kept and
// proxies to it as in Contour.

import (
	"time"

	accesslogv3 "github.com/envoyproxy/go-control-plane/envoy/config/accesslog/v3"
	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	filev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/file/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// adminClusterName is the cluster Contour's stats-health and envoy-admin
// listeners route admin paths to.
const adminClusterName = "envoy-admin"

// adminInterface is Envoy's admin server on addr; its access log goes to
// /dev/null as in Contour's bootstrap, since health probes would flood it.
// AdminInterface is Envoy's admin interface on addr, with its access log
// sent nowhere (health probes would flood it), as in Contour's bootstrap.
func AdminInterface(addr *corev3.Address) *bootstrapv3.Admin {
	return &bootstrapv3.Admin{
		Address: addr,
		AccessLog: []*accesslogv3.AccessLog{{
			Name: "envoy.access_loggers.file",
			ConfigType: &accesslogv3.AccessLog_TypedConfig{
				TypedConfig: fileAccessLog("/dev/null"),
			},
		}},
	}
}

// withAdminCluster adds the STATIC envoy-admin cluster pointing at the admin
// interface, unless the resources already have a cluster of that name, and
// keeps clusters sorted by name.
func withAdminCluster(clusters []*clusterv3.Cluster, admin *corev3.Address) []*clusterv3.Cluster {
	for _, c := range clusters {
		if c.GetName() == adminClusterName {
			return clusters
		}
	}
	clusters = append(clusters, AdminCluster(admin))
	return sortedByName(clusters, (*clusterv3.Cluster).GetName)
}

// AdminCluster is the envoy-admin cluster: a STATIC cluster reaching the
// admin interface at admin.
func AdminCluster(admin *corev3.Address) *clusterv3.Cluster {
	return &clusterv3.Cluster{
		Name:                 adminClusterName,
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STATIC},
		// Contour's bootstrap value: the admin server is local and
		// either answers at once or not at all.
		ConnectTimeout: durationpb.New(250 * time.Millisecond),
		LoadAssignment: &endpointv3.ClusterLoadAssignment{
			ClusterName: adminClusterName,
			Endpoints: []*endpointv3.LocalityLbEndpoints{{
				LbEndpoints: []*endpointv3.LbEndpoint{{
					HostIdentifier: &endpointv3.LbEndpoint_Endpoint{
						Endpoint: &endpointv3.Endpoint{Address: proto.Clone(admin).(*corev3.Address)},
					},
				}},
			}},
		},
	}
}

// bindsAddress reports whether l listens on exactly addr's socket address.
func bindsAddress(l *listenerv3.Listener, addr *corev3.Address) bool {
	a, b := l.GetAddress().GetSocketAddress(), addr.GetSocketAddress()
	return a != nil && b != nil &&
		a.GetAddress() == b.GetAddress() && a.GetPortValue() == b.GetPortValue()
}

func socketAddress(address string, port uint32) *corev3.Address {
	return &corev3.Address{
		Address: &corev3.Address_SocketAddress{
			SocketAddress: &corev3.SocketAddress{
				Address:       address,
				PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: port},
			},
		},
	}
}

// fileAccessLog is the typed config of a file access log to path. Packing a
// message built here can only fail on a bug in this package.
func fileAccessLog(path string) *anypb.Any {
	a, err := anypb.New(&filev3.FileAccessLog{Path: path})
	if err != nil {
		panic(err)
	}
	return a
}
