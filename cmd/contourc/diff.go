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

	"github.com/contourc/contourc/cmd/contourc/internal/instances"
	"github.com/contourc/contourc/cmd/contourc/internal/verdict"
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
			"With several Contour instances, each is compared with the one of the same name on the\n" +
			"other side, under its name (added or removed when one side lacks it).\n" +
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
	// instance is --instance: the one Contour instance compared (every
	// instance without it).
	instance string
	// clusterWorkloads are the cluster context's, where instances are
	// found too.
	clusterWorkloads []loader.Object
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
	old.clusterWorkloads, new.clusterWorkloads = o.input.cluster.Workloads, o.input.cluster.Workloads

	oldRes, oldErr := loadDiffSide(old, opts, g, s)
	newRes, newErr := loadDiffSide(new, opts, g, s)
	if err := errors.Join(oldErr, newErr); err != nil {
		return failure(err)
	}
	if o.input.instances.name != "" && oldRes.runs == nil && newRes.runs == nil {
		return failure(fmt.Errorf("--instance %q: no such instance on either side; the new side has %s",
			o.input.instances.name, instances.List(newRes.all)))
	}
	if len(oldRes.runs) > 1 || len(newRes.runs) > 1 {
		return o.writeInstances(s, old, new, pairInstances(oldRes, newRes, old, new))
	}
	return o.writeOne(s, old, new, oldRes.merged, newRes.merged)
}

// writeOne writes the comparison of one instance (or of none) on each
// side, whatever their names, as diff did before instances.
func (o *diffOptions) writeOne(s IOStreams, old, new diffSide, oldRes, newRes *translate.Result) error {
	if o.format == "unified" {
		return writeUnifiedDiff(s.Out, old, new, oldRes, newRes)
	}
	report := diff.Compare(diffInput(oldRes.Status, &oldRes.Resources, old), diffInput(newRes.Status, &newRes.Resources, new))
	var err error
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

// writeInstances writes the comparison of every instance of either side,
// each under its name.
func (o *diffOptions) writeInstances(s IOStreams, old, new diffSide, pairs []instancePair) error {
	if o.format == "unified" {
		return writeUnifiedInstances(s.Out, old, new, pairs)
	}
	reports := make([]diff.InstanceReport, len(pairs))
	for i, p := range pairs {
		reports[i] = diff.InstanceReport{Name: p.name, Op: p.op(), Report: diff.Compare(p.old, p.new)}
	}
	var err error
	switch o.format {
	case "markdown":
		err = diff.WriteMarkdownInstances(s.Out, reports)
	case "json":
		err = diff.WriteJSONInstances(s.Out, reports)
	default:
		err = diff.WriteTextInstances(s.Out, reports, useColour(o.color, s.Out))
	}
	if err != nil {
		return failure(err)
	}
	if summary := diff.SummarizeInstances(reports); summary != "" {
		return findings(errors.New("contourc: " + summary))
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

// sideResult is one side translated: its instances' runs (nil when the
// side has no paths, or not the instance --instance names), their merged
// result, and every instance found.
type sideResult struct {
	runs   []instances.Run
	merged *translate.Result
	all    []translate.Instance
}

// loadDiffSide loads and translates one side, and checks its resources as
// render would. Errors name the side and the files as the user knows them.
// Notices are printed only with --verbose: both sides' would mostly repeat.
func loadDiffSide(side diffSide, opts translate.Options, g *globalFlags, s IOStreams) (*sideResult, error) {
	res, err := translateSide(side, opts)
	if err == nil {
		err = render.Validate(&res.merged.Resources)
		for _, r := range res.runs {
			if err == nil && len(res.runs) > 1 {
				err = render.Validate(&r.Result.Resources)
			}
		}
	}
	if err != nil {
		var out []error
		for _, e := range flatten(err) {
			out = append(out, fmt.Errorf("%s: %s", side.name, side.relabel(e.Error())))
		}
		return nil, errors.Join(out...)
	}
	status := res.merged.Status
	for i := range status {
		status[i].Source.File = side.relabel(status[i].Source.File)
		if status[i].Source.Via != "" {
			status[i].Source.Via = side.relabel(status[i].Source.Via)
		}
	}
	if g.verbose {
		for _, n := range res.merged.Notices {
			fmt.Fprintf(s.ErrOut, "%s: warning: %s\n", side.name, side.relabel(n.String()))
		}
	}
	return res, nil
}

func translateSide(side diffSide, opts translate.Options) (*sideResult, error) {
	// A base revision that does not have the paths yet is an empty side.
	if len(side.paths) == 0 {
		res, err := translate.Translate(nil, opts)
		return &sideResult{merged: res}, err
	}
	loaded, err := loader.Load(side.paths, side.load)
	if err != nil {
		return nil, err
	}
	all, err := translate.Instances(instances.Objects(loaded, opts), append(slices.Clone(loaded.Workloads), side.clusterWorkloads...), opts)
	if err != nil {
		return nil, err
	}
	if side.instance != "" && !slices.ContainsFunc(all, func(in translate.Instance) bool { return in.Name == side.instance }) {
		// The instance the change adds (or removes): this side has none.
		res, err := translate.Translate(nil, opts)
		return &sideResult{merged: res, all: all}, err
	}
	chosen, err := (&instanceFlags{name: side.instance, every: true}).choose(all)
	if err != nil {
		return nil, err
	}
	standIns := side.standIn
	standIns.Cluster, standIns.Served = opts.Cluster, instances.ServedByAny(chosen)
	if !standIns.Disabled {
		standIns.Configured = configuredSecrets(loaded, chosen)
	}
	if _, err := standin.Apply(loaded, standIns); err != nil {
		return nil, err
	}
	for i := range chosen {
		chosen[i].Options.RequireGateway = false // as for the flags' Gateway (run)
	}
	runs, merged, err := instances.Translate(loaded, chosen, all)
	if err != nil {
		return nil, err
	}
	return &sideResult{runs: runs, merged: merged, all: all}, nil
}

// instancePair is one instance of either side, or the objects no instance
// serves (name ""), to compare; a side without it is empty.
type instancePair struct {
	name           string
	old, new       diff.Side
	hasOld, hasNew bool
}

func (p instancePair) op() diff.Op {
	switch {
	case p.name == "" || p.hasOld == p.hasNew:
		return ""
	case p.hasOld:
		return diff.Removed
	}
	return diff.Added
}

// pairInstances pairs the instances of both sides by name, in name order,
// then the objects no instance serves.
func pairInstances(oldRes, newRes *sideResult, old, new diffSide) []instancePair {
	byName := map[string]*instancePair{}
	var names []string
	pair := func(name string) *instancePair {
		p := byName[name]
		if p == nil {
			p = &instancePair{name: name, old: diff.Side{Resources: &translate.Resources{}}, new: diff.Side{Resources: &translate.Resources{}}}
			byName[name] = p
			names = append(names, name)
		}
		return p
	}
	for _, r := range oldRes.runs {
		p := pair(r.Name)
		p.old, p.hasOld = diffInput(rowsOf(oldRes, r.Name), &r.Result.Resources, old), true
	}
	for _, r := range newRes.runs {
		p := pair(r.Name)
		p.new, p.hasNew = diffInput(rowsOf(newRes, r.Name), &r.Result.Resources, new), true
	}
	p := pair("")
	p.old = diffInput(rowsOf(oldRes, ""), &translate.Resources{}, old)
	p.new = diffInput(rowsOf(newRes, ""), &translate.Resources{}, new)
	slices.Sort(names) // "" first: it goes last
	out := make([]instancePair, 0, len(names))
	for _, n := range names[1:] {
		out = append(out, *byName[n])
	}
	return append(out, *byName[""])
}

// rowsOf are the status rows of one instance of a side ("" for those of no
// instance: NotServed, or another controller's). With one instance, its
// rows are not marked with it.
func rowsOf(res *sideResult, name string) []translate.ObjectStatus {
	var out []translate.ObjectStatus
	for _, st := range res.merged.Status {
		owner := st.Instance
		if len(res.runs) == 1 && st.NotServed == "" && st.Ignored == "" {
			owner = res.runs[0].Name
		}
		if owner == name {
			out = append(out, st)
		}
	}
	return out
}

// diffInput is what the diff package compares of one side: its resources,
// and the verdict on each object's status, judged as check judges it.
func diffInput(status []translate.ObjectStatus, res *translate.Resources, side diffSide) diff.Side {
	objs := make([]diff.Object, 0, len(status))
	for _, st := range status {
		v := verdict.Of(st)
		objs = append(objs, diff.Object{
			Kind: st.Kind, Namespace: st.Namespace, Name: st.Name,
			Source: st.Source.String(), Verdict: v.Word, OK: v.OK, Reasons: v.Reasons,
		})
	}
	return diff.Side{Resources: res, Objects: objs}
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

// writeUnifiedInstances writes diff -u of each instance's render -o json,
// labelled with the instance; a side without the instance is /dev/null.
func writeUnifiedInstances(w io.Writer, old, new diffSide, pairs []instancePair) error {
	redactor := &diff.Redactor{}
	var differ []string
	for _, p := range pairs {
		if p.name == "" {
			continue // status only: render -o json has none
		}
		text := func(has bool, side diff.Side, label string) (string, string, error) {
			if !has {
				return "", "/dev/null", nil
			}
			var b bytes.Buffer
			err := render.JSON(&b, redactor.Redact(side.Resources))
			return b.String(), label + " (instance " + p.name + ")", err
		}
		a, aLabel, err := text(p.hasOld, p.old, old.label)
		if err != nil {
			return failure(fmt.Errorf("old: instance %s: %v", p.name, err))
		}
		b, bLabel, err := text(p.hasNew, p.new, new.label)
		if err != nil {
			return failure(fmt.Errorf("new: instance %s: %v", p.name, err))
		}
		changed, err := diff.WriteUnified(w, aLabel, bLabel, a, b)
		if err != nil {
			return failure(err)
		}
		if changed {
			differ = append(differ, p.name)
		}
	}
	if len(differ) > 0 {
		return findings(fmt.Errorf("contourc: the rendered configurations of instance(s) %s differ", strings.Join(differ, ", ")))
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
