package repoconfig

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/contourc/contourc/internal/testfs"
)

func flagValue(t *testing.T, cmd *cobra.Command, name string) string {
	t.Helper()
	f := cmd.Flags().Lookup(name)
	if f == nil {
		t.Fatalf("%s has no --%s", cmd.Name(), name)
	}
	return f.Value.String()
}

// The keys map onto flags generically: a command with flags this file
// does not know of by name (those of stand-ins and assumed objects) takes
// them, a boolean key is also its --no- flag the other way round, and the
// flags that take files have their paths resolved.
func TestRepoConfigGenericFlags(t *testing.T) {
	repo := t.TempDir()
	testfs.Write(t, repo, map[string]string{"cfg/.contourc.yaml": `assume:
  secrets: ["platform/wildcard-tls:*"]
  services: ["logging/kibana-kb-http:5601/tls"]
clusterContext: [platform/dump.yaml]
standIns: false
kustomizeRemote: true
`})
	root := &cobra.Command{Use: "contourc"}
	var v Value
	later := &cobra.Command{Use: "later", RunE: func(*cobra.Command, []string) error { return nil }}
	fs := later.Flags()
	Register(fs, &v)
	fs.StringArray("assume-secret", nil, "")
	fs.StringArray("assume-service", nil, "")
	fs.StringArray("cluster-context", nil, "")
	fs.Bool("no-stand-ins", false, "")
	fs.Bool("kustomize-remote", false, "")
	fs.Bool("allow-stand-ins", false, "")
	root.AddCommand(later)
	t.Chdir(repo)
	if err := later.ParseFlags([]string{"--config", "cfg/.contourc.yaml"}); err != nil {
		t.Fatal(err)
	}
	if err := Apply(later, nil, false, nil); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"assume-secret":    "[platform/wildcard-tls:*]",
		"assume-service":   "[logging/kibana-kb-http:5601/tls]",
		"cluster-context":  "[cfg/platform/dump.yaml]", // the root is the file's directory
		"no-stand-ins":     "true",
		"kustomize-remote": "true",
	} {
		if got := flagValue(t, later, name); got != want {
			t.Errorf("--%s = %q, want %q", name, got, want)
		}
	}
	// serve's --allow-stand-ins is the command line's alone.
	testfs.Write(t, repo, map[string]string{"cfg/.contourc.yaml": "allowStandIns: true\n"})
	if err := Apply(later, nil, false, nil); err == nil || !strings.Contains(err.Error(), `unknown field "allowStandIns"`) {
		t.Errorf("allowStandIns: err = %v, want an unknown field", err)
	}
}
