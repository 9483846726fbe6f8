package index

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/asn1"
	"math/big"
	"strconv"
	"testing"
)

// TestECPrivateKeyParsesAgreesWithX509 holds the shortcut against
// crypto/x509 on keys of every curve, crafted edge cases and every one-byte
// corruption and truncation of a real key.
func TestECPrivateKeyParsesAgreesWithX509(t *testing.T) {
	for _, curve := range []elliptic.Curve{elliptic.P224(), elliptic.P256(), elliptic.P384(), elliptic.P521()} {
		name := curve.Params().Name
		key, err := ecdsa.GenerateKey(curve, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		der, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		cases := map[string][]byte{"generated": der}
		for label, k := range craftedECKeys(t, der, curve) {
			cases[label] = k
		}
		for i := range der {
			for _, mask := range []byte{0x01, 0x80, 0xff} {
				c := append([]byte(nil), der...)
				c[i] ^= mask
				cases["corrupt byte "+strconv.Itoa(i)+" ^"+strconv.Itoa(int(mask))] = c
			}
			cases["truncated to "+strconv.Itoa(i)] = der[:i]
		}
		for label, c := range cases {
			_, err := x509.ParseECPrivateKey(c)
			if got, want := ecPrivateKeyParses(c), err == nil; got != want {
				t.Errorf("%s %s: ecPrivateKeyParses = %v, crypto/x509 accepts = %v (%v)", name, label, got, want, err)
			}
		}
	}
}

// craftedECKeys re-encodes der with the fields the acceptance rules look
// at pushed to their edges.
func craftedECKeys(t *testing.T, der []byte, curve elliptic.Curve) map[string][]byte {
	t.Helper()
	var base sec1PrivateKey
	if _, err := asn1.Unmarshal(der, &base); err != nil {
		t.Fatal(err)
	}
	order := curve.Params().N
	size := (order.BitLen() + 7) / 8
	scalarOf := func(n *big.Int) []byte { return n.FillBytes(make([]byte, size)) }
	one := big.NewInt(1)
	variants := map[string]func(k *sec1PrivateKey){
		"zero scalar":           func(k *sec1PrivateKey) { k.PrivateKey = make([]byte, size) },
		"scalar one":            func(k *sec1PrivateKey) { k.PrivateKey = scalarOf(one) },
		"scalar N-1":            func(k *sec1PrivateKey) { k.PrivateKey = scalarOf(new(big.Int).Sub(order, one)) },
		"scalar N":              func(k *sec1PrivateKey) { k.PrivateKey = scalarOf(order) },
		"scalar N+1":            func(k *sec1PrivateKey) { k.PrivateKey = scalarOf(new(big.Int).Add(order, one)) },
		"scalar all ones":       func(k *sec1PrivateKey) { k.PrivateKey = bytesOf(0xff, size) },
		"zero-padded scalar":    func(k *sec1PrivateKey) { k.PrivateKey = append([]byte{0, 0}, k.PrivateKey...) },
		"one-padded scalar":     func(k *sec1PrivateKey) { k.PrivateKey = append([]byte{1}, k.PrivateKey...) },
		"short scalar":          func(k *sec1PrivateKey) { k.PrivateKey = k.PrivateKey[2:] },
		"empty scalar":          func(k *sec1PrivateKey) { k.PrivateKey = nil },
		"version 0":             func(k *sec1PrivateKey) { k.Version = 0 },
		"version 2":             func(k *sec1PrivateKey) { k.Version = 2 },
		"no curve":              func(k *sec1PrivateKey) { k.NamedCurveOID = nil },
		"unknown curve":         func(k *sec1PrivateKey) { k.NamedCurveOID = asn1.ObjectIdentifier{1, 3, 132, 0, 10} },
		"no public key":         func(k *sec1PrivateKey) { k.PublicKey = asn1.BitString{} },
		"wrong public key":      func(k *sec1PrivateKey) { k.PublicKey = asn1.BitString{Bytes: []byte{4, 1, 2}, BitLength: 24} },
		"other curve P-256 OID": func(k *sec1PrivateKey) { k.NamedCurveOID = oidCurveP256 },
		"other curve P-521 OID": func(k *sec1PrivateKey) { k.NamedCurveOID = oidCurveP521 },
	}
	out := map[string][]byte{}
	for label, change := range variants {
		k := base
		change(&k)
		b, err := asn1.Marshal(k)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		out[label] = b
		out[label+" with trailing data"] = append(b, 0x05, 0x00)
	}
	return out
}

func bytesOf(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}
