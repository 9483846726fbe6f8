package survey

import (
	"fmt"
	"sort"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	networkingv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// refs gathers the Secrets and Services routing objects refer to, and the
// ones the repository has.
type refs struct {
	has      map[string]bool // Kind/ns/name
	secrets  map[string]*Missing
	services map[string]*Missing
	classes  map[string]bool
	gateways []string
}

func newRefs() *refs {
	return &refs{has: map[string]bool{}, secrets: map[string]*Missing{}, services: map[string]*Missing{}, classes: map[string]bool{}}
}

func (r *refs) add(o object) {
	ns := o.Obj.GetNamespace()
	r.has[o.Kind+"/"+ns+"/"+o.Obj.GetName()] = true
	by := fmt.Sprintf("%s %s/%s (%s:%d)", o.Kind, ns, o.Obj.GetName(), o.file, o.Source.Line)
	switch obj := o.Obj.(type) {
	case *networkingv1.Ingress:
		r.ingress(obj, by)
	case *contourv1.HTTPProxy:
		r.proxy(obj, by)
	case *gatewayv1.Gateway:
		r.gateways = append(r.gateways, ns+"/"+obj.Name)
		for _, l := range obj.Spec.Listeners {
			if l.TLS == nil {
				continue
			}
			for _, c := range l.TLS.CertificateRefs {
				if c.Kind != nil && *c.Kind != "Secret" || c.Group != nil && *c.Group != "" {
					continue
				}
				target := ns
				if c.Namespace != nil {
					target = string(*c.Namespace) // allowed by a ReferenceGrant, which the repository would hold
				}
				r.secret(target, string(c.Name), ns, by)
			}
		}
	case *gatewayv1.HTTPRoute:
		for _, rule := range obj.Spec.Rules {
			for _, b := range rule.BackendRefs {
				if b.Kind != nil && *b.Kind != "Service" || b.Group != nil && *b.Group != "" {
					continue
				}
				target := ns
				if b.Namespace != nil {
					target = string(*b.Namespace)
				}
				port := ""
				if b.Port != nil {
					port = fmt.Sprint(*b.Port)
				}
				r.service(target, string(b.Name), port, "", by)
			}
		}
	}
}

func (r *refs) ingress(obj *networkingv1.Ingress, by string) {
	ns := obj.Namespace
	class := obj.Annotations["kubernetes.io/ingress.class"]
	if obj.Spec.IngressClassName != nil {
		class = *obj.Spec.IngressClassName
	}
	r.classes[class] = true
	for _, t := range obj.Spec.TLS {
		if t.SecretName != "" {
			r.secret(ns, t.SecretName, ns, by)
		}
	}
	backend := func(b *networkingv1.IngressBackend) {
		if b == nil || b.Service == nil {
			return
		}
		port := b.Service.Port.Name
		if b.Service.Port.Number != 0 {
			port = fmt.Sprint(b.Service.Port.Number)
		}
		r.service(ns, b.Service.Name, port, "", by)
	}
	backend(obj.Spec.DefaultBackend)
	for _, rule := range obj.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		for i := range rule.HTTP.Paths {
			backend(&rule.HTTP.Paths[i].Backend)
		}
	}
}

func (r *refs) proxy(obj *contourv1.HTTPProxy, by string) {
	ns := obj.Namespace
	class := obj.Annotations["projectcontour.io/ingress.class"]
	if obj.Spec.IngressClassName != "" {
		class = obj.Spec.IngressClassName
	}
	r.classes[class] = true
	if vh := obj.Spec.VirtualHost; vh != nil && vh.TLS != nil && vh.TLS.SecretName != "" {
		// ns/name is a Secret of another namespace, delegated to this one.
		target, name, ok := strings.Cut(vh.TLS.SecretName, "/")
		if !ok {
			target, name = ns, vh.TLS.SecretName
		}
		r.secret(target, name, ns, by)
	}
	services := func(list []contourv1.Service) {
		for _, s := range list {
			r.service(ns, s.Name, fmt.Sprint(s.Port), stringOr(s.Protocol), by)
		}
	}
	for _, route := range obj.Spec.Routes {
		services(route.Services)
	}
	if obj.Spec.TCPProxy != nil {
		services(obj.Spec.TCPProxy.Services)
	}
}

func stringOr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (r *refs) secret(ns, name, from, by string) {
	m := r.secrets[ns+"/"+name]
	if m == nil {
		m = &Missing{Namespace: ns, Name: name, By: by}
		r.secrets[ns+"/"+name] = m
	}
	if from != ns {
		m.Namespaces = appendNew(m.Namespaces, from)
	}
}

func (r *refs) service(ns, name, port, protocol, by string) {
	m := r.services[ns+"/"+name]
	if m == nil {
		m = &Missing{Namespace: ns, Name: name, By: by}
		r.services[ns+"/"+name] = m
	}
	if port == "" {
		return
	}
	if port[0] < '0' || port[0] > '9' {
		m.NamedPorts = appendNew(m.NamedPorts, port) // --assume-service wants the number
		return
	}
	if protocol != "" {
		port += "/" + protocol
	}
	m.Ports = appendNew(m.Ports, port)
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// finish puts the references to absent objects in s, sorted.
func (r *refs) finish(s *Survey) {
	s.MissingSecrets = r.missing("Secret", r.secrets)
	s.MissingServices = r.missing("Service", r.services)
	for c := range r.classes {
		if c != "" {
			s.IngressClasses = append(s.IngressClasses, c)
		}
	}
	sort.Strings(s.IngressClasses)
	sort.Strings(r.gateways)
	s.Gateways = r.gateways
}

func (r *refs) missing(kind string, m map[string]*Missing) []Missing {
	var out []Missing
	for key, v := range m {
		if r.has[kind+"/"+key] {
			continue
		}
		sort.Strings(v.Namespaces)
		sort.Strings(v.Ports)
		sort.Strings(v.NamedPorts)
		out = append(out, *v)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}
