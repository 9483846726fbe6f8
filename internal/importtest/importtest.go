// Package importtest reads which packages of contourc a package imports,
// for the tests that keep the layers of ARCHITECTURE.md from importing
// upward.
package importtest

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Module is contourc's module path.
const Module = "github.com/contourc/contourc"

// Import is one import of a package of contourc by a source file.
type Import struct {
	File string // the file's name in the package's directory
	Path string // the imported package, e.g. github.com/contourc/contourc/loader
}

// Contourc lists the imports of contourc's packages (internal/ ones
// included) by the non-test Go files of the package in the current
// directory, which go test runs in. It fails the test when it finds no
// source file, so that a test of the wrong directory cannot pass.
func Contourc(t testing.TB) []Import {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []Import
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == Module || strings.HasPrefix(path, Module+"/") {
				out = append(out, Import{File: name, Path: path})
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
	return out
}

// Internal says whether path is one of the shared helpers under
// internal/, which every layer may use.
func Internal(path string) bool { return strings.HasPrefix(path, Module+"/internal/") }

// Only fails the test for each import of contourc by the package in the
// current directory that is neither under internal/ nor one of trees
// (paths below Module, such as "/translate/dag"), each tree meaning the
// package and the packages below it. name is the package's name in the
// message.
func Only(t testing.TB, name string, trees ...string) {
	t.Helper()
	for _, imp := range Contourc(t) {
		if !Internal(imp.Path) && !inTrees(imp.Path, trees) {
			t.Errorf("%s imports %s; %s may import only %s and internal/ of contourc", imp.File, imp.Path, name, strings.Join(trees, ", "))
		}
	}
}

// inTrees says whether path is one of trees or below one.
func inTrees(path string, trees []string) bool {
	for _, tree := range trees {
		if tree = Module + tree; path == tree || strings.HasPrefix(path, tree+"/") {
			return true
		}
	}
	return false
}
