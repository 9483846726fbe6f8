package argocd

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
)

// The build environment's revision is the commit Argo CD resolves
// targetRevision to, as the checkout tells it: targetRevision itself when
// it is a commit id, else the checkout's HEAD; it was always empty before.
func TestBuildEnvRevision(t *testing.T) {
	const head = "0123456789abcdef0123456789abcdef01234567"
	const pinned = "fedcba9876543210fedcba9876543210fedcba98"
	checkout := testfs.Tree(t, map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		".git/refs/heads/main": head + "\n",
		"apps/web/proxy.yaml":  "",
	})
	notACheckout := testfs.Tree(t, map[string]string{"apps/web/proxy.yaml": ""})
	for _, tc := range []struct {
		name, root, target string
		want               [3]string // revision, short, short 8
	}{
		{"branch: the checkout's HEAD", checkout, "main", [3]string{head, "0123456", "01234567"}},
		{"HEAD, from a directory of the checkout", filepath.Join(checkout, "apps"), "HEAD", [3]string{head, "0123456", "01234567"}},
		{"a commit id: itself", checkout, pinned, [3]string{pinned, "fedcba9", "fedcba98"}},
		{"no checkout: unknown", notACheckout, "main", [3]string{"", "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := &Application{}
			app.Metadata.Name = "web"
			app.Spec.Project = "default"
			app.Spec.Destination.Namespace = "web"
			app.Spec.Source = &Source{RepoURL: "https://example.com/repo.git", Path: "apps/web", TargetRevision: tc.target}
			env := BuildEnv(app, 0, tc.root)
			got := [3]string{env["ARGOCD_APP_REVISION"], env["ARGOCD_APP_REVISION_SHORT"], env["ARGOCD_APP_REVISION_SHORT_8"]}
			if got != tc.want {
				t.Errorf("revision %q, want %q", got, tc.want)
			}
			if env["ARGOCD_APP_SOURCE_TARGET_REVISION"] != tc.target || env["ARGOCD_APP_NAME"] != "web" || env["ARGOCD_APP_PROJECT_NAME"] != "default" {
				t.Errorf("env %v", env)
			}
		})
	}
}

// Helm parameters see the revision, as Argo CD substitutes it.
func TestHelmParameterRevision(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		".git/HEAD":             "0123456789abcdef0123456789abcdef01234567\n",
		"charts/web/Chart.yaml": "name: web\n",
	})
	app := helmApp(&Helm{Parameters: []HelmParameter{{Name: "image.tag", Value: "sha-$ARGOCD_APP_REVISION_SHORT"}}})
	got, _, err := HelmOptions(app, 0, filepath.Join(root, "charts/web"), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"image.tag=sha-0123456"}; !reflect.DeepEqual(got.Set, want) {
		t.Errorf("Set = %q, want %q", got.Set, want)
	}
}
