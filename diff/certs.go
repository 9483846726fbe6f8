package diff

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"strings"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
)

// CertInfo identifies a certificate (the first of a chain or bundle) by what
// a reviewer checks: its SHA-256 fingerprint, subject, names and validity.
// Nothing about keys is ever read.
type CertInfo struct {
	SHA256    string    `json:"sha256"`
	Subject   string    `json:"subject"`
	Issuer    string    `json:"issuer,omitempty"`
	DNSNames  []string  `json:"dnsNames,omitempty"`
	NotBefore time.Time `json:"notBefore"`
	NotAfter  time.Time `json:"notAfter"`
	// Count is the number of certificates in the chain or bundle.
	Count int `json:"count"`
	// Error says why the certificates could not be read; the other fields
	// are then empty.
	Error string `json:"error,omitempty"`
}

// certInfo reads the PEM certificates in a DataSource. Only inline data is
// read: a file or environment variable is named instead.
func certInfo(ds *corev3.DataSource) *CertInfo {
	if ds == nil {
		return nil
	}
	var data []byte
	switch s := ds.GetSpecifier().(type) {
	case *corev3.DataSource_InlineBytes:
		data = s.InlineBytes
	case *corev3.DataSource_InlineString:
		data = []byte(s.InlineString)
	case *corev3.DataSource_Filename:
		return &CertInfo{Error: "read from file " + s.Filename}
	default:
		return &CertInfo{Error: "not inline"}
	}
	certs, err := parsePEMCertificates(data)
	if err != nil {
		return &CertInfo{Error: err.Error()}
	}
	leaf := certs[0]
	sum := sha256.Sum256(leaf.Raw)
	return &CertInfo{
		SHA256:    hex.EncodeToString(sum[:]),
		Subject:   leaf.Subject.String(),
		Issuer:    leaf.Issuer.String(),
		DNSNames:  leaf.DNSNames,
		NotBefore: leaf.NotBefore.UTC(),
		NotAfter:  leaf.NotAfter.UTC(),
		Count:     len(certs),
	}
}

// parsePEMCertificates parses every CERTIFICATE block of data, skipping
// blocks of other types without looking into them: a bundle that wrongly
// carries a key must not have the key parsed, let alone printed.
func parsePEMCertificates(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %v", len(certs)+1, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("no PEM certificate")
	}
	return certs, nil
}

// String is the certificate in one line: fingerprint (abbreviated), subject,
// names and expiry.
func (c *CertInfo) String() string {
	if c == nil {
		return ""
	}
	if c.Error != "" {
		return "unreadable certificate: " + c.Error
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sha256:%s %s", c.SHA256[:16], c.Subject)
	if len(c.DNSNames) > 0 {
		fmt.Fprintf(&b, " dns:%s", strings.Join(c.DNSNames, ","))
	}
	fmt.Fprintf(&b, " expires %s", c.NotAfter.Format(time.DateOnly))
	if c.Count > 1 {
		fmt.Fprintf(&b, " (%d certificates)", c.Count)
	}
	return b.String()
}
