package serve

// Mutual TLS for the xDS listener, with Contour's settings: TLS 1.3 only,
// and a client certificate signed by the given CA required. Certificates
// are short-lived where this matters (cert-manager, a Kubernetes Secret
// volume), so the files are checked at every handshake and read again when
// they changed; Contour reads them at every handshake, which costs a parse
// of the key per connection for nothing. A rotation caught half done (a new
// certificate next to the old key) keeps the previous pair until the files
// change again.

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// TLSFiles are the PEM files of the xDS server's mTLS: its certificate and
// key, and the CA that Envoys' client certificates must be signed by.
type TLSFiles struct {
	CAFile, CertFile, KeyFile string
}

// fileStamp is what tells a file changed without reading it.
type fileStamp struct {
	size int64
	mod  time.Time
}

type certReloader struct {
	files TLSFiles
	log   *slog.Logger

	mu     sync.Mutex
	stamps [3]fileStamp
	config *tls.Config
}

// newCertReloader reads the files once: a server that would refuse every
// Envoy is better not started.
func newCertReloader(files TLSFiles, log *slog.Logger) (*certReloader, error) {
	r := &certReloader{files: files, log: log}
	stamps, err := r.stat()
	if err != nil {
		return nil, err
	}
	cfg, err := r.load()
	if err != nil {
		return nil, err
	}
	r.stamps, r.config = stamps, cfg
	return r, nil
}

// serverConfig is the listener's TLS configuration; the certificates come
// from GetConfigForClient at each handshake.
func (r *certReloader) serverConfig() *tls.Config {
	return &tls.Config{
		MinVersion:         tls.VersionTLS13,
		ClientAuth:         tls.RequireAndVerifyClientCert,
		GetConfigForClient: r.configForClient,
	}
}

func (r *certReloader) configForClient(*tls.ClientHelloInfo) (*tls.Config, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	stamps, err := r.stat()
	if err != nil || stamps == r.stamps {
		// A file missing for a moment (a volume being swapped) keeps
		// the configuration that was working.
		return r.config, nil
	}
	r.stamps = stamps
	cfg, err := r.load()
	if err != nil {
		r.log.Warn("cannot reload the xDS TLS certificates; keeping the previous ones", "error", err)
		return r.config, nil
	}
	r.config = cfg
	r.log.Info("reloaded the xDS TLS certificates", "cert", r.files.CertFile)
	return cfg, nil
}

func (r *certReloader) stat() ([3]fileStamp, error) {
	var out [3]fileStamp
	for i, f := range []string{r.files.CAFile, r.files.CertFile, r.files.KeyFile} {
		fi, err := os.Stat(f)
		if err != nil {
			return out, err
		}
		out[i] = fileStamp{size: fi.Size(), mod: fi.ModTime()}
	}
	return out, nil
}

func (r *certReloader) load() (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(r.files.CertFile, r.files.KeyFile)
	if err != nil {
		// LoadX509KeyPair's errors name no file; they never quote the key.
		return nil, fmt.Errorf("%s, %s: %w", r.files.CertFile, r.files.KeyFile, err)
	}
	ca, err := os.ReadFile(r.files.CAFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("%s: no CA certificate in it", r.files.CAFile)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
		MinVersion:   tls.VersionTLS13,
		NextProtos:   []string{"h2"},
	}, nil
}
