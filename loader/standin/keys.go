package standin

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"
	"sync"
)

// Stand-in keys are derived from the identity of what they stand for, so
// that the same input gives byte-identical output on every run and
// machine. crypto/rsa and crypto/ecdsa ignore the reader they are given
// since Go 1.26, so the keys are built here from a deterministic stream.
// They protect nothing: a stand-in is never served by accident (serve
// refuses them unless told), and its subject says what it is.

// KeyAlgorithm is a private key's algorithm, as cert-manager names them.
type KeyAlgorithm string

const (
	RSA     KeyAlgorithm = "RSA"
	ECDSA   KeyAlgorithm = "ECDSA"
	Ed25519 KeyAlgorithm = "Ed25519"
)

// stream is a deterministic byte stream: SHA-256 of the seed and a
// counter, block after block.
type stream struct {
	seed    [sha256.Size]byte
	counter uint64
	buf     []byte
}

func newStream(identity string) *stream {
	return &stream{seed: sha256.Sum256([]byte("contourc stand-in/" + identity))}
}

func (s *stream) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(s.buf) == 0 {
			var block [sha256.Size + 8]byte
			copy(block[:], s.seed[:])
			binary.BigEndian.PutUint64(block[sha256.Size:], s.counter)
			s.counter++
			sum := sha256.Sum256(block[:])
			s.buf = sum[:]
		}
		c := copy(p[n:], s.buf)
		s.buf = s.buf[c:]
		n += c
	}
	return n, nil
}

// newKey derives a private key of the algorithm and size asked for from r.
// size is RSA's modulus bits (2048 when 0) or ECDSA's curve bits (256
// when 0); Ed25519 has no size.
func newKey(alg KeyAlgorithm, size int, r io.Reader) (crypto.Signer, error) {
	switch alg {
	case "", RSA:
		if size == 0 {
			size = 2048
		}
		// cert-manager's bounds: 2048 to 8192 bits.
		if size < 2048 || size > 8192 {
			return nil, fmt.Errorf("RSA key size %d: want 2048 to 8192", size)
		}
		return rsaKey(size, r)
	case ECDSA:
		var curve elliptic.Curve
		switch size {
		case 0, 256:
			curve = elliptic.P256()
		case 384:
			curve = elliptic.P384()
		case 521:
			curve = elliptic.P521()
		default:
			return nil, fmt.Errorf("ECDSA key size %d: want 256, 384 or 521", size)
		}
		return ecdsaKey(curve, r)
	case Ed25519:
		seed := make([]byte, ed25519.SeedSize)
		if _, err := io.ReadFull(r, seed); err != nil {
			return nil, err
		}
		return ed25519.NewKeyFromSeed(seed), nil
	}
	return nil, fmt.Errorf("unsupported private key algorithm %q: want RSA, ECDSA or Ed25519", alg)
}

// ecdsaKey draws scalars from r until one is in [1, n-1].
func ecdsaKey(curve elliptic.Curve, r io.Reader) (*ecdsa.PrivateKey, error) {
	n := curve.Params().N
	b := make([]byte, (n.BitLen()+7)/8)
	for {
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		if extra := len(b)*8 - n.BitLen(); extra > 0 {
			b[0] &= 0xff >> extra // P-521's 521 bits in 66 bytes
		}
		d := new(big.Int).SetBytes(b)
		if d.Sign() == 0 || d.Cmp(n) >= 0 {
			continue
		}
		return ecdsa.ParseRawPrivateKey(curve, b)
	}
}

// rsaKey builds an RSA key of bits from two primes found in r.
func rsaKey(bits int, r io.Reader) (*rsa.PrivateKey, error) {
	e := big.NewInt(65537)
	one := big.NewInt(1)
	for {
		p, err := prime(bits/2, r)
		if err != nil {
			return nil, err
		}
		q, err := prime(bits-bits/2, r)
		if err != nil {
			return nil, err
		}
		if p.Cmp(q) == 0 {
			continue
		}
		n := new(big.Int).Mul(p, q)
		if n.BitLen() != bits {
			continue
		}
		phi := new(big.Int).Mul(new(big.Int).Sub(p, one), new(big.Int).Sub(q, one))
		d := new(big.Int).ModInverse(e, phi)
		if d == nil {
			continue
		}
		key := &rsa.PrivateKey{
			PublicKey: rsa.PublicKey{N: n, E: int(e.Int64())},
			D:         d,
			Primes:    []*big.Int{p, q},
		}
		key.Precompute()
		if err := key.Validate(); err != nil {
			return nil, err
		}
		return key, nil
	}
}

// smallPrimes are the odd primes below 2^16, sieved out of candidates
// before the costly primality test: all but a few percent of the odd
// numbers tried never reach it. Made on first use: every run pays for a
// package's initialisation, and only RSA stand-ins need them.
var smallPrimes = sync.OnceValue(func() []uint64 {
	const limit = 1 << 16
	composite := make([]bool, limit)
	var out []uint64
	for i := 3; i < limit; i += 2 {
		if composite[i] {
			continue
		}
		out = append(out, uint64(i))
		for j := i * i; j < limit; j += 2 * i {
			composite[j] = true
		}
	}
	return out
})

// primeWindow is how far above a starting point a prime is looked for
// before a new one is drawn; primes of 1024 bits are about 710 apart.
const primeWindow = 1 << 16

// prime finds a prime of exactly bits bits (its top two bits set, so that
// the product of two has twice as many) whose predecessor is prime to
// 65537, by an incremental search from a point drawn from r.
func prime(bits int, r io.Reader) (*big.Int, error) {
	b := make([]byte, (bits+7)/8)
	smallPrimes := smallPrimes()
	rem := make([]uint64, len(smallPrimes))
	mod := new(big.Int)
	for {
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		if extra := len(b)*8 - bits; extra > 0 {
			b[0] &= 0xff >> extra
		}
		start := new(big.Int).SetBytes(b)
		start.SetBit(start, bits-1, 1)
		start.SetBit(start, bits-2, 1)
		start.SetBit(start, 0, 1)
		for i, sp := range smallPrimes {
			rem[i] = mod.Mod(start, mod.SetUint64(sp)).Uint64()
		}
		candidate := new(big.Int)
	search:
		for delta := uint64(0); delta < primeWindow; delta += 2 {
			for i, sp := range smallPrimes {
				if (rem[i]+delta)%sp == 0 {
					continue search
				}
			}
			candidate.Add(start, new(big.Int).SetUint64(delta))
			if candidate.BitLen() != bits {
				break
			}
			if new(big.Int).Mod(candidate, big.NewInt(65537)).Int64() == 1 {
				continue
			}
			if candidate.ProbablyPrime(0) {
				return candidate, nil
			}
		}
	}
}
