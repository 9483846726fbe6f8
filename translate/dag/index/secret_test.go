package index

// Serving-certificate Secret validation (reference map A.14; Contour's
// internal/dag/secret.go and secret_test.go).

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"sync"
	"testing"

	"github.com/contourc/contourc/translate/internal/testpki"
	corev1 "k8s.io/api/core/v1"
)

var (
	rsaKeyOnce sync.Once
	rsaKeyPEM  []byte
	rsaKeyErr  error
)

// testRSAKeyPEM is a PKCS#1 "RSA PRIVATE KEY", generated once.
func testRSAKeyPEM(t *testing.T) []byte {
	t.Helper()
	rsaKeyOnce.Do(func() {
		var k *rsa.PrivateKey
		if k, rsaKeyErr = rsa.GenerateKey(rand.Reader, 2048); rsaKeyErr == nil {
			rsaKeyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
		}
	})
	if rsaKeyErr != nil {
		t.Fatal(rsaKeyErr)
	}
	return rsaKeyPEM
}

func TestValidTLSSecret(t *testing.T) {
	c := testpki.Certs(t)
	tlsData := func(crt, key []byte) map[string][]byte {
		return map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}
	}
	tests := []struct {
		name    string
		typ     corev1.SecretType
		data    map[string][]byte
		wantErr string // "" for valid
	}{
		{name: "kubernetes.io/tls", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, c.KeyPEM)},
		{name: "Opaque", typ: corev1.SecretTypeOpaque, data: tlsData(c.CertPEM, c.KeyPEM)},
		{name: "PKCS#8 key", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, c.PKCS8KeyPEM)},
		{name: "PKCS#1 RSA key", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, testRSAKeyPEM(t))},
		// Key and certificate are not checked against each other.
		{name: "mismatched key is not checked", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, c.OtherKeyPEM)},
		{name: "EC PARAMETERS before the key are ignored", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, testpki.Join(c.ECParameters, c.KeyPEM))},
		{name: "EC PARAMETERS after the key are ignored", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, testpki.Join(c.KeyPEM, c.ECParameters))},
		{name: "SAN-only certificate", typ: corev1.SecretTypeTLS, data: tlsData(c.SANOnlyCert, c.KeyPEM)},
		{name: "IP-SAN-only certificate", typ: corev1.SecretTypeTLS, data: tlsData(c.IPOnlyCert, c.KeyPEM)},
		{name: "CN-only certificate", typ: corev1.SecretTypeTLS, data: tlsData(c.CNOnlyCert, c.KeyPEM)},
		// Only the first certificate of a bundle needs a name.
		{name: "bundle with a nameless intermediate", typ: corev1.SecretTypeTLS, data: tlsData(testpki.Join(c.CertPEM, c.NoNameCert), c.KeyPEM)},
		{name: "trailing text after the PEM", typ: corev1.SecretTypeTLS, data: tlsData(testpki.Join(c.CertPEM, []byte("# trailing comment\n")), testpki.Join(c.KeyPEM, []byte("\n\n")))},
		{name: "leading text before the PEM", typ: corev1.SecretTypeTLS, data: tlsData(testpki.Join([]byte("subject=CN = www.example.com\n"), c.CertPEM), c.KeyPEM)},

		{name: "wrong type", typ: corev1.SecretTypeDockerConfigJson, data: tlsData(c.CertPEM, c.KeyPEM), wantErr: `secret type is not "kubernetes.io/tls" or "Opaque"`},
		{name: "service account token type", typ: corev1.SecretTypeServiceAccountToken, data: tlsData(c.CertPEM, c.KeyPEM), wantErr: "secret type is not"},
		{name: "missing tls.crt", typ: corev1.SecretTypeTLS, data: map[string][]byte{corev1.TLSPrivateKeyKey: c.KeyPEM}, wantErr: "missing TLS certificate"},
		{name: "missing tls.key", typ: corev1.SecretTypeTLS, data: map[string][]byte{corev1.TLSCertKey: c.CertPEM}, wantErr: "missing TLS private key"},
		{name: "empty tls.crt", typ: corev1.SecretTypeTLS, data: tlsData(nil, c.KeyPEM), wantErr: "failed to locate certificate"},
		{name: "no PEM in tls.crt", typ: corev1.SecretTypeTLS, data: tlsData([]byte("this is not PEM"), c.KeyPEM), wantErr: "failed to locate certificate"},
		{name: "DER instead of PEM", typ: corev1.SecretTypeTLS, data: tlsData(c.CertDER, c.KeyPEM), wantErr: "failed to locate certificate"},
		{name: "non-CERTIFICATE block in tls.crt", typ: corev1.SecretTypeTLS, data: tlsData(c.KeyPEM, c.KeyPEM), wantErr: "unexpected block type 'EC PRIVATE KEY'"},
		{name: "certificate then a key in tls.crt", typ: corev1.SecretTypeTLS, data: tlsData(testpki.Join(c.CertPEM, c.KeyPEM), c.KeyPEM), wantErr: "unexpected block type 'EC PRIVATE KEY'"},
		{name: "CERTIFICATE block that does not parse", typ: corev1.SecretTypeTLS, data: tlsData(testpki.PEM("CERTIFICATE", []byte("garbage")), c.KeyPEM), wantErr: "invalid TLS certificate"},
		{name: "broken PEM encoding", typ: corev1.SecretTypeTLS, data: tlsData([]byte("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n"), c.KeyPEM), wantErr: "failed to parse PEM block"},
		{name: "certificate without CN or SAN", typ: corev1.SecretTypeTLS, data: tlsData(c.NoNameCert, c.KeyPEM), wantErr: "certificate has no common name or subject alt name"},
		{name: "nameless certificate first in a bundle", typ: corev1.SecretTypeTLS, data: tlsData(testpki.Join(c.NoNameCert, c.CertPEM), c.KeyPEM), wantErr: "no common name"},
		{name: "empty tls.key", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, []byte{}), wantErr: "failed to locate private key"},
		{name: "no PEM in tls.key", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, []byte("secret")), wantErr: "failed to locate private key"},
		{name: "EC PARAMETERS only", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, c.ECParameters), wantErr: "failed to locate private key"},
		{name: "two private keys", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, testpki.Join(c.KeyPEM, c.OtherKeyPEM)), wantErr: "multiple private keys"},
		{name: "same key twice in two encodings", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, testpki.Join(c.KeyPEM, c.PKCS8KeyPEM)), wantErr: "multiple private keys"},
		{name: "certificate in tls.key", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, testpki.Join(c.CertPEM, c.KeyPEM)), wantErr: "unexpected block type 'CERTIFICATE'"},
		{name: "EC key in an RSA block", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, testpki.PEM("RSA PRIVATE KEY", c.KeyDER)), wantErr: "invalid TLS private key"},
		{name: "truncated key", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, testpki.PEM("EC PRIVATE KEY", c.KeyDER[:20])), wantErr: "invalid TLS private key"},
		{name: "PKCS#8 block holding garbage", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, testpki.PEM("PRIVATE KEY", []byte("garbage"))), wantErr: "invalid TLS private key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidTLSSecret(testpki.Secret("default", "s", tt.typ, tt.data))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("no error, want %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("error %q, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}
