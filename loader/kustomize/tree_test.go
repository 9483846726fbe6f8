package kustomize

import (
	"os/exec"
	"slices"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/contourc/contourc/internal/testfs"
)

func TestRunLeavesOutRemoteEntries(t *testing.T) {
	files := layout{
		"/app/kustomization.yaml": "resources:\n- proxy.yaml\n- github.com/example/platform//web?ref=v1\n- https://example.com/svc.yaml\n" +
			"components:\n- git@github.com:example/components.git\n" +
			"helmCharts:\n- name: ingress-nginx\n  repo: https://kubernetes.github.io/ingress-nginx\n",
		"/app/proxy.yaml": baseProxy,
	}
	// What the build must equal: the same kustomization without them.
	want := krustyOutput(t, layout{"/app/kustomization.yaml": "resources:\n- proxy.yaml\n", "/app/proxy.yaml": baseProxy}.fs(t), "/app")
	b, err := Run(files.fs(t), "/app", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := joined(b); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	var entries []string
	for _, l := range b.LeftOut {
		if l.File != "/app/kustomization.yaml" {
			t.Errorf("left out of %s, want /app/kustomization.yaml", l.File)
		}
		entries = append(entries, l.Field+" "+l.Entry)
	}
	wantEntries := []string{"resources github.com/example/platform//web?ref=v1", "resources https://example.com/svc.yaml", "components git@github.com:example/components.git", "helmCharts ingress-nginx"}
	if !slices.Equal(entries, wantEntries) {
		t.Errorf("left out %q, want %q", entries, wantEntries)
	}
}

func TestRunNotBuiltWithoutLeftOut(t *testing.T) {
	files := layout{
		"/app/kustomization.yaml": "resources:\n- github.com/example/platform//web?ref=v1\npatches:\n- path: fqdn.yaml\n",
		"/app/fqdn.yaml":          "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: web\nspec:\n  virtualhost:\n    fqdn: x.example.com\n",
	}
	_, err := Run(files.fs(t), "/app", Options{})
	if !IsNotBuilt(err) {
		t.Fatalf("got %v, want a NotBuilt error", err)
	}
	// A broken kustomization that left nothing out is not skipped.
	_, err = Run(layout{"/app/kustomization.yaml": "resources:\n- missing.yaml\n"}.fs(t), "/app", Options{})
	if err == nil || IsNotBuilt(err) {
		t.Fatalf("got %v, want a build error", err)
	}
}

func TestLooksRemote(t *testing.T) {
	for entry, want := range map[string]bool{
		"github.com/org/repo//base?ref=v1":      true,
		"https://example.com/x.yaml":            true,
		"git@github.com:org/repo.git":           true,
		"ssh://git@example.com/repo.git":        true,
		"gitlab.com/org/repo/deploy":            true,
		"../base":                               false,
		"./proxy.yaml":                          false,
		".hidden/x.yaml":                        false,
		"base":                                  false,
		"proxy.yaml":                            false,
		"dir.with.dots":                         false,
		"https://example.com/x.yaml?version=v1": true,
	} {
		if got := looksRemote(entry); got != want {
			t.Errorf("looksRemote(%q) = %v, want %v", entry, got, want)
		}
	}
}

func TestTreeBuildsWhatNothingElseUses(t *testing.T) {
	files := withBase(layout{
		"/app/overlays/prod/kustomization.yaml":  "resources:\n- ../../base\nnamespace: prod\ncomponents:\n- ../../components/tls\n",
		"/app/overlays/stage/kustomization.yaml": "resources:\n- ../../base\nnamespace: stage\n",
		"/app/components/tls/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nnamePrefix: tls-\n",
		// Used only as a transformer configuration, which the first
		// reading of references does not see: the build's reads do.
		"/app/labels/kustomization.yaml": "resources:\n- labels.yaml\n",
		"/app/labels/labels.yaml":        "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: env\nlabels:\n  env: dev\nfieldSpecs:\n- path: metadata/labels\n  create: true\n",
		"/app/dev/kustomization.yaml":    "resources:\n- ../base\ntransformers:\n- ../labels\n",
		// A Component nothing in the tree uses is not built on its own.
		"/app/components/unused/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- path: p.yaml\n",
		"/app/components/unused/p.yaml":             "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n",
	})
	fSys := files.fs(t)
	dirs := []string{"/app/base", "/app/components/tls", "/app/components/unused", "/app/dev", "/app/labels", "/app/overlays/prod", "/app/overlays/stage"}
	results := Tree(fSys, dirs, Options{})
	var built []string
	for _, r := range results {
		if r.Err != nil {
			t.Errorf("%s: %v", r.Dir, r.Err)
			continue
		}
		built = append(built, r.Dir)
		if want := krustyOutput(t, fSys, r.Dir); joined(r.Build) != want {
			t.Errorf("%s: got:\n%s\nwant:\n%s", r.Dir, joined(r.Build), want)
		}
	}
	if want := []string{"/app/dev", "/app/overlays/prod", "/app/overlays/stage"}; !slices.Equal(built, want) {
		t.Errorf("built %q, want %q", built, want)
	}
	if _, ok := results[1].Build.Read["/app/base/proxy.yaml"]; !ok || results[1].Dir != "/app/overlays/prod" {
		t.Errorf("prod's build did not record reading the base: %v", results[1].Build.Read)
	}
}

func TestRunRemoteFetchesAndNamesTheRepository(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git to make a repository with")
	}
	repo := t.TempDir()
	testfs.Write(t, repo, map[string]string{"web/kustomization.yaml": "resources:\n- proxy.yaml\n", "web/proxy.yaml": baseProxy})
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "web"}} {
		if out, err := exec.Command(git, append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	app := t.TempDir()
	entry := "file://" + repo + "//web?ref=main"
	testfs.Write(t, app, map[string]string{"kustomization.yaml": "resources:\n- " + entry + "\n"})
	fSys := filesys.MakeFsOnDisk()
	// Without Remote the entry is left out, and nothing is built.
	b, err := Run(fSys, app, Options{})
	if err != nil || len(b.Resources) != 0 || len(b.LeftOut) != 1 || b.LeftOut[0].Entry != entry {
		t.Fatalf("without Remote: %v, %d objects, left out %+v", err, len(b.Resources), b.LeftOut)
	}
	b, err = Run(fSys, app, Options{Remote: true})
	if err != nil {
		t.Fatal(err)
	}
	want := Origin{Repo: "file://" + repo, Ref: "main", Path: "web/proxy.yaml"}
	if len(b.Resources) != 1 || b.Resources[0].Origin != want {
		t.Fatalf("with Remote: %+v, want one object from %+v", b.Resources, want)
	}
}
