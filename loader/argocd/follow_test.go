package argocd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
	"github.com/contourc/contourc/loader"
)

const argoURL = "https://github.com/example/platform.git"

func application(name, spec string) string {
	return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: " + name + "\n  namespace: argocd\nspec:\n" + spec
}

// loadArgo loads root with Argo CD Applications followed, root being
// this repository.
func loadArgo(t *testing.T, root string) *loader.Result {
	t.Helper()
	res, err := loader.Load([]string{root}, loader.Options{Follow: &loader.Follow{Followers: []loader.Follower{New(Options{Root: root, Repos: []string{argoURL}})}}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func argoObjects(res *loader.Result, root string) []string {
	var out []string
	for _, o := range res.Objects {
		src := strings.ReplaceAll(o.Source.String(), root+"/", "")
		out = append(out, o.Kind+" "+o.Obj.GetNamespace()+"/"+o.Obj.GetName()+" "+src)
	}
	return out
}

func entryLines(res *loader.Result) []string {
	var out []string
	for _, e := range res.Entries {
		out = append(out, e.String())
	}
	return out
}

func wantLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A multi-source Application builds each of its sources in this
// repository, two kustomize sources among them; a source of another
// repository is a warning of the followed Application. The destination's
// namespace goes to objects without one; one that names its own keeps it.
func TestArgoCDMultiSource(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"apps/app.yaml": application("both", `  destination: {namespace: web}
  sources:
  - {repoURL: `+argoURL+`, path: a, kustomize: {namePrefix: a-}}
  - {repoURL: `+argoURL+`, path: b}
  - {repoURL: https://github.com/example/other.git, path: c}
  - {repoURL: `+argoURL+`, path: plain}
`),
		"a/kustomization.yaml": "resources: [s.yaml]\n",
		"a/s.yaml":             svc("s"),
		"b/kustomization.yaml": "resources: [s.yaml]\n",
		"b/s.yaml":             svc("b"),
		"plain/s.yaml":         svc("p") + "---\n" + strings.Replace(svc("own"), "name: own", "name: own\n  namespace: elsewhere", 1),
	})
	res := loadArgo(t, root)
	wantLines(t, "objects", argoObjects(res, root), []string{
		"Service elsewhere/own apps/app.yaml:1 Application argocd/both → plain/s.yaml:9",
		"Service web/a-s apps/app.yaml:1 Application argocd/both → a/s.yaml:1",
		"Service web/b apps/app.yaml:1 Application argocd/both → b/s.yaml:1",
		"Service web/p apps/app.yaml:1 Application argocd/both → plain/s.yaml:1",
	})
	wantLines(t, "entries", entryLines(res), []string{"followed: Application argocd/both -> a/ + b/ + plain/ (4 objects)"})
	var warnings []string
	for _, w := range res.Warnings {
		warnings = append(warnings, strings.ReplaceAll(w.String(), root+"/", ""))
	}
	wantLines(t, "warnings", warnings, []string{
		"apps/app.yaml:1: Application argocd/both: not followed: source 3: repoURL https://github.com/example/other.git is not this repository",
	})
}

// Two Applications of one source and options build it once; the root
// that holds itself is followed once; an ApplicationSet (whose template
// holds {{...}}) is listed, not skipped as a Go template.
func TestArgoCDOnceEach(t *testing.T) {
	var root string
	same := `  destination: {namespace: web}
  source: {repoURL: ` + argoURL + `, path: web}
`
	root = testfs.Tree(t, map[string]string{
		"apps/root.yaml": application("root", "  source: {repoURL: "+argoURL+", path: apps}\n"),
		"apps/a.yaml":    application("a", same),
		"apps/b.yaml":    application("b", same),
		"apps/set.yaml": `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: previews, namespace: argocd}
spec:
  template:
    metadata: {name: 'preview-{{number}}'}
`,
		"web/s.yaml": svc("web"),
	})
	res := loadArgo(t, root)
	wantLines(t, "entries", entryLines(res), []string{
		"followed: Application argocd/a -> web/ (1 object)",
		"followed: Application argocd/b -> web/ (1 object)",
		"followed: Application argocd/root -> apps/ (4 objects)",
		"not followed: ApplicationSet argocd/previews: its Applications are made by the ApplicationSet controller's generators, which contourc does not run",
	})
	wantLines(t, "objects", argoObjects(res, root), []string{"Service web/web apps/a.yaml:1 Application argocd/a → web/s.yaml:1"})
	if len(res.SkippedFiles) != 0 {
		t.Errorf("skipped files: %v", res.SkippedFiles)
	}
}

// An Application whose source fails is not followed, with Argo CD's
// reason, and the rest of the input is still checked; its directory is
// then read as the walk finds it.
func TestArgoCDSourceFails(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"apps/web.yaml":          application("web", "  source: {repoURL: "+argoURL+", path: web, kustomize: {commonLabels: {app: other}}}\n"),
		"apps/gone.yaml":         application("gone", "  source: {repoURL: "+argoURL+", path: gone}\n"),
		"web/kustomization.yaml": "commonLabels: {app: web}\nresources: [s.yaml]\n",
		"web/s.yaml":             svc("web"),
	})
	res := loadArgo(t, root)
	wantLines(t, "entries", entryLines(res), []string{
		"not followed: Application argocd/gone: gone: app path does not exist",
		"not followed: Application argocd/web: label app already in kustomization file. Use --force to override.",
	})
	wantLines(t, "objects", argoObjects(res, root), []string{"Service default/web web/s.yaml:1 (via web)"})
}

// A directory source's jsonnet is not evaluated: a warning says so.
func TestArgoCDJsonnet(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"apps/web.yaml":     application("web", "  destination: {namespace: web}\n  source: {repoURL: "+argoURL+", path: web}\n"),
		"web/s.yaml":        svc("web"),
		"web/proxy.jsonnet": "{}",
	})
	res := loadArgo(t, root)
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].String(), filepath.Join("web", "proxy.jsonnet")+": left out of the directory source: jsonnet is not evaluated") || !res.Warnings[0].Skipped {
		t.Errorf("warnings: %v", res.Warnings)
	}
}

// A directory source's files that are not manifests (config, a Go
// template) are skipped with the walk's notice, as Argo CD ignores YAML
// that is no object; the objects beside them are read.
func TestArgoCDDirectoryNotManifests(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"apps/web.yaml":     application("web", "  destination: {namespace: web}\n  source: {repoURL: "+argoURL+", path: web}\n"),
		"web/s.yaml":        svc("web"),
		"web/settings.yaml": "log: debug\n",
		"web/template.yaml": strings.Replace(svc("t"), "name: t", "name: {{ .Name }}", 1),
	})
	res := loadArgo(t, root)
	wantLines(t, "objects", argoObjects(res, root), []string{"Service web/web apps/web.yaml:1 Application argocd/web → web/s.yaml:1"})
	var skipped []string
	for _, f := range res.SkippedFiles {
		skipped = append(skipped, strings.ReplaceAll(f.Path, root+"/", "")+": "+string(f.Reason))
	}
	wantLines(t, "skipped", skipped, []string{"web/settings.yaml: not Kubernetes objects", "web/template.yaml: Go template"})
}

// svc is a Service manifest named name, of no namespace.
func svc(name string) string {
	return "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + name + "\nspec:\n  ports:\n  - port: 80\n"
}
