package index

// A SEC 1 EC private key accepted exactly when crypto/x509 would accept it,
// without deriving its public key.
//
// Contour checks a serving Secret's "EC PRIVATE KEY" block with
// x509.ParseECPrivateKey. That derives the public point, a scalar
// multiplication which was most of the time spent checking 5,000 Secrets;
// the check only needs to know whether the key would parse. Go accepts a key
// when its ASN.1 reads as SEC 1's ECPrivateKey, its version is 1, it names
// one of the four NIST curves, the scalar (after leading zero bytes are
// dropped) fits the curve's order size, and the scalar lies in [1, N-1]:
// ecdsa.ParseRawPrivateKey fails for zero and for N or more. A test holds
// this against crypto/x509 on mutated keys of every curve.

import (
	"crypto/elliptic"
	"encoding/asn1"
	"math/big"
)

// sec1PrivateKey is SEC 1's ECPrivateKey (RFC 5915), as crypto/x509 reads it.
type sec1PrivateKey struct {
	Version       int
	PrivateKey    []byte
	NamedCurveOID asn1.ObjectIdentifier `asn1:"optional,explicit,tag:0"`
	PublicKey     asn1.BitString        `asn1:"optional,explicit,tag:1"`
}

// The named curves crypto/x509 knows (RFC 5480).
var (
	oidCurveP224 = asn1.ObjectIdentifier{1, 3, 132, 0, 33}
	oidCurveP256 = asn1.ObjectIdentifier{1, 2, 840, 10045, 3, 1, 7}
	oidCurveP384 = asn1.ObjectIdentifier{1, 3, 132, 0, 34}
	oidCurveP521 = asn1.ObjectIdentifier{1, 3, 132, 0, 35}
)

func curveByOID(oid asn1.ObjectIdentifier) elliptic.Curve {
	switch {
	case oid.Equal(oidCurveP224):
		return elliptic.P224()
	case oid.Equal(oidCurveP256):
		return elliptic.P256()
	case oid.Equal(oidCurveP384):
		return elliptic.P384()
	case oid.Equal(oidCurveP521):
		return elliptic.P521()
	}
	return nil
}

// ecPrivateKeyParses reports whether x509.ParseECPrivateKey(der) would
// succeed.
func ecPrivateKeyParses(der []byte) bool {
	var key sec1PrivateKey
	if _, err := asn1.Unmarshal(der, &key); err != nil || key.Version != 1 {
		return false
	}
	curve := curveByOID(key.NamedCurveOID)
	if curve == nil {
		return false
	}
	order := curve.Params().N
	scalar := key.PrivateKey
	for len(scalar) > (order.BitLen()+7)/8 {
		if scalar[0] != 0 {
			return false
		}
		scalar = scalar[1:]
	}
	d := new(big.Int).SetBytes(scalar)
	return d.Sign() > 0 && d.Cmp(order) < 0
}
