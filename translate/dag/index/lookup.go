package index

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/contourc/contourc/translate/dag"
)

// The lookups of Services, Secrets and ConfigMaps the processors make,
// with Contour's rules: only TCP ports are routed to, a Secret in another
// namespace needs a TLSCertificateDelegation, and a Secret's content is
// validated before it is used.

// LookupService finds a Service and the port matching port (by number or
// name); only TCP ports can be routed to.
func (c *Index) LookupService(name types.NamespacedName, port intstr.IntOrString) (*corev1.Service, corev1.ServicePort, error) {
	svc, ok := c.services[name]
	if !ok {
		return nil, corev1.ServicePort{}, fmt.Errorf("service %q not found", name)
	}
	for _, p := range svc.Spec.Ports {
		if (port.Type == intstr.Int && int(p.Port) == port.IntValue()) || (port.Type == intstr.String && port.StrVal == p.Name) {
			if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
				return nil, corev1.ServicePort{}, fmt.Errorf("unsupported service protocol %q", p.Protocol)
			}
			if len(c.slices[name]) == 0 {
				c.routedWithoutEndpoints.Store(true)
			}
			return svc, p, nil
		}
	}
	return nil, corev1.ServicePort{}, fmt.Errorf("port %q on service %q not matched", port.String(), name)
}

// delegationPermitted says whether objects in targetNamespace may use the
// Secret secret through a TLSCertificateDelegation in the secret's namespace.
func (c *Index) delegationPermitted(secret types.NamespacedName, targetNamespace string) bool {
	if secret.Namespace == targetNamespace {
		return true
	}
	for _, d := range c.delegations[secret.Namespace] {
		for _, del := range d.Spec.Delegations {
			if del.SecretName != secret.Name {
				continue
			}
			if slices.Equal(del.TargetNamespaces, []string{"*"}) || slices.Contains(del.TargetNamespaces, targetNamespace) {
				return true
			}
		}
	}
	return false
}

// DelegationNotPermittedError is returned when a secret exists but is not
// delegated to the namespace that references it.
type DelegationNotPermittedError struct{ Secret types.NamespacedName }

func (e DelegationNotPermittedError) Error() string {
	return "certificate delegation not permitted"
}

// lookupSecret returns the Secret name refers to, as seen from
// fromNamespace, after validate accepts it. Like Contour, delegation is
// checked before the Secret's existence.
func (c *Index) lookupSecret(name types.NamespacedName, fromNamespace string, validate func(*corev1.Secret) error) (*corev1.Secret, error) {
	if !c.delegationPermitted(name, fromNamespace) {
		return nil, DelegationNotPermittedError{name}
	}
	s, ok := c.Secrets[name]
	if !ok {
		return nil, errors.New("Secret not found")
	}
	if err := c.checkSecret(s, name, validate); err != nil {
		return nil, err
	}
	return s, nil
}

// LookupTLSSecret returns the validated serving certificate name refers to,
// as seen from fromNamespace.
func (c *Index) LookupTLSSecret(name types.NamespacedName, fromNamespace string) (*dag.Secret, error) {
	s, err := c.lookupSecret(name, fromNamespace, ValidTLSSecret)
	if err != nil {
		return nil, err
	}
	return &dag.Secret{Namespace: s.Namespace, Name: s.Name, Cert: s.Data[corev1.TLSCertKey], Key: s.Data[corev1.TLSPrivateKeyKey]}, nil
}

// LookupCASecret returns a validated CA bundle (ca.crt).
func (c *Index) LookupCASecret(name types.NamespacedName, fromNamespace string) ([]byte, error) {
	s, err := c.lookupSecret(name, fromNamespace, validCASecret)
	if err != nil {
		return nil, err
	}
	return s.Data[caCertificateKey], nil
}

// LookupCRLSecret returns a validated certificate revocation list (crl.pem).
func (c *Index) LookupCRLSecret(name types.NamespacedName, fromNamespace string) ([]byte, error) {
	s, err := c.lookupSecret(name, fromNamespace, validCRLSecret)
	if err != nil {
		return nil, err
	}
	return s.Data[crlKey], nil
}

// LookupJWKS returns the validated JWKS document in key of Secret name.
// Unlike the other lookups there is no delegation: a local JWKS is always
// read from the referring proxy's own namespace. The result is not kept,
// as its validity depends on the key and checking it is cheap.
func (c *Index) LookupJWKS(name types.NamespacedName, key string) ([]byte, error) {
	s, ok := c.Secrets[name]
	if !ok {
		return nil, errors.New("Secret not found")
	}
	if err := validJWKSSecret(s, key); err != nil {
		return nil, err
	}
	return s.Data[key], nil
}

// ClientCertificate is the configuration's Envoy client certificate, nil
// when none is configured; admins configure it, so no delegation applies.
func (c *Index) ClientCertificate() (*dag.Secret, error) {
	cc := c.opts.ClientCertificate
	if cc == nil {
		return nil, nil
	}
	return c.LookupTLSSecret(*cc, cc.Namespace)
}

// ConfigMapCA returns a validated CA bundle from a ConfigMap's ca.crt.
func (c *Index) ConfigMapCA(name types.NamespacedName) ([]byte, error) {
	cm, ok := c.configMaps[name]
	if !ok {
		return nil, fmt.Errorf("ConfigMap not found")
	}
	ca, ok := cm.Data[caCertificateKey]
	if !ok {
		return nil, fmt.Errorf("ConfigMap not found")
	}
	secret := opaqueCASecret(ca)
	if err := validCASecret(secret); err != nil {
		return nil, err
	}
	return []byte(ca), nil
}

// SecretReference resolves a reference to a Secret as Contour's
// NamespacedNameFrom does: "ns/name", or a name in annotationNamespace (an
// Ingress's tls-cert-namespace annotation) or else in ownNamespace; an
// empty namespace part ("/name") counts as none. Ingress TLS SecretNames
// and HTTPProxy's Secret references use it.
func SecretReference(secretName, annotationNamespace, ownNamespace string) types.NamespacedName {
	ns, name, ok := strings.Cut(secretName, "/")
	if !ok {
		ns, name = "", secretName
	}
	switch {
	case ns != "":
	case annotationNamespace != "":
		ns = annotationNamespace
	default:
		ns = ownNamespace
	}
	return types.NamespacedName{Namespace: ns, Name: name}
}
