package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/contourc/contourc/cmd/contourc/internal/gcpace"
	"github.com/contourc/contourc/cmd/contourc/internal/repoconfig"
	"github.com/contourc/contourc/cmd/contourc/internal/verdict"
	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/serve"
	"github.com/contourc/contourc/translate"
)

type serveOptions struct {
	input             inputFlags
	xdsAddress        string
	xdsPort           int
	httpAddress       string
	httpPort          int
	configSource      string
	caFile, certFile  string
	keyFile           string
	holdoff, maxDelay time.Duration
	reloadTimeout     time.Duration
	truncationGrace   time.Duration
	logFormat         string
	allowStandIns     bool
}

func newServeCmd(s IOStreams, g *globalFlags) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve [flags] PATH...",
		Short: "Serve the Envoy configuration over xDS and follow the manifests as they change",
		Long: "Read manifests as render does and serve what Contour would serve for them to Envoys over\n" +
			"xDS (ADS, delta ADS and Contour's per-type services), reloading when the files change.\n" +
			"A reload that fails keeps the last good configuration. SIGHUP reloads; SIGINT and SIGTERM stop.",
		Example: "  contourc serve ./manifests\n" +
			"  contourc serve --xds-address 0.0.0.0 --contour-cafile ca.crt --contour-cert-file tls.crt --contour-key-file tls.key ./manifests",
		Args: requireWatchedPaths,
		RunE: func(_ *cobra.Command, paths []string) error {
			return o.run(paths, g, s)
		},
	}
	fs := cmd.Flags()
	o.input.register(fs)
	fs.StringVar(&o.xdsAddress, "xds-address", "127.0.0.1", "address the xDS gRPC server listens on")
	fs.IntVar(&o.xdsPort, "xds-port", 8001, "port the xDS gRPC server listens on")
	fs.StringVar(&o.httpAddress, "http-address", "127.0.0.1", "address of the /healthz, /readyz, /metrics and /debug endpoints")
	fs.IntVar(&o.httpPort, "http-port", 8000, "port of the /healthz, /readyz, /metrics and /debug endpoints")
	fs.StringVar(&o.configSource, "xds-config-source", "ads",
		"how served resources refer to each other: ads (for Envoys bootstrapped by contourc bootstrap)\nor contour (unchanged, for Envoys bootstrapped by contour bootstrap)")
	fs.StringVar(&o.caFile, "contour-cafile", "", "CA `FILE` Envoys' client certificates must be signed by (mTLS)")
	fs.StringVar(&o.certFile, "contour-cert-file", "", "the xDS server's certificate `FILE` (mTLS)")
	fs.StringVar(&o.keyFile, "contour-key-file", "", "the xDS server's private key `FILE` (mTLS)")
	fs.DurationVar(&o.holdoff, "holdoff", 100*time.Millisecond, "wait this long after a file change for more before reloading")
	fs.DurationVar(&o.maxDelay, "holdoff-max", 500*time.Millisecond, "reload at most this long after the first change of a burst")
	fs.DurationVar(&o.reloadTimeout, "reload-timeout", serve.DefaultReloadTimeout, "abandon a reload not finished after this long (counted as failed; /readyz answers 503)")
	fs.DurationVar(&o.truncationGrace, "truncation-grace", serve.DefaultTruncationGrace, "hold reloads back this long for a file caught half written (emptied, or YAML ending within a line); 0: never")
	fs.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	fs.BoolVar(&o.allowStandIns, "allow-stand-ins", false,
		"serve stand-in Secrets (made-up certificates) for the Secrets the input lacks; without it serve refuses to start\n"+
			"with them, and a reload that would need one fails, keeping the last good configuration")
	_ = cmd.RegisterFlagCompletionFunc("xds-config-source", cobra.FixedCompletions([]string{"ads", "contour"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("log-format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// config checks the flags (usage errors, exit 2 with a pointer to --help)
// and turns them into a serve.Config.
func (o *serveOptions) config(paths []string, g *globalFlags, s IOStreams) (serve.Config, error) {
	for _, p := range paths {
		if p == "-" {
			return serve.Config{}, errors.New("serve cannot watch standard input (-): give files or directories")
		}
	}
	// The same options as render and check, re-evaluated at every reload;
	// evaluated once here so that a bad flag is a usage error at startup.
	if _, err := o.input.options(); err != nil {
		return serve.Config{}, err
	}
	if o.input.kustomizeRemote {
		// Every reload would fetch again; serve reads what is on disk.
		return serve.Config{}, errors.New("--kustomize-remote: serve does not fetch remote resources; vendor them into the repository")
	}
	o.input.useConfigRoot()
	load, err := o.input.source.loadOptions(loader.Options{})
	if err != nil {
		return serve.Config{}, err
	}
	source, err := serve.ParseConfigSource(o.configSource)
	if err != nil {
		return serve.Config{}, fmt.Errorf("--xds-config-source: %w", err)
	}
	log, err := newLogger(s.ErrOut, o.logFormat, g.verbose)
	if err != nil {
		return serve.Config{}, err
	}
	tls, err := o.tlsFiles()
	if err != nil {
		return serve.Config{}, err
	}
	for _, p := range []struct {
		name string
		port int
	}{{"--xds-port", o.xdsPort}, {"--http-port", o.httpPort}} {
		if p.port < 0 || p.port > 65535 {
			return serve.Config{}, fmt.Errorf("%s %d: want a port number", p.name, p.port)
		}
	}
	if o.holdoff <= 0 || o.maxDelay < o.holdoff {
		return serve.Config{}, fmt.Errorf("--holdoff %s, --holdoff-max %s: want 0 < holdoff <= holdoff-max", o.holdoff, o.maxDelay)
	}
	if o.reloadTimeout <= 0 {
		return serve.Config{}, fmt.Errorf("--reload-timeout %s: want a duration above 0", o.reloadTimeout)
	}
	if o.truncationGrace < 0 {
		return serve.Config{}, fmt.Errorf("--truncation-grace %s: want 0 or more", o.truncationGrace)
	}
	grace := o.truncationGrace
	if grace == 0 {
		grace = -1 // serve.Config's "none"
	}
	return serve.Config{
		Paths:   paths,
		Options: o.input.options,
		Load:    load,
		// The cluster context is read again at every reload, with the
		// options: a change to it reloads too.
		Watch:           repoconfig.NonEmpty(append([]string{o.input.configPath}, o.input.cluster.Contexts...)),
		XDSAddress:      net.JoinHostPort(o.xdsAddress, strconv.Itoa(o.xdsPort)),
		HTTPAddress:     net.JoinHostPort(o.httpAddress, strconv.Itoa(o.httpPort)),
		ConfigSource:    source,
		TLS:             tls,
		Holdoff:         o.holdoff,
		HoldoffMax:      o.maxDelay,
		ReloadTimeout:   o.reloadTimeout,
		TruncationGrace: grace,
		Log:             log,
		Prepare:         o.prepare(log),
		Select:          o.input.selectInstance,
		Judge: func(st translate.ObjectStatus) (bool, string) {
			v := verdict.Of(st)
			return v.OK, v.String()
		},
	}, nil
}

// tlsFiles insists on all three files or none, as Contour does.
func (o *serveOptions) tlsFiles() (*serve.TLSFiles, error) {
	set := 0
	for _, f := range []string{o.caFile, o.certFile, o.keyFile} {
		if f != "" {
			set++
		}
	}
	switch set {
	case 0:
		return nil, nil
	case 3:
		return &serve.TLSFiles{CAFile: o.caFile, CertFile: o.certFile, KeyFile: o.keyFile}, nil
	}
	return nil, errors.New("--contour-cafile, --contour-cert-file and --contour-key-file go together: give all three or none")
}

// newLogger logs to w in the format asked for, at debug level with -v.
func newLogger(w io.Writer, format string, verbose bool) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if verbose {
		opts.Level = slog.LevelDebug
	}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("invalid --log-format %q: want text or json", format)
}

// run serves until SIGINT or SIGTERM; SIGHUP reloads.
func (o *serveOptions) run(paths []string, g *globalFlags, s IOStreams) error {
	cfg, err := o.config(paths, g, s)
	if err != nil {
		return err
	}
	if err := o.refuseStandIns(paths, cfg.Load); err != nil {
		return failure(err)
	}
	srv, err := serve.New(cfg)
	if err != nil {
		return failure(err)
	}
	gcpace.CollectAsUsual()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		for {
			select {
			case <-hup:
				cfg.Log.Info("SIGHUP: reloading")
				srv.Reload()
			case <-ctx.Done():
				return
			}
		}
	})
	defer stop() // ends the SIGHUP loop before wg.Wait
	if err := srv.Run(ctx); err != nil {
		return failure(err)
	}
	return nil
}
