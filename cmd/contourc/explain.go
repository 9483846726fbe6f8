package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contourc/contourc/cmd/contourc/internal/instances"
	"github.com/contourc/contourc/routetest"
)

type explainOptions struct {
	input   inputFlags
	format  string
	req     routetest.Request
	sni     string
	headers []string
}

func newExplainCmd(s IOStreams, g *globalFlags) *cobra.Command {
	o := &explainOptions{}
	cmd := &cobra.Command{
		Use:   "explain --host HOST [--path PATH] [flags] PATH...",
		Short: "Show step by step where Envoy would send a request, and why",
		Long: "Render the manifests at PATH like render does and follow one request through the\n" +
			"generated configuration with Envoy's matching rules: the listener, the filter chain\n" +
			"(by SNI), the virtual host, every route tried and why it did or did not match, and\n" +
			"the action of the route that won. -o json prints the decision as one object.",
		Example: "  contourc explain --host kuard.example.com --path /api ./manifests\n" +
			"  contourc explain --scheme https --host app.example.com --header x-canary=1 ./manifests\n" +
			"  contourc explain -o json --host app.example.com --path '/search?q=x' ./manifests",
		Args: requirePaths,
		RunE: func(cmd *cobra.Command, paths []string) error {
			return o.run(cmd, paths, g, s)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.format, "output-format", "o", "text", "output format: text or json")
	fs.StringVar(&o.req.Authority, "host", "", "the request's Host (:authority), may carry a :port")
	fs.StringVar(&o.req.Path, "path", "/", "the request path, query string included")
	fs.StringVar(&o.req.Method, "method", "GET", "the request method")
	fs.StringArrayVar(&o.headers, "header", nil, "a request header `NAME=VALUE` (repeatable)")
	fs.StringVar(&o.req.Scheme, "scheme", "", "http or https (default: https with --sni or port 443/8443, else http)")
	fs.IntVar(&o.req.Port, "port", 0, "the port the client connects to (default: from --host, else 80 or 443)")
	fs.StringVar(&o.req.Listener, "listener", "", "use the Envoy listener `NAME` instead of choosing by port")
	fs.StringVar(&o.sni, "sni", "", "the TLS server name (default: the host); --sni= sends none")
	fs.StringVar(&o.req.SourceAddress, "source-address", "", "the client's `IP`, for IP allow/deny filters")
	o.input.register(fs)
	o.input.registerInputSize(fs)
	o.input.instances.every = true // each instance with a listener for the request
	_ = cmd.RegisterFlagCompletionFunc("output-format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *explainOptions) run(cmd *cobra.Command, paths []string, g *globalFlags, s IOStreams) error {
	if o.format != "text" && o.format != "json" {
		return fmt.Errorf("invalid --output-format %q: want text or json", o.format)
	}
	if o.req.Authority == "" {
		return fmt.Errorf("explain needs --host")
	}
	req := o.req
	for _, h := range o.headers {
		name, value, ok := strings.Cut(h, "=")
		if !ok || name == "" {
			return fmt.Errorf("--header %q: want NAME=VALUE", h)
		}
		req.Headers = append(req.Headers, routetest.Header{Name: name, Value: value})
	}
	if cmd.Flags().Changed("sni") {
		req.SNI = &o.sni
	}
	_, sources, err := translateWithSources(paths, &o.input, g, s)
	if err != nil {
		return err
	}
	decisions, err := explainEach(o.input.instances.runs, sources, req)
	if err != nil {
		return err
	}
	if err := writeDecisions(s.Out, o.format, decisions, len(o.input.instances.runs) > 1); err != nil {
		return failure(err)
	}
	return nil
}

// instanceDecision is where one instance sends the request.
type instanceDecision struct {
	Instance string              `json:"instance"`
	Decision *routetest.Decision `json:"decision"`
}

// explainEach follows the request through each instance's configuration,
// keeping those that route it (routing).
func explainEach(runs []instances.Run, sources routetest.Sources, req routetest.Request) ([]instanceDecision, error) {
	all := make([]instanceDecision, len(runs))
	for i, r := range runs {
		d, err := routetest.New(&r.Result.Resources, sources).Evaluate(req)
		if err != nil {
			return nil, err
		}
		all[i] = instanceDecision{r.Name, d}
	}
	return routing(all), nil
}

// routing keeps, of the decisions of several instances, those of the
// instances that route the request: with a route for it, else with a
// virtual host for it, else with a listener for it (Contour's default
// listeners take any request), else the first, whose decision says why
// the request went nowhere.
func routing(all []instanceDecision) []instanceDecision {
	for _, reached := range []func(*routetest.Decision) bool{
		func(d *routetest.Decision) bool { return d.RouteIndex >= 0 },
		func(d *routetest.Decision) bool { return d.VirtualHost != "" },
		func(d *routetest.Decision) bool { return d.Listener != "" },
	} {
		var out []instanceDecision
		for _, d := range all {
			if reached(d.Decision) {
				out = append(out, d)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return all[:1]
}

// writeDecisions writes the decision of a run of one instance as before
// instances existed, or, from a run of several, each under its instance's name (text)
// or as a list of {instance, decision} (json).
func writeDecisions(w io.Writer, format string, ds []instanceDecision, several bool) error {
	if !several {
		if format == "json" {
			return routetest.WriteDecisionJSON(w, ds[0].Decision)
		}
		return routetest.WriteExplain(w, ds[0].Decision)
	}
	if format == "json" {
		b, err := json.MarshalIndent(ds, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	for i, d := range ds {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "instance %s:\n", d.Instance)
		if err := routetest.WriteExplain(w, d.Decision); err != nil {
			return err
		}
	}
	return nil
}
