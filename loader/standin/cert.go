package standin

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// Organization is the subject organization of every stand-in certificate,
// so that one is never taken for real material wherever it ends up.
const Organization = "contourc stand-in"

// The validity of every stand-in certificate: fixed, so that nothing in
// the output depends on the clock, and wide, so that no check of dates
// (Envoy's, a client's) fails on it today.
var (
	notBefore = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	notAfter  = time.Date(2099, 12, 31, 23, 59, 59, 0, time.UTC)
)

// certRequest is what a stand-in certificate says and the key it has.
type certRequest struct {
	commonName string
	dnsNames   []string
	ips        []net.IP
	isCA       bool
	alg        KeyAlgorithm
	size       int
	pkcs8      bool // privateKey.encoding PKCS8 (cert-manager's default is PKCS1)
}

// pemPair is a certificate and its private key, PEM-encoded as
// cert-manager writes them into tls.crt and tls.key.
type pemPair struct {
	cert, key []byte
}

// makeCert makes the self-signed certificate of req, its key and serial
// number derived from identity.
func makeCert(identity string, req certRequest) (pemPair, error) {
	r := newStream(identity)
	key, err := newKey(req.alg, req.size, r)
	if err != nil {
		return pemPair{}, err
	}
	serial := make([]byte, 16)
	if _, err := r.Read(serial); err != nil {
		return pemPair{}, err
	}
	serial[0] &= 0x7f // positive, and at most 20 octets encoded
	usage := x509.KeyUsageDigitalSignature
	if _, ok := key.(*rsa.PrivateKey); ok {
		usage |= x509.KeyUsageKeyEncipherment
	}
	if req.isCA {
		usage |= x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	}
	tmpl := &x509.Certificate{
		SerialNumber:          new(big.Int).SetBytes(serial),
		Subject:               pkix.Name{CommonName: req.commonName, Organization: []string{Organization}},
		DNSNames:              req.dnsNames,
		IPAddresses:           req.ips,
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              usage,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  req.isCA,
	}
	// A nil reader: ECDSA signs by RFC 6979, deterministically; RSA
	// PKCS #1 v1.5 and Ed25519 signatures are deterministic anyway.
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return pemPair{}, fmt.Errorf("making a stand-in certificate: %w", err)
	}
	keyPEM, err := encodeKey(key, req.pkcs8)
	if err != nil {
		return pemPair{}, err
	}
	return pemPair{cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), key: keyPEM}, nil
}

// encodeKey writes key as cert-manager does: PKCS #1 for RSA and SEC 1
// for ECDSA unless PKCS #8 is asked for; Ed25519 keys only have PKCS #8.
func encodeKey(key crypto.Signer, pkcs8 bool) ([]byte, error) {
	var block *pem.Block
	switch k := key.(type) {
	case *rsa.PrivateKey:
		if !pkcs8 {
			block = &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}
		}
	case *ecdsa.PrivateKey:
		if !pkcs8 {
			der, err := x509.MarshalECPrivateKey(k)
			if err != nil {
				return nil, err
			}
			block = &pem.Block{Type: "EC PRIVATE KEY", Bytes: der}
		}
	case ed25519.PrivateKey:
	}
	if block == nil {
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return nil, err
		}
		block = &pem.Block{Type: "PRIVATE KEY", Bytes: der}
	}
	return pem.EncodeToMemory(block), nil
}

// caIdentity is the identity of the stand-in CA of a namespace: one CA
// for all its stand-in ca.crt and crl.pem keys, so that a stand-in CRL is
// issued by the stand-in CA it is used with, as Envoy requires.
func caIdentity(namespace string) string { return "CA/" + namespace }

// makeCA makes the stand-in CA of a namespace, and, when crl is set, an
// empty revocation list it issued.
func makeCA(namespace string, crl bool) (caPEM, crlPEM []byte, err error) {
	identity := caIdentity(namespace)
	r := newStream(identity)
	key, err := newKey(ECDSA, 256, r)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: Organization + " CA " + namespace, Organization: []string{Organization}},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, fmt.Errorf("making a stand-in CA: %w", err)
	}
	caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if !crl {
		return caPEM, nil, nil
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	list, err := x509.CreateRevocationList(nil, &x509.RevocationList{Number: big.NewInt(1), ThisUpdate: notBefore, NextUpdate: notAfter}, ca, key)
	if err != nil {
		return nil, nil, fmt.Errorf("making a stand-in CRL: %w", err)
	}
	return caPEM, pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: list}), nil
}
