package loader

import (
	"reflect"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
)

// TestEndpointsMirroring checks that core/v1 Endpoints become the
// EndpointSlices Kubernetes' mirroring controller would write, unless the
// service already has slices.
func TestEndpointsMirroring(t *testing.T) {
	res := mustLoad(t, "testdata/ok/endpoints.yaml")
	for _, o := range res.Objects {
		if o.Kind == "Endpoints" {
			t.Errorf("Endpoints %s kept in the result", o.Obj.GetName())
		}
		if o.Kind == "EndpointSlice" && o.Obj.GetName() != "sliced-abcde" && o.Obj.GetLabels()[discoveryv1.LabelServiceName] == "sliced" {
			t.Errorf("Endpoints mirrored for a service that has a slice: %s", o.Obj.GetName())
		}
	}

	v4 := find(t, res, "EndpointSlice", "shop", "legacy-ipv4-0")
	if v4.Source.File != "testdata/ok/endpoints.yaml" || v4.Source.Line != 1 {
		t.Errorf("mirrored slice source = %v, want the Endpoints' (line 1)", v4.Source)
	}
	s := v4.Obj.(*discoveryv1.EndpointSlice)
	wantLabels := map[string]string{
		"app":                                    "legacy",
		"kubernetes.io/service-name":             "legacy",
		"endpointslice.kubernetes.io/managed-by": "endpointslicemirroring-controller.k8s.io",
	}
	if !reflect.DeepEqual(s.Labels, wantLabels) {
		t.Errorf("labels = %v, want %v", s.Labels, wantLabels)
	}
	if !reflect.DeepEqual(s.Annotations, map[string]string{"note": "copied"}) {
		t.Errorf("annotations = %v, want only note (last-applied dropped)", s.Annotations)
	}
	if s.AddressType != discoveryv1.AddressTypeIPv4 || len(s.Endpoints) != 3 {
		t.Fatalf("IPv4 slice: %s with %d endpoints, want 3", s.AddressType, len(s.Endpoints))
	}
	for i, want := range []struct {
		addr  string
		ready bool
	}{{"10.0.0.1", true}, {"10.0.0.2", true}, {"10.0.0.3", false}} {
		e := s.Endpoints[i]
		if e.Addresses[0] != want.addr || e.Conditions.Ready == nil || *e.Conditions.Ready != want.ready {
			t.Errorf("endpoint %d = %v ready %v, want %s ready %v", i, e.Addresses, e.Conditions.Ready, want.addr, want.ready)
		}
	}
	if n := s.Endpoints[0].NodeName; n == nil || *n != "node-a" {
		t.Errorf("nodeName not copied: %v", n)
	}
	p := s.Ports[0]
	if *p.Name != "http" || *p.Port != 8080 || *p.Protocol != "TCP" {
		t.Errorf("port = %v/%v/%v, want http/8080/TCP", *p.Name, *p.Port, *p.Protocol)
	}

	v6 := find(t, res, "EndpointSlice", "shop", "legacy-ipv6-0").Obj.(*discoveryv1.EndpointSlice)
	if v6.AddressType != discoveryv1.AddressTypeIPv6 || len(v6.Endpoints) != 1 || v6.Endpoints[0].Addresses[0] != "fd00::1" {
		t.Errorf("IPv6 slice = %s %+v; want the one IPv6 address", v6.AddressType, v6.Endpoints)
	}
}
