package main

// TestCIDocsCommands runs the contourc commands docs/ci.md shows, in its
// GitHub Actions workflow and its shell script, against a Git repository
// holding a change to manifests/, so that the documented pipeline keeps
// working as contourc changes.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var ciDocs = filepath.Join(repoRoot, "docs", "ci.md")

// docCommand is one contourc command line of the docs and the fenced
// block (by its info string, "yaml" or "sh") it comes from.
type docCommand struct {
	block string
	args  []string
}

// docCommands extracts the contourc invocations from the fenced code
// blocks of a Markdown file: lines that start with "contourc " or
// "run: contourc ", up to the first shell operator (redirection, pipe,
// ||, &&, ;). Double quotes around a word are removed.
func docCommands(t *testing.T, path string) []docCommand {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []docCommand
	block := ""
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if block == "" {
				block = strings.TrimPrefix(trimmed, "```")
				if block == "" {
					block = "text"
				}
			} else {
				block = ""
			}
			continue
		}
		if block == "" {
			continue
		}
		trimmed = strings.TrimPrefix(strings.TrimPrefix(trimmed, "- "), "run: ")
		if !strings.HasPrefix(trimmed, "contourc ") {
			continue
		}
		var args []string
		for _, word := range strings.Fields(trimmed)[1:] {
			if strings.ContainsAny(word[:1], "><|&;") || strings.HasPrefix(word, "2>") {
				break
			}
			args = append(args, strings.Trim(word, `"`))
		}
		out = append(out, docCommand{block: block, args: args})
	}
	return out
}

func TestCIDocsCommands(t *testing.T) {
	// docs/ci.md keeps the manifests in manifests/.
	r := newGitRepo(t)
	r.copyDir(filepath.Join(diffCasesDir, "route-weight", "old"), "manifests")
	r.commit()
	r.copyDir(filepath.Join(diffCasesDir, "route-weight", "new"), "manifests")
	out := t.TempDir()

	commands := docCommands(t, ciDocs)
	seen := map[string]bool{}
	for _, c := range commands {
		// The repository stands for the checkout, HEAD for the base
		// branch, and files written go to a temporary directory.
		args := make([]string, len(c.args))
		for i, a := range c.args {
			switch {
			case a == "$BASE_REF":
				a = "HEAD"
			case strings.HasPrefix(a, "manifests"):
				a = filepath.Join(r.dir, a)
			case i > 0 && (c.args[i-1] == "--output" || c.args[i-1] == "--output-dir"):
				a = filepath.Join(out, a)
			}
			args[i] = a
		}
		name := c.block + ": contourc " + strings.Join(c.args, " ")
		seen[c.block+" "+c.args[0]] = true
		t.Run(name, func(t *testing.T) {
			got := runCLI(t, "", args...)
			want := exitOK
			if c.args[0] == "diff" {
				want = exitFindings // the repository holds a change
				if got.stdout == "" {
					t.Error("diff printed nothing")
				}
			}
			got.wantExit(t, want)
			for i, a := range args {
				if i > 0 && (args[i-1] == "--output" || args[i-1] == "--output-dir") {
					if _, err := os.Stat(a); err != nil {
						t.Errorf("--output file not written: %v", err)
					}
				}
			}
		})
	}
	for _, block := range []string{"yaml", "sh"} {
		for _, cmd := range []string{"render", "check", "diff"} {
			if !seen[block+" "+cmd] {
				t.Errorf("%s shows no `contourc %s` in a %s block", ciDocs, cmd, block)
			}
		}
	}
}
