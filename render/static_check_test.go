package render

import (
	"strings"
	"testing"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
)

// CheckStatic finds each kind of xDS leftover, also inside typed configs,
// and says where it is.
func TestCheckStaticFindsLeftovers(t *testing.T) {
	tests := map[string]struct {
		change func(t *testing.T, b *bootstrapv3.Bootstrap)
		want   string
	}{
		"sds_config in a TLS context": {
			change: func(t *testing.T, b *bootstrapv3.Bootstrap) {
				ts := b.StaticResources.Listeners[1].FilterChains[0].TransportSocket
				repack(t, ts.GetTypedConfig(), func(tls *tlsv3.DownstreamTlsContext) {
					tls.CommonTlsContext.TlsCertificateSdsSecretConfigs[0].SdsConfig = xdsSource()
				})
			},
			want: `static_resources.listeners["ingress_https"].filter_chains[0].transport_socket.typed_config.common_tls_context.tls_certificate_sds_secret_configs["` + wwwSecret + `"]: secret "` + wwwSecret + `" is fetched over SDS`,
		},
		"rds in an HCM": {
			change: func(t *testing.T, b *bootstrapv3.Bootstrap) {
				repack(t, b.StaticResources.Listeners[0].FilterChains[0].Filters[0].GetTypedConfig(), func(hcm *hcmv3.HttpConnectionManager) {
					hcm.RouteSpecifier = &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{RouteConfigName: "ingress_http"}}
				})
			},
			want: `http_connection_manager "ingress_http" has no inline route_config`,
		},
		"EDS cluster": {
			change: func(t *testing.T, b *bootstrapv3.Bootstrap) {
				b.StaticResources.Clusters[1] = edsCluster(wwwCluster, "default/www")
			},
			want: `static_resources.clusters["` + wwwCluster + `"]: cluster "` + wwwCluster + `" uses EDS`,
		},
		"config source anywhere": {
			change: func(t *testing.T, b *bootstrapv3.Bootstrap) {
				b.StaticResources.Clusters[1].LrsServer = xdsSource()
			},
			want: `clusters["` + wwwCluster + `"].lrs_server: xDS config source`,
		},
		"RTDS layer": {
			change: func(t *testing.T, b *bootstrapv3.Bootstrap) {
				b.LayeredRuntime.Layers[0].LayerSpecifier = &bootstrapv3.RuntimeLayer_RtdsLayer_{
					RtdsLayer: &bootstrapv3.RuntimeLayer_RtdsLayer{Name: "dynamic"},
				}
			},
			want: `runtime layer "dynamic" uses RTDS`,
		},
		"dynamic_resources": {
			change: func(t *testing.T, b *bootstrapv3.Bootstrap) {
				b.DynamicResources = &bootstrapv3.Bootstrap_DynamicResources{}
			},
			want: "dynamic_resources is set",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b, err := BuildBootstrap(testResources(t), BootstrapOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckStatic(b); err != nil {
				t.Fatalf("before the change: %v", err)
			}
			tc.change(t, b)
			err = CheckStatic(b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A cluster that never used EDS passes through untouched.
func TestStaticClusterKept(t *testing.T) {
	r := testResources(t)
	dns := &clusterv3.Cluster{
		Name:                 "default/external/443/da39a3ee5e",
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STRICT_DNS},
		ConnectTimeout:       r.Clusters[0].ConnectTimeout,
		LoadAssignment:       loadAssignment("default/external/443/da39a3ee5e", "external.example.com"),
	}
	r.Clusters = append(r.Clusters, dns)
	b, err := BuildBootstrap(r, BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range b.GetStaticResources().GetClusters() {
		if c.GetName() == dns.GetName() && c.GetType() != clusterv3.Cluster_STRICT_DNS {
			t.Errorf("STRICT_DNS cluster became %v", c.GetType())
		}
	}
}
