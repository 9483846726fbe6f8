package argocd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
)

// TestMatchGlob pins the include/exclude semantics of Argo CD's util/glob
// (gobwas/glob without separators) on the paths a directory source
// matches: relative to the source's directory.
func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, rel string
		want         bool
	}{
		{"*.yaml", "deployment.yaml", true},
		{"*.yaml", "config.json", false},
		// `*` crosses directories: no separator is given to the glob.
		{"*.yaml", "env-use2/configmap.yaml", true},
		{"*/configmap.yaml", "env-use2/configmap.yaml", true},
		{"*/configmap.yaml", "a/b/configmap.yaml", true},
		{"**.yaml", "a/b/c.yaml", true},
		{"{*.yml,*.yaml}", "x.yml", true},
		{"{*.yml,*.yaml}", "x.json", false},
		{"{config.json,env-usw2/*}", "config.json", true},
		{"{config.json,env-usw2/*}", "env-usw2/configmap.yaml", true},
		{"{config.json,env-usw2/*}", "env-use2/configmap.yaml", false},
		{"some-directory/*", "some-directory/a/b.yaml", true},
		{"some-directory/*", "other/some-directory/b.yaml", false},
		// The whole path must match, from the source's directory.
		{"config.yaml", "sub/config.yaml", false},
		{"proxy-?.yaml", "proxy-1.yaml", true},
		{"proxy-?.yaml", "proxy-10.yaml", false},
		{"proxy-[ab].yaml", "proxy-b.yaml", true},
		{"proxy-[!ab].yaml", "proxy-b.yaml", false},
		// A pattern that does not compile matches nothing.
		{"[", "[", false},
		// gobwas/glob reads an unclosed brace as alternatives to the end.
		{"{a,b", "a", true},
	} {
		if got := MatchGlob(tc.pattern, tc.rel); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tc.pattern, tc.rel, got, tc.want)
		}
	}
}

func TestDirectoryFiles(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"app/config.json":             "{}",
		"app/deployment.yaml":         "kind: x",
		"app/README.md":               "text",
		"app/extra.yml":               "kind: x",
		"app/lib.jsonnet":             "{}",
		"app/kustomization.yaml":      "resources: []",
		"app/skipped.yaml":            "# +argocd:skip-file-rendering\nkind: x",
		"app/env-use2/configmap.yaml": "kind: x",
		"app/env-usw2/configmap.yaml": "kind: x",
		"app/sealed.yaml.sealed":      "kind: x",
	})
	app := filepath.Join(root, "app")
	rel := func(files []string) []string {
		var out []string
		for _, f := range files {
			r, _ := filepath.Rel(app, f)
			out = append(out, r)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		dir     Directory
		want    []string
		skipped []string
	}{
		{
			name:    "top level only",
			want:    []string{"config.json", "deployment.yaml", "extra.yml"},
			skipped: []string{"kustomization.yaml", "lib.jsonnet", "skipped.yaml"},
		},
		{
			name:    "recurse",
			dir:     Directory{Recurse: true},
			want:    []string{"config.json", "deployment.yaml", "env-use2/configmap.yaml", "env-usw2/configmap.yaml", "extra.yml"},
			skipped: []string{"kustomization.yaml", "lib.jsonnet", "skipped.yaml"},
		},
		{
			// The example of Argo CD's documentation.
			name:    "include and exclude",
			dir:     Directory{Recurse: true, Include: "*.yaml", Exclude: "{config.json,env-usw2/*}"},
			want:    []string{"deployment.yaml", "env-use2/configmap.yaml"},
			skipped: []string{"config.json", "env-usw2/configmap.yaml", "extra.yml", "kustomization.yaml", "lib.jsonnet", "skipped.yaml"},
		},
		{
			name:    "extension filter off",
			dir:     Directory{DisableExtensionFilter: true, Include: "{*.yaml.sealed,*.yaml}"},
			want:    []string{"deployment.yaml", "sealed.yaml.sealed"},
			skipped: []string{"README.md", "config.json", "extra.yml", "kustomization.yaml", "lib.jsonnet", "skipped.yaml"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, skipped, err := DirectoryFiles(app, root, tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := rel(files); !slices.Equal(got, tc.want) {
				t.Errorf("files = %q, want %q", got, tc.want)
			}
			var sk []string
			for _, s := range skipped {
				sk = append(sk, s.File)
			}
			if got := rel(sk); !slices.Equal(got, tc.skipped) {
				t.Errorf("skipped = %q, want %q", got, tc.skipped)
			}
		})
	}
}

func TestDirectoryFilesSymlinkOutOfRepository(t *testing.T) {
	outside := testfs.Tree(t, map[string]string{"secret.yaml": "kind: x"})
	root := testfs.Tree(t, map[string]string{"app/ok.yaml": "kind: x"})
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(root, "app", "link.yaml")); err != nil {
		t.Skip(err)
	}
	_, _, err := DirectoryFiles(filepath.Join(root, "app"), root, Directory{})
	if err == nil || !contains(err.Error(), `illegal filepath in symlink at "link.yaml"`) {
		t.Fatalf("err = %v, want Argo CD's refusal of a link out of the repository", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
