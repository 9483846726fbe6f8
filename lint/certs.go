package lint

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"time"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
)

// The certificate rules, on the TLS Secrets the virtual hosts of
// HTTPProxies and Ingresses, and the served Gateway's HTTPS listeners, serve: CTC1201, a certificate that does not
// name the host (clients refuse it); CTC1202, one that expires within
// --cert-expiry-days; CTC1203, one expired or not valid yet; CTC1204, a
// private key that is not the certificate's (Envoy cannot serve the pair).
// Stand-in Secrets are made up to cover their hosts and are not checked.
// No message carries key material: only names, hosts and dates.

// tlsUse is one virtual host served with a Secret.
type tlsUse struct {
	by     *loader.Object // the HTTPProxy or Ingress
	host   string
	secret *loader.Object
}

func certRules(in *input) []Finding {
	uses := tlsUses(in)
	var out []Finding
	checked := map[*loader.Object]bool{}
	for _, u := range uses {
		cert := leafCertificate(u.secret)
		if cert == nil {
			continue
		}
		if u.host != "" && !certCovers(cert, u.host) {
			out = append(out, finding(ruleCertName, u.by, fmt.Sprintf("the certificate of Secret %s does not cover %s: it names %s",
				qualified(u.secret), u.host, certNames(cert)), objectOf(u.secret)))
		}
		if checked[u.secret] {
			continue
		}
		checked[u.secret] = true
		out = append(out, validity(in.opts, u.secret, cert)...)
		if keyMismatch(u.secret) {
			out = append(out, finding(ruleCertKey, u.secret, "the private key in tls.key does not belong to the certificate in tls.crt"))
		}
	}
	return out
}

// tlsUses are the input's HTTPProxy and served Ingress TLS hosts whose
// Secret is among the objects and not a stand-in.
func tlsUses(in *input) []tlsUse {
	var uses []tlsUse
	add := func(by *loader.Object, host, ref string) {
		ns, name, ok := strings.Cut(ref, "/")
		if !ok {
			ns, name = by.Obj.GetNamespace(), ref
		}
		s := in.index.get("Secret", ns, name)
		if s == nil || s.StandIn != "" {
			return
		}
		uses = append(uses, tlsUse{by: by, host: strings.ToLower(host), secret: s})
	}
	for _, o := range in.index.ofKind("HTTPProxy") {
		vh := o.Obj.(*contourv1.HTTPProxy).Spec.VirtualHost
		if vh != nil && vh.TLS != nil && vh.TLS.SecretName != "" {
			add(o, vh.Fqdn, vh.TLS.SecretName)
		}
	}
	for _, o := range in.index.ofKind("Ingress") {
		if !in.served(o) {
			continue
		}
		for _, t := range o.Obj.(*networkingv1.Ingress).Spec.TLS {
			for _, h := range t.Hosts {
				add(o, h, t.SecretName)
			}
		}
	}
	for _, o := range in.index.ofKind("Gateway") {
		if !in.hasStatus(o) {
			continue // not the served Gateway
		}
		for _, l := range o.Obj.(*gatewayv1.Gateway).Spec.Listeners {
			if l.TLS == nil {
				continue
			}
			host := "" // a listener without a hostname is served for any name
			if l.Hostname != nil {
				host = string(*l.Hostname)
			}
			for _, ref := range l.TLS.CertificateRefs {
				if (ref.Kind != nil && *ref.Kind != "Secret") || (ref.Group != nil && *ref.Group != "") {
					continue
				}
				name := string(ref.Name)
				if ref.Namespace != nil {
					name = string(*ref.Namespace) + "/" + name
				}
				add(o, host, name)
			}
		}
	}
	return uses
}

// hasStatus says whether o has a translated status (for a Gateway: it is
// the one served).
func (in *input) hasStatus(o *loader.Object) bool {
	for _, st := range in.res.Status {
		if st.Kind == o.Kind && st.Namespace == o.Obj.GetNamespace() && st.Name == o.Obj.GetName() {
			return true
		}
	}
	return false
}

// leafCertificate is the first certificate of a Secret's tls.crt, nil when
// there is none that parses (Contour refuses such a Secret already).
func leafCertificate(o *loader.Object) *x509.Certificate {
	s, ok := o.Obj.(*corev1.Secret)
	if !ok {
		return nil
	}
	rest := s.Data[corev1.TLSCertKey]
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil
		}
		if b.Type == "CERTIFICATE" {
			c, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				return nil
			}
			return c
		}
	}
}

// certCovers says whether a client reaching host accepts cert's names. A
// wildcard host needs the same wildcard among the names.
func certCovers(cert *x509.Certificate, host string) bool {
	if strings.HasPrefix(host, "*.") {
		for _, n := range cert.DNSNames {
			if strings.EqualFold(n, host) {
				return true
			}
		}
		return false
	}
	return cert.VerifyHostname(host) == nil
}

func certNames(cert *x509.Certificate) string {
	if len(cert.DNSNames) == 0 {
		if cert.Subject.CommonName != "" {
			return "no DNS name (only the common name " + cert.Subject.CommonName + ", which clients ignore)"
		}
		return "no DNS name"
	}
	return strings.Join(cert.DNSNames, ", ")
}

// validity is CTC1202 and CTC1203 for one Secret's certificate.
func validity(opts Options, s *loader.Object, cert *x509.Certificate) []Finding {
	now := opts.Now
	days := opts.CertExpiryDays
	const day = "2006-01-02"
	switch {
	case now.After(cert.NotAfter):
		return []Finding{finding(ruleCertExpired, s, fmt.Sprintf("the certificate in tls.crt expired on %s", cert.NotAfter.UTC().Format(day)))}
	case now.Before(cert.NotBefore):
		return []Finding{finding(ruleCertExpired, s, fmt.Sprintf("the certificate in tls.crt is not valid before %s", cert.NotBefore.UTC().Format(day)))}
	case days > 0 && now.Add(time.Duration(days)*24*time.Hour).After(cert.NotAfter):
		left := int(cert.NotAfter.Sub(now).Hours() / 24)
		return []Finding{finding(ruleCertExpiring, s, fmt.Sprintf("the certificate in tls.crt expires on %s, in %d day(s) (--cert-expiry-days %d)",
			cert.NotAfter.UTC().Format(day), left, days))}
	}
	return nil
}

// keyMismatch says whether the Secret's key and certificate both parse but
// are not a pair. The error's text is never shown: only the verdict.
func keyMismatch(o *loader.Object) bool {
	s := o.Obj.(*corev1.Secret)
	_, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey])
	return err != nil && strings.Contains(err.Error(), "does not match")
}

func qualified(o *loader.Object) string { return o.Obj.GetNamespace() + "/" + o.Obj.GetName() }
