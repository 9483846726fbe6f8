package index

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"math/rand"
	"testing"

	"github.com/contourc/contourc/translate/internal/testpki"
)

// TestDecodePEMMatchesPEMDecode decodes many layouts, plain and not, and
// random edits of them, block after block with decodePEM and with
// pem.Decode, and compares every block and what is left.
func TestDecodePEMMatchesPEMDecode(t *testing.T) {
	c := testpki.Certs(t)
	cert, key := string(c.CertPEM), string(c.KeyPEM)
	inputs := []string{
		cert, key, string(c.PKCS8KeyPEM), cert + cert + key, cert + "\n", "junk\n" + cert, cert + "trailing text",
		withCRLF(cert), withTrailingSpaces(cert), "-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n" + pemBody(cert) + "-----END CERTIFICATE-----\n",
		"-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n", "-----BEGIN X-----\n!!!!\n-----END X-----\n",
		"-----BEGIN X-----\nAAAA\n-----END Y-----\n", "-----BEGIN X-----\nAAAA\n", "-----BEGIN X-----\nAAAA\n-----END X-----",
		"-----BEGIN x-----\nAAAA\n-----END x-----\n", "-----BEGIN A-B-----\nAAAA\n-----END A-B-----\n",
		"-----BEGIN X-----\n-----BEGIN X-----\nAAAA\n-----END X-----\n", "-----BEGIN X-----\nAA\n\nAA\n-----END X-----\n",
		"-----BEGIN X-----\nAA=A\n-----END X-----\n", "-----BEGIN X -----\nAAAA\n-----END X -----\n", "-----BEGIN -----\nAAAA\n-----END -----\n",
		"-----BEGIN X-----\nAAAA\n-----END X----- \n", "-----BEGIN X-----\nAAAA\n-----END X-----\r\n", "",
	}
	rng := rand.New(rand.NewSource(3))
	special := []byte("-: \t\r\n=A/+ENDBGIx")
	for range 20000 {
		b := []byte(inputs[rng.Intn(8)])
		for range 1 + rng.Intn(3) {
			i := rng.Intn(len(b) + 1)
			switch rng.Intn(3) {
			case 0:
				b = append(b[:i], append([]byte{special[rng.Intn(len(special))]}, b[i:]...)...)
			case 1:
				if i < len(b) {
					b[i] = special[rng.Intn(len(special))]
				}
			default:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			}
		}
		inputs = append(inputs, string(b))
	}
	fast := 0
	for _, in := range inputs {
		if _, _, ok := decodePlainPEM([]byte(in)); ok {
			fast++
		}
		if got, want := decodedBlocks([]byte(in), decodePEM), decodedBlocks([]byte(in), pem.Decode); got != want {
			t.Fatalf("input %q:\ndecodePEM: %s\npem.Decode: %s", in, got, want)
		}
	}
	if _, _, ok := decodePlainPEM(c.CertPEM); !ok || fast < 1000 {
		t.Fatalf("the fast path took %d inputs (a certificate: %v): the test compares little", fast, ok)
	}
}

// decodedBlocks describes every block decode finds in data, and the rest.
func decodedBlocks(data []byte, decode func([]byte) (*pem.Block, []byte)) string {
	var out bytes.Buffer
	for range 10 {
		b, rest := decode(data)
		if b == nil {
			fmt.Fprintf(&out, "nil rest=%q", rest)
			return out.String()
		}
		fmt.Fprintf(&out, "[%q %x headers=%v] ", b.Type, b.Bytes, b.Headers)
		data = rest
	}
	return out.String()
}

func withCRLF(s string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte("\n"), []byte("\r\n")))
}

func withTrailingSpaces(s string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte("\n"), []byte(" \n")))
}

// pemBody is the base64 lines of a PEM block.
func pemBody(p string) string {
	lines := bytes.Split([]byte(p), []byte("\n"))
	return string(bytes.Join(lines[1:len(lines)-2], []byte("\n"))) + "\n"
}
