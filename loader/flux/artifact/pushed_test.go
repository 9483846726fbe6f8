package artifact

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
)

// What an OCIRepository's artifact pushed from kubernetes/ holds: not
// what the CLI's default --ignore-paths leave out (which no .sourceignore
// takes back), then what source-controller's archive leaves out (its
// defaults, or the pushed .sourceignore files in their place); nothing of
// the checkout outside the directory, no links.
func TestPushed(t *testing.T) {
	base := map[string]string{
		"README.md":                          "",
		"kubernetes/apps/web/proxy.yaml":     "",
		"kubernetes/apps/web/logo.png":       "",
		"kubernetes/apps/web/.sops.yaml":     "",
		"kubernetes/.github/workflows/a.yml": "",
		"kubernetes/.gitignore":              "",
		"kubernetes/drafts/old.yaml":         "",
	}
	const src = "OCIRepository flux-system/cluster-manifests"
	for _, tc := range []struct {
		name   string
		extra  map[string]string
		ignore string
		stored bool
		want   map[string]string // path from kubernetes/ -> why ("" kept)
		files  []string
	}{
		{
			name:   "defaults",
			stored: true,
			want: map[string]string{
				"apps/web/proxy.yaml":     "",
				"apps/web/logo.png":       `pattern "*.png" of flux push artifact's default --ignore-paths`,
				".gitignore":              `pattern ".gitignore" of flux push artifact's default --ignore-paths`,
				"apps/web/.sops.yaml":     `pattern "**/.sops.yaml" of source-controller's default exclusions`,
				".github/workflows/a.yml": `pattern ".github/" of source-controller's default exclusions`,
			},
			files: []string{"apps/web/proxy.yaml", "drafts/old.yaml"},
		},
		{
			name:   "a pushed .sourceignore replaces source-controller's defaults, not the CLI's",
			extra:  map[string]string{"kubernetes/.sourceignore": "/drafts/\n!*.png\n"},
			stored: true,
			want: map[string]string{
				"apps/web/logo.png":   `pattern "*.png" of flux push artifact's default --ignore-paths`,
				"apps/web/.sops.yaml": "",
				"drafts/old.yaml":     `pattern "/drafts/" of .sourceignore`,
			},
			files: []string{".github/workflows/a.yml", ".sourceignore", "apps/web/.sops.yaml", "apps/web/proxy.yaml"},
		},
		{
			name:   "spec.ignore, from the artifact's root",
			ignore: "/apps/web/.sops.yaml\n",
			stored: true,
			want:   map[string]string{"apps/web/.sops.yaml": `pattern "/apps/web/.sops.yaml" of ` + src + `'s spec.ignore`},
			files:  []string{".github/workflows/a.yml", "apps/web/proxy.yaml", "drafts/old.yaml"},
		},
		{
			name:  "layerSelector operation copy: the layer as pushed",
			extra: map[string]string{"kubernetes/.sourceignore": "/drafts/\n"},
			want:  map[string]string{"drafts/old.yaml": "", "apps/web/logo.png": `pattern "*.png" of flux push artifact's default --ignore-paths`},
			files: []string{".github/workflows/a.yml", ".sourceignore", "apps/web/.sops.yaml", "apps/web/proxy.yaml", "drafts/old.yaml"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range base {
				files[k] = v
			}
			for k, v := range tc.extra {
				files[k] = v
			}
			root := filepath.Join(testfs.Tree(t, files), "kubernetes")
			f, err := LoadPushed(root, src, tc.ignore, tc.stored)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Tree(f)
			if err != nil {
				t.Fatal(err)
			}
			for p, want := range tc.want {
				if got := c.LeftOut(p); got != want {
					t.Errorf("%s: left out %q, want %q", p, got, want)
				}
			}
			if got := c.Files(); !slices.Equal(got, tc.files) {
				t.Errorf("files %q, want %q", got, tc.files)
			}
			if real, ok := c.File("apps/web/proxy.yaml"); !ok || real != filepath.Join(root, "apps/web/proxy.yaml") {
				t.Errorf("apps/web/proxy.yaml is %q, %v", real, ok)
			}
			if c.Dir("apps") != filepath.Join(root, "apps") {
				t.Errorf("apps is the directory %q", c.Dir("apps"))
			}
		})
	}
}

// A link is not pushed, nor a .sourceignore that is one.
func TestPushedSymlinks(t *testing.T) {
	top := testfs.Tree(t, map[string]string{"kubernetes/web/proxy.yaml": "", "shared/svc.yaml": "", "shared/ignore": "*.yaml\n"})
	root := filepath.Join(top, "kubernetes")
	if err := os.Symlink(filepath.Join(top, "shared"), filepath.Join(root, "shared")); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink(filepath.Join(top, "shared/ignore"), filepath.Join(root, ".sourceignore")); err != nil {
		t.Skip(err)
	}
	f, err := LoadPushed(root, "OCIRepository a/b", "", true)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Tree(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Files(); !slices.Equal(got, []string{"web/proxy.yaml"}) {
		t.Errorf("files %q", got)
	}
	if got, want := c.LeftOut("shared/svc.yaml"), "shared is a symbolic link (the artifact holds regular files and directories only)"; got != want {
		t.Errorf("left out %q, want %q", got, want)
	}
}
