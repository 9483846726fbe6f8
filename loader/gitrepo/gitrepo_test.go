package gitrepo

import (
	"os"
	"path/filepath"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://github.com/org/repo", "github.com/org/repo"},
		{"https://github.com/org/repo.git", "github.com/org/repo"},
		{"https://github.com/org/repo/", "github.com/org/repo"},
		{"https://user:token@GitHub.com/org/repo.git", "github.com/org/repo"},
		{"http://github.com/org/repo", "github.com/org/repo"},
		{"ssh://git@github.com/org/repo", "github.com/org/repo"},
		{"ssh://git@github.com:22/org/repo.git", "github.com/org/repo"},
		{"git@github.com:org/repo.git", "github.com/org/repo"},
		{"git@github.com:org/repo", "github.com/org/repo"},
		{"github.com:org/repo", "github.com/org/repo"},
		{"https://gitlab.example.com:8443/group/sub/repo.git", "gitlab.example.com/group/sub/repo"},
		{"  https://github.com/Org/Repo  ", "github.com/Org/Repo"},
		{"file:///srv/git/repo", "/srv/git/repo"},
		{"/srv/git/repo/", "/srv/git/repo"},
		{"./repo", "repo"},
	} {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSame(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"https://github.com/org/repo", "git@github.com:org/repo.git", true},
		{"ssh://git@github.com/org/repo", "https://GITHUB.COM/org/repo/", true},
		{"https://github.com/org/repo", "https://github.com/org/other", false},
		{"https://github.com/org/repo", "https://gitlab.com/org/repo", false},
		{"https://github.com/org/repo", "https://github.com/org/repo-ops", false},
		{"", "", false},
		{"https://github.com/org/repo", "", false},
	} {
		if got := Same(tc.a, tc.b); got != tc.want {
			t.Errorf("Same(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestRemoteURL(t *testing.T) {
	config := `[core]
	bare = false
[remote "upstream"]
	url = https://github.com/other/repo
[remote "origin"]
	# a comment
	url = "git@github.com:org/repo.git"
	fetch = +refs/heads/*:refs/remotes/origin/*
`
	if got := remoteURL([]byte(config), "origin"); got != "git@github.com:org/repo.git" {
		t.Errorf("origin = %q", got)
	}
	if got := remoteURL([]byte(config), "missing"); got != "" {
		t.Errorf("missing = %q", got)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRootAndOrigin(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "main")
	write(t, filepath.Join(main, ".git", "config"), "[remote \"origin\"]\n\turl = https://github.com/org/repo\n")
	write(t, filepath.Join(main, "apps", "web", "a.yaml"), "")
	// A worktree: a .git file naming its git directory, whose commondir
	// is the main checkout's .git.
	wt := filepath.Join(dir, "wt")
	wtGit := filepath.Join(main, ".git", "worktrees", "wt")
	write(t, filepath.Join(wt, ".git"), "gitdir: "+wtGit+"\n")
	write(t, filepath.Join(wtGit, "commondir"), "../..\n")
	write(t, filepath.Join(wt, "clusters", "prod", "x.yaml"), "")

	root, ok := Root(filepath.Join(main, "apps", "web", "a.yaml"))
	if !ok || root != main {
		t.Fatalf("Root = %q, %v; want %q", root, ok, main)
	}
	if url, err := OriginURL(root); err != nil || url != "https://github.com/org/repo" {
		t.Errorf("OriginURL(main) = %q, %v", url, err)
	}
	root, ok = Root(filepath.Join(wt, "clusters", "prod"))
	if !ok || root != wt {
		t.Fatalf("Root = %q, %v; want %q", root, ok, wt)
	}
	if url, err := OriginURL(root); err != nil || url != "https://github.com/org/repo" {
		t.Errorf("OriginURL(worktree) = %q, %v", url, err)
	}
	if _, ok := Root("/"); ok {
		t.Errorf("Root(/) found a repository")
	}
}
