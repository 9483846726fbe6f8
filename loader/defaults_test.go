package loader

import (
	"reflect"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestHTTPProxyDefaults checks the CRD defaults of HTTPProxy, and that a
// value given explicitly (retry count 0) is kept.
func TestHTTPProxyDefaults(t *testing.T) {
	res := mustLoad(t, "testdata/ok/httpproxy-defaults.yaml")
	p := find(t, res, "HTTPProxy", "default", "defaults").Obj.(*contourv1.HTTPProxy)
	if p.Generation != 1 {
		t.Errorf("generation = %d, want 1", p.Generation)
	}
	if got := p.Spec.VirtualHost.Authorization.WithRequestBody.MaxRequestBytes; got != 1024 {
		t.Errorf("withRequestBody.maxRequestBytes = %d, want 1024", got)
	}
	match := p.Spec.VirtualHost.RateLimitPolicy.Global.Descriptors[0].Entries[0].RequestHeaderValueMatch
	if !match.ExpectMatch {
		t.Error("requestHeaderValueMatch.expectMatch not defaulted to true")
	}
	redirect, retry, zero := p.Spec.Routes[0], p.Spec.Routes[1], p.Spec.Routes[2]
	if code := redirect.RequestRedirectPolicy.StatusCode; code == nil || *code != 302 {
		t.Errorf("requestRedirectPolicy.statusCode = %v, want 302", code)
	}
	if got := retry.RetryPolicy.NumRetries; got != 1 {
		t.Errorf("retryPolicy.count = %d, want 1", got)
	}
	if got := retry.InternalRedirectPolicy.AllowCrossSchemeRedirect; got != "Never" {
		t.Errorf("allowCrossSchemeRedirect = %q, want Never", got)
	}
	slow := retry.Services[0].SlowStartPolicy
	if slow.Aggression != "1.0" || slow.MinimumWeightPercent != 10 {
		t.Errorf("slowStartPolicy = %+v, want aggression 1.0, minWeightPercent 10", slow)
	}
	if got := zero.RetryPolicy.NumRetries; got != 0 {
		t.Errorf("explicit retryPolicy.count 0 became %d", got)
	}
	if zero.RequestRedirectPolicy != nil || zero.InternalRedirectPolicy != nil {
		t.Error("defaults created policies that were not given")
	}
}

// TestGatewayDefaults checks the Gateway API CRD defaults, and that every
// served version is read into the v1 Go types.
func TestGatewayDefaults(t *testing.T) {
	res := mustLoad(t, "testdata/ok/gateway-defaults.yaml")

	gc := find(t, res, "GatewayClass", "", "contour")
	if gc.APIVersion != "gateway.networking.k8s.io/v1beta1" || gc.Obj.(*gatewayv1.GatewayClass).APIVersion != "gateway.networking.k8s.io/v1" {
		t.Errorf("GatewayClass versions: input %q, internal %q", gc.APIVersion, gc.Obj.(*gatewayv1.GatewayClass).APIVersion)
	}

	gw := find(t, res, "Gateway", "infra", "gw").Obj.(*gatewayv1.Gateway)
	http, https := gw.Spec.Listeners[0], gw.Spec.Listeners[1]
	if http.AllowedRoutes == nil || *http.AllowedRoutes.Namespaces.From != gatewayv1.NamespacesFromSame {
		t.Errorf("listener allowedRoutes = %+v, want namespaces.from Same", http.AllowedRoutes)
	}
	if *https.AllowedRoutes.Namespaces.From != gatewayv1.NamespacesFromAll {
		t.Error("explicit allowedRoutes.namespaces.from All was overwritten")
	}
	if g := https.AllowedRoutes.Kinds[0].Group; g == nil || *g != gatewayv1.GroupName {
		t.Errorf("allowedRoutes.kinds[0].group = %v, want %s", g, gatewayv1.GroupName)
	}
	if *https.TLS.Mode != gatewayv1.TLSModeTerminate {
		t.Errorf("tls.mode = %v, want Terminate", *https.TLS.Mode)
	}
	ref := https.TLS.CertificateRefs[0]
	if *ref.Group != "" || *ref.Kind != "Secret" {
		t.Errorf("certificateRef group/kind = %q/%q, want \"\"/Secret", *ref.Group, *ref.Kind)
	}

	all := find(t, res, "HTTPRoute", "default", "all-defaults").Obj.(*gatewayv1.HTTPRoute)
	wantRules := []gatewayv1.HTTPRouteRule{{Matches: []gatewayv1.HTTPRouteMatch{{Path: pathPrefix("/")}}}}
	if !reflect.DeepEqual(all.Spec.Rules, wantRules) {
		t.Errorf("rules = %+v, want the default PathPrefix / rule", all.Spec.Rules)
	}
	parent := all.Spec.ParentRefs[0]
	if *parent.Group != gatewayv1.GroupName || *parent.Kind != "Gateway" {
		t.Errorf("parentRef group/kind = %v/%v", *parent.Group, *parent.Kind)
	}

	partial := find(t, res, "HTTPRoute", "default", "partial").Obj.(*gatewayv1.HTTPRoute)
	backend := partial.Spec.Rules[0].BackendRefs[0]
	if *backend.Group != "" || *backend.Kind != "Service" || *backend.Weight != 1 {
		t.Errorf("backendRef = %v/%v weight %v, want \"\"/Service weight 1", *backend.Group, *backend.Kind, *backend.Weight)
	}
	matches := partial.Spec.Rules[1].Matches
	if !reflect.DeepEqual(matches[0].Path, pathPrefix("/")) || *matches[0].Headers[0].Type != gatewayv1.HeaderMatchExact {
		t.Errorf("match without path = %+v, want path PathPrefix / and header type Exact", matches[0])
	}
	if !reflect.DeepEqual(matches[1].Path, pathPrefix("/exact")) {
		t.Errorf("path without type = %+v, want PathPrefix /exact", matches[1].Path)
	}
	filters := partial.Spec.Rules[1].Filters
	if code := filters[0].RequestRedirect.StatusCode; code == nil || *code != 302 {
		t.Errorf("redirect statusCode = %v, want 302", code)
	}
	if k := filters[1].RequestMirror.BackendRef.Kind; k == nil || *k != "Service" {
		t.Errorf("mirror backendRef kind = %v, want Service", k)
	}

	grpc := find(t, res, "GRPCRoute", "default", "grpc").Obj.(*gatewayv1.GRPCRoute)
	m := grpc.Spec.Rules[0].Matches[0]
	if *m.Method.Type != gatewayv1.GRPCMethodMatchExact || *m.Headers[0].Type != gatewayv1.GRPCHeaderMatchExact {
		t.Errorf("GRPCRoute match types = %v, %v; want Exact", *m.Method.Type, *m.Headers[0].Type)
	}
	tls := find(t, res, "TLSRoute", "default", "tls").Obj.(*gatewayv1.TLSRoute)
	if *tls.Spec.Rules[0].BackendRefs[0].Weight != 1 {
		t.Error("TLSRoute (v1alpha2) backendRef weight not defaulted")
	}
	find(t, res, "ReferenceGrant", "other", "grant")
	find(t, res, "BackendTLSPolicy", "default", "btls")
}

func pathPrefix(value string) *gatewayv1.HTTPPathMatch {
	t := gatewayv1.PathMatchPathPrefix
	return &gatewayv1.HTTPPathMatch{Type: &t, Value: &value}
}

// TestCoreDefaults checks the API server's defaulting of core objects.
func TestCoreDefaults(t *testing.T) {
	res := mustLoad(t, "testdata/ok/core.yaml")
	secret := find(t, res, "Secret", "default", "mixed").Obj.(*corev1.Secret)
	want := map[string][]byte{"a": []byte("a"), "b": []byte("override"), "c": []byte("plain")}
	if !reflect.DeepEqual(secret.Data, want) || secret.StringData != nil {
		t.Errorf("secret data = %q, stringData = %v; want stringData merged into data", secret.Data, secret.StringData)
	}
	if secret.Type != corev1.SecretTypeOpaque {
		t.Errorf("secret type = %q, want Opaque", secret.Type)
	}
	svc := find(t, res, "Service", "default", "web").Obj.(*corev1.Service)
	if p := svc.Spec.Ports[0]; p.Protocol != corev1.ProtocolTCP || p.TargetPort != intstr.FromInt32(80) {
		t.Errorf("port = %+v, want protocol TCP and targetPort 80", p)
	}
	if p := svc.Spec.Ports[1]; p.TargetPort != intstr.FromInt32(9090) {
		t.Errorf("explicit targetPort changed: %+v", p)
	}
	if svc.Spec.Type != corev1.ServiceTypeClusterIP {
		t.Errorf("service type = %q, want ClusterIP", svc.Spec.Type)
	}
	ns := find(t, res, "Namespace", "", "team-a")
	if ns.Obj.GetNamespace() != "" {
		t.Errorf("cluster-scoped Namespace kept namespace %q", ns.Obj.GetNamespace())
	}
	if got := ns.Obj.GetLabels()[corev1.LabelMetadataName]; got != "team-a" {
		t.Errorf("namespace label %s = %q, want the namespace's name", corev1.LabelMetadataName, got)
	}
}

// TestSkippedKinds checks that kinds Contour does not read are counted by
// apiVersion/Kind and not decoded (so their schemas do not matter). The
// IngressClass among them is read, for the DefaultIngressClass admission.
func TestSkippedKinds(t *testing.T) {
	res := mustLoad(t, "testdata/ok/skipped.yaml")
	want := map[string]int{
		"apps/v1/Deployment":                           2,
		"networking.istio.io/v1beta1/Gateway":          1,
		"projectcontour.io/v1alpha1/ContourDeployment": 1,
	}
	if !reflect.DeepEqual(res.Skipped, want) || len(res.Objects) != 1 || res.Objects[0].Kind != "IngressClass" {
		t.Errorf("Skipped = %v with objects %v, want %v and the IngressClass", res.Skipped, res.Objects, want)
	}
}
