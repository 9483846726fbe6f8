package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/cmd/contourc/internal/cluster"
	"github.com/contourc/contourc/cmd/contourc/internal/gcpace"
	"github.com/contourc/contourc/cmd/contourc/internal/instances"
	"github.com/contourc/contourc/cmd/contourc/internal/repoconfig"
	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// defaultClusterDomain is what a bare --upstream-dns resolves Services in,
// the domain of a default Kubernetes cluster.
const defaultClusterDomain = "cluster.local"

// inputFlags are the Contour settings render and check share. Their names
// are `contour serve`'s, so a Contour command line carries over.
type inputFlags struct {
	ingressClassNames []string
	rootNamespaces    []string
	gateway           string
	gatewayController string
	configPath        string
	contourConfig     string
	upstreamDNS       string
	kustomizeRemote   bool
	serve             translate.ServeFlags
	// statusOnly is set by commands that need no Envoy resources.
	statusOnly bool
	// source says how the files are read (sources.go).
	source sourceFlags
	// standIn is --assume-secret and --no-stand-ins (standins.go).
	standIn standInFlags
	// cluster are the objects the cluster has that the files do not
	// (internal/cluster).
	cluster cluster.Flags
	// maxInputSize is --max-input-size, for the commands that register it
	// (registerInputSize); serve reads with the default.
	maxInputSize sizeValue
	// config is --config, and the repository config file read for the run
	// (internal/repoconfig).
	config repoconfig.Value
	// instances is --instance, and the instances of the last run
	// (instances.go).
	instances instanceFlags
}

func (f *inputFlags) register(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.ingressClassNames, "ingress-class-name", nil,
		"serve only Ingresses of these classes (comma-separated); default: no class or \"contour\"")
	fs.StringSliceVar(&f.rootNamespaces, "root-namespaces", nil,
		"namespaces where root HTTPProxies may live (comma-separated); default: all")
	fs.StringVar(&f.gateway, "gateway", "", "serve the Gateway `NS/NAME` and the routes attached to it\n(default: the only Gateway whose GatewayClass has the --gateway-controller)")
	fs.StringVar(&f.gatewayController, "gateway-controller", "projectcontour.io/gateway-controller",
		"controllerName of the GatewayClasses whose Gateway is served when --gateway is not given")
	fs.StringVar(&f.configPath, "config-path", "", "Contour configuration `FILE` (contour.yaml)")
	fs.StringVar(&f.upstreamDNS, "upstream-dns", "",
		"give Services without endpoints in the input a STRICT_DNS cluster resolving <svc>.<ns>.svc.`DOMAIN`\n(a domain must be attached with =)")
	fs.Lookup("upstream-dns").NoOptDefVal = defaultClusterDomain
	fs.StringVar(&f.contourConfig, "contour-config", "",
		"use the ContourConfiguration `NS/NAME` among the inputs as the configuration (a bare NAME is in projectcontour)")
	fs.BoolVar(&f.kustomizeRemote, "kustomize-remote", false,
		"let kustomize builds fetch remote resources (git repositories, URLs); without it they are left out with a warning")
	fs.StringVar(&f.serve.HTTPAddress, "envoy-service-http-address", "", "address of the ingress_http listener (default 0.0.0.0)")
	fs.IntVar(&f.serve.HTTPPort, "envoy-service-http-port", 0, "port of the ingress_http listener (default 8080)")
	fs.StringVar(&f.serve.HTTPSAddress, "envoy-service-https-address", "", "address of the ingress_https listener (default 0.0.0.0)")
	fs.IntVar(&f.serve.HTTPSPort, "envoy-service-https-port", 0, "port of the ingress_https listener (default 8443)")
	fs.BoolVar(&f.serve.UseProxyProtocol, "use-proxy-protocol", false, "expect a PROXY protocol preamble on the HTTP and HTTPS listeners")
	fs.StringVar(&f.serve.AccessLogFormat, "accesslog-format", "", "access log format, envoy or json (ignored with a configuration file, as in Contour)")
	fs.StringSliceVar(&f.serve.WatchNamespaces, "watch-namespaces", nil, "see only objects in these namespaces (comma-separated); default: all")
	fs.StringSliceVar(&f.serve.DisabledFeatures, "disable-feature", nil,
		"ignore objects of these kinds: extensionservices, tlsroutes, grpcroutes, tcproutes, backendtlspolicies (repeatable, comma-separated)")
	f.source.register(fs)
	repoconfig.Register(fs, &f.config)
	f.standIn.register(fs)
	f.cluster.Register(fs)
	f.instances.register(fs)
}

// registerInputSize adds --max-input-size, the bound on the input of one
// run, files and stdin together.
func (f *inputFlags) registerInputSize(fs *pflag.FlagSet) {
	f.maxInputSize = sizeValue(loader.DefaultMaxInputSize)
	fs.Var(&f.maxInputSize, "max-input-size", "refuse input larger than `SIZE` (all files and stdin together), such as 512Mi or 4Gi")
}

// loadOptions are the loader options of the input flags, reading stdin
// from in.
func (f *inputFlags) loadOptions(in io.Reader) loader.Options {
	f.useConfigRoot()
	return loader.Options{Stdin: in, MaxInputSize: int64(f.maxInputSize), NamedPipes: true, KustomizeRemote: f.kustomizeRemote}
}

// useConfigRoot makes the repository config file's directory, when a
// file was read, the root Argo CD sources' paths are read from.
func (f *inputFlags) useConfigRoot() {
	if f.config.Loaded != nil {
		f.source.follow.configRoot = f.config.Loaded.Root
	}
}

// sizeValue is a flag taking a size in bytes written as a Kubernetes
// quantity (512Mi, 2Gi, 100M).
type sizeValue int64

func (v *sizeValue) String() string { return loader.FormatSize(int64(*v)) }

func (v *sizeValue) Set(s string) error {
	n, err := loader.ParseSize(s)
	if err != nil {
		return err
	}
	*v = sizeValue(n)
	return nil
}

func (v *sizeValue) Type() string { return "size" }

// requirePaths insists on at least one input: reading stdin when no path
// is given would make a forgotten argument hang instead of fail.
func requirePaths(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		hint := ""
		if cmd.Name() == "check" || cmd.Name() == "render" {
			// At a repository's root, the first run is often bare.
			hint = " (. for the repository you are in; contourc init writes a .contourc.yaml whose paths are read without one)"
		}
		return fmt.Errorf("%s needs at least one PATH: a file, a directory or - for stdin%s", cmd.Name(), hint)
	}
	return nil
}

// requireWatchedPaths is requirePaths for serve, which watches files and
// so cannot take stdin: its message must not suggest -.
func requireWatchedPaths(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%s needs at least one PATH to watch: a file or a directory", cmd.Name())
	}
	return nil
}

// options turns the flags into translation options. Flags that translate
// cannot honour yet are usage errors rather than silently ignored, since
// ignoring them would produce a configuration the user did not ask for.
func (f *inputFlags) options() (translate.Options, error) {
	if err := f.serve.Validate(); err != nil {
		return translate.Options{}, err
	}
	if err := f.source.check(); err != nil {
		return translate.Options{}, err
	}
	if _, err := f.standIn.options(); err != nil {
		return translate.Options{}, err
	}
	if err := f.cluster.Check(); err != nil {
		return translate.Options{}, err
	}
	var gateway *types.NamespacedName
	if f.gateway != "" {
		ns, name, ok := strings.Cut(f.gateway, "/")
		if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			return translate.Options{}, fmt.Errorf("--gateway %q: want NAMESPACE/NAME", f.gateway)
		}
		gateway = &types.NamespacedName{Namespace: ns, Name: name}
	}
	var cfg *loader.ContourConfig
	if f.configPath != "" {
		var err error
		if cfg, err = loader.LoadContourConfig(f.configPath, loader.Options{}); err != nil {
			return translate.Options{}, failure(err)
		}
	}
	var contourConfig *types.NamespacedName
	if f.contourConfig != "" {
		if f.configPath != "" {
			return translate.Options{}, fmt.Errorf("cannot specify both --contour-config and --config-path")
		}
		ns, name, ok := strings.Cut(f.contourConfig, "/")
		if !ok {
			ns, name = "projectcontour", f.contourConfig
		}
		if ns == "" || name == "" || strings.Contains(name, "/") {
			return translate.Options{}, fmt.Errorf("--contour-config %q: want NAMESPACE/NAME", f.contourConfig)
		}
		contourConfig = &types.NamespacedName{Namespace: ns, Name: name}
	}
	inCluster, err := f.cluster.Objects(int64(f.maxInputSize))
	if unreadable := (*cluster.ContextError)(nil); errors.As(err, &unreadable) {
		return translate.Options{}, failure(err)
	}
	if err != nil {
		return translate.Options{}, err
	}
	added, err := f.config.Loaded.AddedInstances()
	if err != nil {
		return translate.Options{}, failure(err)
	}
	serve := f.serve
	serve.WatchNamespaces = repoconfig.NonEmpty(serve.WatchNamespaces)
	serve.DisabledFeatures = repoconfig.NonEmpty(serve.DisabledFeatures)
	return translate.Options{
		IngressClassNames:    repoconfig.NonEmpty(f.ingressClassNames),
		RootNamespaces:       repoconfig.NonEmpty(f.rootNamespaces),
		UpstreamDNS:          f.upstreamDNS,
		Gateway:              gateway,
		RequireGateway:       gateway != nil,
		GatewayController:    f.gatewayController,
		Config:               cfg,
		ContourConfiguration: contourConfig,
		Flags:                serve,
		StatusOnly:           f.statusOnly,
		Cluster:              inCluster,
		AddedInstances:       added,
	}, nil
}

// translateInput loads paths and translates them: the part of the pipeline
// render and check share. Notices, and with verbose the kinds skipped, go to
// s.ErrOut; the returned error is ready for report.
func translateInput(paths []string, f *inputFlags, g *globalFlags, s IOStreams) (*translate.Result, error) {
	res, _, err := loadInput(paths, f, g, s)
	return res, err
}

// loadInput is translateInput that also returns what the loader
// read, for check's --fail-on skipped.
func loadInput(paths []string, f *inputFlags, g *globalFlags, s IOStreams) (*translate.Result, *loader.Result, error) {
	opts, err := f.options()
	if err != nil {
		return nil, nil, err
	}
	gcpace.DeferFirstCollectionForInput(loader.InputSize(paths))
	start := time.Now()
	base := f.loadOptions(s.In)
	base.Follow = &loader.Follow{Cluster: opts.Cluster}
	loaded, err := f.source.load(paths, base)
	if err != nil {
		return nil, nil, err
	}
	all, err := translate.Instances(instances.Objects(loaded, opts), f.instanceWorkloads(loaded), opts)
	if err != nil {
		return nil, nil, failure(err)
	}
	chosen, err := f.instances.choose(all)
	if err != nil {
		return nil, nil, err
	}
	if err := f.standIn.apply(loaded, opts.Cluster, chosen); err != nil {
		return nil, nil, failure(err)
	}
	if g.verbose {
		printSkipped(s.ErrOut, loaded, time.Since(start))
		f.standIn.printCounts(s.ErrOut, loaded)
		printSkippedFiles(s.ErrOut, loaded.SkippedFiles)
		printEntries(s.ErrOut, loaded.Entries)
	} else if line := entrySummary(loaded.Entries); line != "" {
		fmt.Fprintln(s.ErrOut, line)
	}
	start = time.Now()
	runs, res, err := instances.Translate(loaded, chosen, all)
	if err != nil {
		return nil, nil, failure(err)
	}
	f.instances.runs = runs
	// What the loader left out comes first among the notices: it is
	// printed, annotated and counted (--fail-on warning) like them.
	res.Notices = append(loaderNotices(loaded), res.Notices...)
	f.standIn.annotate(res.Status)
	if !f.statusOnly {
		f.standIn.warn(s.ErrOut) // check shows them in its table
	}
	if g.verbose {
		fmt.Fprintf(s.ErrOut, "translated in %s\n", roundedDuration(time.Since(start)))
		printServing(s.ErrOut, runs)
	}
	for _, n := range res.Notices {
		fmt.Fprintf(s.ErrOut, "warning: %s\n", n)
	}
	return res, loaded, nil
}

// loaderNotices are the loader's warnings (entries of kustomizations left
// out, kustomizations skipped) as notices.
func loaderNotices(r *loader.Result) []translate.Notice {
	var out []translate.Notice
	for _, w := range r.Warnings {
		out = append(out, translate.Notice{Source: w.Source, Msg: w.Msg})
	}
	return out
}

// printSkipped says what was read, how long that took, and what contourc
// does not consume, sorted by apiVersion/Kind so the output is stable.
func printSkipped(w io.Writer, r *loader.Result, took time.Duration) {
	fmt.Fprintf(w, "using %d object(s), loaded in %s\n", r.Read, roundedDuration(took))
	for _, c := range r.Charts {
		fmt.Fprintf(w, "rendered: %s (%s, %d objects)\n", c.Via, c.Chart, c.Objects)
	}
	kinds := make([]string, 0, len(r.Skipped))
	for k := range r.Skipped {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "skipped %d %s\n", r.Skipped[k], k)
	}
	for _, n := range r.NotRead {
		fmt.Fprintf(w, "not read: %s (in the directory of kustomization %s, which does not use it)\n", n.File, n.Kustomization)
	}
}

// roundedDuration is d to the millisecond, as the phase timings of
// --verbose print it: finer would be noise.
func roundedDuration(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

// pathsOrConfig are the PATH arguments of check and render, or, without
// any, the config file's paths; with neither, the usage error of
// requirePaths.
func (f *inputFlags) pathsOrConfig(cmd *cobra.Command, args []string) ([]string, error) {
	if len(args) == 0 && f.config.Loaded != nil && len(f.config.Loaded.Paths) > 0 {
		return f.config.Loaded.Paths, nil
	}
	return args, requirePaths(cmd, args)
}
