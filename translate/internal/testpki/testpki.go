package testpki

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PKI is a self-signed ECDSA P-256 serving certificate and its key,
// generated once per test run, plus a few variants for the validation tests.
type PKI struct {
	CertPEM      []byte // CN "www.example.com", SAN "www.example.com"
	KeyPEM       []byte // "EC PRIVATE KEY"
	PKCS8KeyPEM  []byte // the same key as "PRIVATE KEY"
	OtherKeyPEM  []byte // another "EC PRIVATE KEY"
	NoNameCert   []byte // no CN, no SAN
	SANOnlyCert  []byte // DNS SAN only
	IPOnlyCert   []byte // IP SAN only
	CNOnlyCert   []byte // CN only
	KeyDER       []byte
	OtherKeyDER  []byte
	CertDER      []byte
	ECParameters []byte // "EC PARAMETERS" block for P-256
}

var (
	pkiOnce  sync.Once
	pkiValue PKI
	pkiErr   error
)

// Certs returns the test certificates, generating them on first use.
func Certs(t testing.TB) PKI {
	t.Helper()
	pkiOnce.Do(func() { pkiValue, pkiErr = generatePKI() })
	if pkiErr != nil {
		t.Fatalf("generating test certificates: %v", pkiErr)
	}
	return pkiValue
}

func generatePKI() (PKI, error) {
	var p PKI
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return p, err
	}
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return p, err
	}
	cert := func(cn string, dns []string, ips bool) ([]byte, error) {
		tmpl := &x509.Certificate{
			SerialNumber:          big.NewInt(time.Now().UnixNano()),
			Subject:               pkix.Name{CommonName: cn},
			DNSNames:              dns,
			NotBefore:             time.Now().Add(-time.Hour),
			NotAfter:              time.Now().Add(24 * time.Hour),
			KeyUsage:              x509.KeyUsageDigitalSignature,
			ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			BasicConstraintsValid: true,
		}
		if ips {
			tmpl.IPAddresses = append(tmpl.IPAddresses, []byte{192, 0, 2, 1})
		}
		return x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	}
	pemOf := func(typ string, der []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}) }

	if p.CertDER, err = cert("www.example.com", []string{"www.example.com"}, false); err != nil {
		return p, err
	}
	p.CertPEM = pemOf("CERTIFICATE", p.CertDER)
	for _, v := range []struct {
		dst *[]byte
		cn  string
		dns []string
		ips bool
	}{
		{&p.NoNameCert, "", nil, false},
		{&p.SANOnlyCert, "", []string{"www.example.com"}, false},
		{&p.IPOnlyCert, "", nil, true},
		{&p.CNOnlyCert, "www.example.com", nil, false},
	} {
		der, err := cert(v.cn, v.dns, v.ips)
		if err != nil {
			return p, err
		}
		*v.dst = pemOf("CERTIFICATE", der)
	}
	if p.KeyDER, err = x509.MarshalECPrivateKey(key); err != nil {
		return p, err
	}
	p.KeyPEM = pemOf("EC PRIVATE KEY", p.KeyDER)
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return p, err
	}
	p.PKCS8KeyPEM = pemOf("PRIVATE KEY", pkcs8)
	if p.OtherKeyDER, err = x509.MarshalECPrivateKey(other); err != nil {
		return p, err
	}
	p.OtherKeyPEM = pemOf("EC PRIVATE KEY", p.OtherKeyDER)
	// OID 1.2.840.10045.3.1.7 (prime256v1), as `openssl ecparam` writes it.
	p.ECParameters = pemOf("EC PARAMETERS", []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07})
	return p, nil
}

// TLSSecret is a kubernetes.io/tls Secret holding the test certificate.
func TLSSecret(t testing.TB, ns, name string) *corev1.Secret {
	c := Certs(t)
	return Secret(ns, name, corev1.SecretTypeTLS, map[string][]byte{
		corev1.TLSCertKey:       c.CertPEM,
		corev1.TLSPrivateKeyKey: c.KeyPEM,
	})
}

// Secret is a Secret of type typ holding data.
func Secret(ns, name string, typ corev1.SecretType, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: typ, Data: data}
}

// Join concatenates PEM blocks or other bytes into one bundle.
func Join(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// PEM encodes der as one PEM block of type typ.
func PEM(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
