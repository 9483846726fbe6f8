package index

// Objects and certificates for the tests of the index, built in memory as
// the loader would hand them over (translate's tests have their own).

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
)

// mkObjects wraps typed objects as loader.Objects, each with a distinct
// Source (file "<kind>.yaml", line = position in the argument list + 1).
func mkObjects(t testing.TB, objs ...metav1.Object) []loader.Object {
	t.Helper()
	out := make([]loader.Object, 0, len(objs))
	for i, o := range objs {
		var kind string
		switch o.(type) {
		case *corev1.Service:
			kind = "Service"
		case *corev1.Secret:
			kind = "Secret"
		case *networkingv1.Ingress:
			kind = "Ingress"
		case *contourv1.HTTPProxy:
			kind = "HTTPProxy"
		case *gatewayv1.Gateway:
			kind = "Gateway"
		default:
			t.Fatalf("mkObjects: unexpected object type %T", o)
		}
		out = append(out, loader.Object{Kind: kind, Obj: o, Source: loader.Source{File: strings.ToLower(kind) + ".yaml", Line: i + 1}})
	}
	return out
}

// ---- certificates -------------------------------------------------------

// testPKI is a self-signed ECDSA P-256 serving certificate and its key,
// generated once per test run, plus a few variants for the validation tests.
type testPKI struct {
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
	testPKIOnce  sync.Once
	testPKIValue testPKI
	testPKIErr   error
)

func testCerts(t testing.TB) testPKI {
	t.Helper()
	testPKIOnce.Do(func() { testPKIValue, testPKIErr = generatePKI() })
	if testPKIErr != nil {
		t.Fatalf("generating test certificates: %v", testPKIErr)
	}
	return testPKIValue
}

func generatePKI() (testPKI, error) {
	var p testPKI
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

// mkTLSSecret is a kubernetes.io/tls Secret holding the test certificate.
func mkTLSSecret(t testing.TB, ns, name string) *corev1.Secret {
	c := testCerts(t)
	return mkSecret(ns, name, corev1.SecretTypeTLS, map[string][]byte{
		corev1.TLSCertKey:       c.CertPEM,
		corev1.TLSPrivateKeyKey: c.KeyPEM,
	})
}

func mkSecret(ns, name string, typ corev1.SecretType, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: typ, Data: data}
}

func joinBytesT(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func pemEncodeT(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
