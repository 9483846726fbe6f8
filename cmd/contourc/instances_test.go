package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

const instancesData = "../../testdata/instances/"

// Two class-based instances with different header policies: each object is
// judged by, and rendered with, its own instance's configuration.
func TestCheckTwoClassInstances(t *testing.T) {
	got := runCLI(t, "", "check", instancesData+"two-classes")
	got.wantExit(t, exitFindings) // apps/legacy is of a class no instance serves
	for _, want := range []string{
		"KIND       NAMESPACE/NAME  INSTANCE                  SOURCE",
		"HTTPProxy  apps/admin      contour-internal/contour  ",
		"HTTPProxy  apps/public     contour-external/contour  ",
		"Ingress    apps/dashboard  contour-internal/contour  ",
		`HTTPProxy  apps/legacy     -                         ../../testdata/instances/two-classes/legacy.yaml:2  NotServed  ingress class "legacy": served by no Contour instance of the input`,
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, got.stdout)
		}
	}
	if !strings.Contains(got.stderr, "contourc: 1 object(s) of a class no Contour instance serves (NotServed; --allow-unserved to accept)") {
		t.Errorf("stderr:\n%s", got.stderr)
	}
	runCLI(t, "", "check", "--allow-unserved", instancesData+"two-classes").wantExit(t, exitOK)

	got = runCLI(t, "", "check", "-o", "json", "--allow-unserved", instancesData+"two-classes")
	got.wantExit(t, exitOK)
	var list []struct{ Kind, Name, Instance, NotServed string }
	if err := json.Unmarshal([]byte(got.stdout), &list); err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, st := range list {
		byName[st.Kind+" "+st.Name] = st.Instance + "|" + st.NotServed
	}
	for name, want := range map[string]string{
		"HTTPProxy admin": "contour-internal/contour|", "HTTPProxy public": "contour-external/contour|",
		"Ingress dashboard": "contour-internal/contour|",
	} {
		if byName[name] != want {
			t.Errorf("%s: instance|notServed %q, want %q", name, byName[name], want)
		}
	}
	if !strings.HasPrefix(byName["HTTPProxy legacy"], `|ingress class "legacy"`) {
		t.Errorf("legacy: %q, want NotServed", byName["HTTPProxy legacy"])
	}
}

// render needs one configuration: --instance picks it, and without it the
// error lists the instances.
func TestRenderInstanceSelection(t *testing.T) {
	got := runCLI(t, "", "render", instancesData+"two-classes")
	got.wantExit(t, exitFailure)
	if got.stdout != "" || !strings.Contains(got.stderr, "the input has 2 Contour instances, contour-external/contour (Deployment), contour-internal/contour (DaemonSet): choose one with --instance NAME") {
		t.Errorf("stdout %q\nstderr:\n%s", got.stdout, got.stderr)
	}
	got = runCLI(t, "", "render", "--instance", "apps/nope", instancesData+"two-classes")
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, `--instance "apps/nope": no such instance; the input has contour-external/contour (Deployment), contour-internal/contour (DaemonSet)`) {
		t.Errorf("stderr:\n%s", got.stderr)
	}
	for instance, header := range map[string]string{"contour-external/contour": "external", "contour-internal/contour": "internal"} {
		got = runCLI(t, "", "render", "-o", "json", "--instance", instance, instancesData+"two-classes")
		got.wantExit(t, exitOK)
		want := `"key": "X-Served-By",` + "\n" + strings.Repeat(" ", 28) + `"value": "` + header + `"`
		if !strings.Contains(got.stdout, want) {
			t.Errorf("--instance %s: no %s header policy in the render", instance, header)
		}
		other := map[string]string{"external": "admin.example.internal", "internal": "www.example.com"}[header]
		if strings.Contains(got.stdout, other) {
			t.Errorf("--instance %s renders %s, the other instance's", instance, other)
		}
	}
}

// --output-dir writes one file per instance, and nothing when any fails.
func TestRenderOutputDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	runCLI(t, "", "render", "--output-dir", dir, instancesData+"two-classes").wantExit(t, exitOK)
	for name, host := range map[string]string{"contour-external/contour.yaml": "www.example.com", "contour-internal/contour.yaml": "admin.example.internal"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), host) {
			t.Errorf("%s lacks %s", name, host)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%s holds %d entries, want the two namespaces' directories (no staging left)", dir, len(entries))
	}

	// One instance whose configuration is refused: nothing is written.
	bad := t.TempDir()
	data, err := os.ReadFile(instancesData + "two-classes/contour.yaml")
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(data), "          x-served-by: internal", "          x-served-by: internal\n    notakey: 1", 1)
	testfs.Write(t, bad, map[string]string{"contour.yaml": broken})
	dir = filepath.Join(t.TempDir(), "out")
	got := runCLI(t, "", "render", "--output-dir", dir, bad, instancesData+"two-classes/apps.yaml")
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, "instance contour-internal/contour: ") {
		t.Errorf("stderr does not name the instance:\n%s", got.stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed render wrote %v", entries)
	}
}

// Three Gateways, two of Contour's class: each of those is an instance of
// its own, and the third, another controller's, is none.
func TestCheckGateways(t *testing.T) {
	got := runCLI(t, "", "check", instancesData+"gateways")
	got.wantExit(t, exitOK)
	for _, want := range []string{
		"Gateway    team-a/gw       team-a/gw  ", "Gateway    team-b/gw       team-b/gw  ",
		"HTTPRoute  team-a/app      team-a/gw  ", "HTTPRoute  team-b/app      team-b/gw  ",
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, got.stdout)
		}
	}
	if strings.Contains(got.stdout, "team-c") {
		t.Errorf("another controller's Gateway was checked:\n%s", got.stdout)
	}
	got = runCLI(t, "", "render", "--instance", "team-c/gw", instancesData+"gateways")
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, "the input has team-a/gw (Gateway), team-b/gw (Gateway)") {
		t.Errorf("stderr:\n%s", got.stderr)
	}
	got = runCLI(t, "", "render", "-o", "json", "--instance", "team-b/gw", instancesData+"gateways")
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, "b.example.com") || strings.Contains(got.stdout, "a.example.com") {
		t.Errorf("team-b/gw's render is not its Gateway's alone")
	}
}

// A run that checks nothing fails, unless --allow-empty.
func TestCheckEmpty(t *testing.T) {
	got := runCLI(t, "", "check", instancesData+"empty")
	got.wantExit(t, exitFindings)
	if !strings.Contains(got.stderr, "contourc: nothing was checked: no Ingress or HTTPProxy of a class a Contour instance serves, and no Gateway of Contour's controller (--allow-empty to accept)") {
		t.Errorf("stderr:\n%s", got.stderr)
	}
	got = runCLI(t, "", "check", "--allow-empty", instancesData+"empty")
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stderr, "warning: nothing was checked: ") {
		t.Errorf("stderr:\n%s", got.stderr)
	}
	// Empty files hold no object at all: kubectl applies them, and so
	// does check, saying there was nothing.
	got = runCLI(t, "---\n---\n", "check", "-")
	got.wantExit(t, exitOK)
	if got.stderr != "no object in the input: nothing to check\n" {
		t.Errorf("stderr:\n%s", got.stderr)
	}
}

// Two instances claiming one class are an error naming both.
func TestInstancesClaimingOneClass(t *testing.T) {
	got := runCLI(t, "", "check", instancesData+"conflict")
	got.wantExit(t, exitFailure)
	want := `two Contour instances serve objects without an ingress class and ingress class "contour": ` +
		"ConfigMap contour-a/contour (../../testdata/instances/conflict/configmaps.yaml:3) and ConfigMap contour-b/contour (../../testdata/instances/conflict/configmaps.yaml:10)"
	if !strings.Contains(got.stderr, want) {
		t.Errorf("stderr:\n%s\nwant %s", got.stderr, want)
	}
}

// explain shows each instance that routes the request, or the one named.
func TestExplainInstances(t *testing.T) {
	got := runCLI(t, "", "explain", "--host", "admin.example.internal", instancesData+"two-classes")
	got.wantExit(t, exitOK)
	if !strings.HasPrefix(got.stdout, "instance contour-internal/contour:\n") || strings.Contains(got.stdout, "instance contour-external/contour") {
		t.Errorf("explain without --instance:\n%s", got.stdout)
	}
	got = runCLI(t, "", "explain", "-o", "json", "--host", "admin.example.internal", instancesData+"two-classes")
	got.wantExit(t, exitOK)
	var list []struct {
		Instance string
		Decision struct{ VirtualHost string }
	}
	if err := json.Unmarshal([]byte(got.stdout), &list); err != nil || len(list) != 1 || list[0].Instance != "contour-internal/contour" {
		t.Errorf("explain -o json: %v\n%s", err, got.stdout)
	}
	// With --instance, one decision as before instances existed.
	got = runCLI(t, "", "explain", "--instance", "contour-external/contour", "--host", "admin.example.internal", instancesData+"two-classes")
	got.wantExit(t, exitOK)
	if strings.Contains(got.stdout, "instance ") || !strings.HasPrefix(got.stdout, "request:") {
		t.Errorf("explain --instance:\n%s", got.stdout)
	}
}

// test sends each case's request to the instance that routes it, with
// that instance's configuration (its header policy).
func TestRouteTestsAcrossInstances(t *testing.T) {
	cases := filepath.Join(t.TempDir(), "routes.test.yaml")
	testfs.Write(t, filepath.Dir(cases), map[string]string{"routes.test.yaml": `apiVersion: contourc/v1alpha1
kind: RouteTest
tests:
- name: public goes through the external instance
  request: {authority: www.example.com, path: /}
  expect:
    route: {kind: HTTPProxy, namespace: apps, name: public}
    requestHeaders:
      set: {x-served-by: external}
- name: admin goes through the internal instance
  request: {authority: admin.example.internal, path: /}
  expect:
    route: {kind: HTTPProxy, namespace: apps, name: admin}
    requestHeaders:
      set: {x-served-by: internal}
`})
	got := runCLI(t, "", "test", cases, "--", instancesData+"two-classes")
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, "--- PASS: public goes through the external instance") || !strings.Contains(got.stdout, "--- PASS: admin goes through the internal instance") {
		t.Errorf("stdout:\n%s", got.stdout)
	}
}

// diff compares every instance of either side, paired by name, each under
// its name: testdata/instances/diff changes the internal instance's header
// policy and adds a third instance serving the class no instance served.
// The expected outputs are rewritten with -update.
func TestDiffInstances(t *testing.T) {
	dir := instancesData + "diff/"
	for format, file := range diffGoldenFiles {
		t.Run(format, func(t *testing.T) {
			got := runCLI(t, "", "diff", "-o", format, dir+"old", dir+"new")
			got.wantExit(t, exitFindings)
			goldenFile(t, dir+file, []byte(got.stdout))
		})
	}
	got := runCLI(t, "", "diff", dir+"old", dir+"new")
	for _, want := range []string{
		"=== instance contour-canary/contour (added) ===",
		"=== instance contour-internal/contour ===",
		`"internal" → "internal-v2"`,
		"=== objects no Contour instance serves ===",
		"HTTPProxy apps/legacy: NotServed → (absent)",
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, got.stdout)
		}
	}
	// The unchanged instance has no section.
	if strings.Contains(got.stdout, "contour-external/contour ===") {
		t.Errorf("the unchanged instance has a section:\n%s", got.stdout)
	}
	// The other way round, the instance is removed.
	got = runCLI(t, "", "diff", dir+"new", dir+"old")
	got.wantExit(t, exitFindings)
	if !strings.Contains(got.stdout, "=== instance contour-canary/contour (removed) ===") ||
		!strings.Contains(got.stderr, "contourc: instance contour-canary/contour (removed): ") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", got.stdout, got.stderr)
	}
	// Both sides the same: nothing, exit 0, in every format.
	for format := range diffGoldenFiles {
		got = runCLI(t, "", "diff", "-o", format, dir+"new", dir+"new")
		got.wantExit(t, exitOK)
		if format == "text" || format == "unified" {
			if got.stdout != "" {
				t.Errorf("-o %s of equal sides:\n%s", format, got.stdout)
			}
		}
	}
	// --instance restricts to one, compared as a single instance is.
	// The external instance is unchanged; the legacy HTTPProxy is no
	// longer NotServed, whichever instance is compared.
	got = runCLI(t, "", "diff", "--instance", "contour-external/contour", dir+"old", dir+"new")
	if got.wantExit(t, exitFindings); got.stderr != "contourc: 1 object recovered\n" {
		t.Errorf("stdout:\n%s\nstderr:\n%s", got.stdout, got.stderr)
	}
	got = runCLI(t, "", "diff", "--instance", "contour-internal/contour", dir+"old", dir+"new")
	got.wantExit(t, exitFindings)
	if !strings.Contains(got.stdout, "internal-v2") || strings.Contains(got.stdout, "===") {
		t.Errorf("diff of the internal instance:\n%s", got.stdout)
	}
	got = runCLI(t, "", "diff", "--instance", "contour-canary/contour", dir+"old", dir+"new")
	got.wantExit(t, exitFindings)
	if !strings.Contains(got.stdout, "+ ingress_http old.example.com") {
		t.Errorf("diff of the added instance:\n%s", got.stdout)
	}
	got = runCLI(t, "", "diff", "--instance", "apps/nope", dir+"old", dir+"new")
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, `--instance "apps/nope": no such instance on either side; the new side has contour-canary/contour (Deployment), `) {
		t.Errorf("stderr:\n%s", got.stderr)
	}
}

// serve serves one instance: --instance, or the error listing them, at
// every reload; the repository config file's instance: is the flag.
func TestServeSelectsOneInstance(t *testing.T) {
	loaded, err := loader.Load([]string{instancesData + "two-classes"}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := (&instanceFlags{every: true}).selectOne(loaded, translate.Options{}, loaded.Workloads); err == nil || !strings.Contains(err.Error(), "choose one with --instance NAME") {
		t.Errorf("selectOne without --instance: %v", err)
	}
	opts, complete, err := (&instanceFlags{name: "contour-internal/contour"}).selectOne(loaded, translate.Options{}, loaded.Workloads)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(opts.IngressClassNames, ",") != "internal" || opts.ConfigMap == nil || opts.ConfigMap.Name != "contour-internal" {
		t.Errorf("options of contour-internal/contour: %+v", opts)
	}
	if list := complete(nil); len(list) != 1 || list[0].Name != "legacy" || list[0].NotServed == "" {
		t.Errorf("NotServed rows: %+v", list)
	}

	repo := t.TempDir()
	testfs.Write(t, repo, map[string]string{".contourc.yaml": "instance: contour-internal/contour\n", ".git/HEAD": "x\n"})
	abs, _ := filepath.Abs(instancesData + "two-classes")
	got := runCLI(t, "", "render", "--config", filepath.Join(repo, ".contourc.yaml"), abs)
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, "admin.example.internal") || strings.Contains(got.stdout, "www.example.com") {
		t.Errorf("instance: in .contourc.yaml did not choose the internal instance")
	}
}

// The Contours installed by the platform are found in the cluster context.
func TestInstancesOfTheClusterContext(t *testing.T) {
	got := runCLI(t, "", "check", "--cluster-context", instancesData+"two-classes/contour.yaml", instancesData+"two-classes/apps.yaml")
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, "HTTPProxy  apps/admin      contour-internal/contour  ") || !strings.Contains(got.stdout, "HTTPProxy  apps/public     contour-external/contour  ") {
		t.Errorf("stdout:\n%s", got.stdout)
	}
}

// serve finds instances in the cluster context as check and render do: a
// Contour the platform installs is served by its name.
func TestServeInstancesOfTheClusterContext(t *testing.T) {
	f := &inputFlags{}
	f.cluster.Contexts = []string{instancesData + "two-classes/contour.yaml"}
	f.instances.name = "contour-internal/contour"
	opts, err := f.options()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := loader.Load([]string{instancesData + "two-classes/apps.yaml"}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	one, _, err := f.selectInstance(loaded, opts)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(one.IngressClassNames, ",") != "internal" || one.ConfigMap == nil || one.ConfigMap.Name != "contour-internal" {
		t.Errorf("options of contour-internal/contour: %+v", one)
	}
}

// diff finds them there too: both sides' instances are the platform's.
func TestDiffInstancesOfTheClusterContext(t *testing.T) {
	dir := t.TempDir()
	apps, err := os.ReadFile(instancesData + "two-classes/apps.yaml")
	if err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, dir, map[string]string{"apps.yaml": strings.Replace(string(apps), "admin.example.internal", "admin2.example.internal", 1)})
	got := runCLI(t, "", "diff", "--cluster-context", instancesData+"two-classes/contour.yaml", instancesData+"two-classes/apps.yaml", dir)
	got.wantExit(t, exitFindings)
	if !strings.Contains(got.stdout, "=== instance contour-internal/contour ===") || !strings.Contains(got.stdout, "admin2.example.internal") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", got.stdout, got.stderr)
	}
}

// GitOps entry points none of which is followed (an OCI source, another
// repository's) are no empty input: checking nothing there fails, saying
// why, as for objects of kinds check does not look at.
func TestCheckNothingFollowed(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"clusters/prod/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  interval: 1h
  path: ./apps
  prune: true
  sourceRef: {kind: OCIRepository, name: apps}
`,
	})
	got := runCLI(t, "", "check", filepath.Join(root, "clusters/prod"))
	got.wantExit(t, exitFindings)
	if !strings.Contains(got.stderr, "; none of the 1 GitOps entry point(s) was followed (-v says why) (--allow-empty to accept)") {
		t.Errorf("stderr:\n%s", got.stderr)
	}
	runCLI(t, "", "check", "--allow-empty", filepath.Join(root, "clusters/prod")).wantExit(t, exitOK)
}

// An instance whose classes come from its ContourConfiguration, not a
// flag, serves the HTTPProxies of those classes: they are judged by it
// and not also reported NotServed.
func TestCheckClassesOfAContourConfiguration(t *testing.T) {
	got := runCLI(t, "", "check", instancesData+"configured-class")
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, "HTTPProxy  default/app") || strings.Contains(got.stdout, "NotServed") {
		t.Errorf("check output:\n%s", got.stdout)
	}
}
