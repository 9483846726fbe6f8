package translate

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/internal/testpki"
)

// TestIngressTLSWithoutHTTPSListener checks that an Ingress's TLS, left
// out because the Gateway served has no HTTPS listener, is a finding: the
// Ingress is not served as written.
func TestIngressTLSWithoutHTTPSListener(t *testing.T) {
	gw := &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "edge"},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: "contour",
			Listeners: []gatewayv1.Listener{listener("http", 80, gatewayv1.HTTPProtocolType, "")}},
	}
	objs := append(mkObjects(t, gw, testpki.TLSSecret(t, "web", "tls"), mkService("web", "web", mkPort("http", 80)),
		mkIngress("web", "web", ingTLS("tls", "web.example.com"), ingRule("web.example.com", ingPath(ptPrefix, "/", "web", 80)))),
		loader.Object{Kind: "GatewayClass", Obj: &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "contour"},
			Spec: gatewayv1.GatewayClassSpec{ControllerName: defaultGatewayController}}})
	res, err := Translate(objs, Options{Gateway: &types.NamespacedName{Namespace: "infra", Name: "edge"}})
	if err != nil {
		t.Fatal(err)
	}
	st := statusOf(res, "Ingress", "web", "web")
	want := []string{"TLS for web.example.com left out: the Gateway served has no HTTPS listener, or several"}
	if st == nil || !slices.Equal(st.Findings, want) {
		t.Errorf("entry %+v, want findings %q", st, want)
	}
}
