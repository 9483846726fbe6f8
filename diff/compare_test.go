package diff

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/contourc/contourc/translate"
)

// selfSigned returns a PEM certificate for cn valid until notAfter, and
// its key as PEM.
func selfSigned(t *testing.T, cn string, notAfter time.Time) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, DNSNames: []string{cn},
		NotBefore: notAfter.AddDate(-1, 0, 0), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd})
}

func inlineBytes(b []byte) *corev3.DataSource {
	return &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: b}}
}

func tlsSecret(name string, cert, key []byte) *tlsv3.Secret {
	return &tlsv3.Secret{Name: name, Type: &tlsv3.Secret_TlsCertificate{TlsCertificate: &tlsv3.TlsCertificate{
		CertificateChain: inlineBytes(cert), PrivateKey: inlineBytes(key)}}}
}

// listenerWithInlineKey is a listener whose TLS context holds a key inline,
// inside an Any inside an Any.
func listenerWithInlineKey(t *testing.T, key []byte) *listenerv3.Listener {
	ctx := &tlsv3.DownstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{
		TlsCertificates: []*tlsv3.TlsCertificate{{PrivateKey: inlineBytes(key)}}}}
	return &listenerv3.Listener{Name: "l", FilterChains: []*listenerv3.FilterChain{{
		TransportSocket: &corev3.TransportSocket{Name: "tls", ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(t, ctx)}},
	}}}
}

func TestRedact(t *testing.T) {
	cert, key := selfSigned(t, "a.example.com", time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
	in := &translate.Resources{
		Secrets:   []*tlsv3.Secret{tlsSecret("s", cert, key)},
		Listeners: []*listenerv3.Listener{listenerWithInlineKey(t, key)},
	}
	before := proto.Clone(in.Secrets[0])
	out := Redact(in)
	if !proto.Equal(in.Secrets[0], before) {
		t.Error("Redact changed its input")
	}
	for _, m := range []proto.Message{out.Secrets[0], out.Listeners[0]} {
		b, err := protojson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), Redacted) {
			t.Errorf("%s has no redacted key:\n%s", m.ProtoReflect().Descriptor().FullName(), b)
		}
		for _, leak := range []string{string(key), "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0t"} {
			if strings.Contains(string(b), leak) {
				t.Errorf("%s still holds the key:\n%s", m.ProtoReflect().Descriptor().FullName(), b)
			}
		}
	}
	if got := out.Secrets[0].GetTlsCertificate().GetCertificateChain().GetInlineBytes(); string(got) != string(cert) {
		t.Error("the certificate was redacted too")
	}
}

func TestCertInfo(t *testing.T) {
	notAfter := time.Date(2100, 1, 2, 0, 0, 0, 0, time.UTC)
	cert, key := selfSigned(t, "a.example.com", notAfter)
	// A key in the bundle is skipped, not parsed.
	info := certInfo(inlineBytes(append(append([]byte{}, key...), cert...)))
	block, _ := pem.Decode(cert)
	c, _ := x509.ParseCertificate(block.Bytes)
	if info.Error != "" || info.Subject != "CN=a.example.com" || !info.NotAfter.Equal(notAfter) || info.Count != 1 ||
		!reflect.DeepEqual(info.DNSNames, []string{"a.example.com"}) || len(info.SHA256) != 64 {
		t.Errorf("certInfo() = %+v (certificate %v)", info, c.Subject)
	}
	if want := "sha256:" + info.SHA256[:16] + " CN=a.example.com dns:a.example.com expires 2100-01-02"; info.String() != want {
		t.Errorf("String() = %q, want %q", info.String(), want)
	}
	if bad := certInfo(inlineBytes([]byte("not PEM"))); bad.Error == "" {
		t.Errorf("certInfo(garbage) = %+v, want an error", bad)
	}
}

// TestRenames checks that a renamed cluster and a rotated secret are
// paired, and that the listener referring to the secret is not reported.
func TestRenames(t *testing.T) {
	certA, keyA := selfSigned(t, "a.example.com", time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
	certB, keyB := selfSigned(t, "a.example.com", time.Date(2101, 1, 1, 0, 0, 0, 0, time.UTC))
	sdsListener := func(secret string) *listenerv3.Listener {
		ctx := &tlsv3.DownstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{
			TlsCertificateSdsSecretConfigs: []*tlsv3.SdsSecretConfig{{Name: secret}}}}
		return &listenerv3.Listener{Name: "https", FilterChains: []*listenerv3.FilterChain{{
			TransportSocket: &corev3.TransportSocket{Name: "tls", ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(t, ctx)}},
		}}}
	}
	cluster := func(name string, lb clusterv3.Cluster_LbPolicy) *clusterv3.Cluster {
		return &clusterv3.Cluster{Name: name, AltStatName: "ns_svc_80", LbPolicy: lb}
	}
	old := Side{Resources: &translate.Resources{
		Listeners: []*listenerv3.Listener{sdsListener("ns/tls/aaaa")},
		Clusters:  []*clusterv3.Cluster{cluster("ns/svc/80/1111", clusterv3.Cluster_ROUND_ROBIN), {Name: "ns/other/80/1111", AltStatName: "ns_other_80"}},
		Secrets:   []*tlsv3.Secret{tlsSecret("ns/tls/aaaa", certA, keyA)},
	}}
	new := Side{Resources: &translate.Resources{
		Listeners: []*listenerv3.Listener{sdsListener("ns/tls/bbbb")},
		Clusters:  []*clusterv3.Cluster{cluster("ns/svc/80/2222", clusterv3.Cluster_RANDOM), {Name: "ns/third/80/1111", AltStatName: "ns_third_80"}},
		Secrets:   []*tlsv3.Secret{tlsSecret("ns/tls/bbbb", certB, keyB)},
	}}
	r := Compare(old, new)
	if len(r.Listeners) != 0 {
		t.Errorf("listener changes %+v, want none: the secret rename is reported once", r.Listeners)
	}
	wantClusters := []ClusterChange{
		{Op: Removed, Name: "ns/other/80/1111"},
		{Op: Changed, Name: "ns/svc/80/2222", OldName: "ns/svc/80/1111", Fields: []FieldChange{{Path: "lb_policy", Old: "ROUND_ROBIN", New: "RANDOM"}}},
		{Op: Added, Name: "ns/third/80/1111"},
	}
	for i := range r.Clusters {
		r.Clusters[i].Summary = ""
	}
	if !reflect.DeepEqual(r.Clusters, wantClusters) {
		t.Errorf("clusters:\n%+v\nwant\n%+v", r.Clusters, wantClusters)
	}
	if len(r.Secrets) != 1 || r.Secrets[0].OldName != "ns/tls/aaaa" || r.Secrets[0].Old.SHA256 == r.Secrets[0].New.SHA256 {
		t.Errorf("secrets: %+v", r.Secrets)
	}
}

// TestVirtualHostsByListener checks that route configurations are reported
// under the listeners that fetch them, and route order changes are seen.
func TestVirtualHostsByListener(t *testing.T) {
	rds := func(listener, rc string) *listenerv3.Listener {
		h := &hcmv3.HttpConnectionManager{RouteSpecifier: &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{RouteConfigName: rc}}}
		return &listenerv3.Listener{Name: listener, FilterChains: []*listenerv3.FilterChain{{Filters: []*listenerv3.Filter{
			{Name: "hcm", ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: mustAny(t, h)}}}}}}
	}
	route := func(prefix, cluster string) *routev3.Route {
		return &routev3.Route{
			Match:  &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: prefix}},
			Action: &routev3.Route_Route{Route: &routev3.RouteAction{ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: cluster}}},
		}
	}
	rc := func(name string, routes ...*routev3.Route) *routev3.RouteConfiguration {
		return &routev3.RouteConfiguration{Name: name, VirtualHosts: []*routev3.VirtualHost{{Name: "a.example.com", Routes: routes}}}
	}
	old := &translate.Resources{
		Listeners:    []*listenerv3.Listener{rds("http", "rc")},
		RouteConfigs: []*routev3.RouteConfiguration{rc("rc", route("/a", "x"), route("/b", "x")), rc("spare", route("/", "x"))},
	}
	new := &translate.Resources{
		Listeners:    []*listenerv3.Listener{rds("http", "rc")},
		RouteConfigs: []*routev3.RouteConfiguration{rc("rc", route("/b", "x"), route("/a", "y")), rc("spare", route("/", "z"))},
	}
	r := Compare(Side{Resources: old}, Side{Resources: new})
	if len(r.VirtualHosts) != 2 {
		t.Fatalf("virtual host changes: %+v", r.VirtualHosts)
	}
	spare, http := r.VirtualHosts[0], r.VirtualHosts[1]
	if spare.Listener != "" || spare.RouteConfig != "spare" || len(spare.Routes) != 1 {
		t.Errorf("unreferenced route configuration: %+v", spare)
	}
	if http.Listener != "http" || !http.OrderChanged || len(http.Routes) != 1 || http.Routes[0].Match != "prefix /a" ||
		http.Routes[0].Action != "y" || http.Routes[0].OldAction != "x" {
		t.Errorf("listener http: %+v", http)
	}
}

func TestDiffStatus(t *testing.T) {
	obj := func(name, verdict string, ok bool, reasons ...string) Object {
		return Object{Kind: "HTTPProxy", Namespace: "ns", Name: name, Source: name + ".yaml:1", Verdict: verdict, OK: ok, Reasons: reasons}
	}
	old := []Object{obj("breaks", "valid", true), obj("heals", "invalid", false, "r1"), obj("same", "invalid", false, "r"),
		obj("other", "invalid", false, "r1"), obj("gone", "orphaned", false, "o")}
	new := []Object{obj("breaks", "invalid", false, "r2"), obj("heals", "valid", true), obj("same", "invalid", false, "r"),
		obj("other", "invalid", false, "r2"), obj("appears", "NotAccepted", false, "n")}
	var got []string
	for _, c := range diffStatus(old, new) {
		got = append(got, string(c.Change)+" "+c.Name+" "+c.OldVerdict+"→"+c.NewVerdict)
	}
	want := []string{
		"invalid appears →NotAccepted", "invalid breaks valid→invalid",
		"reasons other invalid→invalid",
		"recovered gone orphaned→", "recovered heals invalid→valid",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diffStatus() =\n%q\nwant\n%q", got, want)
	}
}

// TestPrivateKeyOnlyChange checks that a secret whose key changes under the
// same certificate is reported by the public keys, and that the same key
// in another encoding (SEC 1 and PKCS#8) is no change.
func TestPrivateKeyOnlyChange(t *testing.T) {
	cert, key := selfSigned(t, "a.example.com", time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
	_, other := selfSigned(t, "a.example.com", time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
	side := func(k []byte) Side {
		return Side{Resources: &translate.Resources{Secrets: []*tlsv3.Secret{tlsSecret("ns/s/abc", cert, k)}}}
	}
	r := Compare(side(key), side(other))
	if len(r.Secrets) != 1 {
		t.Fatalf("secrets = %+v, want one change", r.Secrets)
	}
	s := r.Secrets[0]
	if s.OldKey == nil || s.NewKey == nil || !s.OldKey.MatchesCertificate || s.NewKey.MatchesCertificate ||
		s.OldKey.PublicKeySHA256 == s.NewKey.PublicKeySHA256 || s.OldKey.Error != "" || s.NewKey.Error != "" {
		t.Errorf("key change old %+v new %+v", s.OldKey, s.NewKey)
	}
	if len(s.Fields) != 0 {
		t.Errorf("the redacted key shows as fields too: %+v", s.Fields)
	}

	block, _ := pem.Decode(key)
	ec, err := x509.ParseECPrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	if r := Compare(side(key), side(pkcs8)); !r.Empty() {
		t.Errorf("the same key re-encoded is reported: %+v", r.Secrets)
	}

	// Keys that cannot be read still differ by their data, and say why.
	r = Compare(side([]byte("garbage one")), side([]byte("garbage two")))
	if len(r.Secrets) != 1 || r.Secrets[0].NewKey == nil || r.Secrets[0].NewKey.Error == "" {
		t.Errorf("unreadable keys: %+v", r.Secrets)
	}
	if r := Compare(side([]byte("garbage")), side([]byte("garbage"))); !r.Empty() {
		t.Errorf("the same unreadable key is reported: %+v", r.Secrets)
	}
}

// TestRedactedKeyNamesPublicKey checks the placeholder of a private key: it
// names the public key, so text diffs of redacted output differ when the
// key does.
func TestRedactedKeyNamesPublicKey(t *testing.T) {
	cert, key := selfSigned(t, "a.example.com", time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
	out := Redact(&translate.Resources{Secrets: []*tlsv3.Secret{tlsSecret("s", cert, key)}})
	got := out.Secrets[0].GetTlsCertificate().GetPrivateKey().GetInlineString()
	want := Redacted + " private key of public key sha256:" + keyInfo(inlineBytes(key), nil).PublicKeySHA256[:16]
	if got != want {
		t.Errorf("placeholder %q, want %q", got, want)
	}
	out = Redact(&translate.Resources{Secrets: []*tlsv3.Secret{tlsSecret("s", cert, []byte("not a key"))}})
	if got := out.Secrets[0].GetTlsCertificate().GetPrivateKey().GetInlineString(); got != Redacted {
		t.Errorf("placeholder of an unreadable key %q, want %q", got, Redacted)
	}
}
