package diff

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
)

// A Secret's tls.key can change while its certificate stays: a key
// replaced by mistake, or a re-keying that forgot the certificate. Contour
// names secrets after their certificate and does not check that the pair
// belongs together, so such a change keeps the secret's name and changes
// only the redacted key; without the key's identity a diff would miss it
// while Envoy gets a new (and then refused) secret. A private key is
// therefore identified by the public key it belongs to, the one thing about
// it that may be printed.

// KeyInfo identifies a private key by the SHA-256 fingerprint of its
// public key (of the DER SubjectPublicKeyInfo, as `openssl pkey -pubout
// -outform DER | sha256sum` prints it). Nothing of the private key itself
// is kept that could be printed.
type KeyInfo struct {
	PublicKeySHA256 string `json:"publicKeySha256,omitempty"`
	// MatchesCertificate is whether the public key is the one in the
	// secret's certificate. Envoy refuses a certificate whose key does not
	// match (BoringSSL's key values mismatch), Contour does not check.
	MatchesCertificate bool `json:"matchesCertificate"`
	// Error says why the key could not be read; PublicKeySHA256 is then
	// empty.
	Error string `json:"error,omitempty"`
}

// same reports whether two keys whose data differ are the same key
// anyway: the same public key (a key re-encoded). Keys that cannot be read
// are told apart by their data only.
func (a *KeyInfo) same(b *KeyInfo) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.PublicKeySHA256 != "" && a.PublicKeySHA256 == b.PublicKeySHA256
}

// String is the key in a few words: its public key's fingerprint
// (abbreviated as certificates' are), and a warning when it is not the
// certificate's.
func (a *KeyInfo) String() string {
	if a == nil {
		return "(none)"
	}
	if a.Error != "" {
		return "unreadable private key: " + a.Error
	}
	s := "public key sha256:" + a.PublicKeySHA256[:16]
	if !a.MatchesCertificate {
		s += " (does not match the certificate: Envoy refuses the secret)"
	}
	return s
}

// keyPair is the private key of a TLS certificate secret and the
// certificate chain it should belong to, unparsed: most keys are the same
// on both sides of a diff, and parsing an RSA key costs a third of a
// millisecond, so only keys that differ are read (see keyChange).
type keyPair struct{ key, chain *corev3.DataSource }

// secretKeys returns the private key of every TLS certificate secret, by
// secret name. It runs on the unredacted resources.
func secretKeys(ss []*tlsv3.Secret) map[string]keyPair {
	out := map[string]keyPair{}
	for _, s := range ss {
		if tc := s.GetTlsCertificate(); tc != nil && tc.GetPrivateKey() != nil {
			out[s.GetName()] = keyPair{tc.GetPrivateKey(), tc.GetCertificateChain()}
		}
	}
	return out
}

// keyChange compares the private keys of one secret on both sides (the
// zero keyPair: none) and, when they differ, identifies both.
func keyChange(old, new keyPair) (changed bool, o, n *KeyInfo) {
	if proto.Equal(old.key, new.key) {
		return false, nil, nil
	}
	if old.key != nil {
		o = keyInfo(old.key, old.chain)
	}
	if new.key != nil {
		n = keyInfo(new.key, new.chain)
	}
	if o.same(n) {
		return false, nil, nil // the same key, written another way
	}
	return true, o, n
}

// keyInfo identifies the private key in key and checks it against the
// first certificate of chain.
func keyInfo(key, chain *corev3.DataSource) *KeyInfo {
	info := &KeyInfo{}
	var data []byte
	switch s := key.GetSpecifier().(type) {
	case *corev3.DataSource_InlineBytes:
		data = s.InlineBytes
	case *corev3.DataSource_InlineString:
		data = []byte(s.InlineString)
	case *corev3.DataSource_Filename:
		info.Error = "read from file " + s.Filename
		return info
	default:
		info.Error = "not inline"
		return info
	}
	spki, err := publicKeyOf(data)
	if err != nil {
		info.Error = err.Error()
		return info
	}
	sum := sha256.Sum256(spki)
	info.PublicKeySHA256 = hex.EncodeToString(sum[:])
	if certs, err := parsePEMCertificates(inlineData(chain)); err == nil {
		info.MatchesCertificate = string(certs[0].RawSubjectPublicKeyInfo) == string(spki)
	}
	return info
}

// inlineData is the data of an inline DataSource, nil otherwise.
func inlineData(ds *corev3.DataSource) []byte {
	switch s := ds.GetSpecifier().(type) {
	case *corev3.DataSource_InlineBytes:
		return s.InlineBytes
	case *corev3.DataSource_InlineString:
		return []byte(s.InlineString)
	}
	return nil
}

// publicKeyOf returns the DER SubjectPublicKeyInfo of the first private key
// in PEM data, in the encodings Contour accepts in tls.key (PKCS#8, PKCS#1
// RSA, SEC 1 EC). Errors never quote the data.
func publicKeyOf(data []byte) ([]byte, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("no PEM private key")
		}
		var key any
		var err error
		switch block.Type {
		case "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		case "RSA PRIVATE KEY":
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(block.Bytes)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s block cannot be parsed", block.Type)
		}
		pub, err := publicOf(key)
		if err != nil {
			return nil, err
		}
		return x509.MarshalPKIXPublicKey(pub)
	}
}

func publicOf(key any) (crypto.PublicKey, error) {
	switch k := key.(type) {
	case *rsa.PrivateKey:
		return k.Public(), nil
	case *ecdsa.PrivateKey:
		return k.Public(), nil
	case ed25519.PrivateKey:
		return k.Public(), nil
	}
	return nil, fmt.Errorf("unsupported private key type %T", key)
}
