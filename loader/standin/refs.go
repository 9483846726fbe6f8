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

// references lists the references of HTTPProxies, Ingresses and Gateways
// to the Secrets of wanted: those Contour looks up for them, and those of
// the objects resting on the configured Secrets (configured.go). A name
// "ns/name" (an HTTPProxy's or Ingress's certificate delegated from
// another namespace) is in ns; any other in the referrer's namespace.
// Objects served says Contour ignores are left out. Only references to
// wanted are kept: at 5,000 HTTPProxies with a Secret
// each, listing them all was most of the cost of one --assume-secret.
func references(objs []loader.Object, wanted map[Ref]bool, served func(any) bool, configured []ConfiguredSecret) []reference {
	var out []reference
	for _, o := range objs {
		if served != nil && !served(o.Obj) {
			continue
		}
		switch obj := o.Obj.(type) {
		case *contourv1.HTTPProxy:
			out = proxyReferences(out, obj, wanted)
		case *networkingv1.Ingress:
			from := Ref{"Ingress", obj.Namespace, obj.Name}
			for _, t := range obj.Spec.TLS {
				if ref := secretRef(obj.Namespace, t.SecretName); t.SecretName != "" && wanted[ref] {
					out = append(out, reference{from, ref, t.Hosts})
				}
			}
		case *gatewayv1.Gateway:
			out = gatewayReferences(out, obj, wanted)
		}
		if len(configured) > 0 {
			out = configuredReferences(out, o.Obj, configured)
		}
	}
	return out
}

func proxyReferences(out []reference, p *contourv1.HTTPProxy, wanted map[Ref]bool) []reference {
	from := Ref{"HTTPProxy", p.Namespace, p.Name}
	add := func(name string, host string) {
		if ref := secretRef(p.Namespace, name); name != "" && wanted[ref] {
			var hosts []string
			if host != "" {
				hosts = []string{host}
			}
			out = append(out, reference{from, ref, hosts})
		}
	}
	if vh := p.Spec.VirtualHost; vh != nil && vh.TLS != nil {
		add(vh.TLS.SecretName, vh.Fqdn)
		if cv := vh.TLS.ClientValidation; cv != nil {
			add(cv.CACertificate, "")
			add(cv.CertificateRevocationList, "")
		}
	}
	for _, r := range p.Spec.Routes {
		for _, s := range r.Services {
			if s.UpstreamValidation != nil {
				add(s.UpstreamValidation.CACertificate, "")
			}
		}
	}
	if tcp := p.Spec.TCPProxy; tcp != nil {
		for _, s := range tcp.Services {
			if s.UpstreamValidation != nil {
				add(s.UpstreamValidation.CACertificate, "")
			}
		}
	}
	return out
}

func gatewayReferences(out []reference, g *gatewayv1.Gateway, wanted map[Ref]bool) []reference {
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
			if ref := (Ref{"Secret", ns, string(c.Name)}); wanted[ref] {
				out = append(out, reference{from, ref, hosts})
			}
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
