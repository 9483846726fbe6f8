package render

import (
	"strings"
	"testing"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
)

func TestCheckBootstrapReferences(t *testing.T) {
	tests := map[string]struct {
		change func(b *bootstrapv3.Bootstrap)
		want   []string
	}{
		"missing clusters": {
			change: func(b *bootstrapv3.Bootstrap) { b.StaticResources.Clusters = nil },
			want: []string{
				`weighted cluster refers to unknown cluster "` + emptyCluster + `"`,
				`route refers to unknown cluster "` + wwwCluster + `"`,
				`listener "stats-health": ` + `filter_chains[0].filters["envoy.filters.network.http_connection_manager"].typed_config.route_config.virtual_hosts["backend"].routes[0].route: route refers to unknown cluster "envoy-admin"`,
			},
		},
		"missing secret": {
			change: func(b *bootstrapv3.Bootstrap) { b.StaticResources.Secrets = nil },
			want:   []string{`listener "ingress_https": `, `unknown secret "` + wwwSecret + `"`},
		},
		"duplicates": {
			change: func(b *bootstrapv3.Bootstrap) {
				sr := b.StaticResources
				sr.Secrets = append(sr.Secrets, sr.Secrets[0])
				sr.Listeners = append(sr.Listeners, sr.Listeners[0])
			},
			want: []string{`secret "` + wwwSecret + `" is defined more than once`, `listener "ingress_http" is defined more than once`},
		},
		"cluster's upstream TLS secret": {
			change: func(b *bootstrapv3.Bootstrap) {
				b.StaticResources.Clusters[0].TransportSocket = upstreamTLS(t, "default/client-cert/00")
			},
			want: []string{`cluster "` + emptyCluster + `": transport_socket.typed_config.common_tls_context.tls_certificate_sds_secret_configs["default/client-cert/00"]: unknown secret "default/client-cert/00"`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b, err := BuildBootstrap(testResources(t), BootstrapOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tc.change(b)
			err = CheckBootstrapReferences(b)
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// A cluster's client certificate, referenced over SDS as Contour does for
// upstream TLS, is made static and found in static_resources.secrets.
func TestBootstrapUpstreamTLSSecret(t *testing.T) {
	r := testResources(t)
	r.Clusters[1].TransportSocket = upstreamTLS(t, wwwSecret)
	b, err := BuildBootstrap(r, BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tls := unpack[*tlsv3.UpstreamTlsContext](t, b.GetStaticResources().GetClusters()[1].GetTransportSocket().GetTypedConfig())
	if ref := tls.GetCommonTlsContext().GetTlsCertificateSdsSecretConfigs()[0]; ref.GetName() != wwwSecret || ref.GetSdsConfig() != nil {
		t.Errorf("secret reference = %v", ref)
	}
}
