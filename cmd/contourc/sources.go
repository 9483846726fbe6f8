package main

// The flags that say how the files are read as the deploy tool reads them
// (which paths, which namespace, which Flux variables), and the notices
// about files that are not manifests.

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/ignore"
)

// sourceFlags are the loading flags of every command that reads manifests.
type sourceFlags struct {
	exclude        []string
	namespace      string
	substitute     []string
	substituteFrom []string
	substStrict    bool
	follow         followFlags
	// helm are helm template's flags, for charts given as paths.
	helm helmFlags
	// skipped is what the last load left out, for the line render and
	// check end with.
	skipped []loader.SkippedFile
}

func (f *sourceFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.exclude, "exclude", nil,
		"leave out paths matching `PATTERN` (gitignore syntax, relative to each PATH; a directory pattern leaves out its tree; repeatable)")
	fs.StringVarP(&f.namespace, "namespace", "n", "",
		"namespace of namespaced objects that have none, as kubectl apply -n (an object of another namespace is an error, as in kubectl)")
	fs.StringArrayVar(&f.substitute, "substitute", nil,
		"Flux post-build variable `NAME=VALUE`, substituted for ${NAME} (repeatable; wins over --substitute-from)")
	fs.StringArrayVar(&f.substituteFrom, "substitute-from", nil,
		"Flux post-build variables from `FILE`: a ConfigMap or Secret manifest, or NAME=VALUE lines (repeatable; later files win)")
	fs.BoolVar(&f.substStrict, "substitute-strict", false,
		"a Flux variable without a value or a default is an error, as with Flux's StrictPostBuildSubstitutions (default: the empty string, as in Flux)")
	f.follow.register(fs)
	f.helm.register(fs)
}

// check finds the usage errors in the flags, before anything is read.
func (f *sourceFlags) check() error {
	if _, err := ignore.Compile(f.exclude); err != nil {
		return err
	}
	if f.namespace != "" {
		if errs := validation.IsDNS1123Label(f.namespace); len(errs) > 0 {
			return fmt.Errorf("--namespace %q: %s", f.namespace, strings.Join(errs, "; "))
		}
	}
	for _, s := range f.substitute {
		if name, _, ok := strings.Cut(s, "="); !ok || name == "" {
			return fmt.Errorf("--substitute %q: want NAME=VALUE", s)
		}
	}
	if err := f.follow.check(); err != nil {
		return err
	}
	return f.helm.check()
}

// loadOptions are base with the loader options the flags ask for. The
// --substitute-from files are read here.
func (f *sourceFlags) loadOptions(base loader.Options) (loader.Options, error) {
	if err := f.check(); err != nil {
		return loader.Options{}, err
	}
	exclude, _ := ignore.Compile(f.exclude)
	subst, err := f.substitution()
	if err != nil {
		return loader.Options{}, err
	}
	base.Exclude, base.Namespace, base.Substitute = exclude, f.namespace, subst
	var cluster []loader.Object
	if base.Follow != nil {
		cluster = base.Follow.Cluster
	}
	base.Follow = f.follow.follow(base, cluster)
	base.Helm = f.helm.options()
	return base, nil
}

// substitution gathers the variables as Flux merges postBuild's: those of
// the --substitute-from files in order, later ones winning, then those of
// --substitute over them.
func (f *sourceFlags) substitution() (*loader.Substitution, error) {
	vars := map[string]string{}
	for _, file := range f.substituteFrom {
		from, err := loader.ReadSubstituteFrom(file)
		if err != nil {
			return nil, failure(err)
		}
		for k, v := range from {
			vars[k] = v
		}
	}
	for _, s := range f.substitute {
		name, value, _ := strings.Cut(s, "=")
		vars[name] = value
	}
	s, err := loader.NewSubstitution(vars, f.substStrict)
	if err != nil {
		return nil, fmt.Errorf("--substitute: %w", err)
	}
	return s, nil
}

// load reads paths with base and the flags' options, keeping what was
// skipped.
func (f *sourceFlags) load(paths []string, base loader.Options) (*loader.Result, error) {
	opts, err := f.loadOptions(base)
	if err != nil {
		return nil, err
	}
	res, err := loader.Load(paths, opts)
	if err != nil {
		return nil, failure(err)
	}
	f.skipped = res.SkippedFiles
	return res, nil
}

// printSkippedFiles lists, for -v, the files left out and why.
func printSkippedFiles(w io.Writer, files []loader.SkippedFile) {
	for _, f := range files {
		switch {
		case f.Reason == loader.SkipExcluded:
			fmt.Fprintf(w, "excluded %s (%s)\n", f.Path, f.Detail)
		case f.Files != 1:
			fmt.Fprintf(w, "skipped %s (%d files): %s (%s)\n", f.Path, f.Files, f.Reason, f.Detail)
		default:
			fmt.Fprintf(w, "skipped %s: %s (%s)\n", f.Path, f.Reason, f.Detail)
		}
	}
}

// skipSummary is the line that counts the files skipped, or "" when none
// was: "contourc: 3 file(s) skipped: not Kubernetes objects (1), Helm
// chart (2); -v lists them".
func skipSummary(files []loader.SkippedFile, verbose bool) string {
	total, by := loader.CountSkipped(files)
	if total == 0 {
		return ""
	}
	parts := make([]string, len(by))
	for i, c := range by {
		parts[i] = fmt.Sprintf("%s (%d)", c.Reason, c.Files)
	}
	line := fmt.Sprintf("contourc: %d file(s) skipped: %s", total, strings.Join(parts, ", "))
	if !verbose {
		line += "; -v lists them"
	}
	return line
}

// runOnPaths is the RunE of the commands that read the PATHs given, or
// the repository config file's paths without them, and end with the skip
// summary (render, check, lint).
func (f *inputFlags) runOnPaths(run func(paths []string) error, g *globalFlags, s IOStreams) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		paths, err := f.pathsOrConfig(cmd, args)
		if err != nil {
			return err
		}
		return endWithSkipSummary(run(paths), &f.source, g.verbose, s.ErrOut)
	}
}

// endWithSkipSummary makes the skip summary the last line render and check
// write on stderr, after the findings that end a run with exit 1; before
// the errors of a failed run.
func endWithSkipSummary(err error, f *sourceFlags, verbose bool, w io.Writer) error {
	line := skipSummary(f.skipped, verbose)
	if line == "" {
		return err
	}
	var ee *exitError
	if err != nil && errors.As(err, &ee) && ee.code == exitFindings {
		return &exitError{code: exitFindings, err: fmt.Errorf("%w\n%s", ee.err, line)}
	}
	fmt.Fprintln(w, line)
	return err
}
