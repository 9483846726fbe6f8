package translate

// Serving-certificate Secret validation (reference map A.14; Contour's
// internal/dag/secret.go and secret_test.go).

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"strings"
	"sync"
	"testing"

	"github.com/contourc/contourc/translate/dag/index"
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

func joinBytesT(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func pemEncodeT(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func TestValidTLSSecret(t *testing.T) {
	c := testCerts(t)
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
		{name: "EC PARAMETERS before the key are ignored", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, joinBytesT(c.ECParameters, c.KeyPEM))},
		{name: "EC PARAMETERS after the key are ignored", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, joinBytesT(c.KeyPEM, c.ECParameters))},
		{name: "SAN-only certificate", typ: corev1.SecretTypeTLS, data: tlsData(c.SANOnlyCert, c.KeyPEM)},
		{name: "IP-SAN-only certificate", typ: corev1.SecretTypeTLS, data: tlsData(c.IPOnlyCert, c.KeyPEM)},
		{name: "CN-only certificate", typ: corev1.SecretTypeTLS, data: tlsData(c.CNOnlyCert, c.KeyPEM)},
		// Only the first certificate of a bundle needs a name.
		{name: "bundle with a nameless intermediate", typ: corev1.SecretTypeTLS, data: tlsData(joinBytesT(c.CertPEM, c.NoNameCert), c.KeyPEM)},
		{name: "trailing text after the PEM", typ: corev1.SecretTypeTLS, data: tlsData(joinBytesT(c.CertPEM, []byte("# trailing comment\n")), joinBytesT(c.KeyPEM, []byte("\n\n")))},
		{name: "leading text before the PEM", typ: corev1.SecretTypeTLS, data: tlsData(joinBytesT([]byte("subject=CN = www.example.com\n"), c.CertPEM), c.KeyPEM)},

		{name: "wrong type", typ: corev1.SecretTypeDockerConfigJson, data: tlsData(c.CertPEM, c.KeyPEM), wantErr: `secret type is not "kubernetes.io/tls" or "Opaque"`},
		{name: "service account token type", typ: corev1.SecretTypeServiceAccountToken, data: tlsData(c.CertPEM, c.KeyPEM), wantErr: "secret type is not"},
		{name: "missing tls.crt", typ: corev1.SecretTypeTLS, data: map[string][]byte{corev1.TLSPrivateKeyKey: c.KeyPEM}, wantErr: "missing TLS certificate"},
		{name: "missing tls.key", typ: corev1.SecretTypeTLS, data: map[string][]byte{corev1.TLSCertKey: c.CertPEM}, wantErr: "missing TLS private key"},
		{name: "empty tls.crt", typ: corev1.SecretTypeTLS, data: tlsData(nil, c.KeyPEM), wantErr: "failed to locate certificate"},
		{name: "no PEM in tls.crt", typ: corev1.SecretTypeTLS, data: tlsData([]byte("this is not PEM"), c.KeyPEM), wantErr: "failed to locate certificate"},
		{name: "DER instead of PEM", typ: corev1.SecretTypeTLS, data: tlsData(c.CertDER, c.KeyPEM), wantErr: "failed to locate certificate"},
		{name: "non-CERTIFICATE block in tls.crt", typ: corev1.SecretTypeTLS, data: tlsData(c.KeyPEM, c.KeyPEM), wantErr: "unexpected block type 'EC PRIVATE KEY'"},
		{name: "certificate then a key in tls.crt", typ: corev1.SecretTypeTLS, data: tlsData(joinBytesT(c.CertPEM, c.KeyPEM), c.KeyPEM), wantErr: "unexpected block type 'EC PRIVATE KEY'"},
		{name: "CERTIFICATE block that does not parse", typ: corev1.SecretTypeTLS, data: tlsData(pemEncodeT("CERTIFICATE", []byte("garbage")), c.KeyPEM), wantErr: "invalid TLS certificate"},
		{name: "broken PEM encoding", typ: corev1.SecretTypeTLS, data: tlsData([]byte("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n"), c.KeyPEM), wantErr: "failed to parse PEM block"},
		{name: "certificate without CN or SAN", typ: corev1.SecretTypeTLS, data: tlsData(c.NoNameCert, c.KeyPEM), wantErr: "certificate has no common name or subject alt name"},
		{name: "nameless certificate first in a bundle", typ: corev1.SecretTypeTLS, data: tlsData(joinBytesT(c.NoNameCert, c.CertPEM), c.KeyPEM), wantErr: "no common name"},
		{name: "empty tls.key", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, []byte{}), wantErr: "failed to locate private key"},
		{name: "no PEM in tls.key", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, []byte("secret")), wantErr: "failed to locate private key"},
		{name: "EC PARAMETERS only", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, c.ECParameters), wantErr: "failed to locate private key"},
		{name: "two private keys", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, joinBytesT(c.KeyPEM, c.OtherKeyPEM)), wantErr: "multiple private keys"},
		{name: "same key twice in two encodings", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, joinBytesT(c.KeyPEM, c.PKCS8KeyPEM)), wantErr: "multiple private keys"},
		{name: "certificate in tls.key", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, joinBytesT(c.CertPEM, c.KeyPEM)), wantErr: "unexpected block type 'CERTIFICATE'"},
		{name: "EC key in an RSA block", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, pemEncodeT("RSA PRIVATE KEY", c.KeyDER)), wantErr: "invalid TLS private key"},
		{name: "truncated key", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, pemEncodeT("EC PRIVATE KEY", c.KeyDER[:20])), wantErr: "invalid TLS private key"},
		{name: "PKCS#8 block holding garbage", typ: corev1.SecretTypeTLS, data: tlsData(c.CertPEM, pemEncodeT("PRIVATE KEY", []byte("garbage"))), wantErr: "invalid TLS private key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := index.ValidTLSSecret(mkSecret("default", "s", tt.typ, tt.data))
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

// TestSecretErrorsHideKeyMaterial: no error or notice about a broken Secret
// quotes its key material, in PEM, base64 or hex form.
func TestSecretErrorsHideKeyMaterial(t *testing.T) {
	c := testCerts(t)
	keyB64 := base64.StdEncoding.EncodeToString(c.KeyDER)
	otherB64 := base64.StdEncoding.EncodeToString(c.OtherKeyDER)
	// Fragments that must never appear: PEM armour, any 12-character run of
	// the keys' base64 or hex, the raw DER.
	var secrets []string
	for _, s := range []string{keyB64, otherB64, hex.EncodeToString(c.KeyDER), hex.EncodeToString(c.OtherKeyDER)} {
		for i := 0; i+12 <= len(s); i += 6 {
			secrets = append(secrets, s[i:i+12])
		}
	}
	leaks := func(msg string) string {
		if strings.Contains(msg, "-----") || strings.Contains(msg, "BEGIN") {
			return "PEM armour"
		}
		if bytes.Contains([]byte(msg), c.KeyDER[7:19]) || bytes.Contains([]byte(msg), c.OtherKeyDER[7:19]) {
			return "raw key bytes"
		}
		for _, s := range secrets {
			if strings.Contains(msg, s) {
				return "encoded key bytes " + s
			}
		}
		return ""
	}
	tlsData := func(crt, key []byte) map[string][]byte {
		return map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}
	}
	broken := map[string]map[string][]byte{
		"key in tls.crt":             tlsData(c.KeyPEM, c.KeyPEM),
		"key DER in a CERTIFICATE":   tlsData(pemEncodeT("CERTIFICATE", c.KeyDER), c.KeyPEM),
		"key PEM pasted as tls.crt":  tlsData([]byte(keyB64), c.KeyPEM),
		"EC key in an RSA block":     tlsData(c.CertPEM, pemEncodeT("RSA PRIVATE KEY", c.KeyDER)),
		"EC key in a PKCS#8 block":   tlsData(c.CertPEM, pemEncodeT("PRIVATE KEY", c.KeyDER)),
		"truncated key":              tlsData(c.CertPEM, pemEncodeT("EC PRIVATE KEY", c.KeyDER[:len(c.KeyDER)-5])),
		"corrupted key base64":       tlsData(c.CertPEM, []byte("-----BEGIN EC PRIVATE KEY-----\n"+keyB64[:40]+"*"+keyB64[41:]+"\n-----END EC PRIVATE KEY-----\n")),
		"two keys":                   tlsData(c.CertPEM, joinBytesT(c.KeyPEM, c.OtherKeyPEM)),
		"key with a bad block type":  tlsData(c.CertPEM, pemEncodeT("ENCRYPTED PRIVATE KEY", c.KeyDER)),
		"key as raw DER":             tlsData(c.CertPEM, c.KeyDER),
		"nameless cert and key":      tlsData(c.NoNameCert, c.KeyPEM),
		"key bytes in the type line": tlsData(c.CertPEM, []byte("-----BEGIN "+keyB64[:30]+"-----\n-----END "+keyB64[:30]+"-----\n")),
	}
	for name, data := range broken {
		t.Run(name, func(t *testing.T) {
			err := index.ValidTLSSecret(mkSecret("default", "tls", corev1.SecretTypeTLS, data))
			if err == nil {
				t.Fatalf("secret accepted")
			}
			if what := leaks(err.Error()); what != "" {
				t.Errorf("error leaks %s: %v", what, err)
			}
			// The same through Translate: the notice must not leak either.
			ing := mkIngress("default", "i", ingTLS("tls", "foo.com"), ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)))
			res := translateIngressT(t, Options{}, withKuard(ing, mkSecret("default", "tls", corev1.SecretTypeTLS, data))...)
			mustNotice(t, res, "Ingress", "default/i", "default/tls")
			for _, n := range res.Notices {
				if what := leaks(n.String()); what != "" && name != "key bytes in the type line" {
					t.Errorf("notice leaks %s: %s", what, n)
				}
			}
		})
	}
}
