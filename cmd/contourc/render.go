package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contourc/contourc/cmd/contourc/internal/gcpace"
	"github.com/contourc/contourc/cmd/contourc/internal/verdict"
	"github.com/contourc/contourc/render"
	"github.com/contourc/contourc/translate"
)

// renderers are render's output formats, by -o value. Each checks every
// resource against Envoy's validation rules before it writes anything:
// Envoy refuses a resource that breaks them as a whole, so better to fail
// here than to write a file Envoy will not load.
var renderers = map[string]func(io.Writer, *translate.Resources) error{
	"yaml": render.Bootstrap,
	"json": render.JSON,
}

// streamers are the formats that can also be written as they are printed,
// so that the output is never held in memory whole; they may write part of
// it before they fail, so they only write where that can be taken back
// (see writeOut). JSON lets go of the resources as it writes them (a
// render writes its resources once), and bounds the heap to match.
var streamers = map[string]func(io.Writer, *translate.Resources) error{
	"json": func(w io.Writer, r *translate.Resources) error {
		gcpace.BoundHeapWhileWriting()
		return render.JSONStreamOnce(w, r)
	},
	"yaml": render.BootstrapStream,
}

type renderOptions struct {
	input     inputFlags
	format    string
	output    string
	outputDir string
	strict    bool
}

func newRenderCmd(s IOStreams, g *globalFlags) *cobra.Command {
	o := &renderOptions{}
	cmd := &cobra.Command{
		Use:   "render [flags] [PATH...]",
		Short: "Write the Envoy configuration Contour would serve for the manifests",
		Long: "Read manifests from files, directories (recursively) or - (stdin) and write a static\n" +
			"Envoy bootstrap (-o yaml, runnable with envoy -c) or the xDS resources as JSON (-o json).\n" +
			"Nothing is written unless every step succeeds.",
		Example: "  contourc render ./manifests > envoy.yaml\n" +
			"  contourc render -o json --output xds.json ./manifests\n" +
			"  kubectl get ingress,svc,endpointslices,secrets -A -o yaml | contourc render -",
		RunE: o.input.runOnPaths(func(paths []string) error { return o.run(paths, g, s) }, g, s),
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.format, "output-format", "o", "yaml", "output format: yaml (static Envoy bootstrap) or json (xDS resources)")
	fs.StringVar(&o.output, "output", "", "write to `FILE` (atomically: replaced only when rendering succeeds) instead of stdout")
	fs.StringVar(&o.outputDir, "output-dir", "", "write one file per Contour instance, `DIR`/<instance>.yaml or .json (NS/NAME.yaml),\nall of them or none")
	fs.BoolVar(&o.strict, "strict", false, "fail (exit 1, write nothing) when any object is invalid instead of warning")
	o.input.register(fs)
	o.input.registerInputSize(fs)
	_ = cmd.RegisterFlagCompletionFunc("output-format", cobra.FixedCompletions([]string{"yaml", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *renderOptions) run(paths []string, g *globalFlags, s IOStreams) error {
	write, ok := renderers[o.format]
	if !ok {
		return fmt.Errorf("invalid --output-format %q: want yaml or json", o.format)
	}
	if err := checkOutputFile(o.output); err != nil {
		return err
	}
	if o.outputDir != "" && o.output != "" {
		return fmt.Errorf("--output and --output-dir go separately: one file, or one per instance")
	}
	warmUp(o.format)
	o.input.instances.every = o.outputDir != ""
	res, err := translateInput(paths, &o.input, g, s)
	if err != nil {
		return err
	}
	if err := o.judge(res.Status, s.ErrOut); err != nil {
		return err
	}
	if o.outputDir != "" {
		if err := writeInstanceFiles(o.outputDir, o.format, o.input.instances.runs, write); err != nil {
			return failure(err)
		}
		return nil
	}
	// stdout gets all or nothing, and --output is replaced only when the
	// temporary file holds everything.
	emit := func(w io.Writer) error { return write(w, &res.Resources) }
	var stream func(io.Writer) error
	if st, ok := streamers[o.format]; ok {
		stream = func(w io.Writer) error { return st(w, &res.Resources) }
	}
	start := time.Now()
	if o.output == "" {
		if err := protectKeys(s, &res.Resources, g.verbose); err != nil {
			return failure(err)
		}
		err = writeOut(s.Out, emit, stream)
	} else {
		if stream != nil {
			emit = stream // the temporary file is discarded on failure
		}
		err = writeFileAtomicFrom(o.output, privatePerm, emit)
	}
	if err != nil {
		return failure(err)
	}
	if g.verbose {
		fmt.Fprintf(s.ErrOut, "rendered in %s\n", roundedDuration(time.Since(start)))
	}
	return nil
}

// formatWords are the -o values of contourc's commands and kubectl's:
// --output given one of them was meant as -o (kubectl's -o is --output),
// not as the name of a file to create in the current directory.
var formatWords = []string{"yaml", "yml", "json", "table", "text", "markdown", "unified", "github", "wide", "name"}

// checkOutputFile refuses an --output FILE that is a bare format name:
// `render --output json` would otherwise write the bootstrap to a file
// called json and print nothing. A path (./json) still names the file.
func checkOutputFile(path string) error {
	if !slices.Contains(formatWords, strings.ToLower(path)) {
		return nil
	}
	hint := "-o " + path
	if _, ok := renderers[strings.ToLower(path)]; !ok {
		hint = "-o yaml or -o json"
	}
	return fmt.Errorf("--output %q would write a file called %s; did you mean %s? (--output takes a FILE, -o the format; to write that file, say --output ./%s)",
		path, path, hint, path)
}

// protectKeys makes standard output private (see protectOut) before a
// render that holds key material is written to it, and says so with
// --verbose.
func protectKeys(s IOStreams, r *translate.Resources, verbose bool) error {
	if !render.HoldsKeyMaterial(r) {
		return nil
	}
	changed, err := protectOut(s.Out)
	if changed && verbose {
		fmt.Fprintln(s.ErrOut, "made standard output readable by its owner only (0600): it holds private keys")
	}
	return err
}

// judge reports the objects Contour would mark invalid. Contour still serves
// the valid rest, so by default they are warnings; --strict makes them fatal.
func (o *renderOptions) judge(statuses []translate.ObjectStatus, w io.Writer) error {
	prefix := "warning: "
	if o.strict {
		prefix = ""
	}
	bad := 0
	for _, st := range statuses {
		v := verdict.Of(st)
		if v.OK {
			continue
		}
		if st.NotServed != "" {
			// Not this configuration's to judge: rendering it is right.
			fmt.Fprintf(w, "warning: %s: %s\n", objectRef(st), v)
			continue
		}
		bad++
		if st.Kind == "Ingress" && !o.strict {
			// Its findings were printed as notices already.
			continue
		}
		fmt.Fprintf(w, "%s%s: %s\n", prefix, objectRef(st), v)
	}
	if bad > 0 && o.strict {
		return findings(fmt.Errorf("contourc: %d invalid object(s), nothing written (--strict)", bad))
	}
	return nil
}

// objectRef names an object the way loader errors do: "file:line: Kind ns/name".
func objectRef(st translate.ObjectStatus) string {
	ref := st.Kind + " " + qualifiedName(st.Namespace, st.Name)
	if src := st.Source.String(); src != "" {
		ref = src + ": " + ref
	}
	return ref
}
