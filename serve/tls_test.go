package serve

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
)

// testCA issues certificates for the mTLS tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns a certificate (DNS name "contour", as Contour's Envoys
// expect of the server) and its key, in PEM.
func (ca *testCA) issue(t *testing.T, serial int64, usage x509.ExtKeyUsage) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: "contour"},
		DNSNames:     []string{"contour"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

func (ca *testCA) clientConfig(t *testing.T, withCert bool) *tls.Config {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	cfg := &tls.Config{RootCAs: pool, ServerName: "contour", NextProtos: []string{"h2"}}
	if withCert {
		c, k := ca.issue(t, 100, x509.ExtKeyUsageClientAuth)
		pair, err := tls.X509KeyPair(c, k)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg
}

// serverSerial connects with cfg and returns the serial number of the
// server's certificate.
func serverSerial(t *testing.T, addr net.Addr, cfg *tls.Config) int64 {
	t.Helper()
	conn, err := tls.Dial("tcp", addr.String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

func TestServeMutualTLS(t *testing.T) {
	ca := newTestCA(t)
	dir := t.TempDir()
	files := TLSFiles{
		CAFile:   filepath.Join(dir, "ca.crt"),
		CertFile: filepath.Join(dir, "tls.crt"),
		KeyFile:  filepath.Join(dir, "tls.key"),
	}
	cert, key := ca.issue(t, 1, x509.ExtKeyUsageServerAuth)
	writeFile(t, files.CAFile, string(ca.pem))
	writeFile(t, files.CertFile, string(cert))
	writeFile(t, files.KeyFile, string(key))
	ts := startServer(t, []string{copyExamples(t)}, func(c *Config) { c.TLS = &files })
	addr := ts.XDSAddr().String()

	t.Run("client with a certificate", func(t *testing.T) {
		c := newSotwClient(t, addr, credentials.NewTLS(ca.clientConfig(t, true)))
		c.startADS(t)
		c.waitFor(t, "every type", (*xdsView).hasAll)
	})
	t.Run("client without a certificate", func(t *testing.T) {
		c := newSotwClient(t, addr, credentials.NewTLS(ca.clientConfig(t, false)))
		err := c.tryADS()
		if err == nil {
			waitFor(t, "the stream to fail", func() bool { return c.streamErr() != nil })
			err = c.streamErr()
		}
		// The refusal reaches the client as an alert or a closed
		// connection, depending on timing.
		if status.Code(err) != codes.Unavailable {
			t.Errorf("stream error %v, want a refused handshake", err)
		}
		c.inspect(func(v *xdsView) {
			if len(v.log) != 0 {
				t.Error("a client without a certificate was served")
			}
		})
	})
	t.Run("plaintext client", func(t *testing.T) {
		c := newSotwClient(t, addr, nil)
		if err := c.tryADS(); err == nil {
			waitFor(t, "the stream to fail", func() bool { return c.streamErr() != nil })
		}
	})
	t.Run("TLS 1.2", func(t *testing.T) {
		cfg := ca.clientConfig(t, true)
		cfg.MaxVersion = tls.VersionTLS12
		conn, err := tls.Dial("tcp", addr, cfg)
		if err == nil {
			conn.Close()
			t.Error("a TLS 1.2 handshake succeeded")
		}
	})
	t.Run("rotation", func(t *testing.T) {
		cfg := ca.clientConfig(t, true)
		if got := serverSerial(t, ts.XDSAddr(), cfg); got != 1 {
			t.Fatalf("serial %d, want 1", got)
		}
		// Half a rotation (a certificate whose key is not there yet)
		// keeps the pair that works.
		cert2, key2 := ca.issue(t, 2, x509.ExtKeyUsageServerAuth)
		writeFile(t, files.CertFile, string(cert2))
		if got := serverSerial(t, ts.XDSAddr(), cfg); got != 1 {
			t.Errorf("serial %d after a half rotation, want 1", got)
		}
		if !strings.Contains(ts.logs.String(), "cannot reload the xDS TLS certificates") {
			t.Error("the half rotation was not logged")
		}
		writeFile(t, files.KeyFile, string(key2))
		waitFor(t, "the rotated certificate", func() bool { return serverSerial(t, ts.XDSAddr(), cfg) == 2 })
		if strings.Contains(ts.logs.String(), "PRIVATE KEY") {
			t.Error("a private key was logged")
		}
	})
}

func TestNewRejectsBadCertificates(t *testing.T) {
	dir := t.TempDir()
	files := TLSFiles{CAFile: filepath.Join(dir, "ca.crt"), CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key")}
	_, err := New(Config{Paths: []string{dir}, TLS: &files, XDSAddress: "127.0.0.1:0", HTTPAddress: "127.0.0.1:0"})
	if err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("New with missing certificate files: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}
