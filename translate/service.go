package translate

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/contourc/contourc/translate/dag"
)

// service resolves a Service port into a DAG Service, with the upstream
// protocol and circuit breakers its annotations give. ExternalName Services
// are refused: Contour disables them by default.
func (c *cache) service(name types.NamespacedName, port intstr.IntOrString) (*dag.Service, error) {
	svc, svcPort, err := c.lookupService(name, port)
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

// serviceWithHealthPort resolves a Service port and, when different, the
// port active health checks use.
func (c *cache) serviceWithHealthPort(name types.NamespacedName, port, healthPort int) (*dag.Service, error) {
	s, err := c.service(name, intstr.FromInt(port))
	if err != nil || healthPort == port {
		return s, err
	}
	_, hp, err := c.lookupService(name, intstr.FromInt(healthPort))
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
