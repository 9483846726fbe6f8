package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/contourc/contourc/cmd/contourc/internal/repoconfig"
	"github.com/contourc/contourc/internal/testfs"
)

// configuredFlags parses args for the command name, applies the config
// file it finds, and returns the command for its flags.
func configuredFlags(t *testing.T, name string, args ...string) (*cobra.Command, error) {
	t.Helper()
	root := newRootCmd(IOStreams{})
	cmd, _, err := root.Find([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	return cmd, repoconfig.Apply(cmd, cmd.Flags().Args(), false, nil)
}

func flagValue(t *testing.T, cmd *cobra.Command, name string) string {
	t.Helper()
	f := cmd.Flags().Lookup(name)
	if f == nil {
		t.Fatalf("%s has no --%s", cmd.Name(), name)
	}
	return f.Value.String()
}

// Every key of the file sets its flag, paths are taken from the root
// (the file's directory) and named from the current directory, and
// exclude stays as written (it is relative to each PATH).
func TestRepoConfigKeys(t *testing.T) {
	repo := t.TempDir()
	testfs.Write(t, repo, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		".contourc.yaml": `paths: [apps/, clusters/prod/]
namespace: web
exclude: ["**/tests/**"]
substitute: {CLUSTER_DOMAIN: example.com, ZONE: a}
substituteFrom: [clusters/prod/vars.yaml]
substituteStrict: true
contour:
  configPath: contour.yaml
  ingressClassName: [external, internal]
  gateway: infra/edge
  envoyServiceHttpPort: 9080
  upstreamDns: cluster.example
failOn: warning
maxInputSize: 2Gi
argocd:
  repos: [https://github.com/example/platform.git, git@github.com:example/other.git]
flux:
  sources: [flux-system/fleet, OCIRepository/flux-system/cluster-manifests=kubernetes]
`,
	})
	testfs.Write(t, repo, map[string]string{"apps/app.yaml": ""})
	t.Chdir(filepath.Join(repo, "apps")) // not the root: paths still resolve against it
	cmd, err := configuredFlags(t, "check")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"namespace":               "web",
		"exclude":                 "[**/tests/**]",
		"substitute":              "[CLUSTER_DOMAIN=example.com,ZONE=a]",
		"substitute-from":         "[../clusters/prod/vars.yaml]",
		"substitute-strict":       "true",
		"config-path":             "../contour.yaml",
		"ingress-class-name":      "[external,internal]",
		"gateway":                 "infra/edge",
		"envoy-service-http-port": "9080",
		"upstream-dns":            "cluster.example",
		"fail-on":                 "[warning]",
		"max-input-size":          "2Gi",
		// A URL, not a path: kept as written.
		"argocd-repo": "[https://github.com/example/platform.git,git@github.com:example/other.git]",
		// An OCIRepository's DIR is from the repository's root, as the
		// follower reads it: kept as written too.
		"flux-source": "[flux-system/fleet,OCIRepository/flux-system/cluster-manifests=kubernetes]",
	}
	for name, v := range want {
		if got := flagValue(t, cmd, name); got != v {
			t.Errorf("--%s = %q, want %q", name, got, v)
		}
	}
	paths, err := pathsOf(t, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(paths, " ") != ". ../clusters/prod" {
		t.Errorf("paths = %q, want the root's apps/ and clusters/prod/ named from apps/", paths)
	}
}

// pathsOf is what the command's RunE takes for its paths without
// arguments.
func pathsOf(t *testing.T, cmd *cobra.Command) ([]string, error) {
	t.Helper()
	v, ok := repoconfig.Lookup(cmd)
	if !ok {
		t.Fatalf("%s reads no config file", cmd.Name())
	}
	f := &inputFlags{config: *v}
	return f.pathsOrConfig(cmd, nil)
}

// Flags given on the command line win over the file's keys; a mapping's
// NAME=VALUE items merge with the command line's, which win per name.
func TestRepoConfigFlagsOverride(t *testing.T) {
	repo := t.TempDir()
	testfs.Write(t, repo, map[string]string{".contourc.yaml": `namespace: web
contour: {gateway: infra/edge, ingressClassName: [external]}
substitute: {A: file, B: file}
`})
	t.Chdir(repo)
	cmd, err := configuredFlags(t, "render", "-n", "other", "--ingress-class-name", "internal", "--substitute", "B=flag", ".")
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{
		"namespace":          "other",
		"ingress-class-name": "[internal]",
		"gateway":            "infra/edge",
		"substitute":         "[A=file,B=file,B=flag]", // the last B wins, as with repeated --substitute
	} {
		if got := flagValue(t, cmd, name); got != v {
			t.Errorf("--%s = %q, want %q", name, got, v)
		}
	}
}

// Keys that set no flag of any command are errors at their line, worded
// as the loader's strict decoding; a key of another command's flag is
// left out of this one.
func TestRepoConfigErrors(t *testing.T) {
	for _, c := range []struct {
		name, file string
		command    string
		want       string // stderr, "" for success
	}{
		{"unknown key", "namespace: web\nfailsOn: warning\n", "check", `.contourc.yaml:2: unknown field "failsOn"`},
		{"unknown key in contour", "contour:\n  gateway: a/b\n  gatewayz: x\n", "check", `.contourc.yaml:3: unknown field "contour.gatewayz"`},
		{"unknown key in assume", "assume:\n  configmaps: [a/b]\n", "check", `.contourc.yaml:2: unknown field "assume.configmaps"`},
		{"not a mapping", "- paths\n", "check", `.contourc.yaml:1: expected an object, got a list`},
		{"boolean as a string", "substituteStrict: \"yes\"\n", "check", `.contourc.yaml:1: substituteStrict: expected a boolean, got the string "yes"`},
		{"list for a string", "namespace: [a, b]\n", "check", `.contourc.yaml:1: namespace: expected a string, got a list`},
		{"object in a list", "paths: [{a: b}]\n", "check", `.contourc.yaml:1: paths[0]: expected a string, got an object`},
		{"duplicate key", "namespace: a\nnamespace: b\n", "check", `.contourc.yaml:2: duplicate field "namespace"`},
		{"one flag twice", "gateway: a/b\ncontour: {gateway: c/d}\n", "check", `.contourc.yaml:2: duplicate field "contour.gateway": --gateway is set by another key already`},
		{"bad value", "maxInputSize: lots\n", "check", `.contourc.yaml:1: maxInputSize: invalid value "lots"`},
		{"two documents", "namespace: a\n---\nnamespace: b\n", "check", `.contourc.yaml:3: a configuration file holds one YAML document`},
		{"flux sources as a mapping", "flux:\n  sources: {OCIRepository/a/b: k}\n", "check", `.contourc.yaml:2: flux.sources: expected`},
		{"check's key on render", "failOn: warning\n", "render", ""},
		{"serve's key on check", "xdsPort: 9001\n", "check", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo := t.TempDir()
			testfs.Write(t, repo, map[string]string{".contourc.yaml": c.file})
			t.Chdir(repo)
			_, err := configuredFlags(t, c.command, ".")
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("err = %v, want none", err)
			case c.want == "":
			case err == nil:
				t.Fatalf("no error, want %q", c.want)
			case !strings.Contains(err.Error(), c.want):
				t.Errorf("err = %v\nwant %q", err, c.want)
			}
		})
	}
}

// check without PATH reads the file's paths; the file is found from the
// first PATH upwards to the Git top-level and not beyond it; without one,
// a missing PATH stays a usage error.
func TestRepoConfigCLI(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports: [{port: 80}]\n"
	proxy := "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: p}\nspec:\n  virtualhost: {fqdn: a.example.com}\n  routes: [{services: [{name: s, port: 80}]}]\n"
	testfs.Write(t, top, map[string]string{
		".contourc.yaml":           "namespace: [not, read]\n", // above the Git top-level
		"repo/.git/HEAD":           "ref: refs/heads/main\n",
		"repo/.contourc.yaml":      "paths: [apps]\nnamespace: web\nfailOn: warning\n",
		"repo/apps/web.yaml":       svc + "---\n" + proxy,
		"repo/apps/sub/empty.yaml": "",
	})
	t.Chdir(filepath.Join(repo, "apps", "sub"))
	got := runCLI(t, "", "check", "-v", "-o", "json")
	got.wantExit(t, exitFindings) // failOn: the Service has no endpoints
	if !strings.Contains(got.stdout, `"namespace": "web"`) || !strings.Contains(got.stderr, "using config ../../.contourc.yaml\n") {
		t.Errorf("check without PATH did not read the file's paths with its namespace:\nstdout:\n%s\nstderr:\n%s", got.stdout, got.stderr)
	}
	// render has no --fail-on: the key is left out, -v says so.
	got = runCLI(t, "", "render", "-v", "-o", "json")
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stderr, "config keys not used by this command: failOn\n") {
		t.Errorf("render -v does not say failOn is not used:\n%s", got.stderr)
	}
	// --config names another file; its directory is the root.
	testfs.Write(t, top, map[string]string{"other/c.yaml": "paths: [../repo/apps]\nnamespace: other\n"})
	got = runCLI(t, "", "check", "-o", "json", "--config", filepath.Join(top, "other", "c.yaml"))
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, `"namespace": "other"`) {
		t.Errorf("--config was not read:\n%s", got.stdout)
	}
	// A broken file is exit 2, nothing on stdout.
	got = runCLI(t, "", "check", "--config", filepath.Join(top, ".contourc.yaml"))
	got.wantExit(t, exitFailure)
	if got.stdout != "" || !strings.Contains(got.stderr, ".contourc.yaml:1: namespace: expected a string, got a list\ncontourc: 1 error(s)\n") {
		t.Errorf("stdout %q, stderr:\n%s", got.stdout, got.stderr)
	}
	// From elsewhere, the file is found from the first PATH; PATH
	// arguments replace its paths.
	t.Chdir(top)
	testfs.Write(t, repo, map[string]string{"other/p.yaml": strings.ReplaceAll(proxy, "name: p", "name: q")})
	got = runCLI(t, "", "check", "-o", "json", filepath.Join("repo", "other"))
	got.wantExit(t, exitFindings) // its Service s is in repo/apps, not read
	if !strings.Contains(got.stdout, `"name": "q"`) || strings.Contains(got.stdout, `"name": "p"`) || !strings.Contains(got.stdout, `"namespace": "web"`) {
		t.Errorf("check repo/other did not read repo/other alone with the repository's file:\n%s", got.stdout)
	}
	// A repository without a file of its own does not take one from above
	// its Git top-level.
	testfs.Write(t, top, map[string]string{"bare/.git/HEAD": "x\n", "bare/apps/a.yaml": svc})
	runCLI(t, "", "check", "--allow-empty", filepath.Join("bare", "apps")).wantExit(t, exitOK)
	// Outside the repository, no file: a missing PATH is a usage error.
	t.Chdir(t.TempDir())
	got = runCLI(t, "", "check")
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, "check needs at least one PATH") {
		t.Errorf("stderr:\n%s", got.stderr)
	}
}
