package builtin

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// Service validation on create, as k8s.io/kubernetes
// pkg/apis/core/validation ValidateService does it, for what a manifest
// can get wrong: ports (names, numbers, protocols, duplicates), type,
// session affinity, ExternalName, external IPs, source ranges and the
// traffic policies. It sees the Service after the loader's defaulting
// (defaults_core.go: type, sessionAffinity, protocol, targetPort). The
// API server also defaults the traffic policies and
// allocateLoadBalancerNodePorts, which the loader does not, so their
// "Required value" checks are left out; the cluster IP family rules,
// which depend on the cluster's service CIDRs, too.

var (
	supportedPortProtocols        = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}
	supportedServiceTypes         = []corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeExternalName, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort}
	supportedSessionAffinities    = []corev1.ServiceAffinity{corev1.ServiceAffinityClientIP, corev1.ServiceAffinityNone}
	supportedExternalPolicies     = []corev1.ServiceExternalTrafficPolicy{corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal}
	supportedInternalPolicies     = []corev1.ServiceInternalTrafficPolicy{corev1.ServiceInternalTrafficPolicyCluster, corev1.ServiceInternalTrafficPolicyLocal}
	supportedTrafficDistributions = []string{corev1.ServiceTrafficDistributionPreferClose, corev1.ServiceTrafficDistributionPreferSameNode, corev1.ServiceTrafficDistributionPreferSameZone}
)

// maxClientIPAffinitySeconds bounds sessionAffinityConfig.clientIP.timeoutSeconds.
const maxClientIPAffinitySeconds = 86400

func ValidateService(obj metav1.Object) field.ErrorList {
	svc := obj.(*corev1.Service)
	spec := &svc.Spec
	specPath := func() *field.Path { return field.NewPath("spec") }
	var errs field.ErrorList
	headless := spec.ClusterIP == corev1.ClusterIPNone
	if len(spec.Ports) == 0 && !headless && spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(specPath().Child("ports"), ""))
	}
	switch spec.Type {
	case corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
		if headless {
			errs = append(errs, field.Invalid(specPath().Child("clusterIPs").Index(0), spec.ClusterIP, fmt.Sprintf("may not be set to 'None' for %s services", spec.Type)))
		}
	case corev1.ServiceTypeExternalName:
		errs = validateExternalName(errs, spec)
	}
	for i := range spec.Ports {
		errs = validateServicePort(errs, spec.Ports, i)
	}
	if !PlainLabels(spec.Selector) {
		errs = append(errs, metav1validation.ValidateLabels(spec.Selector, specPath().Child("selector"))...)
	}
	errs = validateSessionAffinity(errs, spec)
	for i, ip := range spec.ExternalIPs {
		errs = validateExternalIP(errs, ip, func() *field.Path { return specPath().Child("externalIPs").Index(i) })
	}
	if !slices.Contains(supportedServiceTypes, spec.Type) {
		errs = append(errs, field.NotSupported(specPath().Child("type"), spec.Type, supportedServiceTypes))
	}
	errs = validateNodePorts(errs, spec)
	if len(spec.LoadBalancerSourceRanges) > 0 {
		rangesPath := func() *field.Path { return specPath().Child("LoadBalancerSourceRanges") } // sic: the API server's path
		if spec.Type != corev1.ServiceTypeLoadBalancer {
			errs = append(errs, field.Forbidden(rangesPath(), "may only be used when `type` is 'LoadBalancer'"))
		}
		for i, r := range spec.LoadBalancerSourceRanges {
			// Space-padded values are tolerated, as in the annotation
			// these came from.
			errs = append(errs, validation.IsValidCIDR(rangesPath().Index(i), strings.TrimSpace(r))...)
		}
	}
	if spec.AllocateLoadBalancerNodePorts != nil && spec.Type != corev1.ServiceTypeLoadBalancer {
		errs = append(errs, field.Forbidden(specPath().Child("allocateLoadBalancerNodePorts"), "may only be used when `type` is 'LoadBalancer'"))
	}
	return validateTrafficPolicies(errs, spec)
}

func validateExternalName(errs field.ErrorList, spec *corev1.ServiceSpec) field.ErrorList {
	at := func(name string) *field.Path { return field.NewPath("spec", name) }
	// The API server fills clusterIPs from clusterIP before validating.
	if len(spec.ClusterIPs) > 0 || spec.ClusterIP != "" {
		errs = append(errs, field.Forbidden(at("clusterIPs"), "may not be set for ExternalName services"))
	}
	if len(spec.IPFamilies) > 0 {
		errs = append(errs, field.Forbidden(at("ipFamilies"), "may not be set for ExternalName services"))
	}
	if spec.IPFamilyPolicy != nil {
		errs = append(errs, field.Forbidden(at("ipFamilyPolicy"), "may not be set for ExternalName services"))
	}
	// A trailing dot marks the name fully qualified.
	switch cname := strings.TrimSuffix(spec.ExternalName, "."); {
	case cname == "":
		errs = append(errs, field.Required(at("externalName"), ""))
	case !dns1123Subdomain(cname, false):
		errs = manifest.AppendInvalid(errs, at("externalName"), cname, validation.IsDNS1123Subdomain(cname))
	}
	return errs
}

// validateServicePort checks ports[i]; names and (protocol, port) pairs
// are compared with the ports before it, so a duplicate is reported at the
// second.
func validateServicePort(errs field.ErrorList, ports []corev1.ServicePort, i int) field.ErrorList {
	sp := &ports[i]
	at := func(name string) *field.Path { return field.NewPath("spec", "ports").Index(i).Child(name) }
	switch {
	case sp.Name == "" && len(ports) > 1:
		errs = append(errs, field.Required(at("name"), ""))
	case sp.Name != "":
		if !DNS1123Label(sp.Name, false) {
			errs = manifest.AppendInvalid(errs, at("name"), sp.Name, validation.IsDNS1123Label(sp.Name))
		}
		if slices.ContainsFunc(ports[:i], func(p corev1.ServicePort) bool { return p.Name == sp.Name }) {
			errs = append(errs, field.Duplicate(at("name"), sp.Name))
		}
	}
	for _, msg := range validation.IsValidPortNum(int(sp.Port)) {
		errs = append(errs, field.Invalid(at("port"), sp.Port, msg))
	}
	errs = validateProtocol(errs, sp.Protocol, func() *field.Path { return at("protocol") })
	errs = validatePortNumOrName(errs, sp.TargetPort, func() *field.Path { return at("targetPort") })
	if sp.AppProtocol != nil {
		errs = validateQualifiedName(errs, *sp.AppProtocol, func() *field.Path { return at("appProtocol") })
	}
	if slices.ContainsFunc(ports[:i], func(p corev1.ServicePort) bool { return p.Port == sp.Port && p.Protocol == sp.Protocol }) {
		errs = append(errs, field.Duplicate(field.NewPath("spec", "ports").Index(i), servicePortKey{Protocol: sp.Protocol, Port: sp.Port}))
	}
	return errs
}

// servicePortKey is a duplicate (protocol, port) pair. The API server's
// key is its internal ServicePort type, which refuses to be JSON and so is
// printed with %#v; String prints the same.
type servicePortKey struct {
	Protocol corev1.Protocol
	Port     int32
}

func (k servicePortKey) String() string {
	return fmt.Sprintf(`core.ServicePort{Name:"", Protocol:%q, AppProtocol:(*string)(nil), Port:%d, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`, k.Protocol, k.Port)
}

// MarshalJSON fails, so that field.Error prints the key with String.
func (servicePortKey) MarshalJSON() ([]byte, error) {
	return nil, errors.New("printed with String")
}

// validateNodePorts checks the node ports: none on a ClusterIP Service,
// and no (protocol, nodePort) pair twice.
func validateNodePorts(errs field.ErrorList, spec *corev1.ServiceSpec) field.ErrorList {
	for i, p := range spec.Ports {
		if p.NodePort == 0 {
			continue
		}
		at := func() *field.Path { return field.NewPath("spec", "ports").Index(i).Child("nodePort") }
		if spec.Type == corev1.ServiceTypeClusterIP {
			errs = append(errs, field.Forbidden(at(), "may not be used when `type` is 'ClusterIP'"))
		}
		if slices.ContainsFunc(spec.Ports[:i], func(q corev1.ServicePort) bool { return q.NodePort == p.NodePort && q.Protocol == p.Protocol }) {
			errs = append(errs, field.Duplicate(at(), p.NodePort))
		}
	}
	return errs
}

func validateSessionAffinity(errs field.ErrorList, spec *corev1.ServiceSpec) field.ErrorList {
	at := func(name string) *field.Path { return field.NewPath("spec", name) }
	if !slices.Contains(supportedSessionAffinities, spec.SessionAffinity) {
		return append(errs, field.NotSupported(at("sessionAffinity"), spec.SessionAffinity, supportedSessionAffinities))
	}
	cfg := spec.SessionAffinityConfig
	switch {
	case spec.SessionAffinity == corev1.ServiceAffinityNone && cfg != nil:
		errs = append(errs, field.Forbidden(at("sessionAffinityConfig"), fmt.Sprintf("must not be set when session affinity is %s", corev1.ServiceAffinityNone)))
	case spec.SessionAffinity == corev1.ServiceAffinityClientIP && cfg != nil && cfg.ClientIP != nil && cfg.ClientIP.TimeoutSeconds != nil:
		// A missing timeout is defaulted (10800 s) by the API server.
		if t := *cfg.ClientIP.TimeoutSeconds; t <= 0 || t > maxClientIPAffinitySeconds {
			errs = append(errs, field.Invalid(at("sessionAffinityConfig").Child("clientIP", "timeoutSeconds"), t, fmt.Sprintf("must be greater than 0 and less than %d", maxClientIPAffinitySeconds)))
		}
	}
	return errs
}

// validateTrafficPolicies checks the values of the traffic policies, and
// the fields that only externally reachable Services may have.
func validateTrafficPolicies(errs field.ErrorList, spec *corev1.ServiceSpec) field.ErrorList {
	at := func(name string) *field.Path { return field.NewPath("spec", name) }
	external := spec.Type == corev1.ServiceTypeLoadBalancer || spec.Type == corev1.ServiceTypeNodePort ||
		spec.Type == corev1.ServiceTypeClusterIP && len(spec.ExternalIPs) > 0
	switch p := spec.ExternalTrafficPolicy; {
	case p == "":
	case !external:
		errs = append(errs, field.Invalid(at("externalTrafficPolicy"), p, "may only be set for externally-accessible services"))
	case !slices.Contains(supportedExternalPolicies, p):
		errs = append(errs, field.NotSupported(at("externalTrafficPolicy"), p, supportedExternalPolicies))
	}
	needsHealthCheck := spec.Type == corev1.ServiceTypeLoadBalancer && spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	switch {
	case !needsHealthCheck && spec.HealthCheckNodePort != 0:
		errs = append(errs, field.Invalid(at("healthCheckNodePort"), spec.HealthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
	case needsHealthCheck && spec.HealthCheckNodePort != 0:
		for _, msg := range validation.IsValidPortNum(int(spec.HealthCheckNodePort)) {
			errs = append(errs, field.Invalid(at("healthCheckNodePort"), spec.HealthCheckNodePort, msg))
		}
	}
	if p := spec.InternalTrafficPolicy; p != nil && !slices.Contains(supportedInternalPolicies, *p) {
		errs = append(errs, field.NotSupported(at("internalTrafficPolicy"), *p, supportedInternalPolicies))
	}
	if d := spec.TrafficDistribution; d != nil && !slices.Contains(supportedTrafficDistributions, *d) {
		errs = append(errs, field.NotSupported(at("trafficDistribution"), *d, supportedTrafficDistributions))
	}
	return errs
}

// validateProtocol is the protocol of a port: TCP, UDP or SCTP.
func validateProtocol(errs field.ErrorList, p corev1.Protocol, at func() *field.Path) field.ErrorList {
	switch {
	case p == "":
		return append(errs, field.Required(at(), ""))
	case !slices.Contains(supportedPortProtocols, p):
		return append(errs, field.NotSupported(at(), p, supportedPortProtocols))
	}
	return errs
}

// validatePortNumOrName is a target port: a number, or a container port's
// name.
func validatePortNumOrName(errs field.ErrorList, port intstr.IntOrString, at func() *field.Path) field.ErrorList {
	if port.Type == intstr.Int {
		for _, msg := range validation.IsValidPortNum(port.IntValue()) {
			errs = append(errs, field.Invalid(at(), port.IntValue(), msg))
		}
		return errs
	}
	if !portName(port.StrVal) {
		errs = manifest.AppendInvalid(errs, at(), port.StrVal, validation.IsValidPortName(port.StrVal))
	}
	return errs
}

// validateQualifiedName is an appProtocol: a qualified name.
func validateQualifiedName(errs field.ErrorList, s string, at func() *field.Path) field.ErrorList {
	if qualifiedName(s) {
		return errs
	}
	return manifest.AppendInvalid(errs, at(), s, validation.IsQualifiedName(s))
}
