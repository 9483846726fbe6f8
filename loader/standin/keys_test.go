package standin

import (
	"bytes"
	"crypto/x509"
	"testing"
)

func TestKeysAreDeterministic(t *testing.T) {
	for _, tc := range []struct {
		alg  KeyAlgorithm
		size int
	}{{RSA, 2048}, {RSA, 0}, {ECDSA, 256}, {ECDSA, 384}, {ECDSA, 521}, {Ed25519, 0}} {
		a, err := newKey(tc.alg, tc.size, newStream("Certificate/web/web"))
		if err != nil {
			t.Fatalf("%s %d: %v", tc.alg, tc.size, err)
		}
		b, _ := newKey(tc.alg, tc.size, newStream("Certificate/web/web"))
		c, _ := newKey(tc.alg, tc.size, newStream("Certificate/web/other"))
		da, _ := x509.MarshalPKCS8PrivateKey(a)
		db, _ := x509.MarshalPKCS8PrivateKey(b)
		dc, _ := x509.MarshalPKCS8PrivateKey(c)
		if !bytes.Equal(da, db) {
			t.Errorf("%s %d: two keys of one identity differ", tc.alg, tc.size)
		}
		if bytes.Equal(da, dc) {
			t.Errorf("%s %d: keys of two identities are the same", tc.alg, tc.size)
		}
	}
}

func TestKeySizesRefused(t *testing.T) {
	for _, tc := range []struct {
		alg  KeyAlgorithm
		size int
	}{{RSA, 1024}, {ECDSA, 255}, {"DSA", 0}} {
		if _, err := newKey(tc.alg, tc.size, newStream("x")); err == nil {
			t.Errorf("%s %d: no error", tc.alg, tc.size)
		}
	}
}

func BenchmarkRSA2048(b *testing.B) {
	for i := range b.N {
		if _, err := newKey(RSA, 2048, newStream(string(rune(i)))); err != nil {
			b.Fatal(err)
		}
	}
}
