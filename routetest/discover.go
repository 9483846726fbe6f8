package routetest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// TestFileSuffix marks route test files.
const TestFileSuffix = ".test.yaml"

// testsDir is where `contourc test PATH` looks for test files.
const testsDir = "tests"

// manifestExts are the files a manifest directory walk reads, as in the
// loader.
var manifestExts = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// TestFiles expands TESTFILE arguments: files as given, directories walked
// for *.test.yaml files.
func TestFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, a)
			continue
		}
		found, err := walk(a, func(p string, inTests bool) bool { return strings.HasSuffix(p, TestFileSuffix) })
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no *%s file in this directory", a, TestFileSuffix)
		}
		out = append(out, found...)
	}
	return out, nil
}

// Discover applies the tests/ convention to PATH arguments: the test files
// are the *.test.yaml files under PATH/tests/, the manifests every other
// manifest file under PATH. Test files are kept out of the manifests so
// that they need no apiVersion; a file argument is a manifest unless it is
// named *.test.yaml, and "-" (stdin) is a manifest.
func Discover(paths []string) (tests, manifests []string, err error) {
	for _, p := range paths {
		if p == "-" {
			manifests = append(manifests, p)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !info.IsDir() {
			if strings.HasSuffix(p, TestFileSuffix) {
				tests = append(tests, p)
			} else {
				manifests = append(manifests, p)
			}
			continue
		}
		found, err := walk(p, func(f string, inTests bool) bool {
			return inTests && strings.HasSuffix(f, TestFileSuffix)
		})
		if err != nil {
			return nil, nil, err
		}
		tests = append(tests, found...)
		found, err = walk(p, func(f string, inTests bool) bool {
			return !inTests && !strings.HasSuffix(f, TestFileSuffix) && manifestExts[strings.ToLower(filepath.Ext(f))]
		})
		if err != nil {
			return nil, nil, err
		}
		manifests = append(manifests, found...)
	}
	return tests, manifests, nil
}

// walk lists the files under root that keep accepts, in lexical order,
// skipping hidden files and directories as the loader does. inTests says
// whether the file is under root/tests/.
func walk(root string, keep func(path string, inTests bool) bool) ([]string, error) {
	var out []string
	tests := filepath.Join(root, testsDir)
	// A trailing separator makes WalkDir follow a root that is a symlink
	// to a directory, as the loader's walk does.
	if !os.IsPathSeparator(root[len(root)-1]) {
		root += string(filepath.Separator)
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		hidden := p != root && strings.HasPrefix(d.Name(), ".")
		switch {
		case hidden && d.IsDir():
			return fs.SkipDir
		case hidden || d.IsDir():
			return nil
		}
		inTests := strings.HasPrefix(p, tests+string(filepath.Separator))
		if keep(p, inTests) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}
