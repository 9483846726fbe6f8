package serve

import (
	"path/filepath"
	"strings"
	"testing"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func clusterNamed(b *bootstrapv3.Bootstrap, name string) *clusterv3.Cluster {
	for _, c := range b.GetStaticResources().GetClusters() {
		if c.GetName() == name {
			return c
		}
	}
	return nil
}

func TestBootstrapDefaults(t *testing.T) {
	b, err := Bootstrap(BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dr := b.GetDynamicResources()
	if g := dr.GetAdsConfig().GetGrpcServices(); len(g) != 1 || g[0].GetEnvoyGrpc().GetClusterName() != "contour" {
		t.Errorf("ads_config = %v", dr.GetAdsConfig())
	}
	if dr.GetLdsConfig().GetAds() == nil || dr.GetCdsConfig().GetAds() == nil {
		t.Errorf("LDS or CDS not over ADS: %v", dr)
	}
	xds := clusterNamed(b, "contour")
	if xds.GetType() != clusterv3.Cluster_STATIC {
		t.Errorf("xDS cluster type %v", xds.GetType())
	}
	sa := xds.GetLoadAssignment().GetEndpoints()[0].GetLbEndpoints()[0].GetEndpoint().GetAddress().GetSocketAddress()
	if sa.GetAddress() != "127.0.0.1" || sa.GetPortValue() != 8001 {
		t.Errorf("xDS address %v", sa)
	}
	if _, ok := xds.GetTypedExtensionProtocolOptions()["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]; !ok {
		t.Error("the xDS cluster does not speak HTTP/2")
	}
	if admin := b.GetAdmin().GetAddress().GetSocketAddress(); admin.GetAddress() != "127.0.0.1" || admin.GetPortValue() != 9001 {
		t.Errorf("admin %v", admin)
	}
	layers := b.GetLayeredRuntime().GetLayers()
	if len(layers) != 2 || layers[0].GetRtdsLayer().GetName() != "dynamic" || layers[0].GetRtdsLayer().GetRtdsConfig().GetAds() == nil {
		t.Errorf("runtime layers %v", layers)
	}
	if b.GetOverloadManager() != nil {
		t.Error("an overload manager without --overload-max-heap")
	}
}

func TestBootstrapOptions(t *testing.T) {
	dir := t.TempDir()
	files := TLSFiles{CAFile: filepath.Join(dir, "ca"), CertFile: filepath.Join(dir, "crt"), KeyFile: filepath.Join(dir, "key")}
	for _, f := range []string{files.CAFile, files.CertFile, files.KeyFile} {
		writeFile(t, f, "pem")
	}
	b, err := Bootstrap(BootstrapOptions{
		XDSAddress: "contourc.internal", XDSPort: 18001, DNSLookupFamily: "v4",
		AdminPort: 19001, NodeID: "edge-1", TLS: &files, OverloadMaxHeap: 1 << 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	xds := clusterNamed(b, "contour")
	if xds.GetType() != clusterv3.Cluster_STRICT_DNS || xds.GetDnsLookupFamily() != clusterv3.Cluster_V4_ONLY {
		t.Errorf("xDS cluster %v %v", xds.GetType(), xds.GetDnsLookupFamily())
	}
	var ctx tlsv3.UpstreamTlsContext
	if err := xds.GetTransportSocket().GetTypedConfig().UnmarshalTo(&ctx); err != nil {
		t.Fatal(err)
	}
	if got := ctx.GetCommonTlsContext().GetTlsCertificates()[0].GetPrivateKey().GetFilename(); got != files.KeyFile {
		t.Errorf("key file %q", got)
	}
	if b.GetNode().GetId() != "edge-1" || b.GetNode().GetCluster() != "contourc" {
		t.Errorf("node %v", b.GetNode())
	}
	if om := b.GetOverloadManager(); om == nil || len(om.GetActions()) != 2 {
		t.Errorf("overload manager %v", om)
	}
	if p := clusterNamed(b, "envoy-admin").GetLoadAssignment().GetEndpoints()[0].GetLbEndpoints()[0].GetEndpoint().GetAddress().GetSocketAddress().GetPortValue(); p != 19001 {
		t.Errorf("envoy-admin cluster port %d", p)
	}
}

func TestBootstrapErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	writeFile(t, empty, "")
	full := filepath.Join(dir, "full")
	writeFile(t, full, "pem")
	for _, tt := range []struct {
		name string
		o    BootstrapOptions
		want string
	}{
		{"admin name", BootstrapOptions{AdminAddress: "localhost"}, "not an IP address"},
		{"DNS family", BootstrapOptions{DNSLookupFamily: "v5"}, "invalid DNS lookup family"},
		{"missing file", BootstrapOptions{TLS: &TLSFiles{CAFile: full, CertFile: full, KeyFile: filepath.Join(dir, "nope")}}, "no such file"},
		{"empty file", BootstrapOptions{TLS: &TLSFiles{CAFile: full, CertFile: empty, KeyFile: full}}, "is empty"},
		{"two of three", BootstrapOptions{TLS: &TLSFiles{CAFile: full, CertFile: full}}, "all three or none"},
	} {
		if _, err := Bootstrap(tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestBootstrapMatchesServedResources checks the bootstrap against what
// serve sends an ADS client: every cluster a served route or listener
// names is served or in the bootstrap, and the runtime layer is served.
func TestBootstrapMatchesServedResources(t *testing.T) {
	b, err := Bootstrap(BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := translatedFor(t, copyExamples(t), ConfigSourceADS)
	forConfigSource(r, ConfigSourceADS)
	clusters := map[string]bool{}
	for _, c := range b.GetStaticResources().GetClusters() {
		clusters[c.GetName()] = true
	}
	for _, c := range r.Clusters {
		clusters[c.GetName()] = true
	}
	named := func(m protoreflect.Message) bool {
		switch msg := m.Interface().(type) {
		case *routev3.RouteAction:
			if n := msg.GetCluster(); n != "" && !clusters[n] {
				t.Errorf("a route names cluster %q, which is nowhere", n)
			}
		case *hcmv3.HttpConnectionManager:
			if msg.GetRds() != nil && msg.GetRds().GetConfigSource().GetAds() == nil {
				t.Errorf("%s: RDS not over ADS", msg.GetStatPrefix())
			}
		}
		return false
	}
	for _, l := range r.Listeners {
		if _, err := rewrite(l, named); err != nil {
			t.Fatal(err)
		}
	}
	for _, rc := range r.RouteConfigs {
		if _, err := rewrite(rc, named); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.Runtimes) != 1 || r.Runtimes[0].GetName() != b.GetLayeredRuntime().GetLayers()[0].GetRtdsLayer().GetName() {
		t.Errorf("served runtimes %v", r.Runtimes)
	}
}
