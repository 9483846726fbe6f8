package artifact

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
)

// Which files source-controller leaves out of a GitRepository's artifact:
// its default exclusions when nothing else is said, .sourceignore files
// (each from its own directory) and spec.ignore in their place, the VCS
// files always, symbolic links always.
func TestExcluded(t *testing.T) {
	base := map[string]string{
		".git/config":                   "",
		".gitignore":                    "",
		".github/workflows/ci.yaml":     "on: push\n",
		"apps/web/proxy.yaml":           "",
		"apps/web/logo.png":             "",
		"apps/web/.sops.yaml":           "creation_rules: []\n",
		"apps/web/cloudbuild.yaml":      "",
		"apps/web/drafts/old.yaml":      "",
		"apps/web/drafts/keep.yaml":     "",
		"clusters/prod/.goreleaser.yml": "",
		"docs/readme.yaml":              "",
	}
	for _, tc := range []struct {
		name   string
		extra  map[string]string
		ignore string
		want   map[string]string // path -> why ("" kept); a trailing / is a directory
	}{
		{
			name: "defaults",
			want: map[string]string{
				".git/":                         `pattern ".git/" of source-controller's VCS exclusions`,
				".git/config":                   `pattern ".git/" of source-controller's VCS exclusions`,
				".gitignore":                    `pattern ".gitignore" of source-controller's VCS exclusions`,
				".github/workflows/ci.yaml":     `pattern ".github/" of source-controller's default exclusions`,
				"apps/web/proxy.yaml":           "",
				"apps/web/logo.png":             `pattern "*.png" of source-controller's default exclusions`,
				"apps/web/.sops.yaml":           `pattern "**/.sops.yaml" of source-controller's default exclusions`,
				"apps/web/cloudbuild.yaml":      `pattern "cloudbuild.yaml" of source-controller's default exclusions`,
				"clusters/prod/.goreleaser.yml": `pattern "**/.goreleaser.yml" of source-controller's default exclusions`,
				"apps/web/":                     "",
			},
		},
		{
			name:  "a .sourceignore replaces the defaults, from its own directory",
			extra: map[string]string{"apps/web/.sourceignore": "# drafts\n/drafts/\n!/drafts/keep.yaml\n\n"},
			want: map[string]string{
				".git/config":               `pattern ".git/" of source-controller's VCS exclusions`,
				".github/workflows/ci.yaml": "",
				"apps/web/logo.png":         "",
				"apps/web/.sops.yaml":       "",
				"apps/web/drafts/old.yaml":  `pattern "/drafts/" of apps/web/.sourceignore`,
				// go-git's matching, as Flux's: a later pattern takes back
				// a file of a directory that an earlier one left out.
				"apps/web/drafts/keep.yaml": "",
				"apps/web/drafts/":          "",
				"docs/readme.yaml":          "",
			},
		},
		{
			name:   "spec.ignore comes after the .sourceignore files, from the root",
			extra:  map[string]string{"apps/web/.sourceignore": "/drafts/\n"},
			ignore: "/*\n!/apps/\n!/apps/web/drafts/\n",
			want: map[string]string{
				"docs/readme.yaml":         `pattern "/*" of GitRepository flux-system/flux-system's spec.ignore`,
				"docs/":                    `pattern "/*" of GitRepository flux-system/flux-system's spec.ignore`,
				"clusters/prod/":           `pattern "/*" of GitRepository flux-system/flux-system's spec.ignore`,
				"apps/web/proxy.yaml":      "",
				"apps/web/drafts/old.yaml": "",
				"apps/web/logo.png":        "",
			},
		},
		{
			name:  "a .sourceignore deeper down applies only below its directory",
			extra: map[string]string{"docs/.sourceignore": "*.yaml\n"},
			want: map[string]string{
				"docs/readme.yaml":    `pattern "*.yaml" of docs/.sourceignore`,
				"apps/web/proxy.yaml": "",
				// Its presence replaces the defaults everywhere.
				"apps/web/logo.png": "",
			},
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
			root := testfs.Tree(t, files)
			f, err := Load(root, "GitRepository flux-system/flux-system", tc.ignore)
			if err != nil {
				t.Fatal(err)
			}
			for p, want := range tc.want {
				isDir := p[len(p)-1] == '/'
				if got := f.Excluded(filepath.Join(root, filepath.FromSlash(p)), isDir); got != want {
					t.Errorf("%s: excluded %q, want %q", p, got, want)
				}
			}
		})
	}
}

// A symbolic link is not in the artifact, nor what is reached through
// it; a path outside the checkout is none of the filter's business.
func TestExcludedSymlinks(t *testing.T) {
	root := testfs.Tree(t, map[string]string{"apps/web/proxy.yaml": "", "shared/svc.yaml": ""})
	if err := os.Symlink(filepath.Join(root, "shared"), filepath.Join(root, "apps/shared")); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink("proxy.yaml", filepath.Join(root, "apps/web/alias.yaml")); err != nil {
		t.Skip(err)
	}
	f, err := Load(root, "GitRepository flux-system/flux-system", "")
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"apps/web/proxy.yaml":  "",
		"shared/svc.yaml":      "",
		"apps/web/alias.yaml":  "apps/web/alias.yaml is a symbolic link (the artifact holds regular files and directories only)",
		"apps/shared/svc.yaml": "apps/shared is a symbolic link (the artifact holds regular files and directories only)",
	} {
		if got := f.Excluded(filepath.Join(root, p), false); got != want {
			t.Errorf("%s: excluded %q, want %q", p, got, want)
		}
	}
	if got := f.Excluded(filepath.Join(filepath.Dir(root), "elsewhere.png"), false); got != "" {
		t.Errorf("outside the checkout: excluded %q", got)
	}
}
