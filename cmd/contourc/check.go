package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/contourc/contourc/translate"
)

// statusPrinters are check's output formats, by -o value.
var statusPrinters = map[string]func(io.Writer, []translate.ObjectStatus) error{
	"table": printStatusTable,
	"json":  printStatusJSON,
	"yaml":  printStatusYAML,
}

type checkOptions struct {
	input  inputFlags
	format string
}

func newCheckCmd(s IOStreams, g *globalFlags) *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [flags] PATH...",
		Short: "Print the status Contour would write on each object",
		Long: "Read manifests like render does and print the status Contour would write on each\n" +
			"object that carries one (HTTPProxy, ExtensionService, Gateway API objects).\n" +
			"Exits 1 when any object is invalid, orphaned or not accepted.",
		Example: "  contourc check ./manifests\n" +
			"  contourc check -o json ./manifests",
		Args: requirePaths,
		RunE: func(_ *cobra.Command, paths []string) error {
			return o.run(paths, g, s)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.format, "output-format", "o", "table", "output format: table, json or yaml")
	o.input.register(fs)
	_ = cmd.RegisterFlagCompletionFunc("output-format", cobra.FixedCompletions([]string{"table", "json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *checkOptions) run(paths []string, g *globalFlags, s IOStreams) error {
	printStatus, ok := statusPrinters[o.format]
	if !ok {
		return fmt.Errorf("invalid --output-format %q: want table, json or yaml", o.format)
	}
	res, err := translateInput(paths, &o.input, g, s)
	if err != nil {
		return err
	}
	if len(res.Status) == 0 && o.format == "table" {
		// A bare header would leave people wondering; scripts use -o json.
		fmt.Fprintln(s.ErrOut, "no object in the input carries status (Ingresses and Services have none)")
		return nil
	}
	if err := printStatus(s.Out, res.Status); err != nil {
		return failure(err)
	}
	bad := 0
	for _, st := range res.Status {
		if !verdictOf(st.Status).OK {
			bad++
		}
	}
	if bad > 0 {
		return findings(fmt.Errorf("contourc: %d of %d object(s) not valid", bad, len(res.Status)))
	}
	return nil
}

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

// printStatusTable writes one line per object for people.
func printStatusTable(w io.Writer, list []translate.ObjectStatus) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAMESPACE/NAME\tSOURCE\tVERDICT\tREASONS")
	for _, st := range list {
		v := verdictOf(st.Status)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n",
			st.Kind, qualifiedName(st.Namespace, st.Name), orDash(st.Source.String()),
			v.Word, orDash(strings.Join(v.Reasons, "; ")))
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
