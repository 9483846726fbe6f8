package main

// contourc version: which build this is and which releases of Contour,
// Gateway API and Envoy's API it reproduces, for a bug report or a CI log
// that must say what judged the manifests.

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set at build time with -ldflags "-X main.commit=... -X main.buildDate=..."
// (scripts/build.sh); without them, the Go toolchain's VCS stamp is used
// when the build has one.
var (
	commit    = ""
	buildDate = ""
)

// reproducedModules are the modules whose versions say what contourc
// reproduces: Contour's translation, the Gateway API types and validation,
// and the Envoy API (go-control-plane's envoy module is tagged with
// Envoy's release version). They are read from the binary's build info, so
// they follow go.mod without a list of versions to keep up to date here.
var reproducedModules = [...]struct{ key, path string }{
	{"contour", "github.com/projectcontour/contour"},
	{"gatewayAPI", "sigs.k8s.io/gateway-api"},
	{"envoyAPI", "github.com/envoyproxy/go-control-plane/envoy"},
}

// versionInfo is what `contourc version -o json` prints.
type versionInfo struct {
	Version    string            `json:"version"`
	Commit     string            `json:"commit"`
	BuildDate  string            `json:"buildDate"`
	GoVersion  string            `json:"goVersion"`
	Platform   string            `json:"platform"`
	Reproduces map[string]string `json:"reproduces"`
}

// readVersionInfo assembles versionInfo from the link-time variables and
// the build info the Go toolchain embeds. It runs only for the version
// command, so no other command pays for reading the build info.
func readVersionInfo() versionInfo {
	v := versionInfo{
		Version:    version,
		Commit:     commit,
		BuildDate:  buildDate,
		GoVersion:  runtime.Version(),
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
		Reproduces: map[string]string{},
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && v.Commit == "":
			v.Commit = s.Value
		case s.Key == "vcs.time" && v.BuildDate == "":
			v.BuildDate = s.Value
		}
	}
	for _, d := range bi.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		for _, m := range reproducedModules {
			if d.Path == m.path {
				v.Reproduces[m.key] = d.Version
			}
		}
	}
	return v
}

func newVersionCmd(s IOStreams) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of contourc",
		Long: "Print the version of contourc. With -o json, also the commit, build date, Go version,\n" +
			"and the versions of Contour, Gateway API and the Envoy API that it reproduces.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			switch format {
			case "text":
				_, err := fmt.Fprintf(s.Out, "contourc %s\n", version)
				return err
			case "json":
				b, err := json.MarshalIndent(readVersionInfo(), "", "  ")
				if err != nil {
					return failure(err)
				}
				_, err = fmt.Fprintf(s.Out, "%s\n", b)
				return err
			}
			return fmt.Errorf("invalid --output-format %q: want text or json", format)
		},
	}
	cmd.Flags().StringVarP(&format, "output-format", "o", "text", "output format: text or json")
	_ = cmd.RegisterFlagCompletionFunc("output-format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
