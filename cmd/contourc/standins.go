package main

// The flags of stand-in Secrets (loader/standin): which to assume, and
// whether to make any; and how their use is reported.

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/cmd/contourc/internal/instances"
	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/standin"
	"github.com/contourc/contourc/translate"
)

// standInFlags are --assume-secret and --no-stand-ins.
type standInFlags struct {
	assume   []string
	disabled bool
	// report is what the last load's stand-ins were, for check's
	// reasons; nil before.
	report *standin.Report
}

func (f *standInFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.assume, "assume-secret", nil,
		"a Secret `NS/NAME[:TARGETNS,...]` that exists only in the cluster: a stand-in covering the hosts that refer to it; the\n"+
			"namespaces (or *) also assume a TLSCertificateDelegation of it to them (repeatable)")
	fs.BoolVar(&f.disabled, "no-stand-ins", false,
		"make no stand-in Secrets (for cert-manager Certificates and annotations, SealedSecrets, ExternalSecrets, SOPS\n"+
			"Secrets, --assume-secret): the Secrets they stand for count as absent")
}

// options are the standin options of the flags; a malformed
// --assume-secret is a usage error.
func (f *standInFlags) options() (standin.Options, error) {
	opts := standin.Options{Disabled: f.disabled}
	for _, s := range f.assume {
		a, err := standin.ParseAssumed(s)
		if err != nil {
			return standin.Options{}, err
		}
		opts.Assume = append(opts.Assume, a)
	}
	return opts, nil
}

// apply adds the stand-ins loaded needs to it, keeping the report: none
// for a Secret of the cluster context, nor for the references of objects
// no chosen instance serves; the Secrets the chosen instances'
// configurations name are stood for too.
func (f *standInFlags) apply(loaded *loader.Result, cluster []loader.Object, chosen []translate.Instance) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	opts.Cluster, opts.Served = cluster, instances.ServedByAny(chosen)
	if !opts.Disabled {
		opts.Configured = configuredSecrets(loaded, chosen)
	}
	f.report, err = standin.Apply(loaded, opts)
	return err
}

// configuredSecrets are the Secrets the configurations of the instances
// name (translate resolves them), each for the objects its instance
// serves.
func configuredSecrets(loaded *loader.Result, chosen []translate.Instance) []standin.ConfiguredSecret {
	var out []standin.ConfiguredSecret
	for _, in := range chosen {
		c := translate.ConfiguredSecretsOf(loaded.Objects, in.Options)
		for _, s := range []struct {
			name *types.NamespacedName
			use  standin.SecretUse
		}{{c.FallbackCertificate, standin.FallbackCertificate}, {c.ClientCertificate, standin.ClientCertificate}} {
			if s.name != nil {
				out = append(out, standin.ConfiguredSecret{Namespace: s.name.Namespace, Name: s.name.Name, Use: s.use, Served: in.Serves})
			}
		}
	}
	return out
}

// annotate gives each status the stand-ins it rests on.
func (f *standInFlags) annotate(list []translate.ObjectStatus) {
	if f.report == nil || len(f.report.StandIns) == 0 {
		return
	}
	for i := range list {
		st := &list[i]
		st.StandIns = f.report.Of(st.Kind, st.Namespace, st.Name)
	}
}

// warn names every stand-in made, on w.
func (f *standInFlags) warn(w io.Writer) {
	if f.report == nil {
		return
	}
	for _, s := range f.report.StandIns {
		fmt.Fprintf(w, "warning: stand-in %s: not in the input, made up (self-signed, O=%s); --no-stand-ins to do without\n", s, standin.Organization)
	}
}

// standInReasons are check's reasons for the stand-ins a status rests on.
func standInReasons(st translate.ObjectStatus) []string {
	out := make([]string, len(st.StandIns))
	for i, s := range st.StandIns {
		out[i] = "StandIn: " + s.String()
	}
	return out
}

// standInNames lists stand-ins for a message: "Secret a/b for X, ...".
func standInNames(list []loader.StandIn) string {
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.String()
	}
	return strings.Join(names, ", ")
}

// standInsRefused is serve's error for input that needs stand-ins: an
// edge Envoy must never serve a made-up certificate by accident.
func standInsRefused(list []loader.StandIn) error {
	return fmt.Errorf("the input needs stand-in Secrets: %s; serve does not serve made-up certificates: "+
		"give the real Secrets, or --allow-stand-ins", standInNames(list))
}

// prepare is serve's Prepare: it adds the stand-ins each reload needs,
// failing the reload when they are not allowed, and logs them when they
// are; the status served then names them as check's does.
func (o *serveOptions) prepare(log *slog.Logger) func(*loader.Result) (func([]translate.ObjectStatus), error) {
	cache := standin.NewCache() // RSA keys are not derived again at every reload
	return func(loaded *loader.Result) (func([]translate.ObjectStatus), error) {
		opts, err := o.serveStandInOptions(loaded)
		if err != nil {
			return nil, err
		}
		opts.Cache = cache
		report, err := standin.Apply(loaded, opts)
		switch {
		case err != nil:
			return nil, err
		case len(report.StandIns) == 0:
			return nil, nil
		case !o.allowStandIns:
			return nil, standInsRefused(report.StandIns)
		}
		for _, s := range report.StandIns {
			log.Warn("serving a stand-in (--allow-stand-ins)", "standIn", s.String())
		}
		f := standInFlags{report: report}
		return f.annotate, nil
	}
}

// refuseStandIns reads the input once before serve starts, so that input
// needing stand-ins stops it with exit 2 rather than leaving it up and
// never ready. Input that does not load is left for the first reload to
// report, as before.
func (o *serveOptions) refuseStandIns(paths []string, load loader.Options) error {
	if o.allowStandIns || o.input.standIn.disabled {
		return nil
	}
	loaded, err := loader.Load(paths, load)
	if err != nil {
		return nil
	}
	opts, err := o.serveStandInOptions(loaded)
	if err != nil {
		return err
	}
	report, err := standin.Apply(loaded, opts)
	if err != nil || len(report.StandIns) == 0 {
		return nil
	}
	return standInsRefused(report.StandIns)
}

// serveStandInOptions are the stand-in options of serve's flags for
// loaded, with the cluster context's objects, whose Secrets need no
// stand-in, and the Secrets the configuration of the instance served
// names.
func (o *serveOptions) serveStandInOptions(loaded *loader.Result) (standin.Options, error) {
	opts, err := o.input.standIn.options()
	if err != nil {
		return standin.Options{}, err
	}
	topts, err := o.input.options()
	if err != nil {
		return standin.Options{}, err
	}
	opts.Cluster, opts.Served = topts.Cluster, topts.ServesClass
	if !opts.Disabled {
		// An input whose instances do not resolve fails the reload in
		// Select, which reports why.
		if served, _, err := o.input.selectInstance(loaded, topts); err == nil {
			opts.Configured = configuredSecrets(loaded, []translate.Instance{{Options: served}})
		}
	}
	return opts, nil
}

// printCounts says, for -v, how many objects stood for Secrets and how
// many stand-ins were made: those objects are no longer counted skipped.
func (f *standInFlags) printCounts(w io.Writer, loaded *loader.Result) {
	if n := len(loaded.SecretSources); n > 0 || (f.report != nil && len(f.report.StandIns) > 0) {
		made := 0
		if f.report != nil {
			made = len(f.report.StandIns)
		}
		fmt.Fprintf(w, "read %d object(s) standing for Secrets (Certificates, SealedSecrets, ExternalSecrets, SOPS Secrets); made %d stand-in(s)\n", n, made)
	}
}
