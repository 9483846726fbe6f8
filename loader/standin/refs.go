package standin

import (
	"slices"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	networkingv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
)

// Ref names an object: a referrer in a Report, a Secret in a reference.
type Ref struct {
	Kind, Namespace, Name string
}

func (r Ref) String() string { return r.Kind + " " + r.Namespace + "/" + r.Name }

// reference is one object's use of a Secret, with the host names it is
// for (a TLS certificate's), when it has any.
type reference struct {
	from   Ref
	secret Ref
	hosts  []string
}

// references lists the Secrets that HTTPProxies, Ingresses and Gateways
// refer to: the ones Contour looks up for them. A name "ns/name" (an
// HTTPProxy's or Ingress's certificate delegated from another namespace)
// is in ns; any other in the referrer's namespace.
func references(objs []loader.Object) []reference {
	var out []reference
	for _, o := range objs {
		switch obj := o.Obj.(type) {
		case *contourv1.HTTPProxy:
			out = proxyReferences(out, obj)
		case *networkingv1.Ingress:
			from := Ref{"Ingress", obj.Namespace, obj.Name}
			for _, t := range obj.Spec.TLS {
				if t.SecretName != "" {
					out = append(out, reference{from, secretRef(obj.Namespace, t.SecretName), t.Hosts})
				}
			}
		case *gatewayv1.Gateway:
			out = gatewayReferences(out, obj)
		}
	}
	return out
}

func proxyReferences(out []reference, p *contourv1.HTTPProxy) []reference {
	from := Ref{"HTTPProxy", p.Namespace, p.Name}
	add := func(name string, hosts []string) {
		if name != "" {
			out = append(out, reference{from, secretRef(p.Namespace, name), hosts})
		}
	}
	if vh := p.Spec.VirtualHost; vh != nil && vh.TLS != nil {
		add(vh.TLS.SecretName, []string{vh.Fqdn})
		if cv := vh.TLS.ClientValidation; cv != nil {
			add(cv.CACertificate, nil)
			add(cv.CertificateRevocationList, nil)
		}
	}
	for _, r := range p.Spec.Routes {
		for _, s := range r.Services {
			if s.UpstreamValidation != nil {
				add(s.UpstreamValidation.CACertificate, nil)
			}
		}
	}
	if tcp := p.Spec.TCPProxy; tcp != nil {
		for _, s := range tcp.Services {
			if s.UpstreamValidation != nil {
				add(s.UpstreamValidation.CACertificate, nil)
			}
		}
	}
	return out
}

func gatewayReferences(out []reference, g *gatewayv1.Gateway) []reference {
	from := Ref{"Gateway", g.Namespace, g.Name}
	for _, l := range g.Spec.Listeners {
		if l.TLS == nil {
			continue
		}
		var hosts []string
		if l.Hostname != nil {
			hosts = []string{string(*l.Hostname)}
		}
		for _, c := range l.TLS.CertificateRefs {
			if !isSecretRef(c) {
				continue
			}
			ns := g.Namespace
			if c.Namespace != nil && *c.Namespace != "" {
				ns = string(*c.Namespace)
			}
			out = append(out, reference{from, Ref{"Secret", ns, string(c.Name)}, hosts})
		}
	}
	return out
}

// isSecretRef reports whether a certificateRef is to a core Secret, the
// kind its group and kind default to.
func isSecretRef(c gatewayv1.SecretObjectReference) bool {
	return (c.Group == nil || *c.Group == "") && (c.Kind == nil || *c.Kind == "Secret")
}

func secretRef(ns, name string) Ref {
	if n, rest, ok := strings.Cut(name, "/"); ok {
		return Ref{"Secret", n, rest}
	}
	return Ref{"Secret", ns, name}
}

// hostsOf are the host names the references to secret are for, sorted
// and each once: the names a stand-in certificate without names of its
// own is given.
func hostsOf(refs []reference, secret Ref) []string {
	var hosts []string
	for _, r := range refs {
		if r.secret == secret {
			for _, h := range r.hosts {
				if h != "" && !slices.Contains(hosts, h) {
					hosts = append(hosts, h)
				}
			}
		}
	}
	slices.Sort(hosts)
	return hosts
}
