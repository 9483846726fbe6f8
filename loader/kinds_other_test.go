package loader

import (
	"reflect"
	"slices"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	networkingv1beta1 "k8s.io/api/networking/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1alpha2 "sigs.k8s.io/gateway-api/apis/v1alpha2"
	gatewayv1alpha3 "sigs.k8s.io/gateway-api/apis/v1alpha3"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// TestOtherKindsMatchTheAPIModules checks the kinds table and otherKinds
// against the object types the pinned API modules register: every served
// object kind of a read group is either consumed or known to be skipped,
// and neither table names a kind the modules do not have.
func TestOtherKindsMatchTheAPIModules(t *testing.T) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, networkingv1.AddToScheme, networkingv1beta1.AddToScheme, discoveryv1.AddToScheme,
		gatewayv1.Install, gatewayv1beta1.Install, gatewayv1alpha2.Install, gatewayv1alpha3.Install,
		contourv1.AddToScheme, contourv1alpha1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	// Registered, but not served by the API server: removed versions
	// (refused with a hint, versionHints) and internal types.
	notServed := map[string]bool{
		"v1/PodStatusResult": true, "v1/RangeAllocation": true, "v1/SerializedReference": true,
		"networking.k8s.io/v1beta1/Ingress": true, "networking.k8s.io/v1beta1/IngressClass": true,
	}
	registered := map[string]bool{}
	for gvk, typ := range scheme.AllKnownTypes() {
		if _, isObject := reflect.New(typ).Interface().(metav1.Object); !isObject {
			continue // Lists, options, events of a watch
		}
		apiVersion := gvk.GroupVersion().String()
		registered[apiVersion+"/"+gvk.Kind] = true
		if notServed[apiVersion+"/"+gvk.Kind] {
			continue
		}
		spec := kindsByGroupKind[groupKind{gvk.Group, gvk.Kind}]
		consumed := spec != nil && spec.serves(gvk.Version)
		if consumed == isOtherKind(apiVersion, gvk.Kind) {
			t.Errorf("%s %s: consumed %v, in otherKinds %v; want exactly one", apiVersion, gvk.Kind, consumed, !consumed)
		}
	}
	for apiVersion, names := range otherKinds {
		for _, kind := range names {
			if !registered[apiVersion+"/"+kind] {
				t.Errorf("otherKinds has %s %s, which the API modules do not register", apiVersion, kind)
			}
		}
	}
}

// TestSameKindName covers the misspellings that get a "did you mean".
func TestSameKindName(t *testing.T) {
	tests := []struct {
		written, name string
		want          bool
	}{
		{"HttpProxy", "HTTPProxy", true},
		{"httpproxies", "HTTPProxy", true},
		{"ingress", "Ingress", true},
		{"Ingresses", "Ingress", true},
		{"HTTPRoutes", "HTTPRoute", true},
		{"endpointslices", "EndpointSlice", true},
		{"HTTPRoute", "GRPCRoute", false},
		{"Ingres", "Ingress", false},
		{"Services", "ServiceAccount", false},
	}
	for _, tt := range tests {
		if got := sameKindName(tt.written, tt.name); got != tt.want {
			t.Errorf("sameKindName(%q, %q) = %v, want %v", tt.written, tt.name, got, tt.want)
		}
	}
}

// TestUnknownKindsOfOtherGroupsAreSkipped checks that only the read groups
// are strict: a misspelt kind of another group is not contourc's to judge.
func TestUnknownKindsOfOtherGroupsAreSkipped(t *testing.T) {
	for _, raw := range []rawObject{
		{apiVersion: "apps/v1", kind: "Deploymnet"},
		{apiVersion: "networking.istio.io/v1beta1", kind: "Gateway"},
		{apiVersion: "v1", kind: "Pod"},
		{apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy"},
		{apiVersion: "gateway.networking.k8s.io/v1alpha2", kind: "UDPRoute"},
	} {
		if what, _, msg, _ := classify(raw); what != skip {
			t.Errorf("%s %s: disposition %v (%s), want skip", raw.apiVersion, raw.kind, what, msg)
		}
	}
	if what, _, _, at := classify(rawObject{apiVersion: "v1", kind: "Secrets"}); what != reject || at != "kind" {
		t.Errorf("v1 Secrets: disposition %v at %q, want a refusal at kind", what, at)
	}
	if !slices.Contains(otherKinds["v1"], "ServiceAccount") {
		t.Errorf("v1 ServiceAccount not among the skipped kinds")
	}
}
