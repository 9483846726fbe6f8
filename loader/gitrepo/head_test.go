package gitrepo

import (
	"os"
	"path/filepath"
	"testing"
)

// Head resolves HEAD as git does, from the files of the git directory.
func TestHead(t *testing.T) {
	const a, b = "0123456789abcdef0123456789abcdef01234567", "89abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
		ok    bool
	}{
		{"detached", map[string]string{".git/HEAD": a + "\n"}, a, true},
		{"loose branch", map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": a + "\n"}, a, true},
		{"packed branch", map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/packed-refs": "# pack-refs with: peeled fully-peeled sorted\n" + b + " refs/heads/dev\n" + a + " refs/heads/main\n"}, a, true},
		{"loose wins over packed", map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": b + "\n", ".git/packed-refs": a + " refs/heads/main\n"}, b, true},
		{"worktree: HEAD in its git directory, refs in the common one", map[string]string{
			".git":                         "gitdir: .bare/worktrees/wt\n",
			".bare/worktrees/wt/HEAD":      "ref: refs/heads/feature\n",
			".bare/worktrees/wt/commondir": "../..\n",
			".bare/refs/heads/feature":     b + "\n",
		}, b, true},
		{"unborn branch", map[string]string{".git/HEAD": "ref: refs/heads/main\n"}, "", false},
		{"not a commit id", map[string]string{".git/HEAD": "nonsense\n"}, "", false},
		{"no repository", map[string]string{"x": ""}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tc.files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := Head(root)
			if ok != tc.ok || (ok && got != tc.want) {
				t.Errorf("Head = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
