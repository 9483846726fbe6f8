package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contourc/contourc/diff"
	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/standin"
	"github.com/contourc/contourc/render"
	"github.com/contourc/contourc/translate"
)

// diffFormats are diff's output formats, in the order --help lists them.
var diffFormats = []string{"text", "markdown", "json", "unified"}

type diffOptions struct {
	input   inputFlags
	format  string
	color   string
	baseRef string
}

func newDiffCmd(s IOStreams, g *globalFlags) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff [flags] OLD NEW | --base-ref REV PATH...",
		Short: "Show what a change to the manifests changes in Envoy's configuration",
		Long: "Translate two versions of the manifests and describe how the Envoy configuration\n" +
			"and the status of objects differ: routes per listener and virtual host (match → action),\n" +
			"clusters, endpoints, TLS certificates, and objects that become invalid or recover.\n" +
			"OLD and NEW are paths as render takes them; with --base-ref the old side is each PATH as\n" +
			"it was at a Git revision and the new side is the working tree.\n" +
			"Exits 0 when nothing changed, 1 when something did, 2 on error.",
		Example: "  contourc diff ./before ./after\n" +
			"  contourc diff --base-ref origin/main ./manifests\n" +
			"  contourc diff -o markdown --base-ref origin/main ./manifests > comment.md\n" +
			"  contourc diff -o unified --base-ref HEAD~1 ./manifests",
		RunE: func(_ *cobra.Command, args []string) error {
			return o.run(args, g, s)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.format, "output-format", "o", "text",
		"output format: text, markdown (a pull-request comment), json, or unified (diff -u of render -o json, keys redacted)")
	fs.StringVar(&o.color, "color", "auto", "colour the text output: auto (on a terminal), always or never")
	fs.StringVar(&o.baseRef, "base-ref", "", "read the old side of each PATH from Git revision `REV` (e.g. origin/main)")
	o.input.register(fs)
	o.input.registerInputSize(fs)
	_ = cmd.RegisterFlagCompletionFunc("output-format", cobra.FixedCompletions(diffFormats, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// diffSide is one side's input: the paths to load, a label for the
// unified diff's header, and how to name its files in messages.
type diffSide struct {
	name    string // "old" or "new"
	paths   []string
	label   string
	relabel func(string) string
	load    loader.Options // how its paths are read (sources.go)
	standIn standin.Options
	// instance is --instance: the Contour instance compared when the
	// side has several.
	instance string
}

func (o *diffOptions) run(args []string, g *globalFlags, s IOStreams) error {
	if !slices.Contains(diffFormats, o.format) {
		return fmt.Errorf("invalid --output-format %q: want %s", o.format, strings.Join(diffFormats, ", "))
	}
	if !slices.Contains([]string{"auto", "always", "never"}, o.color) {
		return fmt.Errorf("invalid --color %q: want auto, always or never", o.color)
	}
	opts, err := o.input.options()
	if err != nil {
		return err
	}
	// The Gateway may be what the change adds (or removes): a side
	// without it serves nothing for it, as Contour would.
	opts.RequireGateway = false
	old, new, cleanup, err := o.sides(args)
	if err != nil {
		return err
	}
	defer cleanup()
	if old.load, err = o.input.source.loadOptions(o.input.loadOptions(s.In)); err != nil {
		return err
	}
	if old.standIn, err = o.input.standIn.options(); err != nil {
		return err
	}
	new.load, new.standIn = old.load, old.standIn
	old.instance, new.instance = o.input.instances.name, o.input.instances.name

	oldRes, oldErr := loadDiffSide(old, opts, g, s)
	newRes, newErr := loadDiffSide(new, opts, g, s)
	if err := errors.Join(oldErr, newErr); err != nil {
		return failure(err)
	}

	if o.format == "unified" {
		return writeUnifiedDiff(s.Out, old, new, oldRes, newRes)
	}
	report := diff.Compare(diffInput(oldRes, old), diffInput(newRes, new))
	switch o.format {
	case "markdown":
		err = diff.WriteMarkdown(s.Out, report)
	case "json":
		err = diff.WriteJSON(s.Out, report)
	default:
		err = diff.WriteText(s.Out, report, useColour(o.color, s.Out))
	}
	if err != nil {
		return failure(err)
	}
	if !report.Empty() {
		return findings(errors.New("contourc: " + diff.Summarize(report).String()))
	}
	return nil
}

// sides works out both sides from the arguments: OLD and NEW, or the
// PATHs at --base-ref and in the working tree. cleanup removes the
// checkout of the base revision.
func (o *diffOptions) sides(args []string) (old, new diffSide, cleanup func(), err error) {
	same := func(s string) string { return s }
	cleanup = func() {}
	if o.baseRef == "" {
		if len(args) != 2 {
			return old, new, cleanup, errors.New("diff needs two paths, OLD and NEW (or --base-ref REV PATH...)")
		}
		if args[0] == "-" && args[1] == "-" {
			return old, new, cleanup, errors.New("diff can read only one side from stdin")
		}
		old = diffSide{name: "old", paths: args[:1], label: args[0], relabel: same}
		new = diffSide{name: "new", paths: args[1:], label: args[1], relabel: same}
		return old, new, cleanup, nil
	}
	if len(args) == 0 {
		return old, new, cleanup, errors.New("diff --base-ref needs at least one PATH")
	}
	dir, err := os.MkdirTemp("", "contourc-diff-")
	if err != nil {
		return old, new, cleanup, failure(err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	co, err := diff.CheckoutGit(o.baseRef, args, dir)
	if err != nil {
		cleanup()
		return old, new, func() {}, failure(fmt.Errorf("--base-ref %s: %v", o.baseRef, err))
	}
	old = diffSide{name: "old", paths: co.Paths, label: strings.Join(co.Labels, " "), relabel: co.Relabel}
	new = diffSide{name: "new", paths: args, label: strings.Join(args, " "), relabel: same}
	return old, new, cleanup, nil
}

// loadDiffSide loads and translates one side, and checks its resources as
// render would. Errors name the side and the files as the user knows them.
// Notices are printed only with --verbose: both sides' would mostly repeat.
func loadDiffSide(side diffSide, opts translate.Options, g *globalFlags, s IOStreams) (*translate.Result, error) {
	res, err := translateSide(side, opts)
	if err == nil {
		err = render.Validate(&res.Resources)
	}
	if err != nil {
		var out []error
		for _, e := range flatten(err) {
			out = append(out, fmt.Errorf("%s: %s", side.name, side.relabel(e.Error())))
		}
		return nil, errors.Join(out...)
	}
	for i := range res.Status {
		res.Status[i].Source.File = side.relabel(res.Status[i].Source.File)
		if res.Status[i].Source.Via != "" {
			res.Status[i].Source.Via = side.relabel(res.Status[i].Source.Via)
		}
	}
	if g.verbose {
		for _, n := range res.Notices {
			fmt.Fprintf(s.ErrOut, "%s: warning: %s\n", side.name, side.relabel(n.String()))
		}
	}
	return res, nil
}

func translateSide(side diffSide, opts translate.Options) (*translate.Result, error) {
	// A base revision that does not have the paths yet is an empty side.
	if len(side.paths) == 0 {
		return translate.Translate(nil, opts)
	}
	loaded, err := loader.Load(side.paths, side.load)
	if err != nil {
		return nil, err
	}
	all, err := translate.Instances(loaded.Objects, loaded.Workloads, opts)
	if err != nil {
		return nil, err
	}
	chosen, err := (&instanceFlags{name: side.instance}).choose(all)
	if err != nil {
		return nil, err
	}
	standIns := side.standIn
	standIns.Cluster, standIns.Served = opts.Cluster, servedByAny(chosen)
	if _, err := standin.Apply(loaded, standIns); err != nil {
		return nil, err
	}
	one := chosen[0].Options
	one.RequireGateway = false // as for the flags' Gateway (run)
	res, err := translate.Translate(loaded.Objects, one)
	if err != nil {
		return nil, err
	}
	res.Status = withNotServed(res.Status, loaded.Objects, all)
	return res, nil
}

// diffInput is what the diff package compares of one side: its resources,
// and the verdict on each object's status, judged as check judges it.
func diffInput(res *translate.Result, side diffSide) diff.Side {
	objs := make([]diff.Object, 0, len(res.Status))
	for _, st := range res.Status {
		v := objectVerdict(st)
		objs = append(objs, diff.Object{
			Kind: st.Kind, Namespace: st.Namespace, Name: st.Name,
			Source: st.Source.String(), Verdict: v.Word, OK: v.OK, Reasons: v.Reasons,
		})
	}
	return diff.Side{Resources: &res.Resources, Objects: objs}
}

// writeUnifiedDiff writes diff -u of both sides' render -o json, with key
// material redacted first: the rendered JSON carries private keys inline.
func writeUnifiedDiff(w io.Writer, old, new diffSide, oldRes, newRes *translate.Result) error {
	var a, b bytes.Buffer
	redactor := &diff.Redactor{} // each key unchanged is read once
	if err := render.JSON(&a, redactor.Redact(&oldRes.Resources)); err != nil {
		return failure(fmt.Errorf("old: %v", err))
	}
	if err := render.JSON(&b, redactor.Redact(&newRes.Resources)); err != nil {
		return failure(fmt.Errorf("new: %v", err))
	}
	changed, err := diff.WriteUnified(w, old.label, new.label, a.String(), b.String())
	if err != nil {
		return failure(err)
	}
	if changed {
		return findings(errors.New("contourc: the rendered configurations differ"))
	}
	return nil
}

// useColour decides --color: auto colours only a terminal, and honours
// NO_COLOR (https://no-color.org) and TERM=dumb.
func useColour(mode string, out io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	f, ok := out.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
