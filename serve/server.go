package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/engines"
	"github.com/contourc/contourc/render"
	"github.com/contourc/contourc/translate"
)

// Config is what a Server serves and how.
type Config struct {
	// Paths are the manifest files and directories, read as `contourc
	// render` reads them, and watched.
	Paths []string
	// Options returns the translation options, the same as render's. It is
	// called at every reload, so that a file it reads (Contour's
	// configuration file) is read again with the manifests.
	Options func() (translate.Options, error)
	// Load says how the paths are read: --exclude, -n and Flux
	// variables (its Cache and Rehash are serve's own).
	Load loader.Options
	// Watch are more files to watch, not read as manifests: those Options
	// reads.
	Watch []string
	// XDSAddress and HTTPAddress are host:port to listen on; port 0 picks
	// a free port (see Server.XDSAddr, Server.HTTPAddr).
	XDSAddress  string
	HTTPAddress string
	// ConfigSource says which Envoys the resources are for (ADS when empty).
	ConfigSource ConfigSource
	// TLS, when set, makes the xDS listener require mutual TLS.
	TLS *TLSFiles
	// Holdoff and HoldoffMax debounce file changes (debounce.go); zero
	// means Contour's 100 ms and 500 ms.
	Holdoff, HoldoffMax time.Duration
	// TruncationGrace is how long a file caught half written holds
	// reloads back (DefaultTruncationGrace when zero, none when negative;
	// truncation.go).
	TruncationGrace time.Duration
	// ReloadTimeout is how long a reload may take before it is abandoned
	// and counted as failed (DefaultReloadTimeout when zero; deadline.go).
	ReloadTimeout time.Duration
	// ShutdownTimeout bounds a graceful stop before connections are cut
	// (10 s when zero).
	ShutdownTimeout time.Duration
	// Log receives the server's logs (slog.Default when nil); it is wrapped
	// so that no private key can reach it.
	Log *slog.Logger
	// Prepare, when set, is given what each reload loaded before it is
	// translated, and may add to it (stand-ins are added so); an error
	// fails the reload, keeping the last good configuration. The function
	// it returns, when not nil, is given the reload's status to annotate
	// (with the stand-ins each object rests on) before it is served.
	Prepare func(*loader.Result) (func([]translate.ObjectStatus), error)
	// Select, when set, is given each reload's objects and options after
	// Prepare, and returns the options of the one Contour instance served
	// (contourc's --instance) and a function that completes the status
	// list (the objects no instance serves); an error fails the reload.
	Select func(*loader.Result, translate.Options) (translate.Options, func([]translate.ObjectStatus) []translate.ObjectStatus, error)
	// Judge says whether Contour would call an object's status valid and,
	// if not, why; nil counts every object valid.
	Judge func(translate.ObjectStatus) (ok bool, why string)
}

// Default listen addresses: Contour's xDS port and contourc's HTTP port,
// on loopback so nothing is exposed unless asked for.
const (
	DefaultXDSAddress  = "127.0.0.1:8001"
	DefaultHTTPAddress = "127.0.0.1:8000"
)

func (c Config) withDefaults() Config {
	if c.XDSAddress == "" {
		c.XDSAddress = DefaultXDSAddress
	}
	if c.HTTPAddress == "" {
		c.HTTPAddress = DefaultHTTPAddress
	}
	if c.ConfigSource == "" {
		c.ConfigSource = ConfigSourceADS
	}
	if c.Holdoff <= 0 {
		c.Holdoff = 100 * time.Millisecond
	}
	if c.HoldoffMax <= 0 {
		c.HoldoffMax = 500 * time.Millisecond
	}
	if c.TruncationGrace == 0 {
		c.TruncationGrace = DefaultTruncationGrace
	}
	if c.ReloadTimeout <= 0 {
		c.ReloadTimeout = DefaultReloadTimeout
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = 10 * time.Second
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	return c
}

// Server serves one Config. New prepares everything that can fail at once
// (paths, certificates, listening sockets); Run serves until its context
// ends.
type Server struct {
	cfg   Config
	log   *slog.Logger
	watch *watcher
	cache *xdsCache
	// caches are what a reload reuses from the one before (deadline.go).
	caches *caches
	// building counts the reloads running: the one under way, and those
	// abandoned at their deadline and still blocked (deadline.go).
	building atomic.Int32
	metrics  *metrics
	// suspects are the files caught half written, holding reloads back
	// (truncation.go); only the loop uses it.
	suspects map[string]suspect
	streams  *streamTracker
	certs    *certReloader // nil without TLS

	xdsListener, httpListener net.Listener

	// validate checks resources before they are served; tests replace it
	// to make a reload fail validation.
	validate func(*translate.Resources) error
	// load reads the files (loader.Load); tests replace it with one that
	// blocks.
	load func([]string, loader.Options) (*loader.Result, error)

	// force asks for a reload now (SIGHUP).
	force chan struct{}

	// current is what is being served, nil until the first good reload.
	current atomic.Pointer[published]
	reports reportLog
	started atomic.Bool

	// release hands memory back once reloads pause (reload.go).
	releaseMu    sync.Mutex
	releaseTimer *time.Timer
	releases     sync.WaitGroup
}

// published is the last good reload.
type published struct {
	snap   *snapshot
	status []translate.ObjectStatus
	graph  graphFacts
}

// New checks cfg and binds the listeners.
func New(cfg Config) (_ *Server, err error) {
	cfg = cfg.withDefaults()
	if cfg.HoldoffMax < cfg.Holdoff {
		return nil, fmt.Errorf("the maximum hold-off (%s) is shorter than the hold-off (%s)", cfg.HoldoffMax, cfg.Holdoff)
	}
	if _, err := ParseConfigSource(string(cfg.ConfigSource)); err != nil {
		return nil, err
	}
	if len(cfg.Paths) == 0 {
		return nil, errors.New("no path to serve")
	}
	if cfg.Options == nil {
		cfg.Options = func() (translate.Options, error) { return translate.Options{}, nil }
	}
	log := slog.New(RedactingHandler(cfg.Log.Handler()))
	s := &Server{
		cfg:      cfg,
		log:      log,
		caches:   newCaches(),
		suspects: map[string]suspect{},
		metrics:  newMetrics(),
		validate: render.Validate,
		load:     loader.Load,
		force:    make(chan struct{}, 1),
	}
	s.cache = newXDSCache(controlPlaneLogger{log}, newSubscriptions(s.servedSet))
	s.streams = newStreamTracker(s.metrics, log)
	s.streams.subs, s.streams.internVersions = s.cache.subs, s.internVersions
	defer func() {
		if err != nil {
			s.closeAll(false)
		}
	}()
	if cfg.TLS != nil {
		if s.certs, err = newCertReloader(*cfg.TLS, log); err != nil {
			return nil, fmt.Errorf("xDS TLS: %w", err)
		}
	}
	if s.watch, err = newWatcher(append(slices.Clip(cfg.Paths), cfg.Watch...), log); err != nil {
		return nil, err
	}
	if s.xdsListener, err = net.Listen("tcp", cfg.XDSAddress); err != nil {
		return nil, fmt.Errorf("xDS server: %w", err)
	}
	if s.httpListener, err = net.Listen("tcp", cfg.HTTPAddress); err != nil {
		return nil, fmt.Errorf("HTTP server: %w", err)
	}
	return s, nil
}

// XDSAddr is the address the xDS server listens on.
func (s *Server) XDSAddr() net.Addr { return s.xdsListener.Addr() }

// HTTPAddr is the address of the health, metrics and debug endpoints.
func (s *Server) HTTPAddr() net.Addr { return s.httpListener.Addr() }

// Version is the version of the configuration being served, "" before the
// first good reload.
func (s *Server) Version() string {
	if p := s.current.Load(); p != nil {
		return p.snap.version
	}
	return ""
}

// Reload asks for the files to be read again now, without waiting for a
// file event (what SIGHUP does). It does not wait for the reload.
func (s *Server) Reload() {
	select {
	case s.force <- struct{}{}:
	default: // one is already pending
	}
}

// Run serves until ctx ends, then stops gracefully: xDS streams are ended,
// in-flight requests get ShutdownTimeout to finish. It returns an error
// only when a listener failed. A Server runs once.
func (s *Server) Run(ctx context.Context) error {
	if !s.started.CompareAndSwap(false, true) {
		return errors.New("serve: Run called twice")
	}
	// The contourc-engines process a reload starts (charts, Flux
	// Kustomizations) stays for the next: starting it is about 20 ms of
	// every such reload, where it idles at about 30 MB.
	defer engines.Hold()()
	var creds credentials.TransportCredentials
	if s.certs != nil {
		creds = credentials.NewTLS(s.certs.serverConfig())
		s.log.Info("xDS server requires mutual TLS", "ca", s.cfg.TLS.CAFile, "cert", s.cfg.TLS.CertFile)
	} else {
		s.log.Warn("xDS server without TLS: any client that can connect gets the configuration, secrets included; use --contour-cafile, --contour-cert-file and --contour-key-file beyond loopback")
	}
	// Streams run under their own context, cancelled at shutdown before
	// GracefulStop, which would otherwise wait for them forever.
	streamCtx, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	grpcServer := newGRPCServer(streamCtx, s.cache.mux, s.streams.callbacks(), creds, s.log)
	httpServer := &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}

	var wg sync.WaitGroup
	failed := make(chan error, 2)
	wg.Go(func() {
		if err := grpcServer.Serve(s.xdsListener); err != nil {
			failed <- fmt.Errorf("xDS server: %w", err)
		}
	})
	wg.Go(func() {
		if err := httpServer.Serve(s.httpListener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			failed <- fmt.Errorf("HTTP server: %w", err)
		}
	})
	wg.Go(s.watch.run)
	s.log.Info("serving xDS", "address", s.XDSAddr().String(), "config_source", string(s.cfg.ConfigSource))
	s.log.Info("serving health, metrics and debug endpoints", "address", s.HTTPAddr().String())

	err := s.loop(ctx, failed)

	s.log.Info("shutting down")
	endStreams()
	s.stop(grpcServer, httpServer)
	s.closeAll(true)
	wg.Wait()
	return err
}

// loop reloads at start, then whenever the debounced file events or Reload
// ask for it, until ctx ends or a listener fails. Reloads run one at a
// time, the loop waiting for each (but for one past its deadline, left
// behind: deadline.go); events that arrive meanwhile start the next burst.
func (s *Server) loop(ctx context.Context, failed <-chan error) error {
	d := debounce{holdoff: s.cfg.Holdoff, max: s.cfg.HoldoffMax}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var due <-chan time.Time
	// held is the reason of a reload held back, for when it is due.
	held := ""
	// reload reloads, or, when a file looks half written, waits for it
	// (truncation.go).
	reload := func(reason string) {
		d.fired()
		if held == reloadRequested {
			reason = held // a held SIGHUP still rereads everything
		}
		held = ""
		if wait := s.truncationHold(time.Now()); wait > 0 {
			held = reason
			timer.Reset(wait)
			due = timer.C
			return
		}
		s.reload(ctx, reason)
	}
	s.reload(ctx, "start")
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-failed:
			return err
		case <-s.watch.changed:
			timer.Reset(d.event(time.Now()))
			due = timer.C
		case <-due:
			due = nil
			reload("files changed")
		case <-s.force:
			// Reading everything now covers any change still held off.
			timer.Stop()
			due = nil
			reload(reloadRequested)
		}
	}
}

// stop ends the servers, cutting them off when they take longer than the
// shutdown timeout.
func (s *Server) stop(g *grpc.Server, h *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	stopped := make(chan struct{})
	go func() {
		g.GracefulStop()
		close(stopped)
	}()
	if err := h.Shutdown(ctx); err != nil {
		s.log.Warn("HTTP server did not stop in time", "error", err)
		h.Close()
	}
	select {
	case <-stopped:
	case <-ctx.Done():
		s.log.Warn("xDS server did not stop in time; closing its connections")
		g.Stop()
		<-stopped
	}
}

// closeAll releases what New acquired; started says whether Run started
// the watcher goroutine.
func (s *Server) closeAll(started bool) {
	s.stopReleases()
	if s.watch != nil {
		s.watch.close(started)
	}
	for _, l := range []net.Listener{s.xdsListener, s.httpListener} {
		if l != nil {
			l.Close() // already closed by Serve's shutdown when Run ran
		}
	}
}
