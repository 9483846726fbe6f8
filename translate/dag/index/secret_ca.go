package index

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// The checks of CA bundles and certificate revocation lists, in Secrets
// or (CA bundles) ConfigMaps, with Contour's rules.

const (
	caCertificateKey = "ca.crt"
	crlKey           = "crl.pem"
)

// opaqueCASecret wraps a CA bundle from a ConfigMap as the Opaque Secret
// Contour converts it to.
func opaqueCASecret(ca string) *corev1.Secret {
	return &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{caCertificateKey: []byte(ca)}}
}

// validCRLSecret checks a CRL Secret: TLS or Opaque, a crl.pem holding an
// X509 CRL block.
func validCRLSecret(s *corev1.Secret) error {
	if s.Type != corev1.SecretTypeTLS && s.Type != corev1.SecretTypeOpaque {
		return fmt.Errorf("secret type is not %q or %q", corev1.SecretTypeTLS, corev1.SecretTypeOpaque)
	}
	data := s.Data[crlKey]
	if len(data) == 0 {
		return fmt.Errorf("empty %q key", crlKey)
	}
	found := false
	err := pemBlocks(data, func(b *pemBlock) error {
		found = found || b.Type == "X509 CRL"
		return nil
	})
	if err == nil && !found {
		err = errors.New("failed to locate CRL")
	}
	return err
}

// validCASecret checks a CA bundle Secret: TLS or Opaque, a non-empty
// ca.crt holding at least one CERTIFICATE block.
func validCASecret(s *corev1.Secret) error {
	if s.Type != corev1.SecretTypeTLS && s.Type != corev1.SecretTypeOpaque {
		return fmt.Errorf("secret type is not %q or %q", corev1.SecretTypeTLS, corev1.SecretTypeOpaque)
	}
	data := s.Data[caCertificateKey]
	if len(data) == 0 {
		return fmt.Errorf("empty %q key", caCertificateKey)
	}
	n := 0
	if err := pemBlocks(data, func(b *pemBlock) error {
		if b.Type != "CERTIFICATE" {
			return unexpectedBlock(b.Type)
		}
		n++
		return nil
	}); err != nil {
		return fmt.Errorf("invalid CA certificate bundle: %v", err)
	}
	if n == 0 {
		return errors.New("invalid CA certificate bundle: failed to locate certificate")
	}
	return nil
}
