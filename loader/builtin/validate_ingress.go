package builtin

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// Ingress validation on create, as k8s.io/kubernetes
// pkg/apis/networking/validation ValidateIngressCreate does it (rules,
// paths, backends, TLS, class), with its messages. Names of other objects
// (backend Services, TLS Secrets, the IngressClass) are checked with the
// rule the loader applies to those objects' own names (loader/kinds.go), so a
// name contourc accepts on a Service is accepted where an Ingress points
// at it.

// IngressClassAnnotation is the pre-v1 way to pick a class.
const IngressClassAnnotation = "kubernetes.io/ingress.class"

var (
	// Path sequences and suffixes refused in Exact and Prefix paths.
	invalidPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
	invalidPathSuffixes  = []string{"/..", "/."}
	supportedPathTypes   = []string{string(networkingv1.PathTypeExact), string(networkingv1.PathTypeImplementationSpecific), string(networkingv1.PathTypePrefix)}
)

func ValidateIngress(obj metav1.Object) field.ErrorList {
	ing := obj.(*networkingv1.Ingress)
	spec := &ing.Spec
	var errs field.ErrorList
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		errs = append(errs, field.Invalid(field.NewPath("spec"), spec.Rules, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		errs = validateIngressBackend(errs, spec.DefaultBackend, func() *field.Path { return field.NewPath("spec", "defaultBackend") })
	}
	for i := range spec.Rules {
		errs = validateIngressRule(errs, &spec.Rules[i], i)
	}
	for i := range spec.TLS {
		errs = validateIngressTLS(errs, &spec.TLS[i], i)
	}
	if spec.IngressClassName != nil {
		for _, msg := range SubdomainName(*spec.IngressClassName) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "ingressClassName"), *spec.IngressClassName, msg))
		}
	}
	if class, ok := ing.Annotations[IngressClassAnnotation]; ok && spec.IngressClassName != nil && class != *spec.IngressClassName {
		// The path is the API server's, which leaves out "metadata".
		errs = append(errs, field.Invalid(field.NewPath("annotations").Child(IngressClassAnnotation), class, "must match `ingressClassName` when both are specified"))
	}
	return errs
}

func validateIngressRule(errs field.ErrorList, rule *networkingv1.IngressRule, i int) field.ErrorList {
	rulePath := func() *field.Path { return field.NewPath("spec", "rules").Index(i) }
	if host := rule.Host; host != "" {
		if mayBeIP(host) && netutils.ParseIPSloppy(host) != nil {
			errs = append(errs, field.Invalid(rulePath().Child("host"), host, "must be a DNS name, not an IP address"))
		}
		// A wildcard host is only checked as one when it has a "*".
		switch {
		case strings.Contains(host, "*"):
			if !wildcardSubdomain(host) {
				errs = manifest.AppendInvalid(errs, rulePath().Child("host"), host, validation.IsWildcardDNS1123Subdomain(host))
			}
		case !dns1123Subdomain(host, false):
			errs = manifest.AppendInvalid(errs, rulePath().Child("host"), host, validation.IsDNS1123Subdomain(host))
		}
	}
	if rule.HTTP == nil {
		return errs
	}
	if len(rule.HTTP.Paths) == 0 {
		errs = append(errs, field.Required(rulePath().Child("http", "paths"), ""))
	}
	for j := range rule.HTTP.Paths {
		errs = validateIngressPath(errs, &rule.HTTP.Paths[j], func() *field.Path { return rulePath().Child("http", "paths").Index(j) })
	}
	return errs
}

// mayBeIP reports whether host could parse as an IP address: only digits
// and dots, or a colon. Parsing every host would allocate for each.
func mayBeIP(host string) bool {
	for i := 0; i < len(host); i++ {
		if c := host[i]; c == ':' {
			return true
		} else if c != '.' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func validateIngressPath(errs field.ErrorList, p *networkingv1.HTTPIngressPath, at func() *field.Path) field.ErrorList {
	if p.PathType == nil {
		return append(errs, field.Required(at().Child("pathType"), "pathType must be specified"))
	}
	switch *p.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(p.Path, "/") {
			errs = append(errs, field.Invalid(at().Child("path"), p.Path, "must be an absolute path"))
		}
		for _, seq := range invalidPathSequences {
			if strings.Contains(p.Path, seq) {
				errs = append(errs, field.Invalid(at().Child("path"), p.Path, fmt.Sprintf("must not contain '%s'", seq)))
			}
		}
		for _, suffix := range invalidPathSuffixes {
			if strings.HasSuffix(p.Path, suffix) {
				errs = append(errs, field.Invalid(at().Child("path"), p.Path, fmt.Sprintf("cannot end with '%s'", suffix)))
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if p.Path != "" && !strings.HasPrefix(p.Path, "/") {
			errs = append(errs, field.Invalid(at().Child("path"), p.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, field.NotSupported(at().Child("pathType"), *p.PathType, supportedPathTypes))
	}
	return validateIngressBackend(errs, &p.Backend, func() *field.Path { return at().Child("backend") })
}

func validateIngressBackend(errs field.ErrorList, b *networkingv1.IngressBackend, at func() *field.Path) field.ErrorList {
	switch {
	case b.Resource != nil && b.Service != nil:
		return append(errs, field.Invalid(at(), "", "cannot set both resource and service backends"))
	case b.Resource != nil:
		return validateTypedLocalObjectReference(errs, b.Resource.APIGroup, b.Resource.Kind, b.Resource.Name, func() *field.Path { return at().Child("resource") })
	case b.Service == nil:
		return append(errs, field.Invalid(at(), "", "resource or service backend is required"))
	}
	svc := b.Service
	if svc.Name == "" {
		errs = append(errs, field.Required(at().Child("service", "name"), ""))
	} else {
		for _, msg := range ServiceName(svc.Name) {
			errs = append(errs, field.Invalid(at().Child("service", "name"), svc.Name, msg))
		}
	}
	hasName, hasNumber := svc.Port.Name != "", svc.Port.Number != 0
	switch {
	case hasName && hasNumber:
		errs = append(errs, field.Invalid(at(), "", "cannot set both port name & port number"))
	case hasName:
		if !portName(svc.Port.Name) {
			errs = manifest.AppendInvalid(errs, at().Child("service", "port", "name"), svc.Port.Name, validation.IsValidPortName(svc.Port.Name))
		}
	case hasNumber:
		for _, msg := range validation.IsValidPortNum(int(svc.Port.Number)) {
			errs = append(errs, field.Invalid(at().Child("service", "port", "number"), svc.Port.Number, msg))
		}
	default:
		errs = append(errs, field.Required(at(), "port name or number is required"))
	}
	return errs
}

// validateTypedLocalObjectReference checks a resource backend.
func validateTypedLocalObjectReference(errs field.ErrorList, group *string, kind, name string, at func() *field.Path) field.ErrorList {
	if group != nil && !dns1123Subdomain(*group, false) {
		errs = manifest.AppendInvalid(errs, at().Child("apiGroup"), *group, validation.IsDNS1123Subdomain(*group))
	}
	for _, f := range []struct{ name, value string }{{"kind", kind}, {"name", name}} {
		if f.value == "" {
			errs = append(errs, field.Required(at().Child(f.name), ""))
			continue
		}
		for _, msg := range content.IsPathSegmentName(f.value) {
			errs = append(errs, field.Invalid(at().Child(f.name), f.value, msg))
		}
	}
	return errs
}

func validateIngressTLS(errs field.ErrorList, tls *networkingv1.IngressTLS, i int) field.ErrorList {
	at := func() *field.Path { return field.NewPath("spec", "tls").Index(i) }
	for j, host := range tls.Hosts {
		switch {
		case strings.Contains(host, "*"):
			if !wildcardSubdomain(host) {
				errs = manifest.AppendInvalid(errs, at().Child("hosts").Index(j), host, validation.IsWildcardDNS1123Subdomain(host))
			}
		case !dns1123Subdomain(host, false):
			errs = manifest.AppendInvalid(errs, at().Child("hosts").Index(j), host, validation.IsDNS1123Subdomain(host))
		}
	}
	if tls.SecretName != "" {
		for _, msg := range SubdomainName(tls.SecretName) {
			errs = append(errs, field.Invalid(at().Child("secretName"), tls.SecretName, msg))
		}
	}
	return errs
}

// The name rules of kinds (loader/kinds.go), for the references to their objects.
var (
	SubdomainName = anyCase(validation.IsDNS1123Subdomain, dns1123Subdomain)
	ServiceName   = anyCase(validation.IsDNS1035Label, dns1035Label)
)
