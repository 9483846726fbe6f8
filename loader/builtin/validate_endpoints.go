package builtin

import (
	"fmt"
	"net"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// EndpointSlice validation on create, as k8s.io/kubernetes
// pkg/apis/discovery/validation ValidateEndpointSliceCreate does it, and
// core/v1 Endpoints as pkg/apis/core/validation ValidateEndpointsCreate
// does: address types and address formats, port names, protocols and
// bounds.
//
// One rule is left out on purpose: the API server also refuses loopback,
// link-local and unspecified endpoint addresses (ValidateNonSpecialIP).
// Manifests written for offline translation (Envoy Gateway's egctl
// inputs, local test rigs) point backends at 127.0.0.1, and Contour
// translates them fine; refusing them would only break those inputs.
// Service externalIPs keep the rule.

// The API server's bounds of an EndpointSlice.
const (
	maxSliceEndpoints    = 1000
	maxEndpointAddresses = 100
	maxSlicePorts        = 100
	maxTopologyLabels    = 16
)

var supportedAddressTypes = []discoveryv1.AddressType{discoveryv1.AddressTypeFQDN, discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6}

func ValidateEndpointSlice(obj metav1.Object) field.ErrorList {
	es := obj.(*discoveryv1.EndpointSlice)
	var errs field.ErrorList
	switch t := es.AddressType; {
	case t == "":
		errs = append(errs, field.Required(field.NewPath("addressType"), ""))
	case t != discoveryv1.AddressTypeIPv4 && t != discoveryv1.AddressTypeIPv6 && t != discoveryv1.AddressTypeFQDN:
		errs = append(errs, field.NotSupported(field.NewPath("addressType"), t, supportedAddressTypes))
	}
	if len(es.Endpoints) > maxSliceEndpoints {
		errs = append(errs, field.TooMany(field.NewPath("endpoints"), len(es.Endpoints), maxSliceEndpoints))
	} else {
		for i := range es.Endpoints {
			errs = validateSliceEndpoint(errs, &es.Endpoints[i], es.AddressType, i)
		}
	}
	if len(es.Ports) > maxSlicePorts {
		return append(errs, field.TooMany(field.NewPath("ports"), len(es.Ports), maxSlicePorts))
	}
	for i := range es.Ports {
		errs = validateSlicePort(errs, es.Ports, i)
	}
	return errs
}

func validateSliceEndpoint(errs field.ErrorList, ep *discoveryv1.Endpoint, addressType discoveryv1.AddressType, i int) field.ErrorList {
	at := func() *field.Path { return field.NewPath("endpoints").Index(i) }
	switch n := len(ep.Addresses); {
	case n == 0:
		errs = append(errs, field.Required(at().Child("addresses"), "must contain at least 1 address"))
	case n > maxEndpointAddresses:
		errs = append(errs, field.TooMany(at().Child("addresses"), n, maxEndpointAddresses))
	}
	for j, addr := range ep.Addresses {
		addrAt := func() *field.Path { return at().Child("addresses").Index(j) }
		// Addresses of an unknown type are not checked (the type is
		// refused already).
		switch addressType {
		case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6:
			errs = validateSliceIP(errs, addr, addressType == discoveryv1.AddressTypeIPv4, addrAt)
		case discoveryv1.AddressTypeFQDN:
			errs = append(errs, validation.IsFullyQualifiedDomainName(addrAt(), addr)...)
		}
	}
	if len(ep.DeprecatedTopology) > maxTopologyLabels {
		errs = append(errs, field.TooMany(at().Child("topology"), len(ep.DeprecatedTopology), maxTopologyLabels))
	}
	if !PlainLabels(ep.DeprecatedTopology) {
		errs = append(errs, metav1validation.ValidateLabels(ep.DeprecatedTopology, at().Child("topology"))...)
	}
	if ep.Hostname != nil && !DNS1123Label(*ep.Hostname, false) {
		errs = manifest.AppendInvalid(errs, at().Child("hostname"), *ep.Hostname, validation.IsDNS1123Label(*ep.Hostname))
	}
	return errs
}

// validateSliceIP checks an address of an IPv4 or IPv6 slice.
func validateSliceIP(errs field.ErrorList, addr string, v4 bool, at func() *field.Path) field.ErrorList {
	if ip, err := netip.ParseAddr(addr); err == nil && ip.Is4() == v4 && !ip.Is4In6() && ip.Zone() == "" {
		return errs // the common case, without allocating
	}
	family := "IPv6"
	if v4 {
		family = "IPv4"
	}
	if ip := netutils.ParseIPSloppy(addr); ip == nil || (ip.To4() != nil) != v4 {
		errs = append(errs, field.Invalid(at(), addr, fmt.Sprintf("must be a valid %s address", family)))
	}
	return errs
}

// canonical reports whether addr is ip's canonical form (what IsValidIP
// wants), without making the canonical string.
func canonical(ip netip.Addr, addr string) bool {
	var buf [64]byte
	return string(ip.AppendTo(buf[:0])) == addr
}

// specialIP is what validateNonSpecialIP refuses.
func specialIP(ip netip.Addr) bool {
	return ip.IsUnspecified() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast()
}

// validateExternalIP refuses what the API server's IsValidIP and
// ValidateNonSpecialIP refuse of an external IP: an address not in
// canonical form, unspecified and loopback addresses (nonsense there) and
// link-local ones (node services such as cloud metadata).
func validateExternalIP(errs field.ErrorList, addr string, at func() *field.Path) field.ErrorList {
	if ip, err := netip.ParseAddr(addr); err == nil && !ip.Is4In6() && ip.Zone() == "" && !specialIP(ip) && canonical(ip, addr) {
		return errs
	}
	if verrs := validation.IsValidIP(at(), addr); len(verrs) > 0 {
		return append(errs, verrs...)
	}
	ip := netutils.ParseIPSloppy(addr)
	if ip == nil {
		return append(errs, field.Invalid(at(), addr, "must be a valid IP address"))
	}
	for _, special := range []struct {
		is  func(net.IP) bool
		msg string
	}{
		{net.IP.IsUnspecified, fmt.Sprintf("may not be unspecified (%v)", addr)},
		{net.IP.IsLoopback, "may not be in the loopback range (127.0.0.0/8, ::1/128)"},
		{net.IP.IsLinkLocalUnicast, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"},
		{net.IP.IsLinkLocalMulticast, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"},
	} {
		if special.is(ip) {
			errs = append(errs, field.Invalid(at(), addr, special.msg))
		}
	}
	return errs
}

// validateSlicePort checks ports[i]; names are compared with the ports
// before it. The loader defaults name to "" and protocol to TCP.
func validateSlicePort(errs field.ErrorList, ports []discoveryv1.EndpointPort, i int) field.ErrorList {
	p := &ports[i]
	at := func(name string) *field.Path { return field.NewPath("ports").Index(i).Child(name) }
	name := ""
	if p.Name != nil {
		name = *p.Name
	}
	if name != "" && !DNS1123Label(name, false) {
		errs = manifest.AppendInvalid(errs, at("name"), name, validation.IsDNS1123Label(name))
	}
	for _, q := range ports[:i] {
		if q.Name != nil && *q.Name == name {
			errs = append(errs, field.Duplicate(at("name"), name))
			break
		}
	}
	if p.Protocol == nil {
		errs = append(errs, field.Required(at("protocol"), ""))
	} else {
		errs = validateProtocol(errs, *p.Protocol, func() *field.Path { return at("protocol") })
	}
	if p.AppProtocol != nil {
		errs = validateQualifiedName(errs, *p.AppProtocol, func() *field.Path { return at("appProtocol") })
	}
	return errs
}

// ValidateEndpoints checks core/v1 Endpoints (before they are mirrored
// into EndpointSlices).
func ValidateEndpoints(obj metav1.Object) field.ErrorList {
	ep := obj.(*corev1.Endpoints)
	var errs field.ErrorList
	for i := range ep.Subsets {
		ss := &ep.Subsets[i]
		at := func() *field.Path { return field.NewPath("subsets").Index(i) }
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			errs = append(errs, field.Required(at(), "must specify `addresses` or `notReadyAddresses`"))
		}
		for j := range ss.Addresses {
			errs = validateEndpointAddress(errs, &ss.Addresses[j], func() *field.Path { return at().Child("addresses").Index(j) })
		}
		for j := range ss.NotReadyAddresses {
			errs = validateEndpointAddress(errs, &ss.NotReadyAddresses[j], func() *field.Path { return at().Child("notReadyAddresses").Index(j) })
		}
		for j := range ss.Ports {
			errs = validateEndpointPort(errs, &ss.Ports[j], len(ss.Ports) > 1, func() *field.Path { return at().Child("ports").Index(j) })
		}
	}
	return errs
}

func validateEndpointAddress(errs field.ErrorList, a *corev1.EndpointAddress, at func() *field.Path) field.ErrorList {
	if ip, err := netip.ParseAddr(a.IP); err != nil || ip.Is4In6() || ip.Zone() != "" {
		errs = append(errs, validation.IsValidIPForLegacyField(at().Child("ip"), a.IP, true, nil)...)
	}
	if a.Hostname != "" && !DNS1123Label(a.Hostname, false) {
		errs = manifest.AppendInvalid(errs, at().Child("hostname"), a.Hostname, validation.IsDNS1123Label(a.Hostname))
	}
	if a.NodeName != nil && !dns1123Subdomain(*a.NodeName, false) {
		errs = manifest.AppendInvalid(errs, at().Child("nodeName"), *a.NodeName, validation.IsDNS1123Subdomain(*a.NodeName))
	}
	return errs
}

func validateEndpointPort(errs field.ErrorList, p *corev1.EndpointPort, requireName bool, at func() *field.Path) field.ErrorList {
	switch {
	case requireName && p.Name == "":
		errs = append(errs, field.Required(at().Child("name"), ""))
	case p.Name != "" && !DNS1123Label(p.Name, false):
		errs = manifest.AppendInvalid(errs, at().Child("name"), p.Name, validation.IsDNS1123Label(p.Name))
	}
	for _, msg := range validation.IsValidPortNum(int(p.Port)) {
		errs = append(errs, field.Invalid(at().Child("port"), p.Port, msg))
	}
	errs = validateProtocol(errs, p.Protocol, func() *field.Path { return at().Child("protocol") })
	if p.AppProtocol != nil {
		errs = validateQualifiedName(errs, *p.AppProtocol, func() *field.Path { return at().Child("appProtocol") })
	}
	return errs
}
