package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contourc/contourc/render/graph"
)

type graphOptions struct {
	input    inputFlags
	format   string
	linkBase string
}

func newGraphCmd(s IOStreams, g *globalFlags) *cobra.Command {
	o := &graphOptions{}
	cmd := &cobra.Command{
		Use:   "graph [flags] PATH...",
		Short: "Draw the routing as a graph: Graphviz DOT or a self-contained HTML page",
		Long: "Render the manifests at PATH like render does and draw what Envoy would be served as a\n" +
			"graph: listeners -> virtual hosts -> routes (in Envoy's order) -> clusters -> Services,\n" +
			"with the objects they come from (HTTPProxy includes, Gateway API parents), each node\n" +
			"coloured by its object's status and linked to its file and line.\n" +
			"-o dot writes Graphviz DOT, as Contour's /debug/dag does (draw it with dot -Tsvg);\n" +
			"-o html writes one HTML page that needs no network: the graph as SVG, a search by host\n" +
			"or path, and the routes of each virtual host in order. See docs/graph.md.",
		Example: "  contourc graph -o html ./manifests > graph.html\n" +
			"  contourc graph ./manifests | dot -Tsvg > graph.svg\n" +
			"  contourc graph -o html --link-base https://github.com/org/repo/blob/main/ ./manifests > graph.html",
		Args: requirePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(args, g, s)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.format, "output-format", "o", "dot", "output format: dot (Graphviz) or html (a self-contained page)")
	fs.StringVar(&o.linkBase, "link-base", "", "put `URL` before each node's file in its link (e.g. a repository's blob URL); without it links are the paths as given")
	o.input.register(fs)
	o.input.registerInputSize(fs)
	_ = cmd.RegisterFlagCompletionFunc("output-format", cobra.FixedCompletions([]string{"dot", "html"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *graphOptions) run(paths []string, g *globalFlags, s IOStreams) error {
	if o.format != "dot" && o.format != "html" {
		return fmt.Errorf("invalid --output-format %q: want dot or html", o.format)
	}
	res, loaded, err := loadInput(paths, &o.input, g, s)
	if err != nil {
		return err
	}
	gr := graph.Build(graph.Input{Resources: &res.Resources, Status: res.Status, Notices: res.Notices, Objects: graph.ObjectsFrom(loaded.Objects)})
	if o.format == "dot" {
		err = graph.WriteDOT(s.Out, gr, o.linkBase)
	} else {
		err = graph.WriteHTML(s.Out, gr, graph.HTMLOptions{LinkBase: o.linkBase})
	}
	if err != nil {
		return failure(err)
	}
	return nil
}
