package translate

// Serving-certificate Secrets: what Translate reports about a broken one
// (the checks themselves are translate/dag/index's, tested there).

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/testpki"
	corev1 "k8s.io/api/core/v1"
)

// TestSecretErrorsHideKeyMaterial: no error or notice about a broken Secret
// quotes its key material, in PEM, base64 or hex form.
func TestSecretErrorsHideKeyMaterial(t *testing.T) {
	c := testpki.Certs(t)
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
		"key DER in a CERTIFICATE":   tlsData(testpki.PEM("CERTIFICATE", c.KeyDER), c.KeyPEM),
		"key PEM pasted as tls.crt":  tlsData([]byte(keyB64), c.KeyPEM),
		"EC key in an RSA block":     tlsData(c.CertPEM, testpki.PEM("RSA PRIVATE KEY", c.KeyDER)),
		"EC key in a PKCS#8 block":   tlsData(c.CertPEM, testpki.PEM("PRIVATE KEY", c.KeyDER)),
		"truncated key":              tlsData(c.CertPEM, testpki.PEM("EC PRIVATE KEY", c.KeyDER[:len(c.KeyDER)-5])),
		"corrupted key base64":       tlsData(c.CertPEM, []byte("-----BEGIN EC PRIVATE KEY-----\n"+keyB64[:40]+"*"+keyB64[41:]+"\n-----END EC PRIVATE KEY-----\n")),
		"two keys":                   tlsData(c.CertPEM, testpki.Join(c.KeyPEM, c.OtherKeyPEM)),
		"key with a bad block type":  tlsData(c.CertPEM, testpki.PEM("ENCRYPTED PRIVATE KEY", c.KeyDER)),
		"key as raw DER":             tlsData(c.CertPEM, c.KeyDER),
		"nameless cert and key":      tlsData(c.NoNameCert, c.KeyPEM),
		"key bytes in the type line": tlsData(c.CertPEM, []byte("-----BEGIN "+keyB64[:30]+"-----\n-----END "+keyB64[:30]+"-----\n")),
	}
	for name, data := range broken {
		t.Run(name, func(t *testing.T) {
			err := index.ValidTLSSecret(testpki.Secret("default", "tls", corev1.SecretTypeTLS, data))
			if err == nil {
				t.Fatalf("secret accepted")
			}
			if what := leaks(err.Error()); what != "" {
				t.Errorf("error leaks %s: %v", what, err)
			}
			// The same through Translate: the notice must not leak either.
			ing := mkIngress("default", "i", ingTLS("tls", "foo.com"), ingRule("foo.com", ingPath(ptPrefix, "/", "kuard", 80)))
			res := translateIngressT(t, Options{}, withKuard(ing, testpki.Secret("default", "tls", corev1.SecretTypeTLS, data))...)
			mustNotice(t, res, "Ingress", "default/i", "default/tls")
			for _, n := range res.Notices {
				if what := leaks(n.String()); what != "" && name != "key bytes in the type line" {
					t.Errorf("notice leaks %s: %s", what, n)
				}
			}
		})
	}
}
