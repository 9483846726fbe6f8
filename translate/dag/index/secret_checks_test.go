package index

import (
	"runtime"
	"slices"
	"testing"

	"github.com/contourc/contourc/translate/internal/testpki"
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Only the Secrets named as serving certificates are checked ahead: a
// corpus of unreferenced certificates costs nothing.
func TestServingSecretNames(t *testing.T) {
	other := gatewayv1.Namespace("other")
	objs := []metav1.Object{
		testpki.TLSSecret(t, "ns", "proxy-cert"),
		testpki.TLSSecret(t, "other", "delegated-cert"),
		testpki.TLSSecret(t, "ns", "ingress-cert"),
		testpki.TLSSecret(t, "other", "gateway-cert"),
		testpki.TLSSecret(t, "ns", "unreferenced"),
		testpki.Secret("ns", "opaque", corev1.SecretTypeOpaque, nil),
		&contourv1.HTTPProxy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}, Spec: contourv1.HTTPProxySpec{
			VirtualHost: &contourv1.VirtualHost{Fqdn: "a.example.com", TLS: &contourv1.TLS{SecretName: "proxy-cert"}}}},
		&contourv1.HTTPProxy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"}, Spec: contourv1.HTTPProxySpec{
			VirtualHost: &contourv1.VirtualHost{Fqdn: "b.example.com", TLS: &contourv1.TLS{SecretName: "other/delegated-cert"}}}},
		&contourv1.HTTPProxy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}, Spec: contourv1.HTTPProxySpec{
			VirtualHost: &contourv1.VirtualHost{Fqdn: "c.example.com", TLS: &contourv1.TLS{SecretName: "opaque"}}}},
		&networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ing"}, Spec: networkingv1.IngressSpec{
			TLS: []networkingv1.IngressTLS{{SecretName: "ingress-cert"}, {SecretName: "missing"}}}},
		&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "gw", Name: "edge"}, Spec: gatewayv1.GatewaySpec{
			Listeners: []gatewayv1.Listener{{Name: "https", TLS: &gatewayv1.ListenerTLSConfig{
				CertificateRefs: []gatewayv1.SecretObjectReference{{Namespace: &other, Name: "gateway-cert"}},
			}}}}},
	}
	c := New(mkObjects(t, objs...), Options{})
	want := []types.NamespacedName{ // in the order they are first named
		{Namespace: "ns", Name: "proxy-cert"},
		{Namespace: "other", Name: "delegated-cert"},
		{Namespace: "ns", Name: "ingress-cert"},
		{Namespace: "other", Name: "gateway-cert"},
	}
	if got := c.servingSecretNames(); !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// TestCheckingAheadOnlyWithoutVerdicts checks that serving certificates
// are checked ahead in a first translation, and not after one with the
// same Memo, whose verdicts are remembered.
func TestCheckingAheadOnlyWithoutVerdicts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	objs := mkObjects(t, testpki.TLSSecret(t, "ns", "cert"),
		&contourv1.HTTPProxy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}, Spec: contourv1.HTTPProxySpec{
			VirtualHost: &contourv1.VirtualHost{Fqdn: "a.example.com", TLS: &contourv1.TLS{SecretName: "cert"}}}})
	memo := &Memo{}
	checkedAhead := func() int {
		t.Helper()
		c := memo.Index(objs, Options{})
		c.CheckServingSecretsAhead()
		c.secretChecks.workers.Wait() // every check, none stopped
		return len(c.secretChecks.results)
	}
	if n := checkedAhead(); n != 1 {
		t.Fatalf("a first translation checked %d Secrets ahead, want 1", n)
	}
	// The next translation with the same Memo looks the certificate up,
	// as the HTTPProxy processor does.
	c := memo.Index(objs, Options{})
	if _, err := c.LookupTLSSecret(types.NamespacedName{Namespace: "ns", Name: "cert"}, "ns"); err != nil {
		t.Fatal(err)
	}
	if n := checkedAhead(); n != 0 {
		t.Fatalf("a translation after another with the same Memo checked %d Secrets ahead, want none", n)
	}
}
