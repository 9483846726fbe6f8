package standin

// The Secrets Contour's configuration names rather than an object does:
// the fallback certificate and Envoy's client certificate. The caller
// resolves the configuration (translate does, above this package) and
// hands their names over in Options.Configured; here they are references
// like the others, from the objects that rest on them.

import (
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	networkingv1 "k8s.io/api/networking/v1"
)

// SecretUse is what Contour's configuration names a Secret for.
type SecretUse int

const (
	// FallbackCertificate is the configuration file's
	// tls.fallback-certificate (a ContourConfiguration's
	// spec.httpproxy.fallbackCertificate). The HTTPProxies with
	// enableFallbackCertificate that Contour serves rest on it: Contour
	// looks it up for each, and calls each FallbackNotValid without it.
	FallbackCertificate SecretUse = iota + 1
	// ClientCertificate is tls.envoy-client-certificate
	// (spec.envoy.clientCertificate), which Envoy presents to TLS
	// upstreams. Contour looks it up for every cluster it makes for an
	// Ingress, an HTTPProxy or an ExtensionService, whatever the
	// upstream's protocol, and without it refuses them all: every such
	// object Contour serves (an Ingress with a backend, an HTTPProxy with
	// a service, every ExtensionService) rests on it.
	ClientCertificate
)

func (u SecretUse) String() string {
	switch u {
	case FallbackCertificate:
		return "fallback certificate"
	case ClientCertificate:
		return "client certificate"
	}
	return "unknown use"
}

// ConfiguredSecret is a Secret Contour's configuration names.
type ConfiguredSecret struct {
	Namespace, Name string
	Use             SecretUse
	// Served, when set, says which objects the Contour whose
	// configuration names the Secret serves: with several instances,
	// each has its own configuration. Nil: every object Options.Served
	// lets through.
	Served func(obj any) bool
}

// configuredReferences adds the references of obj to the configured
// Secrets it rests on; configured holds only those wanted.
func configuredReferences(out []reference, obj any, configured []ConfiguredSecret) []reference {
	for _, c := range configured {
		if c.Served != nil && !c.Served(obj) {
			continue
		}
		if from, ok := restsOn(obj, c.Use); ok {
			out = append(out, reference{from: from, secret: Ref{"Secret", c.Namespace, c.Name}})
		}
	}
	return out
}

// wantedConfigured are the configured Secrets of wanted, named in full.
func wantedConfigured(configured []ConfiguredSecret, wanted map[Ref]bool) []ConfiguredSecret {
	var out []ConfiguredSecret
	for _, c := range configured {
		if c.Namespace != "" && c.Name != "" && wanted[Ref{"Secret", c.Namespace, c.Name}] {
			out = append(out, c)
		}
	}
	return out
}

// restsOn reports whether Contour looks up the Secret configured for use
// for obj, and names obj.
func restsOn(obj any, use SecretUse) (Ref, bool) {
	switch x := obj.(type) {
	case *contourv1.HTTPProxy:
		from := Ref{"HTTPProxy", x.Namespace, x.Name}
		switch use {
		case FallbackCertificate:
			// Passthrough (or no Secret of its own) fails before
			// Contour looks for the fallback certificate.
			vh := x.Spec.VirtualHost
			return from, vh != nil && vh.TLS != nil && vh.TLS.EnableFallbackCertificate && vh.TLS.SecretName != "" && !vh.TLS.Passthrough
		case ClientCertificate:
			return from, proxyHasServices(x)
		}
	case *networkingv1.Ingress:
		return Ref{"Ingress", x.Namespace, x.Name}, use == ClientCertificate && ingressHasBackends(x)
	case *contourv1alpha1.ExtensionService:
		return Ref{"ExtensionService", x.Namespace, x.Name}, use == ClientCertificate
	}
	return Ref{}, false
}

// proxyHasServices reports whether an HTTPProxy routes to a Service,
// making a cluster.
func proxyHasServices(p *contourv1.HTTPProxy) bool {
	for _, r := range p.Spec.Routes {
		if len(r.Services) > 0 {
			return true
		}
	}
	return p.Spec.TCPProxy != nil && len(p.Spec.TCPProxy.Services) > 0
}

// ingressHasBackends reports whether an Ingress has a Service backend,
// its default one or a path's.
func ingressHasBackends(ing *networkingv1.Ingress) bool {
	if b := ing.Spec.DefaultBackend; b != nil && b.Service != nil {
		return true
	}
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			if p.Backend.Service != nil {
				return true
			}
		}
	}
	return false
}
