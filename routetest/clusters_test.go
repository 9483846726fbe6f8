package routetest

import (
	"reflect"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"

	"github.com/contourc/contourc/translate"
)

func edsCluster(name, alt, service string) *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: name, AltStatName: alt, EdsClusterConfig: &clusterv3.Cluster_EdsClusterConfig{ServiceName: service}}
}

func TestClusterTarget(t *testing.T) {
	c := New(&translate.Resources{Clusters: []*clusterv3.Cluster{
		edsCluster("default/kuard/80/da39a3ee5e", "default_kuard_80", "default/kuard/http"),
		edsCluster("default/plain/8080/da39a3ee5e", "default_plain_8080", "default/plain"),
		// Long names are shortened with a hash: the name is not parsed.
		edsCluster("a-very-long-namespace/a-very-long-servi-1a2b3c/443/da39a3ee5e", "a-very-long-namespace_a-very-long-service-name-that-is-long_443",
			"a-very-long-namespace/a-very-long-service-name-that-is-long/https"),
		edsCluster("extension/auth/authz", "extension_auth_authz", "extension/auth/authz"),
		{Name: "dns/svc/80/hash", AltStatName: "ns_svc_80", LoadAssignment: &endpointv3.ClusterLoadAssignment{ClusterName: "ns/svc/web"}},
		{Name: "envoy-admin"},
	}}, nil)
	tests := []struct {
		name string
		want ClusterRef
	}{
		{"default/kuard/80/da39a3ee5e", ClusterRef{Name: "default/kuard/80/da39a3ee5e", Service: &ServiceRef{"default", "kuard", 80, "http"}}},
		{"default/plain/8080/da39a3ee5e", ClusterRef{Name: "default/plain/8080/da39a3ee5e", Service: &ServiceRef{"default", "plain", 8080, ""}}},
		{"a-very-long-namespace/a-very-long-servi-1a2b3c/443/da39a3ee5e", ClusterRef{Name: "a-very-long-namespace/a-very-long-servi-1a2b3c/443/da39a3ee5e",
			Service: &ServiceRef{"a-very-long-namespace", "a-very-long-service-name-that-is-long", 443, "https"}}},
		{"extension/auth/authz", ClusterRef{Name: "extension/auth/authz", ExtensionService: &ObjectRef{"auth", "authz"}}},
		{"dns/svc/80/hash", ClusterRef{Name: "dns/svc/80/hash", Service: &ServiceRef{"ns", "svc", 80, "web"}}},
		{"envoy-admin", ClusterRef{Name: "envoy-admin"}},
		{"no/such/cluster", ClusterRef{Name: "no/such/cluster", Missing: true}},
	}
	for _, tt := range tests {
		if got := c.cluster(tt.name); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("cluster(%s) = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
