package index

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/contourc/contourc/translate/dag"
)

// Service resolves a Service port into a DAG Service, with the upstream
// protocol and circuit breakers its annotations give. ExternalName Services
// are refused unless the configuration enables them.
func (c *Index) Service(name types.NamespacedName, port intstr.IntOrString) (*dag.Service, error) {
	svc, svcPort, err := c.LookupService(name, port)
	if err != nil {
		return nil, err
	}
	if err := c.validateExternalName(svc); err != nil {
		return nil, err
	}
	out := &dag.Service{
		Namespace:       svc.Namespace,
		Name:            svc.Name,
		Port:            svcPort,
		HealthPort:      svcPort,
		Protocol:        upstreamProtocol(svc, svcPort),
		CircuitBreakers: circuitBreakers(svc),
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		out.ExternalName = svc.Spec.ExternalName
	}
	return out, nil
}

// ServiceWithHealthPort resolves a Service port and, when different, the
// port active health checks use.
func (c *Index) ServiceWithHealthPort(name types.NamespacedName, port, healthPort int) (*dag.Service, error) {
	s, err := c.Service(name, intstr.FromInt(port))
	if err != nil || healthPort == port {
		return s, err
	}
	_, hp, err := c.LookupService(name, intstr.FromInt(healthPort))
	if err != nil {
		return nil, err
	}
	s.HealthPort = hp
	return s, nil
}

// upstreamProtocol is the protocol Envoy speaks to a Service port: a port's
// appProtocol decides alone when set; otherwise the upstream-protocol
// annotations, by port name first, then number.
func upstreamProtocol(svc *corev1.Service, port corev1.ServicePort) string {
	if port.AppProtocol != nil {
		switch *port.AppProtocol {
		case "kubernetes.io/h2c":
			return "h2c"
		case "https":
			return "tls"
		default:
			return ""
		}
	}
	protocols := upstreamProtocols(svc)
	if p := protocols[port.Name]; p != "" {
		return p
	}
	return protocols[strconv.Itoa(int(port.Port))]
}

// validateExternalName refuses ExternalName Services unless the
// configuration enables them, and those pointing at Envoy itself.
func (c *Index) validateExternalName(svc *corev1.Service) error {
	if svc.Spec.Type != corev1.ServiceTypeExternalName {
		return nil
	}
	if !c.opts.ExternalNameServices {
		return fmt.Errorf("%s/%s is an ExternalName service, these are not currently enabled. See the config.enableExternalNameService config file setting", svc.Namespace, svc.Name)
	}
	name := strings.TrimSuffix(svc.Spec.ExternalName, ".")
	switch name {
	case "localhost", "localhost.localdomain", "local.projectcontour.io":
		return fmt.Errorf("%s/%s is an ExternalName service that points to localhost, this is not allowed", svc.Namespace, svc.Name)
	}
	if ip := net.ParseIP(name); ip != nil && (ip.IsLoopback() || ip.IsUnspecified() || ip.IsLinkLocalUnicast()) {
		return fmt.Errorf("%s/%s is an ExternalName service that points to a loopback, link-local or unspecified IP address, this is not allowed", svc.Namespace, svc.Name)
	}
	return nil
}

// EndpointSlices are the input's EndpointSlices of svc's Service.
func (c *Index) EndpointSlices(svc *dag.Service) []*discoveryv1.EndpointSlice {
	return c.slices[types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}]
}

// SomeServiceWithoutEndpoints says whether a Service without an
// EndpointSlice may be routed to: only a route to one of them can lack
// endpoints. Lookups say so (routedWithoutEndpoints), unless the index was
// made through a Memo, whose callers may replay lookups instead of making
// them; then any such Service counts.
func (c *Index) SomeServiceWithoutEndpoints() bool {
	if !c.memoized {
		return c.routedWithoutEndpoints.Load()
	}
	for key := range c.services {
		if len(c.slices[key]) == 0 {
			return true
		}
	}
	return false
}
