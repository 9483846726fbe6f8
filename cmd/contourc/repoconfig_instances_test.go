package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
)

// twoClassesRepo copies testdata/instances/two-classes into a directory of
// its own, with a .contourc.yaml, and returns it.
func twoClassesRepo(t *testing.T, config string, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{".contourc.yaml": config}
	for _, name := range []string{"apps.yaml", "contour.yaml", "legacy.yaml"} {
		b, err := os.ReadFile(filepath.Join(instancesData, "two-classes", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	for name, content := range extra {
		files[name] = content
	}
	testfs.Write(t, dir, files)
	return dir
}

// An instance the repository does not install (a chart from elsewhere) is
// added by .contourc.yaml: it serves the legacy class with its own
// configuration file, so nothing is NotServed and it renders on its own.
func TestRepoConfigAddsInstance(t *testing.T) {
	dir := twoClassesRepo(t, `instances:
- name: contour-legacy/contour
  ingressClassNames: [legacy]
  configPath: config/legacy.yaml
`, map[string]string{"config/legacy.yaml": "policy:\n  request-headers:\n    set:\n      x-served-by: legacy\n"})
	got := runCLI(t, "", "check", dir)
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, "HTTPProxy  apps/legacy     contour-legacy/contour") {
		t.Errorf("stdout:\n%s", got.stdout)
	}
	got = runCLI(t, "", "render", "-o", "json", "--instance", "contour-legacy/contour", dir)
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, `"value": "legacy"`) || !strings.Contains(got.stdout, "old.example.com") || strings.Contains(got.stdout, "www.example.com") {
		t.Errorf("render of the added instance:\n%s", got.stdout)
	}
	got = runCLI(t, "", "render", dir)
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, "the input has 3 Contour instances, contour-external/contour (Deployment), contour-internal/contour (DaemonSet), contour-legacy/contour (Instance)") {
		t.Errorf("stderr:\n%s", got.stderr)
	}
}

// An added instance of the name of one found replaces it: here the
// internal instance is configured by the external one's ConfigMap.
func TestRepoConfigInstanceReplaces(t *testing.T) {
	dir := twoClassesRepo(t, `instances:
- name: contour-internal/contour
  ingressClassNames: [internal]
  configMap: contour-external/contour
`, nil)
	got := runCLI(t, "", "render", "-o", "json", "--instance", "contour-internal/contour", dir)
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, `"value": "external"`) || strings.Contains(got.stdout, `"value": "internal"`) {
		t.Errorf("the replaced instance is not configured by the ConfigMap:\n%s", got.stdout)
	}
	if !strings.Contains(got.stdout, "admin.example.internal") {
		t.Errorf("the replaced instance does not serve its class:\n%s", got.stdout)
	}
}

// An added instance claiming a class a found one serves is the error
// naming both; with nothing installed, the added one is the only instance
// (no default one beside it).
func TestRepoConfigInstanceClaims(t *testing.T) {
	dir := twoClassesRepo(t, "instances:\n- {name: edge/contour, ingressClassNames: [external]}\n", nil)
	got := runCLI(t, "", "check", dir)
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, `two Contour instances serve ingress class "external": Deployment contour-external/contour (`) ||
		!strings.Contains(got.stderr, ".contourc.yaml:2); give each its own --ingress-class-name") {
		t.Errorf("stderr:\n%s", got.stderr)
	}

	repo := t.TempDir()
	testfs.Write(t, repo, map[string]string{
		".contourc.yaml": "instances:\n- {name: edge/contour}\n",
		"app.yaml":       "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: p, namespace: apps}\nspec:\n  virtualhost: {fqdn: a.example.com}\n",
	})
	got = runCLI(t, "", "check", repo)
	if strings.Contains(got.stderr, "two Contour instances") || strings.Contains(got.stdout, "INSTANCE") ||
		!strings.Contains(got.stdout, "HTTPProxy  apps/p ") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", got.stdout, got.stderr)
	}
}

func TestRepoConfigInstanceErrors(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"not a list", "instances: {name: a/b}\n", `.contourc.yaml:1: instances: expected a list, got an object`},
		{"no name", "instances:\n- {ingressClassNames: [a]}\n", `.contourc.yaml:2: instances[0]: name is required (NAMESPACE/NAME)`},
		{"bad name", "instances:\n- {name: edge}\n", `.contourc.yaml:2: instances[0].name: "edge": want NAMESPACE/NAME`},
		{"unknown key", "instances:\n- {name: a/b, class: x}\n", `.contourc.yaml:2: unknown field "instances[0].class"`},
		{"two configurations", "instances:\n- {name: a/b, configMap: a/c, contourConfiguration: a/d}\n", `.contourc.yaml:2: instances[0]: configMap and contourConfiguration: give one configuration`},
		{"duplicate", "instances:\n- {name: a/b}\n- {name: a/b}\n", `.contourc.yaml:3: instances[1].name: duplicate instance "a/b"`},
		{"bad gateway", "instances:\n- {name: a/b, gateway: gw}\n", `.contourc.yaml:2: instances[0].gateway: "gw": want NAMESPACE/NAME`},
		{"missing config file", "instances:\n- {name: a/b, configPath: nope.yaml}\n", `.contourc.yaml:2: instance a/b: `},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo := t.TempDir()
			testfs.Write(t, repo, map[string]string{".contourc.yaml": c.file, "app.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n"})
			t.Chdir(repo)
			got := runCLI(t, "", "check", ".")
			got.wantExit(t, exitFailure)
			if !strings.Contains(got.stderr, c.want) {
				t.Errorf("stderr:\n%s\nwant %q", got.stderr, c.want)
			}
		})
	}
}

// An added instance serving a Gateway replaces the instance found for it.
func TestRepoConfigInstanceGateway(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(instancesData, "gateways", "gateways.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"gateways.yaml":  string(b),
		".contourc.yaml": "instances:\n- {name: edge/contour, gateway: team-b/gw}\n",
	})
	got := runCLI(t, "", "check", dir)
	got.wantExit(t, exitOK)
	for _, want := range []string{"Gateway    team-a/gw       team-a/gw     ", "Gateway    team-b/gw       edge/contour  ", "HTTPRoute  team-b/app      edge/contour  "} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, got.stdout)
		}
	}
	got = runCLI(t, "", "render", "--instance", "team-b/gw", dir)
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, "the input has edge/contour (Instance), team-a/gw (Gateway)") {
		t.Errorf("stderr:\n%s", got.stderr)
	}
}
