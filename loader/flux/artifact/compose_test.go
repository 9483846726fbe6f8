package artifact

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
)

// The copy operations of an ArtifactGenerator, as source-watcher's
// builder applies them (its builder_test.go cases, over a checkout).
func TestCompose(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"config.yaml":                      "",
		"secret.yaml":                      "",
		"notes.md":                         "",
		"configs/a.yaml":                   "",
		"configs/b.json":                   "",
		"configs/sub/c.yaml":               "",
		"configs/README.md":                "",
		"apps/base/web/kustomization.yaml": "",
		"apps/base/web/proxy.yaml":         "",
		"apps/base/web/.sops.yaml":         "",
		"apps/base/web/logo.png":           "",
		"apps/staging/kustomization.yaml":  "",
		"apps/staging/testdata/x.yaml":     "",
		"infrastructure/controllers/descheduler/release.yaml": "",
		"infrastructure/controllers/sealed/release.yaml":      "",
		"infrastructure/configs/issuer.yaml":                  "",
		"other/config.yaml":                                   "",
		"other/configs/a.yaml":                                "",
	})
	src := map[string]Source{"repo": {Root: root}, "other": {Root: filepath.Join(root, "other")}}
	for _, tc := range []struct {
		name string
		ops  []Copy
		want []string // files of the artifact, each "path<-source"
		err  string
	}{
		{
			name: "a file into a directory",
			ops:  []Copy{{From: "@repo/config.yaml", To: "@artifact/dest/"}},
			want: []string{"dest/config.yaml<-config.yaml"},
		},
		{
			name: "a file to a file",
			ops:  []Copy{{From: "@repo/config.yaml", To: "@artifact/apps/app.yaml"}},
			want: []string{"apps/app.yaml<-config.yaml"},
		},
		{
			name: "a file to a name that is a directory already goes into it",
			ops:  []Copy{{From: "@repo/configs/", To: "@artifact/"}, {From: "@repo/config.yaml", To: "@artifact/configs"}},
			want: []string{"configs/README.md<-configs/README.md", "configs/a.yaml<-configs/a.yaml", "configs/b.json<-configs/b.json", "configs/config.yaml<-config.yaml", "configs/sub/c.yaml<-configs/sub/c.yaml"},
		},
		{
			name: "a directory, with or without a slash, as a subdirectory",
			ops:  []Copy{{From: "@repo/configs/sub", To: "@artifact/dest"}, {From: "@repo/configs/sub/", To: "@artifact/more/"}},
			want: []string{"dest/sub/c.yaml<-configs/sub/c.yaml", "more/sub/c.yaml<-configs/sub/c.yaml"},
		},
		{
			name: "the root of a source",
			ops:  []Copy{{From: "@other/", To: "@artifact/"}},
			want: []string{"config.yaml<-other/config.yaml", "configs/a.yaml<-other/configs/a.yaml"},
		},
		{
			name: "dir/** copies dir's contents, recursively",
			ops:  []Copy{{From: "@repo/configs/**", To: "@artifact/apps/"}},
			want: []string{"apps/README.md<-configs/README.md", "apps/a.yaml<-configs/a.yaml", "apps/b.json<-configs/b.json", "apps/sub/c.yaml<-configs/sub/c.yaml"},
		},
		{
			name: "the example's apps: base and staging side by side; the archive's defaults leave .sops.yaml and *.png out",
			ops:  []Copy{{From: "@repo/apps/base/**", To: "@artifact/base/"}, {From: "@repo/apps/staging/**", To: "@artifact/staging/"}},
			want: []string{"base/web/kustomization.yaml<-apps/base/web/kustomization.yaml", "base/web/proxy.yaml<-apps/base/web/proxy.yaml", "staging/kustomization.yaml<-apps/staging/kustomization.yaml", "staging/testdata/x.yaml<-apps/staging/testdata/x.yaml"},
		},
		{
			name: "a glob at the top keeps the matched names",
			ops:  []Copy{{From: "@repo/*.yaml", To: "@artifact/manifests/"}},
			want: []string{"manifests/config.yaml<-config.yaml", "manifests/secret.yaml<-secret.yaml"},
		},
		{
			name: "any other glob keeps the whole matched path",
			ops:  []Copy{{From: "@repo/configs/*.yaml", To: "@artifact/apps/"}},
			want: []string{"apps/configs/a.yaml<-configs/a.yaml"},
		},
		{
			name: "** does not cross directories outside dir/**: fs.Glob's",
			ops:  []Copy{{From: "@repo/apps/**/kustomization.yaml", To: "@artifact/"}},
			want: []string{"apps/staging/kustomization.yaml<-apps/staging/kustomization.yaml"},
		},
		{
			name: "later copies overwrite earlier ones",
			ops:  []Copy{{From: "@repo/configs/**", To: "@artifact/"}, {From: "@other/configs/**", To: "@artifact/"}},
			want: []string{"README.md<-configs/README.md", "a.yaml<-other/configs/a.yaml", "b.json<-configs/b.json", "sub/c.yaml<-configs/sub/c.yaml"},
		},
		{
			name: "exclude: a name at any depth, a directory anywhere",
			ops:  []Copy{{From: "@repo/**", To: "@artifact/", Exclude: []string{"*.md", "**/testdata/**", "**/base/**", "infrastructure/**", "other", "*.yaml"}}},
			want: []string{"configs/b.json<-configs/b.json"},
		},
		{
			name: "exclude from the source's root or from the pattern's prefix, not from a match",
			ops: []Copy{
				{From: "@repo/infrastructure/**", To: "@artifact/a/", Exclude: []string{"infrastructure/controllers/descheduler/**"}},
				{From: "@repo/infrastructure/**", To: "@artifact/b/", Exclude: []string{"controllers/descheduler/**"}},
				{From: "@repo/infrastructure/**", To: "@artifact/c/", Exclude: []string{"descheduler/**"}},
				{From: "@repo/infrastructure", To: "@artifact/d/", Exclude: []string{"controllers/descheduler/**"}},
			},
			want: []string{
				"a/configs/issuer.yaml<-infrastructure/configs/issuer.yaml", "a/controllers/sealed/release.yaml<-infrastructure/controllers/sealed/release.yaml",
				"b/configs/issuer.yaml<-infrastructure/configs/issuer.yaml", "b/controllers/sealed/release.yaml<-infrastructure/controllers/sealed/release.yaml",
				"c/configs/issuer.yaml<-infrastructure/configs/issuer.yaml", "c/controllers/descheduler/release.yaml<-infrastructure/controllers/descheduler/release.yaml", "c/controllers/sealed/release.yaml<-infrastructure/controllers/sealed/release.yaml",
				"d/infrastructure/configs/issuer.yaml<-infrastructure/configs/issuer.yaml", "d/infrastructure/controllers/sealed/release.yaml<-infrastructure/controllers/sealed/release.yaml",
			},
		},
		{
			name: "an excluded single file is no error",
			ops:  []Copy{{From: "@repo/secret.yaml", To: "@artifact/config.yaml", Exclude: []string{"secret.yaml"}}, {From: "@repo/config.yaml", To: "@artifact/"}},
			want: []string{"config.yaml<-config.yaml"},
		},
		{
			name: "Merge onto no file is a copy",
			ops:  []Copy{{From: "@repo/config.yaml", To: "@artifact/values.yaml", Strategy: Merge}},
			want: []string{"values.yaml<-config.yaml"},
		},
		{
			name: "Merge onto a file is not modelled",
			ops:  []Copy{{From: "@repo/config.yaml", To: "@artifact/"}, {From: "@other/config.yaml", To: "@artifact/config.yaml", Strategy: Merge}},
			err:  "copy from '@other/config.yaml' merges config.yaml into the artifact's config.yaml (strategy Merge), which contourc does not model",
		},
		{
			name: "Extract is not modelled",
			ops:  []Copy{{From: "@repo/*.tgz", To: "@artifact/", Strategy: Extract}},
			err:  "copy from '@repo/*.tgz' uses strategy Extract (unpacking tarballs), which contourc does not model",
		},
		{
			name: "no match",
			ops:  []Copy{{From: "@repo/*.txt", To: "@artifact/"}},
			err:  "failed to apply copy operation from '@repo/*.txt' to '@artifact/': no files match pattern '*.txt' in source 'repo'",
		},
		{
			name: "every match excluded",
			ops:  []Copy{{From: "@repo/*.md", To: "@artifact/", Exclude: []string{"*.md"}}},
			err:  "all files matching pattern '*.md' in source 'repo' were excluded",
		},
		{
			name: "a missing file",
			ops:  []Copy{{From: "@repo/missing.yaml", To: "@artifact/"}},
			err:  "source 'missing.yaml' does not exist",
		},
		{
			name: "an unknown alias",
			ops:  []Copy{{From: "@oci/x.yaml", To: "@artifact/"}},
			err:  "source alias 'oci' not found",
		},
		{
			name: "a bad exclude",
			ops:  []Copy{{From: "@repo/*.md", To: "@artifact/", Exclude: []string{"[*.md"}}},
			err:  "invalid exclude pattern '[*.md'",
		},
		{
			name: "a destination outside the artifact",
			ops:  []Copy{{From: "@repo/config.yaml", To: "@artifact/../x.yaml"}},
			err:  "path escapes from parent",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compose(tc.ops, src)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range c.Files() {
				real, _ := c.File(p)
				rel, _ := filepath.Rel(root, real)
				got = append(got, p+"<-"+filepath.ToSlash(rel))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("files:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// A source's artifact is the GitRepository's: what its ignore rules and
// links leave out is not there to copy.
func TestComposeFromTheArtifact(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		".sourceignore":            "/drafts/\n",
		"apps/web/proxy.yaml":      "",
		"apps/web/.sops.yaml":      "",
		"drafts/apps/web/new.yaml": "",
		".git/config":              "",
	})
	if err := os.Symlink(filepath.Join(root, "apps/web/proxy.yaml"), filepath.Join(root, "apps/web/link.yaml")); err != nil {
		t.Fatal(err)
	}
	f, err := Load(root, "GitRepository flux-system/flux-system", "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compose([]Copy{{From: "@repo/**", To: "@artifact/"}}, map[string]Source{"repo": {Root: root, Filter: f}})
	if err != nil {
		t.Fatal(err)
	}
	// .sops.yaml is in the GitRepository's artifact (its .sourceignore
	// replaces the defaults) but not in the ExternalArtifact's.
	if got, want := c.Files(), []string{".sourceignore", "apps/web/proxy.yaml"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	if got, want := c.LeftOut("apps/web/.sops.yaml"), `pattern "**/.sops.yaml" of source-controller's default exclusions`; got != want {
		t.Errorf("LeftOut = %q, want %q", got, want)
	}
	if !c.IsDir("apps/web") || c.IsDir("drafts") || c.Dir("apps") != filepath.Join(root, "apps") {
		t.Errorf("IsDir(apps/web) %v, IsDir(drafts) %v, Dir(apps) %q", c.IsDir("apps/web"), c.IsDir("drafts"), c.Dir("apps"))
	}
	if got, want := c.ReadDir(""), []string{".sourceignore", "apps"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ReadDir = %q, want %q", got, want)
	}
}
