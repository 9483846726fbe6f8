// Package mirror does what Kubernetes' EndpointSlice mirroring controller
// does for loader: core/v1 Endpoints in the input become the
// EndpointSlices the controller would write, since Contour reads only
// EndpointSlices. It imports only loader/internal/object of contourc.
package mirror

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/contourc/contourc/loader/internal/object"
)

// mirroringControllerName is the managed-by label value of the slices
// Kubernetes' EndpointSlice mirroring controller writes.
const mirroringControllerName = "endpointslicemirroring-controller.k8s.io"

// HasEndpoints says whether objs holds Endpoints, which Endpoints
// turns into EndpointSlices.
func HasEndpoints(objs []object.Object) bool {
	return slices.ContainsFunc(objs, func(o object.Object) bool { _, ok := o.Obj.(*corev1.Endpoints); return ok })
}

// Endpoints replaces core/v1 Endpoints by the EndpointSlices that
// Kubernetes' mirroring controller would make of them: Contour only reads
// EndpointSlices. Endpoints of a service that already has a slice in the
// input are dropped, as the slices are what the cluster would use.
//
// Unlike the real controller, mirroring does not depend on the Service
// having no selector: offline there are no Pods for the selector to pick,
// so Endpoints written by hand are the only endpoints there are.
func Endpoints(objs []object.Object) []object.Object {
	if !HasEndpoints(objs) {
		return objs // most inputs have EndpointSlices only
	}
	hasSlices := map[string]bool{} // namespace/service
	taken := map[string]bool{}     // namespace/slice name
	for _, o := range objs {
		if s, ok := o.Obj.(*discoveryv1.EndpointSlice); ok {
			taken[s.Namespace+"/"+s.Name] = true
			if svc := s.Labels[discoveryv1.LabelServiceName]; svc != "" {
				hasSlices[s.Namespace+"/"+svc] = true
			}
		}
	}
	out := objs[:0:0]
	for _, o := range objs {
		ep, ok := o.Obj.(*corev1.Endpoints)
		if !ok {
			out = append(out, o)
			continue
		}
		if hasSlices[ep.Namespace+"/"+ep.Name] || ep.Labels[discoveryv1.LabelSkipMirror] == "true" {
			continue
		}
		for _, s := range slicesFor(ep, taken) {
			out = append(out, object.Object{Kind: "EndpointSlice", Source: o.Source, Obj: s})
		}
	}
	return out
}

// sliceGroup collects the endpoints that share an address type and ports,
// which the mirroring controller puts in one slice.
type sliceGroup struct {
	addressType discoveryv1.AddressType
	ports       []discoveryv1.EndpointPort
	endpoints   []discoveryv1.Endpoint
}

// slicesFor mirrors one Endpoints object, one slice per address type and
// port set, in the order they first appear.
func slicesFor(ep *corev1.Endpoints, taken map[string]bool) []*discoveryv1.EndpointSlice {
	var groups []*sliceGroup
	byKey := map[string]*sliceGroup{}
	add := func(addr corev1.EndpointAddress, ready bool, ports []corev1.EndpointPort) {
		e, addrType, ok := mirrorAddress(addr, ready)
		if !ok {
			return // the controller drops addresses that are not IPs
		}
		key := string(addrType) + portsKey(ports)
		g := byKey[key]
		if g == nil {
			g = &sliceGroup{addressType: addrType, ports: mirrorPorts(ports)}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.endpoints = append(g.endpoints, e)
	}
	for _, subset := range ep.Subsets {
		for _, a := range subset.Addresses {
			add(a, true, subset.Ports)
		}
		for _, a := range subset.NotReadyAddresses {
			add(a, false, subset.Ports)
		}
	}
	slices := make([]*discoveryv1.EndpointSlice, 0, len(groups))
	perType := map[discoveryv1.AddressType]int{}
	for _, g := range groups {
		s := newMirroredSlice(ep, g)
		s.Name = uniqueSliceName(ep, g.addressType, perType[g.addressType], taken)
		perType[g.addressType]++
		slices = append(slices, s)
	}
	return slices
}

// newMirroredSlice builds the slice for one group, with the labels and
// annotations the controller copies from the Endpoints.
func newMirroredSlice(ep *corev1.Endpoints, g *sliceGroup) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   ep.Namespace,
			Generation:  1,
			Labels:      map[string]string{},
			Annotations: map[string]string{},
			OwnerReferences: []metav1.OwnerReference{
				*metav1.NewControllerRef(ep, schema.GroupVersionKind{Version: "v1", Kind: "Endpoints"}),
			},
		},
		AddressType: g.addressType,
		Endpoints:   g.endpoints,
		Ports:       g.ports,
	}
	for k, v := range ep.Labels {
		s.Labels[k] = v
	}
	s.Labels[discoveryv1.LabelServiceName] = ep.Name
	s.Labels[discoveryv1.LabelManagedBy] = mirroringControllerName
	for k, v := range ep.Annotations {
		if k != corev1.EndpointsLastChangeTriggerTime && k != corev1.LastAppliedConfigAnnotation {
			s.Annotations[k] = v
		}
	}
	return s
}

// mirrorAddress converts one Endpoints address; addresses that are not IPs
// are dropped, as the controller does.
func mirrorAddress(a corev1.EndpointAddress, ready bool) (discoveryv1.Endpoint, discoveryv1.AddressType, bool) {
	ip, err := netip.ParseAddr(a.IP)
	if err != nil {
		return discoveryv1.Endpoint{}, "", false
	}
	addrType := discoveryv1.AddressTypeIPv4
	if !ip.Unmap().Is4() {
		addrType = discoveryv1.AddressTypeIPv6
	}
	e := discoveryv1.Endpoint{
		Addresses:  []string{ip.Unmap().String()},
		Conditions: discoveryv1.EndpointConditions{Ready: &ready},
		TargetRef:  a.TargetRef,
		NodeName:   a.NodeName,
	}
	if a.Hostname != "" {
		h := a.Hostname
		e.Hostname = &h
	}
	return e, addrType, true
}

func mirrorPorts(ports []corev1.EndpointPort) []discoveryv1.EndpointPort {
	out := make([]discoveryv1.EndpointPort, 0, len(ports))
	for _, p := range ports {
		out = append(out, discoveryv1.EndpointPort{Name: &p.Name, Port: &p.Port, Protocol: &p.Protocol, AppProtocol: p.AppProtocol})
	}
	return out
}

// portsKey identifies a port set.
func portsKey(ports []corev1.EndpointPort) string {
	var b strings.Builder
	for _, p := range ports {
		app := ""
		if p.AppProtocol != nil {
			app = *p.AppProtocol
		}
		fmt.Fprintf(&b, "|%s/%d/%s/%s", p.Name, p.Port, p.Protocol, app)
	}
	return b.String()
}

// uniqueSliceName names a mirrored slice <endpoints>-<ipv4|ipv6>-<n>. The
// controller lets the API server add a random suffix; a fixed one keeps
// output reproducible.
func uniqueSliceName(ep *corev1.Endpoints, t discoveryv1.AddressType, i int, taken map[string]bool) string {
	base := ep.Name
	if len(base) > 200 {
		base = base[:200]
	}
	for n := i; ; n++ {
		name := fmt.Sprintf("%s-%s-%d", base, strings.ToLower(string(t)), n)
		if !taken[ep.Namespace+"/"+name] {
			taken[ep.Namespace+"/"+name] = true
			return name
		}
	}
}
