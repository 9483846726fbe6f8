package index

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
)

// Validation of Secrets, with Contour's rules. Messages describe structure
// only: they never quote key material.

// ValidTLSSecret checks a serving certificate Secret: type kubernetes.io/tls
// or Opaque, tls.crt holding certificates whose first one names a host,
// tls.key holding exactly one private key. Like Contour, it does not check
// that key and certificate match, nor expiry.
func ValidTLSSecret(s *corev1.Secret) error {
	if s.Type != corev1.SecretTypeTLS && s.Type != corev1.SecretTypeOpaque {
		return fmt.Errorf("secret type is not %q or %q", corev1.SecretTypeTLS, corev1.SecretTypeOpaque)
	}
	crt, ok := s.Data[corev1.TLSCertKey]
	if !ok {
		return errors.New("missing TLS certificate")
	}
	if err := validateServingBundle(crt); err != nil {
		return fmt.Errorf("invalid TLS certificate: %w", err)
	}
	key, ok := s.Data[corev1.TLSPrivateKeyKey]
	if !ok {
		return errors.New("missing TLS private key")
	}
	if err := validatePrivateKey(key); err != nil {
		return fmt.Errorf("invalid TLS private key: %w", err)
	}
	return nil
}

// hasPEMHeader reports whether data still holds a "-----BEGIN ...-----"
// line; like Contour, trailing non-PEM text after the last block is ignored.
func hasPEMHeader(data []byte) bool {
	start := bytes.Index(data, []byte("-----BEGIN"))
	if start == -1 {
		return false
	}
	end := bytes.Index(data[start+10:], []byte("-----"))
	return end != -1 && !bytes.Contains(data[start:start+10+end], []byte("\n"))
}

// pemLabel matches a plausible PEM block type; anything else is not quoted
// back in messages, since it may be key material pasted into a BEGIN line.
var pemLabel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z0-9 ]{1,40}$`) })

func unexpectedBlock(blockType string) error {
	if pemLabel().MatchString(blockType) {
		return fmt.Errorf("unexpected block type '%s'", blockType)
	}
	return errors.New("unexpected block type")
}

// pemBlocks calls visit for each PEM block in data.
type pemBlock = pem.Block

func pemBlocks(data []byte, visit func(*pemBlock) error) error {
	for hasPEMHeader(data) {
		var block *pem.Block
		block, data = decodePEM(data)
		if block == nil {
			return errors.New("failed to parse PEM block")
		}
		if err := visit(block); err != nil {
			return err
		}
	}
	return nil
}

func validateServingBundle(data []byte) error {
	n := 0
	err := pemBlocks(data, func(b *pem.Block) error {
		if b.Type != "CERTIFICATE" {
			return unexpectedBlock(b.Type)
		}
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return err
		}
		if n == 0 && strings.TrimSpace(cert.Subject.CommonName) == "" && len(cert.DNSNames) == 0 && len(cert.IPAddresses) == 0 {
			return errors.New("certificate has no common name or subject alt name")
		}
		n++
		return nil
	})
	if err == nil && n == 0 {
		err = errors.New("failed to locate certificate")
	}
	return err
}

var errECKey = errors.New("EC private key does not parse")

func validatePrivateKey(data []byte) error {
	keys := 0
	err := pemBlocks(data, func(b *pem.Block) error {
		var err error
		switch b.Type {
		case "PRIVATE KEY":
			_, err = x509.ParsePKCS8PrivateKey(b.Bytes)
		case "RSA PRIVATE KEY":
			_, err = x509.ParsePKCS1PrivateKey(b.Bytes)
		case "EC PRIVATE KEY":
			if !ecPrivateKeyParses(b.Bytes) {
				err = errECKey
			}
		case "EC PARAMETERS":
			return nil
		default:
			return unexpectedBlock(b.Type)
		}
		if err != nil {
			// The parser's message can describe the key's bytes; keep it generic.
			return fmt.Errorf("%s block does not parse", b.Type)
		}
		keys++
		return nil
	})
	switch {
	case err != nil:
		return err
	case keys == 0:
		return errors.New("failed to locate private key")
	case keys > 1:
		return errors.New("multiple private keys")
	}
	return nil
}

// validJWKSSecret checks a local JWKS Secret: type Opaque, and in key a
// JSON object with a "keys" array (RFC 7517), as Contour requires.
func validJWKSSecret(s *corev1.Secret, key string) error {
	if s.Type != corev1.SecretTypeOpaque {
		return fmt.Errorf("secret type is not %q", corev1.SecretTypeOpaque)
	}
	data, ok := s.Data[key]
	if !ok || len(data) == 0 {
		return fmt.Errorf("missing %q key or empty value", key)
	}
	return validJWKS(data)
}

// validJWKS checks the shape of a JWKS document, not the keys in it.
func validJWKS(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return errors.New("empty JWKS")
	}
	// Envoy takes the document as a protobuf string, which must be UTF-8;
	// Go's JSON decoder would let invalid bytes through.
	if !utf8.Valid(data) {
		return errors.New("not valid JSON: invalid UTF-8")
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("not valid JSON: %s", jsonErrorWithoutData(err))
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return errors.New("JWKS must be a JSON object")
	}
	keys, ok := obj["keys"]
	if !ok {
		return errors.New(`JWKS must contain a "keys" array`)
	}
	if _, ok := keys.([]any); !ok {
		return errors.New(`JWKS "keys" must be an array`)
	}
	return nil
}

// jsonErrorWithoutData is a JSON syntax error's message without the
// character it quotes from the document: Secret data stays out of status.
func jsonErrorWithoutData(err error) string {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) && strings.HasPrefix(syntax.Error(), "invalid character") {
		return fmt.Sprintf("invalid character at offset %d", syntax.Offset)
	}
	return err.Error()
}
