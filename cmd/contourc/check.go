package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/contourc/contourc/cmd/contourc/internal/instances"
	"github.com/contourc/contourc/cmd/contourc/internal/repoconfig"
	"github.com/contourc/contourc/cmd/contourc/internal/verdict"
	"github.com/contourc/contourc/lint"
	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// checkPrinters are check's output formats, by -o value. Most print the
// status list; github prints annotations, which also cover notices.
var checkPrinters = map[string]func(io.Writer, *translate.Result) error{
	"table":  func(w io.Writer, r *translate.Result) error { return printStatusTable(w, r.Status) },
	"json":   func(w io.Writer, r *translate.Result) error { return printStatusJSON(w, r.Status) },
	"yaml":   func(w io.Writer, r *translate.Result) error { return printStatusYAML(w, r.Status) },
	"github": printGitHubAnnotations,
}

type checkOptions struct {
	input         inputFlags
	format        string
	failOn        []string
	allowEmpty    bool
	allowUnserved bool
	// withLint is --lint: lint's findings too (lint.go).
	withLint bool
	lint     lintFlags
}

func newCheckCmd(s IOStreams, g *globalFlags) *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [flags] [PATH...]",
		Short: "Print the status Contour would write on each object",
		Long: "Read manifests like render does and print the status Contour would write on each\n" +
			"object that carries one (HTTPProxy, ExtensionService, Gateway API objects), and a verdict on\n" +
			"each Ingress: valid when served as written, invalid with what was left out (a TLS entry, a path).\n" +
			"Exits 1 when any object is invalid, orphaned or not accepted; with --fail-on warning,\n" +
			"also when an object has warnings or contourc has a notice (e.g. a Service without endpoints);\n" +
			"with --fail-on skipped, when anything was skipped or left out (kustomization entries not fetched).\n" +
			"-o github prints GitHub Actions annotations, shown on the pull request's files.\n" +
			"Without PATH, reads the paths of the repository config file (.contourc.yaml; see contourc init).",
		Example: "  contourc check ./manifests\n" +
			"  contourc check                # in a repository with a .contourc.yaml\n" +
			"  contourc check -o json ./manifests\n" +
			"  contourc check -o github --fail-on warning ./manifests",
		RunE: o.input.runOnPaths(func(paths []string) error { return o.run(paths, g, s) }, g, s),
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.format, "output-format", "o", "table", "output format: table, json, yaml or github (GitHub Actions annotations)")
	fs.StringSliceVar(&o.failOn, "fail-on", []string{"error"},
		"exit 1 on: error (objects not valid), warning (also warnings and notices), skipped (also anything skipped or left out);\ncomma-separated or repeated")
	fs.BoolVar(&o.allowEmpty, "allow-empty", false, "exit 0 when nothing was checked (no object of a class an instance serves, no Gateway)")
	fs.BoolVar(&o.allowUnserved, "allow-unserved", false, "exit 0 on Ingresses and HTTPProxies of a class no Contour instance serves (NotServed)")
	fs.BoolVar(&o.withLint, "lint", false, "also report contourc lint's findings (after the status; under \"lint\" with -o json or yaml), failing on lint errors (with --fail-on warning, warnings)")
	o.lint.register(fs)
	o.input.register(fs)
	o.input.registerInputSize(fs)
	o.input.instances.every = true
	_ = cmd.RegisterFlagCompletionFunc("output-format", cobra.FixedCompletions([]string{"table", "json", "yaml", "github"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"error", "warning", "skipped"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *checkOptions) run(paths []string, g *globalFlags, s IOStreams) error {
	write, ok := checkPrinters[o.format]
	if !ok {
		return fmt.Errorf("invalid --output-format %q: want table, json or yaml, or github for GitHub Actions annotations", o.format)
	}
	failOn := map[string]bool{}
	for _, v := range repoconfig.NonEmpty(o.failOn) {
		if v != "error" && v != "warning" && v != "skipped" {
			return fmt.Errorf("invalid --fail-on %q: want error, warning or skipped", v)
		}
		failOn[v] = true
	}
	lintOpts, err := o.lint.options()
	if err != nil {
		return err
	}
	o.input.statusOnly = true // status needs no Envoy resources
	res, loaded, err := loadInput(paths, &o.input, g, s)
	if err != nil {
		return err
	}
	var found []lint.Finding
	if o.withLint {
		found = lint.Run(loaded.Objects, res, lintOpts)
		write = func(w io.Writer, r *translate.Result) error { return writeCheckWithLint(w, o.format, r, found) }
	}
	if len(res.Status) == 0 && len(found) == 0 && o.format == "table" {
		// A bare header would leave people wondering (nothingChecked
		// below says why); scripts use -o json.
	} else if err := writeBuffered(s.Out, func(w io.Writer) error { return write(w, res) }); err != nil {
		return failure(err)
	}
	bad, unserved, warnings := 0, 0, len(res.Notices)
	for _, st := range res.Status {
		v := verdict.Of(st)
		switch {
		case st.NotServed != "":
			unserved++
		case !v.OK:
			bad++
		default:
			warnings += len(v.Warnings())
		}
	}
	if bad > 0 {
		return findings(fmt.Errorf("contourc: %d of %d object(s) not valid", bad, len(res.Status)))
	}
	if unserved > 0 && !o.allowUnserved {
		return findings(fmt.Errorf("contourc: %d object(s) of a class no Contour instance serves (NotServed; --allow-unserved to accept)", unserved))
	}
	if len(loaded.Objects)+len(loaded.Workloads)+len(loaded.Entries) == 0 {
		// Empty files are an input kubectl applies without a word: it
		// holds nothing to check, which the table's notice says. GitOps
		// entry points that gave nothing (none followed: an OCI source,
		// another repository) are no empty input: checking nothing there
		// is a finding, as for objects of kinds contourc does not check.
		if o.format == "table" {
			fmt.Fprintln(s.ErrOut, "no object in the input: nothing to check")
		}
	} else if why := nothingChecked(res, o.input.instances.runs); why != "" {
		if n := len(loaded.Entries); n > 0 && !anyFollowed(loaded.Entries) {
			why += fmt.Sprintf("; none of the %d GitOps entry point(s) was followed (-v says why)", n)
		}
		if !o.allowEmpty {
			return findings(fmt.Errorf("contourc: nothing was checked: %s (--allow-empty to accept)", why))
		}
		fmt.Fprintf(s.ErrOut, "warning: nothing was checked: %s\n", why)
	}
	if err := checkLintVerdict(found, failOn); err != nil {
		return err
	}
	if warnings > 0 && failOn["warning"] {
		return findings(fmt.Errorf("contourc: %d warning(s) (--fail-on warning)", warnings))
	}
	if n := skippedCount(loaded); n > 0 && failOn["skipped"] {
		return findings(fmt.Errorf("contourc: %d thing(s) skipped or left out (--fail-on skipped)", n))
	}
	return nil
}

// nothingChecked says why a run checked nothing: no Ingress or HTTPProxy of
// a class an instance serves and no Gateway served; "" when it checked
// something.
// anyFollowed reports whether some entry point was followed.
func anyFollowed(entries []loader.EntryReport) bool {
	for _, e := range entries {
		if e.Followed {
			return true
		}
	}
	return false
}

func nothingChecked(res *translate.Result, runs []instances.Run) string {
	for _, st := range res.Status {
		if (st.Kind == "Ingress" || st.Kind == "HTTPProxy") && st.NotServed == "" && st.Ignored == "" {
			return ""
		}
	}
	for _, r := range runs {
		if r.Result.Gateway != nil {
			return ""
		}
	}
	return "no Ingress or HTTPProxy of a class a Contour instance serves, and no Gateway of Contour's controller"
}

// printGitHubAnnotations writes GitHub Actions workflow commands: an error
// annotation for each object that is not valid, a warning for each valid
// object with warnings and for each notice but an Ingress's (which its
// error annotation lists), and a notice for each object resting on a
// stand-in Secret, on the file and line the object comes from, so that
// they show on the pull request's diff. Other valid objects print nothing.
func printGitHubAnnotations(w io.Writer, res *translate.Result) error {
	for _, st := range res.Status {
		v := verdict.Of(st)
		ref := st.Kind + " " + qualifiedName(st.Namespace, st.Name)
		if st.Instance != "" {
			ref += " (instance " + st.Instance + ")"
		}
		switch {
		case !v.OK:
			msg := strings.Join(v.Reasons, "; ")
			if msg == "" {
				msg = ref + " is " + v.Word
			}
			writeAnnotation(w, "error", st.Source.File, st.Source.Line, ref+" is "+v.Word, msg+builtThrough(st.Source))
		case len(v.Warnings()) > 0:
			writeAnnotation(w, "warning", st.Source.File, st.Source.Line, ref+" has warnings", strings.Join(v.Warnings(), "; ")+builtThrough(st.Source))
		}
		if len(st.StandIns) > 0 {
			writeAnnotation(w, "notice", st.Source.File, st.Source.Line, ref+" rests on a stand-in", strings.Join(standInReasons(st), "; "))
		}
	}
	for _, n := range res.Notices {
		if n.Kind == "Ingress" {
			// The Ingress's own annotation above carries it.
			continue
		}
		title := "contourc"
		if n.Kind != "" {
			title = n.Kind + " " + n.Name
		}
		writeAnnotation(w, "warning", n.Source.File, n.Source.Line, title, n.Msg+builtThrough(n.Source))
	}
	return nil
}

// skippedCount is how many things the load skipped or left out.
func skippedCount(r *loader.Result) int {
	n := 0
	for _, w := range r.Warnings {
		if w.Skipped {
			n++
		}
	}
	return n
}

// builtThrough says which kustomization an object was built through:
// the annotation sits on the object's source file, which the
// kustomization may have patched.
func builtThrough(src loader.Source) string {
	if src.Via == "" {
		return ""
	}
	return " (built through kustomization " + src.Via + ")"
}

// writeAnnotation writes one workflow command,
// "::error file=F,line=L,title=T::message", escaped as the runner expects:
// %, CR and LF in the message, and also : and , in properties.
func writeAnnotation(w io.Writer, level, file string, line int, title, msg string) {
	var props []string
	if file != "" {
		props = append(props, "file="+escapeProperty(file))
		if line > 0 {
			props = append(props, fmt.Sprintf("line=%d", line))
		}
	}
	props = append(props, "title="+escapeProperty(title))
	fmt.Fprintf(w, "::%s %s::%s\n", level, strings.Join(props, ","), escapeData(msg))
}

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }

// printStatusJSON writes the list the parity tool and scripts read: exactly
// translate.ObjectStatus's JSON, and [] (not null) when no object has status.
func printStatusJSON(w io.Writer, list []translate.ObjectStatus) error {
	if list == nil {
		list = []translate.ObjectStatus{}
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// printStatusYAML writes the same list as YAML, with the JSON field names.
func printStatusYAML(w io.Writer, list []translate.ObjectStatus) error {
	if list == nil {
		list = []translate.ObjectStatus{}
	}
	b, err := yaml.Marshal(list)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writeBuffered runs write on a buffer in front of out: the table writer
// writes each cell and its padding on its own, and the annotations each
// line, which were tens of thousands of write calls at 5,000 objects.
func writeBuffered(out io.Writer, write func(io.Writer) error) error {
	bw := bufio.NewWriterSize(out, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// printStatusTable writes one line per object for people.
func printStatusTable(w io.Writer, list []translate.ObjectStatus) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	// The INSTANCE column only in a run of several instances, whose rows
	// all have one: a run of one prints the table it always printed.
	several := slices.ContainsFunc(list, func(st translate.ObjectStatus) bool { return st.Instance != "" })
	if several {
		fmt.Fprintln(tw, "KIND\tNAMESPACE/NAME\tINSTANCE\tSOURCE\tVERDICT\tREASONS")
	} else {
		fmt.Fprintln(tw, "KIND\tNAMESPACE/NAME\tSOURCE\tVERDICT\tREASONS")
	}
	for _, st := range list {
		v := verdict.Of(st)
		name := qualifiedName(st.Namespace, st.Name)
		if several {
			name += "\t" + orDash(st.Instance)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n",
			st.Kind, name, orDash(st.Source.String()),
			v.Word, orDash(strings.Join(append(v.Reasons, standInReasons(st)...), "; ")))
	}
	return tw.Flush()
}

func qualifiedName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
