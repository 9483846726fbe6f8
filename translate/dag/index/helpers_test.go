package index

// Objects for the tests of the index, built in memory as the loader would
// hand them over; the certificates and Secrets are translate/internal/testpki's.

import (
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
)

// mkObjects wraps typed objects as loader.Objects, each with a distinct
// Source (file "<kind>.yaml", line = position in the argument list + 1).
func mkObjects(t testing.TB, objs ...metav1.Object) []loader.Object {
	t.Helper()
	out := make([]loader.Object, 0, len(objs))
	for i, o := range objs {
		var kind string
		switch o.(type) {
		case *corev1.Service:
			kind = "Service"
		case *corev1.Secret:
			kind = "Secret"
		case *networkingv1.Ingress:
			kind = "Ingress"
		case *contourv1.HTTPProxy:
			kind = "HTTPProxy"
		case *gatewayv1.Gateway:
			kind = "Gateway"
		default:
			t.Fatalf("mkObjects: unexpected object type %T", o)
		}
		out = append(out, loader.Object{Kind: kind, Obj: o, Source: loader.Source{File: strings.ToLower(kind) + ".yaml", Line: i + 1}})
	}
	return out
}
