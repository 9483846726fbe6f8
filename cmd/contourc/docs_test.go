package main

// Tests that keep the README and docs/ true: the console examples are run
// and their output compared, `make run` must print only the bootstrap,
// and the README's flags table must name the commands that take each flag.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

var readme = filepath.Join(repoRoot, "README.md")

// consoleExample is a `$ contourc ...` command of a ```console block and
// the output shown under it; a line "..." there stands for any lines.
type consoleExample struct {
	line int // of the command in the file
	args []string
	want []string
}

// consoleExamples extracts the contourc commands of the console blocks of
// a Markdown file, with their continuation lines (ending in \).
func consoleExamples(t *testing.T, path string) []consoleExample {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []consoleExample
	var cur *consoleExample
	inBlock, continued := false, false
	for i, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "```console"):
			inBlock = true
		case !inBlock:
		case strings.HasPrefix(l, "```"):
			inBlock, cur = false, nil
		case continued:
			cur.args = append(cur.args, strings.Fields(strings.TrimSuffix(l, `\`))...)
			continued = strings.HasSuffix(l, `\`)
		case strings.HasPrefix(l, "$ contourc "):
			out = append(out, consoleExample{line: i + 1, args: strings.Fields(strings.TrimSuffix(l, `\`))[2:]})
			cur = &out[len(out)-1]
			continued = strings.HasSuffix(l, `\`)
		case cur != nil:
			cur.want = append(cur.want, l)
		}
	}
	return out
}

// matchElided reports whether got matches want, where a want line "..."
// matches any number of lines.
func matchElided(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "..." {
		for i := 0; i <= len(got); i++ {
			if matchElided(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matchElided(want[1:], got[1:])
}

// TestDocsConsoleExamples runs every `$ contourc` example of the README and
// docs/ from the repository root and compares its standard output with the
// block's.
func TestDocsConsoleExamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	files = append(files, readme)
	found := 0
	for _, f := range files {
		for _, ex := range consoleExamples(t, f) {
			found++
			t.Run(filepath.Base(f)+":"+strings.Join(ex.args, " "), func(t *testing.T) {
				args := make([]string, len(ex.args))
				for i, a := range ex.args {
					if strings.HasPrefix(a, "testdata/") || strings.HasPrefix(a, "examples/") {
						a = filepath.Join(repoRoot, a)
					}
					args[i] = a
				}
				got := runCLI(t, "", args...)
				// File names as run from the repository root.
				stdout := strings.ReplaceAll(got.stdout, repoRoot+string(filepath.Separator), "")
				lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
				if !matchElided(ex.want, lines) {
					t.Errorf("%s:%d: the example's output is out of date; contourc prints:\n%s", f, ex.line, stdout)
				}
			})
		}
	}
	if found == 0 {
		t.Fatal("no console example found: the parser is wrong")
	}
}

// TestMakeRunPrintsOnlyTheBootstrap: the README's `make run > envoy.yaml`
// must leave a valid bootstrap, so nothing else (no echoed recipe) may
// reach stdout.
func TestMakeRunPrintsOnlyTheBootstrap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds contourc with go run")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	cmd := exec.Command("make", "run")
	cmd.Dir = repoRoot
	// Run as from a shell, not as a sub-make of `make test`, which would
	// announce the directory.
	for _, e := range os.Environ() {
		if k, _, _ := strings.Cut(e, "="); k != "MAKEFLAGS" && k != "MAKELEVEL" && k != "MFLAGS" {
			cmd.Env = append(cmd.Env, e)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("make run: %v\n%s", err, stderr.String())
	}
	var doc map[string]any
	if err := yaml.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("make run's stdout is not YAML: %v\n%.300s", err, stdout.String())
	}
	if want := renderOK(t, "", examplesDir); !bytes.Equal(stdout.Bytes(), want) {
		t.Errorf("make run's stdout is not render's bootstrap of the examples:\n%s", firstDifference(want, stdout.Bytes()))
	}
}

// flagNamePattern finds the long flag names of a flags-table cell:
// `--envoy-service-http[s]-port` stands for the http and https flags.
var flagNamePattern = regexp.MustCompile("`--([a-z0-9-]+(\\[s\\][a-z0-9-]*)?)")

// TestREADMEFlagsTable checks the Commands column of the README's flags
// table against the flags each command registers: "all" is a flag of the
// root every command inherits, "contourc" one of the root alone.
func TestREADMEFlagsTable(t *testing.T) {
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	root := newRootCmd(IOStreams{})
	root.InitDefaultVersionFlag()
	var commands []string
	for _, c := range root.Commands() {
		commands = append(commands, c.Name())
	}
	sort.Strings(commands)
	has := func(command, flag string) bool {
		if command == "contourc" {
			return root.Flags().Lookup(flag) != nil
		}
		for _, c := range root.Commands() {
			if c.Name() == command {
				return c.Flags().Lookup(flag) != nil
			}
		}
		t.Fatalf("the flags table names command %q, which contourc does not have", command)
		return false
	}

	rows := 0
	inTable := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| Flag | Commands |") {
			inTable = true
			continue
		}
		if inTable && !strings.HasPrefix(line, "|") {
			break
		}
		if !inTable || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := splitTableRow(line)
		if len(cells) < 3 {
			t.Fatalf("flags table row %q has %d cells", line, len(cells))
		}
		var listed []string
		for _, c := range strings.Split(cells[1], ",") {
			listed = append(listed, strings.TrimSpace(c))
		}
		for _, m := range flagNamePattern.FindAllStringSubmatch(cells[0], -1) {
			names := []string{m[1]}
			if m[2] != "" {
				names = []string{strings.Replace(m[1], "[s]", "", 1), strings.Replace(m[1], "[s]", "s", 1)}
			}
			for _, name := range names {
				rows++
				if slices.Equal(listed, []string{"all"}) {
					if root.PersistentFlags().Lookup(name) == nil {
						t.Errorf("--%s: listed for all commands, but it is not a flag of the root", name)
					}
					continue
				}
				var want []string
				for _, c := range append([]string{"contourc"}, commands...) {
					if has(c, name) {
						want = append(want, c)
					}
				}
				got := slices.Clone(listed)
				sort.Strings(got)
				sort.Strings(want)
				if !slices.Equal(got, want) {
					t.Errorf("--%s: the table lists %v, the commands that take it are %v", name, listed, want)
				}
			}
		}
	}
	if rows < 10 {
		t.Fatalf("only %d flags found in the README's flags table: the parser is wrong", rows)
	}
}

// splitTableRow splits a Markdown table row on its unescaped pipes.
func splitTableRow(line string) []string {
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	// The text before the first pipe and after the last are not cells.
	if len(cells) > 0 {
		cells = cells[1:]
	}
	return cells
}
